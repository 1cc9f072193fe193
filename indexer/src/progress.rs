//! How far a running build of the index has come, for whoever must wait for it.
//!
//! A rebuild (the first build, after a restore, after a bulk load that changed more subjects
//! than a catch-up handles) and a catch-up (the change log applied subject by subject) record
//! what they have done in a [`Tracker`] as they go: a few relaxed atomic writes per entity, so
//! that searches, `/status` and the `load` command can say "N of M" without slowing the
//! build. Until the build commits, searches would see the index as it was (empty, the first
//! time): the server answers them "not ready" with this progress instead.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Which kind of work is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildKind {
    /// Every document built again from one store snapshot; counted in quads read.
    Rebuild,
    /// The subjects the change log names since the last commit built again; counted in
    /// subjects.
    CatchUp,
}

impl BuildKind {
    /// `rebuild` or `catch-up`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rebuild => "rebuild",
            Self::CatchUp => "catch-up",
        }
    }

    /// What [`BuildProgress::done`] and [`BuildProgress::total`] count: `quads` or `subjects`.
    pub fn unit(self) -> &'static str {
        match self {
            Self::Rebuild => "quads",
            Self::CatchUp => "subjects",
        }
    }
}

/// A snapshot of a running build.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuildProgress {
    /// Rebuild or catch-up.
    pub kind: BuildKind,
    /// Quads read (rebuild) or subjects done (catch-up) so far.
    pub done: u64,
    /// Quads in the store (rebuild) or subjects to do (catch-up); 0 while not known yet.
    pub total: u64,
    /// Entity documents made so far.
    pub entities: u64,
    /// Time since the work started.
    pub elapsed: Duration,
    /// Whether the committed documents, which searches read meanwhile, are those of an
    /// earlier state of this store (a catch-up, or a rebuild because many subjects changed):
    /// answers from them are late, not empty. False for a first build and after a restore.
    pub earlier_state: bool,
}

impl BuildProgress {
    /// Progress of work that has not started yet (the index was never built and no build
    /// runs now: the process has just started, or the last attempt failed).
    pub fn pending() -> Self {
        Self {
            kind: BuildKind::Rebuild,
            done: 0,
            total: 0,
            entities: 0,
            elapsed: Duration::ZERO,
            earlier_state: false,
        }
    }

    /// `done` per second so far.
    pub fn rate(&self) -> f64 {
        self.done as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }

    /// The fraction done, between 0 and 1 (0 while the total is not known).
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            (self.done as f64 / self.total as f64).min(1.0)
        }
    }

    /// Time left at the rate so far; `None` before there is a rate.
    pub fn remaining(&self) -> Option<Duration> {
        let rate = self.rate();
        (self.done > 0 && self.total >= self.done && rate > 0.0)
            .then(|| Duration::from_secs_f64((self.total - self.done) as f64 / rate))
    }

    /// One line for a person: "rebuild: 1200000 of 3400000 quads read (35 %), 40000 entities".
    pub fn describe(&self) -> String {
        let verb = match self.kind {
            BuildKind::Rebuild => "read",
            BuildKind::CatchUp => "done",
        };
        if self.total == 0 && self.done == 0 {
            return "the build has not started yet".to_owned();
        }
        format!(
            "{} of {} {} {verb} ({:.0} %), {} entities indexed",
            self.done,
            self.total,
            self.kind.unit(),
            self.fraction() * 100.0,
            self.entities
        )
    }
}

/// The running work's counters; at most one build runs at a time (the writer lock).
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    running: Mutex<Option<(BuildKind, bool, Instant)>>,
    total: AtomicU64,
    done: AtomicU64,
    entities: AtomicU64,
}

impl Tracker {
    /// Records the start of a build (see [`BuildProgress::earlier_state`]); the returned
    /// guard records its end when dropped.
    pub(crate) fn start(&self, kind: BuildKind, total: u64, earlier_state: bool) -> Running<'_> {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        self.entities.store(0, Ordering::Relaxed);
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((kind, earlier_state, Instant::now()));
        Running { tracker: self }
    }

    /// The running build, if any.
    pub(crate) fn snapshot(&self) -> Option<BuildProgress> {
        let (kind, earlier_state, started) =
            (*self.running.lock().unwrap_or_else(|e| e.into_inner()))?;
        Some(BuildProgress {
            kind,
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            entities: self.entities.load(Ordering::Relaxed),
            elapsed: started.elapsed(),
            earlier_state,
        })
    }
}

/// A running build; dropping it (finished, failed or stopped) clears the record.
pub(crate) struct Running<'t> {
    tracker: &'t Tracker,
}

impl Running<'_> {
    /// Sets the counters to what the build has done so far.
    pub(crate) fn set(&self, done: u64, entities: u64) {
        self.tracker.done.store(done, Ordering::Relaxed);
        self.tracker.entities.store(entities, Ordering::Relaxed);
    }

    /// Adds to the counters what one of several threads of the build has just done;
    /// returns what was done before.
    pub(crate) fn add(&self, done: u64, entities: u64) -> u64 {
        self.tracker.entities.fetch_add(entities, Ordering::Relaxed);
        self.tracker.done.fetch_add(done, Ordering::Relaxed)
    }

    /// Quads read or subjects done so far.
    pub(crate) fn done(&self) -> u64 {
        self.tracker.done.load(Ordering::Relaxed)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *self
            .tracker
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_seen_while_it_runs_and_not_after() {
        let tracker = Tracker::default();
        assert!(tracker.snapshot().is_none());
        {
            let running = tracker.start(BuildKind::Rebuild, 400, false);
            running.set(100, 7);
            let seen = tracker.snapshot().expect("running");
            assert_eq!((seen.done, seen.total, seen.entities), (100, 400, 7));
            assert!((seen.fraction() - 0.25).abs() < 1e-9);
            assert!(seen.describe().contains("100 of 400 quads read (25 %)"));
        }
        assert!(tracker.snapshot().is_none());
    }
}
