//! The offline commands: load, stats, dump, backup.

use crate::cli::{BackupArgs, DataArgs, DumpArgs, LoadArgs};
use anyhow::{bail, Context};
use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use lodestone_store::load::{BulkLoader, Input, LoadProgress, ParseOptions, RdfFormat};
use lodestone_store::model::{GraphName, NamedNode};
use lodestone_store::{Store, StoreOptions, TermId};
use oxrdfio::RdfSerializer;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Parses a `--format` value: a short name, a file extension or a media type.
pub fn parse_format(name: &str) -> anyhow::Result<RdfFormat> {
    let lower = name.to_ascii_lowercase();
    let format = match lower.as_str() {
        "ntriples" | "n-triples" => Some(RdfFormat::NTriples),
        "nquads" | "n-quads" => Some(RdfFormat::NQuads),
        "turtle" => Some(RdfFormat::Turtle),
        "trig" => Some(RdfFormat::TriG),
        "rdfxml" | "rdf/xml" | "xml" => Some(RdfFormat::RdfXml),
        "n3" => Some(RdfFormat::N3),
        "jsonld" | "json-ld" => Some(RdfFormat::JsonLd {
            profile: oxrdfio::JsonLdProfileSet::empty(),
        }),
        other => RdfFormat::from_extension(other).or_else(|| RdfFormat::from_media_type(other)),
    };
    format.with_context(|| format!("unknown RDF format {name:?}"))
}

fn open_store(data: &DataArgs, create: bool) -> anyhow::Result<Store> {
    let options = StoreOptions {
        create_if_missing: create,
        ..StoreOptions::default()
    };
    Store::open(&data.data, options)
        .with_context(|| format!("cannot open the store at {}", data.data.display()))
}

/// `lodestone load`.
pub fn load(args: LoadArgs) -> anyhow::Result<()> {
    let store = open_store(&args.data, true)?;
    let graph = args
        .graph
        .as_deref()
        .map(|g| NamedNode::new(g).map(GraphName::from))
        .transpose()
        .context("--graph is not a valid IRI")?;
    let options = ParseOptions {
        format: args.format.as_deref().map(parse_format).transpose()?,
        graph,
        base_iri: args.base_iri.clone(),
        lenient: args.lenient || args.max_errors.is_some(),
    };
    let inputs: Vec<Input> = args.files.iter().map(|f| Input::from_arg(f)).collect();
    for input in &inputs {
        if let Input::File(path) = input {
            if !path.exists() {
                bail!("{}: no such file", path.display());
            }
        }
    }
    let reporter = Reporter::new();
    let mut loader = BulkLoader::new(&store)
        .with_parse_options(options)
        .with_chunk_quads(args.chunk_quads)
        .on_progress(move |p| reporter.update(p));
    if let Some(max) = args.max_errors {
        loader = loader.with_max_errors(max);
    }
    let report = loader.load(&inputs)?;
    let seconds = report.elapsed.as_secs_f64().max(1e-9);
    println!(
        "loaded {} quads ({} new) in {:.2} s: {:.0} quads/s",
        report.quads_read,
        report.quads_added,
        seconds,
        report.quads_read as f64 / seconds
    );
    if report.skipped > 0 {
        println!("skipped {} statements with errors:", report.skipped);
        for error in &report.first_errors {
            println!("  {error}");
        }
        let unlisted = report.skipped - report.first_errors.len() as u64;
        if unlisted > 0 {
            println!("  … and {unlisted} more");
        }
    }
    Ok(())
}

/// Progress on a terminal as a bar, elsewhere as a log line every few seconds.
struct Reporter {
    bar: Option<ProgressBar>,
    last_line: Mutex<LogState>,
}

/// When the last plain log line was printed and the last tenth of the input it reported.
struct LogState {
    at: Instant,
    tenth: u64,
    quads_at_tenth: u64,
    elapsed_at_tenth: Duration,
}

impl Reporter {
    fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {bytes}/{total_bytes} {msg} (ETA {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Self {
            bar,
            last_line: Mutex::new(LogState {
                at: Instant::now(),
                tenth: 0,
                quads_at_tenth: 0,
                elapsed_at_tenth: Duration::ZERO,
            }),
        }
    }

    fn update(&self, progress: &LoadProgress) {
        let rate = progress.quads as f64 / progress.elapsed.as_secs_f64().max(1e-9);
        match &self.bar {
            Some(bar) => {
                if let Some(total) = progress.bytes_total {
                    bar.set_length(total);
                }
                bar.set_position(progress.bytes_read);
                bar.set_message(format!(
                    "{} quads, {rate:.0}/s, {}",
                    progress.quads, progress.phase
                ));
                if progress.phase == "done" {
                    bar.finish_and_clear();
                }
            }
            None => {
                let mut last = self.last_line.lock().unwrap_or_else(|e| e.into_inner());
                // One line per tenth of the input read, with the rate over that tenth, so that
                // a slowdown as the store grows shows.
                let tenth = progress
                    .bytes_total
                    .filter(|t| *t > 0)
                    .map_or(0, |t| (progress.bytes_read * 10 / t).min(10));
                if tenth > last.tenth && progress.phase == "parsing" {
                    let quads = progress.quads - last.quads_at_tenth;
                    let seconds = (progress.elapsed - last.elapsed_at_tenth)
                        .as_secs_f64()
                        .max(1e-9);
                    eprintln!(
                        "[{:>6.1}s] tenth {tenth}/10 of the input: {quads} quads at {:.0} quads/s",
                        progress.elapsed.as_secs_f64(),
                        quads as f64 / seconds
                    );
                    last.tenth = tenth;
                    last.quads_at_tenth = progress.quads;
                    last.elapsed_at_tenth = progress.elapsed;
                }
                if last.at.elapsed() >= Duration::from_secs(5) || progress.phase == "done" {
                    last.at = Instant::now();
                    eprintln!(
                        "[{:>6.1}s] {} quads, {rate:.0} quads/s, {} read, {}",
                        progress.elapsed.as_secs_f64(),
                        progress.quads,
                        HumanBytes(progress.bytes_read),
                        progress.phase
                    );
                }
            }
        }
    }
}

/// `lodestone stats`.
pub fn stats(args: &DataArgs) -> anyhow::Result<()> {
    let store = open_store(args, false)?;
    let reader = store.reader();
    let counts = reader.counts()?;
    // A closed pipe (`lodestone stats | head`) ends the output quietly: see `main`.
    let mut out = std::io::stdout().lock();
    writeln!(out, "store            {}", store.path().display())?;
    writeln!(out, "quads            {}", counts.quads)?;
    writeln!(out, "dictionary terms {}", counts.dictionary_terms)?;
    writeln!(out, "subjects         {}", counts.subjects)?;
    writeln!(out, "predicates       {}", counts.predicates)?;
    writeln!(out, "classes          {}", counts.classes)?;
    writeln!(out, "named graphs     {}", counts.named_graphs)?;
    writeln!(out, "last commit      {}", counts.sequence)?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<12} {:>14} {:>14} {:>12}",
        "index", "keys (est.)", "disk", "memtable"
    )?;
    let mut total = 0;
    for usage in store.index_usage()? {
        total += usage.sst_bytes + usage.memtable_bytes;
        writeln!(
            out,
            "{:<12} {:>14} {:>14} {:>12}",
            usage.name,
            usage.estimated_keys,
            HumanBytes(usage.sst_bytes).to_string(),
            HumanBytes(usage.memtable_bytes).to_string()
        )?;
    }
    writeln!(
        out,
        "{:<12} {:>14} {:>14}",
        "total",
        "",
        HumanBytes(total).to_string()
    )?;
    if counts.quads > 0 {
        writeln!(
            out,
            "bytes per quad   {:.1}",
            total as f64 / counts.quads as f64
        )?;
    }
    Ok(())
}

/// `lodestone dump`.
pub fn dump(args: DumpArgs) -> anyhow::Result<()> {
    let store = open_store(&args.data, false)?;
    let format = match args.format.as_deref() {
        Some(f) => parse_format(f)?,
        None => RdfFormat::NQuads,
    };
    let out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let reader = store.reader();
    let graph = match args.graph.as_deref() {
        None => None,
        Some("default") => Some(TermId::DEFAULT_GRAPH),
        Some(iri) => {
            let node = NamedNode::new(iri).context("--graph is not a valid IRI")?;
            Some(
                reader
                    .term_id(node.as_ref().into())?
                    .with_context(|| format!("no graph {node} in the store"))?,
            )
        }
    };
    if !format.supports_datasets() && graph.is_none() {
        bail!(
            "{} holds one graph only: pass --graph, or use nquads or trig",
            format.name()
        );
    }
    let mut serializer =
        RdfSerializer::from_format(format).for_writer(std::io::BufWriter::new(out));
    for quad in reader.quads_for_pattern(None, None, None, graph) {
        let mut quad = reader.decode_quad(&quad?)?;
        if !format.supports_datasets() {
            quad.graph_name = GraphName::DefaultGraph;
        }
        serializer.serialize_quad(&quad)?;
    }
    serializer.finish()?.flush()?;
    Ok(())
}

/// `lodestone backup`.
pub fn backup(args: &BackupArgs) -> anyhow::Result<()> {
    if args.target.exists() {
        bail!("{} already exists", args.target.display());
    }
    let store = open_store(&args.data, false)?;
    store.backup(&args.target)?;
    println!("backup written to {}", args.target.display());
    Ok(())
}
