//! Text hits searched in labels only (SPARQL text patterns held by a label property).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

use lodestone_indexer::TextRequest;
use lodestone_store::model::Term;
use lodestone_store::{Reader, TermId};
use support::{indexed, iri, LABEL};

mod support;

const COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";

/// The local names of entities.
fn names(reader: &Reader<'_>, ids: Vec<TermId>) -> Vec<String> {
    let mut out: Vec<String> = ids
        .into_iter()
        .map(|id| match reader.term(id).expect("read") {
            Term::NamedNode(n) => n.as_str().trim_start_matches("http://example.org/").into(),
            other => other.to_string(),
        })
        .collect();
    out.sort();
    out
}

#[test]
fn label_hits_are_the_entities_whose_labels_match_stems_typos_and_prefixes_included() {
    let (_dir, store, index) = indexed(&[
        ("shoes", LABEL, "Running shoes", "en"),
        ("late", LABEL, "Blue box", ""),
        ("late", COMMENT, "running late, run", "en"),
        ("star", LABEL, "Dying star", "en"),
        ("typo", LABEL, "Gardenn party", ""),
        ("plain", LABEL, "runs", ""),
    ]);
    let searcher = index.searcher();
    let reader = store.reader();
    let request = |words: &str, langs: &[&str]| TextRequest {
        branches: vec![searcher.parse(words).expect("query")],
        langs: langs.iter().map(|l| (*l).to_owned()).collect(),
        property: None,
    };
    let search = |words: &str, langs: &[&str]| searcher.label_search(&request(words, langs), 100);
    let labelled = |words: &str| {
        let found = search(words, &[]).expect("search").expect("a label search");
        names(&reader, found.into_ids())
    };
    // "run": a tagged label by its stem, an untagged one whose word stems alike (a superset:
    // the literal test decides); the comment's entity, which the whole text matches, not.
    assert_eq!(labelled("run"), ["plain", "shoes"]);
    let run = search("run", &[]).expect("search").expect("a label search");
    assert_eq!(run.count(), 2);
    assert_eq!(searcher.count_text(&request("run", &[])).expect("count"), 2);
    // English's exception: "dying" stems to "die".
    assert_eq!(labelled("die"), ["star"]);
    // One typo in a word of 5+ letters, a prefix, a phrase.
    assert_eq!(labelled("garden"), ["typo"]);
    assert_eq!(labelled("sho*"), ["shoes"]);
    assert_eq!(labelled("\"running shoes\""), ["shoes"]);
    assert!(labelled("late").is_empty());
    // Stems in another language: no label-only search.
    assert!(search("run", &["de"]).expect("search").is_none());
    let label = reader
        .term_id(iri(LABEL).into())
        .expect("read")
        .expect("id");
    let comment = reader
        .term_id(iri(COMMENT).into())
        .expect("read")
        .expect("id");
    assert!(searcher.is_label_property(&reader, label).expect("label"));
    assert!(!searcher
        .is_label_property(&reader, comment)
        .expect("comment"));
}
