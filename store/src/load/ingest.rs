//! Sorted files in, atomically: writing SST files for a bulk load and ingesting them.
//!
//! A bulk load writes every table's new entries (index keys, dictionary entries, statistics
//! with their final values) into SST files in a temporary folder inside the store, chunk after
//! chunk, each chunk's files holding the values as of the end of that chunk. Nothing goes into
//! the store while chunks are written: later chunks read the earlier ones' values from a
//! staging copy (see `staging`). Only when every chunk is complete does the load write a
//! manifest (the files in the order they were written, and the counters to set afterwards),
//! record the folder in the `meta` table, ingest the files in that order and then write the
//! counters and clear the record in one batch. A later file's value replaces an earlier one's,
//! and ingesting the files again in the same order ends in the same state: if the process dies
//! after the record is written, the next open ingests the whole folder again and finishes the
//! load; if it dies before, the folder is just deleted and the store never saw the load.

use super::counter_run::{CounterRunWriter, CounterShape};
use super::merge::{merge_tables, NEVER_OVERLAPPING};
use super::quad_run::{QuadKey, RunWriter};
use super::staging::{is_staged, Staging};
use super::table_file::{file_options, leading_term, FileFormat, FileWriter, TableFile};
use crate::database::{Database, WriterState};
use crate::encoding::{EncodedQuad, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::kv::{meta_key, target_file_bytes, StoreOptions, Table};
use crate::quads::distinct::LoadedQuads;
use crate::rank::ReadLinks;
use crate::stats::encode_u64;
use rocksdb::{IngestExternalFileOptions, WriteBatch};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

const PENDING_INGEST: &[u8] = b"pending_ingest";
/// The start of the name of every temporary file or folder in the store's folder: a load's
/// folder, the copy of its standard input, the entity rank's file. Every open removes them.
pub(crate) const TMP_PREFIX: &str = "load-tmp-";
const MANIFEST: &str = "manifest";
const STAGING: &str = "staging";

/// The folder of SST files a load writes, ingested into the store at its end.
///
/// Dropping it without [`IngestBatch::commit`] removes the folder: the store never saw it.
pub(crate) struct IngestBatch {
    staging: Option<Staging>,
    dir: PathBuf,
    /// The files written so far, with their numbers (the order written).
    files: Mutex<Vec<(usize, TableFile)>>,
    next_file: AtomicUsize,
    /// Files numbered below this one are staged.
    staged_below: usize,
    /// Set once the folder is recorded in `meta`: from then on the next open needs it.
    recorded: bool,
    /// Whether the load writes more than one chunk: its files are then merged per table at
    /// the end (see `merge`).
    several_chunks: bool,
    /// Whether the store held no quad before the load, so that no counter of the store's
    /// counts towards the load's (see `counter_run`).
    store_was_empty: bool,
    store_options: StoreOptions,
    /// The load's new quads, for the distinct counts.
    loaded: LoadedQuads,
}

impl IngestBatch {
    /// The folder of a load into the store as `state` (the writer counters before the load)
    /// leaves it.
    pub(crate) fn new(database: &Database, state: &WriterState) -> Result<Self, StoreError> {
        let dir = database.path().join(format!(
            "{TMP_PREFIX}{}-{}",
            std::process::id(),
            database.sequence() + 1
        ));
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        fs::create_dir_all(&dir)?;
        Ok(Self {
            staging: None,
            dir,
            files: Mutex::new(Vec::new()),
            next_file: AtomicUsize::new(0),
            staged_below: 0,
            recorded: false,
            several_chunks: false,
            store_was_empty: state.quad_count == 0,
            store_options: database.options().clone(),
            loaded: LoadedQuads::new(state),
        })
    }

    /// Notes a chunk's new quads (see `LoadedQuads::note`).
    pub(crate) fn note_added(&mut self, quads: &[EncodedQuad], rdf_type: Option<TermId>) {
        self.loaded.note(quads, rdf_type);
    }

    /// Says that more chunks follow the one being written, before any of its files: the
    /// chunks' files are then written to be merged (see `merge`).
    pub(crate) fn expect_several_chunks(&mut self) {
        self.several_chunks = true;
    }

    /// Whether chunks write their own counts of the term counters, summed by the final merge,
    /// rather than totals over the chunks so far (see `counter_run`): in a load of several
    /// chunks into a store that held no quad.
    pub(crate) fn sums_counters(&self) -> bool {
        self.several_chunks && self.store_was_empty
    }

    /// Writes a chunk's counts of the counter `table` (`term_stats` or `term_graph`, see
    /// `counter_run`) as a run; `records` must be in strictly increasing key order.
    pub(crate) fn write_counts<K: AsRef<[u8]>, const N: usize>(
        &self,
        table: Table,
        records: impl IntoIterator<Item = (K, [u64; N])>,
    ) -> Result<(), StoreError> {
        let shape = CounterShape::of(table).ok_or_else(|| {
            CorruptionError::msg(format!("{} is not kept as runs of counts", table.name()))
        })?;
        let (index, path) = self.next_file(table, "counts");
        let mut run = CounterRunWriter::create(&path, shape)?;
        for (key, counts) in records {
            run.put(key.as_ref(), &counts)?;
        }
        self.list_run(index, table, run.finish()?, FileFormat::CounterRun);
        Ok(())
    }

    /// Writes one SST file for `table`; `entries` must be in strictly increasing key order.
    /// Several files may be written at once from different threads.
    pub(crate) fn write<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        table: Table,
        entries: impl IntoIterator<Item = (K, V)>,
    ) -> Result<(), StoreError> {
        let is_final = !self.several_chunks || NEVER_OVERLAPPING.contains(&table);
        let options = self.file_options(table, is_final)?;
        let mut file = self.create(table, &options, is_final)?;
        for (key, value) in entries {
            file.put(key.as_ref(), value.as_ref())?;
        }
        self.finish(file)
    }

    /// Writes a chunk's keys of the quad index `table` (in strictly increasing order, values
    /// empty). In a load of several chunks, the orders no later chunk reads back are written
    /// as runs of keys for the final merge (see `quad_run`), else as an SST file.
    pub(crate) fn write_quad_keys(
        &self,
        table: Table,
        keys: impl IntoIterator<Item = QuadKey>,
    ) -> Result<(), StoreError> {
        if !self.several_chunks || is_staged(table) {
            return self.write(table, keys.into_iter().map(|key| (key, [])));
        }
        let (index, path) = self.next_file(table, "run");
        let mut run = RunWriter::create(&path)?;
        for key in keys {
            run.put(&key)?;
        }
        self.list_run(index, table, run.finish()?, FileFormat::QuadRun);
        Ok(())
    }

    /// Writes a chunk's entries of `table`, whose keys begin with a term id (`entries` in
    /// strictly increasing key order), keeping apart those whose first term is the chunk's
    /// `own` (minted for it, and not expected in a later chunk). In a load of several chunks
    /// these go to files in the store's own format, one per run of such entries of one kind
    /// of term, cut at the table's target size: the ids of each kind that a chunk mints
    /// follow the last chunk's, so such a file holds a range of keys that no other chunk's
    /// file of the same kind reaches, and unless a later chunk adds keys within it after all,
    /// the merge takes it as it is instead of reading and rewriting it (see `merge`).
    pub(crate) fn write_by_age<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        table: Table,
        entries: impl IntoIterator<Item = (K, V)>,
        own: impl Fn(TermId) -> bool,
    ) -> Result<(), StoreError> {
        if !self.several_chunks || NEVER_OVERLAPPING.contains(&table) {
            return self.write(table, entries);
        }
        let older_options = self.file_options(table, false)?;
        let own_options = self.file_options(table, true)?;
        let target = target_file_bytes(table);
        let mut older = self.create(table, &older_options, false)?;
        let mut fresh: Option<(TermKind, FileWriter<'_>)> = None;
        for (key, value) in entries {
            let (key, value) = (key.as_ref(), value.as_ref());
            let Some(id) = leading_term(key).filter(|id| own(*id)) else {
                // A file of the chunk's own entries never spans another one.
                if let Some((_, done)) = fresh.take() {
                    self.finish(done)?;
                }
                older.put(key, value)?;
                continue;
            };
            let file = match &mut fresh {
                Some((kind, file)) if *kind == id.kind() && !file.is_full(target) => file,
                _ => {
                    if let Some((_, done)) = fresh.take() {
                        self.finish(done)?;
                    }
                    let file = self.create(table, &own_options, true)?;
                    &mut fresh.insert((id.kind(), file)).1
                }
            };
            file.put(key, value)?;
        }
        if let Some((_, done)) = fresh {
            self.finish(done)?;
        }
        self.finish(older)
    }

    /// The options of a file of `table` (see `table_file::file_options`).
    fn file_options(&self, table: Table, is_final: bool) -> Result<rocksdb::Options, StoreError> {
        file_options(table, &self.store_options, is_final)
    }

    /// Opens the next file of `table`.
    fn create<'o>(
        &self,
        table: Table,
        options: &'o rocksdb::Options,
        is_final: bool,
    ) -> Result<FileWriter<'o>, StoreError> {
        let (index, path) = self.next_file(table, "sst");
        FileWriter::create(table, index, &path, options, is_final)
    }

    /// The number and path of the load's next file, of `table`, named with `extension`.
    fn next_file(&self, table: Table, extension: &str) -> (usize, PathBuf) {
        let index = self.next_file.fetch_add(1, Ordering::Relaxed);
        let path = self
            .dir
            .join(format!("{index:03}-{}.{extension}", table.name()));
        (index, path)
    }

    /// Finishes a file and lists it, unless it is empty.
    fn finish(&self, file: FileWriter<'_>) -> Result<(), StoreError> {
        let index = file.index();
        if let Some(written) = file.finish()? {
            self.list(index, written);
        }
        Ok(())
    }

    /// Lists a finished run of `table` in `format`, the load's `index`th, unless it was empty
    /// (no path).
    fn list_run(&self, index: usize, table: Table, path: Option<PathBuf>, format: FileFormat) {
        if let Some(path) = path {
            self.list(
                index,
                TableFile {
                    table,
                    path,
                    format,
                },
            );
        }
    }

    /// Lists a written file, the load's `index`th.
    fn list(&self, index: usize, file: TableFile) {
        self.files
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((index, file));
    }

    /// Makes the files written since the last call readable to the chunks still to come (see
    /// `staging`).
    pub(crate) fn stage(&mut self) -> Result<(), StoreError> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.sort_unstable_by_key(|(index, _)| *index);
        if self.staging.is_none() {
            self.staging = Some(Staging::open(&self.dir.join(STAGING), &self.store_options)?);
        }
        if let Some(staging) = &self.staging {
            for (_, file) in files.iter().filter(|(i, _)| *i >= self.staged_below) {
                staging.add(file)?;
            }
        }
        self.staged_below = self.next_file.load(Ordering::Relaxed);
        Ok(())
    }

    /// The staged chunks, once there are any.
    pub(crate) fn staging(&self) -> Option<&Staging> {
        self.staging.as_ref()
    }

    /// Ingests every file in the order written and sets the writer counters to `state`, as
    /// one recoverable step. With `links`, a recount of the distinct counts from the
    /// indexes (see [`distinct`](crate::quads::distinct)) also reads the entity rank's
    /// links, and gives them back.
    pub(crate) fn commit(
        mut self,
        database: &Database,
        state: &WriterState,
        links: bool,
    ) -> Result<Option<ReadLinks>, StoreError> {
        self.staging = None;
        let mut files = std::mem::take(self.files.get_mut().unwrap_or_else(|e| e.into_inner()));
        files.sort_unstable_by_key(|(index, _)| *index);
        let files: Vec<TableFile> = files.into_iter().map(|(_, file)| file).collect();
        let (files, object_pairs) = if self.several_chunks {
            // The staged copies are read no more; their disk goes to the merge.
            let staging = self.dir.join(STAGING);
            if staging.exists() {
                fs::remove_dir_all(staging)?;
            }
            // Into an empty store, the load's `posg` is the whole index: the recount of the
            // distinct counts takes its pairs from the merge instead of reading it again. They
            // go beside the folder, which goes with the counters, under the store's temporary
            // prefix: a load that dies before its recount leaves them to the next open.
            let pairs = self.dir.with_extension("object-pairs");
            let asked = self.store_was_empty.then_some(pairs.as_path());
            let merged = merge_tables(&self.dir, files, &self.store_options, asked)?;
            (merged.files, merged.object_pairs.then_some(pairs))
        } else {
            (files.into_iter().map(|f| (f.table, f.path)).collect(), None)
        };
        let manifest = Manifest {
            state: state.clone(),
            last_commit_ms: now_ms(),
            files,
        };
        manifest.write(&self.dir)?;
        // The folder's entries too, before the record that makes the next open need them.
        fs::File::open(&self.dir)?.sync_all()?;
        let db = database.db();
        let mut options = rocksdb::WriteOptions::default();
        options.set_sync(true);
        let relative = self
            .dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| CorruptionError::msg("temporary folder name is not UTF-8"))?;
        self.recorded = true;
        // The distinct counts are moved by the load's new quads (computed against the store
        // before them) or recomputed from the indexes once the files are in; until then they
        // are marked stale, so a crash in between recomputes them at the next open.
        let distinct_changes = self.loaded.changes(database)?;
        crate::quads::distinct::mark_stale(database)?;
        db.put_cf_opt(
            database.cf(Table::Meta),
            PENDING_INGEST,
            relative.as_bytes(),
            &options,
        )?;
        ingest_files(database, &manifest, Ingestion::First)?;
        if take_simulated_crash(database.path()) {
            return Err(StoreError::Io(std::io::Error::other(
                "simulated crash between ingest and counters",
            )));
        }
        write_counters(database, &self.dir, &manifest)?;
        let read_links = match distinct_changes {
            Some(batch) => {
                database.write(batch, &database.write_options())?;
                None
            }
            None => crate::quads::distinct::rebuild_reading_links(
                database,
                links,
                object_pairs.as_deref(),
            )?,
        };
        if let Some(path) = object_pairs {
            // The load is in; a file left behind goes at the next open.
            let _ = fs::remove_file(path);
        }
        database.publish_sequence(state.sequence);
        Ok(read_links)
    }
}

impl Drop for IngestBatch {
    fn drop(&mut self) {
        // The staging database closes before its folder goes.
        self.staging = None;
        if !self.recorded {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

struct Manifest {
    state: WriterState,
    last_commit_ms: u64,
    files: Vec<(Table, PathBuf)>,
}

impl Manifest {
    fn write(&self, dir: &Path) -> Result<(), StoreError> {
        let mut text = format!(
            "sequence {}\nquad_count {}\nnext_dictionary_id {}\nnext_blank_id {}\nlast_commit_ms {}\n",
            self.state.sequence,
            self.state.quad_count,
            self.state.next_dictionary_id,
            self.state.next_blank_id,
            self.last_commit_ms
        );
        for (table, path) in &self.files {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            text.push_str(&format!("file {} {name}\n", table.name()));
        }
        let mut file = fs::File::create(dir.join(MANIFEST))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        Ok(())
    }

    fn read(dir: &Path) -> Result<Self, StoreError> {
        let text = fs::read_to_string(dir.join(MANIFEST))?;
        let bad = || CorruptionError::msg(format!("malformed load manifest in {}", dir.display()));
        let mut state = WriterState {
            next_dictionary_id: 1,
            next_blank_id: 1,
            sequence: 0,
            quad_count: 0,
            term_cache: crate::database::TermCache::default(),
        };
        let mut last_commit_ms = 0;
        let mut files = Vec::new();
        for line in text.lines() {
            let mut parts = line.split(' ');
            let key = parts.next().ok_or_else(bad)?;
            let value = parts.next().ok_or_else(bad)?;
            let number = || value.parse::<u64>().map_err(|_| bad());
            match key {
                "sequence" => state.sequence = number()?,
                "quad_count" => state.quad_count = number()?,
                "next_dictionary_id" => state.next_dictionary_id = number()?,
                "next_blank_id" => state.next_blank_id = number()?,
                "last_commit_ms" => last_commit_ms = number()?,
                "file" => {
                    let table = Table::ALL
                        .into_iter()
                        .find(|t| t.name() == value)
                        .ok_or_else(bad)?;
                    files.push((table, dir.join(parts.next().ok_or_else(bad)?)));
                }
                _ => return Err(bad().into()),
            }
        }
        Ok(Self {
            state,
            last_commit_ms,
            files,
        })
    }
}

/// Stores whose next bulk ingest stops after its files are ingested and before its counters
/// are written, as a crash there would (see [`simulate_crash_after_next_ingest`]).
static CRASH_AFTER_INGEST: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Test hook: the next bulk ingest into the store at `store_path` stops right after its files
/// are ingested, before its counters are written, and fails as if the process had died there.
/// Reopening the store must then finish the load.
#[doc(hidden)]
pub fn simulate_crash_after_next_ingest(store_path: &Path) {
    CRASH_AFTER_INGEST
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(store_path.to_path_buf());
}

fn take_simulated_crash(store_path: &Path) -> bool {
    let mut paths = CRASH_AFTER_INGEST.lock().unwrap_or_else(|e| e.into_inner());
    let before = paths.len();
    paths.retain(|p| p != store_path);
    paths.len() != before
}

fn apply(database: &Database, dir: &Path, manifest: &Manifest) -> Result<(), StoreError> {
    ingest_files(database, manifest, Ingestion::Again)?;
    write_counters(database, dir, manifest)
}

/// Whether a load's files are ingested for the first time, or again after a crash.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ingestion {
    /// Each file is moved in: RocksDB links it into the store and removes its name from the
    /// folder once the store has it (copying them was a single-threaded 16 s of a 238 s load
    /// of 35 M quads).
    First,
    /// After a crash: the files still in the folder are copied in. A file no longer there was
    /// taken by a finished ingestion (RocksDB removes a moved file's name only then); one
    /// still there may already be in the store as well, under the same inode, which a copy
    /// leaves untouched (ingestion writes its sequence number into the file it takes).
    Again,
}

/// Ingests the manifest's files in order. Consecutive files of one table do not overlap
/// (they come from one merge, see `merge`) and go in together, so that a table the load
/// filled from empty gets them all in its last level. Ingesting a table's files again gives
/// the same state: they hold one value per key, the values the first ingestion gave.
fn ingest_files(
    database: &Database,
    manifest: &Manifest,
    ingestion: Ingestion,
) -> Result<(), StoreError> {
    let db = database.db();
    let mut rest = manifest.files.as_slice();
    while let Some((table, _)) = rest.first() {
        let together = rest.iter().take_while(|(t, _)| t == table).count();
        let (group, after) = rest.split_at(together);
        rest = after;
        let mut options = IngestExternalFileOptions::default();
        options.set_move_files(ingestion == Ingestion::First);
        let paths: Vec<&PathBuf> = group
            .iter()
            .map(|(_, path)| path)
            .filter(|path| ingestion == Ingestion::First || path.exists())
            .collect();
        if paths.is_empty() {
            continue;
        }
        let outcome = db
            .ingest_external_file_cf_opts(database.cf(*table), &options, paths)
            .map_err(StoreError::from);
        database.note_write(&outcome);
        outcome?;
    }
    Ok(())
}

fn write_counters(database: &Database, dir: &Path, manifest: &Manifest) -> Result<(), StoreError> {
    let meta = database.cf(Table::Meta);
    let mut batch = WriteBatch::default();
    batch.put_cf(
        meta,
        meta_key::SEQUENCE,
        encode_u64(manifest.state.sequence),
    );
    batch.put_cf(
        meta,
        meta_key::QUAD_COUNT,
        encode_u64(manifest.state.quad_count),
    );
    batch.put_cf(
        meta,
        meta_key::NEXT_DICTIONARY_ID,
        encode_u64(manifest.state.next_dictionary_id),
    );
    batch.put_cf(
        meta,
        meta_key::NEXT_BLANK_ID,
        encode_u64(manifest.state.next_blank_id),
    );
    batch.put_cf(
        meta,
        meta_key::LAST_COMMIT_MS,
        encode_u64(manifest.last_commit_ms),
    );
    batch.delete_cf(meta, PENDING_INGEST);
    let mut options = rocksdb::WriteOptions::default();
    options.set_sync(true);
    database.write(batch, &options)?;
    fs::remove_dir_all(dir)?;
    Ok(())
}

/// Finishes a bulk load interrupted between its first ingest and its counters, and removes
/// the folders of loads that never reached that point. Called at every open.
pub(crate) fn recover_interrupted_ingest(database: &Database) -> Result<(), StoreError> {
    if database.options().read_only {
        return Ok(());
    }
    let pending = database
        .db()
        .get_cf(database.cf(Table::Meta), PENDING_INGEST)?;
    if let Some(name) = pending {
        let name = String::from_utf8(name)
            .map_err(|_| CorruptionError::msg("pending ingest name is not UTF-8"))?;
        let dir = database.path().join(name);
        let manifest = Manifest::read(&dir)?;
        apply(database, &dir, &manifest)?;
        crate::quads::distinct::rebuild(database)?;
        let mut state = database.lock_writer();
        *state = manifest.state;
        state.term_cache = crate::database::TermCache::default();
        database.publish_sequence(state.sequence);
    }
    for entry in fs::read_dir(database.path())? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            // Load folders, and the copy of standard input (`load-tmp-stdin-…`), a file.
            if entry.file_type()?.is_dir() {
                fs::remove_dir_all(entry.path())?;
            } else {
                fs::remove_file(entry.path())?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trips() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let manifest = Manifest {
            state: WriterState {
                next_dictionary_id: 42,
                next_blank_id: 7,
                sequence: 3,
                quad_count: 99,
                term_cache: crate::database::TermCache::default(),
            },
            last_commit_ms: 1234,
            files: vec![
                (Table::Spog, dir.path().join("000-spog.sst")),
                (Table::TermToId, dir.path().join("001-term2id.sst")),
            ],
        };
        manifest.write(dir.path()).expect("write");
        let read = Manifest::read(dir.path()).expect("read");
        let counters = |s: &WriterState| {
            (
                s.next_dictionary_id,
                s.next_blank_id,
                s.sequence,
                s.quad_count,
            )
        };
        assert_eq!(counters(&read.state), counters(&manifest.state));
        assert_eq!(read.last_commit_ms, manifest.last_commit_ms);
        assert_eq!(read.files, manifest.files);
    }

    #[test]
    fn malformed_manifest_is_an_error() {
        let dir = tempfile::tempdir().expect("temporary folder");
        for text in [
            "sequence\n",
            "sequence x\n",
            "file nosuchtable 000.sst\n",
            "colour blue\n",
        ] {
            fs::write(dir.path().join(MANIFEST), text).expect("write");
            assert!(Manifest::read(dir.path()).is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn an_ingest_finished_again_over_files_the_store_already_took_changes_nothing() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("store");
        let database = Database::open(&path, StoreOptions::default()).expect("open");
        let mut state = database.lock_writer().clone();
        let batch = IngestBatch::new(&database, &state).expect("batch");
        let entries = |table_offset: u64| {
            (0..5_000_u64).map(move |i| (i.to_be_bytes(), encode_u64(i + table_offset)))
        };
        batch.write(Table::ClassStats, entries(7)).expect("write");
        batch.write(Table::TermGraph, entries(11)).expect("write");
        let files: Vec<PathBuf> = batch
            .files
            .lock()
            .expect("files")
            .iter()
            .map(|(_, file)| file.path.clone())
            .collect();
        // Kept under other names: as if the crash came after RocksDB took the files (same
        // inodes) and before it removed their names from the folder.
        let kept = |file: &PathBuf| file.with_extension("kept");
        for file in &files {
            fs::hard_link(file, kept(file)).expect("link");
        }
        state.sequence += 1;
        simulate_crash_after_next_ingest(&path);
        let crashed = batch.commit(&database, &state, false);
        assert!(crashed.is_err(), "the simulated crash");
        for file in &files {
            assert!(!file.exists(), "{} was moved in", file.display());
            fs::rename(kept(file), file).expect("rename");
        }
        recover_interrupted_ingest(&database).expect("recovery");
        drop(database);

        // Reopened, both tables read back whole, with the values of the first ingestion.
        let database = Database::open(&path, StoreOptions::default()).expect("reopen");
        for (table, offset) in [(Table::ClassStats, 7), (Table::TermGraph, 11)] {
            let cf = database.cf(table);
            database
                .db()
                .compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
            let mut iter = database.db().raw_iterator_cf(cf);
            iter.seek_to_first();
            let mut read = Vec::new();
            while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
                read.push((key.to_vec(), value.to_vec()));
                iter.next();
            }
            iter.status().expect("no corruption");
            let expected: Vec<(Vec<u8>, Vec<u8>)> = entries(offset)
                .map(|(k, v)| (k.to_vec(), v.to_vec()))
                .collect();
            assert_eq!(read, expected, "{table:?}");
        }
        assert_eq!(database.sequence(), state.sequence);
    }

    #[test]
    fn bulk_loaded_files_have_the_tables_filters() {
        use crate::load::{BulkLoader, Input};
        let dir = tempfile::tempdir().expect("temporary folder");
        let data = dir.path().join("data.nt");
        fs::write(
            &data,
            "<http://e/s> <http://e/p> <http://e/o> .\n<http://e/s> <http://e/q> \"x\" .\n",
        )
        .expect("write");
        let database =
            Database::open(&dir.path().join("store"), StoreOptions::default()).expect("open");
        BulkLoader::on(&database)
            .load(&[Input::File(data)])
            .expect("bulk load");
        let properties = |table: Table| {
            database
                .db()
                .property_value_cf(database.cf(table), "rocksdb.aggregated-table-properties")
                .expect("property")
                .unwrap_or_default()
        };
        // `spog` and the dictionary answer point look-ups: their files carry bloom filters;
        // `posg` has none, as when it is written any other way.
        for table in [Table::Spog, Table::TermToId] {
            let text = properties(table);
            assert!(text.contains("# data blocks=1;"), "{table:?}: {text}");
            assert!(!text.contains("filter block size=0;"), "{table:?}: {text}");
        }
        assert!(properties(Table::Posg).contains("filter block size=0;"));
    }

    #[test]
    fn a_load_of_several_chunks_leaves_each_table_in_its_last_level() {
        use crate::load::{BulkLoader, Input};
        let dir = tempfile::tempdir().expect("temporary folder");
        let data = dir.path().join("data.nt");
        let mut text = String::new();
        // A chunk ends between the parser's batches of 16,384 quads.
        for i in 0..50_000 {
            // Every chunk adds to the same predicates, objects and counters.
            text.push_str(&format!(
                "<http://e/s{i}> <http://e/p{}> <http://e/o{}> .\n",
                i % 3,
                i % 7
            ));
        }
        fs::write(&data, text).expect("write");
        let database =
            Database::open(&dir.path().join("store"), StoreOptions::default()).expect("open");
        let report = BulkLoader::on(&database)
            .with_chunk_quads(1_000)
            .load(&[Input::File(data)])
            .expect("bulk load");
        assert!(report.chunks >= 3, "{} chunks", report.chunks);
        let files_at = |table: Table, level: usize| -> u64 {
            database
                .db()
                .property_int_value_cf(
                    database.cf(table),
                    &format!("rocksdb.num-files-at-level{level}"),
                )
                .expect("property")
                .unwrap_or_default()
        };
        // Ingested one by one, the chunks' overlapping files would sit in level 0 (fewer
        // than the four files that start a compaction) and LZ4-compressed above the last
        // level once compacted.
        for table in [
            Table::Spog,
            Table::Posg,
            Table::Ospg,
            Table::TermStats,
            Table::TermToId,
        ] {
            assert!(files_at(table, 6) > 0, "{table:?} has no file in level 6");
            for level in 0..6 {
                assert_eq!(files_at(table, level), 0, "{table:?} level {level}");
            }
        }
        let mut posg = database.db().raw_iterator_cf(database.cf(Table::Posg));
        posg.seek_to_first();
        let mut entries = 0;
        while posg.valid() {
            entries += 1;
            posg.next();
        }
        assert_eq!(entries, 50_000);
    }
}
