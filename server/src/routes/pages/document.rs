//! What a document answer is made of, shared by entity documents ([`super::respond`]) and hash
//! documents ([`super::hash_document`]): the request, the server context, the serialization
//! and the headers (`ETag`, `Last-Modified`, `Link`, `Content-Location`, `Vary`).

use super::describe::{store_error, DescribedPage};
use crate::error::ApiError;
use crate::extract::representation::{Representation, REPRESENTATIONS};
use crate::page_cache::PageCache;
use crate::respond::results::io_error;
use crate::settings::PageSettings;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use lodestone_store::Reader;
use lodestone_web::{Alternate, LanguageChain, Linker};
use oxrdf::{GraphName, NamedNode};
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
    /// Page number, from 1.
    pub page: u64,
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
}

/// The RDF serialization of a described page.
pub(super) fn serialize(
    described: &DescribedPage,
    format: oxrdfio::RdfFormat,
) -> Result<Vec<u8>, ApiError> {
    let mut serializer = RdfSerializer::from_format(format).for_writer(Vec::new());
    let datasets = format.supports_datasets();
    for quad in described.quads() {
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
    format!(
        "\"{sequence}-{}-{}-{:016x}\"",
        request.representation.suffix(),
        request.page,
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
        let paged = |link: String, page: u64| super::with_page(&link, page);
        let link_for = |representation: Representation, page: u64| match representation {
            Representation::Html => paged(request.linker.page(iri.as_str()), page),
            Representation::Rdf(_) => paged(
                request.linker.data(iri.as_str(), representation.suffix()),
                page,
            ),
        };
        let alternates = REPRESENTATIONS
            .iter()
            .map(|(representation, _, name)| Alternate {
                media_type: representation.media_type().to_owned(),
                name: (*name).to_owned(),
                href: link_for(*representation, request.page),
            })
            .collect();
        Self {
            etag,
            last_modified,
            content_type: request.representation.content_type(),
            alternates,
            previous: (request.page > 1)
                .then(|| link_for(request.representation, request.page - 1)),
            next: link_for(request.representation, request.page + 1),
            content_location: request.content_location.clone(),
            html: request.representation == Representation::Html,
        }
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
        response
    }
}
