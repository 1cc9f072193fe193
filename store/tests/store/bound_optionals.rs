//! OPTIONALs joined on a resource the query binds with `VALUES` (BSBM's Q7 as client
//! libraries write a parameterized query: the product's offers and its reviews, each in an
//! OPTIONAL): the optimizer evaluates each OPTIONAL once per row with the product bound (a
//! for-loop left join), not over every review of the store (`store/vendor/sparopt/PATCH.md`).
//! The answers must be those of the query evaluated as written.

use crate::support::{pattern_rows, query_lines as lines, transaction_load, TempStore};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::QueryOptions;
use std::fmt::Write;

const E: &str = "http://e/";

/// 300 products with three reviews each; some reviews have ratings.
fn n_triples() -> String {
    let mut out = String::new();
    for p in 0..300 {
        writeln!(out, "<{E}product{p}> <{E}label> \"product {p}\" .").unwrap();
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

#[test]
fn an_optional_on_a_values_bound_resource_reads_its_rows_only() {
    let store = TempStore::new();
    transaction_load(
        &store,
        &[("reviews.nt", n_triples().as_bytes(), RdfFormat::NTriples)],
    );
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
    let options = QueryOptions::default();
    let mut optimized = lines(&store, &text, &options);
    let mut as_written = lines(&store, &text, &options.clone().without_optimizations());
    optimized.sort();
    as_written.sort();
    assert_eq!(optimized, as_written);
    assert_eq!(optimized.len(), 3, "{optimized:?}");

    // The product's three reviews, not the store's 900.
    let rows = pattern_rows(&store, &text, &options, &format!("?review <{E}reviewFor>"));
    assert_eq!(rows, vec![3]);
}
