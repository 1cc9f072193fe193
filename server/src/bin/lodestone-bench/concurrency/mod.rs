//! `concurrency`: 32 readers against one writer that replaces a 10,000-quad graph every
//! second, on the real server.
//!
//! Every version of the graph gives all its quads the same version number, so a reader that
//! counts the graph and takes the smallest and largest number sees a mix of two versions
//! (min ≠ max), or a graph half written (count ≠ 10,000), at once. The readers first run
//! without the writer to measure the idle p99, then with it.

use crate::process::{lodestone_binary, ServerProcess};
use anyhow::bail;
use reqwest::blocking::Client;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const GRAPH: &str = "http://concurrency.example/g";
const P: &str = "http://concurrency.example/version";

/// Options of `lodestone-bench concurrency`.
#[derive(Debug, clap::Args)]
pub struct ConcurrencyArgs {
    /// Seconds with the writer running (the idle phase lasts a tenth of it, at least 5 s).
    #[arg(long, default_value_t = 300)]
    pub seconds: u64,
    /// Reader threads.
    #[arg(long, default_value_t = 32)]
    pub readers: usize,
    /// Quads in the replaced graph.
    #[arg(long, default_value_t = 10_000)]
    pub quads: usize,
}

fn version_body(version: u64, quads: usize) -> String {
    (0..quads)
        .map(|k| format!("<{GRAPH}/s{k}> <{P}> {version} .\n"))
        .collect()
}

fn put_version(client: &Client, base: &str, version: u64, quads: usize) -> anyhow::Result<()> {
    let response = client
        .put(format!("{base}/store"))
        .query(&[("graph", GRAPH)])
        .header("Content-Type", "text/turtle")
        .body(version_body(version, quads))
        .send()?;
    if !response.status().is_success() {
        bail!("PUT answered {}", response.status());
    }
    Ok(())
}

/// What the readers saw.
#[derive(Default)]
struct Seen {
    latencies: std::sync::Mutex<Vec<Duration>>,
    mixed: AtomicU64,
    errors: AtomicU64,
}

/// One read: count, min and max version of the graph; true if it is one whole version.
fn read_once(client: &Client, base: &str, quads: usize) -> anyhow::Result<bool> {
    let query = format!(
        "SELECT (COUNT(*) AS ?n) (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) WHERE {{ GRAPH <{GRAPH}> {{ ?s <{P}> ?v }} }}"
    );
    let response = client
        .post(format!("{base}/sparql"))
        .header("Content-Type", "application/sparql-query")
        .header("Accept", "application/sparql-results+json")
        .body(query)
        .send()?;
    if !response.status().is_success() {
        bail!("query answered {}", response.status());
    }
    let json: serde_json::Value = response.json()?;
    let row = &json["results"]["bindings"][0];
    let value = |var: &str| row[var]["value"].as_str().unwrap_or("").to_owned();
    Ok(value("n") == quads.to_string() && value("lo") == value("hi"))
}

fn run_readers(
    base: &str,
    readers: usize,
    quads: usize,
    duration: Duration,
) -> anyhow::Result<Arc<Seen>> {
    let seen = Arc::new(Seen::default());
    let stop_at = Instant::now() + duration;
    let threads: Vec<_> = (0..readers)
        .map(|_| {
            let (seen, base) = (Arc::clone(&seen), base.to_owned());
            std::thread::spawn(move || -> anyhow::Result<()> {
                let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
                let mut mine = Vec::new();
                while Instant::now() < stop_at {
                    let start = Instant::now();
                    match read_once(&client, &base, quads) {
                        Ok(true) => mine.push(start.elapsed()),
                        Ok(false) => {
                            seen.mixed.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => {
                            seen.errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                seen.latencies
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(mine);
                Ok(())
            })
        })
        .collect();
    for thread in threads {
        thread
            .join()
            .map_err(|_| anyhow::anyhow!("a reader panicked"))??;
    }
    Ok(seen)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn report(phase: &str, seen: &Seen, seconds: f64) -> f64 {
    let mut latencies = seen.latencies.lock().unwrap_or_else(|e| e.into_inner());
    latencies.sort();
    let p99 = percentile(&latencies, 0.99);
    println!(
        "{phase:<8} {:>7} reads ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, mixed {}, errors {}",
        latencies.len(),
        latencies.len() as f64 / seconds,
        percentile(&latencies, 0.5),
        p99,
        latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0),
        seen.mixed.load(Ordering::Relaxed),
        seen.errors.load(Ordering::Relaxed)
    );
    p99
}

/// Runs the benchmark; fails if a reader ever saw a mixed or partial graph.
pub fn run(args: &ConcurrencyArgs) -> anyhow::Result<()> {
    let binary = lodestone_binary()?;
    let temp = tempfile::tempdir()?;
    let server = ServerProcess::start(
        &binary,
        &temp.path().join("data"),
        &[
            "--open-updates",
            "--no-sample",
            "--max-concurrent-queries",
            "64",
        ],
    )?;
    let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
    put_version(&client, &server.base, 0, args.quads)?;
    let idle_seconds = (args.seconds / 10).max(5);
    println!(
        "concurrency: {} readers, a {}-quad graph replaced every second for {} s (idle phase {} s)",
        args.readers, args.quads, args.seconds, idle_seconds
    );
    let idle = run_readers(
        &server.base,
        args.readers,
        args.quads,
        Duration::from_secs(idle_seconds),
    )?;
    let idle_p99 = report("idle", &idle, idle_seconds as f64);

    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, base, client, quads) = (
            Arc::clone(&stop),
            server.base.clone(),
            client.clone(),
            args.quads,
        );
        std::thread::spawn(move || -> anyhow::Result<(u64, Duration)> {
            let (mut version, mut busy) = (1_u64, Duration::ZERO);
            let start = Instant::now();
            while !stop.load(Ordering::Relaxed) {
                let write = Instant::now();
                put_version(&client, &base, version, quads)?;
                busy += write.elapsed();
                version += 1;
                // One replacement per second, on the second.
                let next = start + Duration::from_secs(version - 1);
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
            }
            Ok((version - 1, busy))
        })
    };
    let loaded = run_readers(
        &server.base,
        args.readers,
        args.quads,
        Duration::from_secs(args.seconds),
    )?;
    stop.store(true, Ordering::Relaxed);
    let (writes, busy) = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer panicked"))??;
    let loaded_p99 = report("writer", &loaded, args.seconds as f64);
    println!(
        "writer   {writes} replacements, mean {:.1} ms each",
        busy.as_secs_f64() * 1000.0 / writes.max(1) as f64
    );
    println!(
        "p99 with the writer − idle p99: {:+.2} ms",
        loaded_p99 - idle_p99
    );
    server.terminate()?;
    let mixed = idle.mixed.load(Ordering::Relaxed) + loaded.mixed.load(Ordering::Relaxed);
    let errors = idle.errors.load(Ordering::Relaxed) + loaded.errors.load(Ordering::Relaxed);
    if mixed > 0 || errors > 0 {
        bail!("{mixed} reads saw a mixed or partial graph, {errors} failed");
    }
    Ok(())
}
