//! SPARQL `SERVICE` over real sockets: refused unless the endpoint is allow-listed, refused
//! on loopback even when listed (by address or by name), and bounded in time and size when
//! allowed. The allowed calls go to a second real server on 127.0.0.1, which only the
//! test-only override of the address check lets through.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;

use common::{bindings, client, error_code, numbered_triples, TestServer, EX};
use lodestone_server::settings::ServerSettings;
use lodestone_server::settings::ServicePolicy;
use oxrdf::NamedNode;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// A SELECT query sent with GET, answered as SPARQL JSON.
fn query(server: &TestServer, text: &str) -> reqwest::blocking::Response {
    server.query(text, "application/sparql-results+json")
}

/// A listener that accepts nothing (nonblocking), to check that no request was made.
fn silent_listener() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!("http://{}/sparql", listener.local_addr().expect("addr"));
    (listener, url)
}

fn endpoint(url: &str) -> NamedNode {
    NamedNode::new(url).expect("an IRI")
}

/// The error code and message of a refused query.
fn refusal(response: reqwest::blocking::Response) -> (u16, String, String) {
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().expect("error body is JSON");
    (
        status,
        body["code"].as_str().unwrap_or("").to_owned(),
        body["message"].as_str().unwrap_or("").to_owned(),
    )
}

#[test]
fn service_to_loopback_is_refused_without_a_request() {
    let (listener, url) = silent_listener();
    // Not listed: refused.
    let server = TestServer::start(ServerSettings::default());
    let (status, code, message) = refusal(query(
        &server,
        &format!("SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}"),
    ));
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    assert!(message.contains("allow-list"), "{message}");

    // Listed, by address and by a name that resolves to loopback: still refused, since the
    // address is checked after resolution.
    let port = listener.local_addr().expect("addr").port();
    let by_name = format!("http://localhost:{port}/sparql");
    let policy = ServicePolicy::default()
        .with_allowed(endpoint(&url))
        .with_allowed(endpoint(&by_name));
    let server = TestServer::start(ServerSettings::default().with_service_policy(policy));
    for target in [&url, &by_name] {
        let start = Instant::now();
        let (status, code, message) = refusal(query(
            &server,
            &format!("SELECT * WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}"),
        ));
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
        assert!(message.contains("non-public address"), "{message}");
        assert!(start.elapsed() < Duration::from_secs(2));
    }
    // SILENT turns the refusal into an empty contribution, as the standard asks.
    let response = query(
        &server,
        &format!("SELECT * WHERE {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }}"),
    );
    assert_eq!(response.status(), 200);
    std::thread::sleep(Duration::from_millis(200));
    assert!(listener.accept().is_err(), "the server made no request");
    let health = client().get(server.url("/health")).send().expect("health");
    assert_eq!(health.status(), 200);
}

#[test]
fn an_allow_listed_endpoint_answers_and_joins_with_local_data() {
    let remote = TestServer::with_data(
        ServerSettings::default(),
        &format!("<{EX}a> <{EX}name> \"Alice\" .\n<{EX}b> <{EX}name> \"Bob\" .\n"),
    );
    let remote_url = remote.url("/sparql");
    let policy = ServicePolicy::default()
        .with_allowed(endpoint(&remote_url))
        .allowing_private_addresses_for_tests();
    let local = TestServer::with_data(
        ServerSettings::default().with_service_policy(policy),
        &format!("<{EX}a> <{EX}age> 42 .\n"),
    );
    let response = query(&local,
        &format!(
            "SELECT ?name ?age WHERE {{ ?x <{EX}age> ?age . SERVICE <{remote_url}> {{ ?x <{EX}name> ?name }} }}"
        ),
    );
    assert_eq!(response.status(), 200);
    let json: serde_json::Value = response.json().expect("json");
    assert_eq!(bindings(&json, "name"), ["Alice"]);
    assert_eq!(bindings(&json, "age"), ["42"]);

    // Another endpoint on the same server is not on the list.
    let other = remote.url("/sparql?x=1");
    let response = query(
        &local,
        &format!("SELECT * WHERE {{ SERVICE <{other}> {{ ?s ?p ?o }} }}"),
    );
    assert_eq!(error_code(response), "forbidden");
}

#[test]
fn a_large_answer_is_refused_at_the_size_bound() {
    let remote = TestServer::with_data(ServerSettings::default(), &numbered_triples(2000));
    let remote_url = remote.url("/sparql");
    let policy = ServicePolicy::default()
        .with_allowed(endpoint(&remote_url))
        .with_max_response_bytes(4096)
        .allowing_private_addresses_for_tests();
    let local = TestServer::start(ServerSettings::default().with_service_policy(policy));
    let (status, code, message) = refusal(query(
        &local,
        &format!("SELECT * WHERE {{ SERVICE <{remote_url}> {{ ?s ?p ?o }} }}"),
    ));
    assert_eq!(
        (status, code.as_str()),
        (400, "evaluation_error"),
        "{message}"
    );
    assert!(message.contains("larger than 4096 bytes"), "{message}");
}

#[test]
fn an_endpoint_that_never_answers_is_cut_off_at_the_time_bound() {
    // Accepts connections and reads nothing: the call can only end by its time bound.
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/sparql", listener.local_addr().expect("addr"));
    let holder = std::thread::spawn(move || {
        let (socket, _) = listener.accept().expect("accept");
        std::thread::sleep(Duration::from_secs(4));
        drop(socket);
    });
    let policy = ServicePolicy::default()
        .with_allowed(endpoint(&url))
        .with_timeout(Duration::from_secs(1))
        .allowing_private_addresses_for_tests();
    let local = TestServer::start(ServerSettings::default().with_service_policy(policy));
    let start = Instant::now();
    let (status, code, message) = refusal(query(
        &local,
        &format!("SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}"),
    ));
    let elapsed = start.elapsed();
    assert_eq!(
        (status, code.as_str()),
        (400, "evaluation_error"),
        "{message}"
    );
    assert!(message.contains("within 1.0 s"), "{message}");
    assert!(
        elapsed < Duration::from_millis(2500),
        "answered after {elapsed:?}"
    );
    holder.join().expect("holder thread");
}
