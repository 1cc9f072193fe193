//! Limits: streaming, time budgets, cancellation, the row cap, query slots, body sizes, and the
//! status endpoints that report them.

use crate::common::{
    client, content_type, counted_status, error_code, header, numbered_triples, serial, TestServer,
    EX,
};
use lodestone_server::settings::ServerSettings;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// A query that would run for hours over 200 triples (200⁴ combinations counted in memory;
/// `spareval` checks for cancellation once per 200³ of them, a fraction of a second).
const FOREVER: &str = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";
/// A query that streams rows at once and would go on for days.
const ENDLESS_ROWS: &str = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";
/// 490,000 rows over 700 triples.
const CROSS: &str = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }";

fn forever_server(settings: ServerSettings) -> TestServer {
    TestServer::with_data(settings, &numbered_triples(200))
}

fn big_server(settings: ServerSettings) -> TestServer {
    TestServer::with_data(settings, &numbered_triples(700))
}

#[test]
fn results_stream_first_bytes_before_the_query_finishes() {
    let _serial = serial();
    let server = big_server(ServerSettings::default());
    let start = Instant::now();
    let mut response = client()
        .get(server.url("/sparql"))
        .query(&[("query", CROSS)])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("request");
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "x-lodestone-truncated"),
        "",
        "not cut (yet): the header is absent"
    );
    let mut first = [0; 1];
    response.read_exact(&mut first).expect("first byte");
    let first_byte = start.elapsed();
    let mut rest = Vec::new();
    let total_bytes = 1 + response.read_to_end(&mut rest).expect("body") as u64;
    let total = start.elapsed();
    let json: serde_json::Value =
        serde_json::from_slice(&[&first[..], &rest].concat()).expect("complete JSON");
    assert_eq!(
        json["results"]["bindings"].as_array().map(Vec::len),
        Some(490_000)
    );
    assert!(
        total_bytes > 50_000_000,
        "a big result: {total_bytes} bytes"
    );
    assert!(
        first_byte * 10 < total,
        "the first byte came after {first_byte:?} of {total:?}: the result was not streamed"
    );
}

/// The server's memory does not grow with the size of a result: measured on a real
/// `lodestone serve` process while it sends some 150 MB.
#[test]
fn memory_does_not_grow_with_result_size() {
    let _serial = serial();
    let server = crate::binary::Process::serve(
        &["--no-sample", "--open-updates", "--query-timeout", "120"],
        &[],
    );
    let put = client()
        .put(server.url("/store"))
        .query(&[("default", "")])
        .header("Content-Type", "application/n-triples")
        .body(numbered_triples(700))
        .send()
        .expect("request");
    assert_eq!(put.status(), 204);
    let before = server.rss_kib();
    let mut response = client()
        .get(server.url("/sparql"))
        .query(&[("query", CROSS)])
        .header("Accept", "text/tab-separated-values")
        .send()
        .expect("request");
    assert_eq!(response.status(), 200);
    let mut buffer = vec![0; 64 * 1024];
    let (mut bytes, mut peak) = (0_u64, before);
    loop {
        let n = response.read(&mut buffer).expect("body");
        if n == 0 {
            break;
        }
        bytes += n as u64;
        if bytes % (4 << 20) < n as u64 {
            peak = peak.max(server.rss_kib());
        }
    }
    assert!(bytes > 50_000_000, "{bytes} bytes");
    let growth_mib = peak.saturating_sub(before) / 1024;
    assert!(
        growth_mib < 64,
        "the server grew by {growth_mib} MiB while sending {} MiB",
        bytes >> 20
    );
}

#[test]
fn a_query_over_budget_is_cancelled_and_the_server_stays_responsive() {
    let _serial = serial();
    let budget = Duration::from_secs(2);
    let server = forever_server(ServerSettings::default().with_query_timeout(budget));
    let start = Instant::now();
    let response = server.query(FOREVER, "*/*");
    let elapsed = start.elapsed();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().expect("json");
    assert_eq!(body["code"], "timeout");
    assert!(body["message"].as_str().unwrap_or("").contains("2 s"));
    assert!(
        elapsed < budget + Duration::from_secs(1),
        "answered after {elapsed:?}"
    );
    let health_start = Instant::now();
    let health = client().get(server.url("/health")).send().expect("health");
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().expect("text"), "ok");
    assert!(health_start.elapsed() < Duration::from_millis(500));
    assert!(
        server.wait_in_flight(0, Duration::from_secs(2)),
        "the engine stopped"
    );
    let metrics = client()
        .get(server.url("/metrics"))
        .send()
        .expect("metrics")
        .text()
        .expect("text");
    assert!(metrics.contains("lodestone_timeouts_total 1"), "{metrics}");
}

/// Over 700 triples `spareval` checks for cancellation only once per 700³ combinations (many
/// seconds): the client is still answered at the budget, and the slot is freed when the engine
/// notices.
#[test]
fn the_answer_comes_at_the_budget_even_when_the_engine_is_slow_to_stop() {
    let _serial = serial();
    let budget = Duration::from_secs(1);
    let server = big_server(ServerSettings::default().with_query_timeout(budget));
    let start = Instant::now();
    let response = server.query(FOREVER, "*/*");
    assert_eq!(response.status(), 503);
    assert!(
        start.elapsed() < budget + Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        client()
            .get(server.url("/health"))
            .send()
            .expect("health")
            .status(),
        200
    );
    assert!(
        server.wait_in_flight(0, Duration::from_secs(120)),
        "the engine never stopped"
    );
}

#[test]
fn the_timeout_parameter_lowers_the_budget_but_cannot_raise_it() {
    let _serial = serial();
    let server =
        forever_server(ServerSettings::default().with_query_timeout(Duration::from_secs(3)));
    let start = Instant::now();
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", FOREVER), ("timeout", "0.5")])
        .send()
        .expect("request");
    assert_eq!(response.status(), 503);
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    let start = Instant::now();
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", FOREVER), ("timeout", "1000")])
        .send()
        .expect("request");
    assert_eq!(response.status(), 503);
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_streaming_result_over_budget_is_aborted() {
    let _serial = serial();
    let budget = Duration::from_secs(2);
    let server = big_server(
        ServerSettings::default()
            .with_query_timeout(budget)
            .with_result_row_cap(u64::MAX),
    );
    let start = Instant::now();
    let mut response = server.query(ENDLESS_ROWS, "text/tab-separated-values");
    assert_eq!(
        response.status(),
        200,
        "rows were flowing before the budget ran out"
    );
    let mut sink = Vec::new();
    let read = response.read_to_end(&mut sink);
    assert!(
        read.is_err(),
        "the body must end in an error, not look complete"
    );
    assert!(
        start.elapsed() < budget + Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(server.wait_in_flight(0, Duration::from_secs(1)));
}

#[test]
fn a_client_that_goes_away_cancels_its_query() {
    let _serial = serial();
    let server = big_server(
        ServerSettings::default()
            .with_query_timeout(Duration::from_secs(60))
            .with_result_row_cap(u64::MAX),
    );
    let mut response = server.query(ENDLESS_ROWS, "text/tab-separated-values");
    let mut some = [0; 4096];
    response.read_exact(&mut some).expect("rows");
    assert_eq!(
        client()
            .get(server.url("/status"))
            .send()
            .expect("status")
            .json::<serde_json::Value>()
            .expect("json")["queries_in_flight"],
        1
    );
    drop(response);
    assert!(
        server.wait_in_flight(0, Duration::from_secs(5)),
        "the query kept running after its client left"
    );
}

#[test]
fn a_small_result_cut_at_the_row_cap_has_the_header() {
    let server = big_server(ServerSettings::default().with_result_row_cap(10));
    let response = server.query(CROSS, "application/sparql-results+json");
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "x-lodestone-truncated"), "true");
    let json: serde_json::Value = response.json().expect("a complete, valid document");
    assert_eq!(
        json["results"]["bindings"].as_array().map(Vec::len),
        Some(10)
    );
    let construct = server.query("CONSTRUCT WHERE { ?s ?p ?o }", "application/n-triples");
    assert_eq!(header(&construct, "x-lodestone-truncated"), "true");
    assert_eq!(construct.text().expect("text").lines().count(), 10);
    let under = server.query(&format!("SELECT * WHERE {{ <{EX}s1> ?p ?o }}"), "*/*");
    assert_eq!(header(&under, "x-lodestone-truncated"), "");
}

/// A streamed result cut at the cap ends as a valid document and, for a client that accepts
/// trailers, carries `X-Lodestone-Truncated: true` as a trailer.
#[test]
fn a_streamed_result_cut_at_the_row_cap_has_the_trailer() {
    let server = big_server(ServerSettings::default().with_result_row_cap(5000));
    let response = server.query(CROSS, "text/tab-separated-values");
    assert_eq!(
        header(&response, "trailer").to_ascii_lowercase(),
        "x-lodestone-truncated"
    );
    let text = response.text().expect("complete body");
    assert_eq!(text.lines().count(), 5001, "header line and 5000 rows");

    let raw = raw_get(
        &server,
        &format!("/sparql?query={}", encode(CROSS)),
        &["TE: trailers", "Accept: text/tab-separated-values"],
    );
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response");
    assert!(
        head.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    assert!(
        body.to_ascii_lowercase()
            .ends_with("0\r\nx-lodestone-truncated: true\r\n\r\n"),
        "{}",
        &body[body.len().saturating_sub(80)..]
    );

    let uncut = raw_get(
        &server,
        &format!(
            "/sparql?query={}",
            encode("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 4000")
        ),
        &["TE: trailers", "Accept: text/tab-separated-values"],
    );
    assert!(
        uncut.ends_with("0\r\n\r\n"),
        "no trailer when nothing was cut"
    );
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// An HTTP/1.1 GET over a plain socket, read to the end (the server closes the connection).
fn raw_get(server: &TestServer, target: &str, headers: &[&str]) -> String {
    let address = server.base.trim_start_matches("http://");
    let mut socket = std::net::TcpStream::connect(address).expect("connect");
    let mut request = format!("GET {target} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for h in headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    socket.write_all(request.as_bytes()).expect("send");
    let mut response = Vec::new();
    socket.read_to_end(&mut response).expect("read");
    String::from_utf8_lossy(&response).into_owned()
}

#[test]
fn when_every_slot_is_taken_queries_get_503_with_retry_after() {
    let _serial = serial();
    let server = std::sync::Arc::new(forever_server(
        ServerSettings::default()
            .with_max_concurrent_queries(1)
            .with_query_timeout(Duration::from_secs(3)),
    ));
    let busy = std::sync::Arc::clone(&server);
    let running = std::thread::spawn(move || busy.query(FOREVER, "*/*").status());
    assert!(server.wait_in_flight(1, Duration::from_secs(2)));
    let refused = server.query("ASK {}", "*/*");
    assert_eq!(refused.status(), 503);
    assert_eq!(header(&refused, "retry-after"), "1");
    assert_eq!(error_code(refused), "busy");
    assert_eq!(
        client()
            .get(server.url("/health"))
            .send()
            .expect("health")
            .status(),
        200,
        "health needs no slot"
    );
    assert_eq!(running.join().expect("thread"), 503);
    assert!(
        server.wait_in_flight(0, Duration::from_secs(2)),
        "the engine stopped"
    );
    assert_eq!(
        server.query("ASK {}", "*/*").status(),
        200,
        "the slot is free again"
    );
}

#[test]
fn request_bodies_over_the_limit_are_413() {
    let server = TestServer::start(
        ServerSettings::default()
            .with_max_body_bytes(1000)
            .with_open_updates(),
    );
    let long_query = format!("SELECT * WHERE {{ ?s ?p ?o }} # {}", "x".repeat(2000));
    let direct = client()
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-query")
        .body(long_query.clone())
        .send()
        .expect("request");
    assert_eq!(direct.status(), 413);
    assert_eq!(error_code(direct), "payload_too_large");
    let form = client()
        .post(server.url("/sparql"))
        .form(&[("update", long_query.as_str())])
        .send()
        .expect("request");
    assert_eq!(form.status(), 413);
    let short = client()
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-query")
        .body("ASK {}")
        .send()
        .expect("request");
    assert_eq!(short.status(), 200);
}

#[test]
fn status_metrics_and_health() {
    let server = TestServer::with_data(
        ServerSettings::default(),
        &format!(
            "{}<{EX}g> {{ <{EX}a> <{EX}b> <{EX}c> }}\n",
            numbered_triples(3)
        ),
    );
    assert_eq!(
        client()
            .get(server.url("/health"))
            .send()
            .expect("health")
            .text()
            .expect("text"),
        "ok"
    );
    let _ = server.query("ASK {}", "*/*");
    let (status, status_requests) = counted_status(&server.base, 0);
    assert_eq!(status["quads"], 4);
    assert_eq!(status["named_graphs"], 1);
    assert!(status["last_commit"].as_u64().unwrap_or(0) >= 1);
    assert_eq!(status["queries_in_flight"], 0);
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
    assert!(status["uptime_seconds"].is_u64());
    let response = client()
        .get(server.url("/metrics"))
        .send()
        .expect("metrics");
    assert!(content_type(&response).starts_with("text/plain"));
    let metrics = response.text().expect("text");
    assert!(metrics.contains("lodestone_queries_total 1"), "{metrics}");
    assert!(
        metrics.contains("lodestone_http_requests_total{route=\"/sparql\",status=\"200\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!(
            "lodestone_http_requests_total{{route=\"/status\",status=\"200\"}} {status_requests}"
        )),
        "{metrics}"
    );
    assert!(metrics.contains("# TYPE lodestone_queries_in_flight gauge"));
}
