//! The key-value layer: which tables exist, how RocksDB is tuned, and raw access helpers.

mod disk;
mod multi_get;
mod tables;

pub(crate) use disk::{
    chunk_file_options, ingest_options, open_db, open_merge_db, open_staging_db,
    quiet_perf_counters, target_file_bytes, QUAD_PREFIX_LEN,
};
pub use disk::{CacheStats, IndexUsage, StoreOptions};
pub(crate) use multi_get::multi_get;
pub(crate) use tables::permutation_table;
pub(crate) use tables::{meta_key, Table};
