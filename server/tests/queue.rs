//! The query queue over real sockets: with every slot taken a query waits for one (within
//! its budget) instead of being refused, a full queue is answered `503 busy` at once, and a
//! write does not wait for the query slots.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;

use common::{client, error_code, numbered_triples, TestServer};
use lodestone_server::settings::ServerSettings;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A count over a fourfold product: it runs until its budget stops it.
const FOREVER: &str = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";

/// A server with one query slot, a queue of `queue`, open updates and some data.
fn server(queue: usize) -> Arc<TestServer> {
    Arc::new(TestServer::with_data(
        ServerSettings::default()
            .with_max_concurrent_queries(1)
            .with_query_queue(queue)
            .with_open_updates()
            .with_query_timeout(Duration::from_secs(10)),
        &numbered_triples(200),
    ))
}

/// Sends FOREVER with a budget of `seconds` on another thread; returns its status.
fn hold_the_slot(server: &Arc<TestServer>, seconds: u32) -> std::thread::JoinHandle<u16> {
    let server = Arc::clone(server);
    std::thread::spawn(move || {
        client()
            .get(server.url("/sparql"))
            .query(&[("query", FOREVER), ("timeout", &seconds.to_string())])
            .send()
            .expect("request")
            .status()
            .as_u16()
    })
}

fn status(server: &TestServer) -> serde_json::Value {
    client()
        .get(server.url("/status"))
        .send()
        .expect("status")
        .json()
        .expect("json")
}

/// Polls /status until `key` equals `n`.
fn wait_for(server: &TestServer, key: &str, n: u64) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        if status(server)[key].as_u64() == Some(n) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn a_query_waits_for_the_slot_and_a_full_queue_is_refused() {
    let server = server(1);
    let holder = hold_the_slot(&server, 1);
    assert!(wait_for(&server, "queries_in_flight", 1));
    let waiter = {
        let server = Arc::clone(&server);
        std::thread::spawn(move || {
            let start = Instant::now();
            let status = server.query("ASK {}", "*/*").status().as_u16();
            (status, start.elapsed())
        })
    };
    assert!(wait_for(&server, "queries_queued", 1));
    // The one place in the queue is taken: refused at once.
    let start = Instant::now();
    let refused = server.query("ASK {}", "*/*");
    assert_eq!(refused.status(), 503);
    assert_eq!(error_code(refused), "busy");
    assert!(start.elapsed() < Duration::from_millis(500));
    // The holder times out at its budget; the waiter then gets the slot and its answer.
    assert_eq!(holder.join().expect("holder"), 503);
    let (status, waited) = waiter.join().expect("waiter");
    assert_eq!(status, 200);
    assert!(waited >= Duration::from_millis(300), "waited {waited:?}");
    assert_eq!(status_of_queue(&server), (0, 0));
}

fn status_of_queue(server: &TestServer) -> (u64, u64) {
    let status = status(server);
    (
        status["queries_in_flight"].as_u64().unwrap_or(u64::MAX),
        status["queries_queued"].as_u64().unwrap_or(u64::MAX),
    )
}

#[test]
fn a_write_does_not_wait_for_the_query_slots() {
    let server = server(4);
    let holder = hold_the_slot(&server, 3);
    assert!(wait_for(&server, "queries_in_flight", 1));
    let start = Instant::now();
    let written = client()
        .put(server.url("/store"))
        .query(&[("graph", "http://example.com/queue")])
        .header("Content-Type", "application/n-triples")
        .body("<http://example.com/s> <http://example.com/p> \"o\" .\n")
        .send()
        .expect("put");
    assert_eq!(written.status(), 201);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "the write waited {:?} behind a query",
        start.elapsed()
    );
    assert_eq!(holder.join().expect("holder"), 503);
}
