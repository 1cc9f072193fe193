//! Opening RocksDB with the store's tables and tuning.

use super::Table;
use crate::error::StoreError;
use rocksdb::{
    BlockBasedIndexType, BlockBasedOptions, Cache, ColumnFamilyDescriptor, DBCompactionStyle,
    DBCompressionType, Env, Options, SliceTransform, DB,
};
use std::path::Path;

/// How the store uses memory and disk.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Size of the shared block cache in bytes.
    pub block_cache_bytes: usize,
    /// Size of one memtable (per table) in bytes; the quad indexes' are capped at
    /// `QUAD_INDEX_MEMTABLE_BYTES`.
    pub write_buffer_bytes: usize,
    /// Memory of all memtables together; past it the largest is flushed early (0: no cap).
    pub total_write_buffer_bytes: usize,
    /// Whether every commit waits for the write-ahead log to reach the disk (power-loss safe).
    pub sync_writes: bool,
    /// Whether a missing store is created.
    pub create_if_missing: bool,
    /// Open read-only (no writer, no lock beyond RocksDB's).
    pub read_only: bool,
    /// Memory for decoded dictionary terms shared by all readers, in bytes.
    pub decoded_terms_bytes: usize,
    /// Memory for the columns of predicates whose numeric ranges are read often, shared by
    /// all readers, in bytes (see `database::columns`; 0 keeps none).
    pub number_columns_bytes: usize,
    /// Memory for the columns of predicates whose subjects' values are looked up often,
    /// shared by all readers, in bytes (see `database::columns`; 0 keeps none).
    pub subject_columns_bytes: usize,
    /// Fewest committed quads a graph cleared whole in a transaction must have held for its
    /// entries in the graph-first indexes to go in one range deletion instead of a point
    /// deletion each. RocksDB 7 re-fragments a memtable's range deletions for every
    /// iterator it opens, so one per small commit slows every scan until the next flush;
    /// for a large graph the range deletion saves thousands of entries, and readers seek
    /// past the old version instead of stepping over its tombstones.
    pub range_deletion_min_quads: usize,
    /// Whether RocksDB's flushes and compactions run at the lowest CPU priority (nice 19 on
    /// Linux), behind readers: they are work nobody waits for, until level 0 fills up and
    /// writes slow down. Applies to every store of the process (the thread pools are
    /// RocksDB's).
    pub background_at_lowest_priority: bool,
    /// Most quads a named graph may hold and stay compact: kept in `gspo` only, without
    /// entries in `gpos` and `gosp`, so that each of its quads costs four index entries
    /// instead of six. Patterns with the graph bound filter such a graph's quads (see
    /// `quads::layout`). A graph that grows past it gets its entries and keeps them.
    pub compact_graph_max_quads: usize,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            block_cache_bytes: 256 << 20,
            write_buffer_bytes: 16 << 20,
            total_write_buffer_bytes: 0,
            sync_writes: false,
            create_if_missing: true,
            read_only: false,
            decoded_terms_bytes: 32 << 20,
            number_columns_bytes: 32 << 20,
            subject_columns_bytes: 32 << 20,
            range_deletion_min_quads: 1024,
            background_at_lowest_priority: false,
            compact_graph_max_quads: 256,
        }
    }
}

impl StoreOptions {
    /// Options sized to a total memory budget in bytes: a half for the block cache (which
    /// also holds the index and filter blocks), a quarter for all memtables together (each
    /// table's memtable at most a sixteenth), a sixteenth each for decoded terms, for columns
    /// of objects (numeric ranges) and for columns of subjects, the rest left to table readers
    /// and the engine. Columns take memory only as they are built.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.block_cache_bytes = (bytes / 2).max(4 << 20);
        self.decoded_terms_bytes = bytes / 16;
        self.number_columns_bytes = bytes / 16;
        self.subject_columns_bytes = bytes / 16;
        self.write_buffer_bytes = (bytes / 16).clamp(1 << 20, 64 << 20);
        self.total_write_buffer_bytes = (bytes / 4).max(4 << 20);
        self
    }

    /// Options for a bulk load whose loader has a memory budget of `bytes`: the load reads
    /// little back (a sorted look-up per chunk), so the engine gets small caches, a sixteenth
    /// of the budget for the block cache and as much for memtables, and the loader the rest
    /// (see `BulkLoader::with_memory_budget`).
    pub fn for_load(mut self, bytes: usize) -> Self {
        self.block_cache_bytes = (bytes / 16).max(4 << 20);
        self.decoded_terms_bytes = (bytes / 64).max(1 << 20);
        self.number_columns_bytes = 0;
        self.subject_columns_bytes = 0;
        self.write_buffer_bytes = (bytes / 64).clamp(1 << 20, 16 << 20);
        self.total_write_buffer_bytes = (bytes / 16).max(4 << 20);
        self
    }

    /// Fewest quads a cleared graph must lose to be range-deleted (see the field).
    pub fn with_range_deletion_min_quads(mut self, quads: usize) -> Self {
        self.range_deletion_min_quads = quads;
        self
    }

    /// Whether flushes and compactions run at the lowest CPU priority (see the field).
    pub fn with_background_at_lowest_priority(mut self, lowest: bool) -> Self {
        self.background_at_lowest_priority = lowest;
        self
    }

    /// Most quads of a compact named graph (see the field; 0 indexes every graph that
    /// holds quads).
    pub fn with_compact_graph_max_quads(mut self, quads: usize) -> Self {
        self.compact_graph_max_quads = quads;
        self
    }

    /// Whether commits are synced to disk.
    pub fn with_sync_writes(mut self, sync: bool) -> Self {
        self.sync_writes = sync;
        self
    }
}

/// Largest memtable of a quad index. A graph replaced again and again leaves a tombstone and
/// a dead put per quad in the memtables of the subject-first indexes (and a dead put under the
/// range deletion in the graph-first ones), which every look-up of those subjects steps over
/// until a flush drops them. Small memtables flush them within a few replacements: with
/// 16 MB, 32 readers and a writer replacing a 10,000-quad graph every second read at half
/// their idle rate; with 4 MB at 70–72 % of it, and the writer's commits got faster too
/// (`docs/benchmarks.md`, third operations round). Trickle loads did not slow down.
pub(super) const QUAD_INDEX_MEMTABLE_BYTES: usize = 4 << 20;

/// Level-0 files of a quad index that start a compaction, and the counts at which RocksDB
/// slows writes down and stops them (RocksDB's defaults are 4, 20 and 36). Until an index
/// outgrows RocksDB's base level (256 MB), level 0 compacts straight into the last level, and
/// the subject-, predicate- and object-first indexes take new keys all over their range, so
/// each of those compactions rewrites the whole index and takes longer as the store grows.
/// When the machine is busy, one compaction thread falls behind the flushes. At 20 files
/// RocksDB then put the writer to sleep, 297 times over 100,000 graph replacements. Letting
/// level 0 grow to 40 files instead lets the next compaction take in everything waiting, so
/// the store catches up with one rewrite rather than many. That left 30 slowdowns, cut
/// compaction CPU by 8 %, and raised the last tenth's rate from 0.73 to 0.81 of the first's
/// (`docs/benchmarks.md`, session 7). Compactions still start at 4 files. Starting them at
/// 12 saved more CPU, but reads stepped over the tombstones of more files: with 32 readers
/// and a 10,000-quad graph replaced every second, read p99 rose 6.5 ms.
pub(super) const QUAD_INDEX_LEVEL0_FILES: LevelZeroFiles = LevelZeroFiles {
    compaction: 4,
    slowdown: 40,
    stop: 64,
};

/// Target size of a quad index's SST files. A compaction rewrites every file of the level
/// below that overlaps its input; the new subjects of a commit land at one place of `spog`
/// (see `BlankNumbering`), so smaller files there leave the rest of the index alone.
pub(super) const QUAD_INDEX_FILE_BYTES: u64 = 16 << 20;

/// Level-0 file counts of one table: compaction trigger, write slowdown, write stop.
#[derive(Debug, Clone, Copy)]
pub(super) struct LevelZeroFiles {
    /// Files that start a compaction into the next level.
    pub compaction: i32,
    /// Files at which writes are slowed down.
    pub slowdown: i32,
    /// Files at which writes stop until a compaction ends.
    pub stop: i32,
}

/// Length of the prefix (the first term id) of the quad indexes' prefix filters and of the
/// per-term tables' hashed memtables; reads with a shorter prefix use total-order iteration.
pub(crate) const QUAD_PREFIX_LEN: usize = 8;

/// zstd's level for the last level's files (RocksDB's default is zstd's own default, 3). At
/// 35 M quads level 1 made the load's final merge 2–3 s faster for 1 % more disk (49.9
/// against 49.4 bytes a quad); the BSBM mix on it ran within 1 % of the level-3 store's rate
/// (`docs/benchmarks.md`, session 35).
const BOTTOMMOST_ZSTD_LEVEL: i32 = 1;
/// zstd's window (RocksDB's default), given with the level.
const ZSTD_WINDOW_BITS: i32 = -14;

/// The block cache: its size and how often reads found what they needed in it.
#[derive(Debug, Clone, Copy, Default)]
pub struct CacheStats {
    /// Capacity in bytes.
    pub capacity_bytes: u64,
    /// Bytes in use.
    pub usage_bytes: u64,
    /// Block reads served from the cache since the store was opened.
    pub hits: u64,
    /// Block reads that went to disk since the store was opened.
    pub misses: u64,
}

impl CacheStats {
    /// Hits over all block reads (`None` before the first read).
    pub fn hit_rate(&self) -> Option<f64> {
        let total = self.hits + self.misses;
        (total > 0).then(|| self.hits as f64 / total as f64)
    }
}

/// Disk space used by one table.
#[derive(Debug, Clone)]
pub struct IndexUsage {
    /// Table (column family) name.
    pub name: &'static str,
    /// Bytes of SST files on disk.
    pub sst_bytes: u64,
    /// Bytes in memtables not yet flushed.
    pub memtable_bytes: u64,
    /// RocksDB's estimate of the number of keys.
    pub estimated_keys: u64,
}

/// Whether the index and filter blocks of level-0 files stay in memory, outside the block
/// cache's capacity.
#[derive(Clone, Copy, PartialEq)]
enum PinLevel0 {
    /// The store: few level-0 files at a time, looked up by every read.
    Yes,
    /// A load's staging database: every chunk's files stay at level 0 until the load ends,
    /// so pinned blocks would grow with the input (at 35 M quads, hundreds of MB).
    No,
}

fn table_options(table: Table, options: &StoreOptions, cache: &Cache, pin: PinLevel0) -> Options {
    let mut block = BlockBasedOptions::default();
    block.set_block_cache(cache);
    block.set_block_size(if table.is_quad_index() {
        16 << 10
    } else {
        8 << 10
    });
    block.set_format_version(5);
    block.set_cache_index_and_filter_blocks(true);
    block.set_pin_l0_filter_and_index_blocks_in_cache(pin == PinLevel0::Yes);
    if table.wants_bloom_filter() {
        block.set_bloom_filter(10.0, false);
    }
    // Partitioned indexes and filters on every table: a look-up loads one small partition of
    // each. A whole-file filter is as large as its file's key count makes it: at 15 M quads,
    // 26 MB for a `term_graph` file and 5–9 MB for dictionary and counter files, more than
    // one shard of the block cache holds (4 MB of the default 256 MB), so the cache could not
    // keep it and every look-up read it back from disk. Writes of 300-quad graphs on such a
    // store fell to 61 per second, and a query decoding terms spent three quarters of its
    // time in those reads (`docs/benchmarks.md`, session 10).
    block.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
    block.set_partition_filters(true);
    let mut cf = Options::default();
    cf.set_block_based_table_factory(&block);
    cf.set_write_buffer_size(if table.is_quad_index() {
        options.write_buffer_bytes.min(QUAD_INDEX_MEMTABLE_BYTES)
    } else {
        options.write_buffer_bytes
    });
    cf.set_compression_type(DBCompressionType::Lz4);
    cf.set_bottommost_compression_type(DBCompressionType::Zstd);
    cf.set_bottommost_compression_options(ZSTD_WINDOW_BITS, BOTTOMMOST_ZSTD_LEVEL, 0, 0, true);
    cf.set_level_compaction_dynamic_level_bytes(true);
    if table.is_quad_index() {
        let level0 = QUAD_INDEX_LEVEL0_FILES;
        cf.set_level_zero_file_num_compaction_trigger(level0.compaction);
        cf.set_level_zero_slowdown_writes_trigger(level0.slowdown);
        cf.set_level_zero_stop_writes_trigger(level0.stop);
        cf.set_target_file_size_base(QUAD_INDEX_FILE_BYTES);
        // The prefix (first id) feeds the prefix bloom filters of scans with a bound first id;
        // full scans ask for total order. The memtable stays RocksDB's default skip list: a
        // commit's entries arrive sorted per table, which its sequential-insert splice takes
        // in near-constant time, whereas a hashed skip list searched every key from its
        // bucket's head.
        cf.set_prefix_extractor(SliceTransform::create_fixed_prefix(QUAD_PREFIX_LEN));
    }
    if table == Table::HashIris {
        // Scans of one document's hash: the prefix bloom filter answers "none" (most IRIs) at
        // the cost of a filter probe.
        cf.set_prefix_extractor(SliceTransform::create_fixed_prefix(QUAD_PREFIX_LEN));
    }
    if table.is_keyed_by_term() {
        // Per-term counters and dictionary entries: point look-ups by term id and scans of
        // one term. Their memtables are skip lists too: a commit writes each table's entries
        // in key order (see `quads::writer`), so each insert starts from the last one's
        // place. A hash of linked lists was slower: the buckets of terms used in every
        // commit grew into lists walked on each insert, and every flush had to sort them.
        cf.set_prefix_extractor(SliceTransform::create_fixed_prefix(QUAD_PREFIX_LEN));
    }
    cf
}

/// Options of the SST files a bulk load writes for `table`: the table's own block layout,
/// filters and compression (these files are ingested into the last level, where compaction
/// may never rewrite them), so that bulk-loaded data reads like data written any other way.
pub(crate) fn ingest_options(table: Table, options: &StoreOptions) -> Result<Options, StoreError> {
    // The writer never reads blocks back; the cache only completes the table options.
    let cache = Cache::new_lru_cache(1 << 20)?;
    Ok(table_options(table, options, &cache, PinLevel0::Yes))
}

/// Options of the SST files a load of several chunks writes for `table`: they are merged
/// into the files the store takes (see `load::merge`) and then deleted, so they are written
/// with LZ4, which costs the chunk writer half of zstd's time; the merged files get zstd.
pub(crate) fn chunk_file_options(
    table: Table,
    options: &StoreOptions,
) -> Result<Options, StoreError> {
    let mut cf = ingest_options(table, options)?;
    cf.set_bottommost_compression_type(DBCompressionType::Lz4);
    Ok(cf)
}

/// Size at which a bulk load's merged files of `table` are cut: the size its compactions
/// write, so that a later compaction rewrites no more than it would have written itself.
pub(crate) fn target_file_bytes(table: Table) -> u64 {
    if table.is_quad_index() {
        QUAD_INDEX_FILE_BYTES
    } else {
        // RocksDB's default `target_file_size_base`, which the other tables keep.
        64 << 20
    }
}

/// Opens (or creates) a database in `path` holding one table's chunk files for a bulk load's
/// merge (see `load::merge`): read by one ordered scan, it never compacts, and its level 0
/// takes any number of overlapping files without stalling an ingestion.
pub(crate) fn open_merge_db(
    path: &Path,
    table: Table,
    options: &StoreOptions,
) -> Result<DB, StoreError> {
    let mut cf = ingest_options(table, options)?;
    cf.create_if_missing(true);
    cf.set_disable_auto_compactions(true);
    cf.set_level_zero_slowdown_writes_trigger(1 << 20);
    cf.set_level_zero_stop_writes_trigger(1 << 20);
    cf.set_keep_log_file_num(1);
    Ok(DB::open(&cf, path)?)
}

/// How many files a seldom-merged staged table gathers before its first merge: more than a
/// load of 100 M quads at the default budget writes (27 chunks; `spog` gets about four files a
/// chunk, since a chunk's own subjects are written apart, see `load::table_file`), few enough
/// that a look-up's check of each file's key range stays cheap and the open files stay within
/// the limit.
const SELDOM_MERGED_RUNS: i32 = 128;

/// Opens (or creates) the staging database of a bulk load in `path` (see `load::staging`):
/// the store's tables with their options, so that the files written for the store read alike
/// there. Nothing is ever written to it but ingested files. Its compactions merge the
/// chunks' files as they come, so that a look-up probes a few files and not one per chunk
/// (with one per chunk, a 512 MB load of 35 M quads in 120 chunks slowed from 120,000 to
/// 22,000 quads/s); it never stalls an ingestion for want of them. The compactions are
/// size-tiered (universal), so a staged entry is rewritten a few times rather than once per
/// level for every chunk, and write LZ4: the staging database is thrown away with the load,
/// and zstd's compression of its merges took a sixth of a load's CPU time in 35 chunks.
/// The `seldom_merged` tables merge only once [`SELDOM_MERGED_RUNS`] files have come.
pub(crate) fn open_staging_db(
    path: &Path,
    options: &StoreOptions,
    seldom_merged: &[Table],
) -> Result<DB, StoreError> {
    let cache = Cache::new_lru_cache(options.block_cache_bytes)?;
    let mut db_options = Options::default();
    db_options.create_if_missing(true);
    db_options.create_missing_column_families(true);
    db_options.set_max_open_files(512);
    db_options.set_keep_log_file_num(1);
    let descriptors = Table::ALL.iter().map(|&t| {
        let mut table = table_options(t, options, &cache, PinLevel0::No);
        table.set_compaction_style(DBCompactionStyle::Universal);
        table.set_compression_type(DBCompressionType::Lz4);
        table.set_bottommost_compression_type(DBCompressionType::Lz4);
        table.set_level_zero_file_num_compaction_trigger(if seldom_merged.contains(&t) {
            SELDOM_MERGED_RUNS
        } else {
            4
        });
        table.set_level_zero_slowdown_writes_trigger(1 << 20);
        table.set_level_zero_stop_writes_trigger(1 << 20);
        table.set_soft_pending_compaction_bytes_limit(0);
        table.set_hard_pending_compaction_bytes_limit(0);
        ColumnFamilyDescriptor::new(t.name(), table)
    });
    Ok(DB::open_cf_descriptors(&db_options, path, descriptors)?)
}

/// Turns off RocksDB's per-thread performance counters on the calling thread. They are on
/// (`kEnableCount`) by default on every thread and the store never reads them, yet each
/// key comparison in a memtable insert or a scan bumps one through a thread-local look-up:
/// a tenth of a large commit's time in the profile.
pub(crate) fn quiet_perf_counters() {
    rocksdb::perf::set_perf_stats(rocksdb::perf::PerfStatsLevel::Disable);
}

/// Opens (or creates) the RocksDB database of a store with every table.
pub(crate) fn open_db(path: &Path, options: &StoreOptions) -> Result<DB, StoreError> {
    let cache = Cache::new_lru_cache(options.block_cache_bytes)?;
    let mut db_options = Options::default();
    db_options.create_if_missing(options.create_if_missing);
    // Tables added by a newer format are created at open; the store then upgrades itself.
    db_options.create_missing_column_families(!options.read_only);
    db_options.set_max_background_jobs(2);
    // One writer at a time is the store's model; without concurrent inserts each skip list
    // keeps the place of its last insert, which a commit's sorted entries start from.
    db_options.set_allow_concurrent_memtable_write(false);
    db_options.set_bytes_per_sync(1 << 20);
    db_options.set_max_open_files(512);
    db_options.set_keep_log_file_num(3);
    db_options.set_max_total_wal_size(256 << 20);
    if options.background_at_lowest_priority {
        let mut env = Env::new()?;
        env.lower_thread_pool_cpu_priority();
        env.lower_high_priority_thread_pool_cpu_priority();
        db_options.set_env(&env);
    }
    if options.total_write_buffer_bytes > 0 {
        db_options.set_db_write_buffer_size(options.total_write_buffer_bytes);
    }
    // Counters for the block cache's hit rate (`Store::cache_stats`); their cost is a few
    // atomic increments per block read.
    db_options.enable_statistics();
    let descriptors = || {
        Table::ALL.iter().map(|&t| {
            ColumnFamilyDescriptor::new(t.name(), table_options(t, options, &cache, PinLevel0::Yes))
        })
    };
    if !options.read_only {
        return Ok(DB::open_cf_descriptors(&db_options, path, descriptors())?);
    }
    // Every table file opened at once and kept open: a server running on the same store may
    // compact it meanwhile, and a file it deletes stays readable through an open descriptor,
    // so a read-only reader (`lodestone dump` beside `serve`) keeps the consistent view it
    // opened. A compaction can still delete a file between the open's reading of the
    // manifest and its opening of the file: the open is then tried again, on the newer
    // manifest.
    db_options.set_max_open_files(-1);
    let mut attempts = 0;
    loop {
        match DB::open_cf_descriptors_read_only(&db_options, path, descriptors(), false) {
            Err(error)
                if attempts < READ_ONLY_OPEN_ATTEMPTS
                    && error.to_string().contains("No such file or directory") =>
            {
                attempts += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            opened => return Ok(opened?),
        }
    }
}

/// How many times a read-only open is tried again when a file the manifest names was deleted
/// meanwhile (by a server's compaction).
const READ_ONLY_OPEN_ATTEMPTS: usize = 20;
