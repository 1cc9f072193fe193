//! `GET /api/search` and `GET /api/autocomplete`.

use super::format::Format;
use super::params::{languages, Params};
use super::{index_error, run_blocking, MAX_LIMIT, MAX_OFFSET};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use lodestone_indexer::{AutocompleteRequest, IndexSearcher, SearchHit, SearchRequest};
use serde_json::{json, Value};
use std::time::Instant;

/// `GET /api/search?q=&class=&lang=&graph=&limit=&offset=` (a request with `query=` instead
/// of `q=` is the new DBpedia Lookup's, answered by
/// [`dbpedia_docs::search_route`](super::dbpedia_docs::search_route)).
pub(super) async fn search(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let params = Params::parse(raw.as_deref());
    let format = match Format::for_request(&params, &headers, Format::Json) {
        Ok(format) => format,
        Err(refusal) => return *refusal,
    };
    match search_value(&state, &params, &headers).await {
        Ok(value) => format.respond(&value, "search"),
        Err(error) => format.error(error),
    }
}

async fn search_value(
    state: &AppState,
    params: &Params,
    headers: &HeaderMap,
) -> Result<Value, ApiError> {
    let started = Instant::now();
    let q = params.required("q")?.to_owned();
    let class = params.iri("class")?;
    let graph = params.iri("graph")?;
    let langs = languages(params, headers)?;
    let limit = params.count("limit", 10, MAX_LIMIT)?;
    let offset = params.number("offset", 0, 0, MAX_OFFSET)?;
    run_blocking(state, move |store, index| {
        let searcher = index.searcher();
        let reader = store.reader();
        let query = searcher.parse(&q).map_err(index_error)?;
        let classes = match &class {
            Some(class) => IndexSearcher::with_subclasses(&reader, class).map_err(index_error)?,
            None => Vec::new(),
        };
        let request = SearchRequest {
            query,
            classes,
            graph,
            langs,
            limit,
            offset,
        };
        let page = searcher.search(&reader, &request).map_err(index_error)?;
        Ok(json!({
            "query": q,
            "total": page.total,
            "offset": offset,
            "limit": limit,
            "results": page.hits.iter().map(hit_json).collect::<Vec<_>>(),
            "tookMs": started.elapsed().as_secs_f64() * 1000.0,
        }))
    })
    .await
}

/// `GET /api/autocomplete?q=&class=&lang=&limit=`.
pub(super) async fn autocomplete(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let params = Params::parse(raw.as_deref());
    let format = match Format::for_request(&params, &headers, Format::Json) {
        Ok(format) => format,
        Err(refusal) => return *refusal,
    };
    let result = async {
        let q = params.required("q")?.to_owned();
        let class = params.iri("class")?;
        let langs = languages(&params, &headers)?;
        let limit = params.count("limit", 10, 100)?;
        let hits = suggestions(&state, q.clone(), class, langs, limit).await?;
        Ok::<_, ApiError>(json!({
            "query": q,
            "results": hits.iter().map(|h| json!({
                "uri": h.iri,
                "label": h.label.as_ref().map(|l| &l.text),
                "lang": h.label.as_ref().and_then(|l| l.lang.as_ref()),
                "classes": h.classes,
                "inDegree": h.in_degree,
            })).collect::<Vec<_>>(),
        }))
    }
    .await;
    match result {
        Ok(value) => format.respond(&value, "autocomplete"),
        Err(error) => format.error(error),
    }
}

/// Type-ahead suggestions (shared with the DBpedia-compatible prefix search).
pub(super) async fn suggestions(
    state: &AppState,
    text: String,
    class: Option<String>,
    langs: Vec<String>,
    limit: usize,
) -> Result<Vec<SearchHit>, ApiError> {
    run_blocking(state, move |store, index| {
        let reader = store.reader();
        let classes = match &class {
            Some(class) => IndexSearcher::with_subclasses(&reader, class).map_err(index_error)?,
            None => Vec::new(),
        };
        let request = AutocompleteRequest {
            text,
            classes,
            langs,
            limit,
        };
        index
            .searcher()
            .autocomplete(&reader, &request)
            .map_err(index_error)
    })
    .await
}

/// One hit of `/api/search`.
pub(super) fn hit_json(hit: &SearchHit) -> Value {
    json!({
        "uri": hit.iri,
        "label": hit.label.as_ref().map(|l| &l.text),
        "labelLang": hit.label.as_ref().and_then(|l| l.lang.as_ref()),
        "description": hit.description.as_ref().map(|d| &d.text),
        "classes": hit.classes,
        "score": hit.score,
        "inDegree": hit.in_degree,
        "snippet": hit.snippet.as_ref().map(|s| s.to_html()),
        "matchedProperty": hit.snippet_property,
    })
}
