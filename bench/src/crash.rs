//! `crash`: a writer replaces named graphs over HTTP while the server is killed with SIGKILL
//! at random moments, restarted, and checked.
//!
//! Each cycle starts the real `lodestone serve` on the same data folder, lets one writer
//! `PUT /store?graph=…` whole graph versions (a third of the graphs made of blank nodes), kills
//! the process after a random delay, restarts it and reads every graph back. A graph must be
//! exactly the version last acknowledged, or the one version whose request was in flight when
//! the process died — never empty, never a mix of two versions, never short — and, once the
//! text index has caught up, the text index agrees (see [`crate::crash_text`]). The restart time
//! (process start to the first `/health` answer) is printed; `--quads N` first bulk-loads N
//! generated quads so that it is measured on a large store.

use crate::crash_text;
use crate::process::{lodestone_binary, ServerProcess};
use crate::rng::Rng;
use anyhow::{bail, Context};
use oxrdf::{NamedOrBlankNode, Term};
use oxrdfio::{RdfFormat, RdfParser};
use reqwest::blocking::Client;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const NS: &str = "http://crash.example/";
/// How long the text index may take to catch up after a restart.
const TEXT_CATCH_UP: Duration = Duration::from_secs(30);

/// Options of `lodestone-bench crash`.
#[derive(Debug, clap::Args)]
pub(crate) struct CrashArgs {
    /// Kill-restart-check cycles.
    #[arg(long, default_value_t = 200)]
    pub cycles: usize,
    /// Named graphs the writer replaces (every third one is made of blank nodes).
    #[arg(long, default_value_t = 30)]
    pub graphs: usize,
    /// Longest time the writer runs before the kill, in milliseconds (the delay is random).
    #[arg(long, default_value_t = 600)]
    pub max_delay_ms: u64,
    /// Quads bulk-loaded before the first cycle, to measure restarts of a large store.
    #[arg(long, default_value_t = 0)]
    pub quads: u64,
    /// Run the server with `--sync` (WAL fsync per commit).
    #[arg(long)]
    pub sync: bool,
    /// Store folder (a temporary one by default).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Seed of the delays and of the writer's choice of graphs.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

/// What the checker knows about one graph.
#[derive(Debug, Clone, Copy, Default)]
struct Known {
    /// The last version whose write was acknowledged.
    acknowledged: Option<u64>,
    /// The version whose write was sent when the server died (it may or may not be there).
    in_doubt: Option<u64>,
}

/// The size of a graph version: versions differ in size so that a short graph shows.
fn size_of(version: u64) -> u64 {
    20 + (version % 7) * 15
}

fn graph_iri(graph: usize) -> String {
    format!("{NS}g{graph}")
}

/// Turtle of version `version` of graph `graph`: every triple names the graph, the version
/// and its position; blank-node graphs chain their nodes.
fn graph_version(graph: usize, version: u64) -> String {
    let mut turtle = String::new();
    for k in 0..size_of(version) {
        let label = format!("\"g{graph} v{version} k{k}\"");
        if graph.is_multiple_of(3) {
            turtle.push_str(&format!("_:b{k} <{NS}p> {label} .\n"));
            if k > 0 {
                turtle.push_str(&format!("_:b{} <{NS}next> _:b{k} .\n", k - 1));
            }
        } else {
            turtle.push_str(&format!("<{NS}s{graph}/{k}> <{NS}p> {label} .\n"));
        }
    }
    turtle
}

/// Reads graph `graph` back: `None` if it does not exist, else its single version, or an
/// error describing how it is not one whole version.
fn read_version(client: &Client, base: &str, graph: usize) -> anyhow::Result<Option<u64>> {
    let response = client
        .get(format!("{base}/store"))
        .query(&[("graph", graph_iri(graph))])
        .header("Accept", "application/n-triples")
        .send()?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.status().is_success() {
        bail!("GET graph {graph}: {}", response.status());
    }
    let body = response.bytes()?;
    let mut versions = BTreeSet::new();
    let mut positions = BTreeSet::new();
    let mut links = 0_u64;
    for triple in RdfParser::from_format(RdfFormat::NTriples).for_slice(&body) {
        let triple = triple?;
        if triple.predicate.as_str() == format!("{NS}next") {
            links += 1;
            continue;
        }
        let (Term::Literal(label), expected_blank) = (&triple.object, graph.is_multiple_of(3))
        else {
            bail!("graph {graph}: unexpected object {}", triple.object);
        };
        if matches!(triple.subject, NamedOrBlankNode::BlankNode(_)) != expected_blank {
            bail!(
                "graph {graph}: subject {} of the wrong kind",
                triple.subject
            );
        }
        let mut parts = label.value().split(' ');
        let (Some(g), Some(v), Some(k)) = (parts.next(), parts.next(), parts.next()) else {
            bail!("graph {graph}: unexpected label {label}");
        };
        if g != format!("g{graph}") {
            bail!("graph {graph}: holds a triple of {g}");
        }
        versions.insert(v.trim_start_matches('v').parse::<u64>()?);
        positions.insert(k.trim_start_matches('k').parse::<u64>()?);
    }
    let version = match versions.len() {
        0 => bail!("graph {graph} exists but is empty"),
        1 => versions.into_iter().next().unwrap_or_default(),
        _ => bail!("graph {graph} mixes versions {versions:?}"),
    };
    let size = size_of(version);
    if positions.len() as u64 != size || positions.last() != Some(&(size - 1)) {
        bail!(
            "graph {graph} version {version}: {} of {size} triples",
            positions.len()
        );
    }
    if graph.is_multiple_of(3) && links != size - 1 {
        bail!(
            "graph {graph} version {version}: {links} of {} links",
            size - 1
        );
    }
    Ok(Some(version))
}

/// Runs the benchmark and prints its figures; fails if any graph was ever wrong.
pub(crate) fn run(args: &CrashArgs) -> anyhow::Result<()> {
    let binary = lodestone_binary()?;
    let temp = tempfile::tempdir()?;
    let data = args
        .data
        .clone()
        .unwrap_or_else(|| temp.path().join("data"));
    if args.quads > 0 {
        bulk_load(&binary, &data, args.quads)?;
    }
    let mut server_args = vec!["--open-updates", "--no-sample", "--query-timeout", "60"];
    if args.sync {
        server_args.push("--sync");
    }
    let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
    let known = Arc::new(Mutex::new(vec![Known::default(); args.graphs]));
    let mut rng = Rng::new(args.seed);
    let mut next_version = 1_u64;
    let (mut acknowledged, mut in_doubt_found, mut violations) = (0_u64, 0_u64, Vec::new());
    let mut text_checks = 0_u64;
    let mut restarts = Vec::new();
    let mut server = ServerProcess::start(&binary, &data, &server_args)?;
    println!(
        "crash: {} cycles, {} graphs (every third of blank nodes), first start {:.2} s{}",
        args.cycles,
        args.graphs,
        server.startup.as_secs_f64(),
        if args.sync { ", --sync" } else { "" }
    );
    for cycle in 0..args.cycles {
        // Write until the kill.
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (stop, known, base) = (Arc::clone(&stop), Arc::clone(&known), server.base.clone());
            let (client, graphs, seed) = (client.clone(), args.graphs, rng.next_u64());
            let first_version = next_version;
            std::thread::spawn(move || {
                write_until_stopped(&client, &base, graphs, seed, first_version, &known, &stop)
            })
        };
        let delay = 20 + rng.below(usize::try_from(args.max_delay_ms).unwrap_or(600)) as u64;
        std::thread::sleep(Duration::from_millis(delay));
        server.kill()?;
        stop.store(true, Ordering::Relaxed);
        let (written, last_version) = writer
            .join()
            .map_err(|_| anyhow::anyhow!("the writer panicked"))?;
        acknowledged += written;
        next_version = last_version + 1;

        server = ServerProcess::start(&binary, &data, &server_args)?;
        restarts.push(server.startup);
        let mut known = known.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = crash_text::wait_for_catch_up(&client, &server.base, TEXT_CATCH_UP) {
            violations.push(format!("cycle {cycle}: {e}"));
        }
        for (graph, state) in known.iter_mut().enumerate() {
            let allowed = [state.acknowledged, state.in_doubt];
            match read_version(&client, &server.base, graph) {
                Ok(found) if found == state.acknowledged => {}
                Ok(found) if state.in_doubt.is_some() && found == state.in_doubt => {
                    in_doubt_found += 1;
                    state.acknowledged = found;
                }
                Ok(found) => violations.push(format!(
                    "cycle {cycle}, graph {graph}: found version {found:?}, expected one of {allowed:?}"
                )),
                Err(e) => violations.push(format!("cycle {cycle}: {e}")),
            }
            let current = state.acknowledged;
            let stale = allowed
                .into_iter()
                .flatten()
                .filter(|v| Some(*v) != current);
            // Graphs of blank nodes (every third) have no IRI entity for the index to hold.
            let indexed = !graph.is_multiple_of(3);
            match crash_text::check_graph(
                &client,
                &server.base,
                (graph, &graph_iri(graph), indexed),
                current,
                stale,
            ) {
                Ok(()) => text_checks += 1,
                Err(e) => violations.push(format!("cycle {cycle}: {e}")),
            }
            state.in_doubt = None;
        }
        if (cycle + 1) % 20 == 0 || cycle + 1 == args.cycles {
            println!(
                "  after {} cycles: {acknowledged} acknowledged writes, {} violations",
                cycle + 1,
                violations.len()
            );
        }
    }
    server.terminate()?;
    restarts.sort();
    let mean = restarts.iter().sum::<Duration>().as_secs_f64() / restarts.len().max(1) as f64;
    println!("acknowledged writes:      {acknowledged}");
    println!("in-flight writes found:   {in_doubt_found} (the others were lost with the process, as allowed)");
    println!(
        "restart to first answer:  mean {:.3} s, max {:.3} s{}",
        mean,
        restarts.last().map_or(0.0, Duration::as_secs_f64),
        if args.quads > 0 {
            format!(" (store of {} generated quads + the graphs)", args.quads)
        } else {
            String::new()
        }
    );
    println!("text index checks:        {text_checks} graphs agreed with the store after catch-up");
    print_violations(&violations)
}

/// Prints the count and the first twenty violations; fails if there is any.
pub(crate) fn print_violations(violations: &[String]) -> anyhow::Result<()> {
    println!("violations:               {}", violations.len());
    for violation in violations.iter().take(20) {
        println!("  {violation}");
    }
    if !violations.is_empty() {
        bail!("{} violations", violations.len());
    }
    Ok(())
}

/// The writer: replaces random graphs with new versions until `stop` or the first failure
/// (the server died). Returns the writes acknowledged and the last version number used.
fn write_until_stopped(
    client: &Client,
    base: &str,
    graphs: usize,
    seed: u64,
    first_version: u64,
    known: &Mutex<Vec<Known>>,
    stop: &AtomicBool,
) -> (u64, u64) {
    let mut rng = Rng::new(seed);
    let mut version = first_version;
    let mut written = 0;
    while !stop.load(Ordering::Relaxed) {
        let graph = rng.below(graphs);
        known.lock().unwrap_or_else(|e| e.into_inner())[graph].in_doubt = Some(version);
        let answer = client
            .put(format!("{base}/store"))
            .query(&[("graph", graph_iri(graph))])
            .header("Content-Type", "text/turtle")
            .body(graph_version(graph, version))
            .send();
        match answer {
            Ok(response) if response.status().is_success() => {
                let mut known = known.lock().unwrap_or_else(|e| e.into_inner());
                known[graph] = Known {
                    acknowledged: Some(version),
                    in_doubt: None,
                };
                written += 1;
                version += 1;
            }
            // The server is gone: this version stays in doubt.
            _ => break,
        }
    }
    (written, version)
}

/// Bulk-loads `quads` generated quads (10 per subject, in 100 named graphs) with `lodestone
/// load`, streaming N-Quads into its standard input.
fn bulk_load(binary: &std::path::Path, data: &std::path::Path, quads: u64) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut child = Command::new(binary)
        .arg("load")
        .arg("--data")
        .arg(data)
        .args(["--format", "nquads", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start lodestone load")?;
    {
        let stdin = child.stdin.take().context("no stdin")?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, stdin);
        for i in 0..quads {
            writeln!(
                out,
                "<{NS}big/s{}> <{NS}big/p{}> \"value {i}\" <{NS}big/g{}> .",
                i / 10,
                i % 10,
                (i / 10) % 100
            )?;
        }
        out.flush()?;
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        bail!("lodestone load failed");
    }
    print!("{}", String::from_utf8_lossy(&output.stdout));
    println!(
        "bulk load of {quads} quads: {:.1} s; store on disk {} MiB",
        start.elapsed().as_secs_f64(),
        folder_bytes(data) >> 20
    );
    Ok(())
}

fn folder_bytes(path: &std::path::Path) -> u64 {
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_differ_in_size_and_blank_graphs_chain() {
        assert_ne!(size_of(1), size_of(2));
        let blank = graph_version(3, 5);
        assert!(blank.starts_with("_:b0 "));
        assert_eq!(
            blank.lines().count() as u64,
            2 * size_of(5) - 1,
            "labels plus links"
        );
        assert_eq!(graph_version(1, 5).lines().count() as u64, size_of(5));
    }
}
