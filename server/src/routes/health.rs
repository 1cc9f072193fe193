//! `/health`, `/status` and `/metrics`: liveness, a JSON summary and Prometheus counters.
//!
//! None of these take a query slot: they must answer while every slot is busy. `/status` counts
//! the store on a blocking thread, and only after a commit (see [`AppState::counts`]).

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::State;
use crate::extract::sparql::accept_header;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The `/health`, `/status` and `/metrics` routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/health", get(health))
        .route("/status", get(status))
        .route("/metrics", get(metrics))
}

async fn health() -> &'static str {
    "ok"
}

async fn status(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let counting = state.clone();
    let counts = tokio::task::spawn_blocking(move || counting.counts())
        .await
        .map_err(|e| ApiError::Internal(format!("status task failed: {e}")))?
        .map_err(|e| ApiError::from_store(e, Duration::ZERO))?;
    let status = serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_seconds": state.started().elapsed().as_secs(),
        "quads": counts.quads,
        "named_graphs": counts.named_graphs,
        "last_commit": counts.sequence,
        "queries_in_flight": state.in_flight(),
        "max_concurrent_queries": state.settings().max_concurrent_queries,
        "union_default_graph": state.settings().union_default_graph,
    });
    if crate::routes::ui::status::wants_page(&accept_header(&headers)) {
        return crate::routes::ui::status::page(&state, &status).await;
    }
    Ok(Json(status).into_response())
}

async fn metrics(State(state): State<AppState>) -> Response {
    let m = state.metrics();
    let mut out = String::new();
    let mut counter = |name: &str, help: &str, kind: &str, value: u64| {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
        );
    };
    counter(
        "lodestone_queries_total",
        "SPARQL queries and Graph Store reads started.",
        "counter",
        m.queries.load(Ordering::Relaxed),
    );
    counter(
        "lodestone_updates_total",
        "SPARQL updates and Graph Store writes started.",
        "counter",
        m.updates.load(Ordering::Relaxed),
    );
    counter(
        "lodestone_timeouts_total",
        "Operations stopped by their time budget.",
        "counter",
        m.timeouts.load(Ordering::Relaxed),
    );
    counter(
        "lodestone_truncated_results_total",
        "Results cut at the row cap.",
        "counter",
        m.truncated.load(Ordering::Relaxed),
    );
    counter(
        "lodestone_busy_rejections_total",
        "Requests answered 503 because every query slot was taken.",
        "counter",
        m.busy.load(Ordering::Relaxed),
    );
    counter(
        "lodestone_queries_in_flight",
        "Engine operations running now.",
        "gauge",
        state.in_flight() as u64,
    );
    counter(
        "lodestone_uptime_seconds",
        "Seconds since the server started.",
        "gauge",
        state.started().elapsed().as_secs(),
    );
    let _ = writeln!(
        out,
        "# HELP lodestone_http_requests_total HTTP requests answered, by route and status."
    );
    let _ = writeln!(out, "# TYPE lodestone_http_requests_total counter");
    for ((route, status), count) in m.requests() {
        let _ = writeln!(
            out,
            "lodestone_http_requests_total{{route=\"{}\",status=\"{status}\"}} {count}",
            escape_label(&route)
        );
    }
    let mut response = out.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// Escapes a Prometheus label value (backslash, double quote, newline).
fn escape_label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn labels_are_escaped() {
        assert_eq!(super::escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
