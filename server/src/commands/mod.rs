//! The commands of the `lodestone` binary, one module each, at the top of the crate: they
//! turn the parsed command line into work by calling down into the configuration, the store,
//! the text index and the HTTP application; nothing below imports them.

mod backup;
mod dump;
mod load;
mod load_index;
mod rank;
mod reindex;
mod restore;
mod serve;
mod stats;

use crate::cli::{Cli, Command, DataArgs};
use anyhow::Context;
use lodestone_store::load::RdfFormat;
use lodestone_store::{Store, StoreOptions};

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => serve::serve(*args),
        Command::Load(args) => load::load(args),
        Command::Stats(args) => stats::stats(&args),
        Command::Dump(args) => dump::dump(args),
        Command::Backup(args) => backup::backup(&args),
        Command::Reindex(args) => reindex::reindex(&args),
        Command::Rank(args) => rank::rank(&args),
        Command::Restore(args) => restore::restore(&args.source, &args.data.data),
    }
}

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

/// Opens the store of a command that only reads it, read-only: it works beside a server
/// running on the same store, and sees the store as of its opening, consistent to one commit.
fn open_store_to_read(data: &DataArgs) -> anyhow::Result<Store> {
    // A read-only open holds every table file open (see `StoreOptions::read_only`).
    crate::connections::raise_descriptor_limit();
    let options = StoreOptions {
        create_if_missing: false,
        read_only: true,
        ..StoreOptions::default()
    };
    Store::open(&data.data, options)
        .with_context(|| format!("cannot open the store at {}", data.data.display()))
}

/// A `--memory-budget` in MB, in bytes.
fn budget_bytes(megabytes: u64) -> usize {
    usize::try_from(megabytes.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
}

/// Opens (or creates) the store of a bulk load, with the engine's caches sized to the
/// load's memory budget in bytes.
fn open_store_for_load(data: &DataArgs, budget: usize) -> anyhow::Result<Store> {
    let options = StoreOptions::default().for_load(budget);
    Store::open(&data.data, options)
        .with_context(|| format!("cannot open the store at {}", data.data.display()))
}

/// Opens the store of a command (creating it if `create`).
fn open_store(data: &DataArgs, create: bool) -> anyhow::Result<Store> {
    let options = StoreOptions {
        create_if_missing: create,
        ..StoreOptions::default()
    };
    Store::open(&data.data, options)
        .with_context(|| format!("cannot open the store at {}", data.data.display()))
}
