//! Every IRI found by a prefix of its text or of its local name, as a range scan: subjects,
//! predicates, objects and graph names; after transactions, after a bulk load, after the
//! upgrade of a store written before the index existed.

use crate::support::{
    bulk_load, dump, read_only_options, transaction_load, write_input, TempStore,
};
use lodestone_store::load::RdfFormat;
use lodestone_store::{Store, StoreError, FORMAT_VERSION};
use oxrdf::{GraphName, NamedNode, Quad};
use std::path::Path;

/// A predicate, a class, an IRI used only as an object, one used only as a graph name, and
/// one longer than the dictionary's direct keys.
const DATA: &str = "\
<http://e.org/id/athens> <http://www.w3.org/2004/02/skos/core#prefLabel> \"Athens\" <http://e.org/graph/mints> .
<http://e.org/id/athens> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e.org/ontology#Mint> <http://e.org/graph/mints> .
<http://e.org/id/athens> <http://www.w3.org/2004/02/skos/core#exactMatch> <http://dbpedia.org/resource/Ath> <http://e.org/graph/mints> .
<http://e.org/id/athena> <http://e.org/ontology#long/long/long/long/long/long/long/long/long/long/depicts> <http://e.org/id/athens> .
";

fn starting_with(store: &Store, start: &str) -> Vec<String> {
    store
        .reader()
        .iris_starting_with(start, usize::MAX)
        .expect("IRI scan")
        .into_iter()
        .map(|(_, iri)| iri.into_string())
        .collect()
}

fn by_local_name(store: &Store, start: &str) -> Vec<String> {
    store
        .reader()
        .iris_with_local_name_starting(start, usize::MAX)
        .expect("local name scan")
        .into_iter()
        .map(|(_, iri)| iri.into_string())
        .collect()
}

fn assert_found(store: &Store) {
    assert_eq!(
        starting_with(store, "http://www.w3.org/2004/02/skos/core#pref"),
        ["http://www.w3.org/2004/02/skos/core#prefLabel"]
    );
    assert_eq!(
        starting_with(store, "http://dbpedia.org/resource/Ath"),
        ["http://dbpedia.org/resource/Ath"]
    );
    assert_eq!(
        starting_with(store, "http://e.org/graph/"),
        ["http://e.org/graph/mints"]
    );
    assert_eq!(
        starting_with(store, "http://e.org/id/athen"),
        ["http://e.org/id/athena", "http://e.org/id/athens"]
    );
    assert_eq!(starting_with(store, "http://e.org/ontology#").len(), 2);
    assert!(
        starting_with(store, "Athens").is_empty(),
        "literals are not IRIs"
    );
    assert_eq!(
        by_local_name(store, "PREFL"),
        ["http://www.w3.org/2004/02/skos/core#prefLabel"]
    );
    assert_eq!(
        by_local_name(store, "ath"),
        [
            "http://dbpedia.org/resource/Ath",
            "http://e.org/id/athena",
            "http://e.org/id/athens"
        ]
    );
    assert_eq!(
        by_local_name(store, "depicts"),
        ["http://e.org/ontology#long/long/long/long/long/long/long/long/long/long/depicts"]
    );
    assert_eq!(
        store
            .reader()
            .iris_starting_with("http://", 2)
            .expect("scan")
            .len(),
        2,
        "a limit bounds the scan"
    );
}

#[test]
fn transactions_index_every_iri_and_drop_reclaimed_ones() {
    let store = TempStore::new();
    transaction_load(&store, &[("data.nq", DATA.as_bytes(), RdfFormat::NQuads)]);
    assert_found(&store);
    let mut transaction = store.transaction().expect("transaction");
    let removed = Quad::new(
        NamedNode::new_unchecked("http://e.org/id/athens"),
        NamedNode::new_unchecked("http://www.w3.org/2004/02/skos/core#exactMatch"),
        NamedNode::new_unchecked("http://dbpedia.org/resource/Ath"),
        GraphName::NamedNode(NamedNode::new_unchecked("http://e.org/graph/mints")),
    );
    assert!(transaction.remove(removed.as_ref()).expect("remove"));
    transaction.commit().expect("commit");
    assert!(starting_with(&store, "http://dbpedia.org/").is_empty());
    assert!(starting_with(&store, "http://www.w3.org/2004/02/skos/core#exact").is_empty());
    assert_eq!(by_local_name(&store, "ath").len(), 2);
}

fn bulk_loaded() -> TempStore {
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(store.scratch(), "data.nq", DATA.as_bytes())],
    );
    store
}

#[test]
fn bulk_loads_index_every_iri() {
    assert_found(&bulk_loaded());
}

/// Turns a closed store back into format 3: no `iri_index` table, version 3.
fn make_format_3(path: &Path) {
    let families = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).expect("families");
    let mut db =
        rocksdb::DB::open_cf(&rocksdb::Options::default(), path, &families).expect("raw open");
    db.drop_cf("iri_index").expect("drop the table");
    let meta = db.cf_handle("meta").expect("meta table");
    db.put_cf(meta, b"version", 3u64.to_le_bytes())
        .expect("put");
}

#[test]
fn a_format_3_store_gains_the_iri_index_on_a_read_write_open() {
    let store = bulk_loaded();
    let before = dump(&store);
    let path = store.path();
    let dir = store.close();
    make_format_3(&path);
    match Store::open(&path, read_only_options()) {
        Err(
            error @ StoreError::VersionMismatch {
                found, expected, ..
            },
        ) => {
            assert_eq!((found, expected), (3, FORMAT_VERSION));
            // It says what to do.
            assert!(
                error.to_string().contains("upgrades it in place"),
                "{error}"
            );
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a read-only open of a store without the IRI index"),
    }
    let store = TempStore::from_parts(dir);
    assert_eq!(dump(&store), before);
    assert_found(&store);
    let dir = store.close();
    let upgraded = Store::open(&path, read_only_options()).expect("read-only open after upgrade");
    assert_found(&upgraded);
    drop(upgraded);
    drop(dir);
}
