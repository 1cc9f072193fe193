//! The engine's error type, the one the crate's edge returns.
//!
//! Every loop of the engine and every [`TextMatcher`](crate::TextMatcher) returns an
//! [`EngineError`]; [`FacetEngine::answer`](crate::FacetEngine::answer) returns it to the
//! caller, which decides what a client sees (the server maps it to its HTTP errors in one
//! place). The syntaxes and the model have their own errors, next to what they check:
//! [`SyntaxError`](crate::json::SyntaxError) and [`ModelError`](crate::model::ModelError).

use lodestone_store::StoreError;

/// Why the engine stopped without an answer.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The deadline passed. Inside the engine this is a cut (what was counted so far is
    /// answered with `complete: false`); should it reach the caller, the request timed out.
    #[error("the time budget ran out")]
    OutOfTime,
    /// The text index refused the words or failed.
    #[error("text constraint: {0}")]
    Text(String),
    /// The query has no view: it was answered without being validated
    /// ([`FacetQuery::validate`](crate::model::FacetQuery::validate)).
    #[error("the facet query has no view")]
    NoView,
}
