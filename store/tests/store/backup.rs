//! Backups: `Store::backup` writes a folder that opens as a store with the same content,
//! counters and change log, and that is independent of the original afterwards.

use crate::oracle::{check_store, Model};
use crate::support::{bulk_loaded_music, counts, dump, music, open, transaction_load, TempStore};
use lodestone_store::load::RdfFormat;

#[test]
fn backup_opens_as_a_store_with_the_same_content() {
    let store = bulk_loaded_music(400);
    let trig = "<http://example.com/g> { _:a <http://example.com/p> _:b . }\n";
    transaction_load(&store, &[("graph.trig", trig.as_bytes(), RdfFormat::TriG)]);
    let target = store.scratch().join("backup");
    store.backup(&target).expect("backup");

    // The original moves on; the backup does not follow.
    let (content, totals, log) = (
        dump(&store),
        counts(&store),
        store.changes_since(0, 100).expect("log"),
    );
    transaction_load(
        &store,
        &[("more.nt", music(500).as_bytes(), RdfFormat::NTriples)],
    );

    let copy = open(&target);
    assert_eq!(dump(&copy), content);
    assert_eq!(counts(&copy), totals);
    assert_eq!(copy.sequence(), log.last().expect("entries").sequence);
    assert_eq!(copy.changes_since(0, 100).expect("log"), log);
    check_store(&copy, &Model::from_dataset(&content), &[]);
    // The copy is a working store: it takes writes of its own.
    transaction_load(&copy, &[("graph.trig", trig.as_bytes(), RdfFormat::TriG)]);
    assert_eq!(
        dump(&copy).len(),
        content.len() + 1,
        "a fresh blank node, not a reused one"
    );
}

#[test]
fn backup_refuses_an_existing_target() {
    let store = TempStore::new();
    let target = store.scratch().join("taken");
    std::fs::create_dir(&target).expect("folder");
    std::fs::write(target.join("keep.txt"), "keep").expect("file");
    assert!(store.backup(&target).is_err());
    assert_eq!(
        std::fs::read_to_string(target.join("keep.txt")).expect("file"),
        "keep"
    );
}
