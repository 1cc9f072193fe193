//! `/status` for a browser: the JSON status's fields as a table, and disk use per index.

use super::{blocking, html, layout};
use crate::error::ApiError;
use crate::extract::negotiate::AcceptHeader;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::Response;
use lodestone_web::ui::status::{IndexSize, StatusPage};
use std::time::Duration;

/// Whether `/status` should answer with the page (a browser) rather than JSON.
pub fn wants_page(accept: &AcceptHeader) -> bool {
    super::prefers_html(accept, &["application/json"])
}

/// The page of a status object (the JSON `/status` answers to programs).
pub async fn page(state: &AppState, status: &serde_json::Value) -> Result<Response, ApiError> {
    let facts = status
        .as_object()
        .map(|object| {
            object
                .iter()
                .map(|(name, value)| {
                    let text = match value {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (name.replace('_', " "), text)
                })
                .collect()
        })
        .unwrap_or_default();
    let store = state.store().clone();
    let usage = blocking(move || {
        store
            .index_usage()
            .map_err(|e| ApiError::from_store(e, Duration::ZERO))
    })
    .await?;
    let page = StatusPage {
        layout: layout(state, "Status"),
        facts,
        indexes: usage
            .into_iter()
            .map(|index| IndexSize {
                name: index.name.to_owned(),
                bytes: index.sst_bytes + index.memtable_bytes,
                keys: index.estimated_keys,
            })
            .collect(),
    };
    html(StatusCode::OK, page.to_html())
}
