//! The command line: `lodestone serve | load | stats | dump | backup | restore | reindex`.

use crate::settings::ByteSize;
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
    /// Compute the entity rank now (`load` does after loading; `serve` keeps it current).
    Rank(DataArgs),
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
    /// Memory the rebuild may use, in MB: a quarter for the index writer's heap (at most
    /// 512 MB), a quarter for the term dictionaries one merge of its segments holds (at
    /// most 512 MB; a larger index merges in rounds).
    #[arg(long, value_name = "MB", default_value_t = 2048)]
    pub memory_budget: u64,
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
    /// Memory the load may use, in MB: the loader's chunks and term cache and the store
    /// engine's caches together. Larger inputs are loaded in more chunks, not in more
    /// memory.
    #[arg(long, value_name = "MB", default_value_t = 2048)]
    pub memory_budget: u64,
    /// Most quads in one chunk, whatever the memory budget leaves room for (for tests of
    /// loads of many chunks).
    #[arg(long, value_name = "N")]
    pub chunk_quads: Option<usize>,
    /// Leave the text index as it is: the next `serve` builds or extends it in the
    /// background (searches answer 503 until then).
    #[arg(long)]
    pub no_text_index: bool,
    /// Config file whose `[search]` settings the text index is built with, as `serve` would
    /// [default: ./lodestone.toml if it exists]
    #[arg(long, env = "LODESTONE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
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

/// `lodestone serve` options. Each can also be set by an environment variable and in
/// `lodestone.toml` (key = the long option name with `_` for `-`); flags win over the
/// environment, which wins over the file.
#[derive(Debug, Clone, Default, Args)]
pub struct ServeArgs {
    /// Store folder; created (and filled with the sample dataset) if missing or empty
    /// [default: ./lodestone-data] [toml: data]
    #[arg(long, env = "LODESTONE_DATA", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Address and port to listen on [default: 127.0.0.1:7171] [toml: bind]
    #[arg(long, env = "LODESTONE_BIND", value_name = "ADDR")]
    pub bind: Option<String>,
    /// Base IRI of the dataset; relative IRIs in SPARQL queries and updates resolve against it
    /// [toml: base_iri]
    #[arg(long, env = "LODESTONE_BASE_IRI", value_name = "IRI")]
    pub base_iri: Option<String>,
    /// Bearer token that SPARQL updates and Graph Store writes must send
    /// (`Authorization: Bearer T`); without it and without --open-updates, writes are refused
    /// [toml: update_token]
    #[arg(
        long,
        env = "LODESTONE_UPDATE_TOKEN",
        value_name = "T",
        hide_env_values = true
    )]
    pub update_token: Option<String>,
    /// Accept SPARQL updates and Graph Store writes from anyone, without a token
    /// [default: false] [toml: open_updates]
    #[arg(long, env = "LODESTONE_OPEN_UPDATES", value_name = "BOOL", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub open_updates: Option<bool>,
    /// Config file (TOML) [default: ./lodestone.toml if it exists]
    #[arg(long, env = "LODESTONE_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Do not load the bundled sample dataset into a new, empty store
    /// [default: false] [toml: no_sample]
    #[arg(long, env = "LODESTONE_NO_SAMPLE", value_name = "BOOL", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub no_sample: Option<bool>,
    /// Time budget of one SPARQL query, update or Graph Store request in seconds, evaluation
    /// and sending included; a request may lower it with `timeout=` [default: 30]
    /// [toml: query_timeout]
    #[arg(long, env = "LODESTONE_QUERY_TIMEOUT", value_name = "SECS")]
    pub query_timeout: Option<f64>,
    /// Largest SPARQL query or update request body (e.g. 10MB, 512KiB, 1000000)
    /// [default: 10MB] [toml: max_body_bytes]
    #[arg(long, env = "LODESTONE_MAX_BODY_BYTES", value_name = "SIZE")]
    pub max_body_bytes: Option<ByteSize>,
    /// Largest Graph Store upload (PUT/POST /store body) [default: the memory budget / 32]
    /// [toml: max_upload_bytes]
    #[arg(long, env = "LODESTONE_MAX_UPLOAD_BYTES", value_name = "SIZE")]
    pub max_upload_bytes: Option<ByteSize>,
    /// Queries, updates and Graph Store requests running at once; more wait in the queue
    /// (--query-queue) or are answered 503 with Retry-After [default: 16]
    /// [toml: max_concurrent_queries]
    #[arg(long, env = "LODESTONE_MAX_CONCURRENT_QUERIES", value_name = "N")]
    pub max_concurrent_queries: Option<usize>,
    /// Queries (and writes) that may wait for a slot when all are taken, each for at most its
    /// time budget; more are answered 503 with Retry-After. With a queue, keep
    /// --max-concurrent-queries near the number of cores [default: 0] [toml: query_queue]
    #[arg(long, env = "LODESTONE_QUERY_QUEUE", value_name = "N")]
    pub query_queue: Option<usize>,
    /// Most rows (or triples) one query returns; longer results are cut and flagged with
    /// X-Lodestone-Truncated [default: 1000000] [toml: result_row_cap]
    #[arg(long, env = "LODESTONE_RESULT_ROW_CAP", value_name = "ROWS")]
    pub result_row_cap: Option<u64>,
    /// Without FROM, queries see only the store's default graph instead of the union of all
    /// graphs [default: false] [toml: strict_default_graph]
    #[arg(long, env = "LODESTONE_STRICT_DEFAULT_GRAPH", value_name = "BOOL", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub strict_default_graph: Option<bool>,
    /// Memory for the store's block cache, write buffers and decoded terms, in MB
    /// [default: 512]
    /// [toml: memory_budget]
    #[arg(long, env = "LODESTONE_MEMORY_BUDGET", value_name = "MB")]
    pub memory_budget: Option<u64>,
    /// Wait for every commit to reach the disk (safe against power loss, slower writes)
    /// [default: false] [toml: sync]
    #[arg(long, env = "LODESTONE_SYNC", value_name = "BOOL", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub sync: Option<bool>,
    /// CPU nice value (0–19) of reads: query evaluation, entity pages, search, facets. Above
    /// 0, small writes (which always run at normal priority) get the CPU first for their short
    /// bursts [default: 10] [toml: read_nice]
    #[arg(long, env = "LODESTONE_READ_NICE", value_name = "0-19")]
    pub read_nice: Option<u8>,
    /// CPU nice value (0–19) of large writes (a request body of 256 KiB or more: graph
    /// uploads, big updates): raised, readers get the CPU first; smaller writes always run at
    /// normal priority [default: 19] [toml: large_write_nice]
    #[arg(long, env = "LODESTONE_LARGE_WRITE_NICE", value_name = "0-19")]
    pub large_write_nice: Option<u8>,
    /// CPU nice value (0–19) of background work nobody waits for: the text index's upkeep and,
    /// whenever above 0, the store's flushes and compactions (at 19) [default: 19]
    /// [toml: background_nice]
    #[arg(long, env = "LODESTONE_BACKGROUND_NICE", value_name = "0-19")]
    pub background_nice: Option<u8>,
    /// Folder from which SPARQL `LOAD <file:///…>` may read files; LOAD is refused otherwise
    /// [toml: allow_load_folder]
    #[arg(long, env = "LODESTONE_ALLOW_LOAD_FOLDER", value_name = "DIR")]
    pub allow_load_folder: Option<PathBuf>,
    /// `/resource/{path}` answers with the representation itself (with Content-Location)
    /// instead of a 303 redirect to /page/ or /data/ [default: false] [toml: resource_in_place]
    #[arg(long, env = "LODESTONE_RESOURCE_IN_PLACE", value_name = "BOOL", num_args = 0..=1,
          require_equals = true, default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub resource_in_place: Option<bool>,
    /// Language of labels when a request names none (?lang=, Accept-Language) [default: en]
    /// [toml: default_language]
    #[arg(long, env = "LODESTONE_DEFAULT_LANGUAGE", value_name = "TAG")]
    pub default_language: Option<String>,
    /// Label properties of entity pages and facets, comma-separated IRIs, most preferred first
    /// [default: skos:prefLabel, rdfs:label, foaf:name, schema:name, dcterms:title, dc:title,
    /// skos:altLabel] [toml: label_properties]
    #[arg(
        long,
        env = "LODESTONE_LABEL_PROPERTIES",
        value_name = "IRIS",
        value_delimiter = ','
    )]
    pub label_properties: Option<Vec<String>>,
    /// A prefix file: `@prefix p: <ns> .`, `PREFIX p: <ns>` or `p ns` lines, adding to or
    /// overriding the prefixes of the data and the well-known ones everywhere CURIEs are
    /// read or written [toml: prefixes]
    #[arg(long, env = "LODESTONE_PREFIXES", value_name = "FILE")]
    pub prefixes: Option<PathBuf>,
    /// Site name in the header of HTML pages [default: Lodestone] [toml: site_name]
    #[arg(long, env = "LODESTONE_SITE_NAME", value_name = "NAME")]
    pub site_name: Option<String>,
    /// Memory one query may hold for sorting, joining, grouping and deduplicating, in MB
    /// (past it the query is stopped: 503 too_large) [default: 128] [toml: query_memory]
    #[arg(long, env = "LODESTONE_QUERY_MEMORY", value_name = "MB")]
    pub query_memory: Option<u64>,
    /// Host names the server is reached under, comma-separated (`data.example.org`); with
    /// --open-updates a write must be addressed to one of them, to `localhost` or to an IP
    /// address, so that a page on a hostile name resolving here cannot write (DNS rebinding)
    /// [toml: public_hosts]
    #[arg(
        long,
        env = "LODESTONE_PUBLIC_HOSTS",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub public_hosts: Option<Vec<String>>,
    /// Seconds a client has to send a request's headers, and then its whole body; slower
    /// clients are disconnected (headers) or answered 408 (body) [default: 30]
    /// [toml: read_timeout]
    #[arg(long, env = "LODESTONE_READ_TIMEOUT", value_name = "SECS")]
    pub read_timeout: Option<f64>,
    /// Largest request head (request line and headers, at least 8KB); larger is answered 431
    /// [default: 64KB] [toml: max_header_bytes]
    #[arg(long, env = "LODESTONE_MAX_HEADER_BYTES", value_name = "SIZE")]
    pub max_header_bytes: Option<ByteSize>,
    /// What the dataset is, in a sentence or two, shown on the home page
    /// [toml: site_description]
    #[arg(long, env = "LODESTONE_SITE_DESCRIPTION", value_name = "TEXT")]
    pub site_description: Option<String>,
}
