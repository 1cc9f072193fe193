//! The files of a load of several chunks, merged per table before the store takes them.
//!
//! Every chunk writes a file per table, and the files of one table overlap: each chunk adds
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
//! A table whose chunk files never overlap (`id2term`) is written in the last level's format
//! and not merged: the store takes its files as they are, each into its last level.

use crate::error::StoreError;
use crate::kv::{ingest_options, open_merge_db, target_file_bytes, StoreOptions, Table};
use rocksdb::{IngestExternalFileOptions, ReadOptions, SstFileWriter};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The tables whose chunk files never overlap, written as the store keeps them (compressed
/// for the last level) and taken unmerged. `id2term`: a chunk writes one file per kind of
/// term (the kind is the id's first bits), and each kind's new ids follow the last chunk's.
/// Merged, its files were rewritten to the last byte, the largest single merge of a load
/// (31 s of 76 at 100 M quads). Left LZ4 as the other chunk files are, they took 35 % more
/// disk (BSBM's texts compress far better with zstd).
pub(super) const NEVER_OVERLAPPING: [Table; 1] = [Table::IdToTerm];

/// One file written for a table.
pub(super) struct TableFile {
    pub(super) table: Table,
    pub(super) path: PathBuf,
}

/// Replaces the files of every table written more than once by merged, non-overlapping
/// files (see the module documentation). `files` come in the order written; so do the
/// files of each table in the result, and a table's files stay together.
pub(super) fn merge_tables(
    dir: &Path,
    files: Vec<TableFile>,
    options: &StoreOptions,
) -> Result<Vec<TableFile>, StoreError> {
    let mut by_table: Vec<(Table, Vec<PathBuf>)> = Vec::new();
    for file in files {
        match by_table.iter_mut().find(|(t, _)| *t == file.table) {
            Some((_, paths)) => paths.push(file.path),
            None => by_table.push((file.table, vec![file.path])),
        }
    }
    // The largest tables first, so that the cores finish together.
    let bytes = |paths: &[PathBuf]| -> u64 {
        paths
            .iter()
            .map(|p| fs::metadata(p).map_or(0, |m| m.len()))
            .sum()
    };
    let mut jobs: Vec<(u64, Table, Vec<PathBuf>)> = by_table
        .into_iter()
        .map(|(table, paths)| (bytes(&paths), table, paths))
        .collect();
    jobs.sort_by_key(|(size, _, _)| *size);
    let queue = Mutex::new(jobs);
    let merged = Mutex::new(Vec::new());
    let work = || -> Result<(), StoreError> {
        loop {
            let job = queue.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some((_, table, paths)) = job else {
                return Ok(());
            };
            let out = if paths.len() == 1 || NEVER_OVERLAPPING.contains(&table) {
                paths
            } else {
                merge_table(dir, table, &paths, options)?
            };
            merged
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((table, out));
        }
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| -> Result<(), StoreError> {
        let handles = (1..workers)
            .map(|_| {
                std::thread::Builder::new()
                    .name("load-merger".to_owned())
                    .spawn_scoped(scope, work)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mine = work();
        for handle in handles {
            handle
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
        }
        mine
    })?;
    let mut merged = merged.into_inner().unwrap_or_else(|e| e.into_inner());
    merged.sort_by_key(|(table, _)| Table::ALL.iter().position(|t| t == table));
    Ok(merged
        .into_iter()
        .flat_map(|(table, paths)| paths.into_iter().map(move |path| TableFile { table, path }))
        .collect())
}

/// Read-ahead of the merge's scan in each of a table's `files` (all of them are read at
/// once). A fixed 4 MB each held 268 MB per table at 67 chunks, twice over with both cores
/// merging: the peak of a load at `--memory-budget 512`. Sequential reads need far less.
fn readahead_bytes(files: usize) -> usize {
    (MERGE_READAHEAD_BYTES / files.max(1)).clamp(256 << 10, 4 << 20)
}

/// Read-ahead of one table's merge, over all its files.
const MERGE_READAHEAD_BYTES: usize = 16 << 20;

/// Merges the files of one table (in the order written) into new files in `dir`, and
/// deletes them.
fn merge_table(
    dir: &Path,
    table: Table,
    paths: &[PathBuf],
    options: &StoreOptions,
) -> Result<Vec<PathBuf>, StoreError> {
    let scratch = dir.join(format!("merge-{}", table.name()));
    if scratch.exists() {
        fs::remove_dir_all(&scratch)?;
    }
    let db = open_merge_db(&scratch, table, options)?;
    for path in paths {
        // Moved (linked) in: the scratch database owns the data from here on.
        let mut ingest = IngestExternalFileOptions::default();
        ingest.set_move_files(true);
        db.ingest_external_file_opts(&ingest, vec![path])?;
        if path.exists() {
            fs::remove_file(path)?;
        }
    }
    let mut read = ReadOptions::default();
    read.fill_cache(false);
    read.set_readahead_size(readahead_bytes(paths.len()));
    read.set_total_order_seek(true);
    let mut scan = db.raw_iterator_opt(read);
    scan.seek_to_first();

    let writer_options = ingest_options(table, options)?;
    let target = target_file_bytes(table);
    let mut written = Vec::new();
    let mut writer: Option<SstFileWriter<'_>> = None;
    while let (Some(key), Some(value)) = (scan.key(), scan.value()) {
        let current = match &mut writer {
            Some(current) => current,
            None => {
                let path = dir.join(format!("{}-merged-{:05}.sst", table.name(), written.len()));
                let fresh = SstFileWriter::create(&writer_options);
                fresh.open(&path)?;
                written.push(path);
                writer.insert(fresh)
            }
        };
        current.put(key, value)?;
        if current.file_size() >= target {
            if let Some(mut full) = writer.take() {
                full.finish()?;
            }
        }
        scan.next();
    }
    scan.status()?;
    if let Some(mut last) = writer.take() {
        last.finish()?;
    }
    drop(scan);
    drop(db);
    fs::remove_dir_all(&scratch)?;
    Ok(written)
}
