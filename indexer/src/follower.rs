//! A thread that keeps the index in step with the store.
//!
//! It polls the store's commit counter (an atomic read) every few milliseconds and catches up
//! when it moved, so a commit is searchable within one poll interval plus the indexing time.
//! A failure is logged and retried after a growing pause; it never stops the thread.

use crate::error::IndexError;
use crate::index::TextIndex;
use lodestone_store::Store;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Pause after a failed catch-up; doubled after each further failure, up to
/// [`RETRY_AT_MOST`], so that a full disk is not retried in a tight loop.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The longest pause between retries.
const RETRY_AT_MOST: Duration = Duration::from_secs(15);

/// The running follower; dropping it stops the thread (after the batch in progress).
pub struct Follower {
    stop: Arc<AtomicBool>,
    index: Arc<TextIndex>,
    thread: Option<JoinHandle<()>>,
}

impl Follower {
    /// Starts following `store` into `index`, checking every `interval`.
    pub fn start(
        store: Arc<Store>,
        index: Arc<TextIndex>,
        interval: Duration,
    ) -> Result<Self, std::io::Error> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let following = Arc::clone(&index);
        let thread = std::thread::Builder::new()
            .name("lodestone-indexer".into())
            .spawn(move || {
                let mut pause = RETRY_AFTER;
                while !flag.load(Ordering::Acquire) {
                    let behind = index.applied() != Some(store.sequence());
                    if behind {
                        match index.catch_up(&store) {
                            Ok(sequence) => {
                                tracing::debug!(sequence, "text index caught up");
                                pause = RETRY_AFTER;
                            }
                            Err(IndexError::Stopped) => break,
                            Err(error) => {
                                tracing::error!(%error, retry_in_s = pause.as_secs(), "text index catch-up failed");
                                sleep_unless_stopped(&flag, pause);
                                pause = (pause * 2).min(RETRY_AT_MOST);
                            }
                        }
                    } else {
                        std::thread::sleep(interval);
                    }
                }
            })?;
        Ok(Self {
            stop,
            index: following,
            thread: Some(thread),
        })
    }
}

/// Sleeps for `pause`, waking early when `stop` is set.
fn sleep_unless_stopped(stop: &AtomicBool, pause: Duration) {
    let until = std::time::Instant::now() + pause;
    while !stop.load(Ordering::Acquire) {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // A rebuild of a large store takes minutes: it stops at its next document.
        self.index.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
