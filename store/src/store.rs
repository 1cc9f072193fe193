//! The store handle: open, read snapshots, write transactions, statistics, maintenance.

use crate::changes::{ChangeBatch, SequenceNumber};
use crate::encoding::BlankNumbering;
use crate::error::{CorruptionError, StoreError};
use crate::kv::{meta_key, open_db, CacheStats, IndexUsage, StoreOptions, Table};
use crate::quads::decoded::DecodedTerms;
use crate::quads::reader::Reader;
use crate::quads::writer::Transaction;
use crate::stats::{decode_u64, encode_u64};
use crate::version::{FORMAT_VERSION, FORMAT_WITHOUT_COMPACT_GRAPHS, FORMAT_WITHOUT_HASH_IRIS};
use rocksdb::{checkpoint::Checkpoint, ColumnFamily, WriteOptions, DB};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Value of `meta_key::BLANK_NUMBERING` in stores whose blank node numbers count down.
const DESCENDING: &[u8] = b"descending";

/// Counters only the single writer changes; guarded by the writer lock.
#[derive(Debug, Clone)]
pub(crate) struct WriterState {
    pub next_dictionary_id: u64,
    pub next_blank_id: u64,
    pub sequence: SequenceNumber,
    pub quad_count: u64,
    /// Committed dictionary terms the writer looked up recently (term bytes → id). Entries of
    /// reclaimed terms are removed in the same commit, and ids are never reused, so an entry
    /// is always right.
    pub term_cache: TermCache,
}

/// A bounded map from dictionary term bytes to committed ids, owned by the writer.
#[derive(Debug, Clone, Default)]
pub(crate) struct TermCache(rustc_hash::FxHashMap<Box<[u8]>, crate::encoding::TermId>);

impl TermCache {
    const LIMIT: usize = 100_000;

    pub fn get(&self, bytes: &[u8]) -> Option<crate::encoding::TermId> {
        self.0.get(bytes).copied()
    }

    pub fn insert(&mut self, bytes: &[u8], id: crate::encoding::TermId) {
        if self.0.len() >= Self::LIMIT {
            self.0.clear();
        }
        self.0.insert(bytes.into(), id);
    }

    pub fn remove(&mut self, bytes: &[u8]) {
        self.0.remove(bytes);
    }
}

/// An open Lodestone store.
///
/// Any number of readers work on snapshots while one writer at a time builds a transaction;
/// each commit is one atomic RocksDB write batch.
pub struct Store {
    db: DB,
    path: PathBuf,
    options: StoreOptions,
    writer: Mutex<WriterState>,
    committed_sequence: AtomicU64,
    decoded: DecodedTerms,
    blank_numbering: BlankNumbering,
}

impl Store {
    /// Opens the store in `path`, creating it if the folder is missing or empty and
    /// `options.create_if_missing` is set.
    ///
    /// A folder that is not empty but holds no store, or a store of another format version,
    /// is an error: nothing is ever silently replaced.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let exists = path.join("CURRENT").exists();
        if !exists {
            let is_empty_or_missing = match std::fs::read_dir(&path) {
                Ok(mut entries) => entries.next().is_none(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => return Err(e.into()),
            };
            if !options.create_if_missing || options.read_only {
                return Err(StoreError::NotFound(path));
            }
            if !is_empty_or_missing {
                return Err(StoreError::Corruption(CorruptionError::msg(format!(
                    "{} is not empty and holds no Lodestone store (no CURRENT file)",
                    path.display()
                ))));
            }
            std::fs::create_dir_all(&path)?;
        } else {
            // Opening would add our tables to a database of someone else's: look first.
            let tables = DB::list_cf(&rocksdb::Options::default(), &path)?;
            if !tables.iter().any(|t| t == Table::Meta.name()) {
                return Err(CorruptionError::msg(format!(
                    "{} is a RocksDB database but not a Lodestone store",
                    path.display()
                ))
                .into());
            }
            if options.read_only && !tables.iter().any(|t| t == Table::HashIris.name()) {
                // A store of format 1: only a read-write open upgrades it.
                return Err(StoreError::VersionMismatch {
                    path,
                    found: FORMAT_WITHOUT_HASH_IRIS,
                    expected: FORMAT_VERSION,
                });
            }
        }
        let db = open_db(&path, &options).map_err(|e| match e {
            // RocksDB allows one process per store: say so plainly.
            StoreError::Engine(e)
                if ["While lock file", "lock hold by current process"]
                    .iter()
                    .any(|m| e.to_string().contains(m)) =>
            {
                StoreError::Locked(path.clone())
            }
            other => other,
        })?;
        let meta = db
            .cf_handle(Table::Meta.name())
            .ok_or_else(|| CorruptionError::msg("missing meta table"))?;
        let read_counter = |key: &[u8]| -> Result<Option<u64>, StoreError> {
            db.get_cf(meta, key)?
                .map(|v| decode_u64(&v).map_err(StoreError::from))
                .transpose()
        };
        match read_counter(meta_key::VERSION)? {
            Some(FORMAT_VERSION) => {}
            Some(FORMAT_WITHOUT_COMPACT_GRAPHS) => {
                if !options.read_only {
                    db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
                }
            }
            Some(FORMAT_WITHOUT_HASH_IRIS) if !options.read_only => {
                crate::hash_iris::fill_from_dictionary(&db)?;
                db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
            }
            Some(found) => {
                return Err(StoreError::VersionMismatch {
                    path,
                    found,
                    expected: FORMAT_VERSION,
                })
            }
            None if exists => {
                return Err(CorruptionError::msg(format!(
                    "{} is a RocksDB database without a Lodestone format version",
                    path.display()
                ))
                .into())
            }
            None => {
                db.put_cf(meta, meta_key::BLANK_NUMBERING, DESCENDING)?;
                db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
            }
        }
        let blank_numbering = match db.get_cf(meta, meta_key::BLANK_NUMBERING)?.as_deref() {
            None => BlankNumbering::Ascending,
            Some(DESCENDING) => BlankNumbering::Descending,
            Some(_) => return Err(CorruptionError::msg("unknown blank node numbering").into()),
        };
        let state = WriterState {
            next_dictionary_id: read_counter(meta_key::NEXT_DICTIONARY_ID)?.unwrap_or(1),
            next_blank_id: read_counter(meta_key::NEXT_BLANK_ID)?.unwrap_or(1),
            sequence: read_counter(meta_key::SEQUENCE)?.unwrap_or(0),
            quad_count: read_counter(meta_key::QUAD_COUNT)?.unwrap_or(0),
            term_cache: TermCache::default(),
        };
        let committed_sequence = AtomicU64::new(state.sequence);
        let decoded = DecodedTerms::new(options.decoded_terms_bytes);
        let store = Self {
            db,
            path,
            options,
            decoded,
            writer: Mutex::new(state),
            committed_sequence,
            blank_numbering,
        };
        crate::load::recover_interrupted_ingest(&store)?;
        Ok(store)
    }

    /// The folder the store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &StoreOptions {
        &self.options
    }

    /// How this store's minted blank node numbers map to ids.
    pub(crate) fn blank_numbering(&self) -> BlankNumbering {
        self.blank_numbering
    }

    /// A consistent read view of the store as of now; later commits are not seen.
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(&self.db, &self.decoded, None)
    }

    /// Starts the write transaction; waits while another one is open.
    ///
    /// Dropping the transaction without [`Transaction::commit`] leaves the store unchanged.
    pub fn transaction(&self) -> Result<Transaction<'_>, StoreError> {
        Ok(Transaction::new(self, self.lock_writer()))
    }

    /// Sequence number of the last commit (0 for a store never written).
    pub fn sequence(&self) -> SequenceNumber {
        self.committed_sequence.load(Ordering::Acquire)
    }

    /// Commits after the given sequence number, oldest first, at most `limit` of them.
    pub fn changes_since(
        &self,
        after: SequenceNumber,
        limit: usize,
    ) -> Result<Vec<ChangeBatch>, StoreError> {
        let cf = self.cf(Table::Changes);
        let mut iter = self.db.raw_iterator_cf(cf);
        iter.seek((after + 1).to_be_bytes());
        let mut out = Vec::new();
        while let (true, Some(key), Some(value)) = (iter.valid(), iter.key(), iter.value()) {
            if out.len() >= limit {
                break;
            }
            out.push(ChangeBatch::decode(key, value)?);
            iter.next();
        }
        iter.status()?;
        Ok(out)
    }

    /// Forgets change log entries up to and including `upto` once every follower has them.
    pub fn trim_changes(&self, upto: SequenceNumber) -> Result<(), StoreError> {
        let cf = self.cf(Table::Changes);
        self.db
            .delete_range_cf(cf, 0_u64.to_be_bytes(), (upto + 1).to_be_bytes())?;
        Ok(())
    }

    /// Disk and memory use of every table.
    pub fn index_usage(&self) -> Result<Vec<IndexUsage>, StoreError> {
        Table::ALL
            .iter()
            .map(|&table| {
                let cf = self.cf(table);
                let prop = |name: &str| -> Result<u64, StoreError> {
                    Ok(self.db.property_int_value_cf(cf, name)?.unwrap_or(0))
                };
                Ok(IndexUsage {
                    name: table.name(),
                    sst_bytes: prop("rocksdb.total-sst-files-size")?,
                    memtable_bytes: prop("rocksdb.cur-size-all-mem-tables")?,
                    estimated_keys: prop("rocksdb.estimate-num-keys")?,
                })
            })
            .collect()
    }

    /// The block cache's size and hit counts.
    pub fn cache_stats(&self) -> Result<CacheStats, StoreError> {
        let property = |name: &str| -> Result<u64, StoreError> {
            Ok(self.db.property_int_value(name)?.unwrap_or(0))
        };
        let statistics = self
            .db
            .property_value("rocksdb.options-statistics")?
            .unwrap_or_default();
        // Lines read `rocksdb.block.cache.hit COUNT : 123`.
        let ticker = |name: &str| -> u64 {
            statistics
                .lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(" COUNT : "))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0)
        };
        Ok(CacheStats {
            capacity_bytes: property("rocksdb.block-cache-capacity")?,
            usage_bytes: property("rocksdb.block-cache-usage")?,
            hits: ticker("rocksdb.block.cache.hit"),
            misses: ticker("rocksdb.block.cache.miss"),
        })
    }

    /// Writes memtables to disk and compacts every table (reclaims space of deleted data).
    pub fn compact(&self) -> Result<(), StoreError> {
        for table in Table::ALL {
            let cf = self.cf(table);
            self.db.flush_cf(cf)?;
            self.db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
        }
        Ok(())
    }

    /// Flushes memtables and the write-ahead log to disk.
    pub fn flush(&self) -> Result<(), StoreError> {
        for table in Table::ALL {
            self.db.flush_cf(self.cf(table))?;
        }
        self.db.flush_wal(true)?;
        Ok(())
    }

    /// Writes a consistent copy of the store to `target` (a RocksDB checkpoint: hard links
    /// where possible), usable as a store folder of its own.
    pub fn backup(&self, target: impl AsRef<Path>) -> Result<(), StoreError> {
        // Hold the writer lock so that no ingest is half done in the copy.
        let _writer = self.lock_writer();
        self.db.flush_wal(true)?;
        Checkpoint::new(&self.db)?.create_checkpoint(target)?;
        Ok(())
    }

    pub(crate) fn decoded_terms(&self) -> &DecodedTerms {
        &self.decoded
    }

    pub(crate) fn db(&self) -> &DB {
        &self.db
    }

    pub(crate) fn cf(&self, table: Table) -> &ColumnFamily {
        // Every table is created at open, so a missing handle is a programming error.
        #[allow(clippy::expect_used)]
        self.db
            .cf_handle(table.name())
            .expect("every table is opened with the store")
    }

    /// The id of a committed dictionary term, read from the latest state (for the writer,
    /// which holds the writer lock, so nothing changes underneath).
    pub(crate) fn committed_term_id(
        &self,
        bytes: &[u8],
    ) -> Result<Option<crate::encoding::TermId>, StoreError> {
        crate::dictionary::find_id(bytes, |table, key| {
            Ok(self.db.get_cf(self.cf(table), key)?)
        })
    }

    pub(crate) fn lock_writer(&self) -> MutexGuard<'_, WriterState> {
        // A panic while writing leaves no partial commit behind (batches are atomic), so the
        // state under a poisoned lock is still the committed one.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn write_options(&self) -> WriteOptions {
        let mut options = WriteOptions::default();
        options.set_sync(self.options.sync_writes);
        options.set_memtable_insert_hint_per_batch(true);
        options
    }

    pub(crate) fn publish_sequence(&self, sequence: SequenceNumber) {
        self.committed_sequence.store(sequence, Ordering::Release);
    }
}
