//! Issue 25: the entity rank over a bulk-loaded store, and the upgrade of a store of format 4
//! (without the `entity_rank` and `prefixes` tables).

use crate::support::{bulk_load, dump, read_only_options, write_input, TempStore};
use lodestone_store::load::BulkLoader;
use lodestone_store::{Store, StoreError, TermId, FORMAT_VERSION};
use oxrdf::NamedNodeRef;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// Three works cite the hub; the hub cites a source; a literal statement links nothing.
const DATA: &str = "\
<http://e.org/w1> <http://e.org/cites> <http://e.org/hub> .
<http://e.org/w2> <http://e.org/cites> <http://e.org/hub> <http://e.org/g1> .
<http://e.org/w2> <http://e.org/cites> <http://e.org/hub> <http://e.org/g2> .
<http://e.org/w3> <http://e.org/cites> <http://e.org/hub> .
<http://e.org/hub> <http://e.org/cites> <http://e.org/source> .
<http://e.org/lone> <http://e.org/name> \"lone\" .
";

fn rank(store: &Store, iri: &str) -> f64 {
    let reader = store.reader();
    let id: TermId = reader
        .term_id(NamedNodeRef::new_unchecked(iri).into())
        .expect("read")
        .expect("a term of the store");
    reader.entity_ranks(&[id]).expect("ranks")[0]
}

fn loaded() -> TempStore {
    let store = TempStore::new();
    let input = write_input(store.scratch(), "data.nq", DATA.as_bytes());
    bulk_load(&store, &[input]);
    store
}

#[test]
fn links_rank_entities_and_the_scores_average_one() {
    let store = loaded();
    assert_eq!(store.entity_rank_state().expect("state").sequence, None);
    let report = store
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank")
        .expect("not stopped");
    // The link w2 → hub in two graphs is one link.
    assert_eq!((report.entities, report.links), (5, 4));
    let state = store.entity_rank_state().expect("state");
    assert_eq!(state.sequence, Some(store.sequence()));
    let (w1, hub, source) = (
        rank(&store, "http://e.org/w1"),
        rank(&store, "http://e.org/hub"),
        rank(&store, "http://e.org/source"),
    );
    assert!(hub > 2.0 * w1 && source > hub, "{w1} {hub} {source}");
    assert_eq!(rank(&store, "http://e.org/lone"), 0.0);
    let total: f64 = ["w1", "w2", "w3", "hub", "source"]
        .iter()
        .map(|n| rank(&store, &format!("http://e.org/{n}")))
        .sum();
    assert!((total - 5.0).abs() < 1e-9, "{total}");
    // The first scores went in as a file the table took, leaving nothing in the folder.
    let leftovers: Vec<_> = std::fs::read_dir(store.path())
        .expect("store folder")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("load-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A second computation writes over them entry by entry: the same scores.
    let again = store
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank")
        .expect("not stopped");
    assert_eq!((again.entities, again.marked), (5, 0));
    assert_eq!(rank(&store, "http://e.org/hub"), hub);
    // A stop set beforehand stores nothing new.
    assert!(store
        .compute_entity_rank(&AtomicBool::new(true))
        .expect("rank")
        .is_none());
}

/// Links among a few hundred IRIs, with literals and blank nodes between them, in N-Triples.
fn web_of_links() -> String {
    let mut text = String::new();
    let mut x = 7_u64;
    for s in 0..300_u64 {
        for _ in 0..(s % 4) {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let o = (x >> 33) % 400;
            text.push_str(&format!(
                "<http://e.org/n{s}> <http://e.org/cites> <http://e.org/n{o}> .\n"
            ));
        }
        text.push_str(&format!(
            "<http://e.org/n{s}> <http://e.org/name> \"n{s}\" .\n"
        ));
        text.push_str(&format!(
            "_:b{s} <http://e.org/about> <http://e.org/n{s}> .\n"
        ));
    }
    text
}

#[test]
fn a_load_ranks_from_the_links_its_distinct_recount_read_as_a_scan_of_its_own_would() {
    let text = web_of_links();
    let stores = [TempStore::new(), TempStore::new()];
    let inputs: Vec<_> = stores
        .iter()
        .map(|store| write_input(store.scratch(), "web.nt", text.as_bytes()))
        .collect();
    // In several chunks, so that the merged store is what the recount reads.
    let ranked = BulkLoader::new(&stores[0])
        .with_chunk_quads(200)
        .with_entity_rank(true)
        .load(&inputs[..1])
        .expect("load")
        .rank
        .expect("a rank");
    assert!(
        ranked.links_shared,
        "an empty store's load recounts its distinct pairs"
    );
    let plain = BulkLoader::new(&stores[1])
        .with_chunk_quads(200)
        .load(&inputs[1..])
        .expect("load");
    assert!(plain.rank.is_none());
    let own_scan = stores[1]
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank")
        .expect("not stopped");
    assert_eq!(
        (
            ranked.quads,
            ranked.links,
            ranked.entities,
            ranked.iterations,
            ranked.marked
        ),
        (
            own_scan.quads,
            own_scan.links,
            own_scan.entities,
            own_scan.iterations,
            own_scan.marked
        )
    );
    assert!(ranked.links > 300, "{}", ranked.links);
    assert_eq!(ranked.sequence, own_scan.sequence);
    let state = stores[0].entity_rank_state().expect("state");
    assert_eq!(state.sequence, Some(stores[0].sequence()));
    // Every subject has a name, so is a term of both stores.
    for n in 0..300 {
        let iri = format!("http://e.org/n{n}");
        assert_eq!(rank(&stores[0], &iri), rank(&stores[1], &iri), "{iri}");
    }
    // A small load into a store with quads moves the distinct counts instead of recounting
    // them: the rank reads its links itself, and sees the new ones.
    let more = write_input(
        stores[0].scratch(),
        "more.nt",
        b"<http://e.org/new> <http://e.org/cites> <http://e.org/n1> .\n",
    );
    let again = BulkLoader::new(&stores[0])
        .with_entity_rank(true)
        .load(&[more])
        .expect("load")
        .rank
        .expect("a rank");
    assert!(!again.links_shared);
    assert_eq!(again.links, ranked.links + 1);
    let state = stores[0].entity_rank_state().expect("state");
    assert_eq!(state.sequence, Some(stores[0].sequence()));
}

/// Turns a closed store back into format 4: no `entity_rank` or `prefixes` table, version 4.
fn make_format_4(path: &Path) {
    let families = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).expect("families");
    let mut db =
        rocksdb::DB::open_cf(&rocksdb::Options::default(), path, &families).expect("raw open");
    db.drop_cf("entity_rank").expect("drop the table");
    db.drop_cf("prefixes").expect("drop the table");
    let meta = db.cf_handle("meta").expect("meta table");
    db.put_cf(meta, b"version", 4u64.to_le_bytes())
        .expect("put");
}

#[test]
fn a_format_4_store_gains_the_rank_tables_on_a_read_write_open() {
    let store = loaded();
    let before = dump(&store);
    let path = store.path();
    let dir = store.close();
    make_format_4(&path);
    match Store::open(&path, read_only_options()) {
        Err(StoreError::VersionMismatch {
            found, expected, ..
        }) => assert_eq!((found, expected), (4, FORMAT_VERSION)),
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a read-only open of a store without the rank tables"),
    }
    let store = TempStore::from_parts(dir);
    assert_eq!(dump(&store), before);
    assert_eq!(store.entity_rank_state().expect("state").sequence, None);
    store
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank");
    assert!(rank(&store, "http://e.org/hub") > 0.0);
    let declared = [("e".to_owned(), "http://e.org/".to_owned())];
    assert_eq!(store.record_prefixes(&declared).expect("record"), 1);
    let dir = store.close();
    let upgraded = Store::open(&path, read_only_options()).expect("read-only open after upgrade");
    assert_eq!(upgraded.declared_prefixes().expect("prefixes"), declared);
    drop(upgraded);
    drop(dir);
}

/// The subjects the change log holds after `after`.
fn marked_since(store: &Store, after: u64) -> Vec<TermId> {
    store
        .changes_since(after, usize::MAX)
        .expect("changes")
        .into_iter()
        .flat_map(|batch| batch.subjects)
        .collect()
}

/// Issue 25: a rank refresh marks for re-indexing only the entities whose score moved by more
/// than the rankings tell apart — every linked entity the first time, a handful after one new
/// link among a thousand entities.
#[test]
fn a_refresh_marks_only_the_entities_whose_rank_moved() {
    const N: usize = 1_000;
    let store = TempStore::new();
    let mut data = String::new();
    for i in 0..N {
        for target in [(i * 7 + 1) % N, (i * 13 + 5) % N] {
            data.push_str(&format!(
                "<http://e.org/n{i}> <http://e.org/cites> <http://e.org/n{target}> .\n"
            ));
        }
    }
    let input = write_input(store.scratch(), "ring.nt", data.as_bytes());
    bulk_load(&store, &[input]);
    let loaded = store.sequence();
    let first = store
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank")
        .expect("not stopped");
    assert_eq!(first.entities, N as u64);
    assert_eq!(
        marked_since(&store, loaded).len(),
        N,
        "the first rank marks all"
    );
    assert_eq!(first.marked, N as u64);
    assert_eq!(
        store.entity_rank_state().expect("state").sequence,
        Some(store.sequence()),
        "the marks do not count as changes towards the next refresh"
    );

    let ranked = store.sequence();
    let mut transaction = store.transaction().expect("transaction");
    let quad = oxrdf::Quad::new(
        NamedNodeRef::new_unchecked("http://e.org/n0"),
        NamedNodeRef::new_unchecked("http://e.org/cites"),
        NamedNodeRef::new_unchecked("http://e.org/n500"),
        oxrdf::GraphName::DefaultGraph,
    );
    transaction.insert(quad.as_ref()).expect("insert");
    let committed = transaction.commit().expect("commit");
    assert_eq!(committed, ranked + 1);
    let second = store
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank")
        .expect("not stopped");
    let marked = marked_since(&store, committed);
    assert_eq!(marked.len() as u64, second.marked);
    let n500 = store
        .reader()
        .term_id(NamedNodeRef::new_unchecked("http://e.org/n500").into())
        .expect("read")
        .expect("a term");
    assert!(
        marked.contains(&n500),
        "the new link's target moved: {marked:?}"
    );
    assert!(
        marked.len() <= 10,
        "one new link re-indexes a handful, not {} of {N}",
        marked.len()
    );
    // Nothing changed since: a third refresh marks nothing.
    let third = store
        .compute_entity_rank(&AtomicBool::new(false))
        .expect("rank")
        .expect("not stopped");
    assert_eq!(third.marked, 0);
}
