//! What a document answer is made of, shared by entity documents ([`super::respond`]) and hash
//! documents ([`super::hash_document`]): the request, the server context, the serialization
//! (a page with its paging statements, or the whole document streamed) and the headers
//! (`ETag`, `Last-Modified`, `Link`, `Content-Location`, `Vary`).
//!
//! An RDF document asked for without `page=` is complete: every statement, streamed, cut
//! like a SPARQL response if the time budget runs out (a transfer error, never a
//! complete-looking document). With `page=N` it is page `N`, which says so in RDF: the
//! document's URL has `hydra:view` the page and `hydra:totalItems` / `void:triples` its
//! statements; the page is a `hydra:PartialCollectionView` with `hydra:first`, `hydra:last`,
//! `hydra:previous` and `hydra:next`, the same links as in `Link`.

use super::describe::{describe, store_error, walk, Deadline, DescribedPage, Gather};
use crate::error::ApiError;
use crate::extract::representation::{Representation, REPRESENTATIONS};
use crate::page_cache::PageCache;
use crate::respond::results::io_error;
use crate::respond::stream::{ChunkSink, Outcome};
use crate::settings::PageSettings;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use lodestone_store::sparql::CancellationToken;
use lodestone_store::{Reader, TermId};
use lodestone_web::{Alternate, LanguageChain, Linker};
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{GraphName, Literal, NamedNode, Quad};
use oxrdfio::RdfSerializer;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

/// One request for an entity document.
pub(super) struct DocumentRequest {
    /// IRIs the request may name, tried in order.
    pub candidates: Vec<String>,
    /// What to answer with.
    pub representation: Representation,
    /// Page number, from 1; `None` for the whole document (RDF) or its first page (HTML).
    pub page: Option<u64>,
    /// Statements per page of a paged document.
    pub page_size: usize,
    /// Scheme and authority of this server as the client sees it (`http://host:port`): the
    /// paging statements of a page name absolute URLs. `None` without a usable `Host`.
    pub origin: Option<String>,
    /// Link builder (with the base IRI).
    pub linker: Linker,
    /// The reader's languages.
    pub chain: LanguageChain,
    /// `If-None-Match` of the request.
    pub if_none_match: Option<String>,
    /// `If-Modified-Since` of the request.
    pub if_modified_since: Option<String>,
    /// `Content-Location` to send (when a negotiated URL answers in place).
    pub content_location: Option<String>,
    /// Whether the URL is the IRI's document (`/resource`, `/page`, `/data`), which also
    /// covers the hash IRIs `{iri}#…`; `/describe` answers for the IRI alone.
    pub whole_document: bool,
}

/// The answer before it becomes a response.
pub(super) enum Answer {
    NotModified,
    Body(Vec<u8>, bool),
}

/// What answering needs from the server besides the request.
pub(super) struct Context {
    pub settings: PageSettings,
    pub budget: Duration,
    pub cache: Arc<PageCache>,
    /// The server's prefix table, for IRIs shown without a label (`crate::prefix_table`).
    pub prefixes: Arc<lodestone_vocab::Prefixes>,
}

impl DocumentRequest {
    /// Whether the request is for the whole RDF document rather than a page.
    pub(super) fn is_complete(&self) -> bool {
        self.page.is_none() && self.representation != Representation::Html
    }

    /// The page to read (the first one for a complete document or an HTML page).
    pub(super) fn page_number(&self) -> u64 {
        self.page.unwrap_or(1)
    }

    /// The `page=` of the link to page `page` in `representation`: none for the first HTML
    /// page (the plain page URL), always one for RDF, whose plain URL is the whole document.
    fn page_param(representation: Representation, page: u64) -> Option<u64> {
        (representation != Representation::Html || page > 1).then_some(page)
    }

    /// The URL of `iri`'s document in `representation`, at `page` if given.
    fn link(&self, iri: &NamedNode, representation: Representation, page: Option<u64>) -> String {
        let link = match representation {
            Representation::Html => self.linker.page(iri.as_str()),
            Representation::Rdf(_) => self.linker.data(iri.as_str(), representation.suffix()),
        };
        super::with_page(&link, page)
    }

    /// The error of a page past the end of its document.
    pub(super) fn past_the_end(&self, iri: &NamedNode) -> ApiError {
        ApiError::NotFound(format!(
            "the document of {iri} has no page {}",
            self.page_number()
        ))
    }
}

/// Reads the page of `iri`'s document (the statements of `resources`) that the request asks
/// for: the whole document when complete, else its page, with the total when RDF is paged
/// (and the incoming counts with `incoming_counts`). A page past the end is not found.
pub(super) fn read_page(
    reader: &Reader<'_>,
    resources: &[TermId],
    iri: &NamedNode,
    request: &DocumentRequest,
    incoming_counts: bool,
    deadline: Deadline,
) -> Result<DescribedPage, ApiError> {
    // A complete document is one page as long as anything can be.
    let page_size = if request.is_complete() {
        usize::MAX
    } else {
        request.page_size
    };
    let gather = Gather {
        incoming_counts,
        total: request.page.is_some() && request.representation != Representation::Html,
    };
    let described = describe(
        reader,
        resources,
        request.page_number(),
        page_size,
        gather,
        deadline,
    )?;
    if request.page_number() > 1 && described.is_empty() {
        return Err(request.past_the_end(iri));
    }
    Ok(described)
}

/// The RDF serialization of a described page; a page of a paged request (`page=` given)
/// with its paging statements about `iri`'s document.
pub(super) fn serialize(
    described: &DescribedPage,
    request: &DocumentRequest,
    iri: &NamedNode,
    format: oxrdfio::RdfFormat,
) -> Result<Vec<u8>, ApiError> {
    let mut serializer = RdfSerializer::from_format(format).for_writer(Vec::new());
    let datasets = format.supports_datasets();
    let paging = match request.page {
        Some(_) => paging_quads(described, request, iri)?,
        None => Vec::new(),
    };
    for quad in described.quads().chain(&paging) {
        if datasets {
            serializer.serialize_quad(quad).map_err(io_error)?;
        } else {
            let mut quad = quad.clone();
            quad.graph_name = GraphName::DefaultGraph;
            serializer.serialize_quad(&quad).map_err(io_error)?;
        }
    }
    serializer.finish().map_err(io_error)
}

const HYDRA: &str = "http://www.w3.org/ns/hydra/core#";
const VOID: &str = "http://rdfs.org/ns/void#";

/// The statements that say a page is a page: see the module documentation.
fn paging_quads(
    described: &DescribedPage,
    request: &DocumentRequest,
    iri: &NamedNode,
) -> Result<Vec<Quad>, ApiError> {
    let origin = request.origin.as_deref().ok_or_else(|| {
        ApiError::BadRequest(
            "a paged document names its pages by absolute URL: send a Host header".into(),
        )
    })?;
    let absolute = |page: Option<u64>| {
        let link = request.link(iri, request.representation, page);
        NamedNode::new(format!("{origin}{link}"))
            .map_err(|e| ApiError::Internal(format!("paging link {link:?}: {e}")))
    };
    let term = |vocab: &str, name: &str| NamedNode::new_unchecked(format!("{vocab}{name}"));
    let page = request.page_number();
    let document = absolute(None)?;
    let view = absolute(Some(page))?;
    let mut quads = vec![
        Quad::new(
            document.clone(),
            term(HYDRA, "view"),
            view.clone(),
            GraphName::DefaultGraph,
        ),
        Quad::new(
            view.clone(),
            rdf::TYPE,
            term(HYDRA, "PartialCollectionView"),
            GraphName::DefaultGraph,
        ),
        Quad::new(
            view.clone(),
            term(HYDRA, "first"),
            absolute(Some(1))?,
            GraphName::DefaultGraph,
        ),
    ];
    if page > 1 {
        quads.push(Quad::new(
            view.clone(),
            term(HYDRA, "previous"),
            absolute(Some(page - 1))?,
            GraphName::DefaultGraph,
        ));
    }
    if described.has_next {
        quads.push(Quad::new(
            view.clone(),
            term(HYDRA, "next"),
            absolute(Some(page + 1))?,
            GraphName::DefaultGraph,
        ));
    }
    if let Some(total) = described.total {
        let size = u64::try_from(request.page_size).unwrap_or(u64::MAX);
        let last = total.div_ceil(size.max(1)).max(1);
        quads.push(Quad::new(
            view,
            term(HYDRA, "last"),
            absolute(Some(last))?,
            GraphName::DefaultGraph,
        ));
        let count = Literal::new_typed_literal(total.to_string(), xsd::INTEGER);
        for property in [term(HYDRA, "totalItems"), term(VOID, "triples")] {
            quads.push(Quad::new(
                document.clone(),
                property,
                count.clone(),
                GraphName::DefaultGraph,
            ));
        }
    }
    Ok(quads)
}

/// Streams the whole document of `resources` into `sink` (see [`walk`]): the complete RDF
/// document, never held in memory. Stops with a timeout when `token` is cancelled (the
/// stream's budget) or the deadline passes.
pub(super) fn stream(
    reader: &Reader<'_>,
    resources: &[TermId],
    format: oxrdfio::RdfFormat,
    sink: &mut ChunkSink,
    token: &CancellationToken,
    deadline: Deadline,
) -> Result<Outcome, ApiError> {
    let releaser = sink.releaser();
    let mut serializer = RdfSerializer::from_format(format).for_writer(&mut *sink);
    let datasets = format.supports_datasets();
    walk(reader, resources, deadline, |_, encoded| {
        if token.is_cancelled() {
            return Err(ApiError::Timeout(deadline.budget()));
        }
        let mut quad = reader.decode_quad(encoded).map_err(store_error)?;
        if !datasets {
            quad.graph_name = GraphName::DefaultGraph;
        }
        releaser.release();
        serializer.serialize_quad(&quad).map_err(io_error)?;
        Ok(true)
    })?;
    serializer.finish().map_err(io_error)?;
    Ok(Outcome::default())
}

/// The headers of the document of `iri` at the reader's commit, whether the client's copy
/// is fresh, and the commit sequence.
pub(super) fn headers_for(
    reader: &Reader<'_>,
    request: &DocumentRequest,
    iri: &NamedNode,
) -> Result<(Headers, bool, u64), ApiError> {
    let sequence = reader.sequence().map_err(store_error)?;
    let last_commit_ms = reader.last_commit_ms().map_err(store_error)?;
    let etag = etag(request, sequence);
    let last_modified = (last_commit_ms > 0)
        .then(|| httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_millis(last_commit_ms)));
    let headers = Headers::new(request, iri, etag, last_modified);
    let fresh = is_fresh(request, &headers, last_commit_ms);
    Ok((headers, fresh, sequence))
}

/// An entity tag per commit, representation, page, and (for HTML) languages and base IRI.
fn etag(request: &DocumentRequest, sequence: u64) -> String {
    let mut hasher = DefaultHasher::new();
    request.linker.base_iri().hash(&mut hasher);
    if request.representation == Representation::Html {
        request.chain.languages().hash(&mut hasher);
    }
    let page = request
        .page
        .map_or_else(|| "all".to_owned(), |page| page.to_string());
    format!(
        "\"{sequence}-{}-{page}-{:016x}\"",
        request.representation.suffix(),
        hasher.finish()
    )
}

/// Whether the client's copy is current: `If-None-Match` decides when sent, else
/// `If-Modified-Since` (to the second).
fn is_fresh(request: &DocumentRequest, headers: &Headers, last_commit_ms: u64) -> bool {
    if let Some(tags) = &request.if_none_match {
        return tags
            .split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == "*" || t == headers.etag);
    }
    let Some(since) = request
        .if_modified_since
        .as_deref()
        .and_then(|s| httpdate::parse_http_date(s).ok())
    else {
        return false;
    };
    last_commit_ms > 0 && UNIX_EPOCH + Duration::from_secs(last_commit_ms / 1000) <= since
}

/// The headers of a document response.
pub(super) struct Headers {
    etag: String,
    last_modified: Option<String>,
    content_type: &'static str,
    pub alternates: Vec<Alternate>,
    pub previous: Option<String>,
    pub next: String,
    content_location: Option<String>,
    html: bool,
}

impl Headers {
    fn new(
        request: &DocumentRequest,
        iri: &NamedNode,
        etag: String,
        last_modified: Option<String>,
    ) -> Self {
        let alternates = REPRESENTATIONS
            .iter()
            .map(|(representation, _, name)| Alternate {
                media_type: representation.media_type().to_owned(),
                name: (*name).to_owned(),
                href: request.link(iri, *representation, request.page),
            })
            .collect();
        let representation = request.representation;
        let page_link = |page: u64| {
            request.link(
                iri,
                representation,
                DocumentRequest::page_param(representation, page),
            )
        };
        let page = request.page_number();
        Self {
            etag,
            last_modified,
            content_type: representation.content_type(),
            alternates,
            previous: (page > 1).then(|| page_link(page - 1)),
            next: page_link(page + 1),
            content_location: request.content_location.clone(),
            html: representation == Representation::Html,
        }
    }

    /// The `Content-Type` of the document.
    pub(super) fn content_type(&self) -> &'static str {
        self.content_type
    }

    pub(super) fn into_response(self, answer: Answer) -> Response {
        let (mut response, has_next) = match answer {
            Answer::NotModified => (StatusCode::NOT_MODIFIED.into_response(), false),
            Answer::Body(body, has_next) => {
                let mut response = Body::from(body).into_response();
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.content_type),
                );
                (response, has_next)
            }
        };
        self.apply(&mut response, has_next);
        response
    }

    /// Puts the headers on a response (`has_next`: a further page exists).
    pub(super) fn apply(self, response: &mut Response, has_next: bool) {
        let headers = response.headers_mut();
        let mut set = |name: header::HeaderName, value: &str| {
            if let Ok(value) = HeaderValue::try_from(value) {
                headers.append(name, value);
            }
        };
        set(header::ETAG, &self.etag);
        if let Some(date) = &self.last_modified {
            set(header::LAST_MODIFIED, date);
        }
        if let Some(location) = &self.content_location {
            set(header::CONTENT_LOCATION, location);
        }
        if self.html {
            set(header::VARY, "accept-language");
        }
        let mut links: Vec<String> = self
            .alternates
            .iter()
            .map(|a| format!("<{}>; rel=\"alternate\"; type=\"{}\"", a.href, a.media_type))
            .collect();
        if has_next {
            links.push(format!("<{}>; rel=\"next\"", self.next));
        }
        if let Some(previous) = &self.previous {
            links.push(format!("<{previous}>; rel=\"prev\""));
        }
        set(header::LINK, &links.join(", "));
    }
}
