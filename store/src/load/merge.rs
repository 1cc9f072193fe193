//! The files of a load of several chunks, merged per table before the store takes them.
//!
//! Every chunk writes files per table, and the files of one table overlap: each chunk adds
//! quads of the same predicates, and counter files repeat the keys of earlier ones with later
//! values. Ingested one by one, the overlapping files would land in the store's upper levels,
//! and RocksDB would merge them after the load, level by level, with intermediate copies on
//! disk (at 100 M quads the disk filled up during those compactions) and the data left
//! LZ4-compressed above the last level (66 bytes per quad at 35 M instead of 55). So the
//! load merges each table's files itself, once: they are ingested in the order written into
//! a scratch database that never compacts, read back in key order by one scan (a later
//! file's value of a key replaces an earlier one's, as in the store), and written out as
//! non-overlapping files of the table's target size, compressed for the last level. The
//! store then takes them in one ingestion per table, into its last level when the table was
//! empty. Tables are merged by every core at once; each table's chunk files are deleted as
//! soon as it is merged, so the disk holds the chunk files and one table's merge at a time.
//!
//! The index orders no later chunk reads back come as runs of keys instead (see `quad_run`):
//! they are merged by a heap over plain buffered reads, without a scratch database. So are
//! the term counters of a load into an empty store, which come as runs of each chunk's own
//! counts (see `counter_run`) and are summed.
//!
//! A file written in the store's own format (see `table_file`) is taken as it is when no
//! other file of its table has a key within its range: `id2term`'s files, and the `spog`
//! files of the subjects a chunk minted, which in a dump no other chunk adds to but for the
//! odd one. Only the files some other file reaches into are merged, as older than the chunk
//! files (the keys within their range that other files hold come from later chunks), and
//! the merged files are cut wherever a file taken as it is lies between their keys.

use super::counter_run::{self, SummedRuns};
use super::quad_run::merge_runs;
use super::table_file::{has_reached, FileFormat, KeyRange, TableFile};
use crate::error::{CorruptionError, StoreError};
use crate::kv::{ingest_options, open_merge_db, target_file_bytes, StoreOptions, Table};
use crate::quads::distinct::ObjectPairsWriter;
use crate::stats::{encode_u64, TermUsage};
use crate::threads::with_helpers;
use rocksdb::{DBRawIterator, IngestExternalFileOptions, Options, ReadOptions, SstFileWriter, DB};
use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

/// The tables whose chunk files never overlap, written as the store keeps them (compressed
/// for the last level) and taken unmerged. `id2term`: a chunk writes one file per kind of
/// term (the kind is the id's first bits), and each kind's new ids follow the last chunk's.
/// Merged, its files were rewritten to the last byte, the largest single merge of a load
/// (31 s of 76 at 100 M quads). Left LZ4 as the other chunk files are, they took 35 % more
/// disk (BSBM's texts compress far better with zstd).
pub(super) const NEVER_OVERLAPPING: [Table; 1] = [Table::IdToTerm];

/// The files of a load, merged.
pub(super) struct Merged {
    /// The files the store takes, by table; a table's files are together.
    pub(super) files: Vec<(Table, PathBuf)>,
    /// Whether `posg`'s distinct (predicate, entity object) pairs were written where asked
    /// (they are when `posg` came as runs; see `distinct::ObjectPairsWriter`).
    pub(super) object_pairs: bool,
}

/// Replaces the files of every table written more than once, and every run of quad keys, by
/// non-overlapping files in the store's format (see the module documentation). `files` come
/// in the order written; a table's files stay together in the result. With `object_pairs`, a
/// path, the merge of `posg`'s runs also writes its distinct (predicate, entity object) pairs
/// there, for the distinct counts (worth it only when the load's `posg` is the whole index).
pub(super) fn merge_tables(
    dir: &Path,
    files: Vec<TableFile>,
    options: &StoreOptions,
    object_pairs: Option<&Path>,
) -> Result<Merged, StoreError> {
    let mut by_table: Vec<(Table, Vec<TableFile>)> = Vec::new();
    for file in files {
        match by_table.iter_mut().find(|(t, _)| *t == file.table) {
            Some((_, same)) => same.push(file),
            None => by_table.push((file.table, vec![file])),
        }
    }
    let mut jobs: Vec<Job> = Vec::new();
    let mut counters = CounterRuns::default();
    for (table, files) in by_table {
        let runs = files
            .iter()
            .any(|f| matches!(f.format, FileFormat::CounterRun));
        match table {
            Table::TermStats if runs => counters.stats = files,
            Table::TermGraph if runs => counters.graphs = files,
            _ => jobs.push(Job::Table(table, files)),
        }
    }
    if !(counters.stats.is_empty() && counters.graphs.is_empty()) {
        jobs.push(Job::Counters(counters));
    }
    // The largest merges first, so that the cores finish together.
    jobs.sort_by_cached_key(Job::bytes_to_merge);
    let queue = Mutex::new(jobs);
    let merged = Mutex::new(Vec::new());
    let pairs = AtomicBool::new(false);
    let work = || -> Result<(), StoreError> {
        loop {
            let job = queue.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some(job) = job else {
                return Ok(());
            };
            let out = match job {
                Job::Table(Table::Posg, files)
                    if files
                        .iter()
                        .all(|f| matches!(f.format, FileFormat::QuadRun)) =>
                {
                    let mut noted = object_pairs.map(ObjectPairsWriter::create).transpose()?;
                    let written =
                        merge_run_table(dir, Table::Posg, files, options, noted.as_mut())?;
                    if let Some(noted) = noted {
                        noted.finish()?;
                        pairs.store(true, Relaxed);
                    }
                    vec![(Table::Posg, written)]
                }
                Job::Table(table, files) => vec![(table, merge_one(dir, table, files, options)?)],
                Job::Counters(runs) => merge_counters(dir, runs, options)?,
            };
            merged.lock().unwrap_or_else(|e| e.into_inner()).extend(out);
        }
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    with_helpers("load-merger", (1..workers).map(|_| work), work)?;
    let mut merged = merged.into_inner().unwrap_or_else(|e| e.into_inner());
    merged.sort_by_key(|(table, _)| Table::ALL.iter().position(|t| t == table));
    Ok(Merged {
        files: merged
            .into_iter()
            .flat_map(|(table, paths)| paths.into_iter().map(move |path| (table, path)))
            .collect(),
        object_pairs: pairs.into_inner(),
    })
}

/// One merge of the final merge's queue.
enum Job {
    /// The files of one table.
    Table(Table, Vec<TableFile>),
    /// The counter runs of `term_stats` and `term_graph`, summed together.
    Counters(CounterRuns),
}

impl Job {
    /// The bytes the job reads and rewrites.
    fn bytes_to_merge(&self) -> u64 {
        let size = |files: &[TableFile]| -> u64 {
            files
                .iter()
                .filter(|f| f.format.is_always_merged())
                .map(|f| fs::metadata(&f.path).map_or(0, |m| m.len()))
                .sum()
        };
        match self {
            Self::Table(_, files) => size(files),
            Self::Counters(runs) => size(&runs.stats) + size(&runs.graphs),
        }
    }
}

/// The runs of counts of `term_stats` and `term_graph` (see `counter_run`).
#[derive(Default)]
struct CounterRuns {
    stats: Vec<TableFile>,
    graphs: Vec<TableFile>,
}

/// Merges the files of one table as their format asks.
fn merge_one(
    dir: &Path,
    table: Table,
    files: Vec<TableFile>,
    options: &StoreOptions,
) -> Result<Vec<PathBuf>, StoreError> {
    if files
        .iter()
        .any(|f| matches!(f.format, FileFormat::QuadRun))
    {
        merge_run_table(dir, table, files, options, None)
    } else if files.len() == 1 {
        Ok(files.into_iter().map(|f| f.path).collect())
    } else {
        merge_table(dir, table, files, options)
    }
}

/// Sums the runs of counts of `term_stats` and `term_graph` into files in `dir` in the
/// store's format, and deletes the runs. Both tables are keyed by term first, so they are
/// read side by side: a term's number of graphs is the number of its `term_graph` keys (the
/// load went into an empty store, so no graph of a term was counted before).
fn merge_counters(
    dir: &Path,
    runs: CounterRuns,
    options: &StoreOptions,
) -> Result<Vec<(Table, Vec<PathBuf>)>, StoreError> {
    let paths = |files: &[TableFile], table: Table| -> Result<Vec<PathBuf>, StoreError> {
        files
            .iter()
            .map(|f| match f.format {
                FileFormat::CounterRun => Ok(f.path.clone()),
                _ => Err(mixed_formats(table)),
            })
            .collect()
    };
    let stats_runs = paths(&runs.stats, Table::TermStats)?;
    let graph_runs = paths(&runs.graphs, Table::TermGraph)?;
    let stats_options = ingest_options(Table::TermStats, options)?;
    let graph_options = ingest_options(Table::TermGraph, options)?;
    let mut stats_out = Output::new(dir, Table::TermStats, &stats_options, Vec::new());
    let mut graph_out = Output::new(dir, Table::TermGraph, &graph_options, Vec::new());
    let mut stats = SummedRuns::open(&stats_runs, counter_run::TERM_STATS)?;
    let mut graphs = SummedRuns::open(&graph_runs, counter_run::TERM_GRAPH)?;
    let unused = || CorruptionError::msg("a term counted in a graph but not used");
    let mut graph_left = graphs.advance()?;
    while stats.advance()? {
        let term = stats.key();
        let mut in_graphs = 0_u64;
        while graph_left && &graphs.key()[..8] <= term {
            if &graphs.key()[..8] < term {
                return Err(unused().into());
            }
            graph_out.put(graphs.key(), &encode_u64(graphs.counts()[0]))?;
            in_graphs += 1;
            graph_left = graphs.advance()?;
        }
        let &[as_subject, as_predicate, as_object, as_graph] = stats.counts() else {
            return Err(mixed_formats(Table::TermStats));
        };
        let usage = TermUsage {
            as_subject,
            as_predicate,
            as_object,
            as_graph,
            graphs: in_graphs,
        };
        stats_out.put(term, &usage.encode())?;
    }
    if graph_left {
        return Err(unused().into());
    }
    let written = vec![
        (Table::TermStats, stats_out.finish()?),
        (Table::TermGraph, graph_out.finish()?),
    ];
    for run in stats_runs.iter().chain(&graph_runs) {
        fs::remove_file(run)?;
    }
    Ok(written)
}

/// Read-ahead of the merge's scan in each of a table's `files` (all of them are read at
/// once). A fixed 4 MB each held 268 MB per table at 67 chunks, twice over with both cores
/// merging: the peak of a load at `--memory-budget 512`. Sequential reads need far less.
fn readahead_bytes(files: usize) -> usize {
    (MERGE_READAHEAD_BYTES / files.max(1)).clamp(256 << 10, 4 << 20)
}

/// Read-ahead of one table's merge, over all its files.
const MERGE_READAHEAD_BYTES: usize = 16 << 20;

/// Merges the files of one table (in the order written) into files in `dir` that overlap
/// neither each other nor the files in the store's format taken as they are, and deletes
/// the files it merged. Returns the table's files: those taken and those written.
fn merge_table(
    dir: &Path,
    table: Table,
    files: Vec<TableFile>,
    options: &StoreOptions,
) -> Result<Vec<PathBuf>, StoreError> {
    let mut chunk_files = Vec::new();
    let mut finals = Vec::new();
    for file in files {
        match file.format {
            FileFormat::Final(range) => finals.push((range, file.path)),
            FileFormat::ChunkSst => chunk_files.push(file.path),
            FileFormat::QuadRun | FileFormat::CounterRun => return Err(mixed_formats(table)),
        }
    }
    let newer_path = dir.join(format!("merge-{}", table.name()));
    let newer = scratch_with(&newer_path, table, options, &chunk_files)?;
    let reached = reached_finals(&finals, newer.as_ref())?;
    let mut taken = Vec::new();
    let mut cuts = Vec::new();
    let mut older_files = Vec::new();
    for ((range, path), reached) in finals.into_iter().zip(reached) {
        if reached {
            older_files.push(path);
        } else {
            cuts.push(range.first);
            taken.push(path);
        }
    }
    cuts.sort_unstable();
    let older_path = dir.join(format!("merge-{}-older", table.name()));
    let older = scratch_with(&older_path, table, options, &older_files)?;

    let writer_options = ingest_options(table, options)?;
    let mut out = Output::new(dir, table, &writer_options, cuts);
    let mut newer_scan = Scan::new(newer.as_ref(), chunk_files.len());
    let mut older_scan = Scan::new(older.as_ref(), older_files.len());
    loop {
        // A key in both comes from a later chunk in the newer files: its value wins.
        let (from_newer, from_older) = match (newer_scan.key(), older_scan.key()) {
            (None, None) => break,
            (Some(_), None) => (true, false),
            (None, Some(_)) => (false, true),
            (Some(newer), Some(older)) => match newer.cmp(older) {
                Ordering::Less => (true, false),
                Ordering::Greater => (false, true),
                Ordering::Equal => (true, true),
            },
        };
        let source = if from_newer { &newer_scan } else { &older_scan };
        if let (Some(key), Some(value)) = (source.key(), source.value()) {
            out.put(key, value)?;
        }
        if from_newer {
            newer_scan.next();
        }
        if from_older {
            older_scan.next();
        }
    }
    newer_scan.finish()?;
    older_scan.finish()?;
    taken.extend(out.finish()?);
    drop(newer);
    drop(older);
    for scratch in [newer_path, older_path] {
        if scratch.exists() {
            fs::remove_dir_all(&scratch)?;
        }
    }
    Ok(taken)
}

/// Merges the runs of quad keys of one table (see `quad_run`) into files in `dir` in the
/// store's format, and deletes the runs; each key also goes to `noted`, if given. Returns
/// the files written.
fn merge_run_table(
    dir: &Path,
    table: Table,
    files: Vec<TableFile>,
    options: &StoreOptions,
    mut noted: Option<&mut ObjectPairsWriter>,
) -> Result<Vec<PathBuf>, StoreError> {
    let mut runs = Vec::with_capacity(files.len());
    for file in files {
        match file.format {
            FileFormat::QuadRun => runs.push(file.path),
            FileFormat::ChunkSst | FileFormat::Final(_) | FileFormat::CounterRun => {
                return Err(mixed_formats(table))
            }
        }
    }
    let writer_options = ingest_options(table, options)?;
    let mut out = Output::new(dir, table, &writer_options, Vec::new());
    merge_runs(&runs, |key| {
        if let Some(noted) = noted.as_deref_mut() {
            noted.note(key)?;
        }
        out.put(key, &[])
    })?;
    let written = out.finish()?;
    for run in runs {
        fs::remove_file(run)?;
    }
    Ok(written)
}

/// The error of a table whose files are partly runs and partly SST files, or runs of the
/// wrong kind, which a load never writes (a load writes runs for all of its chunks or for
/// none).
fn mixed_formats(table: Table) -> StoreError {
    CorruptionError::msg(format!(
        "the load wrote both runs of keys and SST files for {}",
        table.name()
    ))
    .into()
}

/// Which of a table's files in the store's format (`finals`, with their key ranges) must be
/// merged: those with a key of the chunk files (`newer`) within their range, and those
/// overlapping one another (which the way they are written rules out).
fn reached_finals(
    finals: &[(KeyRange, PathBuf)],
    newer: Option<&DB>,
) -> Result<Vec<bool>, StoreError> {
    let mut reached = vec![false; finals.len()];
    let mut by_first: Vec<usize> = (0..finals.len()).collect();
    by_first.sort_by(|a, b| finals[*a].0.first.cmp(&finals[*b].0.first));
    // In key order, a file overlaps an earlier one exactly when it starts before the end of
    // the one reaching furthest so far (any other it overlaps lies within that one, and was
    // marked when it came).
    let mut widest: Option<&KeyRange> = None;
    let mut widest_index = 0;
    for &i in &by_first {
        let range = &finals[i].0;
        if widest.is_some_and(|w| range.first <= w.last) {
            reached[i] = true;
            reached[widest_index] = true;
        }
        if widest.is_none_or(|w| range.last > w.last) {
            widest = Some(range);
            widest_index = i;
        }
    }
    if let Some(db) = newer {
        // Seeks only: no read-ahead, which would read megabytes of every file at each.
        let mut read = ReadOptions::default();
        read.fill_cache(false);
        read.set_total_order_seek(true);
        let mut probe = db.raw_iterator_opt(read);
        for ((range, _), reached) in finals.iter().zip(&mut reached) {
            probe.seek(&range.first);
            *reached |= probe.key().is_some_and(|key| range.contains(key));
        }
        probe.status()?;
    }
    Ok(reached)
}

/// A scratch database in `path` holding `files` of `table`, moved in in the order given (a
/// later file's value of a key replaces an earlier one's); `None` without files.
fn scratch_with(
    path: &Path,
    table: Table,
    options: &StoreOptions,
    files: &[PathBuf],
) -> Result<Option<DB>, StoreError> {
    if files.is_empty() {
        return Ok(None);
    }
    if path.exists() {
        fs::remove_dir_all(path)?;
    }
    let db = open_merge_db(path, table, options)?;
    for file in files {
        // Moved (linked) in: the scratch database owns the data from here on.
        let mut ingest = IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        db.ingest_external_file_opts(&ingest, vec![file])?;
        if file.exists() {
            fs::remove_file(file)?;
        }
    }
    Ok(Some(db))
}

/// Options of a scan that reads `files` files at once, each once.
fn scan_options(files: usize) -> ReadOptions {
    let mut read = ReadOptions::default();
    read.fill_cache(false);
    read.set_readahead_size(readahead_bytes(files));
    read.set_total_order_seek(true);
    read
}

/// One ordered scan of a scratch database, or of nothing.
struct Scan<'a> {
    iter: Option<DBRawIterator<'a>>,
}

impl<'a> Scan<'a> {
    fn new(db: Option<&'a DB>, files: usize) -> Self {
        let iter = db.map(|db| {
            let mut iter = db.raw_iterator_opt(scan_options(files));
            iter.seek_to_first();
            iter
        });
        Self { iter }
    }

    fn key(&self) -> Option<&[u8]> {
        self.iter.as_ref()?.key()
    }

    fn value(&self) -> Option<&[u8]> {
        self.iter.as_ref()?.value()
    }

    fn next(&mut self) {
        if let Some(iter) = &mut self.iter {
            iter.next();
        }
    }

    fn finish(self) -> Result<(), StoreError> {
        match self.iter {
            Some(iter) => Ok(iter.status()?),
            None => Ok(()),
        }
    }
}

/// The merged files of a table as they are written: cut at the table's target size, and
/// before each key of `cuts` (the first keys of the files taken as they are) that the keys
/// pass, so that no merged file spans one of those.
struct Output<'a> {
    dir: &'a Path,
    table: Table,
    options: &'a Options,
    target: u64,
    cuts: std::iter::Peekable<std::vec::IntoIter<Vec<u8>>>,
    written: Vec<PathBuf>,
    writer: Option<SstFileWriter<'a>>,
    /// Entries in the current file.
    puts: u64,
}

impl<'a> Output<'a> {
    fn new(dir: &'a Path, table: Table, options: &'a Options, cuts: Vec<Vec<u8>>) -> Self {
        Self {
            dir,
            table,
            options,
            target: target_file_bytes(table),
            cuts: cuts.into_iter().peekable(),
            written: Vec::new(),
            writer: None,
            puts: 0,
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        let mut passed = false;
        while self.cuts.next_if(|cut| cut.as_slice() < key).is_some() {
            passed = true;
        }
        if passed {
            self.finish_file()?;
        }
        let writer = match &mut self.writer {
            Some(writer) => writer,
            None => {
                let path = self.dir.join(format!(
                    "{}-merged-{:05}.sst",
                    self.table.name(),
                    self.written.len()
                ));
                let fresh = SstFileWriter::create(self.options);
                fresh.open(&path)?;
                self.written.push(path);
                self.puts = 0;
                self.writer.insert(fresh)
            }
        };
        writer.put(key, value)?;
        self.puts += 1;
        if has_reached(writer, self.puts, self.target) {
            self.finish_file()?;
        }
        Ok(())
    }

    fn finish_file(&mut self) -> Result<(), StoreError> {
        if let Some(mut full) = self.writer.take() {
            full.finish()?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<PathBuf>, StoreError> {
        self.finish_file()?;
        Ok(self.written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::table_file::{file_options, FileWriter};
    use rocksdb::DB;

    const TABLE: Table = Table::TermStats;

    fn write(dir: &Path, index: usize, entries: &[(&str, &str)], is_final: bool) -> TableFile {
        let options = file_options(TABLE, &StoreOptions::default(), is_final).expect("options");
        let path = dir.join(format!("{index:03}.sst"));
        let mut file = FileWriter::create(TABLE, index, &path, &options, is_final).expect("create");
        for (key, value) in entries {
            file.put(key.as_bytes(), value.as_bytes()).expect("put");
        }
        file.finish().expect("finish").expect("entries")
    }

    fn ingested(dir: &Path, paths: &[PathBuf]) -> (Vec<(String, String)>, u64) {
        let db = DB::open_default(dir.join("check")).expect("open");
        db.ingest_external_file(paths.to_vec())
            .expect("one ingestion");
        let level0 = db
            .property_int_value("rocksdb.num-files-at-level0")
            .expect("property")
            .unwrap_or(0);
        let mut iter = db.raw_iterator();
        iter.seek_to_first();
        let mut read = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("UTF-8");
            read.push((text(key), text(value)));
            iter.next();
        }
        (read, level0)
    }

    #[test]
    fn files_nothing_reaches_into_are_taken_and_the_rest_merged_around_them() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let dir = dir.path();
        let files = vec![
            write(dir, 0, &[("a0", "1"), ("a9", "1")], true),
            write(dir, 1, &[("b0", "1"), ("b5", "1"), ("b9", "1")], true),
            write(dir, 2, &[("c0", "1"), ("c9", "1")], true),
            // A later chunk's counters: one within b's range (its value wins), one past c.
            write(dir, 3, &[("b5", "2"), ("d1", "2")], false),
            write(dir, 4, &[("e0", "1"), ("e9", "1")], true),
        ];
        let taken_a = files[0].path.clone();
        let taken_c = files[2].path.clone();
        let paths = merge_table(dir, TABLE, files, &StoreOptions::default()).expect("merge");
        assert!(paths.contains(&taken_a) && paths.contains(&taken_c));
        // b's file and the chunk file are merged, cut before c0: two files, and e's is taken.
        assert_eq!(paths.len(), 5, "{paths:?}");
        let (read, level0) = ingested(dir, &paths);
        let expected: Vec<(String, String)> = [
            ("a0", "1"),
            ("a9", "1"),
            ("b0", "1"),
            ("b5", "2"),
            ("b9", "1"),
            ("c0", "1"),
            ("c9", "1"),
            ("d1", "2"),
            ("e0", "1"),
            ("e9", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(read, expected);
        assert_eq!(level0, 0, "the files overlap");
        assert!(!dir.join(format!("merge-{}", TABLE.name())).exists());
    }

    #[test]
    fn files_in_the_stores_format_that_overlap_one_another_are_merged() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let dir = dir.path();
        let files = vec![
            write(dir, 0, &[("a0", "1"), ("c0", "1")], true),
            write(dir, 1, &[("b0", "1")], true),
            write(dir, 2, &[("d0", "1")], true),
        ];
        let taken_d = files[2].path.clone();
        let paths = merge_table(dir, TABLE, files, &StoreOptions::default()).expect("merge");
        assert_eq!(paths.len(), 2, "{paths:?}");
        assert!(paths.contains(&taken_d));
        let (read, level0) = ingested(dir, &paths);
        let keys: Vec<&str> = read.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a0", "b0", "c0", "d0"]);
        assert_eq!(level0, 0, "the files overlap");
    }
}
