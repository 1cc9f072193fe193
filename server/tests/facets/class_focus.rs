//! Views over one class's instances answered from the store's counts per class and predicate:
//! `properties` and `properties-in` come back complete within a 1 ms budget with SPARQL's
//! counts, and `ranges` of a property only the class's instances have (read without listing
//! them) count what SPARQL counts per bucket.

use crate::data::{exact_rows, facets, fixture, sparql_counts, vocab, RDF_TYPE};
use serde_json::{json, Value};

#[test]
fn properties_of_a_class_are_read_from_the_statistics() {
    let f = fixture();
    // Products and their types have properties; producers are linked to, by products.
    for class in [
        vocab("Product"),
        f.product_types[0].clone(),
        vocab("Producer"),
    ] {
        let cases = [
            ("properties", format!("?e <{RDF_TYPE}> <{class}> ; ?k ?o")),
            (
                "properties-in",
                format!("?e <{RDF_TYPE}> <{class}> . ?s ?k ?e"),
            ),
        ];
        for (view, pattern) in cases {
            let answer = facets(
                &f.server,
                &json!({"timeout_ms": 1, "class": [{"iri": class}],
                        "view": {"type": view, "limit": 1000}}),
            );
            assert_eq!(answer["complete"], true, "{view} of {class}: {answer}");
            let got = exact_rows(&answer);
            let expected = sparql_counts(
                &f.server,
                &format!("SELECT ?k (COUNT(DISTINCT ?e) AS ?n) WHERE {{ {pattern} }} GROUP BY ?k"),
            );
            let linked = view == "properties" || class == vocab("Producer");
            assert!(!linked || !expected.is_empty(), "{view} of {class}");
            assert_eq!(got, expected, "{view} of {class}");
        }
    }
}

#[test]
fn ranges_of_a_property_only_the_class_has_count_what_sparql_counts() {
    let f = fixture();
    let (class, property) = (vocab("Product"), vocab("productPropertyNumeric1"));
    // Only products have the property: the view reads its quads without listing products.
    let others = sparql_counts(&f.server, &format!(
        "SELECT (\"others\" AS ?k) (COUNT(*) AS ?n) WHERE {{ ?e <{property}> ?v FILTER NOT EXISTS {{ ?e <{RDF_TYPE}> <{class}> }} }}"
    ));
    assert_eq!(others.first().map(|(_, n)| *n), Some(0));
    let answer = facets(
        &f.server,
        &json!({"class": [{"iri": class}],
                "view": {"type": "ranges", "property": property, "buckets": 6}}),
    );
    assert_eq!(answer["complete"], true, "{answer}");
    let rows = answer["rows"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 6, "{answer}");
    for row in &rows {
        let bound = |end: &str| {
            let term = &row[end];
            format!(
                "\"{}\"^^<{}>",
                term["value"].as_str().expect("value"),
                term["datatype"].as_str().expect("datatype")
            )
        };
        let below = if row["upper_inclusive"] == true {
            "<="
        } else {
            "<"
        };
        let expected = sparql_counts(&f.server, &format!(
            "SELECT (\"n\" AS ?k) (COUNT(DISTINCT ?e) AS ?n) WHERE {{ ?e <{RDF_TYPE}> <{class}> ; <{property}> ?v FILTER(?v >= {} && ?v {below} {}) }}",
            bound("lower"),
            bound("upper")
        ));
        assert_eq!(
            row["count"].as_u64(),
            expected.first().map(|(_, n)| *n),
            "bucket {row}"
        );
    }
    // The equivalent SPARQL the answer carries gives the same counts.
    let sparql = answer["sparql"].as_str().expect("sparql");
    let response = f.server.query(sparql, "application/sparql-results+json");
    assert_eq!(response.status(), 200, "{sparql}");
    let body: Value = response.json().expect("json");
    let theirs: Vec<u64> = body["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| {
            b["count"]["value"]
                .as_str()
                .and_then(|c| c.parse().ok())
                .unwrap_or(u64::MAX)
        })
        .collect();
    let ours: Vec<u64> = rows
        .iter()
        .map(|r| r["count"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(ours, theirs);
}
