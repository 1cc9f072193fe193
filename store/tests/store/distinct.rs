//! The distinct counts the start views read (`Distinct`) against SPARQL counts of the same
//! things, after random sequences of commits (inserts, removals, clears, drops, graph
//! replacements) and bulk loads, and after the upgrade of an older store.

use crate::loading::step;
use crate::oracle::Model;
use crate::support::{proptest_config, with_raw_meta, TempStore};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::{
    evaluate_query, DatasetOverride, QueryOptions, QueryResults, SparqlParser,
};
use lodestone_store::{Distinct, Reader, Store};
use oxrdf::{Term, Variable};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// `key → count` rows of a grouped SPARQL count (union default graph).
fn sparql_counts(reader: &Reader<'_>, query: &str) -> BTreeMap<String, u64> {
    let query = SparqlParser::new().parse_query(query).expect("query");
    let options = QueryOptions::default().with_default_graph_as_union(true);
    let QueryResults::Solutions(solutions) =
        evaluate_query(reader, &query, &DatasetOverride::default(), &options).expect("evaluate")
    else {
        panic!("not solutions");
    };
    let (k, n) = (Variable::new_unchecked("k"), Variable::new_unchecked("n"));
    let mut out = BTreeMap::new();
    for solution in solutions {
        let solution = solution.expect("solution");
        let Some(Term::Literal(count)) = solution.get(&n) else {
            panic!("no count");
        };
        let count: u64 = count.value().parse().expect("integer");
        let key = solution
            .get(&k)
            .map_or_else(String::new, ToString::to_string);
        if count > 0 {
            out.insert(key, count);
        }
    }
    out
}

/// One kind of the statistics, keyed like [`sparql_counts`].
fn statistic(reader: &Reader<'_>, kind: Distinct) -> BTreeMap<String, u64> {
    reader
        .distinct_counts(kind)
        .expect("distinct counts")
        .into_iter()
        .map(|(id, count)| {
            let key = if kind == Distinct::Subjects {
                String::new()
            } else {
                reader.term(id).expect("term").to_string()
            };
            (key, count)
        })
        .collect()
}

/// Every statistic equals its SPARQL count.
pub fn check_distinct(store: &Store, context: &str) {
    let reader = store.reader();
    let cases = [
        (
            Distinct::ClassSubjects,
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?k } GROUP BY ?k",
        ),
        (
            Distinct::PredicateSubjects,
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?k ?o } GROUP BY ?k",
        ),
        (
            Distinct::PredicateObjects,
            "SELECT ?k (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s ?k ?o FILTER EXISTS { ?o ?q ?v } } GROUP BY ?k",
        ),
        (
            Distinct::GraphSubjects,
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { GRAPH ?k { ?s ?p ?o } } GROUP BY ?k",
        ),
        (
            Distinct::Subjects,
            "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }",
        ),
    ];
    for (kind, query) in cases {
        assert_eq!(
            statistic(&reader, kind),
            sparql_counts(&reader, query),
            "{kind:?} after {context}"
        );
    }
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn distinct_counts_equal_sparql_counts_after_commits_and_bulk_loads(
        steps in prop::collection::vec(step(), 1..6),
    ) {
        let store = TempStore::new();
        let mut model = Model::default();
        for (i, step) in steps.iter().enumerate() {
            step.run(&store, &mut model, i);
            check_distinct(&store, &format!("step {i}: {step:?}"));
        }
    }
}

/// A store of format 5 has no distinct counts: a read-write open computes them.
#[test]
fn a_read_write_open_computes_the_distinct_counts_of_a_format_5_store() {
    let store = TempStore::new();
    let data = b"<http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> <http://e/g> .\n\
        <http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n\
        <http://e/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n\
        <http://e/b> <http://e/p> <http://e/a> <http://e/g> .\n\
        <http://e/b> <http://e/p> \"x\" .\n";
    let mut transaction = store.transaction().expect("transaction");
    for quad in crate::support::parse(data, RdfFormat::NQuads).iter() {
        transaction.insert(quad).expect("insert");
    }
    transaction.commit().expect("commit");
    let dir = store.close();
    with_raw_meta(&dir.path().join("store"), |db, meta| {
        db.put_cf(meta, b"version", 5_u64.to_le_bytes())
            .expect("version");
        let stats = db.cf_handle("distinct_stats").expect("table");
        db.delete_range_cf(stats, [0_u8].as_slice(), [u8::MAX; 10].as_slice())
            .expect("empty the table");
    });
    let store = TempStore::from_parts(dir);
    assert_eq!(store.reader().distinct_subjects().expect("count"), 2);
    check_distinct(&store, "the upgrade");
}
