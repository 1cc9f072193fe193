//! The command line: `lodestone serve | load | stats | dump | backup | restore | reindex`.

use crate::commands;
use crate::config::ServeArgs;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Lodestone: a linked-data publishing server.
#[derive(Debug, Parser)]
#[command(name = "lodestone", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (SPARQL endpoint, Graph Store, pages, search API).
    Serve(Box<ServeArgs>),
    /// Bulk-load RDF files (N-Triples, N-Quads, Turtle, TriG, RDF/XML, N3, JSON-LD; .gz/.bz2/.zst).
    Load(LoadArgs),
    /// Print counts and disk use per index.
    Stats(DataArgs),
    /// Write the data out as N-Quads (default) or another syntax.
    Dump(DumpArgs),
    /// Write a consistent copy of the store to a folder.
    Backup(BackupArgs),
    /// Rebuild the text index from scratch.
    Reindex(ReindexArgs),
    /// Put a backup in place as the store folder (which must be missing or empty).
    Restore(RestoreArgs),
}

/// The store folder, shared by every command.
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// Store folder.
    #[arg(long, env = "LODESTONE_DATA", default_value = "./lodestone-data")]
    pub data: PathBuf,
}

/// `lodestone reindex`.
#[derive(Debug, Clone, Args)]
pub struct ReindexArgs {
    /// The store whose text index is rebuilt.
    #[command(flatten)]
    pub data: DataArgs,
    /// Config file whose `[search]` settings the index is built with, as `serve` would
    /// [default: ./lodestone.toml if it exists]
    #[arg(long, env = "LODESTONE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `lodestone load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    #[command(flatten)]
    /// Store folder.
    pub data: DataArgs,
    /// Load triples into this named graph (and the default graph of quad files).
    #[arg(long)]
    pub graph: Option<String>,
    /// Syntax of every input (ntriples, nquads, turtle, trig, rdfxml, n3, jsonld, or a
    /// media type); guessed from file extensions otherwise.
    #[arg(long)]
    pub format: Option<String>,
    /// Base IRI for relative IRIs.
    #[arg(long)]
    pub base_iri: Option<String>,
    /// Skip statements with syntax errors and report them (each with its file, line and
    /// column; the first 100 listed, all counted), instead of failing. N-Triples and N-Quads
    /// read on at the next line; other syntaxes where their parser resynchronises.
    #[arg(long)]
    pub lenient: bool,
    /// Fail the load, leaving the store as it was, once more than N statements have been
    /// skipped. Implies --lenient.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<u64>,
    /// Quads held in memory before a chunk is sorted and written (about 70 bytes each).
    #[arg(long, default_value_t = 20_000_000)]
    pub chunk_quads: usize,
    /// Files to load; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<String>,
}

/// `lodestone dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    #[command(flatten)]
    /// Store folder.
    pub data: DataArgs,
    /// Only this named graph (`default` for the default graph).
    #[arg(long)]
    pub graph: Option<String>,
    /// Output syntax (nquads, trig, ntriples, turtle, rdfxml, jsonld); N-Quads by default.
    #[arg(long)]
    pub format: Option<String>,
    /// Output file; standard output by default.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// `lodestone backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    #[command(flatten)]
    /// Store folder.
    pub data: DataArgs,
    /// Folder to create with the copy (must not exist).
    pub target: PathBuf,
}

/// `lodestone restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    /// Store folder to create from the backup.
    pub data: DataArgs,
    /// Folder written by `lodestone backup`.
    pub source: PathBuf,
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => crate::config::serve(*args),
        Command::Load(args) => commands::load(args),
        Command::Stats(args) => commands::stats(&args),
        Command::Dump(args) => commands::dump(args),
        Command::Backup(args) => commands::backup(&args),
        Command::Reindex(args) => crate::text_index::reindex(&args),
        Command::Restore(args) => crate::restore::restore(&args.source, &args.data.data),
    }
}
