//! The search API: `/api/search`, `/api/autocomplete`, `/api/lookup`, the DBpedia Lookup
//! compatible `/api/search/KeywordSearch` and `/api/search/PrefixSearch` (also under
//! `/api/search.asmx/`), and the new DBpedia Lookup's `/api/search?query=`.
//!
//! Handlers are thin: parse the parameters (a 400 names the bad one), take an engine slot,
//! run the search on a blocking thread, render JSON or XML. Searches see the store's commits
//! made before the request started: the handler waits (briefly) for the index follower to
//! reach the store's sequence number at that moment. While the index is being built (the
//! first time, or after a restore) they answer 503 with the build's progress, never an empty
//! page.

mod api;
mod candidates;
mod dbpedia;
mod dbpedia_docs;
mod format;
pub(crate) mod lookup;
mod params;
pub(crate) mod usage;

use crate::error::ApiError;
use crate::state::AppState;
use axum::routing::get;
use axum::Router;
use lodestone_indexer::{IndexError, TextIndex};
use lodestone_store::Store;
use std::sync::Arc;
use std::time::Duration;

pub use format::{to_xml, Format};

/// Most hits one page may ask for.
const MAX_LIMIT: usize = 1_000;

/// Deepest page start: ranking costs grow with offset + limit.
const MAX_OFFSET: usize = 10_000;

/// The routes of the search API.
pub fn router(_state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/api/search", get(dbpedia_docs::search_route))
        .route("/api/autocomplete", get(api::autocomplete))
        .route("/api/lookup", get(lookup::lookup))
        .route("/api/search/KeywordSearch", get(dbpedia::keyword_search))
        .route("/api/search/PrefixSearch", get(dbpedia::prefix_search))
        .route(
            "/api/search.asmx/KeywordSearch",
            get(dbpedia::keyword_search),
        )
        .route("/api/search.asmx/PrefixSearch", get(dbpedia::prefix_search))
}

/// Runs search work on a blocking thread with an engine slot, once the index reflects every
/// commit made before the call.
pub(crate) async fn run_blocking<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Store, &TextIndex) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let index = Arc::clone(state.text_index().ok_or(ApiError::SearchUnavailable)?);
    let permit = state.try_permit()?;
    let store = Arc::clone(state.store());
    let target = store.sequence();
    state
        .spawn_read(move || {
            let _permit = permit;
            crate::text_index::require_ready(&index, target)?;
            work(&store, &index)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("search task failed: {e}")))?
}

/// Maps an index error: a refused query is the client's (400 naming `q`), the rest internal.
fn index_error(error: IndexError) -> ApiError {
    match error {
        IndexError::Query(e) => ApiError::BadParameter {
            name: "q",
            message: e.to_string(),
        },
        IndexError::Store(e) => ApiError::from_store(e, Duration::ZERO),
        other => ApiError::Internal(other.to_string()),
    }
}
