//! Hash IRIs found by their document: after transactions, after a bulk load, after the
//! upgrade of a store written before the table existed.

use crate::support::{
    bulk_load, dump, read_only_options, transaction_load, write_input, TempStore,
};
use lodestone_store::load::RdfFormat;
use lodestone_store::{Store, StoreError, FORMAT_VERSION};
use oxrdf::{GraphName, Literal, NamedNode, Quad};
use std::path::Path;

/// Two documents, one of them with an IRI long enough to be keyed by hash in the dictionary,
/// and an IRI that only starts like a document.
const DATA: &str = "\
<http://e.org/v#a> <http://e.org/p> <http://e.org/v#b> .
<http://e.org/v#b> <http://e.org/p> \"x#y\" .
<http://e.org/v/more#c> <http://e.org/p> <http://e.org/vx#d> .
<http://e.org/long/long/long/long/long/long/long/long/long/long/long/long#e> <http://e.org/p> <http://e.org/v#a> .
";

fn hash_iris(store: &Store, document: &str) -> Vec<String> {
    store
        .reader()
        .hash_iris(document, usize::MAX)
        .expect("hash IRIs")
        .into_iter()
        .map(|(_, iri)| iri.into_string())
        .collect()
}

fn assert_documents(store: &Store) {
    assert_eq!(
        hash_iris(store, "http://e.org/v"),
        ["http://e.org/v#a", "http://e.org/v#b"]
    );
    assert_eq!(
        hash_iris(store, "http://e.org/v/more"),
        ["http://e.org/v/more#c"]
    );
    assert_eq!(hash_iris(store, "http://e.org/vx"), ["http://e.org/vx#d"]);
    assert_eq!(
        hash_iris(
            store,
            "http://e.org/long/long/long/long/long/long/long/long/long/long/long/long"
        )
        .len(),
        1
    );
    assert!(hash_iris(store, "http://e.org/p").is_empty());
    assert!(hash_iris(store, "http://e.org/nothing").is_empty());
}

#[test]
fn transactions_keep_hash_iris_and_drop_reclaimed_ones() {
    let store = TempStore::new();
    transaction_load(&store, &[("data.nt", DATA.as_bytes(), RdfFormat::NTriples)]);
    assert_documents(&store);
    // Removing every use of `#b` reclaims it, and its entry with it.
    let b = || NamedNode::new_unchecked("http://e.org/v#b");
    let p = NamedNode::new_unchecked("http://e.org/p");
    let mut transaction = store.transaction().expect("transaction");
    for quad in [
        Quad::new(
            NamedNode::new_unchecked("http://e.org/v#a"),
            p.clone(),
            b(),
            GraphName::DefaultGraph,
        ),
        Quad::new(
            b(),
            p.clone(),
            Literal::new_simple_literal("x#y"),
            GraphName::DefaultGraph,
        ),
    ] {
        assert!(transaction.remove(quad.as_ref()).expect("remove"));
    }
    transaction.commit().expect("commit");
    assert_eq!(hash_iris(&store, "http://e.org/v"), ["http://e.org/v#a"]);
    // A limit keeps the first ones.
    let reader = store.reader();
    assert_eq!(
        reader.hash_iris("http://e.org/v", 0).expect("read").len(),
        0
    );
}

/// A store holding `DATA`, bulk loaded.
fn bulk_loaded() -> TempStore {
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(store.scratch(), "data.nt", DATA.as_bytes())],
    );
    store
}

#[test]
fn bulk_loads_index_hash_iris() {
    assert_documents(&bulk_loaded());
}

/// Turns a closed store back into format 1: no `hash_iris` table, version 1.
fn make_format_1(path: &Path) {
    let families = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).expect("families");
    let mut db =
        rocksdb::DB::open_cf(&rocksdb::Options::default(), path, &families).expect("raw open");
    db.drop_cf("hash_iris").expect("drop the table");
    let meta = db.cf_handle("meta").expect("meta table");
    db.put_cf(meta, b"version", 1u64.to_le_bytes())
        .expect("put");
}

#[test]
fn a_format_1_store_is_upgraded_by_a_read_write_open() {
    let store = bulk_loaded();
    let before = dump(&store);
    let path = store.path();
    let dir = store.close();
    make_format_1(&path);
    let read_only = read_only_options();
    match Store::open(&path, read_only.clone()) {
        Err(StoreError::VersionMismatch {
            found, expected, ..
        }) => assert_eq!((found, expected), (1, FORMAT_VERSION)),
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a read-only open of a format 1 store"),
    }
    let store = TempStore::from_parts(dir);
    assert_eq!(dump(&store), before);
    assert_documents(&store);
    let dir = store.close();
    let upgraded = Store::open(&path, read_only).expect("read-only open after the upgrade");
    assert_documents(&upgraded);
    drop(upgraded);
    drop(dir);
}
