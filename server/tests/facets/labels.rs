//! Issue 25: facet rows are labelled by the label rule every surface shares — the default
//! label properties, `skos:prefLabel` first, then a property named `name`, `label` or `title`
//! in any namespace — and otherwise by the IRI's local name.

use crate::common::TestServer;
use crate::data::facets;
use lodestone_server::settings::ServerSettings;
use serde_json::json;

#[test]
fn facet_labels_follow_the_shared_label_rule() {
    let server = TestServer::with_data(
        ServerSettings::default(),
        r#"
        @prefix ex: <http://example.org/> .
        @prefix tut: <http://stardog.com/tutorial/> .
        @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        ex:bowie a ex:Artist ; tut:name "David Bowie" .
        ex:eno a ex:Artist ; rdfs:label "eno (rdfs)" ; skos:prefLabel "Brian Eno" .
        ex:fripp a ex:Artist .
        "#,
    );
    let answer = facets(
        &server,
        &json!({"class": [{"iri": "http://example.org/Artist"}], "view": {"type": "entities", "limit": 10}}),
    );
    let mut labels: Vec<(String, String)> = answer["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            (
                row["value"]["value"].as_str().expect("iri").to_owned(),
                row["label"].as_str().expect("label").to_owned(),
            )
        })
        .collect();
    labels.sort();
    assert_eq!(
        labels,
        [
            (
                "http://example.org/bowie".to_owned(),
                "David Bowie".to_owned()
            ),
            ("http://example.org/eno".to_owned(), "Brian Eno".to_owned()),
            ("http://example.org/fripp".to_owned(), "fripp".to_owned()),
        ]
    );
}

/// Issue 25: the operator's label properties (`--label-properties`) label facet rows as they
/// label the pages: first the listed properties, then the fallback by name.
#[test]
fn facet_labels_honour_the_configured_label_properties() {
    let mut settings = ServerSettings::default();
    settings.pages.labels.properties = vec!["http://example.org/nick".to_owned()];
    let server = TestServer::with_data(
        settings,
        r#"
        @prefix ex: <http://example.org/> .
        @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
        ex:eno a ex:Artist ; skos:prefLabel "Brian Eno" ; ex:nick "Eno" .
        ex:fripp a ex:Artist ; skos:prefLabel "Robert Fripp" .
        "#,
    );
    let answer = facets(
        &server,
        &json!({"class": [{"iri": "http://example.org/Artist"}], "view": {"type": "entities", "limit": 10}}),
    );
    let mut labels: Vec<&str> = answer["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row["label"].as_str().expect("label"))
        .collect();
    labels.sort_unstable();
    // `skos:prefLabel` is not listed, but its local name makes it a fallback label.
    assert_eq!(labels, ["Eno", "Robert Fripp"]);
}
