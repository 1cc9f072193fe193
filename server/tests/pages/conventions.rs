//! Linked-data conventions that clients written elsewhere rely on (issue 23 §3): complete
//! documents cut only by the time budget, UTF-8 declared, CORS on the read-only routes,
//! `format=` and `url=` where documented, and an HTML 404 for a browser.

use crate::common::{content_type, error_code, header, parse_rdf, TestServer};
use crate::support::{client, get, server, ALICE_STATEMENTS, BASE};
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::RdfFormat;
use std::io::Read;
use std::time::Duration;

const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// A store where `hub` has `links` incoming links.
fn hub_server(settings: ServerSettings, links: usize) -> TestServer {
    TestServer::with_store(settings.with_base_iri(BASE), |store| {
        let mut trig = String::with_capacity(links * 100);
        trig.push_str("<http://example.org/resource/hub> <http://www.w3.org/2000/01/rdf-schema#label> \"Hub\" .\n");
        for i in 0..links {
            trig.push_str(&format!("<http://example.org/resource/s{i}> <http://example.org/links> <http://example.org/resource/hub> .\n"));
        }
        crate::common::load(store, &trig);
    })
}

#[test]
fn describe_documents_are_complete_by_default() {
    // 3,749 statements, as DBpedia's `Song` in the bundled sample: `/data/Song.nt` had 2,000.
    let server = hub_server(ServerSettings::default(), 3_748);
    let described = get(
        &server,
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fhub&format=nt",
        "",
    );
    assert_eq!(described.status(), 200);
    assert!(!header(&described, "link").contains("rel=\"next\""));
    let triples = parse_rdf(&described.bytes().expect("body"), RdfFormat::NTriples);
    assert_eq!(triples.len(), 3_749);
    for suffix in ["ttl", "rdf", "jsonld", "nq"] {
        let format = RdfFormat::from_extension(suffix).expect("format");
        let body = get(&server, &format!("/data/hub.{suffix}"), "")
            .bytes()
            .expect("body");
        assert_eq!(parse_rdf(&body, format).len(), 3_749, "{suffix}");
    }
    // Paged on request, and past the end is not found.
    let second = get(
        &server,
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fhub&format=nt&page=2",
        "",
    );
    assert_eq!(second.status(), 200);
    let body = second.text().expect("body");
    assert!(
        body.contains("<http://www.w3.org/ns/hydra/core#previous>"),
        "{body}"
    );
    assert!(body.contains(
        "<http://rdfs.org/ns/void#triples> \"3749\"^^<http://www.w3.org/2001/XMLSchema#integer>"
    ));
    let third = get(
        &server,
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fhub&format=nt&page=3",
        "",
    );
    assert_eq!(third.status(), 404);
}

#[test]
fn a_document_that_cannot_finish_in_time_ends_in_a_transfer_error() {
    let _serial = crate::common::serial();
    let budget = Duration::from_secs(1);
    let server = hub_server(
        ServerSettings::default().with_query_timeout(budget),
        300_000,
    );
    let mut response = client()
        .get(server.url("/data/hub.nt"))
        .send()
        .expect("request");
    assert_eq!(response.status(), 200, "statements were flowing");
    // A client that reads too slowly: the document cannot be sent within the budget.
    std::thread::sleep(budget + Duration::from_millis(500));
    let mut body = Vec::new();
    let read = response.read_to_end(&mut body);
    assert!(
        read.is_err(),
        "a cut document must end in an error, not look complete ({} bytes)",
        body.len()
    );
}

#[test]
fn rdf_responses_declare_utf8() {
    let server = server();
    for path in [
        "/data/alice.ttl",
        "/data/alice.n3",
        "/data/alice.nt",
        "/data/alice.nq",
        "/data/alice.rdf",
        "/data/alice.jsonld",
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2FZ%C3%BCrich&format=ttl",
        "/store?default",
    ] {
        let response = get(&server, path, "text/turtle");
        assert_eq!(response.status(), 200, "{path}");
        assert!(
            header(&response, "content-type").ends_with("; charset=utf-8"),
            "{path}: {}",
            header(&response, "content-type")
        );
    }
    let construct = server.query(
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 3",
        "text/turtle",
    );
    assert_eq!(
        header(&construct, "content-type"),
        "text/turtle; charset=utf-8"
    );
    // Decoded as the header says, the non-ASCII IRI survives.
    let body = get(&server, "/data/Z%C3%BCrich.ttl", "")
        .text()
        .expect("text");
    assert!(body.contains("Zürich"), "{body}");
}

#[test]
fn read_only_routes_allow_any_origin() {
    let server = server();
    for path in [
        "/data/alice.ttl",
        "/page/alice",
        "/resource/alice",
        "/describe?uri=http%3A%2F%2Fother.org%2Fx",
        "/api/openapi.json",
        "/api/search?q=alice",
        "/data/nobody.ttl",
    ] {
        let response = client()
            .get(server.url(path))
            .header("Origin", "https://elsewhere.example")
            .send()
            .expect("request");
        assert_eq!(
            header(&response, "access-control-allow-origin"),
            "*",
            "{path} ({})",
            response.status()
        );
    }
    for (path, method) in [
        ("/api/facets", "POST"),
        ("/fct/service", "POST"),
        ("/api/search", "GET"),
        ("/data/alice.ttl", "GET"),
        ("/describe", "GET"),
    ] {
        let preflight = client()
            .request(reqwest::Method::OPTIONS, server.url(path))
            .header("Origin", "https://elsewhere.example")
            .header("Access-Control-Request-Method", method)
            .header("Access-Control-Request-Headers", "content-type")
            .send()
            .expect("preflight");
        assert!(
            preflight.status().is_success(),
            "{path}: {}",
            preflight.status()
        );
        assert_eq!(
            header(&preflight, "access-control-allow-origin"),
            "*",
            "{path}"
        );
        assert!(
            header(&preflight, "access-control-allow-methods").contains(method),
            "{path}"
        );
        assert!(
            header(&preflight, "access-control-allow-headers").contains("content-type"),
            "{path}"
        );
    }
    let posted = client()
        .post(server.url("/fct/service"))
        .header("Origin", "https://elsewhere.example")
        .header("Content-Type", "text/xml")
        .body("<query><text>alice</text><view type=\"text\"/></query>")
        .send()
        .expect("post");
    assert_eq!(header(&posted, "access-control-allow-origin"), "*");
    // Routes that write keep their own rules.
    let home = client()
        .get(server.url("/"))
        .header("Origin", "https://elsewhere.example")
        .send()
        .expect("home");
    assert_eq!(header(&home, "access-control-allow-origin"), "");
}

#[test]
fn format_works_on_pages_and_describe_takes_url() {
    let server = server();
    let response = get(&server, "/page/alice?format=jsonld", FIREFOX);
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/ld+json");
    assert_eq!(header(&response, "content-location"), "/data/alice.jsonld");
    let format = RdfFormat::from_extension("jsonld").expect("format");
    assert_eq!(
        parse_rdf(&response.bytes().expect("body"), format).len(),
        ALICE_STATEMENTS
    );
    let response = get(&server, "/page/alice?format=nt", "");
    assert_eq!(content_type(&response), "application/n-triples");
    assert_eq!(
        content_type(&get(&server, "/page/alice?format=html", "")),
        "text/html"
    );
    // Virtuoso's `/describe?url=`.
    let response = get(
        &server,
        "/describe?url=http%3A%2F%2Fexample.org%2Fresource%2Falice&format=nt",
        "",
    );
    assert_eq!(response.status(), 200);
    assert_eq!(
        parse_rdf(&response.bytes().expect("body"), RdfFormat::NTriples).len(),
        ALICE_STATEMENTS
    );
}

#[test]
fn a_browser_gets_an_html_404_for_a_missing_entity() {
    let server = server();
    for path in [
        "/resource/nobody",
        "/page/nobody",
        "/data/nobody.ttl",
        "/describe?uri=http%3A%2F%2Fx.org%2Fnone",
    ] {
        let response = get(&server, path, FIREFOX);
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(content_type(&response), "text/html", "{path}");
        let html = response.text().expect("html");
        assert!(html.contains("Nothing is known about"), "{path}: {html}");
        assert!(html.contains("href=\"/search?q="), "{path}");
        // A program still gets the JSON error.
        let response = get(&server, path, "*/*");
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(response), "entity_not_found", "{path}");
    }
}
