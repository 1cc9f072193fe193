//! The chunks of a bulk load written so far, readable before the store has any of them.
//!
//! A load of several chunks commits them all at its end (see `ingest`), yet each chunk is
//! written against the chunks before it: its quads are deduplicated against theirs, and its
//! counters (class counts, and in a load into a store that held quads the term statistics and
//! term–graph positions, see `counter_run`), graph layouts and the id lists of its hashed
//! dictionary keys continue from theirs. So the files of the tables a
//! later chunk reads back are also ingested, as links or copies (see [`Staging::add`]), into a
//! staging RocksDB database in the load's folder, whose compactions merge them as they come;
//! a look-up reads the staged value first and falls back to the store, which the load leaves
//! unchanged until its commit. The other index orders and the tables no chunk reads back
//! (`hash_iris`, `iri_index`, `changes`) are not staged; `id2term` is, for the rare term whose
//! hashed dictionary key an earlier chunk wrote too.
//!
//! The copies cost disk, until the load's folder is removed: the `spog` files of the subjects
//! a chunk ends in or takes from earlier chunks, the keyed dictionary and the counters. The
//! links cost none until the staging database merges them.

use super::table_file::{FileFormat, TableFile};
use crate::database::Database;
use crate::error::StoreError;
use crate::kv::{multi_get, open_staging_db, StoreOptions, Table};
use rocksdb::{ColumnFamily, IngestExternalFileOptions, ReadOptions, DB};
use std::path::{Path, PathBuf};

/// The tables whose staged values later chunks read.
const STAGED_TABLES: [Table; 7] = [
    Table::Spog,
    Table::TermToId,
    Table::IdToTerm,
    Table::TermStats,
    Table::TermGraph,
    Table::ClassStats,
    Table::Graphs,
];

/// The staged tables whose merges cost more than they save, merged only after many chunks.
/// `id2term`'s files never overlap (a chunk's new ids follow the last chunk's), so a look-up
/// finds its one file by key range, and it is read only for long terms (keyed by hash) that
/// an earlier chunk minted and the cache of known terms no longer holds; `spog` is read only
/// for the quads whose every term an earlier chunk had (few in a dump). Their merges rewrote
/// a copy of every term's bytes and every quad again and again as the load grew: a tenth of
/// the CPU of a load of 35 M quads (see docs/benchmarks.md, Session 36).
const SELDOM_MERGED: [Table; 2] = [Table::IdToTerm, Table::Spog];

/// Whether later chunks read `table`'s staged values.
pub(crate) fn is_staged(table: Table) -> bool {
    STAGED_TABLES.contains(&table)
}

/// The staging database of one load.
pub(crate) struct Staging {
    db: DB,
    /// Its folder.
    dir: PathBuf,
}

impl Staging {
    /// Creates the staging database in `path`, with a quarter of the store's block cache.
    pub(crate) fn open(path: &Path, store_options: &StoreOptions) -> Result<Self, StoreError> {
        let options = StoreOptions {
            block_cache_bytes: (store_options.block_cache_bytes / 4).max(8 << 20),
            ..store_options.clone()
        };
        Ok(Self {
            db: open_staging_db(path, &options, &SELDOM_MERGED)?,
            dir: path.to_owned(),
        })
    }

    /// Adds one written file, if later chunks read its table and it is an SST file (a run of
    /// counts is summed by the merge, and never read back). Files must come in the order
    /// they were written: a later file's values replace an earlier one's. A file written
    /// apart holds keys no other file of its table holds (see `FileFormat::Final`).
    ///
    /// A file apart is linked in when the database can take it as it is. Any other file is
    /// copied: the database's ingestion writes its sequence number into a file whose keys
    /// it has already (RocksDB 7.9 writes it into the file itself), and a file with one
    /// cannot be ingested again, by the store at the load's end. A file apart gets no
    /// sequence number, so the link is safe; should the database want to give it one all the
    /// same, the ingestion is refused before anything is written (`allow_global_seqno`) and
    /// the file is copied instead. The copies are made by the kernel (`copy_file_range`,
    /// through `std::fs::copy`) and then moved in. When every file was copied, the copies
    /// were a fifth of the chunk writer's time at the end of a 35 M-quad load; `id2term`'s
    /// (every new term's bytes, read only for the rare long term an earlier chunk minted)
    /// are links now.
    pub(super) fn add(&self, written: &TableFile) -> Result<(), StoreError> {
        let (table, file) = (written.table, &written.path);
        if !is_staged(table) || !written.format.is_sst() {
            return Ok(());
        }
        let name = file
            .file_name()
            .ok_or_else(|| std::io::Error::other("a load's file without a name"))?;
        let staged = self.dir.join(name);
        if matches!(written.format, FileFormat::Final(_)) {
            std::fs::hard_link(file, &staged)?;
            if self.ingest(table, &staged, false).is_ok() {
                return Ok(());
            }
            std::fs::remove_file(&staged)?;
        }
        std::fs::copy(file, &staged)?;
        let ingested = self.ingest(table, &staged, true);
        if ingested.is_err() {
            let _ = std::fs::remove_file(&staged);
        }
        ingested
    }

    /// Moves `file` into `table`; with `numbered`, even if the database must give it a
    /// sequence number (written into the file), else only if it need not.
    fn ingest(&self, table: Table, file: &Path, numbered: bool) -> Result<(), StoreError> {
        // Moved, the file becomes the database's own and its name here goes.
        let mut options = IngestExternalFileOptions::default();
        options.set_move_files(true);
        options.set_allow_global_seqno(numbered);
        Ok(self
            .db
            .ingest_external_file_cf_opts(self.cf(table), &options, vec![file])?)
    }

    /// The staged value of one key.
    pub(crate) fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.db.get_cf(self.cf(table), key)?)
    }

    fn cf(&self, table: Table) -> &ColumnFamily {
        // Every table is created at open, so a missing handle is a programming error.
        #[allow(clippy::expect_used)]
        self.db
            .cf_handle(table.name())
            .expect("every table is opened with the staging database")
    }
}

/// The values in `table` of `keys` (sorted, and produced alike by every call of `keys`) as
/// the load has left them so far: a staged chunk's value, else the store's when `in_store`
/// (the store held data of that kind before the load), else `None`.
pub(crate) fn current_values<K, I, T>(
    database: &Database,
    staging: Option<&Staging>,
    table: Table,
    in_store: bool,
    keys: impl Fn() -> I,
    decode: impl Fn(&[u8]) -> Result<T, StoreError>,
) -> Result<Vec<Option<T>>, StoreError>
where
    K: AsRef<[u8]>,
    I: Iterator<Item = K>,
{
    let reads = ReadOptions::default();
    let mut values: Vec<Option<T>> = match staging {
        Some(staging) => multi_get(&staging.db, staging.cf(table), keys(), true, &reads)
            .into_iter()
            .map(|v| v?.map(|v| decode(&v)).transpose())
            .collect::<Result<_, StoreError>>()?,
        None => keys().map(|_| None).collect(),
    };
    if in_store {
        let missing = keys()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k);
        let found = multi_get(database.db(), database.cf(table), missing, true, &reads);
        let mut found = found.into_iter();
        for value in values.iter_mut().filter(|v| v.is_none()) {
            if let Some(v) = found.next() {
                *value = v?.map(|v| decode(&v)).transpose()?;
            }
        }
    }
    Ok(values)
}

/// The values of all `items`: `found` holds those of the items `known` keeps, in order; the
/// others get `absent`.
pub(super) fn spread<I, T: Clone>(
    items: &[I],
    known: impl Fn(&I) -> bool,
    found: Vec<T>,
    absent: T,
) -> Vec<T> {
    let mut found = found.into_iter();
    items
        .iter()
        .map(|item| {
            if known(item) {
                found.next().unwrap_or_else(|| absent.clone())
            } else {
                absent.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::StoreOptions;
    use crate::load::table_file::{file_options, FileWriter};
    use std::os::unix::fs::MetadataExt;

    fn write(dir: &Path, index: usize, table: Table, entries: &[(&str, &str)]) -> TableFile {
        let options = file_options(table, &StoreOptions::default(), true).expect("options");
        let path = dir.join(format!("{index:03}-{}.sst", table.name()));
        let mut file = FileWriter::create(table, index, &path, &options, true).expect("create");
        for (key, value) in entries {
            file.put(key.as_bytes(), value.as_bytes()).expect("put");
        }
        file.finish().expect("finish").expect("entries")
    }

    /// Whether a database of its own can still take `file` (it holds no sequence number).
    fn ingestible_again(dir: &Path, file: &TableFile) -> bool {
        let name = file.path.file_name().expect("a file name");
        let db = DB::open_default(dir.join("again").join(name)).expect("open");
        db.ingest_external_file(vec![&file.path]).is_ok()
    }

    #[test]
    fn files_apart_are_linked_and_files_reaching_into_staged_keys_are_copied() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let dir = dir.path();
        let staging = Staging::open(&dir.join("staging"), &StoreOptions::default()).expect("open");
        let table = Table::IdToTerm;
        let first = write(dir, 0, table, &[("a", "1"), ("b", "1")]);
        let second = write(dir, 1, table, &[("c", "2"), ("d", "2")]);
        // Written apart, yet with a key the staged files hold: the database needs a sequence
        // number for it, so it must get a copy.
        let reaching = write(dir, 2, table, &[("b", "3"), ("e", "3")]);
        for file in [&first, &second, &reaching] {
            staging.add(file).expect("staged");
        }
        let links = |file: &TableFile| std::fs::metadata(&file.path).expect("metadata").nlink();
        assert_eq!((links(&first), links(&second)), (2, 2), "linked");
        assert_eq!(links(&reaching), 1, "copied");
        let value = |key: &str| staging.get(table, key.as_bytes()).expect("get");
        assert_eq!(value("a"), Some(b"1".to_vec()));
        assert_eq!(value("b"), Some(b"3".to_vec()), "the later file's value");
        assert_eq!(value("d"), Some(b"2".to_vec()));
        // The store takes each file at the load's end: none was written into.
        for file in [&first, &second, &reaching] {
            assert!(ingestible_again(dir, file), "{}", file.path.display());
        }
    }
}
