//! `GET /api/openapi.json`: the OpenAPI 3 description of `/api/*`, merged from one JSON
//! fragment per area (`server/openapi/*.json`, each with `paths` and `components`), so that
//! every area documents its own routes next to its code.

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Map, Value};

use crate::state::AppState;

/// The fragments, one per area; add a line for a new area.
const FRAGMENTS: &[(&str, &str)] = &[
    ("search", include_str!("../../openapi/search.json")),
    ("facets", include_str!("../../openapi/facets.json")),
];

/// The route.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/openapi.json", get(|| async { Json(document()) }))
}

/// The merged document.
pub fn document() -> Value {
    merge(FRAGMENTS)
}

/// Merges fragments into one OpenAPI 3 document: `paths`, `components.*` and `tags` are
/// united; a fragment that does not parse is a build-time mistake caught by the tests, and is
/// skipped (with a log line) rather than taking the endpoint down.
pub fn merge(fragments: &[(&str, &str)]) -> Value {
    let mut paths = Map::new();
    let mut components: Map<String, Value> = Map::new();
    let mut tags = Vec::new();
    for (name, text) in fragments {
        let fragment: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(error) => {
                tracing::error!(fragment = name, %error, "OpenAPI fragment does not parse");
                continue;
            }
        };
        if let Some(p) = fragment.get("paths").and_then(Value::as_object) {
            paths.extend(p.clone());
        }
        if let Some(c) = fragment.get("components").and_then(Value::as_object) {
            for (kind, entries) in c {
                let slot = components
                    .entry(kind.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let (Some(slot), Some(entries)) = (slot.as_object_mut(), entries.as_object()) {
                    slot.extend(entries.clone());
                }
            }
        }
        if let Some(t) = fragment.get("tags").and_then(Value::as_array) {
            tags.extend(t.iter().cloned());
        }
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Lodestone API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Search, look-up and browse the linked data this server publishes. Every /api route answers JSON by default and XML for `Accept: application/xml` or `format=xml`; errors have a stable `code`, a `message` and, for a bad parameter, its name in `parameter`."
        },
        "tags": tags,
        "paths": paths,
        "components": components,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fragment_parses_and_merges() {
        for (name, text) in FRAGMENTS {
            assert!(
                serde_json::from_str::<Value>(text).is_ok(),
                "fragment {name} is not JSON"
            );
        }
        let doc = document();
        for path in [
            "/api/search",
            "/api/lookup",
            "/api/autocomplete",
            "/api/search/KeywordSearch",
            "/api/search/PrefixSearch",
        ] {
            assert!(doc["paths"].get(path).is_some(), "{path} is documented");
        }
    }

    #[test]
    fn fragments_unite_paths_and_components() {
        let a = r#"{"paths": {"/a": {}}, "components": {"schemas": {"A": {}}}}"#;
        let b = r#"{"paths": {"/b": {}}, "components": {"schemas": {"B": {}}}}"#;
        let doc = merge(&[("a", a), ("b", b)]);
        assert!(doc["paths"]["/a"].is_object() && doc["paths"]["/b"].is_object());
        assert!(doc["components"]["schemas"]["A"].is_object());
        assert!(doc["components"]["schemas"]["B"].is_object());
    }
}
