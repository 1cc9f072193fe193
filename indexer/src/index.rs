//! The index folder: open or create, catch up with the store's change log, rebuild.
//!
//! Invariant: the payload of the last tantivy commit says which store sequence number the
//! committed documents reflect (`lodestone-text-index <version> <sequence> <fingerprint>`,
//! the last being a hash of the settings that shape documents). Documents are
//! built from a store snapshot taken after the change log was read, so they are never older
//! than the sequence recorded; re-applying a change is harmless (delete, then add). A folder
//! without that payload, of another version or with another schema is rebuilt from scratch.

use crate::analysis::register_analyzers;
use crate::build::{snapshot_readers, FullBuild};
use crate::document::{Batch, DocumentBuilder, Vocabulary};
use crate::error::IndexError;
use crate::folder::IndexFolder;
use crate::generation::Searchable;
use crate::merges::{restore_merge_policy, BuildMerge};
use crate::progress::{BuildKind, BuildProgress, Running, Tracker};
use crate::schema::Fields;
use crate::search::IndexSearcher;
use crate::settings::IndexSettings;
use crate::vocabulary::SharedVocabulary;
use lodestone_store::{Reader, SequenceNumber, Store, TermId};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};
use tantivy::merge_policy::NoMergePolicy;
use tantivy::schema::Term as IndexTerm;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument};

/// Version of the index layout; an index of another version is rebuilt. 3: the `rank` fast
/// field holds the weight of use (references + √description + entity rank, in tenths,
/// `crate::popularity`) instead of the in-degree.
pub const INDEX_FORMAT_VERSION: u32 = 3;

const PAYLOAD_PREFIX: &str = "lodestone-text-index";

/// Sentinel of [`TextIndex::applied`] for an index that was never built.
const NEVER_BUILT: u64 = u64::MAX;

/// Change-log batches read per request to the store.
const CHANGE_BATCHES_PER_READ: usize = 1_000;

/// What a rebuild did.
#[derive(Debug, Clone, Copy)]
pub struct BuildReport {
    /// Entities indexed.
    pub entities: u64,
    /// Quads read.
    pub quads: u64,
    /// The store sequence the index now reflects.
    pub sequence: SequenceNumber,
    /// Time taken.
    pub elapsed: Duration,
}

/// A failed catch-up, kept until one succeeds.
#[derive(Debug, Clone)]
pub struct IndexFailure {
    /// When catching up first failed.
    pub since: SystemTime,
    /// The last failure's message.
    pub message: String,
}

/// The text index of one store.
pub struct TextIndex {
    path: PathBuf,
    index: Index,
    fields: Fields,
    settings: IndexSettings,
    /// `None` after a failure, until the next write opens a fresh one.
    writer: Arc<Mutex<Option<IndexWriter<TantivyDocument>>>>,
    /// The reader and its searcher's open columns, replaced at each reload (shared with the
    /// thread of a merge, which reloads when it ends).
    searchable: Arc<Searchable>,
    /// The store vocabulary the searches share.
    vocabulary: SharedVocabulary,
    applied: AtomicU64,
    progress: (Mutex<()>, Condvar),
    failure: Mutex<Option<IndexFailure>>,
    stopping: Arc<AtomicBool>,
    tracker: Tracker,
    /// The merge of a full build's segments, running on tantivy's merge thread.
    merging: Mutex<Option<JoinHandle<()>>>,
}

impl TextIndex {
    /// Opens the index in `path`, creating an empty one (that [`TextIndex::catch_up`] will
    /// build) when the folder is missing, empty, of another version or unreadable.
    pub fn open(path: impl AsRef<Path>, settings: IndexSettings) -> Result<Self, IndexError> {
        let path = path.as_ref().to_path_buf();
        let (schema, fields) = Fields::build();
        let existing = if path.join("meta.json").exists() {
            match Index::open(IndexFolder::open(&path)?) {
                Ok(index) if index.schema() == schema => read_payload(&index)?
                    .filter(|(_, fingerprint)| *fingerprint == settings.fingerprint())
                    .map(|(sequence, _)| (index, sequence)),
                _ => None,
            }
        } else {
            None
        };
        let (index, applied) = match existing {
            Some((index, sequence)) => (index, sequence),
            None => {
                if path.exists() {
                    std::fs::remove_dir_all(&path)?;
                }
                std::fs::create_dir_all(&path)?;
                let folder = IndexFolder::open(&path)?;
                let index = Index::create(folder, schema, tantivy::IndexSettings::default())?;
                (index, NEVER_BUILT)
            }
        };
        register_analyzers(index.tokenizers(), &settings.stop_words);
        let (threads, heap) = settings.writer_budget();
        let writer = index.writer_with_num_threads(threads, heap)?;
        let reader: IndexReader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(Self {
            path,
            index,
            fields,
            settings,
            writer: Arc::new(Mutex::new(Some(writer))),
            searchable: Arc::new(Searchable::new(reader)),
            vocabulary: SharedVocabulary::default(),
            applied: AtomicU64::new(applied),
            progress: (Mutex::new(()), Condvar::new()),
            failure: Mutex::new(None),
            stopping: Arc::new(AtomicBool::new(false)),
            tracker: Tracker::default(),
            merging: Mutex::new(None),
        })
    }

    /// The index folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The settings the index was opened with.
    pub fn settings(&self) -> &IndexSettings {
        &self.settings
    }

    /// The store sequence the searchable documents reflect; `None` before the first build.
    pub fn applied(&self) -> Option<SequenceNumber> {
        match self.applied.load(Ordering::Acquire) {
            NEVER_BUILT => None,
            sequence => Some(sequence),
        }
    }

    /// Waits until the index reflects `sequence` or `timeout` passes; true if it does.
    pub fn wait_for(&self, sequence: SequenceNumber, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let (lock, condvar) = &self.progress;
        let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.applied().is_some_and(|a| a >= sequence) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            guard = condvar
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The build or catch-up running now, with how far it has come.
    pub fn building(&self) -> Option<BuildProgress> {
        self.tracker.snapshot()
    }

    /// Whether searches over the committed documents answer for the store as of `sequence`.
    ///
    /// Before the first build, and while a build replaces documents that are none or another
    /// store state's (the first build, after a restore), it is not: the answer is the build's
    /// progress, at once. Otherwise this waits up to `timeout` for the follower to apply the
    /// commits up to `sequence`; past that, an index whose documents are an earlier state of
    /// this store (a catch-up running, a rebuild because many subjects changed, or catching
    /// up failed: see [`TextIndex::failure`]) answers from them, late but not empty.
    pub fn ready_for(
        &self,
        sequence: SequenceNumber,
        timeout: Duration,
    ) -> Result<(), BuildProgress> {
        // A build whose documents are none or another store's: at once.
        if let Some(progress) = self.building().filter(|p| !p.earlier_state) {
            return Err(progress);
        }
        if self.wait_for(sequence, timeout) {
            return Ok(());
        }
        match (self.building(), self.applied()) {
            (Some(progress), _) if !progress.earlier_state => Err(progress),
            (build, None) => Err(build.unwrap_or_else(BuildProgress::pending)),
            _ => Ok(()),
        }
    }

    /// A searcher over the committed documents.
    pub fn searcher(&self) -> IndexSearcher<'_> {
        IndexSearcher::new(
            self.searchable.current(),
            &self.fields,
            &self.settings,
            &self.index,
            &self.vocabulary,
        )
    }

    /// Makes the last commit searchable (see [`Searchable::reload`]).
    fn reload(&self) -> Result<(), IndexError> {
        Ok(self.searchable.reload()?)
    }

    /// Brings the index up to the store's last commit: applies the change log since the
    /// recorded sequence, or rebuilds when the index was never built, is ahead of the store,
    /// the log no longer reaches back that far, or more subjects changed than a rebuild costs.
    ///
    /// A failure is kept, until a later catch-up succeeds, for [`TextIndex::failure`].
    pub fn catch_up(&self, store: &Store) -> Result<SequenceNumber, IndexError> {
        let outcome = self.apply_changes(store);
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        *failure = match &outcome {
            Ok(_) => None,
            Err(error) => Some(IndexFailure {
                since: failure.as_ref().map_or_else(SystemTime::now, |f| f.since),
                message: error.to_string(),
            }),
        };
        outcome
    }

    /// Why the last catch-up failed, unless a later one succeeded (a full disk, say: the
    /// follower retries, and indexing resumes by itself once space is freed).
    pub fn failure(&self) -> Option<IndexFailure> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn apply_changes(&self, store: &Store) -> Result<SequenceNumber, IndexError> {
        let target = store.sequence();
        let Some(applied) = self.applied() else {
            return Ok(self.build_all(store, false, |_| {})?.sequence);
        };
        if applied > target {
            // The store is older than the index (restored from a backup): nothing in the log
            // says what to undo.
            return Ok(self.build_all(store, false, |_| {})?.sequence);
        }
        if applied == target {
            return Ok(applied);
        }
        let mut subjects = BTreeSet::new();
        let mut last = applied;
        loop {
            let batches = store.changes_since(last, CHANGE_BATCHES_PER_READ)?;
            let Some(first) = batches.first() else { break };
            if first.sequence != last + 1 {
                // The log was trimmed past what this index has seen.
                return Ok(self.build_all(store, true, |_| {})?.sequence);
            }
            for batch in batches {
                subjects.extend(batch.subjects);
                last = batch.sequence;
            }
            if subjects.len() > self.settings.rebuild_threshold {
                return Ok(self.build_all(store, true, |_| {})?.sequence);
            }
        }
        if last == applied {
            return Ok(applied);
        }
        // Taken after the log was read: it sees at least every commit up to `last`.
        let reader = store.reader();
        let total = subjects.len() as u64;
        self.with_writer(|writer| {
            let running = self.tracker.start(BuildKind::CatchUp, total, true);
            let (mut done, mut entities) = (0, 0);
            let mut builder = DocumentBuilder::new(
                &self.fields,
                Vocabulary::resolve(&reader, &self.settings)?,
                self.index.tokenizers(),
            );
            // The committed documents (the writer lock keeps them still): a subject without
            // text before and after the change (most of a data graph's subjects have none)
            // needs no deletion, and each deletion costs a term query over every segment at
            // commit.
            let searcher = self.searchable.current().searcher().clone();
            let mut batch = Batch::default();
            let mut flush = |batch: &mut Batch| {
                builder.build_batch(&reader, batch, |subject, doc| {
                    let id = IndexTerm::from_field_u64(self.fields.id, subject.as_u64());
                    match doc {
                        Some(doc) => {
                            writer.delete_term(id);
                            writer.add_document(doc)?;
                            entities += 1;
                        }
                        None => {
                            if searcher.doc_freq(&id)? > 0 {
                                writer.delete_term(id);
                            }
                        }
                    }
                    done += 1;
                    running.set(done, entities);
                    Ok(())
                })?;
                batch.clear();
                Ok::<_, IndexError>(())
            };
            let mut quads = Vec::new();
            for subject in subjects {
                self.check_stopping()?;
                quads.clear();
                for quad in reader.quads_for_pattern(Some(subject), None, None, None) {
                    quads.push(quad?);
                }
                batch.push(subject, &quads);
                if batch.is_full() {
                    flush(&mut batch)?;
                }
            }
            flush(&mut batch)?;
            self.commit(writer, last, running)
        })?;
        store.trim_changes(last)?;
        Ok(last)
    }

    /// Drops every document and indexes the whole store again from one snapshot, with a
    /// thread per writer thread reading a part of it; `on_progress` gets the number of quads
    /// read so far every 100,000 quads or so (from one of those threads, while the others
    /// wait) and at the end. The index answers from the new documents when this returns;
    /// their segments are then merged into one in the background (see
    /// [`TextIndex::wait_for_merge`]).
    pub fn rebuild(
        &self,
        store: &Store,
        on_progress: impl FnMut(u64) + Send,
    ) -> Result<BuildReport, IndexError> {
        self.build_all(store, false, on_progress)
    }

    /// [`TextIndex::rebuild`]; `earlier_state` says whether the committed documents are an
    /// earlier state of this store (see [`BuildProgress::earlier_state`]).
    fn build_all(
        &self,
        store: &Store,
        earlier_state: bool,
        on_progress: impl FnMut(u64) + Send,
    ) -> Result<BuildReport, IndexError> {
        let start = Instant::now();
        let (threads, _) = self.settings.writer_budget();
        let readers = snapshot_readers(store, threads)?;
        let Some(reader) = readers.first() else {
            return Err(IndexError::Stopped);
        };
        let sequence = reader.sequence()?;
        let total = reader.quad_count()?;
        // A merge of the last build's segments would only be thrown away.
        self.wait_for_merge();
        let (entities, read) = self.with_writer(|writer| {
            let running = self.tracker.start(BuildKind::Rebuild, total, earlier_state);
            writer.delete_all_documents()?;
            // The build's segments are merged once, when it ends: merged as they come, most
            // documents would be rewritten a few times over.
            writer.set_merge_policy(Box::new(NoMergePolicy));
            let built = FullBuild {
                fields: &self.fields,
                settings: &self.settings,
                tokenizers: self.index.tokenizers(),
                writer,
                stopping: &self.stopping,
                running: &running,
            }
            .run(readers, on_progress)?;
            self.commit(writer, sequence, running)?;
            Ok((built.entities, built.quads))
        })?;
        self.merge_segments();
        store.trim_changes(sequence)?;
        Ok(BuildReport {
            entities,
            quads: read,
            sequence,
            elapsed: start.elapsed(),
        })
    }

    /// Starts merging the committed segments into one, unless the index is stopping. A
    /// full build leaves a segment per writer heap's worth of documents (44 at 35 M quads),
    /// and every query term, typo automaton and fast-field column is looked up in each: a
    /// label search took 12 ms on 16 segments where it takes 2 ms on one. The merges run on
    /// tantivy's merge thread, in rounds of bounded memory ([`crate::merges`]), while the
    /// built index answers; the reader moves to each round's segments as it ends. A process
    /// that must not exit before they end (`lodestone load`, `reindex`) calls
    /// [`TextIndex::wait_for_merge`].
    fn merge_segments(&self) {
        let merge = BuildMerge {
            index: self.index.clone(),
            root: self.path.clone(),
            writer: Arc::clone(&self.writer),
            searchable: Arc::clone(&self.searchable),
            stopping: Arc::clone(&self.stopping),
            bound: u64::try_from(self.settings.merge_memory_bytes).unwrap_or(u64::MAX),
        };
        let spawned = std::thread::Builder::new()
            .name("text-merge".to_owned())
            .spawn(move || merge.run());
        match spawned {
            Ok(handle) => {
                *self.merging.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
            }
            Err(error) => {
                tracing::warn!(%error, "cannot start the text index's merge");
                restore_merge_policy(&self.writer);
            }
        }
    }

    /// Waits for the merge a full build started, if one is running (see
    /// [`TextIndex::rebuild`]).
    pub fn wait_for_merge(&self) {
        let handle = self
            .merging
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    /// Segments of the index as searches now read it.
    pub fn segment_count(&self) -> usize {
        self.searchable.current().searcher().segment_readers().len()
    }

    /// Stops the builds and catch-ups running now, and any later one, before they commit
    /// (they end with [`IndexError::Stopped`]): a stopping process does not wait for a
    /// rebuild of the whole store. The next process catches up from what was committed.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    fn check_stopping(&self) -> Result<(), IndexError> {
        if self.stopping.load(Ordering::Relaxed) {
            Err(IndexError::Stopped)
        } else {
            Ok(())
        }
    }

    /// Entity documents in the committed index.
    pub fn document_count(&self) -> u64 {
        self.searchable.current().searcher().num_docs()
    }

    /// The best label of an entity for a language preference list (see
    /// [`crate::EntityText::best_label`]), read from the store.
    pub fn best_label(
        &self,
        reader: &Reader<'_>,
        term: TermId,
        langs: &[String],
    ) -> Result<Option<String>, IndexError> {
        let vocabulary = self.vocabulary.of(reader, &self.settings)?;
        let text = crate::entity::EntityText::load_names(reader, &vocabulary, term)?;
        Ok(text.best_label(langs).map(|c| c.text))
    }

    /// Commits the writer's documents as the index of the store at `sequence`, and ends the
    /// build `running` before the new sequence shows: a search that waited for `sequence` is
    /// not told a build is still running.
    fn commit(
        &self,
        writer: &mut IndexWriter<TantivyDocument>,
        sequence: SequenceNumber,
        running: Running<'_>,
    ) -> Result<(), IndexError> {
        let mut prepared = writer.prepare_commit()?;
        prepared.set_payload(&format!(
            "{PAYLOAD_PREFIX} {INDEX_FORMAT_VERSION} {sequence} {:016x}",
            self.settings.fingerprint()
        ));
        prepared.commit()?;
        self.reload()?;
        drop(running);
        self.applied.store(sequence, Ordering::Release);
        let (lock, condvar) = &self.progress;
        drop(lock.lock().unwrap_or_else(|e| e.into_inner()));
        condvar.notify_all();
        Ok(())
    }

    /// Runs `work` with the index writer, opening one if there is none. On failure the writer
    /// is dropped, with the documents `work` added and did not commit: a commit that failed
    /// (a full disk) can leave tantivy's writer without its indexing threads, and documents
    /// sent to it would then wait forever. The next call opens a fresh writer, so indexing
    /// resumes by itself once the cause is gone.
    fn with_writer<T>(
        &self,
        work: impl FnOnce(&mut IndexWriter<TantivyDocument>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        // A panic mid-batch leaves uncommitted documents that a later commit would publish
        // with a wrong sequence: a poisoned slot is emptied, which discards them.
        let mut slot = self.writer.lock().unwrap_or_else(|poisoned| {
            let mut slot = poisoned.into_inner();
            *slot = None;
            slot
        });
        let writer = match &mut *slot {
            Some(writer) => writer,
            empty => {
                let (threads, heap) = self.settings.writer_budget();
                empty.insert(self.index.writer_with_num_threads(threads, heap)?)
            }
        };
        let outcome = work(writer);
        if outcome.is_err() {
            *slot = None;
        }
        outcome
    }
}

impl Drop for TextIndex {
    /// The writer goes with the index even while the merges of a build run on their thread
    /// (which shares it), so that the folder's lock is free for the next opening at once;
    /// the merge running is dropped, its segments stay as they were.
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        let writer = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(writer);
    }
}

/// The sequence and settings fingerprint recorded in the last commit, if it was written by
/// this version.
fn read_payload(index: &Index) -> Result<Option<(SequenceNumber, u64)>, IndexError> {
    let metas = index.load_metas()?;
    let Some(payload) = metas.payload else {
        return Ok(None);
    };
    let mut parts = payload.split(' ');
    let (Some(PAYLOAD_PREFIX), Some(version), Some(sequence), Some(fingerprint)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Ok(None);
    };
    if version.parse::<u32>().ok() != Some(INDEX_FORMAT_VERSION) {
        return Ok(None);
    }
    Ok(sequence
        .parse()
        .ok()
        .zip(u64::from_str_radix(fingerprint, 16).ok()))
}
