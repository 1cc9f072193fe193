//! Point look-ups on a store whose files outgrow a block cache shard.

use crate::support::{bulk_load, write_input};
use lodestone_store::{Store, StoreOptions};
use oxrdf::NamedNode;
use std::fmt::Write;

/// RocksDB splits a block cache of a few MB into shards of 512 KB. 300,000 subjects with a literal
/// each put 600,000 terms in one dictionary file, whose whole-file filter (10 bits a key)
/// would be about 730 KB: more than a shard holds, so the cache could not keep it and every
/// look-up read it again. With partitioned filters a repeated look-up is served from the
/// cache.
#[test]
fn repeated_lookups_are_served_from_the_block_cache() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let options = StoreOptions::default().with_memory_budget(8 << 20);
    let store = Store::open(dir.path().join("store"), options).expect("open");
    assert!(store.cache_stats().expect("stats").capacity_bytes <= 8 << 20);
    let mut document = String::new();
    for i in 0..300_000 {
        let _ = writeln!(
            document,
            "<http://example.org/e{i}> <http://example.org/p> \"v{i}\" ."
        );
    }
    bulk_load(
        &store,
        &[write_input(dir.path(), "many.nt", document.as_bytes())],
    );

    let reader = store.reader();
    let term = NamedNode::new_unchecked("http://example.org/e123456");
    let look_up = || reader.term_id(term.as_ref().into()).expect("look-up");
    assert!(look_up().is_some());
    let before = store.cache_stats().expect("stats").misses;
    for _ in 0..100 {
        assert!(look_up().is_some());
    }
    let misses = store.cache_stats().expect("stats").misses - before;
    assert!(
        misses < 10,
        "{misses} block cache misses in 100 look-ups of one term"
    );
}
