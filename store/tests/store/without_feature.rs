//! Products of a type with one feature but without another, filtered by two numeric ranges
//! and sorted by label (BSBM's Q3: `OPTIONAL { ?p :feature F2 . ?p :label ?t } FILTER
//! (!bound(?t))`), and sorts cut by a `LIMIT`: the optimizer orders the left side of the
//! optional knowing the filter over it (`store/vendor/sparopt/PATCH.md`), for-loop joins that
//! test a constant property read its subjects at once (`eval/probe_join.rs` in
//! store/vendor/spareval), and a sort keeps only the rows its limit takes (`eval/order.rs`).
//! The answers must be those of the queries evaluated as written, without the optimizer, on
//! random data large enough for the read at once (most products share one feature), with
//! quads in named graphs, the default graph the union of all graphs and not.

use crate::support::{
    graph_suffix, proptest_config, query_lines as lines, transaction_load, TempStore,
};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::QueryOptions;
use proptest::prelude::*;
use std::fmt::Write;

const E: &str = "http://e/";
const INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// One product: its types, features, the values of two numeric properties, its labels.
#[derive(Debug, Clone)]
struct Product {
    types: Vec<u8>,
    features: Vec<u8>,
    numeric1: Vec<i64>,
    numeric3: Vec<i64>,
    labels: u8,
    /// `None`: the default graph, else one of two named graphs.
    graph: Option<u8>,
}

fn product() -> impl Strategy<Value = Product> {
    (
        proptest::collection::vec(0u8..3, 0..3),
        (
            proptest::bool::weighted(0.9),
            proptest::collection::vec(1u8..5, 0..3),
        )
            .prop_map(|(shared, mut others)| {
                if shared {
                    others.push(0);
                }
                others
            }),
        proptest::collection::vec(0i64..30, 0..3),
        proptest::collection::vec(0i64..30, 0..3),
        prop_oneof![1 => Just(0u8), 8 => Just(1u8), 1 => Just(2u8)],
        prop_oneof![4 => Just(None), 1 => (0u8..2).prop_map(Some)],
    )
        .prop_map(
            |(types, features, numeric1, numeric3, labels, graph)| Product {
                types,
                features,
                numeric1,
                numeric3,
                labels,
                graph,
            },
        )
}

/// The products as N-Quads; `features` lists feature numbers (0 is the one most share).
fn n_quads(products: &[Product]) -> String {
    let mut out = String::new();
    for (i, p) in products.iter().enumerate() {
        let s = format!("<{E}product{i}>");
        let g = graph_suffix(p.graph);
        for label in 0..p.labels {
            // Every label differs (so that a limit cuts no tie) and sorts in no relation to
            // the product numbers.
            writeln!(
                out,
                "{s} <{E}label> \"label {:03} {label}\"{g} .",
                (i * 37) % 1000
            )
            .unwrap();
        }
        for t in &p.types {
            writeln!(out, "{s} <{RDF_TYPE}> <{E}Type{t}>{g} .").unwrap();
        }
        for f in &p.features {
            writeln!(out, "{s} <{E}feature> <{E}feature{f}>{g} .").unwrap();
        }
        for v in &p.numeric1 {
            writeln!(out, "{s} <{E}numeric1> \"{v}\"^^<{INTEGER}>{g} .").unwrap();
        }
        for v in &p.numeric3 {
            writeln!(out, "{s} <{E}numeric3> \"{v}\"^^<{INTEGER}>{g} .").unwrap();
        }
    }
    out
}

/// BSBM Q3's shape and variants, each with its slice (`OFFSET`, `LIMIT`) if any: without the
/// order and limit, an offset with a descending order, a second key, a filter inside the
/// optional, the feature test alone, Q1's `DISTINCT`, and a sort of a cross product of the
/// labels larger than what a limited sort holds at once.
fn queries(t: u8, f1: u8, f2: u8, x: i64, y: i64) -> Vec<(String, Option<(usize, usize)>)> {
    let q3 = format!(
        "?product <{E}label> ?label .
         ?product a <{E}Type{t}> .
         ?product <{E}feature> <{E}feature{f1}> .
         ?product <{E}numeric1> ?p1 .
         FILTER (?p1 > {x})
         ?product <{E}numeric3> ?p3 .
         FILTER (?p3 < {y})
         OPTIONAL {{ ?product <{E}feature> <{E}feature{f2}> . ?product <{E}label> ?testVar }}
         FILTER (!bound(?testVar))"
    );
    vec![
        (
            format!("SELECT ?product ?label WHERE {{ {q3} }} ORDER BY ?label"),
            Some((0, 10)),
        ),
        (
            format!("SELECT ?product ?label ?p1 ?p3 WHERE {{ {q3} }}"),
            None,
        ),
        (
            format!("SELECT ?product ?label WHERE {{ {q3} }} ORDER BY DESC(?label)"),
            Some((3, 4)),
        ),
        (
            format!("SELECT ?label ?p1 WHERE {{ {q3} }} ORDER BY ?p1 DESC(?label)"),
            Some((0, 6)),
        ),
        (
            format!(
                "SELECT ?product ?label WHERE {{
                   ?product <{E}label> ?label . ?product <{E}numeric1> ?p1 . FILTER (?p1 > {x})
                   OPTIONAL {{ ?product <{E}feature> <{E}feature{f2}> . ?product <{E}numeric3> ?n
                              FILTER (?n < {y}) }}
                   FILTER (!bound(?n)) }} ORDER BY ?label"
            ),
            Some((0, 5)),
        ),
        (
            format!(
                "SELECT ?product WHERE {{ ?product <{E}feature> <{E}feature{f1}> .
                   OPTIONAL {{ ?product <{E}feature> ?other . FILTER (?other = <{E}feature{f2}>) }}
                   FILTER (!bound(?other)) }}"
            ),
            None,
        ),
        (
            format!(
                "SELECT DISTINCT ?product ?label WHERE {{
                   ?product <{E}label> ?label . ?product a <{E}Type{t}> .
                   ?product <{E}feature> <{E}feature{f1}> . ?product <{E}feature> <{E}feature{f2}> .
                   ?product <{E}numeric1> ?v . FILTER (?v > {x}) }} ORDER BY ?label"
            ),
            Some((0, 10)),
        ),
        (
            format!(
                "SELECT ?a ?b WHERE {{ ?a <{E}label> ?la . ?b <{E}label> ?lb }}
                 ORDER BY DESC(?lb) ?la"
            ),
            Some((2, 7)),
        ),
    ]
}

/// The answers of `query` (whose slice, if any, is `slice`) with and without the optimizer,
/// against the whole order without the slice, cut as the slice says.
fn check(store: &TempStore, query: &str, slice: Option<(usize, usize)>, options: &QueryOptions) {
    let plain = options.clone().without_optimizations();
    let Some((offset, limit)) = slice else {
        let mut optimized = lines(store, query, options);
        let mut as_written = lines(store, query, &plain);
        optimized.sort();
        as_written.sort();
        assert_eq!(optimized, as_written, "{query}");
        return;
    };
    let whole = lines(store, query, &plain);
    let expected = whole
        .iter()
        .skip(offset)
        .take(limit)
        .cloned()
        .collect::<Vec<_>>();
    let sliced = format!("{query} OFFSET {offset} LIMIT {limit}");
    assert_eq!(lines(store, &sliced, options), expected, "{sliced}");
    assert_eq!(lines(store, &sliced, &plain), expected, "{sliced}");
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn products_without_a_feature_as_written(
        products in proptest::collection::vec(product(), 64..160),
        (t, f1, f2) in (0u8..3, prop_oneof![Just(0u8), 0u8..5], 0u8..5),
        (x, y) in (-1i64..30, 0i64..31),
    ) {
        let store = TempStore::new();
        transaction_load(&store, &[("q3.nq", n_quads(&products).as_bytes(), RdfFormat::NQuads)]);
        for union in [true, false] {
            let options = QueryOptions::default().with_default_graph_as_union(union);
            for (query, slice) in queries(t, f1, f2, x, y) {
                check(&store, &query, slice, &options);
            }
        }
    }
}

/// A test of a constant property whose subjects outnumber what the first rows may read: the
/// first chunk of rows is looked up one by one while the property is read alongside, the
/// rest tested in memory; some quads are in a named graph, one triple in two graphs.
#[test]
fn probe_reads_the_property_alongside_the_first_look_ups() {
    let store = TempStore::new();
    let mut data = String::new();
    for i in 0..3_000 {
        let s = format!("<{E}product{i}>");
        let g = if i % 11 == 0 {
            format!(" <{E}graph0>")
        } else {
            String::new()
        };
        if i % 7 != 3 {
            writeln!(data, "{s} <{RDF_TYPE}> <{E}Type0>{g} .").unwrap();
        }
        if i % 13 == 0 {
            writeln!(data, "{s} <{RDF_TYPE}> <{E}Type0> <{E}graph1> .").unwrap();
        }
        if i % 9 < 2 {
            writeln!(data, "{s} <{E}feature> <{E}feature0> .").unwrap();
            writeln!(data, "{s} <{E}label> \"label {:05}\" .", (i * 37) % 10_007).unwrap();
        }
    }
    transaction_load(&store, &[("probe.nq", data.as_bytes(), RdfFormat::NQuads)]);
    let query = format!(
        "SELECT ?product ?label WHERE {{ ?product <{E}feature> <{E}feature0> .
         ?product a <{E}Type0> . ?product <{E}label> ?label }}"
    );
    for union in [true, false] {
        let options = QueryOptions::default().with_default_graph_as_union(union);
        check(&store, &query, None, &options);
        check(
            &store,
            &format!("{query} ORDER BY DESC(?label)"),
            Some((10, 20)),
            &options,
        );
    }
}
