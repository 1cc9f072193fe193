//! `/health`, `/status` and `/metrics`: liveness, a JSON summary and Prometheus counters.
//!
//! `/health` says `degraded` while writes fail or the text index cannot catch up.
//! None of these take a query slot: they must answer while every slot is busy. `/status` reads
//! a few counters on a blocking thread; the totals that take a scan come from the background
//! count of [`crate::store_totals`].

use crate::error::ApiError;
use crate::extract::sparql::accept_header;
use crate::respond::stream::run_unslotted;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use lodestone_store::{CacheStats, IndexUsage, Store, StoreError};
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

/// `ok`, or `degraded` with one line per problem (the store's writes failing, the text index
/// failing to catch up). Degraded is still 200: reads are answered, and restarting does not
/// free a disk; monitors read the body, or `lodestone_writes_failing` in `/metrics`.
async fn health(State(state): State<AppState>) -> String {
    let problems = problems(&state);
    if problems.is_empty() {
        return "ok".to_owned();
    }
    let mut out = "degraded".to_owned();
    for problem in &problems {
        let _ = write!(out, "\n{}: {}", problem.part, problem.summary);
    }
    out
}

/// Something that does not work now, for `/health` and `/status`.
struct Problem {
    /// Which part: `writes` or `text_index`.
    part: &'static str,
    /// Its stable code (`storage_full`, `write_failed`, `catch_up_failed`).
    code: &'static str,
    /// Since when, as RFC 3339.
    since: String,
    /// One line for an operator.
    summary: String,
}

fn problems(state: &AppState) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Some(failure) = state.store().write_failure() {
        let since = format_system_time(failure.since);
        let (code, summary) = if failure.storage_full {
            (
                "storage_full",
                format!("the disk holding the store is full since {since}; writes answer 507 until space is freed, then resume by themselves"),
            )
        } else {
            (
                "write_failed",
                format!("writes fail since {since}: {}", failure.message),
            )
        };
        problems.push(Problem {
            part: "writes",
            code,
            since,
            summary,
        });
    }
    if let Some(failure) = state.text_index().and_then(|index| index.failure()) {
        let since = format_system_time(failure.since);
        let summary = format!(
            "cannot apply the last commits since {since} (retrying): {}",
            failure.message
        );
        problems.push(Problem {
            part: "text_index",
            code: "catch_up_failed",
            since,
            summary,
        });
    }
    problems
}

fn format_system_time(time: std::time::SystemTime) -> String {
    let millis = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    format_unix_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

async fn status(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let reading = state.clone();
    let (committed, indexes, cache) = run_unslotted(&state, move || {
        let store = reading.store();
        let store_error = |e| ApiError::from_store(e, Duration::ZERO);
        let (committed, indexes, cache) = all_three(
            Committed::read(store),
            store.index_usage(),
            store.cache_stats(),
        )
        .map_err(store_error)?;
        Ok((committed, indexes, cache))
    })
    .await?;
    let totals = state.totals();
    let disk: serde_json::Map<String, serde_json::Value> = indexes
        .iter()
        .map(|usage| {
            let value = serde_json::json!({
                "disk_bytes": usage.sst_bytes,
                "memtable_bytes": usage.memtable_bytes,
                "estimated_keys": usage.estimated_keys,
            });
            (usage.name.to_owned(), value)
        })
        .collect();
    let metrics = state.metrics();
    let problems: Vec<serde_json::Value> = problems(&state)
        .into_iter()
        .map(|p| serde_json::json!({"part": p.part, "code": p.code, "since": p.since, "message": p.summary}))
        .collect();
    let status = serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "health": if problems.is_empty() { "ok" } else { "degraded" },
        "problems": problems,
        "uptime_seconds": state.started().elapsed().as_secs(),
        "quads": committed.quads,
        "terms": totals.map(|t| t.dictionary_terms),
        "subjects": totals.map(|t| t.subjects),
        "named_graphs": totals.map(|t| t.named_graphs),
        "totals_commit": totals.map(|t| t.sequence),
        "last_commit": committed.sequence,
        "last_commit_time": (committed.time_ms > 0).then(|| format_unix_millis(committed.time_ms)),
        "indexes": disk,
        "disk_bytes": indexes.iter().map(|u| u.sst_bytes).sum::<u64>(),
        "block_cache": {
            "capacity_bytes": cache.capacity_bytes,
            "usage_bytes": cache.usage_bytes,
            "hits": cache.hits,
            "misses": cache.misses,
            "hit_rate": cache.hit_rate(),
        },
        "text_index_lag_commits": metrics.text_index_lag.commits_behind(),
        "text_index": text_index_status(&state),
        "queries_in_flight": state.in_flight(),
        "max_concurrent_queries": state.settings().max_concurrent_queries,
        "queries_queued": state.queued(),
        "union_default_graph": state.settings().union_default_graph,
    });
    if crate::routes::ui::status::wants_page(&accept_header(&headers)) {
        return crate::routes::ui::status::page(&state, &status);
    }
    Ok(Json(status).into_response())
}

/// The text index in `/status`: `absent` (none on this server), `building` (with the
/// build's progress: searches answer 503 meanwhile), `catching-up` (searches answer from
/// the documents of an earlier commit) or `ready`, with its
/// documents and the store sequence they reflect.
fn text_index_status(state: &AppState) -> serde_json::Value {
    let Some(index) = state.text_index() else {
        return serde_json::json!({"state": "absent"});
    };
    let build = index.building();
    let applied = index.applied();
    let state_name = match (&build, applied) {
        (Some(b), _) if b.earlier_state => "catching-up",
        (Some(_), _) | (None, None) => "building",
        (None, Some(_)) => "ready",
    };
    serde_json::json!({
        "state": state_name,
        "documents": index.document_count(),
        "applied_commit": applied,
        "build": build.as_ref().map(crate::error::build_progress_json),
    })
}

/// What `/status` reads of the store's last commit: one counter each.
struct Committed {
    quads: u64,
    sequence: u64,
    time_ms: u64,
}

impl Committed {
    fn read(store: &Store) -> Result<Self, StoreError> {
        let reader = store.reader();
        Ok(Self {
            quads: reader.quad_count()?,
            sequence: reader.sequence()?,
            time_ms: reader.last_commit_ms()?,
        })
    }
}

/// The three readings of `/status`, or the first error.
fn all_three(
    committed: Result<Committed, StoreError>,
    indexes: Result<Vec<IndexUsage>, StoreError>,
    cache: Result<CacheStats, StoreError>,
) -> Result<(Committed, Vec<IndexUsage>, CacheStats), StoreError> {
    Ok((committed?, indexes?, cache?))
}

/// RFC 3339 UTC time (`2026-11-29T23:05:01.250Z`) of a Unix time in milliseconds.
fn format_unix_millis(millis: u64) -> String {
    let secs = millis / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        millis % 1000
    )
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
        "lodestone_commits_total",
        "Commits of the store (its sequence number).",
        "counter",
        state.store().sequence(),
    );
    counter(
        "lodestone_quads_written_total",
        "Quads received by Graph Store uploads; its rate is the HTTP load rate.",
        "counter",
        m.quads_written.load(Ordering::Relaxed),
    );
    if let Some(lag) = m.text_index_lag.commits_behind() {
        counter(
            "lodestone_text_index_lag_commits",
            "Commits the text index has not applied yet.",
            "gauge",
            lag,
        );
    }
    counter(
        "lodestone_writes_failing",
        "1 while the store's writes fail (a full disk, say), else 0.",
        "gauge",
        u64::from(state.store().write_failure().is_some()),
    );
    counter(
        "lodestone_text_index_failing",
        "1 while the text index fails to apply commits, else 0.",
        "gauge",
        u64::from(state.text_index().is_some_and(|i| i.failure().is_some())),
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
    m.latency.write_prometheus(&mut out, escape_label);
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
    fn unix_times_print_as_rfc3339() {
        assert_eq!(super::format_unix_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            super::format_unix_millis(1_795_906_501_250),
            "2026-11-28T22:55:01.250Z"
        );
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(super::escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
