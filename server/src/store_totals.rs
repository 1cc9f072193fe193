//! The store totals `/status` shows that take scans to count: dictionary terms, subjects,
//! named graphs.
//!
//! [`Reader::counts`](lodestone_store::Reader::counts) reads the statistics table and the
//! dictionary's index of terms: at 100 M quads about 620 MB, 10 s of CPU. `/status` used
//! to count on the request after every commit, so on a store taking a commit every few
//! seconds a monitor polling `/status` kept a core scanning and waited seconds for each
//! answer. Here the totals are counted on a thread of their own at the background nice
//! value: at server start, then when a request finds them older than the last commit, and
//! never sooner after the last count began than [`PAUSE_FACTOR`] times what that count took
//! (counts take at most a tenth of a core however often `/status` is asked; on a small store,
//! where a count takes milliseconds, the totals follow every commit). A request never
//! waits: it gets the latest totals and the commit they were counted at (none before the
//! first count ends). Each count is remembered in the store
//! ([`Store::remember_counts`]): a server started again on a store with no commit since
//! reads them there instead of counting (at 100 M quads the count ran among the first
//! requests after every start). The exact quad count and the last commit are one counter
//! each, read by the request itself. A count still running
//! when the server stops is given up ([`StoreTotals::stop`]): a thread reading the store
//! while the process exits crashes it.

use crate::priority::Nice;
use lodestone_store::{SequenceNumber, Store, StoreCounts, StoreError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The shortest time between the starts of two counts, in multiples of the last count's
/// duration.
pub const PAUSE_FACTOR: u32 = 10;

/// The latest totals of a running server's store, recounted in the background.
pub struct StoreTotals {
    state: Arc<Mutex<State>>,
    nice: Nice,
    /// Set once the server stops: the running count gives up, no other starts.
    stop: Arc<AtomicBool>,
}

#[derive(Default)]
struct State {
    latest: Option<StoreCounts>,
    /// When the last count started (`None`: none did).
    started: Option<Instant>,
    /// How long the last finished count took.
    took: Duration,
    counting: bool,
    /// The thread of the last count.
    thread: Option<JoinHandle<()>>,
}

impl StoreTotals {
    /// Totals counted at `nice` (none yet).
    pub fn new(nice: Nice) -> Self {
        Self {
            state: Arc::default(),
            nice,
            stop: Arc::default(),
        }
    }

    /// The latest totals (their `sequence` is the commit they were counted at), starting a
    /// count when they are older than the store's last commit and the pause after the last
    /// count is over. Never reads the store on the caller's thread.
    pub fn latest(&self, store: &Arc<Store>) -> Option<StoreCounts> {
        let sequence = store.sequence();
        let mut state = lock(&self.state);
        let stale = state.latest.is_none_or(|c| c.sequence != sequence);
        let pause = state.took.saturating_mul(PAUSE_FACTOR);
        let due = state.started.is_none_or(|t| t.elapsed() >= pause);
        if stale && due && !state.counting && !self.stop.load(Ordering::Relaxed) {
            self.start_count(&mut state, store, sequence);
        }
        state.latest
    }

    /// Whether a count is running now.
    pub fn counting(&self) -> bool {
        lock(&self.state).counting
    }

    /// Gives up the running count and waits for its thread (a few thousand entries at most);
    /// no count starts afterwards.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        let thread = lock(&self.state).thread.take();
        if let Some(thread) = thread {
            if thread.join().is_err() {
                tracing::warn!("the count of the store's totals panicked");
            }
        }
    }

    fn start_count(&self, state: &mut State, store: &Arc<Store>, sequence: SequenceNumber) {
        state.counting = true;
        state.started = Some(Instant::now());
        let (shared, store, nice) = (Arc::clone(&self.state), Arc::clone(store), self.nice);
        let stop = Arc::clone(&self.stop);
        let spawned = std::thread::Builder::new()
            .name("store-totals".into())
            .spawn(move || {
                nice.apply_to_current_thread();
                let started = Instant::now();
                let counted = count(&store, &stop);
                let mut state = lock(&shared);
                state.counting = false;
                state.took = started.elapsed();
                match counted {
                    Ok(counts) => {
                        tracing::debug!(
                            commit = counts.sequence,
                            asked_at = sequence,
                            seconds = state.took.as_secs_f64(),
                            "store totals counted"
                        );
                        if state.latest.is_none_or(|c| c.sequence <= counts.sequence) {
                            state.latest = Some(counts);
                        }
                    }
                    Err(StoreError::Cancelled) => {}
                    Err(error) => tracing::warn!(%error, "cannot count the store's totals"),
                }
            });
        match spawned {
            // The previous count's thread has ended (`counting` was false).
            Ok(thread) => state.thread = Some(thread),
            Err(error) => {
                state.counting = false;
                tracing::warn!(%error, "cannot start counting the store's totals");
            }
        }
    }
}

impl Drop for StoreTotals {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The totals of the store's last commit: those remembered for it (after a restart, the
/// last count before it), else a count, remembered for the next start.
fn count(store: &Store, stop: &AtomicBool) -> Result<StoreCounts, StoreError> {
    let reader = store.reader();
    if let Some(counts) = reader.remembered_counts()? {
        return Ok(counts);
    }
    let counts = reader.counts_until(stop)?;
    if let Err(error) = store.remember_counts(&counts) {
        tracing::warn!(%error, "cannot remember the store's totals");
    }
    Ok(counts)
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::StoreOptions;
    use oxrdf::{GraphName, NamedNode, Quad};

    fn store() -> (tempfile::TempDir, Arc<Store>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path(), StoreOptions::default()).expect("open");
        (dir, Arc::new(store))
    }

    fn add(store: &Store, subjects: &[String]) {
        let iri = |s: &str| NamedNode::new(format!("http://example.com/{s}")).expect("iri");
        let mut transaction = store.transaction().expect("transaction");
        for subject in subjects {
            let quad = Quad::new(iri(subject), iri("p"), iri("o"), GraphName::DefaultGraph);
            transaction.insert(quad.as_ref()).expect("insert");
        }
        transaction.commit().expect("commit");
    }

    fn wait_for_count(totals: &StoreTotals, store: &Arc<Store>) -> StoreCounts {
        let start = Instant::now();
        loop {
            if let Some(counts) = totals.latest(store).filter(|_| !totals.counting()) {
                return counts;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "no count");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn totals_are_counted_in_the_background_and_recounted_after_a_commit_after_a_pause() {
        let (_dir, store) = store();
        add(&store, &["a".into()]);
        let totals = StoreTotals::new(Nice::NORMAL);
        let first = wait_for_count(&totals, &store);
        assert_eq!(first, store.reader().counts().expect("counts"));
        assert_eq!(first.subjects, 1);

        add(&store, &["b".into()]);
        // As if the last count had taken a minute: the pause is not over, the earlier totals
        // stay and no count starts.
        lock(&totals.state).took = Duration::from_secs(60);
        assert_eq!(totals.latest(&store), Some(first));
        assert!(!totals.counting());

        lock(&totals.state).took = Duration::ZERO;
        let second = wait_for_count(&totals, &store);
        assert_eq!(second.subjects, 2);
        assert_eq!(second.sequence, store.sequence());
        assert_eq!(second, store.reader().counts().expect("counts"));
    }

    #[test]
    fn a_stopped_count_gives_up_and_no_count_starts_after() {
        let (_dir, store) = store();
        add(
            &store,
            &(0..20_000).map(|i| format!("s{i}")).collect::<Vec<_>>(),
        );
        let stop = AtomicBool::new(true);
        assert!(matches!(
            store.reader().counts_until(&stop),
            Err(StoreError::Cancelled)
        ));
        let totals = StoreTotals::new(Nice::NORMAL);
        totals.latest(&store);
        totals.stop();
        assert!(lock(&totals.state).thread.is_none());
        add(&store, &["after".into()]);
        lock(&totals.state).took = Duration::ZERO;
        totals.latest(&store);
        assert!(!totals.counting(), "a count started after stop");
    }
}
