//! `trickle`: replaces named graphs one transaction at a time, the way a publisher updates a
//! live store, and prints commits per second for each tenth of the run.

use lodestone_store::load::{parse_into, ParseOptions, RdfFormat};
use lodestone_store::model::{GraphName, NamedNode};
use lodestone_store::{Store, StoreOptions};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// An N-Triples document shaped like a broadcaster's programme graph: ~150 triples, a third
/// of them on blank nodes.
pub fn programme_graph(graph: usize, version: usize) -> String {
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

pub fn run(
    transactions: usize,
    graphs: Option<usize>,
    data: Option<PathBuf>,
) -> anyhow::Result<()> {
    let temp = tempfile::tempdir()?;
    let path = data.unwrap_or_else(|| temp.path().join("store"));
    let store = Store::open(&path, StoreOptions::default())?;
    let tenth = (transactions / 10).max(1);
    let start = Instant::now();
    let mut tenth_start = Instant::now();
    let mut quads = 0;
    let mut rates = Vec::new();
    for t in 0..transactions {
        let graph = graphs.map_or(t, |g| t % g);
        let name = NamedNode::new(format!("http://example.org/graph/{graph}"))?;
        let doc = programme_graph(graph, t);
        let mut transaction = store.transaction()?;
        let id = transaction.graph_id_for_insert(name.as_ref().into())?;
        transaction.clear_graph(id)?;
        let options = ParseOptions {
            format: Some(RdfFormat::NTriples),
            graph: Some(GraphName::NamedNode(name)),
            ..ParseOptions::default()
        };
        quads += parse_into(&mut transaction, doc.as_bytes(), "generated", &options)?.quads;
        transaction.commit()?;
        if (t + 1) % tenth == 0 {
            let rate = tenth as f64 / tenth_start.elapsed().as_secs_f64();
            println!("tenth {:>2}: {rate:>8.0} commits/s", rates.len() + 1);
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
pub fn print_trend(tenths: &[f64]) {
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
