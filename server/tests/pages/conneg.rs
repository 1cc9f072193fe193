//! The content negotiation matrix of `/resource`, `/data`, `/page` and `/describe`.

use crate::common::{content_type, error_code, header};
use crate::support::{get, server};

const CHROMIUM: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

#[test]
fn resource_redirects_by_accept() {
    let server = server();
    let cases: [(&str, &str); 20] = [
        (CHROMIUM, "/page/alice"),
        (FIREFOX, "/page/alice"),
        ("*/*", "/data/alice.ttl"),
        ("", "/data/alice.ttl"),
        ("text/html", "/page/alice"),
        ("application/xhtml+xml", "/page/alice"),
        ("text/turtle", "/data/alice.ttl"),
        ("application/n-triples", "/data/alice.nt"),
        ("application/rdf+xml", "/data/alice.rdf"),
        ("application/ld+json", "/data/alice.jsonld"),
        ("application/n-quads", "/data/alice.nq"),
        ("text/n3", "/data/alice.n3"),
        ("application/x-turtle", "/data/alice.ttl"),
        ("text/rdf+n3", "/data/alice.n3"),
        // Equal qualities: the server's preference (Turtle) decides.
        (
            "application/rdf+xml;q=0.5, text/turtle;q=0.5",
            "/data/alice.ttl",
        ),
        ("text/html;q=0.5, application/ld+json;q=0.5", "/page/alice"),
        ("text/html;q=0.9, text/turtle;q=0.4", "/page/alice"),
        ("text/*", "/data/alice.ttl"),
        ("application/*", "/data/alice.nt"),
        ("*/*;q=0.1, application/n-quads", "/data/alice.nq"),
    ];
    for (accept, location) in cases {
        let response = get(&server, "/resource/alice", accept);
        assert_eq!(response.status(), 303, "Accept: {accept}");
        assert_eq!(header(&response, "location"), location, "Accept: {accept}");
        assert!(
            header(&response, "vary").contains("accept"),
            "Accept: {accept}"
        );
    }
}

#[test]
fn unknown_types_get_406_listing_the_formats() {
    let server = server();
    for path in [
        "/resource/alice",
        "/data/alice",
        "/describe?uri=http%3A%2F%2Fother.org%2Fx",
    ] {
        let response = get(&server, path, "image/png");
        assert_eq!(response.status(), 406, "{path}");
        assert!(header(&response, "vary").contains("accept"));
        let body: serde_json::Value = response.json().expect("json");
        assert_eq!(body["code"], "not_acceptable");
        let available = body["available"].to_string();
        for expected in [
            "text/turtle",
            "text/html",
            "application/ld+json",
            "format=nq",
        ] {
            assert!(available.contains(expected), "{path}: {available}");
        }
    }
    let response = get(&server, "/resource/alice?format=pdf", "");
    assert_eq!(response.status(), 406);
}

#[test]
fn suffixes_and_format_parameter_override_accept() {
    let server = server();
    let suffixes = [
        ("ttl", "text/turtle"),
        ("nt", "application/n-triples"),
        ("rdf", "application/rdf+xml"),
        ("jsonld", "application/ld+json"),
        ("nq", "application/n-quads"),
        ("n3", "text/n3"),
    ];
    for (suffix, media_type) in suffixes {
        let response = get(&server, &format!("/data/alice.{suffix}"), CHROMIUM);
        assert_eq!(response.status(), 200, "{suffix}");
        assert_eq!(content_type(&response), media_type, "{suffix}");
        assert!(header(&response, "vary").contains("accept"));
        let response = get(
            &server,
            &format!("/describe?uri=http%3A%2F%2Fother.org%2Fx&format={suffix}"),
            CHROMIUM,
        );
        assert_eq!(content_type(&response), media_type, "describe {suffix}");
        let response = get(
            &server,
            &format!("/resource/alice?format={suffix}"),
            CHROMIUM,
        );
        assert_eq!(
            header(&response, "location"),
            format!("/data/alice.{suffix}")
        );
    }
    let response = get(&server, "/resource/alice?format=html", "text/turtle");
    assert_eq!(header(&response, "location"), "/page/alice");
}

#[test]
fn negotiated_urls_name_the_representation_they_served() {
    let server = server();
    let response = get(&server, "/data/alice", "application/rdf+xml");
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/rdf+xml");
    assert_eq!(header(&response, "content-location"), "/data/alice.rdf");
    // A browser asking /data/ gets RDF (the XML it accepts), never HTML.
    let response = get(&server, "/data/alice", FIREFOX);
    assert_eq!(content_type(&response), "application/rdf+xml");
    let response = get(&server, "/describe?uri=http%3A%2F%2Fother.org%2Fx", FIREFOX);
    assert_eq!(content_type(&response), "text/html");
    let response = get(&server, "/describe?uri=http%3A%2F%2Fother.org%2Fx", "*/*");
    assert_eq!(content_type(&response), "text/turtle");
    assert_eq!(
        header(&response, "content-location"),
        "/describe?uri=http%3A%2F%2Fother.org%2Fx&format=ttl"
    );
    let response = get(&server, "/page/alice", "*/*");
    assert_eq!(content_type(&response), "text/html");
    let links = header(&response, "link");
    for alternate in [
        "</data/alice.ttl>; rel=\"alternate\"; type=\"text/turtle\"",
        "</data/alice.nq>; rel=\"alternate\"; type=\"application/n-quads\"",
        "</page/alice>; rel=\"alternate\"; type=\"text/html\"",
    ] {
        assert!(links.contains(alternate), "{links}");
    }
}

#[test]
fn in_place_resources_answer_with_content_location() {
    use lodestone_server::settings::PageSettings;
    use lodestone_server::settings::ServerSettings;
    let settings = ServerSettings::default()
        .with_base_iri(crate::support::BASE)
        .with_pages(PageSettings::default().with_resource_in_place(true));
    let server = crate::common::TestServer::with_data(settings, crate::support::DATA);
    let response = get(&server, "/resource/alice", "application/n-triples");
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/n-triples");
    assert_eq!(header(&response, "content-location"), "/data/alice.nt");
    let response = get(&server, "/resource/alice", CHROMIUM);
    assert_eq!(content_type(&response), "text/html");
    assert_eq!(header(&response, "content-location"), "/page/alice");
}

#[test]
fn unknown_entities_are_404_and_bad_parameters_400() {
    let server = server();
    for path in [
        "/resource/nobody",
        "/page/nobody",
        "/data/nobody.ttl",
        "/describe?uri=http%3A%2F%2Fx.org%2Fnone",
    ] {
        let response = get(&server, path, "");
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(error_code(response), "entity_not_found");
    }
    assert_eq!(
        get(&server, "/describe?uri=not%20an%20iri", "").status(),
        400
    );
    assert_eq!(get(&server, "/describe", "").status(), 400);
    assert_eq!(get(&server, "/page/alice?page=0", "").status(), 400);
}

#[test]
fn the_default_base_is_the_servers_own_resource_path() {
    use lodestone_server::settings::ServerSettings;
    let server = crate::common::TestServer::start(ServerSettings::default().with_open_updates());
    let iri = server.url("/resource/thing");
    let response = crate::support::client()
        .put(server.url("/store?default"))
        .header("Content-Type", "application/n-triples")
        .body(format!("<{iri}> <http://example.org/p> \"v\" .\n"))
        .send()
        .expect("put");
    assert!(response.status().is_success());
    let response = get(&server, "/resource/thing", "text/turtle");
    assert_eq!(response.status(), 303);
    assert_eq!(header(&response, "location"), "/data/thing.ttl");
    let body = get(&server, "/data/thing.nt", "").text().expect("body");
    assert!(body.contains(&format!("<{iri}>")), "{body}");
}
