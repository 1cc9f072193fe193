//! DBpedia Lookup compatible routes: `GET /api/search/KeywordSearch` and
//! `GET /api/search/PrefixSearch` with `QueryString`, `QueryClass` and `MaxHits`.
//!
//! XML `ArrayOfResult` by default (the old service's format), JSON `{"results": [...]}` for
//! `Accept: application/json` or `format=json`. `QueryClass` is a class IRI or, as DBpedia's
//! service took it, a DBpedia ontology class name (`place` → `dbo:Place`).

use super::api::suggestions;
use super::format::{escape_into, Format};
use super::params::{bad, languages, Params};
use super::{index_error, run_blocking};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use lodestone_indexer::{IndexSearcher, SearchHit, SearchRequest};
use serde_json::json;

const DBPEDIA_ONTOLOGY: &str = "http://dbpedia.org/ontology/";

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
        let class = match params.get("QueryClass")? {
            None => None,
            Some(c) if c.contains(':') => Some(
                oxrdf::NamedNode::new(c)
                    .map_err(|e| bad("QueryClass", &e.to_string()))?
                    .into_string(),
            ),
            Some(c) => {
                Some(dbpedia_class(c).ok_or_else(|| bad("QueryClass", "is not a class name"))?)
            }
        };
        let limit = params.count("MaxHits", 5, 100)?;
        let langs = languages(&params, &headers)?;
        if prefix {
            suggestions(&state, text, class, langs, limit).await
        } else {
            run_blocking(&state, move |store, index| {
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
                Ok(searcher
                    .search(&reader, &request)
                    .map_err(index_error)?
                    .hits)
            })
            .await
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
                        })
                    })
                    .collect();
                axum::Json(json!({ "results": results })).into_response()
            }
        },
        Err(error) => format.error(error),
    }
}

/// `place` → `http://dbpedia.org/ontology/Place`.
fn dbpedia_class(name: &str) -> Option<String> {
    let mut chars = name.trim().chars();
    let first = chars.next()?;
    let rest: String = chars.collect();
    if !first.is_alphabetic() || !rest.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    Some(format!("{DBPEDIA_ONTOLOGY}{}{rest}", first.to_uppercase()))
}

/// The last segment of an IRI (after `#` or `/`), a stand-in label for a class.
fn local_name(iri: &str) -> &str {
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
        out.push_str("</Classes><Categories/><Templates/>");
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
            dbpedia_class("place").as_deref(),
            Some("http://dbpedia.org/ontology/Place")
        );
        assert_eq!(dbpedia_class("a b"), None);
        assert_eq!(local_name("http://x.org/o#Coin"), "Coin");
    }
}
