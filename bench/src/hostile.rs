//! Issue 27's figures against the real server: 16 memory-hungry queries at once (peak memory,
//! time to each answer, time until every slot is free) and 600 stalled 9 MB request bodies
//! (peak memory, how each was refused).

use crate::process::{lodestone_binary, ServerProcess};
use anyhow::Context;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Flags of `lodestone-bench hostile`.
#[derive(Debug, clap::Args)]
pub(crate) struct HostileArgs {
    /// Memory-hungry queries sent at once.
    #[arg(long, default_value_t = 16)]
    queries: usize,
    /// Stalled bodies held open at once.
    #[arg(long, default_value_t = 600)]
    bodies: usize,
    /// The server's query time budget, in seconds.
    #[arg(long, default_value_t = 10)]
    budget: u64,
}

const EX: &str = "http://example.org/";

/// 3,600 links between 60 nodes: any three-way product of them is 46 billion rows.
fn dense_data() -> String {
    let mut data = String::new();
    for a in 0..60 {
        for b in 0..60 {
            data.push_str(&format!("<{EX}n{a}> <{EX}p> <{EX}n{b}> .\n"));
        }
    }
    data
}

/// The hungry queries, in turn: a sort of a product, a grouping of one, thirty doublings of a
/// string.
fn hungry_query(i: usize) -> String {
    let product = format!("?a <{EX}p> ?b . ?c <{EX}p> ?d . ?e <{EX}p> ?f");
    match i % 3 {
        0 => format!("SELECT * WHERE {{ {product} }} ORDER BY ?a ?f"),
        1 => format!(
            "SELECT ?a ?b ?d ?f (COUNT(*) AS ?n) WHERE {{ {product} }} GROUP BY ?a ?b ?d ?f"
        ),
        _ => {
            let doubled: String = (1..=30)
                .map(|k| format!("BIND(CONCAT(?s{}, ?s{}) AS ?s{k}) ", k - 1, k - 1))
                .collect();
            format!(
                "SELECT ?s30 WHERE {{ BIND(\"{}\" AS ?s0) {doubled} }}",
                "x".repeat(1024)
            )
        }
    }
}

/// Samples the server's resident memory every 10 ms until stopped; the peak in KiB.
fn watch_rss(server_pid: u32, stop: Arc<AtomicBool>, peak: Arc<AtomicU64>) {
    while !stop.load(Ordering::Relaxed) {
        let status = std::fs::read_to_string(format!("/proc/{server_pid}/status"));
        if let Some(kib) = status.ok().as_deref().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak.fetch_max(kib, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs both parts and prints their figures.
pub(crate) fn run(args: &HostileArgs) -> anyhow::Result<()> {
    let binary = lodestone_binary()?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("dense.nt");
    std::fs::write(&file, dense_data())?;
    let data = dir.path().join("store");
    let loaded = Command::new(&binary)
        .arg("load")
        .arg("--data")
        .arg(&data)
        .arg(&file)
        .output()?;
    anyhow::ensure!(loaded.status.success(), "lodestone load failed");
    let budget = args.budget.to_string();
    let server =
        ServerProcess::start(&binary, &data, &["--no-sample", "--query-timeout", &budget])?;
    let pid = server.pid();
    let memory_budget_mib = 512;
    println!(
        "server: --memory-budget {memory_budget_mib} (default), --query-memory 128 (default), --query-timeout {budget}; idle RSS {} MiB",
        server.rss_kib().unwrap_or(0) / 1024
    );

    // Part 1: hungry queries at once.
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let watcher = {
        let (stop, peak) = (Arc::clone(&stop), Arc::clone(&peak));
        std::thread::spawn(move || watch_rss(pid, stop, peak))
    };
    let start = Instant::now();
    let answers: Vec<_> = (0..args.queries)
        .map(|i| {
            let url = server.url("/sparql");
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(120))
                    .build()?;
                let response = client
                    .post(url)
                    .header("Content-Type", "application/sparql-query")
                    .header("Accept", "application/sparql-results+json")
                    .body(hungry_query(i))
                    .send()?;
                let status = response.status().as_u16();
                let body = response.bytes();
                let code = body
                    .as_ref()
                    .ok()
                    .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
                    .and_then(|v| v["code"].as_str().map(str::to_owned))
                    .unwrap_or_default();
                let outcome = match (status, body.is_ok()) {
                    (200, true) => "200, complete".to_owned(),
                    (200, false) => "200, body cut".to_owned(),
                    (status, _) => format!("{status} {code}"),
                };
                anyhow::Ok((i % 3, outcome, start.elapsed()))
            })
        })
        .collect();
    let mut slowest = Duration::ZERO;
    let mut outcomes = std::collections::BTreeMap::new();
    for answer in answers {
        let (kind, outcome, elapsed) = answer
            .join()
            .map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
        slowest = slowest.max(elapsed);
        *outcomes.entry((kind, outcome)).or_insert(0_usize) += 1;
    }
    let answered = start.elapsed();
    let client = reqwest::blocking::Client::new();
    let freed = loop {
        let in_flight = client
            .get(server.url("/status"))
            .send()
            .and_then(|r| r.json::<serde_json::Value>())
            .map_or(u64::MAX, |s| {
                s["queries_in_flight"].as_u64().unwrap_or(u64::MAX)
            });
        if in_flight == 0 || start.elapsed() > Duration::from_secs(300) {
            break start.elapsed();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    stop.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    println!("{} hungry queries at once:", args.queries);
    for ((kind, outcome), n) in outcomes {
        let what = [
            "ORDER BY of a product",
            "GROUP BY of a product",
            "30 CONCAT doublings",
        ][kind];
        println!("  {n:>3} × {what}: {outcome}");
    }
    println!(
        "  slowest answer {:.2} s (budget {budget} s); all answered at {:.2} s; every slot free at {:.2} s; peak RSS {} MiB (memory budget {memory_budget_mib} MiB + {} × 128 MiB per query allowed)",
        slowest.as_secs_f64(),
        answered.as_secs_f64(),
        freed.as_secs_f64(),
        peak.load(Ordering::Relaxed) / 1024,
        args.queries
    );

    // Part 2: stalled bodies, each claiming 9 MB and sending 1 MB of it.
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let watcher = {
        let (stop, peak) = (Arc::clone(&stop), Arc::clone(&peak));
        std::thread::spawn(move || watch_rss(pid, stop, peak))
    };
    let address = server.base.trim_start_matches("http://").to_owned();
    let head = "POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9000000\r\n\r\nquery=";
    let chunk = vec![b'a'; 1 << 20];
    let mut streams = Vec::new();
    for _ in 0..args.bodies {
        let Ok(mut stream) = TcpStream::connect(&address) else {
            continue;
        };
        stream.set_write_timeout(Some(Duration::from_millis(200)))?;
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&chunk);
        streams.push(stream);
    }
    std::thread::sleep(Duration::from_secs(1));
    let mut refused = std::collections::BTreeMap::new();
    for stream in &mut streams {
        stream.set_read_timeout(Some(Duration::from_millis(20)))?;
        let mut answer = [0_u8; 512];
        let n = stream.read(&mut answer).unwrap_or(0);
        let text = String::from_utf8_lossy(&answer[..n]);
        let kind = if text.contains("too many connections") {
            "503 at the connection cap"
        } else if text.contains("bodies_in_flight") {
            "503 bodies_in_flight"
        } else if n == 0 {
            "held (reading its body)"
        } else {
            "other answer"
        };
        *refused.entry(kind).or_insert(0_usize) += 1;
    }
    let tokenless = {
        let mut stream = TcpStream::connect(&address)?;
        stream.write_all(
            b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-update\r\nContent-Length: 9000000\r\n\r\n",
        )?;
        stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        let mut answer = [0_u8; 64];
        let n = stream.read(&mut answer).unwrap_or(0);
        String::from_utf8_lossy(&answer[..n])
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    stop.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    drop(streams);
    println!(
        "{} stalled 9 MB form bodies (1 MB sent each) from one address:",
        args.bodies
    );
    for (kind, n) in refused {
        println!("  {n:>4} {kind}");
    }
    println!(
        "  peak RSS {} MiB; a tokenless 9 MB application/sparql-update body: {tokenless:?} before a byte of it",
        peak.load(Ordering::Relaxed) / 1024
    );
    let healthy = client
        .get(server.url("/health"))
        .send()
        .context("health")?
        .status();
    println!("  /health afterwards: {healthy}");
    server.terminate()
}
