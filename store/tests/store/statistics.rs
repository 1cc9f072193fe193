//! SPARQL counts answered from the statistics (`answer_from_statistics`) against a full
//! evaluation of the same query (through a transaction's reader, which the statistics never
//! answer), on several datasets — the same triple in two graphs, `rdf:type` in the default
//! and in named graphs, a predicate used as a subject — with and without the union default
//! graph.

use crate::support::{bulk_load, music, parse, solution_lines, write_input, TempStore};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::{
    answer_from_statistics, evaluate_query, DatasetOverride, QueryOptions, QueryResults,
    SparqlParser,
};
use lodestone_store::{Reader, Store};

const QUERIES: &[&str] = &[
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://e/p> ?o }",
    "SELECT (COUNT(?s) AS ?n) WHERE { ?s <http://e/q> ?o }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://e/unknown> ?o }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s a ?o }",
    "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s <http://e/p> ?o } }",
    "SELECT ?c (COUNT(*) AS ?n) WHERE { ?s a ?c } GROUP BY ?c",
    "SELECT (COUNT(*) AS ?n) ?c WHERE { GRAPH ?g { ?s a ?c } } GROUP BY ?c",
    "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
    "SELECT DISTINCT ?p WHERE { ?s ?p ?o }",
    "SELECT DISTINCT ?p WHERE { GRAPH ?g { ?s ?p ?o } }",
    "SELECT DISTINCT ?c WHERE { ?s a ?c }",
    "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g",
    "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
    "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s <http://e/p> ?o } } GROUP BY ?g",
];

/// The solutions as sorted lines.
fn lines(results: QueryResults<'_>) -> Vec<String> {
    let mut out = solution_lines(results);
    out.sort();
    out
}

/// Compares every query; returns how many the statistics answered.
fn compare(store: &Store, union: bool) -> usize {
    let options = QueryOptions::default().with_default_graph_as_union(union);
    let none = DatasetOverride::default();
    let reader = store.reader();
    let mut answered = 0;
    for text in QUERIES {
        let query = SparqlParser::new().parse_query(text).expect("query");
        let expected = {
            let transaction = store.transaction().expect("transaction");
            let full: Reader<'_> = transaction.reader();
            assert!(answer_from_statistics(&full, &query, &none, &options)
                .expect("statistics")
                .is_none());
            lines(evaluate_query(&full, &query, &none, &options).expect("evaluate"))
        };
        if let Some(results) =
            answer_from_statistics(&reader, &query, &none, &options).expect("statistics")
        {
            answered += 1;
            assert_eq!(lines(results), expected, "{text} (union: {union})");
        }
        let through_evaluate =
            lines(evaluate_query(&reader, &query, &none, &options).expect("evaluate"));
        assert_eq!(through_evaluate, expected, "{text} (union: {union})");
    }
    answered
}

fn store_of(nquads: &str) -> TempStore {
    let store = TempStore::new();
    let mut transaction = store.transaction().expect("transaction");
    for quad in parse(nquads.as_bytes(), RdfFormat::NQuads).iter() {
        transaction.insert(quad).expect("insert");
    }
    transaction.commit().expect("commit");
    store
}

const TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";

#[test]
fn statistics_answers_equal_full_evaluation_in_the_default_graph() {
    let store = store_of(&format!(
        "<http://e/a> {TYPE} <http://e/C> .\n\
         <http://e/b> {TYPE} <http://e/C> .\n\
         <http://e/b> {TYPE} <http://e/D> .\n\
         <http://e/a> <http://e/p> <http://e/b> .\n\
         <http://e/a> <http://e/p> \"x\" .\n\
         <http://e/b> <http://e/q> \"y\" .\n"
    ));
    // Nothing is ambiguous here: every form is answered, strict or union.
    assert_eq!(compare(&store, false), QUERIES.len());
    assert_eq!(compare(&store, true), QUERIES.len());
}

#[test]
fn statistics_answers_equal_full_evaluation_across_graphs() {
    let store = store_of(&format!(
        "<http://e/a> <http://e/p> <http://e/b> .\n\
         <http://e/a> <http://e/p> <http://e/b> <http://e/g1> .\n\
         <http://e/a> <http://e/p> <http://e/b> <http://e/g2> .\n\
         <http://e/a> {TYPE} <http://e/C> <http://e/g1> .\n\
         <http://e/a> {TYPE} <http://e/C> .\n\
         <http://e/b> {TYPE} <http://e/C> <http://e/g2> .\n\
         <http://e/q> <http://e/q> <http://e/p> <http://e/g2> .\n\
         <http://e/c> <http://e/q> \"z\" .\n\
         _:x <http://e/p> _:y _:g .\n"
    ));
    let strict = compare(&store, false);
    let union = compare(&store, true);
    // Under the union default graph, the forms restricted to the named graphs that the
    // counters do not decide are left to the evaluator: `<p>` and `<q>` are subjects or
    // objects too, and `rdf:type` is in the default graph and in named ones.
    assert_eq!(union, 12);
    // Under the store's default graph the counters decide six forms here: the totals (all,
    // GRAPH ?g), the unknown predicate, `rdf:type` (used only as a predicate), and the per-graph
    // counts and names. `<p>` and `<q>` are also subjects or objects in several graphs, and
    // `rdf:type` is in both kinds of graph, so their counts restricted to the default graph,
    // and the per-predicate, per-class and DISTINCT forms over them, go to the evaluator.
    assert_eq!(strict, 6);
    // With only named graphs.
    let named = store_of(
        "<http://e/a> <http://e/p> <http://e/b> <http://e/g1> .\n\
         <http://e/a> <http://e/p> <http://e/b> <http://e/g2> .\n",
    );
    assert_eq!(compare(&named, false), QUERIES.len());
    assert_eq!(compare(&named, true), QUERIES.len());
}

#[test]
fn statistics_answers_equal_full_evaluation_on_an_empty_store_and_real_data() {
    let empty = TempStore::new();
    assert_eq!(compare(&empty, false), QUERIES.len());
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(
            store.scratch(),
            "music.nt",
            music(2_000).as_bytes(),
        )],
    );
    assert_eq!(compare(&store, false), QUERIES.len());
    assert_eq!(compare(&store, true), QUERIES.len());
}
