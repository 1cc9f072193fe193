//! How long a client may take to send its request body, and how large its head may be.
//!
//! Headers are bounded in time by the connection's header read timeout (see `listener`); the
//! body is bounded here. The router's `request_limits` middleware stamps every request with the
//! instant its body must have arrived by, and [`ReadDeadline::bound`] applies it where a handler
//! reads the body — so a client that trickles a body byte by byte is answered 408 instead of
//! holding a connection and its memory for as long as it likes.

use crate::error::ApiError;
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
    /// The deadline `timeout` from now.
    pub fn after(timeout: Duration) -> Self {
        Self {
            at: Instant::now() + timeout,
            timeout,
        }
    }
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
