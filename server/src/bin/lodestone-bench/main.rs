//! Benchmarks that print their figures (`docs/benchmarks.md` records them).
//!
//! - `trickle`: named-graph replacements per second through transactions;
//! - `bsbm-queries` / `bsbm-run`: the BSBM explore query mix with parameters drawn from the
//!   data (the same query file is run against pyoxigraph by `bench/bsbm.sh`);
//! - `replace-http`: named-graph replacements per second over HTTP (SPARQL Update) with a
//!   concurrent reader's latencies, and the time to stream a large SPARQL XML result.

mod bsbm;
mod replace_http;
mod rng;
mod search;
mod trickle;

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
    Trickle {
        /// Number of transactions.
        #[arg(long, default_value_t = 10_000)]
        transactions: usize,
        /// Distinct graphs cycled through (default: a new graph every time, so the store grows).
        #[arg(long)]
        graphs: Option<usize>,
        /// Store folder (a temporary one by default).
        #[arg(long)]
        data: Option<PathBuf>,
    },
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
    },
    /// Replace named graphs over HTTP with SPARQL Update while a reader runs SELECTs, then time
    /// a large SPARQL XML result (the real server, in-process on 127.0.0.1:0).
    ReplaceHttp(replace_http::ReplaceHttpArgs),
    /// Build the text index of a dump and time searches and type-ahead drawn from its labels.
    Search(search::SearchArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Trickle {
            transactions,
            graphs,
            data,
        } => trickle::run(transactions, graphs, data),
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
        } => bsbm::run(&data, &queries, warmup),
        Command::ReplaceHttp(args) => replace_http::run(&args),
        Command::Search(args) => search::run(&args),
    }
}
