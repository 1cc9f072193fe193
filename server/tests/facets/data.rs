//! The shared server over a BSBM subset, and values drawn from it for random queries.

use crate::common::{client, TestServer};
use lodestone_server::settings::ServerSettings;
use std::io::{BufRead, BufReader};
use std::sync::OnceLock;

pub const VOCAB: &str = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/";
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
pub const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
/// The first 30,000 triples: 150 products of 4 producers, their types and features
/// (enough variety; the SPARQL side of the comparison grows fast with the data).
const TRIPLES: usize = 30_000;

/// Values from the data, drawn once with SPARQL.
pub struct Fixture {
    pub server: TestServer,
    pub product_types: Vec<String>,
    pub features: Vec<String>,
    pub producers: Vec<String>,
    pub countries: Vec<String>,
    pub words: Vec<String>,
    pub numbers: Vec<i64>,
}

pub fn vocab(local: &str) -> String {
    format!("{VOCAB}{local}")
}

pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/bsbm/bsbm-1k.nt.zst");
        let file = std::fs::File::open(path).expect("BSBM 1k in ../shared/data");
        let decoder = zstd::Decoder::new(file).expect("zstd");
        let mut text = String::new();
        for line in BufReader::new(decoder).lines().take(TRIPLES) {
            text.push_str(&line.expect("line"));
            text.push('\n');
        }
        let server = TestServer::with_data(ServerSettings::default(), &text);
        let column = |query: &str, var: &str| server.select(query, var);
        let product_types = column(
            &format!("SELECT ?t (COUNT(?p) AS ?n) WHERE {{ ?p a ?t . ?p <{}> ?x }} GROUP BY ?t ORDER BY DESC(?n) ?t LIMIT 40", vocab("producer")),
            "t",
        );
        let features = column(
            &format!("SELECT ?f (COUNT(?p) AS ?n) WHERE {{ ?p <{}> ?f }} GROUP BY ?f ORDER BY DESC(?n) ?f LIMIT 60", vocab("productFeature")),
            "f",
        );
        let producers = column(&format!("SELECT DISTINCT ?p WHERE {{ ?x <{}> ?p }} ORDER BY ?p", vocab("producer")), "p");
        let countries = column(&format!("SELECT DISTINCT ?c WHERE {{ ?x <{}> ?c }} ORDER BY ?c", vocab("country")), "c");
        let labels = column(
            &format!("SELECT ?l WHERE {{ ?p <{}> ?x ; <{RDFS_LABEL}> ?l }} ORDER BY ?l LIMIT 300", vocab("producer")),
            "l",
        );
        let mut words: Vec<String> = labels
            .iter()
            .flat_map(|l| l.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>())
            .filter(|w| w.len() >= 4)
            .collect();
        words.sort();
        words.dedup();
        let numbers = column(
            &format!("SELECT DISTINCT ?v WHERE {{ ?p <{}> ?v }} ORDER BY ?v", vocab("productPropertyNumeric1")),
            "v",
        )
        .iter()
        .filter_map(|v| v.parse().ok())
        .collect();
        assert!(product_types.len() > 5 && features.len() > 10 && words.len() > 10);
        Fixture { server, product_types, features, producers, countries, words, numbers }
    })
}

/// POSTs a JSON facet query and returns the JSON answer (asserting 200).
pub fn facets(server: &TestServer, query: &serde_json::Value) -> serde_json::Value {
    let response = client()
        .post(server.url("/api/facets"))
        .json(query)
        .send()
        .expect("request");
    assert_eq!(response.status(), 200, "{query}");
    response.json().expect("json")
}

/// The `(value, count)` of an answer's rows (each asserted exact), sorted.
pub fn exact_rows(answer: &serde_json::Value) -> Vec<(String, u64)> {
    let mut rows: Vec<(String, u64)> = answer["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            assert_eq!(r["exact"], true, "{r}");
            (
                r["value"]["value"].as_str().expect("value").to_owned(),
                r["count"].as_u64().expect("count"),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The `(?k, ?n)` rows of a SPARQL `SELECT ?k ?n`, sorted.
pub fn sparql_counts(server: &TestServer, query: &str) -> Vec<(String, u64)> {
    let results: serde_json::Value = server
        .query(query, "application/sparql-results+json")
        .json()
        .expect("json");
    let mut rows: Vec<(String, u64)> = results["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| {
            (
                b["k"]["value"].as_str().expect("key").to_owned(),
                b["n"]["value"].as_str().expect("n").parse().expect("count"),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// POSTs a JSON facet query `body` and asserts a 400 whose message contains `needle`.
pub fn assert_rejected(server: &TestServer, body: &str, needle: &str) {
    let response = client()
        .post(server.url("/api/facets"))
        .header("Content-Type", "application/json")
        .body(body.to_owned())
        .send()
        .expect("request");
    assert_eq!(response.status(), 400, "{body}");
    let error: serde_json::Value = response.json().expect("json");
    let message = error["message"].as_str().unwrap_or("");
    assert!(message.contains(needle), "{body}: {message}");
}
