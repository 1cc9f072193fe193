//! What the HTTP application can be told: [`ServerSettings`] and the values it is made of.
//!
//! A leaf of the crate: plain values and their builders, importing nothing above them. The
//! `config` module resolves flags, environment and the config file into these; tests build
//! them by hand; the state, extractors and routes read them.

mod pages;
mod rank;
mod service;
mod size;

pub use pages::{PageSettings, DEFAULT_PAGE_SIZE};
pub use rank::RankUpkeep;
pub use service::ServicePolicy;
pub use size::ByteSize;

use crate::priority::Nice;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

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

/// Settings of the browsing pages.
#[derive(Debug, Clone, Default)]
pub struct UiSettings {
    /// What the dataset is, shown on the home page.
    pub description: Option<String>,
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

/// What the HTTP application needs to know; built by `config::Config::resolve` from flags, environment and file, or by hand in tests.
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
    pub pages: PageSettings,
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
    /// Most hits of the text index a SPARQL text pattern materialises (its best ones); past
    /// it, a pattern that binds only its subject runs as a filter (see `text_sparql`).
    pub max_text_hits: usize,
    /// Host names (lower case, without port) the server is reached under, besides `localhost`
    /// and IP addresses; with open updates, writes addressed to other names are refused.
    pub public_hosts: Vec<String>,
    /// The browsing pages (home, search, lookup, SPARQL editor, status).
    pub ui: UiSettings,
    /// Where `SERVICE` calls may go.
    pub service: ServicePolicy,
    /// CPU priority of reads (see [`crate::priority`]).
    pub read_nice: Nice,
    /// CPU priority of large writes (see [`crate::priority`]).
    pub large_write_nice: Nice,
    /// CPU priority of the text index's upkeep and the store's flushes and compactions.
    pub background_nice: Nice,
    /// When the entity rank is recomputed (see [`crate::rank_keeper`]).
    pub rank_upkeep: RankUpkeep,
    /// The operator's prefixes (`--prefixes FILE`), over every other source of the prefix
    /// table (see [`crate::prefix_table`]); empty by default.
    pub prefixes: lodestone_vocab::Prefixes,
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
            pages: PageSettings::default(),
            read_timeout: Duration::from_secs(30),
            max_header_bytes: 64 << 10,
            write_timeout: Duration::from_secs(30),
            max_connections: 4096,
            max_connections_per_peer: 256,
            public_hosts: Vec::new(),
            query_memory_bytes: 128 << 20,
            max_text_hits: 10_000,
            ui: UiSettings::default(),
            service: ServicePolicy::default(),
            read_nice: Nice::READ,
            large_write_nice: Nice::LOWEST,
            background_nice: Nice::LOWEST,
            rank_upkeep: RankUpkeep::default(),
            prefixes: lodestone_vocab::Prefixes::new(),
        }
    }
}

impl ServerSettings {
    /// A request's time budget: the server's, lowered by the request's `timeout=`.
    pub fn budget(&self, requested: Option<Duration>) -> Duration {
        requested.map_or(self.query_timeout, |r| r.min(self.query_timeout))
    }

    /// The operator's prefixes, over the declared, well-known and made-up ones.
    pub fn with_prefixes(mut self, prefixes: lodestone_vocab::Prefixes) -> Self {
        self.prefixes = prefixes;
        self
    }

    /// Writes need `Authorization: Bearer <token>`.
    pub fn with_update_token(mut self, token: impl Into<String>) -> Self {
        self.updates = UpdatePolicy::Token(token.into());
        self
    }

    /// The browsing pages' settings.
    pub fn with_ui(mut self, ui: UiSettings) -> Self {
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

    /// Most hits a SPARQL text pattern materialises (see [`Self::max_text_hits`]).
    pub fn with_max_text_hits(mut self, hits: usize) -> Self {
        self.max_text_hits = hits;
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
    pub fn with_pages(mut self, pages: PageSettings) -> Self {
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

impl ServerSettings {
    /// Where `SERVICE` calls may go (by default nowhere).
    pub fn with_service_policy(mut self, policy: ServicePolicy) -> Self {
        self.service = policy;
        self
    }
}
