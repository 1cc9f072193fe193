//! HTTP integration tests: the real application on a real socket (127.0.0.1, port 0), a
//! temporary store, and blocking reqwest clients. One binary, one module per area.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[path = "http/binary.rs"]
mod binary;
#[path = "http/broadcaster.rs"]
mod broadcaster;
#[path = "http/clients.rs"]
mod clients;
#[path = "http/common.rs"]
mod common;
#[path = "http/entity_rank.rs"]
mod entity_rank;
#[path = "http/graph_store.rs"]
mod graph_store;
#[path = "http/limits.rs"]
mod limits;
#[path = "http/sparql.rs"]
mod sparql;
#[path = "http/updates.rs"]
mod updates;
