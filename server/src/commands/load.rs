//! `lodestone load`: bulk-load RDF files into the store, all or nothing.

use super::{open_store_for_load, parse_format};
use crate::cli::LoadArgs;
use anyhow::{bail, Context};
use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use lodestone_store::load::{BulkLoader, Input, LoadProgress, ParseOptions};
use lodestone_store::model::{GraphName, NamedNode};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `lodestone load`.
pub(super) fn load(args: LoadArgs) -> anyhow::Result<()> {
    let mut settings = crate::allocator::LONG_RUNNING.to_vec();
    if args.memory_budget < SMALL_FOOTPRINT_BUDGET_MB {
        settings.extend(crate::allocator::SMALL_FOOTPRINT);
    }
    crate::allocator::restart_with(&settings)?;
    let budget = super::budget_bytes(args.memory_budget);
    let store = open_store_for_load(&args.data, budget)?;
    // Read before the load, so that a bad config file fails it before it starts.
    let text_index = (!args.no_text_index)
        .then(|| crate::config::search_settings(args.config.as_deref()))
        .transpose()?
        .map(|settings| settings.within_budget(budget));
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
        .with_memory_budget(budget)
        .with_entity_rank(true)
        .on_progress(move |p| reporter.update(p));
    if let Some(max) = args.max_errors {
        loader = loader.with_max_errors(max);
    }
    if let Some(quads) = args.chunk_quads {
        loader = loader.with_chunk_quads(quads);
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
    println!(
        "{} chunks; resolving terms {:.1} s and writing chunks {:.1} s beside the reading (it \
         waited {:.1} s for them), ingesting {:.1} s",
        report.chunks,
        report.resolving.as_secs_f64(),
        report.writing.as_secs_f64(),
        report.waiting.as_secs_f64(),
        report.ingesting.as_secs_f64()
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
    if let Some(rank) = &report.rank {
        println!("{}", super::rank::describe(rank));
    }
    if let Some(settings) = text_index {
        super::load_index::build(&store, &args.data.data, settings)?;
    }
    // The rank's scores and marks sit in memtables: written out, the write-ahead log they
    // kept (150 MB after 35 M quads) goes, and the folder holds just the store.
    store.flush()?;
    Ok(())
}

/// Below this memory budget (MB) a load returns freed memory to the system at once: each
/// chunk's buffers, the merge's and the entity rank's then do not stack up in the
/// allocator's reserve. BSBM 10k at `--memory-budget 256`: peak RSS 191 MiB instead of 366.
const SMALL_FOOTPRINT_BUDGET_MB: u64 = 1024;

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
    phase: &'static str,
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
                phase: "",
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
                    "{} quads, {rate:.0}/s, {} memory, {}",
                    progress.quads,
                    HumanBytes(resident_bytes()),
                    progress.phase
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
                if tenth > last.tenth && progress.phase.starts_with("parsing") {
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
                // A line every few seconds, and at each step after the reading.
                let next_step = progress.phase != last.phase
                    && matches!(progress.phase, "ingesting" | "ranking entities" | "done");
                if last.at.elapsed() >= Duration::from_secs(5) || next_step {
                    last.at = Instant::now();
                    last.phase = progress.phase;
                    let left = progress
                        .bytes_total
                        .filter(|_| {
                            progress.bytes_read > 0 && progress.phase.starts_with("parsing")
                        })
                        .map(|total| {
                            let done = progress.bytes_read as f64 / total as f64;
                            let seconds = progress.elapsed.as_secs_f64() * (1.0 - done) / done;
                            format!(", about {seconds:.0} s left")
                        })
                        .unwrap_or_default();
                    eprintln!(
                        "[{:>6.1}s] {}: {} quads, {rate:.0} quads/s, {} read, {} memory{left}",
                        progress.elapsed.as_secs_f64(),
                        progress.phase,
                        progress.quads,
                        HumanBytes(progress.bytes_read),
                        HumanBytes(resident_bytes()),
                    );
                }
            }
        }
    }
}

/// The process's resident memory in bytes (0 where /proc is not there).
fn resident_bytes() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    pages * 4096
}
