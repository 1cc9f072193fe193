//! Queries whose parameter is bound by `VALUES` (as client libraries write parameterized
//! queries) are planned as if it were written in place (`store/vendor/sparopt/PATCH.md`):
//! the rest of the group is ordered knowing the parameter is bound, and an OPTIONAL joined on
//! it (BSBM's Q7: the product's offers and its reviews) is evaluated once per row with the
//! parameter bound (a for-loop left join), not over every review of the store. The answers
//! must be those of the query evaluated as written.

use crate::support::{
    answers_as_written, pattern_rows, query_lines as lines, transaction_load, TempStore,
};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::QueryOptions;
use std::fmt::Write;

const E: &str = "http://e/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// 300 products of one type with three reviews each; some reviews have ratings; every
/// thirtieth product has a feature.
fn n_triples() -> String {
    let mut out = String::new();
    for p in 0..300 {
        writeln!(out, "<{E}product{p}> <{E}label> \"product {p}\" .").unwrap();
        writeln!(out, "<{E}product{p}> <{RDF_TYPE}> <{E}Type> .").unwrap();
        if p % 30 == 0 {
            writeln!(out, "<{E}product{p}> <{E}feature> <{E}feature> .").unwrap();
        }
        for r in 0..3 {
            let review = format!("<{E}review{p}-{r}>");
            writeln!(out, "{review} <{E}reviewFor> <{E}product{p}> .").unwrap();
            writeln!(out, "{review} <{E}reviewer> <{E}person{}> .", (p + r) % 50).unwrap();
            writeln!(out, "{review} <{E}title> \"review {p} {r}\" .").unwrap();
            if r != 1 {
                writeln!(out, "{review} <{E}rating> \"{r}\" .").unwrap();
            }
        }
    }
    for person in 0..50 {
        writeln!(out, "<{E}person{person}> <{E}name> \"person {person}\" .").unwrap();
    }
    out
}

/// The reviews' OPTIONAL is evaluated with the product bound: its 3 reviews are read, not
/// the store's 900.
#[test]
fn an_optional_on_a_values_bound_resource_reads_its_rows_only() {
    let store = store();
    let text = format!(
        "SELECT ?label ?review ?title ?name ?rating WHERE {{
           VALUES ?product {{ <{E}product7> }}
           ?product <{E}label> ?label .
           OPTIONAL {{
             ?review <{E}reviewFor> ?product . ?review <{E}reviewer> ?reviewer .
             ?reviewer <{E}name> ?name . ?review <{E}title> ?title .
             OPTIONAL {{ ?review <{E}rating> ?rating }}
           }}
         }}"
    );
    assert_eq!(answers_as_written(&store, &text), 3);
    // The product's three reviews, not the store's 900.
    let options = QueryOptions::default();
    let rows = pattern_rows(&store, &text, &options, &format!("?review <{E}reviewFor>"));
    assert_eq!(rows, vec![3]);
}

/// The type bound by `VALUES` is not where the join starts: the products with the feature
/// (10) are read first and each tested for the type, not the type's 300 products.
#[test]
fn a_values_bound_type_is_tested_after_the_selective_pattern() {
    let store = store();
    let text = format!(
        "SELECT ?product ?label WHERE {{
           VALUES ?type {{ <{E}Type> }}
           ?product a ?type . ?product <{E}feature> <{E}feature> . ?product <{E}label> ?label
         }}"
    );
    assert_eq!(answers_as_written(&store, &text), 10);
    let options = QueryOptions::default();
    let rows = pattern_rows(&store, &text, &options, &format!("?product <{RDF_TYPE}>"));
    assert_eq!(rows, vec![10]);
}

fn store() -> TempStore {
    let store = TempStore::new();
    transaction_load(
        &store,
        &[("reviews.nt", n_triples().as_bytes(), RdfFormat::NTriples)],
    );
    store
}

/// Under `DISTINCT`, the rows told apart only by the parameter are not merged before the
/// patterns that use it: the parameter comes from the `VALUES` row evaluated first (its
/// reviews, not the first ten reviews of the store).
#[test]
fn a_distinct_keeps_the_values_parameter_its_patterns_use() {
    let store = store();
    let text = format!(
        "SELECT DISTINCT ?review ?title WHERE {{
           VALUES ?product {{ <{E}product7> }}
           ?review <{E}reviewFor> ?product . ?review <{E}title> ?title
         }} ORDER BY ?title LIMIT 10"
    );
    let options = QueryOptions::default();
    let optimized = lines(&store, &text, &options);
    assert_eq!(
        optimized,
        lines(&store, &text, &options.clone().without_optimizations())
    );
    assert_eq!(optimized.len(), 3, "{optimized:?}");
}
