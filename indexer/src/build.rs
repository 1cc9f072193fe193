//! The full build: every entity's document made from one store snapshot by several threads at
//! once, each taking ranges of the subject order in turn, and handed to tantivy's writer,
//! whose own threads index them.
//!
//! Invariant: every thread reads the same snapshot (readers whose sequence numbers differ are
//! made again), and the ranges cover the IRI subjects of the snapshot exactly once, so the
//! documents are those a single scan would make, in another order. Only IRI subjects get
//! documents, so blank-node subjects are not read at all.

use crate::document::{Batch, DocumentBuilder, Vocabulary};
use crate::error::IndexError;
use crate::progress::Running;
use crate::schema::Fields;
use crate::settings::IndexSettings;
use lodestone_store::{Reader, Store, TermId, TermKind};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{IndexWriter, TantivyDocument};

/// Ranges of the subject order per thread: enough that a thread finishing early takes over
/// work, few enough that each is a long sequential scan.
const RANGES_PER_THREAD: u64 = 32;

/// Attempts at readers of one snapshot before the build makes do with one thread.
const SNAPSHOT_ATTEMPTS: usize = 10;

/// Quads read between two progress reports.
pub(crate) const PROGRESS_QUADS: u64 = 100_000;

/// What the full build needs besides the store.
pub(crate) struct FullBuild<'b> {
    pub fields: &'b Fields,
    pub settings: &'b IndexSettings,
    pub tokenizers: &'b TokenizerManager,
    pub writer: &'b IndexWriter<TantivyDocument>,
    /// Set when the index is stopping: the threads end with [`IndexError::Stopped`].
    pub stopping: &'b AtomicBool,
    pub running: &'b Running<'b>,
}

/// What the threads did.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Built {
    pub entities: u64,
    pub quads: u64,
}

impl FullBuild<'_> {
    /// Adds the document of every entity of `readers`' snapshot to the writer, with
    /// `readers.len()` threads (see [`snapshot_readers`]). `on_progress` gets the quads read
    /// so far each time they pass a multiple of [`PROGRESS_QUADS`], and at the end; while it
    /// runs, every thread of the build waits, its batches done and counted, so that what the
    /// build's progress says holds still.
    pub(crate) fn run(
        &self,
        readers: Vec<Reader<'_>>,
        on_progress: impl FnMut(u64) + Send,
    ) -> Result<Built, IndexError> {
        let Some(first) = readers.first() else {
            return Ok(Built::default());
        };
        let span = first.subject_span(TermKind::Iri)?;
        let ranges = span.map_or_else(Vec::new, |span| {
            split(span.start().as_u64(), span.end().as_u64(), readers.len())
        });
        let shared = Shared {
            ranges,
            next: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            first_error: Mutex::new(None),
            totals: Mutex::new(Built::default()),
            gate: RwLock::new(()),
            on_progress: Mutex::new(on_progress),
        };
        std::thread::scope(|scope| {
            for reader in readers {
                let shared = &shared;
                scope.spawn(move || match self.worker(&reader, shared) {
                    Ok(built) => {
                        let mut totals = lock(&shared.totals);
                        totals.entities += built.entities;
                        totals.quads += built.quads;
                    }
                    Err(error) => {
                        shared.failed.store(true, Ordering::Release);
                        let mut slot = lock(&shared.first_error);
                        // A thread stopped by another's failure does not hide it.
                        if slot.is_none() || matches!(*slot, Some(IndexError::Stopped)) {
                            *slot = Some(error);
                        }
                    }
                });
            }
        });
        if let Some(error) = shared
            .first_error
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            return Err(error);
        }
        let built = shared
            .totals
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        (shared
            .on_progress
            .into_inner()
            .unwrap_or_else(|e| e.into_inner()))(built.quads);
        Ok(built)
    }

    /// One thread's share: ranges taken in turn until there are none left.
    fn worker<P: FnMut(u64)>(
        &self,
        reader: &Reader<'_>,
        shared: &Shared<P>,
    ) -> Result<Built, IndexError> {
        let mut builder = DocumentBuilder::new(
            self.fields,
            Vocabulary::resolve(reader, self.settings)?,
            self.tokenizers,
        );
        let mut built = Built::default();
        let mut batch = Batch::default();
        let mut flush = |batch: &mut Batch, built: &mut Built| -> Result<(), IndexError> {
            let before = {
                let _pass = shared.gate.read().unwrap_or_else(|e| e.into_inner());
                let mut entities = 0;
                builder.build_batch(reader, batch, |_, doc| {
                    if let Some(doc) = doc {
                        self.writer.add_document(doc)?;
                        entities += 1;
                    }
                    Ok(())
                })?;
                built.entities += entities;
                built.quads += batch.quad_count();
                self.running.add(batch.quad_count(), entities)
            };
            let after = before + batch.quad_count();
            if before / PROGRESS_QUADS != after / PROGRESS_QUADS {
                let mut on_progress = lock(&shared.on_progress);
                let _all = shared.gate.write().unwrap_or_else(|e| e.into_inner());
                on_progress(self.running.done());
            }
            batch.clear();
            Ok(())
        };
        while let Some(range) = shared
            .ranges
            .get(shared.next.fetch_add(1, Ordering::Relaxed))
        {
            for group in reader.quads_by_subject_in(range.clone()) {
                if self.stopping.load(Ordering::Relaxed) || shared.failed.load(Ordering::Relaxed) {
                    return Err(IndexError::Stopped);
                }
                let (subject, quads) = group?;
                batch.push(subject, &quads);
                if batch.is_full() {
                    flush(&mut batch, &mut built)?;
                }
            }
        }
        flush(&mut batch, &mut built)?;
        Ok(built)
    }
}

/// What the threads of one build share.
struct Shared<P> {
    /// The subject ranges, taken in turn.
    ranges: Vec<Range<TermId>>,
    /// The next range to take.
    next: AtomicUsize,
    /// Set when a thread fails: the others stop.
    failed: AtomicBool,
    first_error: Mutex<Option<IndexError>>,
    totals: Mutex<Built>,
    /// Held shared while a thread builds a batch, alone while progress is reported.
    gate: RwLock<()>,
    on_progress: Mutex<P>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// `threads` readers of one snapshot of `store` (fewer, down to one, if commits keep landing
/// between two readers' creation).
pub(crate) fn snapshot_readers(
    store: &Store,
    threads: usize,
) -> Result<Vec<Reader<'_>>, IndexError> {
    for _ in 0..SNAPSHOT_ATTEMPTS {
        let readers: Vec<Reader<'_>> = (0..threads.max(1)).map(|_| store.reader()).collect();
        let mut sequences = Vec::with_capacity(readers.len());
        for reader in &readers {
            sequences.push(reader.sequence()?);
        }
        if sequences.windows(2).all(|pair| pair[0] == pair[1]) {
            return Ok(readers);
        }
    }
    Ok(vec![store.reader()])
}

/// The subject ids from `first` to `last` (both included) cut into ranges of equal width,
/// [`RANGES_PER_THREAD`] per thread.
fn split(first: u64, last: u64, threads: usize) -> Vec<Range<TermId>> {
    let width = last - first + 1;
    let parts = (RANGES_PER_THREAD * threads.max(1) as u64).clamp(1, width);
    let bound = |i: u64| {
        // At most `width`: the product fits in 128 bits.
        let offset = u128::from(width) * u128::from(i) / u128::from(parts);
        TermId::from_u64(first + u64::try_from(offset).unwrap_or(width))
    };
    (0..parts).map(|i| bound(i)..bound(i + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_span_once() {
        for (first, last, threads) in [(10, 10, 2), (5, 1_000_003, 2), (0, 7, 4), (3, 40, 1)] {
            let ranges = split(first, last, threads);
            assert_eq!(ranges.first().map(|r| r.start.as_u64()), Some(first));
            assert_eq!(ranges.last().map(|r| r.end.as_u64()), Some(last + 1));
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(ranges.iter().all(|r| r.start < r.end));
        }
    }
}
