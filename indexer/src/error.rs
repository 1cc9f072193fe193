//! The one error type of the indexer.

use lodestone_store::StoreError;

/// Everything that can go wrong while indexing or searching.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The store failed while the index read it.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// tantivy failed (disk, corrupt segment, lock).
    #[error("text index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The index folder could not be read or written.
    #[error("text index folder: {0}")]
    Io(#[from] std::io::Error),
    /// The user's query is not valid (the message says why).
    #[error("{0}")]
    Query(#[from] crate::query::QueryError),
    /// The index folder holds something this version cannot use.
    #[error("text index: {0}")]
    Corrupt(String),
    /// The work was stopped because the process is stopping ([`crate::TextIndex::stop`]);
    /// nothing of it was committed.
    #[error("text index: stopped before the work was done")]
    Stopped,
}

impl IndexError {
    /// Whether the error is the caller's (a bad query) rather than the server's.
    pub fn is_user_error(&self) -> bool {
        matches!(self, Self::Query(_))
    }
}

impl From<tantivy::directory::error::OpenDirectoryError> for IndexError {
    fn from(error: tantivy::directory::error::OpenDirectoryError) -> Self {
        Self::Tantivy(error.into())
    }
}

impl From<tantivy::query::QueryParserError> for IndexError {
    fn from(error: tantivy::query::QueryParserError) -> Self {
        Self::Query(crate::query::QueryError::Invalid(error.to_string()))
    }
}
