//! Every surface that reads the text index, asked while the index is being built: none answers
//! `200` with nothing found; each says `503`, `Retry-After` and how far the build is, and
//! `/status` shows the build. The build is held still at a known point (its progress callback
//! blocks after the first 100,000 quads), so the test waits on no clock.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;

use common::{client, header, Running, EX};
use lodestone_indexer::{IndexSettings, TextIndex};
use lodestone_server::settings::ServerSettings;
use lodestone_server::AppState;
use lodestone_store::load::{BulkLoader, Input, ParseOptions, RdfFormat};
use lodestone_store::{Store, StoreOptions};
use reqwest::blocking::Response;
use serde_json::Value;
use std::sync::mpsc;
use std::sync::Arc;

/// Entities in the store; three quads each, so that the build reports progress (every
/// 100,000 quads) before it ends.
const ENTITIES: usize = 40_000;

fn store_of_widgets(dir: &std::path::Path) -> Arc<Store> {
    let store = Arc::new(Store::open(dir.join("data"), StoreOptions::default()).expect("store"));
    let mut data = String::with_capacity(ENTITIES * 160);
    for i in 0..ENTITIES {
        data.push_str(&format!(
            "<{EX}w{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"Widget {i}\" .\n\
             <{EX}w{i}> <{EX}about> \"a sturdy gadget\"@en .\n\
             <{EX}w{i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Thing> .\n"
        ));
    }
    let options = ParseOptions {
        format: Some(RdfFormat::NTriples),
        ..ParseOptions::default()
    };
    let file = dir.join("widgets.nt");
    std::fs::write(&file, data).expect("write the data");
    BulkLoader::new(&store)
        .with_parse_options(options)
        .load(&[Input::File(file)])
        .expect("load");
    store
}

fn get(base: &str, path: &str, params: &[(&str, &str)], accept: &str) -> Response {
    client()
        .get(format!("{base}{path}"))
        .query(params)
        .header("accept", accept)
        .send()
        .expect("request")
}

/// Asserts a JSON 503 saying the build has read `held` of the store's quads (where it is held:
/// the first batch boundary past 100,000; whole entities, so a third as many entities).
fn assert_building(what: &str, response: Response, held: u64) {
    assert_eq!(response.status(), 503, "{what}");
    let retry: u64 = header(&response, "retry-after").parse().expect(what);
    assert!((1..=30).contains(&retry), "{what}: Retry-After {retry}");
    let body: Value = response.json().expect(what);
    assert_eq!(body["code"], "index_building", "{what}: {body}");
    assert_eq!(body["progress"]["done"], held, "{what}: {body}");
    assert_eq!(body["progress"]["entities"], held / 3, "{what}: {body}");
    assert_eq!(body["progress"]["total"], 3 * ENTITIES, "{what}: {body}");
    assert_eq!(body["progress"]["unit"], "quads", "{what}: {body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("{held} of 120000 quads")),
        "{what}: {message}"
    );
}

#[test]
fn every_text_surface_answers_503_with_progress_while_the_index_is_built() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = store_of_widgets(dir.path());
    let index = Arc::new(
        TextIndex::open(dir.path().join("data/text-index"), IndexSettings::default())
            .expect("index"),
    );
    let state = AppState::new(Arc::clone(&store), ServerSettings::default());
    state.attach_text_index(Arc::clone(&index));
    let server = Running::start(state);
    let base = server.base.clone();

    let (reached, wait_reached) = mpsc::channel::<u64>();
    let (release, wait_release) = mpsc::channel::<()>();
    let building = {
        let (store, index) = (Arc::clone(&store), Arc::clone(&index));
        std::thread::spawn(move || {
            let mut held = false;
            index
                .rebuild(&store, move |read| {
                    if !held && read >= 100_000 {
                        held = true;
                        reached.send(read).expect("the test waits");
                        wait_release.recv().expect("the test releases");
                    }
                })
                .expect("rebuild")
        })
    };
    let held = wait_reached
        .recv()
        .expect("the build reached 100,000 quads");
    assert!(
        (100_000..3 * ENTITIES as u64).contains(&held) && held % 3 == 0,
        "held at {held} quads"
    );

    let json = "application/json";
    assert_building(
        "search",
        get(&base, "/api/search", &[("q", "widget")], json),
        held,
    );
    assert_building(
        "autocomplete",
        get(&base, "/api/autocomplete", &[("q", "widg")], json),
        held,
    );
    assert_building(
        "lookup q=",
        get(&base, "/api/lookup", &[("q", "widget")], json),
        held,
    );
    assert_building(
        "KeywordSearch",
        get(
            &base,
            "/api/search/KeywordSearch",
            &[("QueryString", "widget"), ("format", "json")],
            json,
        ),
        held,
    );
    assert_building(
        "facet text",
        get(&base, "/api/facets", &[("text", "widget")], json),
        held,
    );
    for (name, query) in [
        (
            "bif:contains",
            "SELECT ?s WHERE { ?s ?p ?o . ?o bif:contains \"widget\" }",
        ),
        ("text:query", "SELECT ?s WHERE { ?s text:query \"widget\" }"),
        (
            "lodestone:text",
            "SELECT ?s WHERE { ?s lodestone:text \"widget\" }",
        ),
    ] {
        assert_building(
            name,
            get(
                &base,
                "/sparql",
                &[("query", query)],
                "application/sparql-results+json",
            ),
            held,
        );
    }
    // A SPARQL query without text patterns is answered.
    let plain = get(
        &base,
        "/sparql",
        &[("query", "ASK { ?s ?p ?o }")],
        "application/sparql-results+json",
    );
    assert_eq!(plain.status(), 200);

    let page = get(
        &base,
        "/search",
        &[("q", "widget")],
        "text/html,application/xhtml+xml",
    );
    assert_eq!(page.status(), 503);
    assert!(!header(&page, "retry-after").is_empty());
    let html = page.text().expect("page");
    assert!(html.contains("being built"), "{html}");
    assert!(
        html.contains(&format!("{held} of 120000 quads read")),
        "{html}"
    );

    let status: Value = get(&base, "/status", &[], json).json().expect("status");
    let text = &status["text_index"];
    assert_eq!(text["state"], "building", "{status}");
    assert_eq!(text["build"]["done"], held, "{text}");
    assert_eq!(text["build"]["total"], 3 * ENTITIES, "{text}");
    assert!(text["build"]["rate"].as_f64().is_some(), "{text}");

    release.send(()).expect("the build waits");
    let report = building.join().expect("build thread");
    assert_eq!(report.entities, ENTITIES as u64);

    let found = get(&base, "/api/search", &[("q", "widget")], json);
    assert_eq!(found.status(), 200);
    let found: Value = found.json().expect("json");
    assert_eq!(found["total"], ENTITIES, "{found}");
    let status: Value = get(&base, "/status", &[], json).json().expect("status");
    assert_eq!(status["text_index"]["state"], "ready", "{status}");
    assert_eq!(status["text_index"]["documents"], ENTITIES, "{status}");
}

#[test]
fn an_index_never_built_answers_503_not_an_empty_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store =
        Arc::new(Store::open(dir.path().join("data"), StoreOptions::default()).expect("store"));
    common::load(
        &store,
        &format!("<{EX}a> <http://www.w3.org/2000/01/rdf-schema#label> \"Ada\" ."),
    );
    // No follower: nothing builds it, as in the moments before a server's first build starts.
    let index = Arc::new(
        TextIndex::open(dir.path().join("data/text-index"), IndexSettings::default())
            .expect("index"),
    );
    let state = AppState::new(Arc::clone(&store), ServerSettings::default());
    state.attach_text_index(index);
    let server = Running::start(state);
    let response = get(
        &server.base,
        "/api/search",
        &[("q", "ada")],
        "application/json",
    );
    assert_eq!(response.status(), 503);
    let body: Value = response.json().expect("json");
    assert_eq!(body["code"], "index_building", "{body}");
}
