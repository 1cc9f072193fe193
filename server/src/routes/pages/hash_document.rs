//! Documents of hash IRIs: `…/vocab` is the document of `…/vocab#a`, `…/vocab#b`, ….
//!
//! A client that dereferences `…/vocab#a` asks for `…/vocab`, so when the store holds IRIs
//! `…/vocab#…`, the document URLs of `…/vocab` (`/resource`, `/data`, `/page`) answer for
//! them too, `/resource` in place (no redirect) when the store does not use `…/vocab` itself.
//! In RDF: the descriptions of `…/vocab` (if the store describes it) and of its hash IRIs one
//! after the other, each statement once, whole or paged like any document. In HTML: the page of `…/vocab` (if described) with the hash IRIs listed,
//! or the list alone; each entry is anchored by its fragment, so that the browser lands on the
//! resource asked for, and links to the resource's own page. `/describe?uri=` answers for the
//! one IRI asked about.

use super::describe::{label_property_ids, labels_of, store_error, Deadline};
use super::document::{
    headers_for, read_page, serialize, Answer, Context, DocumentRequest, Headers,
};
use crate::error::ApiError;
use crate::extract::representation::Representation;
use lodestone_store::{Reader, TermId};
use lodestone_web::{HashDocumentPage, HashEntry, LanguageChain, Layout};
use oxrdf::NamedNode;

/// Resources of one hash document described or listed at most.
pub(super) const MAX_RESOURCES: usize = 1_000;

/// A document and the resources it describes: itself if the store describes it, then its
/// hash IRIs (at most [`MAX_RESOURCES`] of them, plus one to tell that there are more).
pub(super) struct HashDocument {
    /// The document IRI.
    pub iri: NamedNode,
    /// Its resources, in IRI order.
    pub resources: Vec<(TermId, NamedNode)>,
}

impl HashDocument {
    /// The document `iri` if the store holds hash IRIs `{iri}#…`, with `entity` (the id of
    /// `iri` itself, when the store describes it) first.
    pub(super) fn of(
        reader: &Reader<'_>,
        iri: NamedNode,
        entity: Option<TermId>,
    ) -> Result<Option<Self>, ApiError> {
        if iri.as_str().contains('#') {
            return Ok(None);
        }
        let hashes = reader
            .hash_iris(iri.as_str(), MAX_RESOURCES + 1)
            .map_err(store_error)?;
        if hashes.is_empty() {
            return Ok(None);
        }
        let mut resources: Vec<_> = entity.map(|id| (id, iri.clone())).into_iter().collect();
        resources.extend(hashes);
        Ok(Some(Self { iri, resources }))
    }

    /// The ids of the resources described (at most [`MAX_RESOURCES`]).
    pub(super) fn resource_ids(&self) -> Vec<TermId> {
        self.resources
            .iter()
            .take(MAX_RESOURCES)
            .map(|(id, _)| *id)
            .collect()
    }
}

/// The first candidate that is the document of some hash IRIs of the store.
pub(super) fn find(
    reader: &Reader<'_>,
    candidates: &[String],
) -> Result<Option<HashDocument>, ApiError> {
    for iri in candidates
        .iter()
        .filter_map(|c| NamedNode::new(c.as_str()).ok())
    {
        if let Some(document) = HashDocument::of(reader, iri, None)? {
            return Ok(Some(document));
        }
    }
    Ok(None)
}

/// Whether some candidate is the document of hash IRIs of the store: one probe each, where
/// [`find`] reads the IRIs too.
pub(super) fn any_has_resources(
    reader: &Reader<'_>,
    candidates: &[String],
) -> Result<bool, ApiError> {
    for iri in candidates
        .iter()
        .filter_map(|c| NamedNode::new(c.as_str()).ok())
    {
        if has_resources(reader, &iri)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the store holds hash IRIs `{iri}#…`.
pub(super) fn has_resources(reader: &Reader<'_>, iri: &NamedNode) -> Result<bool, ApiError> {
    Ok(!iri.as_str().contains('#')
        && !reader
            .hash_iris(iri.as_str(), 1)
            .map_err(store_error)?
            .is_empty())
}

/// The list entries of the hash IRIs of `iri` (none if it has none), and whether there are
/// more than listed.
pub(super) fn entries(
    reader: &Reader<'_>,
    iri: &NamedNode,
    context: &Context,
    chain: &LanguageChain,
) -> Result<(Vec<HashEntry>, bool), ApiError> {
    let Some(document) = HashDocument::of(reader, iri.clone(), None)? else {
        return Ok((Vec::new(), false));
    };
    let truncated = document.resources.len() > MAX_RESOURCES;
    let labels = label_property_ids(reader, &context.settings.labels.properties, &context.cache)?;
    let entries = document
        .resources
        .iter()
        .take(MAX_RESOURCES)
        .map(|(id, iri)| {
            let labels = labels_of(reader, *id, &labels)?;
            Ok(HashEntry::new(iri.as_str(), &labels, chain))
        })
        .collect::<Result<_, ApiError>>()?;
    Ok((entries, truncated))
}

/// Answers a request for a hash document.
pub(super) fn answer(
    reader: &Reader<'_>,
    document: HashDocument,
    request: &DocumentRequest,
    context: &Context,
    deadline: Deadline,
) -> Result<(Answer, Headers), ApiError> {
    let (headers, fresh, _) = headers_for(reader, request, &document.iri)?;
    if fresh {
        return Ok((Answer::NotModified, headers));
    }
    match request.representation {
        Representation::Html => {
            let (entries, truncated) = entries(reader, &document.iri, context, &request.chain)?;
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
            let described = read_page(
                reader,
                &document.resource_ids(),
                &document.iri,
                request,
                false,
                deadline,
            )?;
            let body = serialize(&described, request, &document.iri, format)?;
            Ok((Answer::Body(body, described.has_next), headers))
        }
    }
}
