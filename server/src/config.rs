//! Server configuration: `lodestone.toml`, `LODESTONE_*` environment variables and flags.
//!
//! Three layers, each overriding the one before: built-in defaults, the config file, then the
//! command line — where clap already lets a flag win over its environment variable. Every value
//! is checked once, here, before anything starts; an invalid one stops the server with the key,
//! where it came from and why it is wrong. What the HTTP layer needs ends up in
//! [`ServerSettings`]; the rest (data folder, address, store tuning) in [`Config`].

use crate::priority::Nice;
use anyhow::{bail, Context};
use clap::Args;
use lodestone_store::StoreOptions;
use serde::Deserialize;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// The config file read when `--config` is not given, if it exists in the working directory.
pub const DEFAULT_CONFIG_FILE: &str = "lodestone.toml";

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
    /// Label properties of entity pages, comma-separated IRIs, most preferred first
    /// [default: skos:prefLabel, rdfs:label, foaf:name, schema:name, dcterms:title, dc:title,
    /// skos:altLabel] [toml: label_properties]
    #[arg(
        long,
        env = "LODESTONE_LABEL_PROPERTIES",
        value_name = "IRIS",
        value_delimiter = ','
    )]
    pub label_properties: Option<Vec<String>>,
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

/// `lodestone.toml`: the same keys as the long options, with `_` for `-`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// See `--data`.
    pub data: Option<PathBuf>,
    /// See `--bind`.
    pub bind: Option<String>,
    /// See `--base-iri`.
    pub base_iri: Option<String>,
    /// See `--update-token`.
    pub update_token: Option<String>,
    /// See `--open-updates`.
    pub open_updates: Option<bool>,
    /// See `--no-sample`.
    pub no_sample: Option<bool>,
    /// See `--query-timeout`.
    pub query_timeout: Option<f64>,
    /// See `--max-body-bytes`.
    pub max_body_bytes: Option<ByteSize>,
    /// See `--max-upload-bytes`.
    pub max_upload_bytes: Option<ByteSize>,
    /// See `--max-concurrent-queries`.
    pub max_concurrent_queries: Option<usize>,
    /// See `--query-queue`.
    pub query_queue: Option<usize>,
    /// See `--result-row-cap`.
    pub result_row_cap: Option<u64>,
    /// See `--strict-default-graph`.
    pub strict_default_graph: Option<bool>,
    /// See `--memory-budget`.
    pub memory_budget: Option<u64>,
    /// See `--sync`.
    pub sync: Option<bool>,
    /// See `--read-nice`.
    pub read_nice: Option<u8>,
    /// See `--large-write-nice`.
    pub large_write_nice: Option<u8>,
    /// See `--background-nice`.
    pub background_nice: Option<u8>,
    /// See `--allow-load-folder`.
    pub allow_load_folder: Option<PathBuf>,
    /// The `[search]` table: text index settings.
    pub search: Option<crate::text_index::SearchFileConfig>,
    /// See `--resource-in-place`.
    pub resource_in_place: Option<bool>,
    /// See `--default-language`.
    pub default_language: Option<String>,
    /// See `--label-properties`.
    pub label_properties: Option<Vec<String>>,
    /// See `--site-name`.
    pub site_name: Option<String>,
    /// See `--public-hosts`.
    pub public_hosts: Option<Vec<String>>,
    /// See `--query-memory`.
    pub query_memory: Option<u64>,
    /// See `--read-timeout`.
    pub read_timeout: Option<f64>,
    /// See `--max-header-bytes`.
    pub max_header_bytes: Option<ByteSize>,
    /// See `--site-description`.
    pub site_description: Option<String>,
    /// The `[sparql]` table: where `SERVICE` may call.
    pub sparql: Option<crate::federation::SparqlFileConfig>,
}

/// The smallest `max_header_bytes`: hyper's read buffer cannot be smaller.
pub const MIN_HEADER_BYTES: usize = 8 << 10;

/// The memory an upload takes while it is parsed into one transaction, as a multiple of its
/// size (a 100 MB N-Triples body peaked at 3.06 GB: terms, the transaction's overlay, the text
/// index's share); the default upload limit is the memory budget divided by it.
pub const UPLOAD_COST_FACTOR: usize = 32;

/// What a SPARQL body of typical text (IRIs, literals) takes once parsed, as a multiple of its
/// size ([`crate::extract::nesting::TextShape::tree_bytes`] gives 16 per byte of text and 256
/// per term, a term every 30 bytes or so).
pub const PARSED_BODY_FACTOR: usize = 24;

/// A size in bytes, written as a number or with a unit (`10MB`, `512KiB`, `1G`); units are
/// binary (1 KB = 1024 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let number: u64 = number
            .parse()
            .map_err(|_| format!("{text:?} is not a size (examples: 1048576, 512KB, 10MB, 1GB)"))?;
        let shift = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 0,
            "k" | "kb" | "kib" => 10,
            "m" | "mb" | "mib" => 20,
            "g" | "gb" | "gib" => 30,
            other => return Err(format!("unknown size unit {other:?} (use B, KB, MB or GB)")),
        };
        number
            .checked_mul(1 << shift)
            .map(ByteSize)
            .ok_or_else(|| format!("{text:?} is too large"))
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Number(n) => Ok(ByteSize(n)),
            Raw::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Who may change data through SPARQL Update and the Graph Store protocol.
#[derive(Clone, PartialEq, Eq)]
pub enum UpdatePolicy {
    /// Nobody: writes are refused with 403 (no token configured, updates not opened).
    Disabled,
    /// Requests carrying `Authorization: Bearer <token>`.
    Token(String),
    /// Anyone.
    Open,
}

impl fmt::Debug for UpdatePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the token itself (it would end up in logs).
        match self {
            Self::Disabled => f.write_str("Disabled"),
            Self::Token(_) => f.write_str("Token(<redacted>)"),
            Self::Open => f.write_str("Open"),
        }
    }
}

/// What the HTTP application needs to know; built by [`Config::resolve`] or by hand in tests.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// Who may write.
    pub updates: UpdatePolicy,
    /// Time budget of one request's engine work, sending included.
    pub query_timeout: Duration,
    /// Largest SPARQL request body in bytes.
    pub max_body_bytes: usize,
    /// Largest Graph Store upload in bytes.
    pub max_upload_bytes: usize,
    /// Bytes of request bodies held in memory at once, all requests together (at least the
    /// largest single body); a body that would pass it is answered 503 at once.
    pub max_body_bytes_in_flight: usize,
    /// Engine operations (queries, updates, Graph Store requests) running at once.
    pub max_concurrent_queries: usize,
    /// Requests that may wait for a slot (for at most their budget) when all are taken.
    pub query_queue: usize,
    /// Most rows or triples one query returns.
    pub result_row_cap: u64,
    /// Without FROM, the default graph is the union of all graphs.
    pub union_default_graph: bool,
    /// Folder from which `LOAD <file:…>` may read.
    pub load_folder: Option<PathBuf>,
    /// Base IRI for relative IRIs in queries and updates.
    pub base_iri: Option<String>,
    /// Entity pages and documents.
    pub pages: crate::routes::pages::settings::PageSettings,
    /// Time a client has to send its headers, and then its body.
    pub read_timeout: Duration,
    /// Largest request head in bytes (at least 8192, hyper's smallest buffer).
    pub max_header_bytes: usize,
    /// Time a response's writes may make no progress (a client that stops reading) before the
    /// connection is closed.
    pub write_timeout: Duration,
    /// Connections open at once (lowered to what the descriptor limit leaves).
    pub max_connections: usize,
    /// Connections open at once from one address.
    pub max_connections_per_peer: usize,
    /// Memory one query may hold for sorting, joining, grouping and deduplicating, in bytes.
    pub query_memory_bytes: usize,
    /// Host names (lower case, without port) the server is reached under, besides `localhost`
    /// and IP addresses; with open updates, writes addressed to other names are refused.
    pub public_hosts: Vec<String>,
    /// The browsing pages (home, search, lookup, SPARQL editor, status).
    pub ui: crate::routes::ui::UiSettings,
    /// Where `SERVICE` calls may go.
    pub service: crate::federation::ServicePolicy,
    /// CPU priority of reads (see [`crate::priority`]).
    pub read_nice: Nice,
    /// CPU priority of large writes (see [`crate::priority`]).
    pub large_write_nice: Nice,
    /// CPU priority of the text index's upkeep and the store's flushes and compactions.
    pub background_nice: Nice,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            updates: UpdatePolicy::Disabled,
            query_timeout: Duration::from_secs(30),
            max_body_bytes: 10 << 20,
            max_upload_bytes: 1 << 30,
            max_body_bytes_in_flight: 1 << 30,
            max_concurrent_queries: 16,
            query_queue: 0,
            result_row_cap: 1_000_000,
            union_default_graph: true,
            load_folder: None,
            base_iri: None,
            pages: crate::routes::pages::settings::PageSettings::default(),
            read_timeout: Duration::from_secs(30),
            max_header_bytes: 64 << 10,
            write_timeout: Duration::from_secs(30),
            max_connections: 4096,
            max_connections_per_peer: 256,
            public_hosts: Vec::new(),
            query_memory_bytes: 128 << 20,
            ui: crate::routes::ui::UiSettings::default(),
            service: crate::federation::ServicePolicy::default(),
            read_nice: Nice::READ,
            large_write_nice: Nice::LOWEST,
            background_nice: Nice::LOWEST,
        }
    }
}

impl ServerSettings {
    /// Writes need `Authorization: Bearer <token>`.
    pub fn with_update_token(mut self, token: impl Into<String>) -> Self {
        self.updates = UpdatePolicy::Token(token.into());
        self
    }

    /// The browsing pages' settings.
    pub fn with_ui(mut self, ui: crate::routes::ui::UiSettings) -> Self {
        self.ui = ui;
        self
    }

    /// Host names the server is reached under (see [`Self::public_hosts`]).
    pub fn with_public_hosts(mut self, names: &[&str]) -> Self {
        self.public_hosts = names.iter().map(|n| n.to_ascii_lowercase()).collect();
        self
    }

    /// Writes need no token.
    pub fn with_open_updates(mut self) -> Self {
        self.updates = UpdatePolicy::Open;
        self
    }

    /// The time budget of one request.
    pub fn with_query_timeout(mut self, timeout: Duration) -> Self {
        self.query_timeout = timeout;
        self
    }

    /// The memory one query may hold for sorting, joining, grouping and deduplicating.
    pub fn with_query_memory_bytes(mut self, bytes: usize) -> Self {
        self.query_memory_bytes = bytes;
        self
    }

    /// The caps on open connections, in all and from one address.
    pub fn with_max_connections(mut self, total: usize, per_peer: usize) -> Self {
        self.max_connections = total;
        self.max_connections_per_peer = per_peer;
        self
    }

    /// How long a response's writes may stall before its connection is closed.
    pub fn with_write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// The largest SPARQL request body.
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// The bytes of request bodies held at once, all requests together.
    pub fn with_max_body_bytes_in_flight(mut self, bytes: usize) -> Self {
        self.max_body_bytes_in_flight = bytes;
        self
    }

    /// The largest Graph Store upload.
    pub fn with_max_upload_bytes(mut self, bytes: usize) -> Self {
        self.max_upload_bytes = bytes;
        self.max_body_bytes_in_flight = self.max_body_bytes_in_flight.max(bytes);
        self
    }

    /// How many engine operations run at once.
    pub fn with_max_concurrent_queries(mut self, n: usize) -> Self {
        self.max_concurrent_queries = n;
        self
    }

    /// How many requests may wait for a slot.
    pub fn with_query_queue(mut self, n: usize) -> Self {
        self.query_queue = n;
        self
    }

    /// The most rows or triples one query returns.
    pub fn with_result_row_cap(mut self, rows: u64) -> Self {
        self.result_row_cap = rows;
        self
    }

    /// Union (true) or strict (false) default graph.
    pub fn with_union_default_graph(mut self, union: bool) -> Self {
        self.union_default_graph = union;
        self
    }

    /// The folder `LOAD <file:…>` may read from.
    pub fn with_load_folder(mut self, folder: impl Into<PathBuf>) -> Self {
        self.load_folder = Some(folder.into());
        self
    }

    /// The base IRI for relative IRIs in queries and updates.
    pub fn with_base_iri(mut self, iri: impl Into<String>) -> Self {
        self.base_iri = Some(iri.into());
        self
    }

    /// Entity page settings.
    pub fn with_pages(mut self, pages: crate::routes::pages::settings::PageSettings) -> Self {
        self.pages = pages;
        self
    }

    /// The time a client has to send its headers, and then its body.
    pub fn with_read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }

    /// The largest request head (at least 8192 bytes).
    pub fn with_max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes.max(MIN_HEADER_BYTES);
        self
    }
}

/// Everything `lodestone serve` needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct Config {
    /// Store folder.
    pub data: PathBuf,
    /// Listening address.
    pub bind: SocketAddr,
    /// Whether a new, empty store gets the bundled sample dataset.
    pub load_sample: bool,
    /// Store tuning.
    pub store: StoreOptions,
    /// The HTTP layer's settings.
    pub server: ServerSettings,
    /// The config file that was read, if any.
    pub config_file: Option<PathBuf>,
    /// The text index's settings (`[search]` in the file).
    pub text_index: lodestone_indexer::IndexSettings,
}

/// Where a value came from, for error messages.
#[derive(Debug, Clone, Copy)]
enum Origin<'a> {
    CommandLine(&'static str, &'static str),
    File(&'a Path),
}

impl fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CommandLine(flag, env) => write!(f, "set by {flag} or {env}"),
            Self::File(path) => write!(f, "set in {}", path.display()),
        }
    }
}

/// Picks the command-line value, else the file's, remembering where it came from.
fn layer<'a, T: Clone>(
    cli: &Option<T>,
    file: &Option<T>,
    names: (&'static str, &'static str),
    path: &'a Path,
) -> Option<(T, Origin<'a>)> {
    match (cli, file) {
        (Some(v), _) => Some((v.clone(), Origin::CommandLine(names.0, names.1))),
        (None, Some(v)) => Some((v.clone(), Origin::File(path))),
        (None, None) => None,
    }
}

fn invalid(key: &str, origin: Origin<'_>, reason: impl fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("invalid configuration: {key} ({origin}): {reason}")
}

impl Config {
    /// Reads the config file (if any) and merges it under the command line and environment.
    pub fn resolve(args: &ServeArgs) -> anyhow::Result<Self> {
        let (file, path) = config_file(args.config.as_deref())?;
        let mut config = Self::from_layers(args, &file, path.as_deref())?;
        config.config_file = path;
        Ok(config)
    }

    /// Merges flags/environment (`args`) over a parsed config file and checks every value.
    pub fn from_layers(
        args: &ServeArgs,
        file: &FileConfig,
        file_path: Option<&Path>,
    ) -> anyhow::Result<Self> {
        let path = file_path.unwrap_or(Path::new(DEFAULT_CONFIG_FILE));
        macro_rules! pick {
            ($field:ident, $flag:literal, $env:literal) => {
                layer(&args.$field, &file.$field, ($flag, $env), path)
            };
        }
        let defaults = ServerSettings::default();

        let data = pick!(data, "--data", "LODESTONE_DATA")
            .map_or_else(|| PathBuf::from("./lodestone-data"), |(v, _)| v);

        let bind = match pick!(bind, "--bind", "LODESTONE_BIND") {
            None => SocketAddr::from(([127, 0, 0, 1], 7171)),
            Some((text, origin)) => text.trim().parse().map_err(|_| {
                invalid(
                    "bind",
                    origin,
                    format!("{text:?} is not an address like 127.0.0.1:7171 or [::1]:7171"),
                )
            })?,
        };

        let base_iri = match pick!(base_iri, "--base-iri", "LODESTONE_BASE_IRI") {
            None => None,
            Some((iri, origin)) => {
                oxrdf::NamedNode::new(iri.as_str()).map_err(|e| {
                    invalid(
                        "base_iri",
                        origin,
                        format!("{iri:?} is not an absolute IRI: {e}"),
                    )
                })?;
                Some(iri)
            }
        };

        let token = pick!(update_token, "--update-token", "LODESTONE_UPDATE_TOKEN");
        let open = pick!(open_updates, "--open-updates", "LODESTONE_OPEN_UPDATES");
        let updates = match (token, open) {
            (Some((_, origin)), Some((true, _))) => {
                return Err(invalid(
                    "update_token",
                    origin,
                    "a token and open_updates exclude each other: choose one",
                ))
            }
            (Some((token, origin)), _) => {
                if token.is_empty() || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(invalid(
                        "update_token",
                        origin,
                        "the token must be non-empty and contain no spaces or control characters",
                    ));
                }
                UpdatePolicy::Token(token)
            }
            (None, Some((true, _))) => UpdatePolicy::Open,
            (None, _) => UpdatePolicy::Disabled,
        };

        let load_sample =
            !pick!(no_sample, "--no-sample", "LODESTONE_NO_SAMPLE").is_some_and(|(v, _)| v);

        let query_timeout = match pick!(query_timeout, "--query-timeout", "LODESTONE_QUERY_TIMEOUT")
        {
            None => defaults.query_timeout,
            Some((secs, origin)) => {
                if !(secs.is_finite() && secs > 0.0 && secs <= 86_400.0) {
                    return Err(invalid(
                        "query_timeout",
                        origin,
                        format!("{secs} must be more than 0 and at most 86400 seconds"),
                    ));
                }
                Duration::from_secs_f64(secs)
            }
        };

        let size = |value: Option<(ByteSize, Origin<'_>)>,
                    key: &str,
                    default: usize|
         -> anyhow::Result<usize> {
            match value {
                None => Ok(default),
                Some((ByteSize(0), origin)) => {
                    Err(invalid(key, origin, "must be more than 0 bytes"))
                }
                Some((ByteSize(n), origin)) => usize::try_from(n)
                    .map_err(|_| invalid(key, origin, format!("{n} bytes is too large"))),
            }
        };
        let max_body_bytes = size(
            pick!(
                max_body_bytes,
                "--max-body-bytes",
                "LODESTONE_MAX_BODY_BYTES"
            ),
            "max_body_bytes",
            defaults.max_body_bytes,
        )?;
        // The default upload limit follows the memory budget (below, once it is known).
        let max_upload_bytes = pick!(
            max_upload_bytes,
            "--max-upload-bytes",
            "LODESTONE_MAX_UPLOAD_BYTES"
        )
        .map(|value| size(Some(value), "max_upload_bytes", 0))
        .transpose()?;

        let max_concurrent_queries = match pick!(
            max_concurrent_queries,
            "--max-concurrent-queries",
            "LODESTONE_MAX_CONCURRENT_QUERIES"
        ) {
            None => defaults.max_concurrent_queries,
            Some((0, origin)) => {
                return Err(invalid(
                    "max_concurrent_queries",
                    origin,
                    "must be at least 1",
                ))
            }
            Some((n, _)) => n,
        };
        let query_queue = pick!(query_queue, "--query-queue", "LODESTONE_QUERY_QUEUE")
            .map_or(defaults.query_queue, |(n, _)| n);
        let result_row_cap = match pick!(
            result_row_cap,
            "--result-row-cap",
            "LODESTONE_RESULT_ROW_CAP"
        ) {
            None => defaults.result_row_cap,
            Some((0, origin)) => {
                return Err(invalid("result_row_cap", origin, "must be at least 1"))
            }
            Some((n, _)) => n,
        };
        let union_default_graph = !pick!(
            strict_default_graph,
            "--strict-default-graph",
            "LODESTONE_STRICT_DEFAULT_GRAPH"
        )
        .is_some_and(|(v, _)| v);

        let mut store = StoreOptions::default();
        let memory = match pick!(memory_budget, "--memory-budget", "LODESTONE_MEMORY_BUDGET") {
            None => 512,
            Some((mb, origin)) if !(16..=1 << 20).contains(&mb) => {
                return Err(invalid(
                    "memory_budget",
                    origin,
                    format!("{mb} MB: must be between 16 and 1048576"),
                ))
            }
            Some((mb, _)) => mb,
        };
        let memory_bytes = usize::try_from(memory << 20).unwrap_or(usize::MAX);
        store = store.with_memory_budget(memory_bytes);
        // An upload costs about 30 times its size while it is parsed into one transaction
        // (docs/configuration.md), and every body in flight is held whole.
        let max_upload_bytes =
            max_upload_bytes.unwrap_or((memory_bytes / UPLOAD_COST_FACTOR).max(1 << 20));
        // Bodies in flight and their parsed trees (extract/parse.rs) share one budget: half
        // the memory budget, and room for one largest body of typical SPARQL once parsed.
        let max_body_bytes_in_flight = (memory_bytes / 2)
            .max(max_body_bytes.saturating_mul(PARSED_BODY_FACTOR))
            .max(max_upload_bytes);
        store =
            store.with_sync_writes(pick!(sync, "--sync", "LODESTONE_SYNC").is_some_and(|(v, _)| v));

        let nice = |value: Option<(u8, Origin<'_>)>, key, default| match value {
            None => Ok(default),
            Some((n, origin)) => Nice::new(n)
                .ok_or_else(|| invalid(key, origin, format!("{n}: must be between 0 and 19"))),
        };
        let read_nice = nice(
            pick!(read_nice, "--read-nice", "LODESTONE_READ_NICE"),
            "read_nice",
            defaults.read_nice,
        )?;
        let large_write_nice = nice(
            pick!(
                large_write_nice,
                "--large-write-nice",
                "LODESTONE_LARGE_WRITE_NICE"
            ),
            "large_write_nice",
            defaults.large_write_nice,
        )?;
        let background_nice = nice(
            pick!(
                background_nice,
                "--background-nice",
                "LODESTONE_BACKGROUND_NICE"
            ),
            "background_nice",
            defaults.background_nice,
        )?;
        store = store.with_background_at_lowest_priority(background_nice.lowers_store_background());

        let load_folder = match pick!(
            allow_load_folder,
            "--allow-load-folder",
            "LODESTONE_ALLOW_LOAD_FOLDER"
        ) {
            None => None,
            Some((folder, origin)) => {
                if !folder.is_dir() {
                    return Err(invalid(
                        "allow_load_folder",
                        origin,
                        format!("{} is not a folder", folder.display()),
                    ));
                }
                Some(
                    folder
                        .canonicalize()
                        .map_err(|e| invalid("allow_load_folder", origin, e))?,
                )
            }
        };

        let pages = resolve_pages(args, file, path)?;
        let read_timeout = match pick!(read_timeout, "--read-timeout", "LODESTONE_READ_TIMEOUT") {
            None => defaults.read_timeout,
            Some((secs, origin)) => {
                if !(secs.is_finite() && (0.1..=3600.0).contains(&secs)) {
                    return Err(invalid(
                        "read_timeout",
                        origin,
                        format!("{secs} must be between 0.1 and 3600 seconds"),
                    ));
                }
                Duration::from_secs_f64(secs)
            }
        };
        let max_header_bytes = match pick!(
            max_header_bytes,
            "--max-header-bytes",
            "LODESTONE_MAX_HEADER_BYTES"
        ) {
            None => defaults.max_header_bytes,
            Some((ByteSize(n), origin)) => match usize::try_from(n) {
                Ok(n) if (MIN_HEADER_BYTES..=16 << 20).contains(&n) => n,
                _ => {
                    return Err(invalid(
                        "max_header_bytes",
                        origin,
                        format!("{n} bytes: must be between 8KB and 16MB"),
                    ))
                }
            },
        };

        let query_memory_bytes =
            match pick!(query_memory, "--query-memory", "LODESTONE_QUERY_MEMORY") {
                None => defaults.query_memory_bytes,
                Some((mb, origin)) if !(1..=1 << 20).contains(&mb) => {
                    return Err(invalid(
                        "query_memory",
                        origin,
                        format!("{mb} MB: must be between 1 and 1048576"),
                    ))
                }
                Some((mb, _)) => usize::try_from(mb << 20).unwrap_or(usize::MAX),
            };
        let public_hosts = pick!(public_hosts, "--public-hosts", "LODESTONE_PUBLIC_HOSTS")
            .map_or_else(Vec::new, |(names, _)| {
                names
                    .iter()
                    .map(|n| n.trim().to_ascii_lowercase())
                    .filter(|n| !n.is_empty())
                    .collect()
            });

        Ok(Self {
            data,
            bind,
            load_sample,
            store,
            server: ServerSettings {
                updates,
                query_timeout,
                max_body_bytes,
                max_upload_bytes,
                max_body_bytes_in_flight,
                max_concurrent_queries,
                query_queue,
                result_row_cap,
                union_default_graph,
                load_folder,
                base_iri,
                pages,
                read_timeout,
                max_header_bytes,
                write_timeout: read_timeout,
                max_connections: defaults.max_connections,
                max_connections_per_peer: defaults.max_connections_per_peer,
                public_hosts,
                query_memory_bytes,
                ui: crate::routes::ui::UiSettings {
                    description: pick!(
                        site_description,
                        "--site-description",
                        "LODESTONE_SITE_DESCRIPTION"
                    )
                    .map(|(text, _)| text),
                },
                service: match &file.sparql {
                    None => crate::federation::ServicePolicy::default(),
                    Some(table) => table
                        .policy()
                        .map_err(|(key, reason)| invalid(key, Origin::File(path), reason))?,
                },
                read_nice,
                large_write_nice,
                background_nice,
            },
            config_file: None,
            text_index: {
                // The text index's writer heap comes out of the same budget: a quarter of it,
                // at most the index's own default.
                let mut settings = file.search.clone().unwrap_or_default().settings();
                settings.writer_memory_bytes = settings.writer_memory_bytes.min(memory_bytes / 4);
                settings
            },
        })
    }
}

/// The entity page settings of the command line and config file.
fn resolve_pages(
    args: &ServeArgs,
    file: &FileConfig,
    path: &Path,
) -> anyhow::Result<crate::routes::pages::settings::PageSettings> {
    let mut pages = crate::routes::pages::settings::PageSettings::default();
    let names = |flag, env| (flag, env);
    if let Some((in_place, _)) = layer(
        &args.resource_in_place,
        &file.resource_in_place,
        names("--resource-in-place", "LODESTONE_RESOURCE_IN_PLACE"),
        path,
    ) {
        pages.resource_in_place = in_place;
    }
    if let Some((tag, origin)) = layer(
        &args.default_language,
        &file.default_language,
        names("--default-language", "LODESTONE_DEFAULT_LANGUAGE"),
        path,
    ) {
        let valid = !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid {
            bail!(invalid(
                "default_language",
                origin,
                format!("{tag:?} is not a language tag")
            ));
        }
        pages.labels.default_language = tag.to_ascii_lowercase();
    }
    if let Some((iris, origin)) = layer(
        &args.label_properties,
        &file.label_properties,
        names("--label-properties", "LODESTONE_LABEL_PROPERTIES"),
        path,
    ) {
        for iri in &iris {
            oxrdf::NamedNode::new(iri.trim()).map_err(|e| {
                invalid(
                    "label_properties",
                    origin,
                    format!("{iri:?} is not an absolute IRI: {e}"),
                )
            })?;
        }
        pages.labels.properties = iris.iter().map(|i| i.trim().to_owned()).collect();
    }
    if let Some((name, _)) = layer(
        &args.site_name,
        &file.site_name,
        names("--site-name", "LODESTONE_SITE_NAME"),
        path,
    ) {
        pages.site_name = name;
    }
    Ok(pages)
}

/// The text index settings of a config file (`lodestone.toml` in the working folder when none
/// is named and it exists; the defaults otherwise), as `serve` resolves them.
pub fn search_settings(config: Option<&Path>) -> anyhow::Result<lodestone_indexer::IndexSettings> {
    let (file, _) = config_file(config)?;
    Ok(file.search.unwrap_or_default().settings())
}

/// The config file named, else `lodestone.toml` in the working folder if it exists (parsed,
/// with its path), else the defaults.
fn config_file(named: Option<&Path>) -> anyhow::Result<(FileConfig, Option<PathBuf>)> {
    let path = match named {
        Some(path) => path.to_path_buf(),
        None if Path::new(DEFAULT_CONFIG_FILE).is_file() => PathBuf::from(DEFAULT_CONFIG_FILE),
        None => return Ok((FileConfig::default(), None)),
    };
    Ok((read_config_file(&path)?, Some(path)))
}

/// Reads and parses a config file; the error names the file, and toml's message names the key.
pub fn read_config_file(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the config file {}", path.display()))?;
    match toml::from_str(&text) {
        Ok(config) => Ok(config),
        Err(e) => bail!(
            "invalid configuration in {}: {}",
            path.display(),
            e.to_string().trim_end()
        ),
    }
}

/// Runs the server until it is stopped (ctrl-c or SIGTERM).
pub fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = Config::resolve(&args)?;
    let mut settings = crate::allocator::SERVER.to_vec();
    if config.store.block_cache_bytes < SMALL_FOOTPRINT_CACHE_BYTES {
        settings.extend(crate::allocator::SMALL_FOOTPRINT);
    }
    crate::allocator::restart_with(&settings)?;
    crate::serve::run(config)
}

/// Below this block cache (a memory budget under 256 MB) the process returns freed memory to
/// the system at once.
const SMALL_FOOTPRINT_CACHE_BYTES: usize = 128 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn args(flags: &[&str]) -> ServeArgs {
        let mut argv = vec!["lodestone", "serve"];
        argv.extend_from_slice(flags);
        match Cli::try_parse_from(argv) {
            Ok(Cli {
                command: Command::Serve(args),
            }) => *args,
            other => panic!("unexpected parse: {other:?}"),
        }
    }

    fn file(text: &str) -> FileConfig {
        toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn resolve(flags: &[&str], toml: &str) -> anyhow::Result<Config> {
        Config::from_layers(&args(flags), &file(toml), Some(Path::new("test.toml")))
    }

    #[test]
    fn defaults() {
        let config = resolve(&[], "").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.bind.to_string(), "127.0.0.1:7171");
        assert_eq!(config.data, PathBuf::from("./lodestone-data"));
        assert!(config.load_sample);
        assert_eq!(config.server.updates, UpdatePolicy::Disabled);
        assert_eq!(config.server.query_timeout, Duration::from_secs(30));
        assert_eq!(config.server.max_body_bytes, 10 << 20);
        assert!(config.server.union_default_graph);
        assert!(!config.store.sync_writes);
    }

    #[test]
    fn flags_override_the_file() {
        let toml = "bind = \"127.0.0.1:9000\"\nquery_timeout = 5\nno_sample = true\nmax_body_bytes = \"2MB\"\nstrict_default_graph = true\n";
        let from_file = resolve(&[], toml).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(from_file.bind.port(), 9000);
        assert_eq!(from_file.server.query_timeout, Duration::from_secs(5));
        assert!(!from_file.load_sample);
        assert_eq!(from_file.server.max_body_bytes, 2 << 20);
        assert!(!from_file.server.union_default_graph);

        let flags = [
            "--bind",
            "127.0.0.1:9001",
            "--query-timeout",
            "2.5",
            "--no-sample=false",
            "--strict-default-graph=false",
        ];
        let over = resolve(&flags, toml).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(over.bind.port(), 9001);
        assert_eq!(over.server.query_timeout, Duration::from_millis(2500));
        assert!(over.load_sample);
        assert!(over.server.union_default_graph);
        assert_eq!(
            over.server.max_body_bytes,
            2 << 20,
            "untouched keys keep the file's value"
        );
    }

    #[test]
    fn update_policy() {
        let token = resolve(&["--update-token", "s3cret"], "").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(token.server.updates, UpdatePolicy::Token("s3cret".into()));
        assert!(
            !format!("{:?}", token.server).contains("s3cret"),
            "tokens stay out of logs"
        );
        let open = resolve(&["--open-updates"], "").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(open.server.updates, UpdatePolicy::Open);
        let error = resolve(&["--open-updates"], "update_token = \"x\"")
            .err()
            .map(|e| e.to_string());
        assert!(error.is_some_and(|e| e.contains("update_token") && e.contains("exclude")));
        let error = resolve(&["--update-token", "a b"], "")
            .err()
            .map(|e| e.to_string());
        assert!(error.is_some_and(|e| e.contains("update_token")));
    }

    #[test]
    fn entity_page_settings() {
        let config = resolve(
            &[
                "--resource-in-place",
                "--label-properties",
                "http://a/p, http://a/q",
            ],
            "default_language = \"DE\"\nsite_name = \"Coins\"",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let pages = &config.server.pages;
        assert!(pages.resource_in_place);
        assert_eq!(pages.labels.properties, ["http://a/p", "http://a/q"]);
        assert_eq!(pages.labels.default_language, "de");
        assert_eq!(pages.site_name, "Coins");
        let defaults = resolve(&[], "").unwrap_or_else(|e| panic!("{e}"));
        assert!(!defaults.server.pages.resource_in_place);
        assert_eq!(defaults.server.pages.labels.default_language, "en");
    }

    #[test]
    fn invalid_values_name_the_key_and_the_reason() {
        let cases: [(&[&str], &str, &str); 14] = [
            (
                &["--bind", "nowhere"],
                "",
                "bind (set by --bind or LODESTONE_BIND)",
            ),
            (&[], "bind = \"nowhere\"", "bind (set in test.toml)"),
            (&[], "query_timeout = 0", "query_timeout"),
            (&[], "max_concurrent_queries = 0", "max_concurrent_queries"),
            (&["--base-iri", "not an iri"], "", "base_iri"),
            (
                &[],
                "allow_load_folder = \"/no/such/folder\"",
                "allow_load_folder",
            ),
            (&["--memory-budget", "1"], "", "memory_budget"),
            (&["--large-write-nice", "20"], "", "large_write_nice"),
            (&[], "read_nice = 20", "read_nice (set in test.toml)"),
            (
                &[],
                "background_nice = 25",
                "background_nice (set in test.toml)",
            ),
            (&[], "read_timeout = 0", "read_timeout (set in test.toml)"),
            (&["--max-header-bytes", "1KB"], "", "max_header_bytes"),
            (&["--default-language", "e n"], "", "default_language"),
            (
                &[],
                "label_properties = [\"label\"]",
                "label_properties (set in test.toml)",
            ),
        ];
        for (flags, toml, expected) in cases {
            let message = resolve(flags, toml)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                message.contains(expected),
                "{flags:?} {toml:?}: {message:?}"
            );
        }
    }

    #[test]
    fn unknown_or_mistyped_file_keys_are_errors() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("lodestone.toml");
        std::fs::write(&path, "quer_timeout = 3\n").unwrap_or_else(|e| panic!("{e}"));
        let message = read_config_file(&path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(message.contains("quer_timeout"), "{message}");
        std::fs::write(&path, "query_timeout = \"soon\"\n").unwrap_or_else(|e| panic!("{e}"));
        let message = read_config_file(&path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(message.contains("query_timeout"), "{message}");
    }

    #[test]
    fn the_documented_example_file_is_valid() {
        let doc = include_str!("../../docs/configuration.md");
        let start = doc.find("```toml").map(|i| i + "```toml".len());
        let example = start.and_then(|s| doc[s..].find("```").map(|e| &doc[s..s + e]));
        let example = example.unwrap_or_else(|| panic!("no toml example in configuration.md"));
        let parsed: FileConfig = toml::from_str(example).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.max_upload_bytes, Some(ByteSize(2 << 30)));
        assert_eq!(parsed.sync, Some(true));
        // Every key of the file format appears in the documentation's table.
        for key in [
            "data",
            "bind",
            "base_iri",
            "update_token",
            "open_updates",
            "no_sample",
            "query_timeout",
            "max_body_bytes",
            "max_upload_bytes",
            "max_concurrent_queries",
            "query_queue",
            "result_row_cap",
            "strict_default_graph",
            "memory_budget",
            "read_nice",
            "large_write_nice",
            "background_nice",
            "sync",
            "allow_load_folder",
            "read_timeout",
            "max_header_bytes",
        ] {
            assert!(
                doc.contains(&format!("| `{key}` |")),
                "{key} is not documented"
            );
        }
    }

    #[test]
    fn byte_sizes() {
        assert_eq!("1000".parse(), Ok(ByteSize(1000)));
        assert_eq!("10MB".parse(), Ok(ByteSize(10 << 20)));
        assert_eq!("512 KiB".parse(), Ok(ByteSize(512 << 10)));
        assert_eq!("1g".parse(), Ok(ByteSize(1 << 30)));
        assert!("ten".parse::<ByteSize>().is_err());
        assert!("10TB".parse::<ByteSize>().is_err());
    }
}
