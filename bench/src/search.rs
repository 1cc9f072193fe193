//! `lodestone-bench search`: text index build rate, search and type-ahead latencies.
//!
//! Loads an N-Triples dump into a temporary store (or uses an existing store folder), builds
//! the text index from scratch, then runs queries drawn from the data's own labels with a
//! fixed seed: 1,000 searches (one or two words of a label) and 1,000 type-ahead requests (the
//! first 3–6 letters of a label word, after a whole preceding word when there is one). Times
//! are in-process, for the whole request work: query, ranking, and reading labels,
//! descriptions and snippets of the 10 hits from the store. Between the two it times bare
//! tantivy on the same text ([`tantivy_floor`]), the floor under the build rate.

use crate::rng::Rng;
use crate::tantivy_floor;
use anyhow::Context;
use clap::Args;
use lodestone_indexer::{AutocompleteRequest, IndexSettings, SearchRequest, TextIndex};
use lodestone_store::load::{BulkLoader, Input};
use lodestone_store::model::{NamedNodeRef, Term};
use lodestone_store::{Store, StoreOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `lodestone-bench search`.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Dump to load into a temporary store (ignored with --data).
    #[arg(long, default_value = "../shared/data/bsbm/bsbm-10k.nt.zst")]
    file: PathBuf,
    /// An existing store folder to index instead of loading --file.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Queries of each kind.
    #[arg(long, default_value_t = 1_000)]
    queries: usize,
    /// Seed of the query choice.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Also price each form the index holds: its documents indexed again once per form left
    /// out (about six more builds' worth of tantivy work).
    #[arg(long)]
    forms: bool,
}

/// Prints what each form of the index costs tantivy (see [`lodestone_indexer::measure_forms`])
/// next to the bare floor's `floor_cpu` seconds.
fn print_form_costs(store: &Store, dir: &std::path::Path, floor_cpu: f64) -> anyhow::Result<()> {
    let forms_dir = dir.join("forms");
    let report = lodestone_indexer::measure_forms(
        store,
        &forms_dir,
        &IndexSettings::default(),
        tantivy_floor::process_cpu,
    )?;
    println!(
        "forms: {} documents made from the store on one thread in {:.2} s, {:.1} CPU s; then indexed once per variant:",
        report.entities,
        report.documents_elapsed.as_secs_f64(),
        report.documents_cpu_seconds
    );
    let full = report.forms.first().map_or(0.0, |form| form.cpu_seconds);
    for form in &report.forms {
        println!(
            "  {:<45} {:6.2} s {:6.1} CPU s ({:+5.1} against every form; {:4.2}x bare tantivy) {:7.1} MB",
            form.name,
            form.elapsed.as_secs_f64(),
            form.cpu_seconds,
            form.cpu_seconds - full,
            form.cpu_seconds / floor_cpu.max(1e-9),
            tantivy_floor::folder_bytes(&form.folder) as f64 / 1e6
        );
    }
    std::fs::remove_dir_all(&forms_dir)?;
    Ok(())
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &SearchArgs) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store_path = match &args.data {
        Some(path) => path.clone(),
        None => dir.path().join("store"),
    };
    let store = Store::open(&store_path, StoreOptions::default())?;
    if args.data.is_none() {
        let started = Instant::now();
        let report = BulkLoader::new(&store)
            .load(&[Input::File(args.file.clone())])
            .with_context(|| format!("loading {}", args.file.display()))?;
        println!(
            "loaded {} quads from {} in {:.1} s",
            report.quads_read,
            args.file.display(),
            started.elapsed().as_secs_f64()
        );
    }
    let index_dir = dir.path().join("text-index");
    let index = TextIndex::open(&index_dir, IndexSettings::default())?;
    let cpu = tantivy_floor::process_cpu();
    let build = index.rebuild(&store, |_| {})?;
    let build_cpu = tantivy_floor::process_cpu() - cpu;
    let seconds = build.elapsed.as_secs_f64().max(1e-9);
    println!(
        "index build: {} entities from {} quads in {:.2} s = {:.0} entities/s; {:.1} CPU s, {:.1} MB on disk",
        build.entities,
        build.quads,
        seconds,
        build.entities as f64 / seconds,
        build_cpu,
        tantivy_floor::folder_bytes(&index_dir) as f64 / 1e6
    );
    // The merge of the build's segments runs after it, while the index answers; bare
    // tantivy's floor does not merge either.
    let merge_started = Instant::now();
    let cpu = tantivy_floor::process_cpu();
    index.wait_for_merge();
    println!(
        "segments merged into {} in {:.2} s, {:.1} CPU s; {:.1} MB on disk",
        index.segment_count(),
        merge_started.elapsed().as_secs_f64(),
        tantivy_floor::process_cpu() - cpu,
        tantivy_floor::folder_bytes(&index_dir) as f64 / 1e6
    );
    let floor_dir = dir.path().join("tantivy-floor");
    std::fs::create_dir_all(&floor_dir)?;
    let floor = tantivy_floor::measure(&store, &floor_dir)?;
    let floor_seconds = floor.elapsed.as_secs_f64().max(1e-9);
    println!(
        "bare tantivy, the same entities' text in one field: {} entities ({:.1} M words) in {:.2} s = {:.0} entities/s; {:.1} CPU s, {:.1} MB on disk; Lodestone's build runs at {:.0} % of that ({:.0} % in CPU time, which a busy machine does not skew)",
        floor.entities,
        floor.words as f64 / 1e6,
        floor_seconds,
        floor.entities as f64 / floor_seconds,
        floor.cpu,
        tantivy_floor::folder_bytes(&floor_dir) as f64 / 1e6,
        100.0 * (build.entities as f64 / seconds) / (floor.entities as f64 / floor_seconds),
        100.0 * floor.cpu / build_cpu.max(1e-9)
    );
    if args.forms {
        print_form_costs(&store, dir.path(), floor.cpu)?;
    }
    let labels = sample_labels(&store, args.queries * 4)?;
    anyhow::ensure!(!labels.is_empty(), "the data has no rdfs:label literals");
    let mut rng = Rng::new(args.seed);
    let reader = store.reader();
    let searcher = index.searcher();
    let mut search_times = Vec::with_capacity(args.queries);
    let mut empty = 0;
    for _ in 0..args.queries {
        let words = label_words(rng.pick::<String>(&labels));
        let start = rng.below(words.len());
        let take = 1 + rng.below(2).min(words.len() - start - 1);
        let q = words[start..start + take].join(" ");
        let request = SearchRequest {
            query: searcher.parse(&q)?,
            classes: Vec::new(),
            graph: None,
            langs: vec!["en".into()],
            limit: 10,
            offset: 0,
        };
        let timer = Instant::now();
        let page = searcher.search(&reader, &request)?;
        search_times.push(timer.elapsed());
        empty += usize::from(page.hits.is_empty());
    }
    report("search", &mut search_times);
    println!("  searches without a hit: {empty}");
    let mut typeahead_times = Vec::with_capacity(args.queries);
    for _ in 0..args.queries {
        let words = label_words(rng.pick::<String>(&labels));
        let at = rng.below(words.len());
        let word: String = words[at].chars().take(3 + rng.below(4)).collect();
        let text = match at.checked_sub(1) {
            Some(before) => format!("{} {word}", words[before]),
            None => word,
        };
        let request = AutocompleteRequest {
            text,
            classes: Vec::new(),
            langs: vec!["en".into()],
            limit: 10,
        };
        let timer = Instant::now();
        searcher.autocomplete(&reader, &request)?;
        typeahead_times.push(timer.elapsed());
    }
    report("autocomplete", &mut typeahead_times);
    Ok(())
}

/// Words of a label with letters only (what a person would type).
pub(crate) fn label_words(label: &str) -> Vec<String> {
    let words: Vec<String> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_owned)
        .collect();
    if words.is_empty() {
        vec![label.to_owned()]
    } else {
        words
    }
}

/// Up to `n` `rdfs:label` literals, spread evenly over the store.
fn sample_labels(store: &Store, n: usize) -> anyhow::Result<Vec<String>> {
    let reader = store.reader();
    let label = NamedNodeRef::new("http://www.w3.org/2000/01/rdf-schema#label")?;
    let Some(label) = reader.term_id(label.into())? else {
        return Ok(Vec::new());
    };
    let total = usize::try_from(reader.usage(label)?.as_predicate).unwrap_or(usize::MAX);
    let stride = (total / n.max(1)).max(1);
    let mut out = Vec::with_capacity(n);
    for quad in reader
        .quads_for_pattern(None, Some(label), None, None)
        .step_by(stride)
    {
        if let Term::Literal(literal) = reader.term(quad?.object)? {
            out.push(literal.value().to_owned());
        }
    }
    Ok(out)
}

pub(crate) fn report(name: &str, times: &mut [Duration]) {
    times.sort_unstable();
    let at = |q: f64| {
        // `as` saturates, and `get` checks the index.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let i = ((times.len() as f64 - 1.0) * q).round() as usize;
        times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len().max(1) as f64;
    println!(
        "{name}: {} requests, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, mean {:.2} ms",
        times.len(),
        at(0.5),
        at(0.99),
        at(1.0),
        mean * 1000.0
    );
}
