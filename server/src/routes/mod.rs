//! The router: one `router()` per area, and the layers every request goes through (one log
//! line, the request counters, `Vary: Accept`; the security headers, see [`security_headers`];
//! cross-origin reads of the read-only routes, see [`cors`]).

pub mod cors;
pub mod facets;
pub mod graph_store;
pub mod health;
pub mod openapi;
pub mod pages;
mod request_limits;
pub mod search;
pub mod security_headers;
pub mod sparql;
pub mod ui;

use crate::state::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use std::time::Instant;

/// The HTTP application: `/sparql`, `/store`, `/health`, `/status`, `/metrics`.
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(sparql::router(&state))
        .merge(graph_store::router(&state))
        .merge(health::router())
        .merge(search::router(&state))
        .merge(openapi::router())
        .merge(pages::router())
        .merge(facets::router(&state))
        .merge(ui::router())
        .layer(middleware::from_fn(cors::read_only))
        .layer(middleware::from_fn_with_state(state.clone(), track))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            request_limits::mark,
        ))
        .layer(middleware::map_response(security_headers::set))
        .with_state(state)
}

/// Logs one line per request (method, path, status, time to the response head), counts it by
/// route and status, and marks every response as varying with `Accept`.
async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let mut response = next.run(request).await;
    let status = response.status().as_u16();
    let elapsed = start.elapsed();
    state.metrics().record_request(&route, status);
    state.metrics().latency.observe(&route, elapsed);
    response
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept"));
    // The share of the time budget used, for the routes that have one.
    let budget = matches!(route.as_str(), "/sparql" | "/store")
        .then(|| 100.0 * elapsed.as_secs_f64() / state.settings().query_timeout.as_secs_f64());
    tracing::info!(
        target: "lodestone::http",
        method = %method,
        route = %route,
        status,
        ms = elapsed.as_secs_f64() * 1000.0,
        budget_pct = budget,
        "{method} {path} {status}"
    );
    response
}
