//! The text index's place in the server: where it lives (`<data>/text-index`), opening it with
//! its follower thread for `serve` (`lodestone reindex` is in `commands::reindex`).

use crate::error::ApiError;
use crate::priority::Nice;
use anyhow::Context;
use lodestone_facets::model::{FacetQuery, Node};
use lodestone_indexer::{Follower, IndexSettings, TextIndex};
use lodestone_store::{SequenceNumber, Store};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the follower looks for new commits.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(20);

/// Most bytes of index files read ahead when the server starts (see [`read_ahead`]).
const READ_AHEAD_BYTES: u64 = 4 << 30;

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
    let spawned = std::thread::Builder::new()
        .name("text-read-ahead".to_owned())
        .spawn(move || {
            let started = Instant::now();
            let bytes = read_ahead(&path, READ_AHEAD_BYTES);
            let seconds = started.elapsed().as_secs_f64();
            tracing::info!(bytes, seconds, "text index files read ahead");
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "cannot read the text index ahead");
    }
    Ok((index, follower))
}

/// Reads the files of the index folder once, smallest first (term dictionaries, fast fields,
/// norms), until `budget` bytes, and returns the bytes read. After a start the index's files
/// are not in the page cache, and the first searches wait on the disk for every term and
/// column they touch: on the 35 M-quad store, the first 300 URI lookups by words after a
/// cold start had a p99 of 52 ms, 33 ms with the files read ahead (0.4 s for 882 MB). It runs
/// on a thread of its own at the index's priority; the page cache keeps what memory allows.
fn read_ahead(folder: &Path, budget: u64) -> u64 {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut files: Vec<(u64, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let metadata = entry.metadata().ok()?;
            metadata.is_file().then(|| (metadata.len(), entry.path()))
        })
        .collect();
    files.sort();
    let mut left = budget;
    let mut read = 0;
    let mut buffer = vec![0; 1 << 20];
    for (len, file) in files {
        if len > left {
            break;
        }
        left -= len;
        let Ok(mut file) = std::fs::File::open(file) else {
            continue;
        };
        while let Ok(n @ 1..) = file.read(&mut buffer) {
            read += n as u64;
        }
    }
    read
}

#[cfg(test)]
mod read_ahead_tests {
    use super::read_ahead;

    #[test]
    fn reads_the_smallest_files_within_the_budget() {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, len) in [("a.idx", 700), ("b.term", 100), ("c.fast", 250)] {
            std::fs::write(dir.path().join(name), vec![7u8; len]).expect("write");
        }
        std::fs::create_dir(dir.path().join("sub")).expect("folder");
        assert_eq!(read_ahead(dir.path(), 10_000), 1_050);
        assert_eq!(read_ahead(dir.path(), 400), 350, "the two smallest fit");
        assert_eq!(read_ahead(dir.path(), 99), 0);
        assert_eq!(read_ahead(&dir.path().join("missing"), 10_000), 0);
    }
}
