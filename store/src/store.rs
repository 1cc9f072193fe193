//! The store handle: open, read snapshots, write transactions, statistics, maintenance.
//!
//! [`Store`] is the façade over the open [`Database`]: it opens the database and finishes an
//! interrupted bulk load, and hands out readers, the write transaction and bulk loaders. The
//! layers under it (`database`, `quads`, `load`) never name it.

use crate::changes::{ChangeBatch, SequenceNumber};
use crate::database::{Database, WriteFailure};
use crate::error::StoreError;
use crate::kv::{meta_key, CacheStats, IndexUsage, StoreOptions, Table};
use crate::load::BulkLoader;
use crate::quads::reader::Reader;
use crate::quads::writer::Transaction;
use crate::stats::{encode_counts, StoreCounts};
use rocksdb::checkpoint::Checkpoint;
use rocksdb::WriteBatch;
use std::path::Path;

/// An open Lodestone store.
///
/// Any number of readers work on snapshots while one writer at a time builds a transaction;
/// each commit is one atomic RocksDB write batch.
pub struct Store {
    database: Database,
}

impl Store {
    /// Opens the store in `path`, creating it if the folder is missing or empty and
    /// `options.create_if_missing` is set.
    ///
    /// A folder that is not empty but holds no store, or a store of another format version,
    /// is an error: nothing is ever silently replaced.
    pub fn open(path: impl AsRef<Path>, options: StoreOptions) -> Result<Self, StoreError> {
        let database = Database::open(path.as_ref(), options)?;
        crate::load::recover_interrupted_ingest(&database)?;
        Ok(Self { database })
    }

    /// The folder the store lives in.
    pub fn path(&self) -> &Path {
        self.database.path()
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &StoreOptions {
        self.database.options()
    }

    /// A consistent read view of the store as of now; later commits are not seen.
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(&self.database, None)
    }

    /// Starts the write transaction; waits while another one is open.
    ///
    /// Dropping the transaction without [`Transaction::commit`] leaves the store unchanged.
    pub fn transaction(&self) -> Result<Transaction<'_>, StoreError> {
        Ok(Transaction::new(&self.database))
    }

    /// The last write's failure, unless a later write succeeded: while the disk is full every
    /// write fails (and changes nothing); RocksDB resumes writing by itself once space is
    /// freed, which [`Store::probe_writes`] or the next commit then notices.
    pub fn write_failure(&self) -> Option<WriteFailure> {
        self.database.write_failure()
    }

    /// Tries a tiny write, to learn whether writes reach the disk again after a failure
    /// (clears [`Store::write_failure`] when it succeeds).
    pub fn probe_writes(&self) -> Result<(), StoreError> {
        self.database.probe_writes()
    }

    /// Sequence number of the last commit (0 for a store never written).
    pub fn sequence(&self) -> SequenceNumber {
        self.database.sequence()
    }

    /// Commits after the given sequence number, oldest first, at most `limit` of them.
    pub fn changes_since(
        &self,
        after: SequenceNumber,
        limit: usize,
    ) -> Result<Vec<ChangeBatch>, StoreError> {
        let db = self.database.db();
        let mut iter = db.raw_iterator_cf(self.database.cf(Table::Changes));
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
        let cf = self.database.cf(Table::Changes);
        self.database
            .db()
            .delete_range_cf(cf, 0_u64.to_be_bytes(), (upto + 1).to_be_bytes())?;
        Ok(())
    }

    /// Computes the entity rank (see [`crate::rank`]) of the committed store and stores it
    /// with the statistics. Reads every quad once; runs beside readers and writers (commits
    /// made meanwhile are left to the next computation). Returns `None`, storing nothing, if
    /// `stop` was set meanwhile.
    pub fn compute_entity_rank(
        &self,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<Option<crate::RankReport>, StoreError> {
        crate::rank::compute(&self.database, stop)
    }

    /// Which commit the stored entity rank describes, and the store's state now.
    pub fn entity_rank_state(&self) -> Result<crate::RankState, StoreError> {
        crate::rank::state(&self.database)
    }

    /// Records prefix declarations (name, namespace IRI) met in loaded files or updates, for
    /// the prefix table every surface shows CURIEs with; the latest declaration of a name
    /// wins, and implausible ones are skipped (see `prefixes`). A commit of its own when it
    /// changes the recorded prefixes (see [`Transaction::declare_prefixes`], which records
    /// them with a transaction's quads). Returns how many names it changed.
    pub fn record_prefixes(&self, declarations: &[(String, String)]) -> Result<usize, StoreError> {
        let changed = crate::prefixes::changes(&self.database, declarations)?.len();
        let mut transaction = self.transaction()?;
        transaction.declare_prefixes(declarations.iter().cloned());
        transaction.commit()?;
        Ok(changed)
    }

    /// The prefix declarations recorded by [`Store::record_prefixes`], by name.
    pub fn declared_prefixes(&self) -> Result<Vec<(String, String)>, StoreError> {
        crate::prefixes::declared(&self.database)
    }

    /// Keeps `counts` ([`Reader::counts`] of the commit `counts.sequence`) in the store, so
    /// that a reader of that commit finds them ([`Reader::remembered_counts`]) instead of
    /// counting again: at 100 M quads a count reads 620 MB, 10 s of a server's CPU after each
    /// start. Kept only while no commit came since (returns whether they were kept); a store
    /// opened read-only keeps nothing. Not a commit: the sequence and the change log stay.
    pub fn remember_counts(&self, counts: &StoreCounts) -> Result<bool, StoreError> {
        if self.options().read_only {
            return Ok(false);
        }
        // Under the writer lock, so that no commit lands between the check and the write.
        let state = self.database.lock_writer();
        if state.sequence != counts.sequence {
            return Ok(false);
        }
        let mut batch = WriteBatch::default();
        batch.put_cf(
            self.database.cf(Table::Meta),
            meta_key::COUNTS,
            encode_counts(counts),
        );
        self.database.write(batch, &self.database.write_options())?;
        Ok(true)
    }

    /// Disk and memory use of every table.
    pub fn index_usage(&self) -> Result<Vec<IndexUsage>, StoreError> {
        let db = self.database.db();
        Table::ALL
            .iter()
            .map(|&table| {
                let cf = self.database.cf(table);
                let prop = |name: &str| -> Result<u64, StoreError> {
                    Ok(db.property_int_value_cf(cf, name)?.unwrap_or(0))
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
        let db = self.database.db();
        // Asked of a table: every table shares the one cache sized from the memory budget,
        // while the database-wide property reads the unused `default` column family's own
        // 8 MiB cache.
        let spog = self.database.cf(Table::Spog);
        let property = |name: &str| -> Result<u64, StoreError> {
            Ok(db.property_int_value_cf(spog, name)?.unwrap_or(0))
        };
        let statistics = db
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
        let db = self.database.db();
        for table in Table::ALL {
            let cf = self.database.cf(table);
            db.flush_cf(cf)?;
            db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
        }
        Ok(())
    }

    /// Flushes memtables and the write-ahead log to disk.
    pub fn flush(&self) -> Result<(), StoreError> {
        let db = self.database.db();
        for table in Table::ALL {
            db.flush_cf(self.database.cf(table))?;
        }
        db.flush_wal(true)?;
        Ok(())
    }

    /// Writes a consistent copy of the store to `target` (a RocksDB checkpoint: hard links
    /// where possible), usable as a store folder of its own.
    ///
    /// A store opened read-only (beside a server running on it) copies the state it opened.
    pub fn backup(&self, target: impl AsRef<Path>) -> Result<(), StoreError> {
        // Hold the writer lock so that no ingest is half done in the copy.
        let _writer = self.database.lock_writer();
        let db = self.database.db();
        if !self.options().read_only {
            db.flush_wal(true)?;
        }
        Checkpoint::new(db)?.create_checkpoint(target)?;
        Ok(())
    }
}

// The loader's constructor takes the façade, so it is written here: `load` sits under the
// `Store` and works on its `Database`, which it never reaches through `Store`.
impl<'a> BulkLoader<'a> {
    /// A loader for `store` with default settings.
    pub fn new(store: &'a Store) -> Self {
        Self::on(&store.database)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{Permutation, TermId};
    use crate::kv::permutation_table;
    use oxrdf::{GraphNameRef, NamedNodeRef, QuadRef};

    #[test]
    fn the_cache_reported_is_the_one_sized_from_the_memory_budget() {
        let dir = tempfile::tempdir().expect("dir");
        let options = StoreOptions::default().with_memory_budget(64 << 20);
        let store = Store::open(dir.path().join("store"), options).expect("open");
        assert_eq!(store.cache_stats().expect("stats").capacity_bytes, 32 << 20);
    }

    // Compact graphs (`quads::layout`), checked in the index tables themselves.

    /// A store whose graphs stay compact up to three quads.
    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("dir");
        let options = StoreOptions::default()
            .with_memory_budget(64 << 20)
            .with_compact_graph_max_quads(3)
            .with_range_deletion_min_quads(1);
        let store = Store::open(dir.path().join("store"), options).expect("open");
        (dir, store)
    }

    fn quad<'a>(subject: &'a str, graph: GraphNameRef<'a>) -> QuadRef<'a> {
        let p = NamedNodeRef::new_unchecked("http://e.org/p");
        let s = NamedNodeRef::new_unchecked(subject);
        QuadRef::new(s, p, s, graph)
    }

    /// The entries of `graph` in the order's table.
    fn entries(store: &Store, permutation: Permutation, graph: TermId) -> usize {
        let cf = store.database.cf(permutation_table(permutation));
        let prefix = graph.to_be_bytes();
        let mut iter = store.database.db().raw_iterator_cf(cf);
        iter.seek(prefix);
        let mut count = 0;
        while iter.key().is_some_and(|k| k.starts_with(&prefix)) {
            count += 1;
            iter.next();
        }
        count
    }

    fn graph_id(store: &Store, graph: GraphNameRef<'_>) -> TermId {
        store
            .reader()
            .graph_id(graph)
            .expect("graph")
            .expect("known")
    }

    #[test]
    fn a_compact_graph_refilled_with_its_own_quads_stays_out_of_the_indexed_orders() {
        let (_dir, store) = store();
        let graph = GraphNameRef::NamedNode(NamedNodeRef::new_unchecked("http://e.org/g"));
        let mut transaction = store.transaction().expect("transaction");
        transaction
            .insert(quad("http://e.org/s", graph))
            .expect("insert");
        transaction.commit().expect("commit");
        let graph_id = graph_id(&store, graph);
        let mut transaction = store.transaction().expect("transaction");
        transaction.clear_graph(graph_id).expect("clear");
        transaction
            .insert(quad("http://e.org/s", graph))
            .expect("insert");
        // A change elsewhere, so that the commit writes.
        let default = GraphNameRef::DefaultGraph;
        transaction
            .insert(quad("http://e.org/s", default))
            .expect("insert");
        transaction.commit().expect("commit");
        assert_eq!(entries(&store, Permutation::Gspo, graph_id), 1);
        assert_eq!(entries(&store, Permutation::Gpos, graph_id), 0);
        assert_eq!(entries(&store, Permutation::Gosp, graph_id), 0);
    }

    /// A store written by an earlier build can hold `gpos` and `gosp` entries of a compact
    /// graph; the commit that converts the graph must not let them come back.
    #[test]
    fn a_converted_graph_loses_the_entries_an_earlier_build_left() {
        let (_dir, store) = store();
        let graph = GraphNameRef::NamedNode(NamedNodeRef::new_unchecked("http://e.org/g"));
        let iri = |i: usize| format!("http://e.org/s{i}");
        let mut transaction = store.transaction().expect("transaction");
        transaction.insert(quad(&iri(0), graph)).expect("insert");
        transaction.insert(quad(&iri(9), graph)).expect("insert");
        transaction.commit().expect("commit");
        // What such a build left: the entries of a quad the graph no longer holds.
        let reader = store.reader();
        let stale = reader
            .encode_quad(quad(&iri(9), graph))
            .expect("encode")
            .expect("known");
        let mut transaction = store.transaction().expect("transaction");
        assert!(transaction.remove(quad(&iri(9), graph)).expect("remove"));
        transaction.commit().expect("commit");
        let db = store.database.db();
        for permutation in [Permutation::Gpos, Permutation::Gosp] {
            let cf = store.database.cf(permutation_table(permutation));
            db.put_cf(cf, permutation.key(&stale), []).expect("put");
        }

        let mut transaction = store.transaction().expect("transaction");
        for i in 1..4 {
            transaction.insert(quad(&iri(i), graph)).expect("insert");
        }
        transaction.commit().expect("commit");

        let graph_id = graph_id(&store, graph);
        for permutation in [Permutation::Gspo, Permutation::Gpos, Permutation::Gosp] {
            assert_eq!(entries(&store, permutation, graph_id), 4, "{permutation:?}");
        }
    }
}
