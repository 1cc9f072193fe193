//! The key-value layer: which tables exist, how RocksDB is tuned, and raw access helpers.

mod disk;
mod tables;

pub use disk::{
    ingest_options, open_db, open_staging_db, quiet_perf_counters, CacheStats, IndexUsage,
    StoreOptions, QUAD_PREFIX_LEN,
};
pub(crate) use tables::permutation_table;
pub use tables::{meta_key, Table};
