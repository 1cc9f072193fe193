//! `/api/facets`: the JSON contract, XML answers, `GET` URLs, the 400s and the time budget.

use crate::common::{client, content_type};
use crate::data::{assert_rejected, exact_rows, facets, fixture, sparql_counts, vocab, RDF_TYPE};
use serde_json::{json, Value};

#[test]
fn issue_shape_classes_view() {
    let f = fixture();
    let answer = facets(
        &f.server,
        &json!({"property": [{"iri": vocab("productFeature"), "node": {"value": [{"op": "eq", "iri": f.features[0]}]}}],
                "view": {"type": "classes", "limit": 3}}),
    );
    assert_eq!(answer["view"], "classes");
    assert_eq!(answer["complete"], true);
    assert!(answer["time_ms"].is_u64() && answer["total"].as_u64() > Some(0));
    assert!(answer["sparql"]
        .as_str()
        .is_some_and(|s| s.starts_with("SELECT")));
    let rows = answer["rows"].as_array().expect("rows");
    assert!(!rows.is_empty() && rows.len() <= 3);
    let row = &rows[0];
    assert_eq!(row["value"]["type"], "uri");
    assert!(row["label"].is_string() && row["count"].is_u64());
    assert_eq!(row["exact"], true);
    // Counts come most first.
    let counts: Vec<u64> = rows.iter().filter_map(|r| r["count"].as_u64()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn labels_come_from_rdfs_label() {
    let f = fixture();
    let answer = facets(
        &f.server,
        &json!({"class": [{"iri": f.product_types[0]}], "view": {"type": "entities", "limit": 1}}),
    );
    let row = &answer["rows"][0];
    let iri = row["value"]["value"].as_str().expect("iri");
    let label = f.server.select(
        &format!("SELECT ?l WHERE {{ <{iri}> <http://www.w3.org/2000/01/rdf-schema#label> ?l }}"),
        "l",
    );
    assert_eq!(row["label"].as_str(), label.first().map(String::as_str));
}

#[test]
fn get_urls_carry_the_whole_query() {
    let f = fixture();
    let query =
        json!({"class": [{"iri": f.product_types[1]}], "view": {"type": "properties", "limit": 5}});
    let posted = facets(&f.server, &query);
    let via_q: Value = client()
        .get(f.server.url("/api/facets"))
        .query(&[("q", query.to_string())])
        .send()
        .expect("request")
        .json()
        .expect("json");
    assert_eq!(via_q["rows"], posted["rows"]);
    let flat: Value = client()
        .get(f.server.url("/api/facets"))
        .query(&[
            ("class", f.product_types[1].as_str()),
            ("view", "properties"),
            ("limit", "5"),
        ])
        .send()
        .expect("request")
        .json()
        .expect("json");
    assert_eq!(flat["rows"], posted["rows"]);
}

#[test]
fn xml_by_accept_or_format() {
    let f = fixture();
    let body = json!({"class": [{"iri": f.product_types[0]}], "view": {"type": "values", "property": RDF_TYPE}});
    for (accept, url) in [
        ("application/xml", "/api/facets"),
        ("*/*", "/api/facets?format=xml"),
    ] {
        let response = client()
            .post(f.server.url(url))
            .header("Accept", accept)
            .json(&body)
            .send()
            .expect("request");
        assert_eq!(response.status(), 200);
        assert_eq!(content_type(&response), "application/xml");
        let text = response.text().expect("text");
        assert!(
            text.contains(r#"<facets view="values" complete="true""#),
            "{text}"
        );
        assert!(
            text.contains("<sparql>") && text.contains(r#"exact="true""#),
            "{text}"
        );
    }
}

#[test]
fn bad_input_is_400_naming_the_problem() {
    let f = fixture();
    let cases = [
        (r#"{"view": {"type": "pie"}}"#, "pie"),
        (r#"{"view": {"type": "entities""#, "malformed"),
        (
            r#"{"class": [{"iri": "no iri"}], "view": {"type": "classes"}}"#,
            "no iri",
        ),
        (r#"{"class": []}"#, "view"),
        (r#"{"view": {"type": "values"}}"#, "property"),
    ];
    for (body, needle) in cases {
        assert_rejected(&f.server, body, needle);
    }
}

#[test]
fn an_exhausted_budget_is_reported_not_hidden() {
    let f = fixture();
    // A text scan over the whole store and every subject's properties cannot finish in 1 ms.
    let answer = facets(
        &f.server,
        &json!({"text": "e", "timeout_ms": 1, "view": {"type": "properties", "limit": 5}}),
    );
    assert_eq!(answer["complete"], false);
    assert_eq!(answer["total_exact"], false);
    for row in answer["rows"].as_array().expect("rows") {
        assert_eq!(row["exact"], false);
    }
}

/// The start views (a view on the root, no constraint) are read from the store's distinct
/// counts: complete and exact even with a 1 ms budget, which a walk over every subject's
/// quads cannot meet, and equal to SPARQL's counts.
#[test]
fn start_views_are_complete_in_one_millisecond_and_equal_sparql() {
    let f = fixture();
    let cases = [
        (
            "classes",
            format!(
                "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s <{RDF_TYPE}> ?k }} GROUP BY ?k"
            ),
        ),
        (
            "properties",
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?k ?o } GROUP BY ?k".to_owned(),
        ),
        (
            "properties-in",
            "SELECT ?k (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s ?k ?o . ?o ?q ?v } GROUP BY ?k"
                .to_owned(),
        ),
    ];
    for (view, query) in cases {
        let answer = facets(
            &f.server,
            &json!({"timeout_ms": 1, "view": {"type": view, "limit": 1000}}),
        );
        assert_eq!(answer["complete"], true, "{view}");
        assert_eq!(answer["total_exact"], true, "{view}");
        let got = exact_rows(&answer);
        assert!(!got.is_empty(), "{view}");
        let expected = sparql_counts(&f.server, &query);
        assert_eq!(got, expected, "{view}");
    }
}

/// A view over more entities than its budget can list answers with what it counted so far —
/// rows with lower-bound counts, `complete: false` — never zero rows because time ran out.
#[test]
fn a_view_over_many_entities_answers_what_it_counted_in_time() {
    const ENTITIES: u64 = 200_000;
    let server = crate::common::TestServer::with_store(
        lodestone_server::settings::ServerSettings::default(),
        |store| {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("many.nt");
            let mut text = String::new();
            for i in 0..ENTITIES {
                text.push_str(&format!(
                    "<http://e/x{i}> <{RDF_TYPE}> <http://e/C> .\n<http://e/x{i}> <http://e/p> \"{i}\" .\n"
                ));
            }
            std::fs::write(&path, text).expect("write");
            lodestone_store::load::BulkLoader::new(store)
                .load(&[lodestone_store::load::Input::File(path)])
                .expect("bulk load");
        },
    );
    let answer = facets(
        &server,
        &json!({"class": [{"iri": "http://e/C"}], "timeout_ms": 5,
                "view": {"type": "properties", "limit": 10}}),
    );
    let rows = answer["rows"].as_array().expect("rows");
    assert!(!rows.is_empty(), "{answer}");
    let complete = answer["complete"].as_bool().expect("complete");
    for row in rows {
        let count = row["count"].as_u64().expect("count");
        assert!(count > 0 && count <= ENTITIES, "{row}");
        assert_eq!(row["exact"], complete);
        if complete {
            assert_eq!(count, ENTITIES);
        }
    }
}

/// The home page's counts come from the statistics and count entities as the faceted search
/// its class links lead to: an entity typed in two graphs counts once for its class.
#[test]
fn the_home_page_counts_distinct_entities() {
    let server = crate::common::TestServer::with_data(
        lodestone_server::settings::ServerSettings::default(),
        "<http://e/a> a <http://e/C> .\n\
         <http://e/b> a <http://e/C> .\n\
         GRAPH <http://e/g> { <http://e/a> a <http://e/C> . <http://e/a> <http://e/p> <http://e/b> . }\n",
    );
    let body = client()
        .get(server.url("/"))
        .send()
        .expect("home")
        .text()
        .expect("body");
    assert!(body.contains("<strong>4</strong> statements"), "{body}");
    assert!(body.contains("<strong>2</strong> entities"), "{body}");
    let class = body
        .split("title=\"http://e/C\"")
        .nth(1)
        .expect("the class is listed");
    assert!(class.contains("<span class=\"count\">2</span>"), "{class}");
}
