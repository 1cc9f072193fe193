//! How long a client may take to send its request body, and how large its head may be.
//!
//! Headers are bounded in time by the connection's header read timeout (see `serve`); the body
//! is bounded here. [`mark`] stamps every request with the instant its body must have arrived by,
//! and [`ReadDeadline::bound`] applies it where a handler reads the body — so a client that
//! trickles a body byte by byte is answered 408 instead of holding a connection and its memory
//! for as long as it likes.

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

/// When the request's body must have been read completely.
#[derive(Debug, Clone, Copy)]
pub struct ReadDeadline {
    at: Instant,
    timeout: Duration,
}

impl ReadDeadline {
    /// Reads the body with `read`, answering [`ApiError::RequestTimeout`] past the deadline.
    pub async fn bound<T>(
        deadline: Option<Self>,
        read: impl Future<Output = Result<T, ApiError>>,
    ) -> Result<T, ApiError> {
        match deadline {
            None => read.await,
            Some(deadline) => tokio::time::timeout_at(deadline.at, read)
                .await
                .map_err(|_| ApiError::RequestTimeout(deadline.timeout))?,
        }
    }
}

/// Middleware: answers 431 to a request whose head (request line and headers) is over
/// `max_header_bytes` — hyper's read buffer stops a slowly sent oversized head, but one that
/// arrives in a single read gets through it — and stamps the others with their body's
/// deadline (the configured read timeout).
pub async fn mark(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let limit = state.settings().max_header_bytes;
    if head_size(&request) > limit {
        return ApiError::HeaderTooLarge { limit }.into_response();
    }
    let timeout = state.settings().read_timeout;
    request.extensions_mut().insert(ReadDeadline {
        at: Instant::now() + timeout,
        timeout,
    });
    next.run(request).await
}

/// The size of the request line and headers as sent (give or take whitespace).
fn head_size(request: &Request) -> usize {
    let line = request.method().as_str().len() + request.uri().to_string().len() + 12;
    request.headers().iter().fold(line, |size, (name, value)| {
        size + name.as_str().len() + value.len() + 4
    })
}
