//! Opening a store's folder: creating it, refusing what is not a Lodestone store or is one of
//! another format version, upgrading older formats, and reading the writer's counters.

use super::{Columns, Database, DecodedTerms, TermCache, WriteHealth, WriterState};
use crate::encoding::{BlankNumbering, Permutation, TermId};
use crate::error::{CorruptionError, StoreError};
use crate::kv::{meta_key, open_db, permutation_table, StoreOptions, Table};
use crate::stats::{decode_u64, encode_u64};
use crate::version::{
    FORMAT_VERSION, FORMAT_WITHOUT_CLASS_PREDICATES, FORMAT_WITHOUT_COMPACT_GRAPHS,
    FORMAT_WITHOUT_DISTINCT_STATS, FORMAT_WITHOUT_ENTITY_RANK, FORMAT_WITHOUT_HASH_IRIS,
    FORMAT_WITHOUT_IRI_INDEX, FORMAT_WITH_DEFAULT_GRAPH_FIRST,
};
use rocksdb::DB;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

/// Value of `meta_key::BLANK_NUMBERING` in stores whose blank node numbers count down.
const DESCENDING: &[u8] = b"descending";

impl Database {
    /// Opens the store in `path`, creating it if the folder is missing or empty and
    /// `options.create_if_missing` is set.
    ///
    /// A folder that is not empty but holds no store, or a store of another format version,
    /// is an error: nothing is ever silently replaced. A bulk load interrupted in its ingest
    /// is not finished here but by the caller (`load::recover_interrupted_ingest`).
    pub(crate) fn open(path: &Path, options: StoreOptions) -> Result<Self, StoreError> {
        let path = path.to_path_buf();
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
            if options.read_only && !tables.iter().any(|t| t == Table::IriIndex.name()) {
                // A store of format 3 or older: only a read-write open upgrades it.
                return Err(StoreError::VersionMismatch {
                    path,
                    found: FORMAT_WITHOUT_IRI_INDEX,
                    expected: FORMAT_VERSION,
                });
            }
            if options.read_only && !tables.iter().any(|t| t == Table::EntityRank.name()) {
                // A store of format 4: only a read-write open upgrades it.
                return Err(StoreError::VersionMismatch {
                    path,
                    found: FORMAT_WITHOUT_ENTITY_RANK,
                    expected: FORMAT_VERSION,
                });
            }
            if options.read_only && !tables.iter().any(|t| t == Table::DistinctStats.name()) {
                // A store of format 5: only a read-write open upgrades it.
                return Err(StoreError::VersionMismatch {
                    path,
                    found: FORMAT_WITHOUT_DISTINCT_STATS,
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
        let version = read_counter(meta_key::VERSION)?;
        if !options.read_only && version.is_some_and(|v| v < FORMAT_VERSION) {
            // These formats lack the distinct counts or some of them (format 7 the ones per
            // class and predicate): they are computed below, once the store is open, and the
            // mark makes an open interrupted before that try again.
            db.put_cf(meta, meta_key::DISTINCT_STATS_STALE, [])?;
        }
        if !options.read_only && version.is_some_and(|v| v < FORMAT_WITHOUT_CLASS_PREDICATES) {
            // Before the version is written: an open interrupted here deletes again.
            drop_default_graph_from_graph_first_orders(&db)?;
        }
        match version {
            Some(FORMAT_VERSION) => {}
            // Format 7 reads as it is, without the class-predicate counts (its readers say so);
            // a read-write open marked the distinct counts for a recompute above.
            Some(FORMAT_WITHOUT_CLASS_PREDICATES) => {
                if !options.read_only {
                    db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
                }
            }
            // Format 6 reads as it is (no reader looks for the default graph in the
            // graph-first orders); a read-write open deleted its entries there above.
            Some(FORMAT_WITH_DEFAULT_GRAPH_FIRST) => {
                if !options.read_only {
                    db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
                }
            }
            // Format 5 reads as it is; the open created the `distinct_stats` table, empty, and
            // computes it below.
            Some(FORMAT_WITHOUT_DISTINCT_STATS) => {
                if !options.read_only {
                    db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
                }
            }
            // Format 4 reads as it is; the open created its two new tables, empty.
            Some(FORMAT_WITHOUT_ENTITY_RANK) => {
                if !options.read_only {
                    db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
                }
            }
            // Formats 2 and 3 read as they are (the read-only open checked the IRI index);
            // a read-write open fills the IRI index and marks the store as the current format.
            Some(FORMAT_WITHOUT_COMPACT_GRAPHS | FORMAT_WITHOUT_IRI_INDEX) => {
                if !options.read_only {
                    crate::iri_index::fill_from_dictionary(&db)?;
                    db.put_cf(meta, meta_key::VERSION, encode_u64(FORMAT_VERSION))?;
                }
            }
            Some(FORMAT_WITHOUT_HASH_IRIS) if !options.read_only => {
                crate::hash_iris::fill_from_dictionary(&db)?;
                crate::iri_index::fill_from_dictionary(&db)?;
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
        // Only a read-only open leaves an older store's version as it was.
        let class_predicates = !options.read_only || version.is_none_or(|v| v == FORMAT_VERSION);
        let database = Self {
            class_predicates,
            committed_sequence: AtomicU64::new(state.sequence),
            decoded: DecodedTerms::new(options.decoded_terms_bytes),
            number_columns: Columns::new(options.number_columns_bytes),
            subject_columns: Columns::new(options.subject_columns_bytes),
            writer: Mutex::new(state),
            db,
            path,
            options,
            blank_numbering,
            write_health: WriteHealth::default(),
        };
        if !database.options.read_only && crate::quads::distinct::is_stale(&database)? {
            crate::quads::distinct::rebuild(&database)?;
        }
        Ok(database)
    }
}

/// Deletes the default graph's entries from the graph-first orders, where stores before format
/// 7 kept them (see `quads::layout`), and gives their space back: the files holding nothing
/// else are dropped whole, the rest compacted.
fn drop_default_graph_from_graph_first_orders(db: &DB) -> Result<(), StoreError> {
    let (start, end) = Permutation::graph_range(TermId::DEFAULT_GRAPH);
    for permutation in Permutation::ALL.into_iter().filter(|p| p.is_graph_first()) {
        let cf = db
            .cf_handle(permutation_table(permutation).name())
            .ok_or_else(|| CorruptionError::msg("missing quad index table"))?;
        db.delete_file_in_range_cf(cf, start.as_slice(), end.as_slice())?;
        db.delete_range_cf(cf, start.as_slice(), end.as_slice())?;
        db.compact_range_cf(cf, Some(start.as_slice()), Some(end.as_slice()));
    }
    Ok(())
}
