//! `lodestone-bench`: Lodestone's benchmark driver, not part of the product. It is its own
//! crate (`publish = false`) so that the product's crates depend only on what the product
//! runs (tantivy, for the bare-index floor, is the bench's alone). It drives the store, the
//! text index and the facet engine through their libraries, and the real server either
//! in-process (`lodestone_server::serve_listener`) or as the `lodestone` binary built next to
//! it. Each subcommand prints figures that `docs/benchmarks.md` records:
//!
//! - `trickle`: named-graph replacements per second through transactions;
//! - `bsbm-queries` / `bsbm-run`: the BSBM explore query mix with parameters drawn from the
//!   data (the same query file is run against pyoxigraph by `bench/bsbm.sh`); `bsbm-explain`:
//!   the plans of one template's queries with the rows of every step;
//! - `replace-http`: named-graph replacements per second over HTTP (SPARQL Update) with a
//!   concurrent reader's latencies, and the time to stream a large SPARQL XML result;
//! - `search`: text index build rate, search and type-ahead latencies (`--forms`: what each part
//!   of the index's documents costs tantivy);
//! - `pages`: HTML entity pages per second and their latency under `wrk`;
//! - `crash`: graph replacements while the server is killed with SIGKILL, restarted, checked
//!   (every graph one whole version, and the text index in agreement once caught up);
//! - `crash-load`: `lodestone load` killed with SIGKILL during multi-chunk loads (the next open
//!   shows none or all of the load; a rerun gives the exact quad count);
//! - `concurrency`: 32 readers and a writer replacing a 10,000-quad graph every second;
//! - `load-http`: wrk on a list of requests against the sample dataset, memory before/after;
//! - `facets`: facet engine latency per view and depth from random classes and words;
//! - `start-views`: the start views and the SPARQL counts the statistics answer (p50/p99);
//! - `ui`: server time per browsing page type (home, search, lookup, entity, SPARQL, status);
//! - `text-sparql`: text patterns inside SPARQL (`bif:contains`) against the brute-force
//!   `FILTER(CONTAINS(…))`, and their agreement with `/api/search`.

mod bsbm;
mod concurrency;
mod crash;
mod crash_load;
mod crash_text;
mod facets;
mod hostile;
mod load_http;
mod pages;
mod process;
mod replace_http;
mod rng;
mod search;
mod start_views;
mod tantivy_floor;
mod text_sparql;
mod trickle;
mod ui;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Lodestone benchmarks.
#[derive(Debug, Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replace named graphs of ~150 quads (a third with blank nodes), one transaction each.
    Trickle(trickle::TrickleArgs),
    /// Write BSBM explore query mixes with parameters drawn from a loaded store.
    BsbmQueries {
        /// Store folder holding the BSBM data.
        #[arg(long)]
        data: PathBuf,
        /// Folder with the BSBM templates (`queryN.txt`, `querymix.txt`).
        #[arg(long, default_value = "../shared/data/bsbm/queries/explore")]
        templates: PathBuf,
        /// Number of query mixes.
        #[arg(long, default_value_t = 50)]
        mixes: usize,
        /// Seed of the parameter choice.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Run a query file written by `bsbm-queries` against the store and print the timings.
    BsbmRun {
        /// Store folder holding the BSBM data.
        #[arg(long)]
        data: PathBuf,
        /// Query file.
        #[arg(long)]
        queries: PathBuf,
        /// Mixes run first without timing.
        #[arg(long, default_value_t = 2)]
        warmup: usize,
        /// Memory budget of the store in MB, sized as `lodestone serve --memory-budget` sizes
        /// it (block cache, memtables, decoded terms).
        #[arg(long, default_value_t = 512)]
        memory_budget: usize,
    },
    /// Print the evaluated plan of queries of one template of a `bsbm-queries` file: every
    /// step with the rows it produced and its time (JSON, one document per query).
    BsbmExplain {
        /// Store folder holding the BSBM data.
        #[arg(long)]
        data: PathBuf,
        /// Query file.
        #[arg(long)]
        queries: PathBuf,
        /// Template number (the `#### N` of the file).
        #[arg(long)]
        template: usize,
        /// How many of its queries, from the first.
        #[arg(long, default_value_t = 1)]
        count: usize,
    },
    /// Replace named graphs over HTTP with SPARQL Update while a reader runs SELECTs, then time
    /// a large SPARQL XML result (the real server, in-process on 127.0.0.1:0).
    ReplaceHttp(replace_http::ReplaceHttpArgs),
    /// Build the text index of a dump and time searches and type-ahead drawn from its labels.
    Search(search::SearchArgs),
    /// Time text patterns inside SPARQL against brute force; check them against the search.
    TextSparql(text_sparql::TextSparqlArgs),
    /// HTML entity pages per second and their latency under wrk, for typical entities and for
    /// the most-linked one (the real server, in-process on 127.0.0.1:0).
    Pages(pages::PagesArgs),
    /// Replace named graphs over HTTP while the server is killed (SIGKILL) at random moments;
    /// restart it and check that every graph is one whole version, acknowledged writes kept.
    Crash(crash::CrashArgs),
    /// Kill `lodestone load` (SIGKILL) at random moments of multi-chunk loads; the next open
    /// must show none or all of the load, and a rerun exactly the quads of one load.
    CrashLoad(crash_load::CrashLoadArgs),
    /// Issue 27's figures: 16 memory-hungry queries at once and 600 stalled 9 MB bodies against
    /// the real server (peak memory, answer times, slots freed, how bodies were refused).
    Hostile(hostile::HostileArgs),
    /// 32 readers and one writer replacing a 10,000-quad graph every second: no reader sees a
    /// mix of two versions; read p99 against the idle p99.
    Concurrency(concurrency::ConcurrencyArgs),
    /// wrk for 60 s at 64 connections on the requests of bench/load-mix.txt: errors, p99,
    /// memory before and after.
    LoadHttp(load_http::LoadHttpArgs),
    /// Facet engine latency (p50/p99) per view type at depth 1, 2, 3 from random starting
    /// classes and words, and the share of complete answers.
    Facets {
        /// Store folder holding the data (`lodestone load` it first).
        #[arg(long)]
        data: PathBuf,
        /// Queries per (depth, view) starting from a class.
        #[arg(long, default_value_t = 20)]
        class_queries: usize,
        /// Queries per (depth, view) starting from a word.
        #[arg(long, default_value_t = 3)]
        word_queries: usize,
        /// Seed of the draws.
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
    /// The start views (root classes, properties, properties-in, graphs) and the SPARQL
    /// counts the statistics answer: p50/p99 of each on a loaded store.
    StartViews {
        /// Store folder holding the data (`lodestone load` it first).
        #[arg(long)]
        data: PathBuf,
        /// Runs of each request.
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// Also time one full evaluation of each SPARQL form (reads every quad it counts).
        #[arg(long)]
        full: bool,
        /// Evaluate with the store's default graph only (`serve` reads the union of all
        /// graphs by default).
        #[arg(long)]
        strict: bool,
        /// Constrained views to time as well: `name<TAB>JSON facet query` a line.
        #[arg(long)]
        views: Option<PathBuf>,
        /// Runs of each constrained view (each may take its whole budget).
        #[arg(long, default_value_t = 10)]
        view_runs: usize,
    },
    /// Server time (p50/p99) per browsing page type — home, search, lookup, entity page,
    /// SPARQL page, status — on a real dataset (the real server with its text index).
    Ui(ui::UiArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // Measure what `lodestone serve` runs: the same allocator settings.
    lodestone_server::allocator::restart_with(&lodestone_server::allocator::LONG_RUNNING)?;
    match cli.command {
        Command::Trickle(args) => trickle::run(&args),
        Command::BsbmQueries {
            data,
            templates,
            mixes,
            seed,
            out,
        } => bsbm::write_queries(&data, &templates, mixes, seed, &out),
        Command::BsbmRun {
            data,
            queries,
            warmup,
            memory_budget,
        } => bsbm::run(&data, &queries, warmup, memory_budget << 20),
        Command::BsbmExplain {
            data,
            queries,
            template,
            count,
        } => bsbm::explain(&data, &queries, template, count),
        Command::ReplaceHttp(args) => replace_http::run(&args),
        Command::Search(args) => search::run(&args),
        Command::TextSparql(args) => text_sparql::run(&args),
        Command::Pages(args) => pages::run(&args),
        Command::Ui(args) => ui::run(&args),
        Command::Crash(args) => crash::run(&args),
        Command::CrashLoad(args) => crash_load::run(&args),
        Command::Concurrency(args) => concurrency::run(&args),
        Command::Hostile(args) => hostile::run(&args),
        Command::LoadHttp(args) => load_http::run(&args),
        Command::Facets {
            data,
            class_queries,
            word_queries,
            seed,
        } => facets::run(&data, class_queries, word_queries, seed),
        Command::StartViews {
            data,
            runs,
            full,
            strict,
            views,
            view_runs,
        } => start_views::run(
            &data,
            runs,
            full,
            !strict,
            views.as_deref().map(|v| (v, view_runs)),
        ),
    }
}
