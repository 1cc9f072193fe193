//! The one error type of the HTTP layer and its mapping to responses.
//!
//! Every error a client can see has a stable snake_case code and an HTTP status, both given in
//! exactly one place ([`ApiError::code_and_status`]). User errors carry a message meant for the
//! client (the parser's message with its position, the allowed media types, how to enable
//! updates); internal errors are logged in full and answered with a generic message, so that
//! nothing about the server's insides leaks. The body is JSON:
//! `{"code": "...", "message": "...", "status": 400}` (406 adds `"available": [...]`).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use lodestone_facets::EngineError;
use lodestone_store::StoreError;
use std::time::Duration;

/// Everything that can go wrong while answering a request.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed (missing or repeated parameter, bad IRI, wrong method…).
    #[error("{0}")]
    BadRequest(String),
    /// The SPARQL query does not parse.
    #[error("{0}")]
    QuerySyntax(String),
    /// The SPARQL update does not parse.
    #[error("{0}")]
    UpdateSyntax(String),
    /// An RDF document in the body does not parse (the message has the line and column).
    #[error("{0}")]
    RdfSyntax(String),
    /// The query or update is well-formed but cannot be evaluated.
    #[error("{0}")]
    Evaluation(String),
    /// A write without a valid bearer token.
    #[error("this operation needs the header `Authorization: Bearer <update token>`")]
    Unauthorized,
    /// Writes are not enabled on this server.
    #[error("updates are disabled on this server: start it with --update-token T (or LODESTONE_UPDATE_TOKEN=T) to accept writes that send `Authorization: Bearer T`, or with --open-updates to accept them from anyone")]
    UpdatesDisabled,
    /// A write sent by a page of another site (its `Origin` is not this server).
    #[error("cross-site write refused: the request's Origin {0:?} is not this server")]
    CrossSiteWrite(String),
    /// Refused by policy (e.g. `LOAD` from a URL).
    #[error("{0}")]
    Forbidden(String),
    /// No entity with this IRI is in the store (entity pages and documents).
    #[error("nothing is known about {0}")]
    EntityNotFound(String),
    /// The named graph does not exist.
    #[error("the graph {0} does not exist")]
    GraphNotFound(String),
    /// The graph already exists (`CREATE GRAPH` without `SILENT`).
    #[error("the graph {0} already exists")]
    GraphAlreadyExists(String),
    /// No representation matches the `Accept` header or `format=` parameter.
    #[error("none of the requested media types can be produced; available: {}", .available.join(", "))]
    NotAcceptable {
        /// Media types (or `format=` names) the server offers for this request.
        available: Vec<String>,
    },
    /// The request body is over the limit.
    #[error("the request body is larger than the limit of {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Parsed, the request would take more memory than all request bodies in flight may.
    #[error("the request would take about {} MB once parsed (its terms and text), more than the {} MB all requests in flight may hold; split it into smaller requests, or send data as a Graph Store upload", .estimate >> 20, .limit >> 20)]
    ParsedTooLarge {
        /// The estimated memory of the parsed request, in bytes.
        estimate: usize,
        /// The budget of all requests in flight, in bytes.
        limit: usize,
    },
    /// The request body's media type is not one this route reads.
    #[error("unsupported content type {found:?}; use one of: {}", .supported.join(", "))]
    UnsupportedMediaType {
        /// The `Content-Type` sent (empty if none).
        found: String,
        /// The media types accepted here.
        supported: Vec<String>,
    },
    /// The operation ran out of its time budget and was stopped.
    #[error("the operation was stopped after its time budget of {} s; simplify it, add a LIMIT, or ask for a longer `timeout=` if the server allows", format_secs(*.0))]
    Timeout(Duration),
    /// Every query slot is taken.
    #[error("the server is busy: too many queries are running; retry in a moment")]
    Busy,
    /// A query needed more memory than one query may use.
    #[error(
        "{0}; simplify the query, add a LIMIT, or ask the operator for a larger --query-memory"
    )]
    TooLarge(String),
    /// The request bodies being received or handled already fill the server's budget for them.
    #[error("the server is receiving too many request bodies at once (their limit together is {limit} bytes); retry in a moment")]
    BodiesInFlight {
        /// The budget of all bodies in flight, in bytes.
        limit: usize,
    },
    /// A query parameter is missing or invalid.
    #[error("parameter `{name}`: {message}")]
    BadParameter {
        /// The parameter's name.
        name: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The entity or IRI asked for is not in the store.
    #[error("{0}")]
    NotFound(String),
    /// The text index is not open on this server.
    #[error("the text index is not available on this server")]
    SearchUnavailable,
    /// The text index is being built with no documents of this store to answer from yet (the
    /// first build, after a restore): an answer now would be empty or another state's.
    #[error("the text index is being built ({}); retry in a moment", .0.describe())]
    IndexBuilding(lodestone_indexer::BuildProgress),
    /// The disk holding the store is full: the write changed nothing.
    #[error("the disk holding the store is full, so nothing was written; writes resume by themselves once the operator frees space (see /health)")]
    StorageFull,
    /// A failure of the server itself; the detail is logged, not sent.
    #[error("internal error: {0}")]
    Internal(String),
    /// The request is over a structural limit (nesting depth, entity expansion).
    #[error("{0}")]
    TooComplex(String),
    /// The request line and headers are over the limit.
    #[error("the request line and headers are larger than the limit of {limit} bytes")]
    HeaderTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The client did not send its request body within the read timeout.
    #[error("the request body did not arrive within {} s", format_secs(*.0))]
    RequestTimeout(Duration),
}

fn format_secs(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0}")
    } else {
        format!("{secs:.1}")
    }
}

impl ApiError {
    /// The stable code and the HTTP status of each kind: the one table of the crate.
    pub fn code_and_status(&self) -> (&'static str, StatusCode) {
        match self {
            Self::BadRequest(_) => ("bad_request", StatusCode::BAD_REQUEST),
            Self::QuerySyntax(_) => ("query_syntax", StatusCode::BAD_REQUEST),
            Self::UpdateSyntax(_) => ("update_syntax", StatusCode::BAD_REQUEST),
            Self::RdfSyntax(_) => ("rdf_syntax", StatusCode::BAD_REQUEST),
            Self::Evaluation(_) => ("evaluation_error", StatusCode::BAD_REQUEST),
            Self::Unauthorized => ("unauthorized", StatusCode::UNAUTHORIZED),
            Self::UpdatesDisabled => ("updates_disabled", StatusCode::FORBIDDEN),
            Self::CrossSiteWrite(_) => ("cross_site_write", StatusCode::FORBIDDEN),
            Self::Forbidden(_) => ("forbidden", StatusCode::FORBIDDEN),
            Self::GraphNotFound(_) => ("graph_not_found", StatusCode::NOT_FOUND),
            Self::EntityNotFound(_) => ("entity_not_found", StatusCode::NOT_FOUND),
            Self::GraphAlreadyExists(_) => ("graph_exists", StatusCode::CONFLICT),
            Self::NotAcceptable { .. } => ("not_acceptable", StatusCode::NOT_ACCEPTABLE),
            Self::PayloadTooLarge { .. } => ("payload_too_large", StatusCode::PAYLOAD_TOO_LARGE),
            Self::ParsedTooLarge { .. } => ("parsed_too_large", StatusCode::PAYLOAD_TOO_LARGE),
            Self::UnsupportedMediaType { .. } => {
                ("unsupported_media_type", StatusCode::UNSUPPORTED_MEDIA_TYPE)
            }
            Self::Timeout(_) => ("timeout", StatusCode::SERVICE_UNAVAILABLE),
            Self::Busy => ("busy", StatusCode::SERVICE_UNAVAILABLE),
            Self::BodiesInFlight { .. } => ("bodies_in_flight", StatusCode::SERVICE_UNAVAILABLE),
            Self::TooLarge(_) => ("too_large", StatusCode::SERVICE_UNAVAILABLE),
            Self::StorageFull => ("storage_full", StatusCode::INSUFFICIENT_STORAGE),
            Self::Internal(_) => ("internal", StatusCode::INTERNAL_SERVER_ERROR),
            Self::BadParameter { .. } => ("bad_parameter", StatusCode::BAD_REQUEST),
            Self::NotFound(_) => ("not_found", StatusCode::NOT_FOUND),
            Self::SearchUnavailable => ("search_unavailable", StatusCode::SERVICE_UNAVAILABLE),
            Self::IndexBuilding(_) => ("index_building", StatusCode::SERVICE_UNAVAILABLE),
            Self::TooComplex(_) => ("too_complex", StatusCode::BAD_REQUEST),
            Self::RequestTimeout(_) => ("request_timeout", StatusCode::REQUEST_TIMEOUT),
            Self::HeaderTooLarge { .. } => (
                "header_too_large",
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ),
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.code_and_status().1
    }

    /// Maps a store error; `budget` names the time budget in a timeout message.
    ///
    /// Input errors become 4xx with the store's message; `Cancelled` becomes a timeout; a
    /// full disk is 507; everything else is internal.
    pub fn from_store(error: StoreError, budget: Duration) -> Self {
        match error {
            StoreError::Cancelled => Self::Timeout(budget),
            StoreError::TooLarge(m) => Self::TooLarge(m),
            StoreError::Syntax { .. } => Self::RdfSyntax(error.to_string()),
            StoreError::GraphNotFound(g) => Self::GraphNotFound(g),
            StoreError::GraphAlreadyExists(g) => Self::GraphAlreadyExists(g),
            StoreError::Forbidden(m) => Self::Forbidden(m),
            StoreError::Format(m) | StoreError::Evaluation(m) => Self::Evaluation(m),
            StoreError::StorageFull(detail) => {
                tracing::error!(%detail, "a write failed: the disk is full");
                Self::StorageFull
            }
            other if other.is_user_error() => Self::Evaluation(other.to_string()),
            other => Self::Internal(other.to_string()),
        }
    }

    /// Maps a facet engine error; `budget` names the time budget in a timeout message.
    ///
    /// The store's errors map as in [`Self::from_store`]; running out of time is a timeout;
    /// a refused text constraint and a query without a view are evaluation errors.
    pub fn from_facets(error: EngineError, budget: Duration) -> Self {
        match error {
            EngineError::Store(e) => Self::from_store(e, budget),
            EngineError::OutOfTime => Self::Timeout(budget),
            EngineError::Text(m) => Self::Evaluation(m),
            EngineError::NoView => Self::Evaluation(error.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (code, status) = self.code_and_status();
        let message = match &self {
            Self::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                "internal error; the details are in the server log".to_owned()
            }
            other => other.to_string(),
        };
        let mut body = serde_json::json!({
            "code": code,
            "message": message,
            "status": status.as_u16(),
        });
        match &self {
            Self::NotAcceptable { available } => body["available"] = available.clone().into(),
            Self::UnsupportedMediaType { supported, .. } => {
                body["supported"] = supported.clone().into();
            }
            Self::BadParameter { name, .. } => body["parameter"] = (*name).into(),
            Self::IndexBuilding(progress) => body["progress"] = build_progress_json(progress),
            _ => {}
        }
        let mut response = (status, axum::Json(body)).into_response();
        let headers = response.headers_mut();
        match self {
            Self::Unauthorized => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"lodestone\""),
                );
            }
            Self::Busy | Self::BodiesInFlight { .. } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            Self::IndexBuilding(progress) => {
                headers.insert(header::RETRY_AFTER, retry_after(&progress).into());
            }
            _ => {}
        }
        response
    }
}

/// A running text index build as JSON (error bodies and `/status`): what it is, how far it
/// has come (`done` of `total`, in `unit`), entities indexed, its rate and time so far.
pub fn build_progress_json(progress: &lodestone_indexer::BuildProgress) -> serde_json::Value {
    serde_json::json!({
        "kind": progress.kind.name(),
        "unit": progress.kind.unit(),
        "done": progress.done,
        "total": progress.total,
        "entities": progress.entities,
        "rate": progress.rate().round(),
        "elapsed_s": (progress.elapsed.as_secs_f64() * 10.0).round() / 10.0,
        "remaining_s": progress.remaining().map(|d| d.as_secs()),
    })
}

/// Seconds a client should wait before asking again (`Retry-After`): a tenth of the time the build has
/// left, between 1 and 30 (5 while that is not known).
pub fn retry_after(progress: &lodestone_indexer::BuildProgress) -> u64 {
    progress
        .remaining()
        .map_or(5, |left| (left.as_secs() / 10).clamp(1, 30))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case() {
        let all = [
            ApiError::BadRequest(String::new()),
            ApiError::QuerySyntax(String::new()),
            ApiError::UpdateSyntax(String::new()),
            ApiError::RdfSyntax(String::new()),
            ApiError::Evaluation(String::new()),
            ApiError::Unauthorized,
            ApiError::UpdatesDisabled,
            ApiError::CrossSiteWrite(String::new()),
            ApiError::Forbidden(String::new()),
            ApiError::GraphNotFound(String::new()),
            ApiError::EntityNotFound(String::new()),
            ApiError::GraphAlreadyExists(String::new()),
            ApiError::NotAcceptable {
                available: Vec::new(),
            },
            ApiError::PayloadTooLarge { limit: 0 },
            ApiError::ParsedTooLarge {
                estimate: 0,
                limit: 0,
            },
            ApiError::UnsupportedMediaType {
                found: String::new(),
                supported: Vec::new(),
            },
            ApiError::Timeout(Duration::from_secs(1)),
            ApiError::Busy,
            ApiError::BodiesInFlight { limit: 0 },
            ApiError::TooLarge(String::new()),
            ApiError::TooComplex(String::new()),
            ApiError::RequestTimeout(Duration::from_secs(1)),
            ApiError::HeaderTooLarge { limit: 0 },
            ApiError::Internal(String::new()),
            ApiError::BadParameter {
                name: "q",
                message: String::new(),
            },
            ApiError::NotFound(String::new()),
            ApiError::SearchUnavailable,
            ApiError::IndexBuilding(lodestone_indexer::BuildProgress::pending()),
        ];
        let mut codes: Vec<_> = all.iter().map(|e| e.code_and_status().0).collect();
        assert!(codes
            .iter()
            .all(|c| c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all.len());
    }

    #[test]
    fn store_errors_split_into_user_and_internal() {
        let budget = Duration::from_secs(30);
        let syntax = StoreError::Syntax {
            source_name: "request body".into(),
            message: "line 1, column 3: oops".into(),
        };
        assert_eq!(
            ApiError::from_store(syntax, budget).status(),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            ApiError::from_store(StoreError::Cancelled, budget).status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        let io = StoreError::Io(std::io::Error::other("disk on fire"));
        let mapped = ApiError::from_store(io, budget);
        assert_eq!(mapped.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(ApiError::Timeout(budget).to_string().contains("30 s"));
    }
}
