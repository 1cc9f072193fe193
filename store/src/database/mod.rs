//! The open database under the `Store` façade: the RocksDB database and its tables, the
//! options it was opened with, and the state every reader and the one writer share (the
//! writer lock with its counters, the last published commit, the decoded-term cache, the
//! blank node numbering).
//!
//! This is the layer `quads` and `load` work on. It names nothing above it (no reader,
//! transaction, loader or façade), so imports inside the crate point one way:
//! `store` → `load` → `quads` → `database` → the encodings and tables.
//!
//! Invariants: every table of [`Table::ALL`] is open; only the holder of
//! [`Database::lock_writer`] writes, and it publishes a commit's sequence number
//! ([`Database::publish_sequence`]) only once the commit's batch is written.

mod columns;
mod decoded;
mod open;
mod write_health;
mod writer_state;

pub(crate) use columns::{Column, ColumnKey, ColumnOrder, Columns, Plan, SEEK_ENTRIES};
pub(crate) use decoded::DecodedTerms;
pub use write_health::WriteFailure;
pub(crate) use write_health::WriteHealth;
pub(crate) use writer_state::{IdMark, TermCache, WriterState};

use crate::changes::SequenceNumber;
use crate::encoding::{BlankNumbering, TermId};
use crate::error::StoreError;
use crate::kv::{meta_key, StoreOptions, Table};
use rocksdb::{ColumnFamily, WriteBatch, WriteOptions, DB};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// An open RocksDB database holding a Lodestone store, with the state shared by its readers
/// and its writer. Opened by [`Database::open`]; the `Store` owns one.
pub(crate) struct Database {
    db: DB,
    path: PathBuf,
    options: StoreOptions,
    writer: Mutex<WriterState>,
    committed_sequence: AtomicU64,
    decoded: DecodedTerms,
    number_columns: Columns,
    subject_columns: Columns,
    blank_numbering: BlankNumbering,
    write_health: WriteHealth,
    /// Whether the distinct counts per class and predicate are kept (all but a store of an
    /// older format opened read-only).
    class_predicates: bool,
}

impl Database {
    /// The folder the database lives in.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The options the database was opened with.
    pub(crate) fn options(&self) -> &StoreOptions {
        &self.options
    }

    /// How this store's minted blank node numbers map to ids.
    pub(crate) fn blank_numbering(&self) -> BlankNumbering {
        self.blank_numbering
    }

    /// Whether the store keeps the distinct counts per class and predicate (see
    /// `quads::distinct::class_predicates`).
    pub(crate) fn keeps_class_predicates(&self) -> bool {
        self.class_predicates
    }

    /// Terms decoded by any reader, shared by all of them.
    pub(crate) fn decoded_terms(&self) -> &DecodedTerms {
        &self.decoded
    }

    /// Columns of objects of predicates (numeric ranges), shared by every reader (see
    /// `database::columns`).
    pub(crate) fn number_columns(&self) -> &Columns {
        &self.number_columns
    }

    /// Columns of subjects of predicates (a subject's values), shared by every reader (see
    /// `database::columns`).
    pub(crate) fn subject_columns(&self) -> &Columns {
        &self.subject_columns
    }

    /// The RocksDB database itself.
    pub(crate) fn db(&self) -> &DB {
        &self.db
    }

    /// The column family of `table`.
    pub(crate) fn cf(&self, table: Table) -> &ColumnFamily {
        // Every table is created at open, so a missing handle is a programming error.
        #[allow(clippy::expect_used)]
        self.db
            .cf_handle(table.name())
            .expect("every table is opened with the store")
    }

    /// The id of a committed dictionary term, read from the latest state (for the writer,
    /// which holds the writer lock, so nothing changes underneath).
    pub(crate) fn committed_term_id(&self, bytes: &[u8]) -> Result<Option<TermId>, StoreError> {
        crate::dictionary::find_id(bytes, |table, key| {
            Ok(self.db.get_cf(self.cf(table), key)?)
        })
    }

    /// Takes the writer lock (waits while another writer holds it); the guard holds the
    /// counters only the writer changes.
    pub(crate) fn lock_writer(&self) -> MutexGuard<'_, WriterState> {
        // A panic while writing leaves no partial commit behind (batches are atomic), so the
        // state under a poisoned lock is still the committed one.
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Write options for a commit: synced as the store was opened, with memtable insert hints
    /// (a commit writes each table's entries in key order).
    pub(crate) fn write_options(&self) -> WriteOptions {
        let mut options = WriteOptions::default();
        options.set_sync(self.options.sync_writes);
        options.set_memtable_insert_hint_per_batch(true);
        options
    }

    /// Writes `batch` atomically, noting whether the write reached the disk
    /// ([`Database::write_failure`]).
    pub(crate) fn write(
        &self,
        batch: WriteBatch,
        options: &WriteOptions,
    ) -> Result<(), StoreError> {
        let outcome = self.db.write_opt(batch, options).map_err(StoreError::from);
        self.note_write(&outcome);
        outcome
    }

    /// Notes the outcome of a write made otherwise than by [`Database::write`] (a file
    /// ingest), for [`Database::write_failure`].
    pub(crate) fn note_write<T>(&self, outcome: &Result<T, StoreError>) {
        self.write_health.record(outcome);
    }

    /// Writes one small key (synced as commits are) to learn whether writes reach the disk
    /// again; used while [`Database::write_failure`] reports a failure, and clears it once a
    /// write succeeds.
    pub(crate) fn probe_writes(&self) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis();
        batch.put_cf(
            self.cf(Table::Meta),
            meta_key::WRITE_PROBE,
            now.to_be_bytes(),
        );
        self.write(batch, &self.write_options())
    }

    /// The last write's failure, unless a later write succeeded.
    pub(crate) fn write_failure(&self) -> Option<WriteFailure> {
        self.write_health.failure()
    }

    /// Sequence number of the last commit made visible (0 for a store never written).
    pub(crate) fn sequence(&self) -> SequenceNumber {
        self.committed_sequence.load(Ordering::Acquire)
    }

    /// Makes `sequence` the last commit; called once the commit's batch is written.
    pub(crate) fn publish_sequence(&self, sequence: SequenceNumber) {
        self.committed_sequence.store(sequence, Ordering::Release);
    }
}
