//! Compact graphs: small named graphs are kept in `gspo` only, and get their `gpos` and `gosp`
//! entries when they grow past the limit (three quads in these tests, see `support::options`).
//! The model tests check every pattern over graphs of both layouts; this checks the entries.

use crate::model::{apply, Op};
use crate::oracle::{check_store, Model};
use crate::support::{bulk_load, with_raw_meta, write_input, TempStore};
use lodestone_store::Store;
use oxrdf::{GraphName, Literal, NamedNode, Quad};

fn quad(s: &str, o: i64, g: &str) -> Quad {
    let iri = |name: &str| NamedNode::new_unchecked(format!("http://example.com/{name}"));
    Quad::new(iri(s), iri("p"), Literal::from(o), GraphName::from(iri(g)))
}

/// Entries of an index after a full compaction (exact: no deletions are left).
fn entries(store: &Store, index: &str) -> u64 {
    store.compact().expect("compact");
    let usage = store.index_usage().expect("usage");
    usage
        .iter()
        .find(|u| u.name == index)
        .map(|u| u.estimated_keys)
        .expect("index")
}

fn commit(store: &TempStore, model: &mut Model, ops: &[Op]) {
    let mut transaction = store.transaction().expect("transaction");
    for op in ops {
        apply(&mut transaction, model, op);
    }
    transaction.commit().expect("commit");
    check_store(store, model, &[quad("a", 1, "small")]);
}

#[test]
fn small_graphs_are_in_gspo_only_until_they_grow() {
    let store = TempStore::new();
    let mut model = Model::default();
    let small: Vec<Op> = (0..3).map(|i| Op::Insert(quad("a", i, "small"))).collect();
    let large: Vec<Op> = (0..5).map(|i| Op::Insert(quad("b", i, "large"))).collect();
    commit(&store, &mut model, &[small, large].concat());
    assert_eq!(entries(&store, "gspo"), 8);
    assert_eq!(entries(&store, "gpos"), 5);
    assert_eq!(entries(&store, "gosp"), 5);

    // Growing past the limit gives every quad of the graph its entries.
    commit(&store, &mut model, &[Op::Insert(quad("a", 3, "small"))]);
    assert_eq!(entries(&store, "gpos"), 9);
    assert_eq!(entries(&store, "gosp"), 9);

    // An indexed graph stays indexed when it shrinks again.
    commit(
        &store,
        &mut model,
        &[Op::Clear(quad("a", 0, "small").graph_name)],
    );
    commit(&store, &mut model, &[Op::Insert(quad("a", 0, "small"))]);
    assert_eq!(entries(&store, "gpos"), 6);

    let store = store.reopen();
    check_store(&store, &model, &[]);
}

#[test]
fn a_bulk_load_into_a_compact_graph_indexes_it() {
    let store = TempStore::new();
    let mut model = Model::default();
    commit(&store, &mut model, &[Op::Insert(quad("a", 0, "small"))]);
    assert_eq!(entries(&store, "gpos"), 0);

    let more = "<http://example.com/a> <http://example.com/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.com/small> .\n";
    let input = write_input(store.scratch(), "more.nq", more.as_bytes());
    bulk_load(&store, &[input]);
    model.insert(&quad("a", 1, "small"));
    check_store(&store, &model, &[]);
    assert_eq!(entries(&store, "gpos"), 2);
    assert_eq!(entries(&store, "gosp"), 2);
}

fn default_graph_quad(s: &str, o: i64) -> Quad {
    Quad {
        graph_name: GraphName::DefaultGraph,
        ..quad(s, o, "unused")
    }
}

#[test]
fn the_default_graph_is_in_the_union_orders_only() {
    let store = TempStore::new();
    let mut model = Model::default();
    let defaults: Vec<Op> = (0..4)
        .map(|i| Op::Insert(default_graph_quad("d", i)))
        .collect();
    let named: Vec<Op> = (0..5).map(|i| Op::Insert(quad("b", i, "large"))).collect();
    commit(&store, &mut model, &[defaults, named].concat());
    for index in ["spog", "posg", "ospg"] {
        assert_eq!(entries(&store, index), 9, "{index}");
    }
    for index in ["gspo", "gpos", "gosp"] {
        assert_eq!(entries(&store, index), 5, "{index}");
    }

    // The bulk loader writes the same entries.
    let more = "<http://example.com/e> <http://example.com/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
                <http://example.com/e> <http://example.com/p> \"2\"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.com/large> .\n";
    let input = write_input(store.scratch(), "more.nq", more.as_bytes());
    bulk_load(&store, &[input]);
    model.insert(&default_graph_quad("e", 1));
    model.insert(&quad("e", 2, "large"));
    check_store(&store, &model, &[]);
    assert_eq!(entries(&store, "spog"), 11);
    assert_eq!(entries(&store, "gspo"), 6);

    // Clearing the default graph leaves the named graphs' quads.
    commit(&store, &mut model, &[Op::Clear(GraphName::DefaultGraph)]);
    assert_eq!(entries(&store, "spog"), 6);
    assert_eq!(entries(&store, "gspo"), 6);
    let store = store.reopen();
    check_store(&store, &model, &[]);
}

#[test]
fn opening_a_format_6_store_drops_the_default_graph_from_the_graph_first_orders() {
    let store = TempStore::new();
    let mut model = Model::default();
    let defaults: Vec<Op> = (0..4)
        .map(|i| Op::Insert(default_graph_quad("d", i)))
        .collect();
    commit(
        &store,
        &mut model,
        &[defaults, vec![Op::Insert(quad("b", 0, "g"))]].concat(),
    );
    let path = store.path();
    let dir = store.close();
    // Format 6 kept the default graph's quads in the graph-first orders as well: rebuild those
    // entries from `spog` (keys of four 8-byte ids; the default graph's id is 0).
    with_raw_meta(&path, |db, meta| {
        let spog = db.cf_handle("spog").expect("spog");
        let keys: Vec<Vec<u8>> = db
            .iterator_cf(spog, rocksdb::IteratorMode::Start)
            .map(|entry| entry.expect("entry").0.to_vec())
            .filter(|key| key[24..32] == [0; 8])
            .collect();
        assert_eq!(keys.len(), 4);
        for (index, order) in [
            ("gspo", [0, 1, 2]),
            ("gpos", [1, 2, 0]),
            ("gosp", [2, 0, 1]),
        ] {
            let cf = db.cf_handle(index).expect("index");
            for key in &keys {
                let mut entry = vec![0; 8];
                for id in order {
                    entry.extend_from_slice(&key[id * 8..id * 8 + 8]);
                }
                db.put_cf(cf, entry, []).expect("put");
            }
        }
        db.put_cf(meta, b"version", 6_u64.to_le_bytes())
            .expect("put");
    });
    let store = TempStore::from_parts(dir);
    // The named graph is compact (one quad): in `gspo` only.
    for (index, count) in [("gspo", 1), ("gpos", 0), ("gosp", 0), ("spog", 5)] {
        assert_eq!(entries(&store, index), count, "{index}");
    }
    check_store(&store, &model, &[]);
    let dir = store.close();
    let version = with_raw_meta(&dir.path().join("store"), |db, meta| {
        db.get_cf(meta, b"version").expect("get")
    });
    assert_eq!(
        version,
        Some(lodestone_store::FORMAT_VERSION.to_le_bytes().to_vec())
    );
}
