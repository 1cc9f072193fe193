//! `/store`: the Graph Store HTTP Protocol — status codes, syntaxes, atomic replacement.

use crate::common::{client, content_type, error_code, header, parse_rdf, TestServer, EX};
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::RdfFormat;
use reqwest::blocking::Response;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

const TOKEN: &str = "gsp-token";
const GRAPH: &str = "http://example.org/graph/1";

fn server() -> TestServer {
    TestServer::start(ServerSettings::default().with_update_token(TOKEN))
}

fn send(
    server: &TestServer,
    method: reqwest::Method,
    graph: Option<&str>,
    content_type: &str,
    body: &str,
) -> Response {
    let mut request = client()
        .request(method, server.url("/store"))
        .bearer_auth(TOKEN);
    request = match graph {
        Some(g) => request.query(&[("graph", g)]),
        None => request.query(&[("default", "")]),
    };
    if !content_type.is_empty() {
        request = request.header("Content-Type", content_type);
    }
    request.body(body.to_owned()).send().expect("request")
}

fn get(server: &TestServer, graph: Option<&str>, accept: &str) -> Response {
    let request = client().get(server.url("/store")).header("Accept", accept);
    match graph {
        Some(g) => request.query(&[("graph", g)]),
        None => request.query(&[("default", "")]),
    }
    .send()
    .expect("request")
}

fn ntriples(server: &TestServer, graph: Option<&str>) -> Vec<String> {
    let response = get(server, graph, "application/n-triples");
    assert_eq!(response.status(), 200);
    parse_rdf(&response.bytes().expect("body"), RdfFormat::NTriples)
}

const TURTLE: &str = r#"
@prefix ex: <http://example.org/> .
ex:a ex:name "A" ; ex:size 3 ; ex:tag "x"@en .
ex:b ex:name "B" ; ex:link ex:a .
"#;

#[test]
fn put_get_round_trip_in_every_syntax() {
    let server = server();
    let created = send(
        &server,
        reqwest::Method::PUT,
        Some(GRAPH),
        "text/turtle",
        TURTLE,
    );
    assert_eq!(created.status(), 201);
    let expected = ntriples(&server, Some(GRAPH));
    assert_eq!(expected.len(), 5);

    let syntaxes = [
        ("text/turtle", RdfFormat::Turtle),
        ("application/n-triples", RdfFormat::NTriples),
        ("application/rdf+xml", RdfFormat::RdfXml),
        (
            "application/ld+json",
            RdfFormat::JsonLd {
                profile: oxrdfio::JsonLdProfileSet::empty(),
            },
        ),
        ("application/n-quads", RdfFormat::NQuads),
        ("application/trig", RdfFormat::TriG),
        ("text/n3", RdfFormat::N3),
    ];
    for (media_type, format) in syntaxes {
        let response = get(&server, Some(GRAPH), media_type);
        assert_eq!(response.status(), 200, "{media_type}");
        assert_eq!(content_type(&response), media_type);
        let body = response.bytes().expect("body");
        assert_eq!(parse_rdf(&body, format), expected, "GET as {media_type}");
        // What was written can be written back: PUT it to another graph and compare.
        let copy = format!("{GRAPH}/copy");
        let text = String::from_utf8(body.to_vec()).expect("utf-8");
        let text = text.replace(GRAPH, &copy);
        let put = send(
            &server,
            reqwest::Method::PUT,
            Some(&copy),
            media_type,
            &text,
        );
        assert!(
            put.status() == 201 || put.status() == 204,
            "PUT {media_type}: {}",
            put.status()
        );
        assert_eq!(
            ntriples(&server, Some(&copy)),
            expected,
            "PUT as {media_type}"
        );
    }
    let default = get(&server, Some(GRAPH), "*/*");
    assert_eq!(content_type(&default), "text/turtle");
    assert!(header(&default, "vary")
        .to_ascii_lowercase()
        .contains("accept"));
}

#[test]
fn put_replaces_post_merges_delete_drops() {
    let server = server();
    let one = format!("<{EX}s> <{EX}p> \"one\" .");
    let two = format!("<{EX}s> <{EX}p> \"two\" .");
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "application/n-triples",
            &one
        )
        .status(),
        201
    );
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "application/n-triples",
            &two
        )
        .status(),
        204
    );
    assert_eq!(
        ntriples(&server, Some(GRAPH)),
        [format!("<{EX}s> <{EX}p> \"two\" .")]
    );
    assert_eq!(
        send(
            &server,
            reqwest::Method::POST,
            Some(GRAPH),
            "application/n-triples",
            &one
        )
        .status(),
        204
    );
    assert_eq!(ntriples(&server, Some(GRAPH)).len(), 2);
    let other = format!("{GRAPH}/other");
    assert_eq!(
        send(
            &server,
            reqwest::Method::POST,
            Some(&other),
            "application/n-triples",
            &one
        )
        .status(),
        201
    );

    let head = client()
        .head(server.url("/store"))
        .query(&[("graph", GRAPH)])
        .send()
        .expect("request");
    assert_eq!(head.status(), 200);
    assert_eq!(content_type(&head), "text/turtle");

    assert_eq!(
        send(&server, reqwest::Method::DELETE, Some(GRAPH), "", "").status(),
        204
    );
    assert_eq!(get(&server, Some(GRAPH), "text/turtle").status(), 404);
    let head = client()
        .head(server.url("/store"))
        .query(&[("graph", GRAPH)])
        .send()
        .expect("request");
    assert_eq!(head.status(), 404);
    let again = send(&server, reqwest::Method::DELETE, Some(GRAPH), "", "");
    assert_eq!(again.status(), 404);
    assert_eq!(error_code(again), "graph_not_found");
    assert_eq!(
        ntriples(&server, Some(&other)).len(),
        1,
        "other graphs are untouched"
    );
}

#[test]
fn an_empty_put_creates_an_empty_graph() {
    let server = server();
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "text/turtle",
            ""
        )
        .status(),
        201
    );
    assert!(ntriples(&server, Some(GRAPH)).is_empty());
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "text/turtle",
            ""
        )
        .status(),
        204
    );
}

#[test]
fn the_default_graph() {
    let server = server();
    let triple = format!("<{EX}s> <{EX}p> <{EX}o> .");
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            None,
            "application/n-triples",
            &triple
        )
        .status(),
        204
    );
    assert_eq!(ntriples(&server, None), [triple]);
    assert_eq!(
        send(&server, reqwest::Method::DELETE, None, "", "").status(),
        204
    );
    assert!(ntriples(&server, None).is_empty());
    assert_eq!(
        get(&server, None, "text/turtle").status(),
        200,
        "the default graph always exists"
    );
}

#[test]
fn syntax_errors_are_400_with_the_position_and_change_nothing() {
    let server = server();
    let good = format!("<{EX}s> <{EX}p> \"kept\" .\n");
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "application/n-triples",
            &good
        )
        .status(),
        201
    );
    let bad = format!("<{EX}s> <{EX}p> \"new\" .\n<{EX}s> <{EX}p> .\n");
    for method in [reqwest::Method::PUT, reqwest::Method::POST] {
        let response = send(&server, method, Some(GRAPH), "application/n-triples", &bad);
        assert_eq!(response.status(), 400);
        let body: serde_json::Value = response.json().expect("json");
        assert_eq!(body["code"], "rdf_syntax");
        let message = body["message"].as_str().unwrap_or("");
        assert!(message.contains("line 2"), "{message}");
    }
    assert_eq!(ntriples(&server, Some(GRAPH)), [good.trim_end().to_owned()]);
}

#[test]
fn request_errors() {
    let server = server();
    let unknown = send(
        &server,
        reqwest::Method::PUT,
        Some(GRAPH),
        "application/x-yaml",
        "a: b",
    );
    assert_eq!(unknown.status(), 415);
    let body: serde_json::Value = unknown.json().expect("json");
    assert!(body["supported"]
        .as_array()
        .expect("list")
        .iter()
        .any(|t| t == "text/turtle"));
    assert_eq!(
        send(&server, reqwest::Method::PUT, Some(GRAPH), "", "").status(),
        415
    );

    let no_target = client()
        .post(server.url("/store"))
        .bearer_auth(TOKEN)
        .header("Content-Type", "text/turtle")
        .body("")
        .send()
        .expect("request");
    assert_eq!(no_target.status(), 400);
    let message = no_target.json::<serde_json::Value>().expect("json")["message"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(message.contains("?graph="), "{message}");
    let both = client()
        .get(format!(
            "{}?default&graph={}",
            server.url("/store"),
            "http%3A%2F%2Fa.example%2F"
        ))
        .send()
        .expect("request");
    assert_eq!(both.status(), 400);
    let relative = client()
        .get(server.url("/store"))
        .query(&[("graph", "relative/iri")])
        .send()
        .expect("request");
    assert_eq!(relative.status(), 400);
    let missing = get(&server, Some("http://example.org/nothing"), "text/turtle");
    assert_eq!(missing.status(), 404);
    assert_eq!(get(&server, Some(GRAPH), "image/png").status(), 406);

    // A quad document may not write into another graph than the one named.
    let quads = format!("<{EX}s> <{EX}p> <{EX}o> <{EX}elsewhere> .\n");
    let elsewhere = send(
        &server,
        reqwest::Method::PUT,
        Some(GRAPH),
        "application/n-quads",
        &quads,
    );
    assert_eq!(elsewhere.status(), 400);
    assert_eq!(
        get(&server, Some(GRAPH), "text/turtle").status(),
        404,
        "nothing was created"
    );
}

#[test]
fn writes_need_the_token() {
    let server = server();
    let triple = format!("<{EX}s> <{EX}p> <{EX}o> .");
    for method in [
        reqwest::Method::PUT,
        reqwest::Method::POST,
        reqwest::Method::DELETE,
    ] {
        let response = client()
            .request(method.clone(), server.url("/store"))
            .query(&[("graph", GRAPH)])
            .header("Content-Type", "application/n-triples")
            .body(triple.clone())
            .send()
            .expect("request");
        assert_eq!(response.status(), 401, "{method}");
        assert!(header(&response, "www-authenticate").starts_with("Bearer"));
    }
    let cross = client()
        .put(server.url("/store"))
        .query(&[("graph", GRAPH)])
        .bearer_auth(TOKEN)
        .header("Origin", "http://evil.example")
        .header("Content-Type", "application/n-triples")
        .body(triple.clone())
        .send()
        .expect("request");
    assert_eq!(cross.status(), 403);
    assert_eq!(get(&server, Some(GRAPH), "text/turtle").status(), 404);
    let disabled = TestServer::start(ServerSettings::default());
    let response = client()
        .delete(disabled.url("/store"))
        .query(&[("default", "")])
        .send()
        .expect("request");
    assert_eq!(response.status(), 403);
}

#[test]
fn uploads_over_the_limit_are_413() {
    let server = TestServer::start(
        ServerSettings::default()
            .with_update_token(TOKEN)
            .with_max_upload_bytes(1000),
    );
    let big: String = (0..100)
        .map(|i| format!("<{EX}s{i}> <{EX}p> <{EX}o{i}> .\n"))
        .collect();
    assert!(big.len() > 1000);
    let response = send(
        &server,
        reqwest::Method::PUT,
        Some(GRAPH),
        "application/n-triples",
        &big,
    );
    assert_eq!(response.status(), 413);
    assert_eq!(error_code(response), "payload_too_large");
    let small = format!("<{EX}s> <{EX}p> <{EX}o> .\n");
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "application/n-triples",
            &small
        )
        .status(),
        201
    );
}

/// Readers running while a graph is replaced again and again always see one whole version:
/// never an empty graph, never a mix.
#[test]
fn put_is_atomic_for_concurrent_readers() {
    let _serial = crate::common::serial();
    let server = Arc::new(server());
    let version = |tag: &str, n: usize| -> String {
        (0..n)
            .map(|i| format!("<{EX}s{i}> <{EX}version> \"{tag}\" .\n"))
            .collect()
    };
    let (a, b) = (version("a", 50), version("b", 80));
    assert_eq!(
        send(
            &server,
            reqwest::Method::PUT,
            Some(GRAPH),
            "application/n-triples",
            &a
        )
        .status(),
        201
    );
    let done = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let readers: Vec<_> = (0..2)
        .map(|i| {
            let (server, done, reads) =
                (Arc::clone(&server), Arc::clone(&done), Arc::clone(&reads));
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    if i == 0 {
                        let query = format!(
                            "SELECT ?v WHERE {{ GRAPH <{GRAPH}> {{ ?s <{EX}version> ?v }} }}"
                        );
                        let values = server.select(&query, "v");
                        let all_a = values.len() == 50 && values.iter().all(|v| v == "a");
                        let all_b = values.len() == 80 && values.iter().all(|v| v == "b");
                        assert!(
                            all_a || all_b,
                            "saw {} values: {:?}",
                            values.len(),
                            values.first()
                        );
                    } else {
                        let lines = ntriples(&server, Some(GRAPH));
                        assert!(
                            lines.len() == 50 || lines.len() == 80,
                            "saw {} triples",
                            lines.len()
                        );
                    }
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for round in 0..60 {
        let body = if round % 2 == 0 { &b } else { &a };
        assert_eq!(
            send(
                &server,
                reqwest::Method::PUT,
                Some(GRAPH),
                "application/n-triples",
                body
            )
            .status(),
            204
        );
    }
    done.store(true, Ordering::Relaxed);
    for reader in readers {
        reader.join().expect("a reader saw a partial graph");
    }
    assert!(
        reads.load(Ordering::Relaxed) > 10,
        "the readers ran during the writes"
    );
}
