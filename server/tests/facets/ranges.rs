//! The `ranges` view: each bucket's count equals SPARQL's `COUNT(DISTINCT …)` with that
//! bucket's `FILTER`, the buckets tile `[MIN, MAX]` of the values, and the view's XML, `GET`
//! and error forms.

use crate::common::{client, content_type};
use crate::data::{assert_rejected, facets, fixture, vocab};
use serde_json::{json, Value};

const DC_DATE: &str = "http://purl.org/dc/elements/1.1/date";

/// A literal of a facet answer in SPARQL syntax (the test writes its own reference queries).
fn sparql_literal(term: &Value) -> String {
    let value = term["value"].as_str().expect("a lexical value");
    match term["datatype"].as_str() {
        Some(datatype) => format!("\"{value}\"^^<{datatype}>"),
        None => format!("\"{value}\""),
    }
}

/// The single number a `SELECT (… AS ?n)` query returns.
fn number(f: &crate::data::Fixture, query: &str) -> u64 {
    let values = f.server.select(query, "n");
    values
        .first()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number from {query}: {values:?}"))
}

/// Checks a `ranges` answer over the instances of `class` against per-bucket SPARQL counts.
fn check_against_sparql(class: &str, property: &str, buckets: usize) -> Vec<Value> {
    let f = fixture();
    let answer = facets(
        &f.server,
        &json!({"class": [{"iri": class}],
                "view": {"type": "ranges", "property": property, "buckets": buckets}}),
    );
    assert_eq!(answer["view"], "ranges");
    assert_eq!(answer["complete"], true, "{answer}");
    let rows = answer["rows"].as_array().cloned().unwrap_or_default();
    assert!(!rows.is_empty(), "{answer}");
    assert!(
        rows.len() <= buckets,
        "{} rows for {buckets} buckets",
        rows.len()
    );
    assert_eq!(answer["total"].as_u64(), Some(rows.len() as u64));
    let pattern = format!("?e a <{class}> ; <{property}> ?v");
    for row in &rows {
        let (lower, upper) = (sparql_literal(&row["lower"]), sparql_literal(&row["upper"]));
        let below = if row["upper_inclusive"] == true {
            "<="
        } else {
            "<"
        };
        let expected = number(
            f,
            &format!(
                "SELECT (COUNT(DISTINCT ?e) AS ?n) WHERE {{ {pattern} FILTER(?v >= {lower} && ?v {below} {upper}) }}"
            ),
        );
        assert_eq!(row["count"].as_u64(), Some(expected), "bucket {row}");
        assert_eq!(row["exact"], true);
        assert_eq!(row["value"], row["lower"]);
    }
    // The buckets tile [MIN, MAX]: each starts where the previous ends, only the last is closed.
    for pair in rows.windows(2) {
        assert_eq!(pair[0]["upper"], pair[1]["lower"]);
        assert_eq!(pair[0]["upper_inclusive"], false);
    }
    assert_eq!(
        rows.last().map(|r| &r["upper_inclusive"]),
        Some(&json!(true))
    );
    let extreme = |aggregate: &str| {
        f.server.select(
            &format!("SELECT ({aggregate}(?v) AS ?n) WHERE {{ {pattern} }}"),
            "n",
        )
    };
    assert_eq!(
        rows[0]["lower"]["value"].as_str(),
        extreme("MIN").first().map(String::as_str)
    );
    assert_eq!(
        rows[rows.len() - 1]["upper"]["value"].as_str(),
        extreme("MAX").first().map(String::as_str)
    );
    rows
}

#[test]
fn integer_buckets_count_what_sparql_counts() {
    let f = fixture();
    for (class, buckets) in [(&f.product_types[0], 10), (&f.product_types[1], 3)] {
        let rows = check_against_sparql(class, &vocab("productPropertyNumeric1"), buckets);
        assert!(rows
            .iter()
            .all(|r| r["lower"]["datatype"] == "http://www.w3.org/2001/XMLSchema#integer"));
    }
}

#[test]
fn date_buckets_count_what_sparql_counts() {
    let f = fixture();
    let rows = check_against_sparql(&f.product_types[0], DC_DATE, 7);
    assert!(rows
        .iter()
        .all(|r| r["lower"]["datatype"] == "http://www.w3.org/2001/XMLSchema#date"));
    check_against_sparql(&vocab("Producer"), DC_DATE, 4);
}

#[test]
fn equivalent_sparql_gives_the_same_buckets() {
    let f = fixture();
    let answer = facets(
        &f.server,
        &json!({"class": [{"iri": f.product_types[2]}],
                "view": {"type": "ranges", "property": vocab("productPropertyNumeric2"), "buckets": 5}}),
    );
    let sparql = answer["sparql"].as_str().expect("sparql");
    assert!(sparql.contains("VALUES"), "{sparql}");
    let response = f.server.query(sparql, "application/sparql-results+json");
    assert_eq!(response.status(), 200, "{sparql}");
    let body: Value = response.json().expect("json");
    let theirs: Vec<(Value, u64)> = body["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| {
            let count = b["count"]["value"].as_str().and_then(|c| c.parse().ok());
            (b["lower"]["value"].clone(), count.unwrap_or(u64::MAX))
        })
        .collect();
    let ours: Vec<(Value, u64)> = answer["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["lower"]["value"].clone(),
                r["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(ours, theirs);
}

#[test]
fn ranges_in_xml_get_urls_and_errors() {
    let f = fixture();
    let response = client()
        .get(f.server.url("/api/facets"))
        .query(&[
            ("class", f.product_types[0].as_str()),
            ("view", "ranges"),
            ("view-property", &vocab("productPropertyNumeric1")),
            ("buckets", "3"),
            ("format", "xml"),
        ])
        .send()
        .expect("request");
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/xml");
    let text = response.text().expect("text");
    assert!(
        text.contains(r#"<facets view="ranges" complete="true""#),
        "{text}"
    );
    assert_eq!(text.matches("<row ").count(), 3, "{text}");
    assert_eq!(text.matches(r#"inclusive="true""#).count(), 1, "{text}");
    for (body, needle) in [
        (r#"{"view": {"type": "ranges"}}"#, "property"),
        (
            r#"{"view": {"type": "ranges", "property": "no iri"}}"#,
            "no iri",
        ),
    ] {
        assert_rejected(&f.server, body, needle);
    }
    // Values that are neither numbers nor dates make no buckets.
    let answer = facets(
        &f.server,
        &json!({"class": [{"iri": f.product_types[0]}],
                "view": {"type": "ranges", "property": "http://www.w3.org/2000/01/rdf-schema#label"}}),
    );
    assert_eq!(answer["total"], 0);
    assert_eq!(answer["complete"], true);
}
