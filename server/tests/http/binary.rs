//! The `lodestone serve` binary itself: configuration layering and errors, the sample dataset,
//! clean shutdown on SIGTERM.

use crate::common::client;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A `lodestone serve` process on 127.0.0.1:0 with its own data folder.
pub struct Process {
    child: Child,
    base: String,
    log: mpsc::Receiver<String>,
    _dir: TempDir,
}

impl Process {
    /// Starts the server and waits for its "listening on" line.
    pub fn serve(args: &[&str], env: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().expect("dir");
        let mut command = Command::new(env!("CARGO_BIN_EXE_lodestone"));
        command
            .arg("serve")
            .arg("--data")
            .arg(dir.path().join("data"))
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            .current_dir(dir.path())
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("start lodestone");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, log) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let base = loop {
            let line = log
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| {
                    panic!("lodestone serve did not start: {:?}", child.try_wait())
                });
            if let Some(at) = line.find("listening on http://") {
                break line[at + "listening on ".len()..].trim().to_owned();
            }
        };
        Self {
            child,
            base,
            log,
            _dir: dir,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Resident memory of the server process in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// Sends SIGTERM and waits for the process to exit; returns whether it exited cleanly
    /// within `within`, and its log.
    pub fn terminate(mut self, within: Duration) -> (bool, Vec<String>) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let start = Instant::now();
        let mut clean = false;
        while start.elapsed() < within {
            if let Some(exit) = self.child.try_wait().expect("wait") {
                clean = exit.success();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let log = self.log.try_iter().collect();
        (clean, log)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `lodestone serve` expecting it to fail at start; returns its stderr. No `--bind` is
/// added, so a case that wrongly starts would try the default port and is killed after 20 s.
fn failing_start(args: &[&str], env: &[(&str, &str)], files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().expect("dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let mut command = Command::new(env!("CARGO_BIN_EXE_lodestone"));
    command
        .arg("serve")
        .args(["--data", "data", "--no-sample"])
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("run lodestone");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("lodestone serve {args:?} {env:?} started instead of failing");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success());
    let mut stderr = String::new();
    let mut pipe = child.stderr.take().expect("stderr");
    std::io::Read::read_to_string(&mut pipe, &mut stderr).expect("stderr");
    stderr
}

#[test]
fn serve_loads_the_sample_into_a_new_store_and_stops_on_sigterm() {
    let _serial = crate::common::serial();
    let server = Process::serve(&[], &[]);
    let status: serde_json::Value = client()
        .get(server.url("/status"))
        .send()
        .expect("status")
        .json()
        .expect("json");
    assert!(status["quads"].as_u64().unwrap_or(0) > 45_000, "{status}");
    let response = client()
        .get(server.url("/sparql"))
        .query(&[(
            "query",
            "ASK { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?o }",
        )])
        .send()
        .expect("query");
    assert_eq!(
        response.json::<serde_json::Value>().expect("json")["boolean"],
        true
    );
    let (clean, log) = server.terminate(Duration::from_secs(10));
    assert!(clean, "exit after SIGTERM: {log:?}");
    assert!(
        log.iter().any(|l| l.contains("GET /status 200")),
        "one log line per request: {log:?}"
    );
}

#[test]
fn no_sample_leaves_a_new_store_empty() {
    let server = Process::serve(&["--no-sample"], &[]);
    let status: serde_json::Value = client()
        .get(server.url("/status"))
        .send()
        .expect("status")
        .json()
        .expect("json");
    assert_eq!(status["quads"], 0);
}

#[test]
fn configuration_layers_file_then_environment_then_flags() {
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("custom.toml");
    std::fs::write(
        &config,
        "no_sample = true\nresult_row_cap = 5\nstrict_default_graph = true\n",
    )
    .expect("write");
    let config_arg = config.display().to_string();
    // File: no sample, strict default graph, cap 5; environment overrides the cap; the flag
    // overrides the environment's update token.
    let server = Process::serve(
        &["--config", &config_arg, "--update-token", "from-flag"],
        &[
            ("LODESTONE_RESULT_ROW_CAP", "3"),
            ("LODESTONE_UPDATE_TOKEN", "from-env"),
        ],
    );
    let status: serde_json::Value = client()
        .get(server.url("/status"))
        .send()
        .expect("status")
        .json()
        .expect("json");
    assert_eq!(status["quads"], 0);
    assert_eq!(status["union_default_graph"], false);
    let update = |token: &str| {
        client()
            .post(server.url("/sparql"))
            .bearer_auth(token)
            .form(&[(
                "update",
                "INSERT DATA { <http://e.org/a> <http://e.org/p> 1, 2, 3, 4, 5 }",
            )])
            .send()
            .expect("update")
            .status()
    };
    assert_eq!(update("from-env"), 401);
    assert_eq!(update("from-flag"), 204);
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", "SELECT * WHERE { ?s ?p ?o }")])
        .send()
        .expect("query");
    assert_eq!(
        response
            .headers()
            .get("x-lodestone-truncated")
            .map(|v| v.as_bytes()),
        Some(&b"true"[..])
    );
    let json: serde_json::Value = response.json().expect("json");
    assert_eq!(
        json["results"]["bindings"].as_array().map(Vec::len),
        Some(3)
    );
}

#[test]
fn invalid_configuration_fails_at_start_naming_the_key() {
    let unknown = failing_start(
        &["--config", "bad.toml", "--bind", "127.0.0.1:0"],
        &[],
        &[("bad.toml", "quer_timeout = 3\n")],
    );
    assert!(unknown.contains("quer_timeout"), "{unknown}");
    let mistyped = failing_start(
        &[],
        &[],
        &[("lodestone.toml", "max_concurrent_queries = \"many\"\n")],
    );
    assert!(
        mistyped.contains("max_concurrent_queries") && mistyped.contains("lodestone.toml"),
        "{mistyped}"
    );
    let zero = failing_start(&[], &[], &[("lodestone.toml", "query_timeout = 0\n")]);
    assert!(zero.contains("query_timeout"), "{zero}");
    let env = failing_start(&[], &[("LODESTONE_BIND", "nowhere")], &[]);
    assert!(
        env.contains("bind") && env.contains("LODESTONE_BIND"),
        "{env}"
    );
    let flag = failing_start(&["--max-body-bytes", "lots"], &[], &[]);
    assert!(flag.contains("--max-body-bytes"), "{flag}");
    let both = failing_start(&["--open-updates", "--update-token", "t"], &[], &[]);
    assert!(both.contains("update_token"), "{both}");
}

#[test]
fn help_documents_every_option() {
    let output = Command::new(env!("CARGO_BIN_EXE_lodestone"))
        .args(["serve", "--help"])
        .output()
        .expect("run");
    let help = String::from_utf8_lossy(&output.stdout);
    for option in [
        "--data",
        "--bind",
        "--base-iri",
        "--update-token",
        "--open-updates",
        "--config",
        "--no-sample",
        "--query-timeout",
        "--max-body-bytes",
        "--max-upload-bytes",
        "--max-concurrent-queries",
        "--result-row-cap",
        "--strict-default-graph",
        "--memory-budget",
        "--sync",
        "--allow-load-folder",
    ] {
        assert!(help.contains(option), "{option} missing from --help");
    }
    assert!(help.contains("LODESTONE_UPDATE_TOKEN"));
}
