//! Documents of hash IRIs: `…/vocab` is the document of `…/vocab#a`, `…/vocab#b`, ….
//!
//! A client that dereferences `…/vocab#a` asks for `…/vocab`, so when the store does not
//! describe `…/vocab` itself but holds IRIs `…/vocab#…`, the document answers in place (no
//! redirect): in RDF, the descriptions of its resources one after the other (each statement
//! once), paged like any document; in HTML, a list anchored by fragment, so that the browser
//! lands on the resource asked for, with a link to each resource's own page.

use super::describe::{describe, label_property_ids, labels_of, Deadline, DescribedPage};
use super::respond::{
    headers_for, serialize, store_error, Answer, Context, DocumentRequest, Headers,
};
use crate::error::ApiError;
use crate::extract::representation::Representation;
use lodestone_store::{Reader, TermId};
use lodestone_web::{HashDocumentPage, HashEntry, Layout};
use oxrdf::{NamedNode, Quad};
use rustc_hash::FxHashSet;

/// Resources of one hash document described or listed at most.
pub const MAX_RESOURCES: usize = 1_000;

/// A document and its hash IRIs (at most [`MAX_RESOURCES`] + 1, to tell that there are more).
pub struct HashDocument {
    /// The document IRI.
    pub iri: NamedNode,
    /// Its resources, in IRI order.
    pub resources: Vec<(TermId, NamedNode)>,
}

/// The first candidate that is the document of some hash IRIs of the store.
pub fn find(reader: &Reader<'_>, candidates: &[String]) -> Result<Option<HashDocument>, ApiError> {
    for candidate in candidates {
        let Ok(iri) = NamedNode::new(candidate.as_str()) else {
            continue;
        };
        if iri.as_str().contains('#') {
            continue;
        }
        let resources = reader
            .hash_iris(iri.as_str(), MAX_RESOURCES + 1)
            .map_err(store_error)?;
        if !resources.is_empty() {
            return Ok(Some(HashDocument { iri, resources }));
        }
    }
    Ok(None)
}

/// Answers a request for a hash document.
pub fn answer(
    reader: &Reader<'_>,
    request: &DocumentRequest,
    context: &Context,
    deadline: Deadline,
) -> Result<(Answer, Headers), ApiError> {
    let document = find(reader, &request.candidates)?.ok_or_else(|| {
        ApiError::EntityNotFound(request.candidates.first().cloned().unwrap_or_default())
    })?;
    let (headers, fresh, _) = headers_for(reader, request, &document.iri)?;
    if fresh {
        return Ok((Answer::NotModified, headers));
    }
    let truncated = document.resources.len() > MAX_RESOURCES;
    let resources = &document.resources[..document.resources.len().min(MAX_RESOURCES)];
    match request.representation {
        Representation::Html => {
            let labels =
                label_property_ids(reader, &context.settings.labels.properties, &context.cache)?;
            let entries = resources
                .iter()
                .map(|(id, iri)| {
                    let labels = labels_of(reader, *id, &labels)?;
                    Ok(HashEntry::new(iri.as_str(), Some(&labels), &request.chain))
                })
                .collect::<Result<Vec<_>, ApiError>>()?;
            let layout = Layout::new(
                context.settings.site_name.clone(),
                request.chain.primary(),
                document.iri.as_str(),
            )
            .with_alternates(headers.alternates.clone());
            let page = HashDocumentPage {
                layout,
                iri: document.iri.as_str().to_owned(),
                entries,
                truncated,
            };
            let html = page
                .to_html()
                .map_err(|e| ApiError::Internal(e.to_string()))?;
            Ok((Answer::Body(html.into_bytes(), false), headers))
        }
        Representation::Rdf(format) => {
            let (quads, has_next) =
                page_of_quads(reader, resources, request.page, context, deadline)?;
            let page = DescribedPage {
                own: quads,
                blank: Vec::new(),
                incoming: Vec::new(),
                has_next,
                incoming_counts: Vec::new(),
                iris: Vec::new(),
            };
            Ok((Answer::Body(serialize(&page, format)?, has_next), headers))
        }
    }
}

/// Page `page` (from 1) of the statements of every resource, each statement once, and
/// whether a further page exists.
fn page_of_quads(
    reader: &Reader<'_>,
    resources: &[(TermId, NamedNode)],
    page: u64,
    context: &Context,
    deadline: Deadline,
) -> Result<(Vec<Quad>, bool), ApiError> {
    let page_size = context.settings.page_size;
    let start = usize::try_from(page.saturating_sub(1))
        .unwrap_or(usize::MAX)
        .saturating_mul(page_size);
    let mut seen: FxHashSet<Quad> = FxHashSet::default();
    let mut quads = Vec::new();
    for (id, _) in resources {
        // The whole description: page 1 of a page as long as anything can be.
        let described = describe(reader, *id, 1, usize::MAX / 2, false, deadline)?;
        for quad in described.quads() {
            if seen.insert(quad.clone()) {
                if seen.len() > start.saturating_add(page_size) {
                    return Ok((quads, true));
                }
                if seen.len() > start {
                    quads.push(quad.clone());
                }
            }
        }
    }
    Ok((quads, false))
}
