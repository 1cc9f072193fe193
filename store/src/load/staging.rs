//! The chunks of a bulk load written so far, readable before the store has any of them.
//!
//! A load of several chunks commits them all at its end (see `ingest`), yet each chunk is
//! written against the chunks before it: its quads are deduplicated against theirs, and its
//! counters (term statistics, term–graph positions, class counts), graph layouts and the id
//! lists of its hashed dictionary keys continue from theirs. So the files of the tables a
//! later chunk reads back are also ingested, as copies, into a staging RocksDB database in the
//! load's folder, whose compactions merge them as they come; a look-up reads the staged value
//! first and falls back to the store, which the load leaves unchanged until its commit. The other index orders and
//! the tables no chunk reads back (`hash_iris`, `iri_index`, `changes`) are not staged;
//! `id2term` is, for the rare term whose hashed dictionary key an earlier chunk wrote too.
//!
//! The copies cost disk: about a sixth of the quad indexes' files (only `spog` is staged), the
//! dictionary and the counters, until the load's folder is removed.

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

    /// Adds one written file, if later chunks read its table. Files must come in the order
    /// they were written: a later file's values replace an earlier one's.
    ///
    /// The database takes a copy, not a link: its ingestion writes its sequence number into
    /// the file it takes, and a file with one cannot be ingested again (RocksDB 7.9 refuses
    /// a sequence number that differs from the one it would assign). The copy is made by the
    /// kernel (`copy_file_range`, through `std::fs::copy`) and then moved in, rather than
    /// read and written again through RocksDB's buffers on the chunk writer's thread.
    pub(crate) fn add(&self, table: Table, file: &Path) -> Result<(), StoreError> {
        if !is_staged(table) {
            return Ok(());
        }
        let name = file
            .file_name()
            .ok_or_else(|| std::io::Error::other("a load's file without a name"))?;
        let copy = self.dir.join(name);
        std::fs::copy(file, &copy)?;
        // Moved, the copy becomes the database's own file and its name here goes.
        let mut options = IngestExternalFileOptions::default();
        options.set_move_files(true);
        let ingested = self
            .db
            .ingest_external_file_cf_opts(self.cf(table), &options, vec![&copy]);
        if ingested.is_err() {
            let _ = std::fs::remove_file(&copy);
        }
        Ok(ingested?)
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
