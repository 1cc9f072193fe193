//! DBpedia Lookup compatible routes.
//!
//! The old service (`github.com/dbpedia/lookup`, its `LookupResource` and
//! `EntitiesSerialization`): `GET /api/search/KeywordSearch` and `/PrefixSearch`, also under
//! `/api/search.asmx/…` as old clients call them, with `QueryString`, `QueryClass` and
//! `MaxHits`; XML `ArrayOfResult` by default, JSON `{"results": [...]}` for
//! `Accept: application/json` or `format=json`. `QueryClass` empty, `thing` or any
//! `…#Thing` means no filter; a prefixed name is expanded with the server's prefix table (an
//! unknown prefix is a 400); a bare name is a DBpedia ontology class (`place` →
//! `dbo:Place`); the filter takes in the class's subclasses.
//!
//! The new service (`github.com/dbpedia/dbpedia-lookup`, its `LookupSearcher`):
//! `GET /api/search?query=…` (instead of Lodestone's `q=`) with `maxResults`, `format`
//! (`JSON`, `JSON_RAW`, `JSON_FULL`, `XML`) and `typeName` (or `QueryClass`) answers
//! `{"docs": [{"resource": [...], "label": [...], …}]}`, every field an array of strings;
//! `maxResults=0` answers the count.

use super::api::suggestions;
use super::format::{escape_into, Format};
use super::params::{bad, languages, Params};
use super::{index_error, run_blocking};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use lodestone_indexer::{IndexSearcher, SearchHit, SearchPage, SearchRequest};
use lodestone_vocab::Prefixes;
use serde_json::json;

/// `GET /api/search/KeywordSearch`.
pub(super) async fn keyword_search(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    respond(state, headers, raw, false).await
}

/// `GET /api/search/PrefixSearch`.
pub(super) async fn prefix_search(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    respond(state, headers, raw, true).await
}

async fn respond(
    state: AppState,
    headers: HeaderMap,
    raw: Option<String>,
    prefix: bool,
) -> Response {
    let params = Params::parse(raw.as_deref());
    let format = match Format::for_request(&params, &headers, Format::Xml) {
        Ok(format) => format,
        Err(refusal) => return *refusal,
    };
    let result = async {
        let text = params.required("QueryString")?.to_owned();
        let prefixes = state.prefixes_read().await?;
        let class = query_class(&prefixes, params.get("QueryClass")?, "QueryClass")?;
        let limit = params.count("MaxHits", 5, 100)?;
        let langs = languages(&params, &headers)?;
        if prefix {
            suggestions(&state, text, class, langs, limit).await
        } else {
            keyword_page(&state, text, class, langs, limit)
                .await
                .map(|page| page.hits)
        }
    }
    .await;
    match result {
        Ok(hits) => match format {
            Format::Xml => array_of_result(&hits),
            Format::Json => {
                let results: Vec<_> = hits
                    .iter()
                    .map(|h| {
                        json!({
                            "uri": h.iri,
                            "label": h.label.as_ref().map(|l| &l.text),
                            "description": h.description.as_ref().map(|d| &d.text),
                            "refCount": h.in_degree,
                            "classes": h.classes.iter().map(|c| json!({"uri": c, "label": local_name(c)})).collect::<Vec<_>>(),
                            "categories": [],
                            "templates": [],
                            "redirects": [],
                        })
                    })
                    .collect();
                axum::Json(json!({ "results": results })).into_response()
            }
        },
        Err(error) => format.error(error),
    }
}

/// A keyword search of the text index, filtered by a class and its subclasses (both DBpedia
/// Lookup APIs).
pub(super) async fn keyword_page(
    state: &AppState,
    text: String,
    class: Option<String>,
    langs: Vec<String>,
    limit: usize,
) -> Result<SearchPage, ApiError> {
    run_blocking(state, move |store, index| {
        let reader = store.reader();
        let searcher = index.searcher();
        let classes = match &class {
            Some(c) => IndexSearcher::with_subclasses(&reader, c).map_err(index_error)?,
            None => Vec::new(),
        };
        let request = SearchRequest {
            query: searcher.parse(&text).map_err(index_error)?,
            classes,
            graph: None,
            langs,
            limit,
            offset: 0,
        };
        searcher.search(&reader, &request).map_err(index_error)
    })
    .await
}

/// A class filter as DBpedia Lookup reads it: none for an empty value, `thing` or an IRI
/// ending `#Thing`; an absolute IRI as is; `prefix:Name` expanded with the server's prefix
/// table (an unknown prefix is refused, never "no results"); a bare name in the DBpedia
/// ontology.
pub(super) fn query_class(
    prefixes: &Prefixes,
    value: Option<&str>,
    name: &'static str,
) -> Result<Option<String>, ApiError> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let lower = value.to_lowercase();
    if lower == "thing" || lower == "owl:thing" || lower.ends_with("#thing") {
        return Ok(None);
    }
    let checked = |iri: String| {
        oxrdf::NamedNode::new(iri)
            .map(oxrdf::NamedNode::into_string)
            .map_err(|e| bad(name, &e.to_string()))
    };
    if value.contains("://") || value.starts_with("urn:") {
        return checked(value.to_owned()).map(Some);
    }
    if let Some((prefix, local)) = value.split_once(':') {
        let namespace = prefixes.namespace(prefix).ok_or_else(|| {
            let known: Vec<&str> = prefixes.entries().iter().map(|(p, _)| p.as_str()).collect();
            bad(
                name,
                &format!(
                    "unknown prefix `{prefix}:`; known prefixes: {}",
                    known.join(", ")
                ),
            )
        })?;
        return checked(format!("{namespace}{local}")).map(Some);
    }
    dbpedia_class(prefixes, value)
        .map(Some)
        .ok_or_else(|| bad(name, "is not a class name"))
}

/// `place` → `http://dbpedia.org/ontology/Place` (the `dbo:` namespace of the prefix table).
fn dbpedia_class(prefixes: &Prefixes, name: &str) -> Option<String> {
    let ontology = prefixes.namespace("dbo")?;
    let mut chars = name.trim().chars();
    let first = chars.next()?;
    let rest: String = chars.collect();
    if !first.is_alphabetic() || !rest.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    Some(format!("{ontology}{}{rest}", first.to_uppercase()))
}

/// The last segment of an IRI (after `#` or `/`), a stand-in label for a class.
pub(super) fn local_name(iri: &str) -> &str {
    iri.rsplit(['#', '/']).next().unwrap_or(iri)
}

fn array_of_result(hits: &[SearchHit]) -> Response {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<ArrayOfResult xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns=\"http://lookup.dbpedia.org/\">\n",
    );
    let element = |out: &mut String, name: &str, text: &str| {
        out.push_str(&format!("<{name}>"));
        escape_into(text, out);
        out.push_str(&format!("</{name}>"));
    };
    for hit in hits {
        out.push_str("  <Result>");
        element(
            &mut out,
            "Label",
            hit.label.as_ref().map_or("", |l| &l.text),
        );
        element(&mut out, "URI", &hit.iri);
        element(
            &mut out,
            "Description",
            hit.description.as_ref().map_or("", |d| &d.text),
        );
        out.push_str("<Classes>");
        for class in &hit.classes {
            out.push_str("<Class>");
            element(&mut out, "Label", local_name(class));
            element(&mut out, "URI", class);
            out.push_str("</Class>");
        }
        out.push_str("</Classes><Categories/><Templates/><Redirects/>");
        element(&mut out, "Refcount", &hit.in_degree.to_string());
        out.push_str("</Result>\n");
    }
    out.push_str("</ArrayOfResult>\n");
    let mut response = out.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_map_to_the_dbpedia_ontology() {
        assert_eq!(
            dbpedia_class(&Prefixes::well_known(), "place").as_deref(),
            Some("http://dbpedia.org/ontology/Place")
        );
        assert_eq!(dbpedia_class(&Prefixes::well_known(), "a b"), None);
        for none in [
            "",
            " ",
            "thing",
            "Thing",
            "owl:Thing",
            "http://www.w3.org/2002/07/owl#Thing",
        ] {
            assert_eq!(
                query_class(&Prefixes::well_known(), Some(none), "QueryClass").ok(),
                Some(None),
                "{none}"
            );
        }
        assert_eq!(
            query_class(&Prefixes::well_known(), Some("dbo:Place"), "QueryClass")
                .ok()
                .flatten()
                .as_deref(),
            Some("http://dbpedia.org/ontology/Place")
        );
        assert!(query_class(
            &Prefixes::well_known(),
            Some("nosuchprefix:Place"),
            "QueryClass"
        )
        .is_err());
        assert_eq!(local_name("http://x.org/o#Coin"), "Coin");
    }
}
