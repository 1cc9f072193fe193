//! The first layer a request meets: the size of its head, and its body's deadline.

use crate::error::ApiError;
use crate::extract::deadline::ReadDeadline;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Middleware: answers 431 to a request whose head (request line and headers) is over
/// `max_header_bytes` — hyper's read buffer stops a slowly sent oversized head, but one that
/// arrives in a single read gets through it — and stamps the others with their body's
/// deadline (the configured read timeout).
pub(super) async fn mark(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let limit = state.settings().max_header_bytes;
    if head_size(&request) > limit {
        return ApiError::HeaderTooLarge { limit }.into_response();
    }
    let timeout = state.settings().read_timeout;
    request
        .extensions_mut()
        .insert(ReadDeadline::after(timeout));
    next.run(request).await
}

/// The size of the request line and headers as sent (give or take whitespace).
fn head_size(request: &Request) -> usize {
    let line = request.method().as_str().len() + request.uri().to_string().len() + 12;
    request.headers().iter().fold(line, |size, (name, value)| {
        size + name.as_str().len() + value.len() + 4
    })
}
