//! `replace-http`: named-graph replacement over HTTP while readers keep reading, and the time
//! to stream a large SPARQL XML result.
//!
//! The real server runs in-process (a tokio runtime on a background thread, a temporary store,
//! 127.0.0.1:0, updates with a bearer token). Two blocking keep-alive clients then share it:
//! a writer sends one `DROP SILENT GRAPH <g> ; INSERT DATA { GRAPH <g> { … } }` request per
//! graph (the trickle generator's ~150-quad programme graphs, blank nodes included), and a
//! reader runs small SELECTs against graphs already written, timing each. Finally a broadcaster
//! archive is written the same way and `MUSIC_IN_JANUARY` is fetched as SPARQL XML, timing the
//! first byte and the whole body.
//!
//! Every SPARQL text is built from generated data only; graph names go through `NamedNode`.

use crate::rng::Rng;
use crate::trickle::programme_graph;
use anyhow::{bail, Context};
use lodestone_indexer::{IndexSettings, TextIndex};
use lodestone_server::priority::Nice;
use lodestone_server::settings::ServerSettings;
use lodestone_server::testdata::{
    broadcaster, expected_rows, BroadcasterShape, EBUCCDM, MUSIC_IN_JANUARY,
};
use lodestone_server::{serve_listener, AppState};
use lodestone_store::model::NamedNode;
use lodestone_store::{Store, StoreOptions};
use reqwest::blocking::Client;
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The bearer token of the in-process server (it listens on 127.0.0.1 only).
const TOKEN: &str = "replace-http-bench";

/// Options of `lodestone-bench replace-http`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplaceHttpArgs {
    /// Graph replacements the writer sends (one SPARQL Update request each).
    #[arg(long, default_value_t = 100_000)]
    pub graphs: usize,
    /// Distinct graphs cycled through (default: a new graph every time, so the store grows).
    #[arg(long)]
    pub cycle: Option<usize>,
    /// Programmes of the broadcaster archive queried for the XML streaming measure (0 skips it).
    #[arg(long, default_value_t = 10_000)]
    pub broadcaster_programmes: usize,
    /// Music parts per programme of that archive (10,000 × 31 gives ~80,000 January rows).
    #[arg(long, default_value_t = 31)]
    pub broadcaster_parts: usize,
    /// Store folder (a temporary one by default).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The server's `--read-nice`: CPU nice value of its query evaluation.
    #[arg(long, default_value_t = ServerSettings::default().read_nice)]
    pub read_nice: Nice,
    /// The server's `--large-write-nice`: CPU nice value of its writes.
    #[arg(long, default_value_t = ServerSettings::default().large_write_nice)]
    pub large_write_nice: Nice,
    /// The server's `--background-nice`: CPU nice value of RocksDB's flushes and compactions
    /// (lowest whenever above 0), and of the text index's threads with `--text-index`.
    #[arg(long, default_value_t = ServerSettings::default().background_nice)]
    pub background_nice: Nice,
    /// Run the server with its text index, as `serve` does, following every commit.
    #[arg(long)]
    pub text_index: bool,
    /// Seed of the reader's choice of graphs.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// The real server on 127.0.0.1:0, in-process on its own runtime thread: its address and
/// what it takes to stop it.
pub(crate) struct Server {
    base: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Starts the server over `store` with updates allowed (bearer `TOKEN`), a 600 s query
    /// budget and the given CPU priorities.
    fn start(
        store: Arc<Store>,
        read_nice: Nice,
        large_write_nice: Nice,
        text_index: Option<Arc<TextIndex>>,
    ) -> anyhow::Result<Self> {
        let mut settings = ServerSettings::default()
            .with_update_token(TOKEN)
            .with_query_timeout(Duration::from_secs(600));
        settings.read_nice = read_nice;
        settings.large_write_nice = large_write_nice;
        let state = AppState::new(store, settings);
        if let Some(index) = text_index {
            state.attach_text_index(index);
        }
        Self::start_with_state(state)
    }

    /// Starts the server over `store` with `settings`.
    pub(crate) fn start_with(store: Arc<Store>, settings: ServerSettings) -> anyhow::Result<Self> {
        Self::start_with_state(AppState::new(store, settings))
    }

    fn start_with_state(state: AppState) -> anyhow::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let base = format!("http://{}", listener.local_addr()?);
        let runtime = lodestone_server::priority::runtime_builder().build()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                serve_listener(listener, state, async move {
                    let _ = rx.await;
                })
                .await
            })
        });
        Ok(Self {
            base,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// The URL of a path on the server.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Stops the server and waits for its thread.
    pub(crate) fn stop(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => Ok(result?),
            Some(Err(_)) => bail!("the server thread panicked"),
            None => Ok(()),
        }
    }
}

/// A blocking client that keeps its connection open between requests.
fn keep_alive_client() -> anyhow::Result<Client> {
    Ok(Client::builder()
        .timeout(Duration::from_secs(900))
        .pool_idle_timeout(Duration::from_secs(600))
        .tcp_nodelay(true)
        .build()?)
}

/// `DROP SILENT GRAPH <g> ; INSERT DATA { GRAPH <g> { … } }` for generated N-Triples.
fn replacement(graph: &NamedNode, ntriples: &str) -> String {
    format!("DROP SILENT GRAPH {graph} ;\nINSERT DATA {{ GRAPH {graph} {{\n{ntriples}}} }}")
}

/// Sends one update and fails on anything but success.
fn update(client: &Client, server: &Server, text: String) -> anyhow::Result<()> {
    let response = client
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-update")
        .bearer_auth(TOKEN)
        .body(text)
        .send()?;
    let status = response.status();
    if !status.is_success() {
        bail!("update answered {status}: {}", response.text()?);
    }
    Ok(())
}

fn trickle_graph(k: usize) -> anyhow::Result<NamedNode> {
    Ok(NamedNode::new(format!("http://example.org/graph/{k}"))?)
}

/// What the writer measured.
struct Writes {
    rates: Vec<f64>,
    elapsed: Duration,
}

/// Replaces `args.graphs` graphs, publishing how many are written so far in `written`.
fn write(server: &Server, args: &ReplaceHttpArgs, written: &AtomicUsize) -> anyhow::Result<Writes> {
    let client = keep_alive_client()?;
    let tenth = (args.graphs / 10).max(1);
    let start = Instant::now();
    let mut tenth_start = start;
    let mut rates = Vec::new();
    for t in 0..args.graphs {
        let k = args.cycle.map_or(t, |c| t % c.max(1));
        let text = replacement(&trickle_graph(k)?, &programme_graph(k, t));
        update(&client, server, text).with_context(|| format!("replacing graph {k}"))?;
        written.store(t + 1, Ordering::Release);
        if (t + 1) % tenth == 0 {
            let rate = tenth as f64 / tenth_start.elapsed().as_secs_f64();
            println!("tenth {:>2}: {rate:>8.0} graphs/s", rates.len() + 1);
            rates.push(rate);
            tenth_start = Instant::now();
        }
    }
    Ok(Writes {
        rates,
        elapsed: start.elapsed(),
    })
}

/// Read latencies by kind.
#[derive(Default)]
struct Reads {
    titles: Vec<Duration>,
    counts: Vec<Duration>,
    errors: usize,
}

/// Runs SELECTs until `done`: alternately the titles of a random graph already written and a
/// COUNT over the first 1,000 uses of a predicate.
fn read(
    server: &Server,
    written: &AtomicUsize,
    done: &AtomicBool,
    cycle: Option<usize>,
    seed: u64,
) -> anyhow::Result<Reads> {
    let client = keep_alive_client()?;
    let mut rng = Rng::new(seed);
    let mut reads = Reads::default();
    let count = format!(
        "SELECT (COUNT(*) AS ?n) WHERE {{ {{ SELECT ?o WHERE {{ ?s <{EBUCCDM}contactName> ?o }} LIMIT 1000 }} }}"
    );
    let mut turn = 0usize;
    while !done.load(Ordering::Acquire) {
        let available = cycle.map_or(written.load(Ordering::Acquire), |c| {
            written.load(Ordering::Acquire).min(c)
        });
        if available == 0 {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        turn += 1;
        let titles = turn % 2 == 1;
        let query = if titles {
            let graph = trickle_graph(rng.below(available))?;
            format!(
                "SELECT ?t WHERE {{ GRAPH {graph} {{ ?s <http://purl.org/dc/terms/title> ?t }} }}"
            )
        } else {
            count.clone()
        };
        let start = Instant::now();
        let response = client
            .get(server.url("/sparql"))
            .query(&[("query", query.as_str())])
            .header("Accept", "application/sparql-results+json")
            .send()?;
        let ok = response.status().is_success();
        let body = response.bytes()?;
        let elapsed = start.elapsed();
        if !ok || body.is_empty() {
            reads.errors += 1;
        } else if titles {
            reads.titles.push(elapsed);
        } else {
            reads.counts.push(elapsed);
        }
    }
    Ok(reads)
}

/// The nearest-rank percentile `p` (0–100) of sorted latencies, in milliseconds.
fn percentile(sorted: &[Duration], p: usize) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (sorted.len() * p).div_ceil(100).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1e3
}

fn print_latencies(label: &str, latencies: &mut [Duration]) {
    latencies.sort_unstable();
    println!(
        "{label:<22}{:>8} reads, p50 {:>7.2} ms, p99 {:>7.2} ms",
        latencies.len(),
        percentile(latencies, 50),
        percentile(latencies, 99)
    );
}

/// Writes the broadcaster archive over HTTP, then times `MUSIC_IN_JANUARY` as SPARQL XML.
fn xml_streaming(server: &Server, programmes: usize, parts: usize) -> anyhow::Result<()> {
    let shape = BroadcasterShape {
        programmes,
        parts,
        contributors: 3,
    };
    let archive = broadcaster(shape);
    let (expected, _) = expected_rows(&archive, shape);
    let client = keep_alive_client()?;
    let start = Instant::now();
    for programme in &archive {
        let graph = NamedNode::new(programme.graph.as_str())?;
        update(&client, server, replacement(&graph, &programme.ntriples))?;
    }
    let load = start.elapsed().as_secs_f64();
    println!();
    println!(
        "broadcaster archive:  {programmes} programmes × {parts} parts written in {load:.1} s ({:.0} graphs/s)",
        programmes as f64 / load
    );
    println!("MUSIC_IN_JANUARY as application/sparql-results+xml ({expected} rows expected):");
    for run in 1..=2 {
        let start = Instant::now();
        let mut response = client
            .get(server.url("/sparql"))
            .query(&[("query", MUSIC_IN_JANUARY)])
            .header("Accept", "application/sparql-results+xml")
            .send()?;
        let headers = start.elapsed();
        if !response.status().is_success() {
            bail!("the query answered {}", response.status());
        }
        let mut body = Vec::new();
        let mut chunk = vec![0; 64 << 10];
        let mut first_byte = None;
        loop {
            let n = response.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            first_byte.get_or_insert_with(|| start.elapsed());
            body.extend_from_slice(&chunk[..n]);
        }
        let total = start.elapsed();
        let rows = match QueryResultsParser::from_format(QueryResultsFormat::Xml).for_slice(&body) {
            Ok(SliceQueryResultsParserOutput::Solutions(solutions)) => {
                solutions.collect::<Result<Vec<_>, _>>()?.len()
            }
            Ok(SliceQueryResultsParserOutput::Boolean(_)) => bail!("a boolean answer"),
            Err(e) => bail!("invalid XML results: {e}"),
        };
        println!(
            "  run {run}: headers {:>7.1} ms, first byte {:>7.1} ms, total {:>7.1} ms, {rows} rows, {:.1} MB",
            headers.as_secs_f64() * 1e3,
            first_byte.unwrap_or(total).as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3,
            body.len() as f64 / 1e6
        );
        if rows != expected {
            bail!("{rows} rows instead of {expected}");
        }
    }
    Ok(())
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &ReplaceHttpArgs) -> anyhow::Result<()> {
    let temp = tempfile::tempdir()?;
    let path = args
        .data
        .clone()
        .unwrap_or_else(|| temp.path().join("store"));
    let (read_nice, large_write_nice) = (args.read_nice, args.large_write_nice);
    // As `serve` opens it.
    let background_nice = args.background_nice;
    let options = StoreOptions::default()
        .with_background_at_lowest_priority(background_nice.lowers_store_background());
    let store = Arc::new(Store::open(&path, options)?);
    // As `serve` starts it: the index in the store folder, its threads at the background nice.
    let (index, _follower) = if args.text_index {
        Some(lodestone_server::text_index::start(
            &store,
            &path,
            IndexSettings::default(),
            background_nice,
        )?)
    } else {
        None
    }
    .unzip();
    let server = Server::start(
        Arc::clone(&store),
        read_nice,
        large_write_nice,
        index.clone(),
    )?;
    println!(
        "server on {}; {} graph replacements over HTTP with a concurrent reader{}",
        server.base,
        args.graphs,
        if args.text_index {
            ", text index on"
        } else {
            ""
        }
    );

    let written = AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    let (writes, reads) = std::thread::scope(|scope| {
        let reader = scope.spawn(|| read(&server, &written, &done, args.cycle, args.seed));
        let writes = write(&server, args, &written);
        done.store(true, Ordering::Release);
        let reads = reader
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the reader panicked")));
        (writes, reads)
    });
    let (writes, mut reads) = (writes?, reads?);

    let elapsed = writes.elapsed.as_secs_f64();
    println!("graphs:               {}", args.graphs);
    println!(
        "overall:              {:.0} graphs/s ({elapsed:.1} s)",
        args.graphs as f64 / elapsed
    );
    crate::trickle::print_trend(&writes.rates);
    let mut all: Vec<Duration> = reads.titles.iter().chain(&reads.counts).copied().collect();
    print_latencies("reads (all):", &mut all);
    print_latencies("  titles of a graph:", &mut reads.titles);
    print_latencies("  count, limit 1000:", &mut reads.counts);
    println!("read errors:          {}", reads.errors);
    println!("store quads:          {}", store.reader().counts()?.quads);
    if let Some(index) = &index {
        let start = Instant::now();
        let caught_up = index.wait_for(store.sequence(), Duration::from_secs(600));
        println!(
            "text index:           {} the last commit {:.0} ms after it ({} entities)",
            if caught_up {
                "reached"
            } else {
                "had not reached"
            },
            start.elapsed().as_secs_f64() * 1e3,
            index.document_count()
        );
    }

    if args.broadcaster_programmes > 0 {
        xml_streaming(&server, args.broadcaster_programmes, args.broadcaster_parts)?;
    }
    server.stop()
}
