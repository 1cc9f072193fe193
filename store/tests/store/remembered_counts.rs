//! Store totals remembered for a commit (`Store::remember_counts`): read back after the store
//! is opened again instead of counted, and never for another commit.

use crate::support::{counts, transaction_load, TempStore};
use lodestone_store::load::RdfFormat;

fn insert(store: &TempStore, name: &str, n_triples: &str) {
    transaction_load(store, &[(name, n_triples.as_bytes(), RdfFormat::NTriples)]);
}

#[test]
fn remembered_counts_come_back_after_a_reopen_until_the_next_commit() {
    let store = TempStore::new();
    insert(
        &store,
        "first.nt",
        "<http://e/a> <http://e/p> <http://e/b> .\n<http://e/b> <http://e/p> \"x\" .\n",
    );
    assert_eq!(store.reader().remembered_counts().expect("read"), None);
    let counted = counts(&store);
    assert!(store.remember_counts(&counted).expect("remember"));
    let store = store.reopen();
    assert_eq!(
        store.reader().remembered_counts().expect("read"),
        Some(counted)
    );

    insert(
        &store,
        "second.nt",
        "<http://e/c> <http://e/q> <http://e/a> .\n",
    );
    assert_eq!(store.reader().remembered_counts().expect("read"), None);
    // The counts of an older commit are not kept for the new one.
    assert!(!store.remember_counts(&counted).expect("remember"));
    assert_eq!(store.reader().remembered_counts().expect("read"), None);
    let recounted = counts(&store);
    assert_eq!(recounted.subjects, counted.subjects + 1);
    assert_eq!(recounted.dictionary_terms, counted.dictionary_terms + 2);
    assert!(store.remember_counts(&recounted).expect("remember"));
    assert_eq!(
        store.reader().remembered_counts().expect("read"),
        Some(recounted)
    );
}

/// A reader keeps its snapshot: counts remembered after it began are not its to read, and
/// remembering them is no commit (the sequence and the quad count stay).
#[test]
fn remembering_counts_is_no_commit() {
    let store = TempStore::new();
    insert(
        &store,
        "one.nt",
        "<http://e/a> <http://e/p> <http://e/b> .\n",
    );
    let before = store.reader();
    let counted = counts(&store);
    assert!(store.remember_counts(&counted).expect("remember"));
    assert_eq!(before.remembered_counts().expect("read"), None);
    let after = store.reader();
    assert_eq!(after.sequence().expect("sequence"), counted.sequence);
    assert_eq!(after.quad_count().expect("quads"), 1);
    assert_eq!(after.remembered_counts().expect("read"), Some(counted));
}
