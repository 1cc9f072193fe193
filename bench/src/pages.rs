//! `pages`: HTML entity pages per second and their latency under `wrk`.
//!
//! Loads the dataset into a store folder once (kept for later runs), starts the real server
//! in-process on 127.0.0.1:0, draws typical entities (subjects with a class) with a fixed
//! seed, finds the most-linked IRI, and runs `wrk` (Debian package `wrk`) at the given
//! connection count: first over the typical entities' pages in turn, then over the
//! most-linked entity's first page. Also times the most-linked page alone (one client).

use crate::replace_http::Server;
use crate::rng::Rng;
use anyhow::{bail, Context};
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::{BulkLoader, Input};
use lodestone_store::model::Term;
use lodestone_store::{Reader, Store, StoreOptions};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of `lodestone-bench pages`.
#[derive(Debug, clap::Args)]
pub(crate) struct PagesArgs {
    /// Store folder; filled from --dataset when empty.
    #[arg(long, default_value = "target/bench-pages-store")]
    data: PathBuf,
    /// Dataset loaded into an empty store.
    #[arg(long, default_value = "../shared/data/bsbm/bsbm-10k.nt.zst")]
    dataset: PathBuf,
    /// Base IRI of the entities (pages under it are served at /page/…).
    #[arg(
        long,
        default_value = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/"
    )]
    base_iri: String,
    /// Typical entities drawn.
    #[arg(long, default_value_t = 1000)]
    entities: usize,
    /// Seconds per wrk run.
    #[arg(long, default_value_t = 15)]
    duration: u64,
    /// wrk connections.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// wrk threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of the entity draw.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Block cache of the store in MB (the server's default is 256: half of
    /// `--memory-budget 512`).
    #[arg(long, default_value_t = 256)]
    block_cache_mb: usize,
    /// The most-linked IRI, if known (otherwise found with a SPARQL GROUP BY over all quads).
    #[arg(long)]
    most_linked: Option<String>,
}

/// The IRIs of the first column of a SELECT.
fn column(reader: &Reader<'_>, query: &str) -> anyhow::Result<Vec<String>> {
    Ok(crate::bsbm::select(reader, query)?
        .into_iter()
        .filter_map(|row| match row.into_iter().next().flatten() {
            Some(Term::NamedNode(n)) => Some(n.into_string()),
            _ => None,
        })
        .collect())
}

/// The path of an entity's HTML page.
fn page_path(base: &str, iri: &str) -> String {
    let linker = lodestone_web::Linker::new(base);
    linker.page(iri)
}

/// Figures of one wrk run.
struct WrkFigures {
    requests_per_sec: f64,
    p50_ms: f64,
    p99_ms: f64,
    non_2xx: u64,
    raw: String,
}

fn millis(text: &str) -> Option<f64> {
    let text = text.trim();
    let (number, factor) = if let Some(n) = text.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (text, 1.0)
    };
    number.parse::<f64>().ok().map(|v| v * factor)
}

fn parse_wrk(raw: String) -> anyhow::Result<WrkFigures> {
    let field = |prefix: &str| -> Option<String> {
        raw.lines()
            .map(str::trim)
            .find(|l| l.starts_with(prefix))
            .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
    };
    let non_2xx = raw
        .lines()
        .find_map(|l| l.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    Ok(WrkFigures {
        requests_per_sec: field("Requests/sec:")
            .and_then(|v| v.parse().ok())
            .context("wrk printed no Requests/sec")?,
        p50_ms: field("50%")
            .as_deref()
            .and_then(millis)
            .context("wrk printed no 50% latency")?,
        p99_ms: field("99%")
            .as_deref()
            .and_then(millis)
            .context("wrk printed no 99% latency")?,
        non_2xx,
        raw,
    })
}

fn wrk(
    args: &PagesArgs,
    url: &str,
    paths: &[String],
    dir: &std::path::Path,
) -> anyhow::Result<WrkFigures> {
    let mut script = String::from("paths = {\n");
    for path in paths {
        script.push_str(&format!("  {:?},\n", path));
    }
    script.push_str("}\ncounter = 0\nrequest = function()\n  counter = counter + 1\n  return wrk.format(\"GET\", paths[(counter % #paths) + 1], { [\"Accept\"] = \"text/html\" })\nend\n");
    let script_path = dir.join("pages.lua");
    std::fs::write(&script_path, script)?;
    let output = Command::new("wrk")
        .arg(format!("-t{}", args.threads))
        .arg(format!("-c{}", args.connections))
        .arg(format!("-d{}s", args.duration))
        .arg("--latency")
        .arg("-s")
        .arg(&script_path)
        .arg(url)
        .output()
        .context("cannot run wrk: install it with `make deps` (Debian package wrk)")?;
    if !output.status.success() {
        bail!("wrk failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    parse_wrk(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &PagesArgs) -> anyhow::Result<()> {
    let options = StoreOptions {
        block_cache_bytes: args.block_cache_mb << 20,
        ..StoreOptions::default()
    };
    let store = Store::open(&args.data, options)
        .with_context(|| format!("cannot open {}", args.data.display()))?;
    if store.reader().counts()?.quads == 0 {
        let start = Instant::now();
        let input = Input::from_arg(&args.dataset.to_string_lossy());
        let report = BulkLoader::new(&store).load(&[input])?;
        println!(
            "loaded {} quads from {} in {:.1} s",
            report.quads_added,
            args.dataset.display(),
            start.elapsed().as_secs_f64()
        );
    }
    let quads = store.reader().counts()?.quads;
    println!(
        "store: {} quads ({}), block cache {} MB",
        quads,
        args.data.display(),
        args.block_cache_mb
    );
    let reader = store.reader();
    let subjects = column(&reader, "SELECT DISTINCT ?s WHERE { ?s a ?c }")?;
    if subjects.is_empty() {
        bail!("no typed subjects in the store");
    }
    let mut rng = Rng::new(args.seed);
    let typical: Vec<String> = (0..args.entities.min(subjects.len()))
        .map(|_| rng.pick(&subjects).clone())
        .collect();
    let start = Instant::now();
    let most_linked = match &args.most_linked {
        Some(iri) => iri.clone(),
        None => column(
            &reader,
            "SELECT ?o WHERE { ?s ?p ?o FILTER(isIRI(?o)) } GROUP BY ?o ORDER BY DESC(COUNT(*)) LIMIT 1",
        )?
        .into_iter()
        .next()
        .context("no IRI objects")?,
    };
    let usage = reader
        .term_id(
            lodestone_store::model::NamedNode::new(most_linked.as_str())?
                .as_ref()
                .into(),
        )?
        .map(|id| reader.usage(id))
        .transpose()?
        .unwrap_or_default();
    println!(
        "most-linked IRI: {most_linked} ({} incoming links; found in {:.1} s)",
        usage.as_object,
        start.elapsed().as_secs_f64()
    );
    drop(reader);
    let store = Arc::new(store);
    let settings = ServerSettings::default().with_base_iri(args.base_iri.as_str());
    let server = Server::start_with(Arc::clone(&store), settings)?;
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()?;
    let typical_paths: Vec<String> = typical
        .iter()
        .map(|iri| page_path(&args.base_iri, iri))
        .collect();
    let linked_path = page_path(&args.base_iri, &most_linked);
    // One pass over every page first: each must answer 200 (and the caches warm up).
    for path in typical_paths.iter().chain([&linked_path]) {
        let response = client
            .get(server.url(path))
            .header("Accept", "text/html")
            .send()?;
        if !response.status().is_success() {
            bail!("{path}: {}", response.status());
        }
        response.bytes()?;
    }
    let mut alone = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let response = client
            .get(server.url(&linked_path))
            .header("Accept", "text/html")
            .send()?;
        let body = response.bytes()?;
        alone.push((start.elapsed().as_secs_f64() * 1000.0, body.len()));
    }
    alone.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "most-linked first page, one client: p50 {:.1} ms, max {:.1} ms, {} KiB of HTML",
        alone[alone.len() / 2].0,
        alone[alone.len() - 1].0,
        alone[0].1 / 1024
    );
    let dir = tempfile::tempdir()?;
    let base_url = server.url("");
    let typical_run = wrk(args, &base_url, &typical_paths, dir.path())?;
    println!(
        "typical pages ({} entities), wrk -t{} -c{} -d{}s: {:.0} pages/s, p50 {:.2} ms, p99 {:.2} ms, non-2xx {}",
        typical_paths.len(), args.threads, args.connections, args.duration,
        typical_run.requests_per_sec, typical_run.p50_ms, typical_run.p99_ms, typical_run.non_2xx
    );
    let linked_run = wrk(
        args,
        &base_url,
        std::slice::from_ref(&linked_path),
        dir.path(),
    )?;
    println!(
        "most-linked first page, wrk -t{} -c{} -d{}s: {:.0} pages/s, p50 {:.2} ms, p99 {:.2} ms, non-2xx {}",
        args.threads, args.connections, args.duration,
        linked_run.requests_per_sec, linked_run.p50_ms, linked_run.p99_ms, linked_run.non_2xx
    );
    if std::env::var_os("BENCH_VERBOSE").is_some() {
        println!("{}\n{}", typical_run.raw, linked_run.raw);
    }
    server.stop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_output_is_read() {
        let raw = "  Latency Distribution\n     50%    1.23ms\n     75%    2.00ms\n     90%    3.00ms\n     99%   15.10ms\n  100 requests in 1.00s\n  Non-2xx or 3xx responses: 3\nRequests/sec:   2345.67\n".to_owned();
        let figures = parse_wrk(raw).expect("figures");
        assert_eq!(figures.p50_ms, 1.23);
        assert_eq!(figures.p99_ms, 15.1);
        assert_eq!(figures.non_2xx, 3);
        assert!((figures.requests_per_sec - 2345.67).abs() < 1e-9);
        assert_eq!(millis("850.00us"), Some(0.85));
        assert_eq!(millis("1.50s"), Some(1500.0));
    }
}
