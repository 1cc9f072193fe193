//! Running it for real, with the `lodestone` binary: the memory budget, SIGTERM with a write
//! or a long query in flight, backup and restore, and a short crash test (SIGKILL during writes).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

use reqwest::blocking::Client;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "ops/disk_full.rs"]
mod disk_full;

const LODESTONE: &str = env!("CARGO_BIN_EXE_lodestone");

struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(data: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(LODESTONE)
            .arg("serve")
            .arg("--data")
            .arg(data)
            .args(["--bind", "127.0.0.1:0"])
            .args(args)
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start lodestone");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let _ = tx.send(line[at + "listening on ".len()..].trim().to_owned());
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server starts");
        Self { child, base }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn proc_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("field")
    }

    fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    fn wait_exit(mut self, within: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < within {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn in_flight(&self) -> u64 {
        client()
            .get(self.url("/status"))
            .send()
            .and_then(|r| r.json::<serde_json::Value>())
            .map_or(0, |s| s["queries_in_flight"].as_u64().unwrap_or(0))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client")
}

fn count(server: &Server, query: &str) -> u64 {
    let json: serde_json::Value = client()
        .get(server.url("/sparql"))
        .query(&[("query", query)])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("query")
        .json()
        .expect("json");
    json["results"]["bindings"][0]["n"]["value"]
        .as_str()
        .and_then(|n| n.parse().ok())
        .expect("a count")
}

/// With `--memory-budget 64` the server loads and serves the sample dataset in under 100 MB
/// resident, peak included.
#[test]
fn memory_budget_64_serves_the_sample_in_under_100_mb() {
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(&dir.path().join("data"), &["--memory-budget", "64"]);
    let mix = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench/load-mix.txt"
    ))
    .expect("bench/load-mix.txt");
    let paths: Vec<&str> = mix
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let http = client();
    // Searches answer 503 until the sample's text index is first built.
    let start = Instant::now();
    while http
        .get(server.url("/api/search?q=bowie"))
        .send()
        .expect("request")
        .status()
        == reqwest::StatusCode::SERVICE_UNAVAILABLE
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the text index is built"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    for _ in 0..20 {
        for path in &paths {
            let response = http.get(server.url(path)).send().expect("request");
            assert!(response.status().is_success(), "{path}");
            let _ = response.bytes();
        }
    }
    let everything = http
        .get(server.url("/sparql"))
        .query(&[("query", "SELECT * WHERE { ?s ?p ?o }")])
        .header("Accept", "text/tab-separated-values")
        .send()
        .expect("query");
    assert!(everything.bytes().expect("body").len() > 1_000_000);
    let peak = server.proc_kib("VmHWM:");
    let now = server.proc_kib("VmRSS:");
    eprintln!("--memory-budget 64: resident {now} KiB, peak {peak} KiB");
    assert!(peak < 100 * 1024, "peak resident memory {peak} KiB");
}

/// SIGTERM while a Graph Store upload runs: the upload is answered 201, the process exits
/// cleanly, and the graph is there after a restart.
#[test]
fn sigterm_lets_the_write_in_flight_finish_and_flushes() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    let server = Server::start(&data, &["--no-sample", "--open-updates"]);
    let body: String = (0..50_000)
        .map(|i| format!("<http://e/s{i}> <http://e/p> \"value {i}\" .\n"))
        .collect();
    let url = server.url("/store?graph=http%3A%2F%2Fe%2Fg");
    let upload = std::thread::spawn(move || {
        client()
            .put(url)
            .header("Content-Type", "application/n-triples")
            .body(body)
            .send()
            .map(|r| r.status().as_u16())
    });
    let start = Instant::now();
    while server.in_flight() == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "the upload runs");
        std::thread::sleep(Duration::from_millis(5));
    }
    server.sigterm();
    let status = upload.join().expect("upload thread");
    assert_eq!(status.ok(), Some(201), "the write in flight was answered");
    assert!(server.wait_exit(Duration::from_secs(60)), "clean exit");

    let again = Server::start(&data, &["--no-sample"]);
    let n = count(
        &again,
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <http://e/g> { ?s ?p ?o } }",
    );
    assert_eq!(n, 50_000);
}

/// SIGTERM while a long query runs: the query ends at its time budget at the latest (answered
/// `503 timeout`, or `200` had it finished), and the process then exits cleanly; it does not
/// hang on the query nor die without answering it.
#[test]
fn sigterm_during_a_long_query_exits_cleanly_within_the_budget() {
    const BUDGET_SECS: u64 = 4;
    let dir = tempfile::tempdir().expect("dir");
    let server = Server::start(
        &dir.path().join("data"),
        &["--query-timeout", &BUDGET_SECS.to_string()],
    );
    // A cartesian product of the sample dataset with itself, three times: never done in time.
    let url = server.url("/sparql");
    let query = std::thread::spawn(move || {
        client()
            .get(url)
            .query(&[(
                "query",
                "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
            )])
            .header("Accept", "application/sparql-results+json")
            .send()
            .map(|r| {
                let status = r.status().as_u16();
                let body: serde_json::Value = r.json().unwrap_or_default();
                (status, body["code"].as_str().unwrap_or("").to_owned())
            })
    });
    let start = Instant::now();
    while server.in_flight() == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "the query runs");
        std::thread::sleep(Duration::from_millis(5));
    }
    let signalled = Instant::now();
    server.sigterm();
    let answer = query.join().expect("query thread");
    match answer {
        Ok((503, code)) => assert_eq!(code, "timeout"),
        Ok((200, _)) => {}
        other => panic!("the query in flight was not answered: {other:?}"),
    }
    let bound = Duration::from_secs(BUDGET_SECS + 6);
    assert!(
        server.wait_exit(bound),
        "clean exit within {bound:?} of SIGTERM"
    );
    assert!(signalled.elapsed() < bound);
}

fn lodestone(args: &[&str]) -> std::process::Output {
    Command::new(LODESTONE)
        .args(args)
        .output()
        .expect("run lodestone")
}

#[test]
fn backup_then_restore_gives_the_same_store() {
    let dir = tempfile::tempdir().expect("dir");
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    std::fs::write(
        path("in.nq"),
        "<http://e/a> <http://e/p> \"1\" <http://e/g> .\n<http://e/b> <http://e/p> _:x .\n",
    )
    .expect("write");
    assert!(
        lodestone(&["load", "--data", &path("data"), &path("in.nq")])
            .status
            .success()
    );
    assert!(
        lodestone(&["backup", "--data", &path("data"), &path("backup")])
            .status
            .success()
    );

    let restored = lodestone(&["restore", "--data", &path("restored"), &path("backup")]);
    assert!(restored.status.success(), "{restored:?}");
    assert!(String::from_utf8_lossy(&restored.stdout).contains("restored 2 quads"));
    let dump = lodestone(&["dump", "--data", &path("restored")]);
    let text = String::from_utf8_lossy(&dump.stdout);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("<http://e/a> <http://e/p> \"1\" <http://e/g> ."));

    // Never over an existing store, never from something that is not a backup.
    let over = lodestone(&["restore", "--data", &path("data"), &path("backup")]);
    assert!(!over.status.success());
    assert!(String::from_utf8_lossy(&over.stderr).contains("not empty"));
    std::fs::create_dir(path("junk")).expect("dir");
    std::fs::write(dir.path().join("junk/CURRENT"), "x").expect("write");
    let junk = lodestone(&["restore", "--data", &path("other"), &path("junk")]);
    assert!(!junk.status.success());
    assert!(!dir.path().join("other").exists());
}

/// A killed first start leaves no half-made store: whenever the kill comes, the next start
/// creates the store again and serves the whole sample.
#[test]
fn a_first_start_killed_at_any_moment_leaves_no_broken_store() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("store");
    let mut expected = None;
    for delay_ms in [30, 120, 250, 400, 700] {
        let _ = std::fs::remove_dir_all(&data);
        let mut child = Command::new(LODESTONE)
            .args(["serve", "--bind", "127.0.0.1:0", "--data"])
            .arg(&data)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let server = Server::start(&data, &[]);
        let quads = count(&server, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }");
        assert!(quads > 0, "killed after {delay_ms} ms: the sample is there");
        assert_eq!(
            *expected.get_or_insert(quads),
            quads,
            "killed after {delay_ms} ms"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name())
        .filter(|name| name.to_string_lossy().contains("staging"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `lodestone stats | head -1` and `lodestone dump | head -1` end quietly when the reader goes.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("store").to_string_lossy().into_owned();
    let mut turtle = String::new();
    for i in 0..5_000 {
        turtle.push_str(&format!(
            "<http://e/s{i}> <http://e/p> \"a long enough literal to fill a pipe {i}\" .\n"
        ));
    }
    let file = dir.path().join("data.nt");
    std::fs::write(&file, turtle).expect("write");
    let loaded = lodestone(&["load", "--data", &data, &file.to_string_lossy()]);
    assert!(loaded.status.success());
    for command in ["stats", "dump"] {
        let mut child = Command::new(LODESTONE)
            .args([command, "--data", &data])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start");
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0_u8; 16];
        let _ = std::io::Read::read(&mut stdout, &mut first);
        drop(stdout);
        let output = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{command}: {stderr}");
        assert!(output.status.success(), "{command}: {stderr}");
    }
}

/// Issue 23, §1: a lenient load reads on after a bad statement and says exactly what it
/// skipped; `--max-errors` fails the load past its limit and leaves the store as it was.
#[test]
fn lenient_load_keeps_the_lines_after_a_bad_one_and_max_errors_fails_whole() {
    let dir = tempfile::tempdir().expect("dir");
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    std::fs::write(
        path("bad.nt"),
        "<http://ex.org/s1> <http://ex.org/p> \"good 1\" .\n\
         <http://ex.org/s2> <http://ex.org/p> \"broken literal .\n\
         <http://ex.org/s3> <http://ex.org/p> \"good 3\" .\n\
         <http://ex.org/s4> <http://ex.org/p> \"good 4\" .\n\
         <http://ex.org/s5> <http://ex.org/p> \"good 5\" .\n",
    )
    .expect("write");
    let loaded = lodestone(&[
        "load",
        "--lenient",
        "--data",
        &path("data"),
        &path("bad.nt"),
    ]);
    let stdout = String::from_utf8_lossy(&loaded.stdout);
    assert!(loaded.status.success(), "{loaded:?}");
    assert!(stdout.contains("loaded 4 quads"), "{stdout}");
    assert!(stdout.contains("skipped 1 statements"), "{stdout}");
    assert!(stdout.contains("bad.nt: line 2, column "), "{stdout}");

    let limited = lodestone(&[
        "load",
        "--max-errors",
        "0",
        "--data",
        &path("none"),
        &path("bad.nt"),
    ]);
    assert!(!limited.status.success(), "{limited:?}");
    let stderr = String::from_utf8_lossy(&limited.stderr);
    assert!(stderr.contains("bad.nt: line 2, column "), "{stderr}");
    let dump = lodestone(&["dump", "--data", &path("none")]);
    assert!(dump.status.success(), "{dump:?}");
    assert!(dump.stdout.is_empty(), "nothing loaded");
    let within = lodestone(&[
        "load",
        "--max-errors",
        "1",
        "--data",
        &path("none"),
        &path("bad.nt"),
    ]);
    assert!(within.status.success(), "{within:?}");
    assert!(String::from_utf8_lossy(&within.stdout).contains("loaded 4 quads"));
}

/// Issue 22: `stats`, `dump` and `backup` work beside a server running on the same store,
/// each seeing the store as of its start (one commit), while the server keeps writing.
#[test]
fn stats_dump_and_backup_work_while_the_server_runs() {
    let dir = tempfile::tempdir().expect("dir");
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let server = Server::start(
        &dir.path().join("data"),
        &["--update-token", "t", "--no-sample"],
    );
    let put = |graph: &str, body: String| {
        let response = client()
            .put(server.url(&format!("/store?graph={graph}")))
            .header("Content-Type", "application/n-triples")
            .header("Authorization", "Bearer t")
            .body(body)
            .send()
            .expect("put");
        assert!(response.status().is_success(), "{:?}", response.status());
    };
    put(
        "http://e/g1",
        (0..500)
            .map(|i| format!("<http://e/s{i}> <http://e/p> \"v{i}\" .\n"))
            .collect(),
    );
    let served = count(
        &server,
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    );

    let stats = lodestone(&["stats", "--data", &path("data")]);
    assert!(stats.status.success(), "{stats:?}");
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(
        text.contains(&format!("quads            {served}")),
        "{text}"
    );

    let dump = lodestone(&["dump", "--data", &path("data")]);
    assert!(dump.status.success(), "{dump:?}");
    assert_eq!(
        dump.stdout.iter().filter(|&&b| b == b'\n').count() as u64,
        served
    );

    let backup = lodestone(&["backup", "--data", &path("data"), &path("backup")]);
    assert!(backup.status.success(), "{backup:?}");
    // Written after the backup: not in it.
    put(
        "http://e/g2",
        "<http://e/late> <http://e/p> \"late\" .\n".into(),
    );
    let copy = lodestone(&["dump", "--data", &path("backup")]);
    assert!(copy.status.success(), "{copy:?}");
    let copied = String::from_utf8_lossy(&copy.stdout);
    assert_eq!(copied.lines().count() as u64, served);
    assert!(copied.contains("\"v499\"") && !copied.contains("late"));
    // The server still runs and writes.
    assert_eq!(
        count(
            &server,
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
        ),
        served + 1
    );
}

/// Issue 22: SIGTERM while the text index is being built from scratch (minutes on a large
/// store) stops the server within seconds; the next start builds the index.
#[test]
fn sigterm_while_the_text_index_builds_exits_within_seconds() {
    let dir = tempfile::tempdir().expect("dir");
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    // 600,000 entities with text: a build of about 20 s on this machine.
    let text: String = (0..600_000)
        .map(|i| format!("<http://e/s{i}> <http://www.w3.org/2000/01/rdf-schema#label> \"entity number {i} with a few words of text\" .\n"))
        .collect();
    std::fs::write(path("in.nt"), text).expect("write");
    // Without the text index, which the load would build: the server builds it.
    let load = lodestone(&[
        "load",
        "--data",
        &path("data"),
        "--no-text-index",
        &path("in.nt"),
    ]);
    assert!(load.status.success(), "{load:?}");
    let server = Server::start(&dir.path().join("data"), &[]);
    std::thread::sleep(Duration::from_millis(500));
    let building = client()
        .get(server.url("/status"))
        .send()
        .and_then(|r| r.json::<serde_json::Value>())
        .expect("status");
    assert!(
        building["text_index_lag_commits"].as_u64() != Some(0),
        "the build already finished: make the input larger ({building})"
    );
    let signalled = Instant::now();
    server.sigterm();
    let bound = Duration::from_secs(5);
    assert!(
        server.wait_exit(bound),
        "no exit within {bound:?} of SIGTERM"
    );
    eprintln!("exited {:?} after SIGTERM", signalled.elapsed());
}
