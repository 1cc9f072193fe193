//! `concurrency`: 32 readers against one writer that replaces a 10,000-quad graph every
//! second, on the real server.
//!
//! Two kinds of reads run side by side (see [`reads`]): `--readers` clients making typical
//! reads (a few subjects spread over the graph and a run of consecutive ones, in one query)
//! and `--auditors` clients counting the whole graph. Both check that they saw one whole
//! version. They first run without the writer (the idle figures), then with it. Every client
//! is closed-loop: it sends its next read when the previous one is answered.

mod reads;

use crate::process::{lodestone_binary, ServerProcess};
use crate::rng::Rng;
use anyhow::bail;
use reads::Read;
use reqwest::blocking::Client;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Options of `lodestone-bench concurrency`.
#[derive(Debug, clap::Args)]
pub(crate) struct ConcurrencyArgs {
    /// Seconds with the writer running (the idle phase lasts a tenth of it, at least 5 s).
    #[arg(long, default_value_t = 300)]
    pub seconds: u64,
    /// Clients making typical reads.
    #[arg(long, default_value_t = 32)]
    pub readers: usize,
    /// Clients making whole-graph audits at the same time.
    #[arg(long, default_value_t = 1)]
    pub auditors: usize,
    /// Quads in the replaced graph.
    #[arg(long, default_value_t = 10_000)]
    pub quads: usize,
    /// The server's `--max-concurrent-queries` (queries running at once).
    #[arg(long, default_value_t = 2)]
    pub slots: usize,
    /// The server's `--query-queue` (queries waiting for a slot).
    #[arg(long, default_value_t = 64)]
    pub queue: usize,
}

fn put_version(client: &Client, base: &str, version: u64, quads: usize) -> anyhow::Result<()> {
    let response = client
        .put(format!("{base}/store"))
        .query(&[("graph", reads::GRAPH)])
        .header("Content-Type", "text/turtle")
        .body(reads::version_body(version, quads))
        .send()?;
    if !response.status().is_success() {
        bail!("PUT answered {}", response.status());
    }
    Ok(())
}

/// What the clients of one kind saw in one phase.
#[derive(Default)]
struct Seen {
    latencies: Mutex<Vec<Duration>>,
    mixed: AtomicU64,
    errors: AtomicU64,
}

/// Sends one read; true if the answer is one whole version.
fn read_once(client: &Client, base: &str, read: &Read) -> anyhow::Result<bool> {
    let response = client
        .post(format!("{base}/sparql"))
        .header("Content-Type", "application/sparql-query")
        .header("Accept", "application/sparql-results+json")
        .body(read.query.clone())
        .send()?;
    if !response.status().is_success() {
        bail!("query answered {}", response.status());
    }
    let json: serde_json::Value = response.json()?;
    let row = &json["results"]["bindings"][0];
    let value = |var: &str| row[var]["value"].as_str().unwrap_or("").to_owned();
    Ok(value("n") == read.expected.to_string() && value("lo") == value("hi"))
}

/// Runs `clients` closed-loop clients until `duration` has passed, each drawing its reads
/// from `next_read`.
fn run_clients(
    base: &str,
    clients: usize,
    duration: Duration,
    next_read: impl Fn(&mut Rng) -> Read + Send + Sync + 'static,
) -> std::thread::JoinHandle<anyhow::Result<Arc<Seen>>> {
    let base = base.to_owned();
    std::thread::spawn(move || {
        let seen = Arc::new(Seen::default());
        let next_read = Arc::new(next_read);
        let stop_at = Instant::now() + duration;
        let threads: Vec<_> = (0..clients)
            .map(|i| {
                let (seen, base, next_read) =
                    (Arc::clone(&seen), base.clone(), Arc::clone(&next_read));
                std::thread::spawn(move || -> anyhow::Result<()> {
                    let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
                    let mut rng = Rng::new(i as u64 + 1);
                    let mut mine = Vec::new();
                    while Instant::now() < stop_at {
                        let read = next_read(&mut rng);
                        let start = Instant::now();
                        match read_once(&client, &base, &read) {
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
    })
}

/// Typical reads and audits of one phase.
struct Phase {
    typical: Arc<Seen>,
    audits: Arc<Seen>,
}

fn run_phase(base: &str, args: &ConcurrencyArgs, duration: Duration) -> anyhow::Result<Phase> {
    let quads = args.quads;
    let typical = run_clients(base, args.readers, duration, move |rng| {
        reads::typical(quads, rng)
    });
    let audits = run_clients(base, args.auditors, duration, move |_| reads::audit(quads));
    let join = |handle: std::thread::JoinHandle<anyhow::Result<Arc<Seen>>>| {
        handle
            .join()
            .map_err(|_| anyhow::anyhow!("a client group panicked"))?
    };
    Ok(Phase {
        typical: join(typical)?,
        audits: join(audits)?,
    })
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // `as` saturates, and the index is clamped to the slice below.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

/// Prints one line of figures; returns the p99 in milliseconds.
fn report(label: &str, seen: &Seen, seconds: f64) -> f64 {
    let mut latencies = seen.latencies.lock().unwrap_or_else(|e| e.into_inner());
    latencies.sort();
    let p99 = percentile(&latencies, 0.99);
    println!(
        "{label:<16} {:>7} reads ({:.0}/s), p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, mixed {}, errors {}",
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

/// The writer: one new version per second, on the second, until `stop`; returns the number
/// of replacements and the time they took in all.
fn start_writer(
    base: &str,
    client: &Client,
    quads: usize,
    stop: &Arc<AtomicBool>,
) -> std::thread::JoinHandle<anyhow::Result<(u64, Duration)>> {
    let (stop, base, client) = (Arc::clone(stop), base.to_owned(), client.clone());
    std::thread::spawn(move || {
        let (mut version, mut busy) = (1_u64, Duration::ZERO);
        let start = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let write = Instant::now();
            put_version(&client, &base, version, quads)?;
            busy += write.elapsed();
            version += 1;
            let next = start + Duration::from_secs(version - 1);
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
        Ok((version - 1, busy))
    })
}

/// Runs the benchmark; fails if a reader ever saw a mixed or partial graph.
pub(crate) fn run(args: &ConcurrencyArgs) -> anyhow::Result<()> {
    let binary = lodestone_binary()?;
    let temp = tempfile::tempdir()?;
    let (slots, queue) = (args.slots.to_string(), args.queue.to_string());
    let server = ServerProcess::start(
        &binary,
        &temp.path().join("data"),
        &[
            "--open-updates",
            "--no-sample",
            "--max-concurrent-queries",
            &slots,
            "--query-queue",
            &queue,
        ],
    )?;
    let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
    put_version(&client, &server.base, 0, args.quads)?;
    let idle_seconds = (args.seconds / 10).max(5);
    println!(
        "concurrency: {} typical readers + {} whole-graph auditors, a {}-quad graph replaced \
         every second for {} s (idle phase {} s); server slots {}, queue {}",
        args.readers, args.auditors, args.quads, args.seconds, idle_seconds, args.slots, args.queue
    );
    println!(
        "typical read: one query for {} spread subjects (first, last, random) and a run of {} \
         consecutive ones; audit: count, min and max version of the whole graph",
        reads::SPREAD,
        reads::RUN
    );
    let idle = run_phase(&server.base, args, Duration::from_secs(idle_seconds))?;
    let idle_p99 = report("idle typical", &idle.typical, idle_seconds as f64);
    let idle_audit_p99 = report("idle audit", &idle.audits, idle_seconds as f64);

    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(&server.base, &client, args.quads, &stop);
    let loaded = run_phase(&server.base, args, Duration::from_secs(args.seconds))?;
    stop.store(true, Ordering::Relaxed);
    let (writes, busy) = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer panicked"))??;
    let seconds = args.seconds as f64;
    let loaded_p99 = report("writer typical", &loaded.typical, seconds);
    let loaded_audit_p99 = report("writer audit", &loaded.audits, seconds);
    println!(
        "writer           {writes} replacements ({:.2}/s), mean {:.1} ms each",
        writes as f64 / seconds,
        busy.as_secs_f64() * 1000.0 / writes.max(1) as f64
    );
    println!(
        "p99 with the writer − idle p99: typical {:+.2} ms, audit {:+.2} ms",
        loaded_p99 - idle_p99,
        loaded_audit_p99 - idle_audit_p99
    );
    server.terminate()?;
    let all = [&idle.typical, &idle.audits, &loaded.typical, &loaded.audits];
    let mixed: u64 = all.iter().map(|s| s.mixed.load(Ordering::Relaxed)).sum();
    let errors: u64 = all.iter().map(|s| s.errors.load(Ordering::Relaxed)).sum();
    if mixed > 0 || errors > 0 {
        bail!("{mixed} reads saw a mixed or partial graph, {errors} failed");
    }
    Ok(())
}
