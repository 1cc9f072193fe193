//! The text side of URI lookup: entities by id and score, typos only when the words find too
//! few, and which entities may have a label equal to the text.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

use lodestone_indexer::{PoolHit, TextIndex};
use lodestone_store::model::Term;
use lodestone_store::Store;
use support::LABEL;

mod support;

/// A store of (local name, label) entities and its built index.
fn indexed(labels: &[(&str, &str)]) -> (tempfile::TempDir, Store, TextIndex) {
    let literals: Vec<_> = labels
        .iter()
        .map(|(name, label)| (*name, LABEL, *label, ""))
        .collect();
    support::indexed(&literals)
}

fn pool(store: &Store, index: &TextIndex, text: &str, enough: usize) -> Vec<(String, bool)> {
    let searcher = index.searcher();
    let query = searcher.parse(text).expect("query");
    let hits: Vec<PoolHit> = searcher
        .text_pool(&query, text, &[], 100, enough)
        .expect("pool");
    let reader = store.reader();
    let mut out: Vec<(String, bool)> = hits
        .into_iter()
        .map(|hit| match reader.term(hit.id).expect("read") {
            Term::NamedNode(n) => (
                n.as_str().trim_start_matches("http://example.org/").into(),
                hit.label_may_equal,
            ),
            other => (other.to_string(), hit.label_may_equal),
        })
        .collect();
    out.sort();
    out
}

#[test]
fn typos_are_searched_only_when_the_words_find_too_few() {
    let (_dir, store, index) = indexed(&[("athens", "Athens"), ("athena", "Athena")]);
    // One exact match is enough: the one-typo automaton does not run.
    assert_eq!(
        pool(&store, &index, "athens", 1),
        [("athens".to_owned(), true)]
    );
    // Fewer than wanted: typos are forgiven as in a search.
    assert_eq!(
        pool(&store, &index, "athens", 5),
        [("athena".to_owned(), false), ("athens".to_owned(), true)]
    );
    // A misspelling finds the entity through the typo pass.
    assert_eq!(
        pool(&store, &index, "athnes", 1),
        [("athens".to_owned(), false)]
    );
}

#[test]
fn a_label_of_the_same_folded_words_is_flagged_without_reading_the_store() {
    let (_dir, store, index) = indexed(&[
        ("fragment", "Athe…"),
        ("street", "Athe Street"),
        ("mint", "ATHE"),
    ]);
    assert_eq!(
        pool(&store, &index, "athe", 3),
        [
            ("fragment".to_owned(), true),
            ("mint".to_owned(), true),
            ("street".to_owned(), false)
        ]
    );
    assert_eq!(
        pool(&store, &index, "athe street", 3),
        [("street".to_owned(), true)]
    );
}
