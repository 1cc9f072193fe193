//! DBpedia Lookup clients switching hosts: the old service's routes and answers
//! (`github.com/dbpedia/lookup`: `LookupResource.scala` for the routes and `QueryClass`,
//! `Searcher.scala` for `thing`, `EntitiesSerialization.scala` for the XML and JSON
//! shapes: `Label URI Description Classes Categories Templates Redirects Refcount`, JSON
//! `uri label description refCount classes categories templates redirects`), and the new
//! one (`github.com/dbpedia/dbpedia-lookup`: `LookupSearcher.java` for `docs`, arrays of
//! strings per field, `maxResults=0` as a count, `LookupSearcherServlet.java` and
//! `doc/server.md` for `format` JSON, JSON_RAW, JSON_FULL, XML and `<results>`).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;
#[path = "http/indexed.rs"]
mod indexed;

use indexed::IndexedServer;
use lodestone_server::settings::ServerSettings;
use reqwest::blocking::Response;
use serde_json::Value;
use std::sync::OnceLock;
use std::time::Duration;

const DATA: &str = r#"
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix dbr: <http://dbpedia.org/resource/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
dbo:Person a owl:Class ; rdfs:label "person"@en .
dbo:Artist a owl:Class ; rdfs:subClassOf dbo:Person ; rdfs:label "artist"@en .
dbo:MusicalArtist a owl:Class ; rdfs:subClassOf dbo:Artist ; rdfs:label "musical artist"@en .
dbo:Place a owl:Class ; rdfs:label "place"@en .
dbr:David_Bowie a dbo:MusicalArtist ; rdfs:label "David Bowie"@en ; rdfs:comment "English singer"@en .
dbr:David_Lynch a dbo:Person ; rdfs:label "David Lynch"@en ; rdfs:comment "American filmmaker"@en .
dbr:David_City a dbo:Place ; rdfs:label "David City"@en ; rdfs:comment "A city in Nebraska"@en .
dbr:Ziggy dbo:creator dbr:David_Bowie .
"#;

fn server() -> &'static IndexedServer {
    static SERVER: OnceLock<IndexedServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        IndexedServer::start(
            ServerSettings::default(),
            Duration::from_secs(120),
            |store| common::load(store, DATA),
        )
    })
}

fn get(path: &str, params: &[(&str, &str)], accept: &str) -> Response {
    common::client()
        .get(format!("{}{path}", server().base))
        .query(params)
        .header("Accept", accept)
        .send()
        .expect("request")
}

fn old_uris(path: &str, class: &str) -> Vec<String> {
    let response = get(
        path,
        &[
            ("QueryString", "David"),
            ("QueryClass", class),
            ("MaxHits", "10"),
        ],
        "application/json",
    );
    assert_eq!(response.status(), 200, "{path} {class}");
    let json: Value = response.json().expect("json");
    let mut uris: Vec<String> = json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["uri"].as_str().unwrap_or_default().to_owned())
        .collect();
    uris.sort();
    uris
}

const BOWIE: &str = "http://dbpedia.org/resource/David_Bowie";
const LYNCH: &str = "http://dbpedia.org/resource/David_Lynch";
const CITY: &str = "http://dbpedia.org/resource/David_City";

#[test]
fn old_api_reads_query_class_as_dbpedia_lookup_did() {
    for path in [
        "/api/search/KeywordSearch",
        "/api/search.asmx/KeywordSearch",
    ] {
        for none in [
            "",
            "thing",
            "Thing",
            "owl:Thing",
            "http://www.w3.org/2002/07/owl#Thing",
        ] {
            assert_eq!(
                old_uris(path, none),
                [BOWIE, CITY, LYNCH],
                "{path} {none:?}"
            );
        }
        // Prefixed and bare names; subclasses count (DBpedia Lookup issue 49).
        for person in [
            "dbo:Person",
            "dbpedia-owl:Person",
            "person",
            "http://dbpedia.org/ontology/Person",
        ] {
            assert_eq!(old_uris(path, person), [BOWIE, LYNCH], "{path} {person}");
        }
        assert_eq!(old_uris(path, "dbo:Place"), [CITY]);
        let refused = get(
            path,
            &[("QueryString", "David"), ("QueryClass", "nosuch:Person")],
            "application/json",
        );
        assert_eq!(refused.status(), 400, "an unknown prefix is not 0 results");
        let body = refused.text().expect("body");
        assert!(
            body.contains("QueryClass") && body.contains("nosuch"),
            "{body}"
        );
    }
    let prefix = get(
        "/api/search.asmx/PrefixSearch",
        &[("QueryString", "David B"), ("QueryClass", "dbo:Artist")],
        "application/xml",
    );
    assert_eq!(prefix.status(), 200);
    let body = prefix.text().expect("xml");
    assert!(body.contains(&format!("<URI>{BOWIE}</URI>")), "{body}");
}

#[test]
fn old_api_answers_keep_every_element_of_the_original() {
    let xml = get(
        "/api/search/KeywordSearch",
        &[("QueryString", "Bowie")],
        "application/xml",
    )
    .text()
    .expect("xml");
    let order = [
        "<Result>",
        "<Label>",
        "<URI>",
        "<Description>",
        "<Classes>",
        "<Categories/>",
        "<Templates/>",
        "<Redirects/>",
        "<Refcount>",
        "</Result>",
    ];
    let mut at = 0;
    for element in order {
        let found = xml[at..]
            .find(element)
            .unwrap_or_else(|| panic!("{element} after {at} in {xml}"));
        at += found;
    }
    let json: Value = get(
        "/api/search/KeywordSearch",
        &[("QueryString", "Bowie")],
        "application/json",
    )
    .json()
    .expect("json");
    let result = &json["results"][0];
    for key in [
        "uri",
        "label",
        "description",
        "refCount",
        "classes",
        "categories",
        "templates",
        "redirects",
    ] {
        assert!(result.get(key).is_some(), "{key} in {result}");
    }
}

#[test]
fn new_api_answers_docs() {
    let json: Value = get(
        "/api/search",
        &[("query", "David"), ("maxResults", "10")],
        "*/*",
    )
    .json()
    .expect("json");
    let docs = json["docs"].as_array().expect("docs");
    assert_eq!(docs.len(), 3, "{json}");
    let bowie = docs
        .iter()
        .find(|d| d["resource"][0] == BOWIE)
        .expect("Bowie");
    // JSON marks the query's words, as lookup.dbpedia.org does; JSON_RAW does not.
    assert_eq!(bowie["label"], serde_json::json!(["<B>David</B> Bowie"]));
    assert_eq!(bowie["comment"], serde_json::json!(["English singer"]));
    assert_eq!(bowie["typeName"], serde_json::json!(["MusicalArtist"]));
    assert_eq!(bowie["refCount"], serde_json::json!(["1"]));
    assert!(bowie["score"][0]
        .as_str()
        .is_some_and(|s| s.parse::<f64>().is_ok()));

    let typed: Value = get(
        "/api/search",
        &[("query", "David"), ("typeName", "dbo:Person")],
        "*/*",
    )
    .json()
    .expect("json");
    assert_eq!(typed["docs"].as_array().map(Vec::len), Some(2), "{typed}");
    let counted: Value = get(
        "/api/search",
        &[("query", "David"), ("maxResults", "0")],
        "*/*",
    )
    .json()
    .expect("json");
    assert_eq!(
        counted["docs"][0]["count"],
        serde_json::json!(["3"]),
        "{counted}"
    );
    let full: Value = get(
        "/api/search",
        &[("query", "Bowie"), ("format", "JSON_FULL")],
        "*/*",
    )
    .json()
    .expect("json");
    assert_eq!(full["docs"][0]["resource"][0]["value"], BOWIE, "{full}");
    assert_eq!(
        full["docs"][0]["label"][0],
        serde_json::json!({"value": "David Bowie", "highlight": "David <B>Bowie</B>"}),
        "{full}"
    );
    let raw: Value = get(
        "/api/search",
        &[("query", "Bowie"), ("format", "JSON_RAW")],
        "*/*",
    )
    .json()
    .expect("json");
    assert_eq!(
        raw["docs"][0]["label"],
        serde_json::json!(["David Bowie"]),
        "{raw}"
    );
    let xml = get(
        "/api/search",
        &[("query", "Bowie"), ("format", "XML")],
        "*/*",
    )
    .text()
    .expect("xml");
    assert!(
        xml.contains(&format!("<results><result><resource>{BOWIE}</resource>")),
        "{xml}"
    );
    let refused = get(
        "/api/search",
        &[("query", "Bowie"), ("format", "CSV")],
        "*/*",
    );
    assert_eq!(refused.status(), 400);
    // Lodestone's own `q=` keeps its shape.
    let own: Value = get("/api/search", &[("q", "Bowie")], "*/*")
        .json()
        .expect("json");
    assert!(
        own["results"].is_array() && own.get("docs").is_none(),
        "{own}"
    );
}
