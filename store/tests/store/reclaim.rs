//! Space reclamation: replacing the same blank-node-heavy named graph a thousand times must
//! leave neither dictionary entries nor disk space behind.

use crate::support::{counts, TempStore};
use lodestone_store::load::{encode_scoped, parse_into, BlankScope, ParseOptions, RdfFormat};
use lodestone_store::{Store, TermId};
use oxrdf::NamedNode;
use std::path::Path;

const GRAPH: &str = "http://example.com/graph";
const ENTITIES: usize = 50;

/// 150 statements, a third of them with a blank node; labels and links change with every
/// revision, so that each replacement orphans terms that must be reclaimed.
fn revision(r: usize) -> String {
    let mut doc = String::new();
    for k in 0..ENTITIES {
        let item = format!("<http://example.com/item/{k}>");
        doc.push_str(&format!(
            "{item} <http://example.com/label> \"item {k}, revision {r}\"@en .\n"
        ));
        doc.push_str(&format!(
            "{item} <http://example.com/rev> <http://example.com/rev/{r}/{k}> .\n"
        ));
        doc.push_str(&format!("{item} <http://example.com/part> _:part{k} .\n"));
    }
    doc
}

/// Bytes of the store's files, RocksDB's informational logs aside.
fn disk_size(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .expect("store folder")
        .map(|e| e.expect("entry"))
        .filter(|e| !e.file_name().to_string_lossy().starts_with("LOG"))
        .map(|e| e.metadata().expect("metadata").len())
        .sum()
}

/// Replaces the graph's content in one transaction, alternating the two ways the API offers.
fn replace(store: &Store, r: usize) {
    let mut transaction = store.transaction().expect("transaction");
    let graph = NamedNode::new_unchecked(GRAPH);
    let id: TermId = transaction
        .term_id_for_insert(graph.as_ref().into())
        .expect("graph id");
    let doc = revision(r);
    if r.is_multiple_of(2) {
        // Graph Store `PUT`: clear, then parse into the graph.
        transaction.clear_graph(id).expect("clear");
        let options = ParseOptions {
            format: Some(RdfFormat::NTriples),
            graph: Some(graph.into()),
            ..ParseOptions::default()
        };
        parse_into(&mut transaction, doc.as_bytes(), "revision.nt", &options).expect("parse");
    } else {
        let mut scope = BlankScope::default();
        let quads = oxrdfio::RdfParser::from_format(RdfFormat::NTriples)
            .for_slice(doc.as_bytes())
            .map(|q| {
                let q = q.expect("valid document");
                encode_scoped(&mut transaction, &mut scope, q.as_ref()).expect("encode")
            })
            .collect::<Vec<_>>();
        transaction.replace_graph(id, quads).expect("replace");
    }
    transaction.commit().expect("commit");
}

/// Forgets the change log (as a caught-up follower would) and compacts.
fn settle(store: &Store) {
    store.trim_changes(store.sequence()).expect("trim");
    store.compact().expect("compact");
}

#[test]
fn replacing_a_graph_a_thousand_times_reclaims_terms_and_space() {
    let store = TempStore::new();
    replace(&store, 0);
    settle(&store);
    let first_counts = counts(&store);
    let first_size = disk_size(&store.path());
    assert_eq!(first_counts.quads, 3 * ENTITIES as u64);

    for r in 1..=1_000 {
        replace(&store, r);
    }
    settle(&store);
    let last_counts = counts(&store);
    // RocksDB deletes the files a flush or compaction made obsolete (old write-ahead logs,
    // compacted tables) in the background: on a busy machine they can still be there.
    let mut last_size = disk_size(&store.path());
    for _ in 0..50 {
        if last_size * 2 <= first_size * 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        last_size = disk_size(&store.path());
    }
    assert_eq!(last_counts.quads, 3 * ENTITIES as u64);
    assert_eq!(
        last_counts.dictionary_terms, first_counts.dictionary_terms,
        "dictionary grew"
    );
    assert!(
        last_size * 2 <= first_size * 3,
        "store grew from {first_size} to {last_size} bytes: {:#?}",
        store.index_usage().expect("usage")
    );
}
