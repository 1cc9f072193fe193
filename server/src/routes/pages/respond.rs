//! Answering one document request: find the entity, check freshness, gather, render, and
//! put the headers on (`ETag`, `Last-Modified`, `Link`, `Content-Location`, `Vary`).
//!
//! Small entities are answered on the request's thread; larger ones on a blocking thread
//! under the request's time budget, a complete RDF document streamed (see
//! [`super::document::stream`]). Page requests do not take a query slot: they are short,
//! bounded by the same budget, and must not be refused while a few long SPARQL queries run.

use super::describe::{page_data, store_error, Deadline};
use super::document::{
    headers_for, read_page, serialize, stream, Answer, Context, DocumentRequest, Headers,
};
use super::hash_document::{self, HashDocument};
use crate::error::ApiError;
use crate::extract::representation::Representation;
use crate::respond::stream::stream_blocking;
use crate::state::AppState;
use axum::response::Response;
use lodestone_store::{Reader, TermId, TermUsage};
use lodestone_web::{EntityPage, Layout, Pagination};
use oxrdf::NamedNode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::OwnedSemaphorePermit;

/// Descriptions this small (quads with the entity as subject or object) are answered on the
/// request's own thread: they take well under a millisecond, less than the hand-off to the
/// blocking pool and back. Larger ones go to the pool so that a hub never holds up the
/// threads that serve everyone else.
const INLINE_QUADS: u64 = 512;
/// An entity answered inline that takes longer than this (a long chain of blank nodes
/// behind a few quads) is answered again on the blocking pool.
const INLINE_BUDGET: Duration = Duration::from_millis(20);

/// The first candidate IRI the store knows, with its id and its usage.
fn find_entity(
    reader: &Reader<'_>,
    candidates: &[String],
) -> Result<(NamedNode, TermId, TermUsage), ApiError> {
    for candidate in candidates {
        let Ok(iri) = NamedNode::new(candidate.as_str()) else {
            continue;
        };
        if let Some(id) = reader.term_id(iri.as_ref().into()).map_err(store_error)? {
            let usage = reader.usage(id).map_err(store_error)?;
            if !usage.is_unused() {
                return Ok((iri, id, usage));
            }
        }
    }
    Err(nothing_found(candidates))
}

/// What a request's IRIs name in the store.
pub(super) enum Found {
    /// An IRI the store uses (hash IRIs `{iri}#…` or not): `/resource` redirects to its
    /// page or document.
    Entity,
    /// The document of hash IRIs (`{iri}#…`) when the IRI itself is not used: answered in
    /// place, it needs no redirect.
    HashDocument,
}

/// What the candidates name; 404 if nothing.
pub(super) fn ensure_exists(state: &AppState, candidates: &[String]) -> Result<Found, ApiError> {
    let reader = state.store().reader();
    match find_entity(&reader, candidates) {
        Ok(_) => Ok(Found::Entity),
        Err(not_found @ ApiError::EntityNotFound(_)) => {
            if hash_document::any_has_resources(&reader, candidates)? {
                Ok(Found::HashDocument)
            } else {
                Err(not_found)
            }
        }
        Err(other) => Err(other),
    }
}

/// What a request is answered from once found.
enum Target {
    /// An entity; with its hash IRIs in RDF documents of the entity's document URLs.
    Entity { iri: NamedNode, with_hashes: bool },
    /// The hash IRIs of a document the store does not describe.
    HashIris,
}

/// What a found target is answered from, read again from the view that answers it.
enum Resolved {
    /// The entity alone.
    Entity(NamedNode, TermId),
    /// A hash document (the entity's, with its hash IRIs, or one the store does not use).
    Document(HashDocument),
}

/// Resolves a target in `reader`'s view: the entity may have gone since it was found (a
/// commit in between).
fn resolve(
    reader: &Reader<'_>,
    target: Target,
    candidates: &[String],
) -> Result<Resolved, ApiError> {
    match target {
        Target::Entity { iri, with_hashes } => {
            let (_, id, _) = find_entity(reader, &[iri.as_str().to_owned()])?;
            let document = if with_hashes {
                HashDocument::of(reader, iri.clone(), Some(id))?
            } else {
                None
            };
            Ok(document.map_or(Resolved::Entity(iri, id), Resolved::Document))
        }
        Target::HashIris => hash_document::find(reader, candidates)?
            .map(Resolved::Document)
            .ok_or_else(|| nothing_found(candidates)),
    }
}

/// The error of candidates that name nothing in the store.
fn nothing_found(candidates: &[String]) -> ApiError {
    ApiError::EntityNotFound(candidates.first().cloned().unwrap_or_default())
}

/// Answers a document request.
pub(super) async fn document(
    state: &AppState,
    request: DocumentRequest,
) -> Result<Response, ApiError> {
    let slot = state.page_slot().await?;
    let context = Context {
        settings: state.settings().pages.clone(),
        budget: state.settings().query_timeout,
        cache: Arc::clone(state.page_cache()),
        prefixes: state.prefixes(),
    };
    let budget = context.budget;
    let target = {
        let reader = state.store().reader();
        match find_entity(&reader, &request.candidates) {
            Ok((iri, id, usage)) => {
                let with_hashes = request.whole_document
                    && request.representation != Representation::Html
                    && hash_document::has_resources(&reader, &iri)?;
                if !with_hashes && usage.as_subject + usage.as_object <= INLINE_QUADS {
                    let deadline = Deadline::after(INLINE_BUDGET.min(budget));
                    match answer(&reader, (iri.clone(), id), &request, &context, deadline) {
                        Err(ApiError::Timeout(_)) => {}
                        done => {
                            let (answer, headers) = done?;
                            return Ok(headers.into_response(answer));
                        }
                    }
                }
                Target::Entity { iri, with_hashes }
            }
            Err(not_found @ ApiError::EntityNotFound(_)) => {
                if !request.whole_document
                    || !hash_document::any_has_resources(&reader, &request.candidates)?
                {
                    return Err(not_found);
                }
                Target::HashIris
            }
            Err(other) => return Err(other),
        }
    };
    if request.is_complete() {
        return stream_whole(state, slot, target, request, budget).await;
    }
    let store = state.store().clone();
    let work = state.spawn_read(move || {
        let _slot = slot;
        let reader = store.reader();
        let deadline = Deadline::after(budget);
        let document = match resolve(&reader, target, &request.candidates)? {
            Resolved::Entity(iri, id) => {
                return answer(&reader, (iri, id), &request, &context, deadline)
            }
            Resolved::Document(document) => document,
        };
        hash_document::answer(&reader, document, &request, &context, deadline)
    });
    let (answer, headers) = tokio::time::timeout(budget + Duration::from_secs(1), work)
        .await
        .map_err(|_| ApiError::Timeout(budget))?
        .map_err(|e| ApiError::Internal(format!("page task failed: {e}")))??;
    Ok(headers.into_response(answer))
}

/// Streams a complete RDF document (the request has no `page=`) under the time budget.
async fn stream_whole(
    state: &AppState,
    slot: OwnedSemaphorePermit,
    target: Target,
    request: DocumentRequest,
    budget: Duration,
) -> Result<Response, ApiError> {
    let Representation::Rdf(format) = request.representation else {
        return Err(ApiError::Internal("an HTML page is never streamed".into()));
    };
    // The headers and the resources come from this read view; the stream reads from its
    // own, at most a few commits later (a client revalidating then fetches once more).
    let (resources, headers, fresh) = {
        let reader = state.store().reader();
        let (iri, resources) = match resolve(&reader, target, &request.candidates)? {
            Resolved::Entity(iri, id) => (iri, vec![id]),
            Resolved::Document(document) => {
                let resources = document.resource_ids();
                (document.iri, resources)
            }
        };
        let (headers, fresh, _) = headers_for(&reader, &request, &iri)?;
        (resources, headers, fresh)
    };
    if fresh {
        return Ok(headers.into_response(Answer::NotModified));
    }
    let store = state.store().clone();
    let mut response = stream_blocking(
        state,
        slot,
        budget,
        headers.content_type(),
        move |sink, token| {
            let reader = store.reader();
            stream(
                &reader,
                &resources,
                format,
                sink,
                token,
                Deadline::after(budget),
            )
        },
    )
    .await?;
    headers.apply(&mut response, false);
    Ok(response)
}

/// The answer to a request for an entity's document, from one read view.
fn answer(
    reader: &Reader<'_>,
    (iri, id): (NamedNode, TermId),
    request: &DocumentRequest,
    context: &Context,
    deadline: Deadline,
) -> Result<(Answer, Headers), ApiError> {
    let Context {
        settings,
        cache,
        prefixes,
        ..
    } = context;
    let (headers, fresh, sequence) = headers_for(reader, request, &iri)?;
    if fresh {
        return Ok((Answer::NotModified, headers));
    }
    let html = request.representation == Representation::Html;
    // A hub's incoming counts take a scan of every link: once per commit is enough.
    let cached_counts = cache.incoming_counts(sequence, id).filter(|_| html);
    let count_incoming = html && cached_counts.is_none();
    let mut described = read_page(reader, &[id], &iri, request, count_incoming, deadline)?;
    if let Some(counts) = cached_counts {
        described.incoming_counts = counts.to_vec();
    } else if count_incoming {
        let counts = Arc::new(described.incoming_counts.clone());
        cache.set_incoming_counts(sequence, id, counts);
    }
    let has_next = described.has_next;
    let body = match request.representation {
        Representation::Html => {
            let data = page_data(
                reader,
                (id, iri.clone()),
                described,
                &settings.labels.properties,
                cache,
            )?;
            let title = data
                .labels
                .get(&iri)
                .and_then(|l| l.best(&request.chain))
                .map_or_else(|| iri.as_str().to_owned(), |l| l.value().to_owned());
            let layout = Layout::new(settings.site_name.clone(), request.chain.primary(), title)
                .with_alternates(headers.alternates.clone());
            let pagination = Pagination {
                page: request.page_number(),
                previous: headers.previous.clone(),
                next: has_next.then(|| headers.next.clone()),
            };
            let mut page = EntityPage::build(
                &data,
                layout,
                &request.linker,
                prefixes,
                &request.chain,
                pagination,
            );
            if request.whole_document {
                page.hash_resources =
                    hash_document::entries(reader, &iri, context, &request.chain)?.0;
            }
            page.to_html()
                .map_err(|e| ApiError::Internal(e.to_string()))?
                .into_bytes()
        }
        Representation::Rdf(format) => serialize(&described, request, &iri, format)?,
    };
    Ok((Answer::Body(body, has_next), headers))
}
