//! Compact graphs: small named graphs are kept in `gspo` only, and get their `gpos` and `gosp`
//! entries when they grow past the limit (three quads in these tests, see `support::options`).
//! The model tests check every pattern over graphs of both layouts; this checks the entries.

use crate::model::{apply, Op};
use crate::oracle::{check_store, Model};
use crate::support::{bulk_load, write_input, TempStore};
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
