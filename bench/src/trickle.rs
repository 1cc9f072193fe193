//! `trickle`: replaces named graphs one transaction at a time, the way a publisher updates a
//! live store, and prints commits per second for each tenth of the run.

use lodestone_server::priority::Nice;
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::{parse_into, ParseOptions, RdfFormat};
use lodestone_store::model::{GraphName, NamedNode};
use lodestone_store::{Store, StoreOptions};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// An N-Triples document shaped like a broadcaster's programme graph: ~150 triples, a third
/// of them on blank nodes.
pub(crate) fn programme_graph(graph: usize, version: usize) -> String {
    let mut doc = String::with_capacity(24_000);
    let base = format!("http://example.org/programme/{graph}");
    let ns = "http://www.ebu.ch/metadata/ontologies/ebuccdm#";
    let dct = "http://purl.org/dc/terms/";
    let _ = writeln!(
        doc,
        "<{base}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{ns}Programme> ."
    );
    let _ = writeln!(
        doc,
        "<{base}> <{dct}title> \"Programme {graph} version {version}\"@en ."
    );
    for part in 0..16 {
        let p = format!("{base}/part/{part}");
        let _ = writeln!(doc, "<{base}> <{ns}hasPart> <{p}> .");
        let _ = writeln!(doc, "<{p}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://id.nrk.no/2013/digas/class/Music> .");
        let _ = writeln!(doc, "<{p}> <{dct}title> \"Track {part} of {graph}\" .");
        let _ = writeln!(
            doc,
            "<{p}> <{ns}duration> \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer> .",
            120 + part
        );
        let _ = writeln!(doc, "<{p}> <{ns}hasContributor> _:c{part} .");
        let _ = writeln!(
            doc,
            "_:c{part} <{ns}contactName> \"Artist {}\" .",
            (graph * 7 + part) % 500
        );
        let _ = writeln!(doc, "_:c{part} <{ns}hasRole> _:r{part} .");
        let _ = writeln!(doc, "_:r{part} <{ns}roleName> \"performer\" .");
        let _ = writeln!(doc, "<{p}> <{ns}start> \"2014-01-{:02}T{:02}:00:00+01:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .", 1 + graph % 28, part);
    }
    doc
}

/// What `trickle` runs.
#[derive(Debug, clap::Args)]
pub(crate) struct TrickleArgs {
    /// Number of transactions.
    #[arg(long, default_value_t = 10_000)]
    pub transactions: usize,
    /// Distinct graphs cycled through (default: a new graph every time, so the store grows).
    #[arg(long)]
    pub graphs: Option<usize>,
    /// Number of the first graph: with `--data` on a store an earlier run filled, a value past
    /// that run's graphs adds new graphs to it instead of replacing its own.
    #[arg(long, default_value_t = 0)]
    pub first_graph: usize,
    /// Store folder (a temporary one by default).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// The server's `--background-nice`: RocksDB's flushes and compactions run at the lowest
    /// CPU priority whenever it is above 0, as `serve` opens the store.
    #[arg(long, default_value_t = ServerSettings::default().background_nice)]
    pub background_nice: Nice,
}

/// Time a tenth of the run spent in each step of its transactions.
#[derive(Default)]
struct StepTimes {
    /// Looking up the graph and clearing it.
    clear: Duration,
    /// Parsing the document into the transaction (term look-ups included).
    parse: Duration,
    /// Committing: statistics look-ups and the write batch.
    commit: Duration,
}

impl StepTimes {
    fn per_transaction(&self, transactions: usize) -> String {
        let micros = |d: Duration| d.as_secs_f64() * 1e6 / transactions as f64;
        format!(
            "clear {:>3.0} µs, parse {:>3.0} µs, commit {:>3.0} µs",
            micros(self.clear),
            micros(self.parse),
            micros(self.commit)
        )
    }
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &TrickleArgs) -> anyhow::Result<()> {
    let temp = tempfile::tempdir()?;
    let path = args
        .data
        .clone()
        .unwrap_or_else(|| temp.path().join("store"));
    let options = StoreOptions::default()
        .with_background_at_lowest_priority(args.background_nice.lowers_store_background());
    let store = Store::open(&path, options)?;
    let transactions = args.transactions;
    let tenth = (transactions / 10).max(1);
    let start = Instant::now();
    let mut tenth_start = Instant::now();
    let mut quads = 0;
    let mut rates = Vec::new();
    let mut steps = StepTimes::default();
    for t in 0..transactions {
        let graph = args.first_graph + args.graphs.map_or(t, |g| t % g);
        let name = NamedNode::new(format!("http://example.org/graph/{graph}"))?;
        let doc = programme_graph(graph, t);
        let began = Instant::now();
        let mut transaction = store.transaction()?;
        let id = transaction.graph_id_for_insert(name.as_ref().into())?;
        transaction.clear_graph(id)?;
        let cleared = Instant::now();
        let options = ParseOptions {
            format: Some(RdfFormat::NTriples),
            graph: Some(GraphName::NamedNode(name)),
            ..ParseOptions::default()
        };
        quads += parse_into(&mut transaction, doc.as_bytes(), "generated", &options)?.quads;
        let parsed = Instant::now();
        transaction.commit()?;
        steps.clear += cleared - began;
        steps.parse += parsed - cleared;
        steps.commit += parsed.elapsed();
        if (t + 1) % tenth == 0 {
            let rate = tenth as f64 / tenth_start.elapsed().as_secs_f64();
            let steps = std::mem::take(&mut steps).per_transaction(tenth);
            println!(
                "tenth {:>2}: {rate:>8.0} commits/s ({steps})",
                rates.len() + 1
            );
            rates.push(rate);
            tenth_start = Instant::now();
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let counts = store.reader().counts()?;
    println!("transactions:         {transactions}");
    println!("quads per graph:      {}", quads / transactions as u64);
    println!(
        "overall:              {:.0} commits/s, {:.0} quads/s",
        transactions as f64 / elapsed,
        quads as f64 / elapsed
    );
    print_trend(&rates);
    println!("store quads at end:   {}", counts.quads);
    Ok(())
}

/// Prints how the rate of the last tenth and of the second half compare with the first: the
/// half ratio is the steadier of the two, since one tenth can take a whole compaction.
pub(crate) fn print_trend(tenths: &[f64]) {
    if let (Some(first), Some(last)) = (tenths.first(), tenths.last()) {
        println!("last tenth / first:   {:.2}", last / first);
    }
    // Equal work per tenth: a half's rate is the harmonic mean of its tenths' rates.
    let rate = |half: &[f64]| half.len() as f64 / half.iter().map(|r| 1.0 / r).sum::<f64>();
    let (first_half, second_half) = tenths.split_at(tenths.len() / 2);
    if !first_half.is_empty() {
        println!(
            "second half / first:  {:.2}",
            rate(second_half) / rate(first_half)
        );
    }
}
