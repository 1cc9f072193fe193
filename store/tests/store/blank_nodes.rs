//! Blank node scoping: a label names one node within one document (or update request) and
//! different nodes in different documents, loads and transactions; blank nodes the store
//! mints never coincide with one already stored.

use crate::support::{bulk_load, dump, transaction_load, with_raw_meta, write_input, TempStore};
use lodestone_store::load::{BulkLoader, RdfFormat};
use oxrdf::{BlankNode, Dataset, Literal, NamedNode, NamedOrBlankNode, NamedOrBlankNodeRef, Quad};
use std::collections::HashSet;

/// The subject of the quad whose object is the literal `value`.
fn subject_of(dataset: &Dataset, value: &str) -> NamedOrBlankNode {
    let object = Literal::new_simple_literal(value);
    let subjects: Vec<_> = dataset
        .iter()
        .filter(|q| q.object == object.as_ref().into())
        .map(|q| q.subject.into_owned())
        .collect();
    assert_eq!(subjects.len(), 1, "one quad with object {value:?}");
    subjects[0].clone()
}

fn distinct_subjects(dataset: &Dataset) -> usize {
    dataset
        .iter()
        .map(|q| q.subject.into_owned())
        .collect::<HashSet<_>>()
        .len()
}

const FILE_A: &str = "_:b1 <http://example.com/p> \"a1\" .\n_:b1 <http://example.com/p> \"a2\" .\n";
const FILE_B: &str = "_:b1 <http://example.com/p> \"b1\" .\n";

#[test]
fn same_label_in_two_files_of_one_bulk_load_is_two_nodes() {
    let store = TempStore::new();
    let a = write_input(store.scratch(), "a.nt", FILE_A.as_bytes());
    let b = write_input(store.scratch(), "b.nt", FILE_B.as_bytes());
    bulk_load(&store, &[a, b]);
    let dumped = dump(&store);
    assert_eq!(
        subject_of(&dumped, "a1"),
        subject_of(&dumped, "a2"),
        "one node within a file"
    );
    assert_ne!(
        subject_of(&dumped, "a1"),
        subject_of(&dumped, "b1"),
        "two nodes across files"
    );
}

#[test]
fn same_label_in_two_bulk_loads_is_two_nodes() {
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(store.scratch(), "a.nt", FILE_A.as_bytes())],
    );
    bulk_load(
        &store,
        &[write_input(store.scratch(), "b.nt", FILE_B.as_bytes())],
    );
    let dumped = dump(&store);
    assert_eq!(subject_of(&dumped, "a1"), subject_of(&dumped, "a2"));
    assert_ne!(subject_of(&dumped, "a1"), subject_of(&dumped, "b1"));
}

#[test]
fn same_label_in_two_documents_of_one_transaction_is_two_nodes() {
    let store = TempStore::new();
    transaction_load(
        &store,
        &[
            ("a.nt", FILE_A.as_bytes(), RdfFormat::NTriples),
            ("b.nt", FILE_B.as_bytes(), RdfFormat::NTriples),
        ],
    );
    let dumped = dump(&store);
    assert_eq!(subject_of(&dumped, "a1"), subject_of(&dumped, "a2"));
    assert_ne!(subject_of(&dumped, "a1"), subject_of(&dumped, "b1"));
}

#[test]
fn same_label_in_two_transactions_or_a_transaction_and_a_load_is_two_nodes() {
    let store = TempStore::new();
    transaction_load(&store, &[("a.nt", FILE_A.as_bytes(), RdfFormat::NTriples)]);
    transaction_load(&store, &[("b.nt", FILE_B.as_bytes(), RdfFormat::NTriples)]);
    let c = "_:b1 <http://example.com/p> \"c1\" .\n";
    bulk_load(
        &store,
        &[write_input(store.scratch(), "c.nt", c.as_bytes())],
    );
    let dumped = dump(&store);
    assert_eq!(subject_of(&dumped, "a1"), subject_of(&dumped, "a2"));
    assert_eq!(distinct_subjects(&dumped), 3, "{dumped}");
}

#[test]
fn same_label_is_one_node_across_the_chunks_of_one_file() {
    // More quads than one parse batch, so that the loader writes several chunks.
    let mut data = String::from("_:shared <http://example.com/p> \"first\" .\n");
    for i in 0..20_000 {
        data.push_str(&format!("_:n{i} <http://example.com/p> \"{i}\" .\n"));
    }
    data.push_str("_:shared <http://example.com/p> \"last\" .\n");
    let store = TempStore::new();
    let input = write_input(store.scratch(), "big.nt", data.as_bytes());
    let report = BulkLoader::new(&store)
        .with_chunk_quads(5_000)
        .load(&[input])
        .expect("load");
    assert_eq!(report.quads_added, 20_002);
    assert!(
        store.sequence() > 1,
        "the load was written in several chunks"
    );
    let dumped = dump(&store);
    assert_eq!(subject_of(&dumped, "first"), subject_of(&dumped, "last"));
    assert_eq!(distinct_subjects(&dumped), 20_001);
}

#[test]
fn minted_blank_nodes_never_reuse_a_label_inserted_directly() {
    // Labels like `a000000000000001` are the store's own blank node names; a node inserted
    // under such a label must not be merged with one the loaders mint later.
    let store = TempStore::new();
    let p = NamedNode::new_unchecked("http://example.com/p");
    let mut transaction = store.transaction().expect("transaction");
    // A new store numbers its blank nodes downward from `afffffffffffffff`, an older one
    // upward from `a000000000000001`: labels from both ends.
    for label in [
        "a000000000000001",
        "a000000000000002",
        "a00000000000000a",
        "a0000000000000b1",
        "afffffffffffffff",
        "affffffffffffffe",
        "afffffffffffff00",
    ] {
        let quad = Quad::new(
            BlankNode::new_unchecked(label),
            p.clone(),
            Literal::new_simple_literal(format!("direct {label}")),
            oxrdf::GraphName::DefaultGraph,
        );
        transaction.insert(quad.as_ref()).expect("insert");
    }
    transaction.commit().expect("commit");
    load_300_blank_subjects_twice(&store);
    assert_eq!(distinct_subjects(&dump(&store)), 7 + 300 + 300);
}

#[test]
fn a_store_created_before_format_3_keeps_numbering_its_blank_nodes_upward() {
    let store = TempStore::new();
    let path = store.path();
    let dir = store.close();
    // A format 2 store: no numbering entry, so its blank nodes count upward.
    with_raw_meta(&path, |db, meta| {
        db.delete_cf(meta, b"blank_numbering").expect("delete");
        db.put_cf(meta, b"version", 2u64.to_le_bytes())
            .expect("put");
    });
    let store = TempStore::from_parts(dir);
    load_300_blank_subjects_twice(&store);
    let dumped = dump(&store);
    assert_eq!(distinct_subjects(&dumped), 600);
    for quad in dumped.iter() {
        let NamedOrBlankNodeRef::BlankNode(blank) = quad.subject else {
            panic!("not a blank node: {quad}");
        };
        assert!(blank.as_str().starts_with("a000000000"), "{blank}");
    }
}

#[test]
fn a_new_store_numbers_its_blank_nodes_downward() {
    let store = TempStore::new();
    let data = "_:x <http://example.com/p> \"x\" .\n_:y <http://example.com/p> \"y\" .\n";
    transaction_load(&store, &[("two.nt", data.as_bytes(), RdfFormat::NTriples)]);
    let dumped = dump(&store);
    let mut labels: Vec<String> = dumped
        .iter()
        .map(|q| match q.subject {
            NamedOrBlankNodeRef::BlankNode(b) => b.as_str().to_owned(),
            other => panic!("not a blank node: {other}"),
        })
        .collect();
    labels.sort();
    assert_eq!(labels, ["affffffffffffffd", "affffffffffffffe"]);
}

/// Loads the same 300 blank-node subjects twice, in bulk and through a transaction: 600 new
/// blank nodes.
fn load_300_blank_subjects_twice(store: &TempStore) {
    let mut data = String::new();
    for i in 0..300 {
        data.push_str(&format!("_:n{i} <http://example.com/p> \"loaded {i}\" .\n"));
    }
    bulk_load(
        store,
        &[write_input(store.scratch(), "bulk.nt", data.as_bytes())],
    );
    transaction_load(
        store,
        &[("trickle.nt", data.as_bytes(), RdfFormat::NTriples)],
    );
}
