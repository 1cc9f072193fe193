//! The index over a small store: build, search, follow changes, reopen.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

use lodestone_indexer::{IndexSettings, SearchRequest, TextIndex};
use lodestone_store::model::{GraphNameRef, LiteralRef, NamedNodeRef, QuadRef};
use lodestone_store::{Store, StoreOptions};

const LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";
const LINK: &str = "http://example.org/link";

fn iri(s: &str) -> NamedNodeRef<'_> {
    NamedNodeRef::new(s).expect("valid IRI")
}

fn add_label(store: &Store, subject: &str, label: &str, lang: &str) {
    let mut tx = store.transaction().expect("transaction");
    tx.insert(QuadRef::new(
        iri(subject),
        iri(LABEL),
        LiteralRef::new_language_tagged_literal_unchecked(label, lang),
        GraphNameRef::DefaultGraph,
    ))
    .expect("insert");
    tx.commit().expect("commit");
}

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path().join("store"), StoreOptions::default()).expect("store");
    (dir, store)
}

fn search(index: &TextIndex, store: &Store, q: &str) -> Vec<String> {
    let searcher = index.searcher();
    let request = SearchRequest {
        query: searcher.parse(q).expect("query"),
        classes: vec![],
        graph: None,
        langs: vec!["en".into()],
        limit: 10,
        offset: 0,
    };
    let reader = store.reader();
    searcher
        .search(&reader, &request)
        .expect("search")
        .hits
        .into_iter()
        .map(|h| h.iri)
        .collect()
}

#[test]
fn builds_follows_changes_and_reopens() {
    let (dir, store) = store();
    add_label(&store, "http://example.org/berlin", "Berlin", "en");
    add_label(&store, "http://example.org/bern", "Bern", "de");
    let path = dir.path().join("text-index");
    let index = TextIndex::open(&path, IndexSettings::default()).expect("open");
    assert_eq!(index.applied(), None);
    index.catch_up(&store).expect("build");
    assert_eq!(
        search(&index, &store, "berlin"),
        ["http://example.org/berlin"]
    );
    assert_eq!(
        search(&index, &store, "berlni"),
        ["http://example.org/berlin"],
        "typo"
    );
    assert_eq!(search(&index, &store, "ber*").len(), 2);

    add_label(&store, "http://example.org/paris", "Paris", "fr");
    index.catch_up(&store).expect("catch up");
    assert_eq!(index.applied(), Some(store.sequence()));
    assert_eq!(
        search(&index, &store, "paris"),
        ["http://example.org/paris"]
    );
    drop(index);

    // Changes while no index is open are applied on the next catch-up.
    let mut tx = store.transaction().expect("transaction");
    tx.remove(QuadRef::new(
        iri("http://example.org/paris"),
        iri(LABEL),
        LiteralRef::new_language_tagged_literal_unchecked("Paris", "fr"),
        GraphNameRef::DefaultGraph,
    ))
    .expect("remove");
    tx.commit().expect("commit");
    let index = TextIndex::open(&path, IndexSettings::default()).expect("reopen");
    assert!(index.applied() < Some(store.sequence()));
    index.catch_up(&store).expect("catch up");
    assert!(search(&index, &store, "paris").is_empty());
    assert_eq!(index.document_count(), 2);
}

#[test]
fn rank_orders_equal_matches_and_snippets_mark_words() {
    let (dir, store) = store();
    add_label(&store, "http://example.org/a", "Gold coin", "en");
    add_label(&store, "http://example.org/b", "Gold coin", "en");
    let mut tx = store.transaction().expect("transaction");
    for i in 0..5 {
        tx.insert(QuadRef::new(
            iri(&format!("http://example.org/ref{i}")),
            iri(LINK),
            iri("http://example.org/b"),
            GraphNameRef::DefaultGraph,
        ))
        .expect("insert");
    }
    tx.insert(QuadRef::new(
        iri("http://example.org/a"),
        iri(COMMENT),
        LiteralRef::new_simple_literal("A coin struck in <gold> at Rome"),
        GraphNameRef::DefaultGraph,
    ))
    .expect("insert");
    tx.commit().expect("commit");
    let index = TextIndex::open(dir.path().join("ti"), IndexSettings::default()).expect("open");
    index.catch_up(&store).expect("build");
    assert_eq!(
        search(&index, &store, "gold coin"),
        ["http://example.org/b", "http://example.org/a"]
    );
    let searcher = index.searcher();
    let request = SearchRequest {
        query: searcher.parse("struck rome").expect("query"),
        classes: vec![],
        graph: None,
        langs: vec![],
        limit: 10,
        offset: 0,
    };
    let page = searcher.search(&store.reader(), &request).expect("search");
    let snippet = page.hits[0].snippet.as_ref().expect("snippet");
    assert_eq!(
        snippet.to_html(),
        "A coin <b>struck</b> in &lt;gold&gt; at <b>Rome</b>"
    );
    assert_eq!(page.hits[0].snippet_property.as_deref(), Some(COMMENT));
    let matches = searcher.matching_entities("gold", 10).expect("matches");
    assert_eq!(matches.len(), 2);
    assert!(matches[0].1 >= matches[1].1);
}

#[test]
fn summaries_of_entities_found_elsewhere_keep_their_order_and_mark_words() {
    let (dir, store) = store();
    add_label(&store, "http://example.org/a", "Silver drachm", "en");
    add_label(&store, "http://example.org/b", "Gold stater", "en");
    let index = TextIndex::open(dir.path().join("ti"), IndexSettings::default()).expect("open");
    index.catch_up(&store).expect("build");
    let reader = store.reader();
    let id = |s: &str| {
        reader
            .term_id(iri(s).into())
            .expect("read")
            .expect("known term")
    };
    let entities = [
        id("http://example.org/b"),
        id(LABEL),
        id("http://example.org/a"),
    ];
    let langs = vec!["en".to_owned()];
    let summaries = index
        .searcher()
        .summaries(&reader, &entities, Some("gold"), &langs)
        .expect("summaries");
    let labels: Vec<Option<String>> = summaries
        .iter()
        .map(|s| {
            s.as_ref()
                .and_then(|h| h.label.as_ref())
                .map(|l| l.text.clone())
        })
        .collect();
    assert_eq!(
        labels,
        [
            Some("Gold stater".to_owned()),
            None,
            Some("Silver drachm".to_owned())
        ],
        "in the order asked; a term that is no entity has no summary"
    );
    let gold = summaries[0].as_ref().and_then(|h| h.snippet.as_ref());
    assert_eq!(
        gold.map(|s| s.to_html()).as_deref(),
        Some("<b>Gold</b> stater")
    );
    assert!(summaries[2].as_ref().is_some_and(|h| h.snippet.is_none()));
    let plain = index
        .searcher()
        .summaries(&reader, &entities[..1], None, &langs)
        .expect("summaries without words");
    assert!(plain[0].as_ref().is_some_and(|h| h.snippet.is_none()));
}

/// A full build leaves a segment per indexing thread (and per heap's worth of documents);
/// they are merged into one after it, and the merged index answers as the built one did.
#[test]
fn a_full_build_is_merged_into_one_segment() {
    let (dir, store) = store();
    let mut tx = store.transaction().expect("transaction");
    for i in 0..4_000 {
        tx.insert(QuadRef::new(
            iri(&format!("http://example.org/item{i}")),
            iri(LABEL),
            LiteralRef::new_language_tagged_literal_unchecked(
                &format!("item {i} of the {} shelf", ["red", "green", "blue"][i % 3]),
                "en",
            ),
            GraphNameRef::DefaultGraph,
        ))
        .expect("insert");
    }
    tx.commit().expect("commit");
    let settings = IndexSettings::default();
    let threads = settings.writer_budget().0;
    let index = TextIndex::open(dir.path().join("text-index"), settings).expect("open");
    index.rebuild(&store, |_| {}).expect("build");
    let built = index.segment_count();
    let before = search(&index, &store, "green shelf");
    if threads >= 2 {
        assert!(
            built >= 2,
            "{threads} indexing threads wrote {built} segment(s)"
        );
    }
    index.wait_for_merge();
    assert_eq!(index.segment_count(), 1);
    assert_eq!(search(&index, &store, "green shelf"), before);
    assert_eq!(before.len(), 10);
    assert_eq!(index.document_count(), 4_000);
}
