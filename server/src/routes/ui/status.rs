//! `/status` for a browser: the fields of the JSON status as a table, the indexes as another.

use super::{html, layout};
use crate::error::ApiError;
use crate::extract::negotiate::AcceptHeader;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::Response;
use lodestone_web::ui::status::{IndexSize, StatusPage};
use serde_json::Value;

/// Whether `/status` should answer with the page (a browser) rather than JSON.
pub fn wants_page(accept: &AcceptHeader) -> bool {
    super::prefers_html(accept, &["application/json"])
}

/// The page of a status object (the JSON `/status` answers to programs): every field, the
/// fields of nested objects under their parent's name, and the `indexes` object as a table.
pub fn page(state: &AppState, status: &Value) -> Result<Response, ApiError> {
    let mut facts = Vec::new();
    let mut indexes = Vec::new();
    for (name, value) in status.as_object().into_iter().flatten() {
        let name = name.replace('_', " ");
        match value {
            Value::Object(fields) if name == "indexes" => {
                for (index, usage) in fields {
                    let number = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                    indexes.push(IndexSize {
                        name: index.clone(),
                        bytes: number("disk_bytes") + number("memtable_bytes"),
                        keys: number("estimated_keys"),
                    });
                }
            }
            Value::Object(fields) => {
                for (field, value) in fields {
                    facts.push((format!("{name}: {}", field.replace('_', " ")), text(value)));
                }
            }
            other => facts.push((name, text(other))),
        }
    }
    let page = StatusPage {
        layout: layout(state, "Status"),
        facts,
        indexes,
    };
    html(StatusCode::OK, page.to_html())
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}
