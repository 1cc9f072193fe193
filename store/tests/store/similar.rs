//! Joins whose filters compare the rest of the pattern with the values of one given resource
//! (BSBM's Q5, "products similar to a given one"): the optimizer evaluates those values first
//! and applies each filter where its variables are bound (`store/vendor/sparopt/PATCH.md`).
//! The answers must be those of the query evaluated as written, without the optimizer, on
//! random data: products sharing features, numeric properties with zero, one or two values,
//! some without a label.

use crate::support::{
    pattern_rows, proptest_config, query_lines as lines, transaction_load, TempStore,
};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::QueryOptions;
use proptest::prelude::*;
use std::fmt::Write;

const E: &str = "http://e/";

/// One product: its features, the values of its two numeric properties, whether it has a label.
#[derive(Debug, Clone)]
struct Product {
    features: Vec<u8>,
    numeric1: Vec<i64>,
    numeric2: Vec<i64>,
    labelled: bool,
}

fn product() -> impl Strategy<Value = Product> {
    (
        proptest::collection::vec(0u8..6, 0..4),
        proptest::collection::vec(0i64..40, 0..3),
        proptest::collection::vec(0i64..40, 0..3),
        proptest::bool::weighted(0.9),
    )
        .prop_map(|(features, numeric1, numeric2, labelled)| Product {
            features,
            numeric1,
            numeric2,
            labelled,
        })
}

fn n_triples(products: &[Product]) -> String {
    let mut out = String::new();
    for (i, p) in products.iter().enumerate() {
        let s = format!("<{E}product{i}>");
        if p.labelled {
            // Labels sort in no relation to the product numbers.
            writeln!(out, "{s} <{E}label> \"label {}\" .", (i * 7) % 31).unwrap();
        }
        for f in &p.features {
            writeln!(out, "{s} <{E}feature> <{E}feature{f}> .").unwrap();
        }
        for v in &p.numeric1 {
            writeln!(
                out,
                "{s} <{E}numeric1> \"{v}\"^^<http://www.w3.org/2001/XMLSchema#integer> ."
            )
            .unwrap();
        }
        for v in &p.numeric2 {
            writeln!(
                out,
                "{s} <{E}numeric2> \"{v}\"^^<http://www.w3.org/2001/XMLSchema#integer> ."
            )
            .unwrap();
        }
    }
    out
}

/// BSBM Q5's shape for product `given`, and variants: without DISTINCT or the order, one
/// filter only, a filter on the given product's value alone.
fn queries(given: usize) -> Vec<String> {
    let p = format!("<{E}product{given}>");
    let patterns = format!(
        "?product <{E}label> ?label .
         FILTER ({p} != ?product)
         {p} <{E}feature> ?f . ?product <{E}feature> ?f .
         {p} <{E}numeric1> ?orig1 . ?product <{E}numeric1> ?sim1 .
         FILTER (?sim1 < (?orig1 + 10) && ?sim1 > (?orig1 - 10))
         {p} <{E}numeric2> ?orig2 . ?product <{E}numeric2> ?sim2 .
         FILTER (?sim2 < (?orig2 + 12) && ?sim2 > (?orig2 - 12))"
    );
    vec![
        format!("SELECT DISTINCT ?product ?label WHERE {{ {patterns} }} ORDER BY ?label LIMIT 5"),
        format!("SELECT ?product ?label ?f WHERE {{ {patterns} }}"),
        // Repeats dropped before the label's look-up (`repeated_rows.rs` in sparopt): with
        // the label, without it, and over a union whose branches keep their own variables.
        format!("SELECT DISTINCT ?product ?label WHERE {{ {patterns} }}"),
        format!("SELECT DISTINCT ?product WHERE {{ {patterns} }}"),
        format!(
            "SELECT DISTINCT ?product ?x WHERE {{
             {{ {p} <{E}feature> ?f . ?product <{E}feature> ?f . ?product <{E}label> ?x }}
             UNION {{ ?product <{E}numeric1> ?x . ?product <{E}numeric2> ?y . FILTER (?y > 20) }} }}"
        ),
        format!(
            "SELECT ?product ?sim1 WHERE {{ {p} <{E}numeric1> ?orig1 .
             ?product <{E}feature> ?f . ?product <{E}numeric1> ?sim1 .
             FILTER (?sim1 >= ?orig1) }}"
        ),
        format!(
            "SELECT ?product WHERE {{ {p} <{E}numeric1> ?orig1 . {p} <{E}numeric2> ?orig2 .
             ?product <{E}label> ?label . FILTER (?orig1 < ?orig2 && ?label != \"label 3\") }}"
        ),
    ]
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn similar_products_as_written(
        products in proptest::collection::vec(product(), 1..24),
        given in any::<proptest::sample::Index>(),
    ) {
        let store = TempStore::new();
        transaction_load(&store, &[("similar.nt", n_triples(&products).as_bytes(), RdfFormat::NTriples)]);
        let given = given.index(products.len());
        for query in queries(given) {
            let mut optimized = lines(&store, &query, &QueryOptions::default());
            let mut as_written = lines(&store, &query, &QueryOptions::default().without_optimizations());
            if !query.contains("ORDER BY") {
                optimized.sort();
                as_written.sort();
            }
            prop_assert_eq!(optimized, as_written, "{}", query);
        }
    }
}

/// Under `DISTINCT`, a product sharing three features with the given one has its label
/// looked up once, not once per shared feature: the plan's label pattern gives a row per
/// product.
#[test]
fn shared_features_look_the_label_up_once() {
    let products = (0..6)
        .map(|i| Product {
            features: vec![0, 1, 2],
            numeric1: vec![10 + i],
            numeric2: vec![10],
            labelled: true,
        })
        .collect::<Vec<_>>();
    let store = TempStore::new();
    transaction_load(
        &store,
        &[(
            "similar.nt",
            n_triples(&products).as_bytes(),
            RdfFormat::NTriples,
        )],
    );
    let text = &queries(0)[0];
    let options = QueryOptions::default();
    assert_eq!(lines(&store, text, &options).len(), 5);
    let label_rows = pattern_rows(&store, text, &options, &format!("<{E}label>"));
    assert_eq!(label_rows, vec![5]);
}
