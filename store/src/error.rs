//! The store's error type.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong in the store.
///
/// Parse and user errors (bad RDF, bad SPARQL, unknown graph) are kept apart from internal
/// ones (I/O, RocksDB, corruption) so that callers can answer 4xx or 5xx accordingly.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB reported an error.
    #[error("storage engine: {0}")]
    Engine(#[source] rocksdb::Error),
    /// Reading or writing a file failed.
    #[error("I/O error: {0}")]
    Io(#[source] io::Error),
    /// The disk holding the store is full: the write was not made. Writes succeed again once
    /// space is freed (RocksDB resumes by itself, see `Store::write_failure`).
    #[error("the disk holding the store is full: {0}")]
    StorageFull(String),
    /// The data on disk is not what this version of Lodestone wrote.
    #[error(transparent)]
    Corruption(#[from] CorruptionError),
    /// The data folder does not hold a store and creation was not asked for.
    #[error("no Lodestone store at {}", .0.display())]
    NotFound(PathBuf),
    /// Another process (a running `lodestone serve`, another `load`) has the store open.
    #[error("the store at {} is in use by another process (is `lodestone serve` running on it? stop it, or send data through its HTTP API)", .0.display())]
    Locked(PathBuf),
    /// The store was written by another on-disk format version.
    #[error("the store at {path} has format version {found}, this build reads version {expected}{hint}", path = .path.display(), hint = upgrade_hint(.found, .expected))]
    VersionMismatch {
        /// Store folder.
        path: PathBuf,
        /// Version found on disk.
        found: u64,
        /// Version this build understands.
        expected: u64,
    },
    /// An RDF document could not be parsed.
    #[error("{source_name}: {message}")]
    Syntax {
        /// File name (or `stdin`, or `request body`).
        source_name: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// The format of an input could not be determined or is not supported.
    #[error("{0}")]
    Format(String),
    /// A SPARQL query or update could not be evaluated.
    #[error("{0}")]
    Evaluation(String),
    /// A graph that must exist does not.
    #[error("the graph {0} does not exist")]
    GraphNotFound(String),
    /// A graph that must not exist does.
    #[error("the graph {0} already exists")]
    GraphAlreadyExists(String),
    /// The operation was refused by policy (e.g. LOAD from a URL when not allowed).
    #[error("{0}")]
    Forbidden(String),
    /// The operation was cancelled or ran out of its time budget.
    #[error("the operation was cancelled")]
    Cancelled,
    /// A query computed more than it may hold in memory (see `quads::reader`'s limits on
    /// computed terms, and the evaluation's memory limit).
    #[error("{0}")]
    TooLarge(String),
    /// The store has minted every blank node number it can (`BLANK_NUMBER_LIMIT`).
    #[error("the store cannot mint more blank nodes")]
    BlankNodesExhausted,
}

impl StoreError {
    /// Whether the error was caused by the input rather than by the store.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Self::Syntax { .. }
                | Self::Format(_)
                | Self::Evaluation(_)
                | Self::GraphNotFound(_)
                | Self::GraphAlreadyExists(_)
                | Self::Forbidden(_)
        )
    }
}

/// What to do about a store of an older format: a read-write open upgrades it in place.
fn upgrade_hint(found: &u64, expected: &u64) -> &'static str {
    if found < expected {
        "; a read-write open (`lodestone serve` or `lodestone load`, with no server running on it) upgrades it in place, after which it opens read-only too"
    } else {
        "; it was written by a newer Lodestone"
    }
}

impl From<rocksdb::Error> for StoreError {
    fn from(error: rocksdb::Error) -> Self {
        // RocksDB reports a full disk only in its message ("IO error: No space left on
        // device", or "NoSpace"/"Space limit reached" from its own space accounting).
        let message = error.to_string();
        if ["No space left on device", "NoSpace", "Space limit reached"]
            .iter()
            .any(|m| message.contains(m))
        {
            Self::StorageFull(message)
        } else {
            Self::Engine(error)
        }
    }
}

impl From<io::Error> for StoreError {
    fn from(error: io::Error) -> Self {
        if matches!(
            error.kind(),
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
        ) {
            Self::StorageFull(error.to_string())
        } else {
            Self::Io(error)
        }
    }
}

/// Data on disk that cannot be decoded.
#[derive(Debug, thiserror::Error)]
#[error("corrupted store: {0}")]
pub struct CorruptionError(pub String);

impl CorruptionError {
    /// Builds a corruption error from a message.
    pub fn msg(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}
