//! The text index's place in the server: where it lives (`<data>/text-index`), opening it with
//! its follower thread for `serve` (`lodestone reindex` is in `commands::reindex`).

use crate::error::ApiError;
use crate::priority::Nice;
use anyhow::Context;
use lodestone_facets::model::{FacetQuery, Node};
use lodestone_indexer::{Follower, IndexSettings, TextIndex};
use lodestone_store::{SequenceNumber, Store};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How often the follower looks for new commits.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(20);

/// Longest wait for the index to reflect the commits made before a request.
pub const READ_YOUR_WRITES: Duration = Duration::from_secs(3);

/// Refuses text work while the index has no documents of this store to answer from (being
/// built the first time or after a restore; see `TextIndex::ready_for`): a 503 with the
/// build's progress instead of an empty answer. Otherwise it waits up to
/// [`READ_YOUR_WRITES`] for the commits made before `sequence`. Blocking.
pub fn require_ready(index: &TextIndex, sequence: SequenceNumber) -> Result<(), ApiError> {
    index
        .ready_for(sequence, READ_YOUR_WRITES)
        .map_err(ApiError::IndexBuilding)?;
    if let Some(applied) = index.applied().filter(|applied| *applied < sequence) {
        tracing::warn!(sequence, applied, "text index is behind the store");
    }
    Ok(())
}

/// [`require_ready`] for a facet query, which needs the index only when a node has text.
pub fn require_ready_for_facets(
    index: Option<&Arc<TextIndex>>,
    store: &Store,
    query: &FacetQuery,
) -> Result<(), ApiError> {
    fn has_text(node: &Node) -> bool {
        node.text.as_deref().is_some_and(|t| !t.trim().is_empty())
            || node.edges.iter().any(|edge| has_text(&edge.node))
    }
    match index {
        Some(index) if has_text(&query.root) => require_ready(index, store.sequence()),
        _ => Ok(()),
    }
}

/// The index folder of a data folder.
pub fn index_path(data: &Path) -> PathBuf {
    data.join("text-index")
}

/// Opens (or creates) the index of a store and starts following the store. A missing or
/// unreadable index folder is rebuilt by the follower; searches wait for it briefly.
///
/// The index's threads (the follower, tantivy's indexing and merging threads) run at `nice`:
/// they are started from a thread lowered to it, whose value they inherit
/// ([`crate::priority`]). Searches run on the caller's threads and keep their priority.
pub fn start(
    store: &Arc<Store>,
    data: &Path,
    settings: IndexSettings,
    nice: Nice,
) -> anyhow::Result<(Arc<TextIndex>, Follower)> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                nice.apply_to_current_thread();
                open_and_follow(store, data, settings)
            })
            .join()
            .map_err(|_| anyhow::anyhow!("opening the text index panicked"))?
    })
}

fn open_and_follow(
    store: &Arc<Store>,
    data: &Path,
    settings: IndexSettings,
) -> anyhow::Result<(Arc<TextIndex>, Follower)> {
    let path = index_path(data);
    let index = Arc::new(
        TextIndex::open(&path, settings)
            .with_context(|| format!("cannot open the text index at {}", path.display()))?,
    );
    match index.applied() {
        Some(sequence) => tracing::info!(
            sequence,
            behind = store.sequence().saturating_sub(sequence),
            "text index opened"
        ),
        None => tracing::info!("text index missing: building it in the background"),
    }
    let follower = Follower::start(Arc::clone(store), Arc::clone(&index), FOLLOW_INTERVAL)
        .context("cannot start the text index follower")?;
    Ok((index, follower))
}
