//! The new DBpedia Lookup API (`lookup.dbpedia.org/api/search`, the `LookupSearcher` of
//! `github.com/dbpedia/dbpedia-lookup`): `GET /api/search?query=…` answered as `docs`.
//!
//! Each document maps a field to an array of strings, as Lucene stored them there:
//! `resource` (the IRI), `label`, `comment` (the description), `type` (class IRIs),
//! `typeName` (their local names), `refCount` (incoming links) and `score`. `format`:
//! `JSON` (the default) gives these arrays with the query's words marked `<B>…</B>` in
//! `label` and `comment`, as Lucene's highlighter marks them there; `JSON_RAW` gives them
//! unmarked; `JSON_FULL` gives each value as `{"value": …, "highlight": …}` (the unmarked and
//! the marked text); `XML` gives `<results><result>` with one element per
//! value. `maxResults=0` answers one document `{"count": ["N"], "score": ["1.0"]}`.

use super::dbpedia::{keyword_page, local_name, query_class};
use super::format::escape_into;
use super::params::{bad, languages, Params};
use super::{api, MAX_LIMIT};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

/// The answer formats of the new API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DocsFormat {
    Json,
    JsonRaw,
    JsonFull,
    Xml,
}

/// One document: field name → values, in the order written.
type Document = Vec<(&'static str, Vec<String>)>;

/// `GET /api/search`: the new DBpedia Lookup's request (`query=` without `q=`) here,
/// Lodestone's own by [`api::search`].
pub(super) async fn search_route(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let params = Params::parse(raw.as_deref());
    if params.has("query") && !params.has("q") {
        return search(state, headers, params).await;
    }
    api::search(State(state), headers, RawQuery(raw)).await
}

/// `GET /api/search?query=…` in the new DBpedia Lookup's shape.
async fn search(state: AppState, headers: HeaderMap, params: Params) -> Response {
    let format = match params.get("format").map(|f| f.map(str::to_ascii_uppercase)) {
        Ok(None) => DocsFormat::Json,
        Ok(Some(f)) if f == "JSON" => DocsFormat::Json,
        Ok(Some(f)) if f == "JSON_RAW" => DocsFormat::JsonRaw,
        Ok(Some(f)) if f == "JSON_FULL" => DocsFormat::JsonFull,
        Ok(Some(f)) if f == "XML" => DocsFormat::Xml,
        Ok(Some(_)) => {
            return bad("format", "must be one of JSON, JSON_RAW, JSON_FULL, XML").into_response()
        }
        Err(error) => return error.into_response(),
    };
    let words = params
        .get("query")
        .ok()
        .flatten()
        .map(query_words)
        .unwrap_or_default();
    match documents(&state, &headers, &params).await {
        Ok(docs) => write(&docs, format, &words),
        Err(error) => error.into_response(),
    }
}

async fn documents(
    state: &AppState,
    headers: &HeaderMap,
    params: &Params,
) -> Result<Vec<Document>, ApiError> {
    let text = params.required("query")?.to_owned();
    let prefixes = state.prefixes_read().await?;
    let class = match params.get("typeName")? {
        Some(t) => query_class(&prefixes, Some(t), "typeName")?,
        None => query_class(&prefixes, params.get("QueryClass")?, "QueryClass")?,
    };
    let max_results = params.number("maxResults", 100, 0, MAX_LIMIT)?;
    let langs = languages(params, headers)?;
    let page = keyword_page(state, text, class, langs, max_results.max(1)).await?;
    if max_results == 0 {
        return Ok(vec![vec![
            ("count", vec![page.total.to_string()]),
            ("score", vec!["1.0".to_owned()]),
        ]]);
    }
    Ok(page
        .hits
        .iter()
        .map(|hit| {
            let mut doc: Document = vec![("resource", vec![hit.iri.clone()])];
            if let Some(label) = &hit.label {
                doc.push(("label", vec![label.text.clone()]));
            }
            if let Some(description) = &hit.description {
                doc.push(("comment", vec![description.text.clone()]));
            }
            if !hit.classes.is_empty() {
                doc.push(("type", hit.classes.clone()));
                let names = hit.classes.iter().map(|c| local_name(c).to_owned());
                doc.push(("typeName", names.collect()));
            }
            doc.push(("refCount", vec![hit.in_degree.to_string()]));
            doc.push(("score", vec![hit.score.to_string()]));
            doc
        })
        .collect())
}

/// The words of a query, lower-cased, for [`highlight`].
fn query_words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `text` with each of its words that is one of `words` (ignoring case) marked `<B>…</B>`.
fn highlight(text: &str, words: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(char::is_alphanumeric) {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        let word = &rest[..end];
        if words.contains(&word.to_lowercase()) {
            out.push_str("<B>");
            out.push_str(word);
            out.push_str("</B>");
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn write(docs: &[Document], format: DocsFormat, words: &[String]) -> Response {
    if format == DocsFormat::Xml {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><results>");
        for doc in docs {
            out.push_str("<result>");
            for (field, values) in doc {
                for value in values {
                    out.push_str(&format!("<{field}>"));
                    escape_into(value, &mut out);
                    out.push_str(&format!("</{field}>"));
                }
            }
            out.push_str("</result>");
        }
        out.push_str("</results>");
        let mut response = out.into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/xml; charset=utf-8"),
        );
        return response;
    }
    let docs: Vec<Value> = docs
        .iter()
        .map(|doc| {
            let fields: Map<String, Value> = doc
                .iter()
                .map(|(field, values)| {
                    let marked = |v: &String| match *field {
                        "label" | "comment" => highlight(v, words),
                        _ => v.clone(),
                    };
                    let values: Vec<Value> = values
                        .iter()
                        .map(|v| match format {
                            DocsFormat::JsonFull => json!({"value": v, "highlight": marked(v)}),
                            DocsFormat::Json => json!(marked(v)),
                            DocsFormat::JsonRaw | DocsFormat::Xml => json!(v),
                        })
                        .collect();
                    ((*field).to_owned(), Value::Array(values))
                })
                .collect();
            Value::Object(fields)
        })
        .collect();
    axum::Json(json!({ "docs": docs })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_are_marked_whole_ignoring_case() {
        let words = query_words("david BOWIE");
        assert_eq!(
            highlight("David Bowie (born David Jones), Bowie's", &words),
            "<B>David</B> <B>Bowie</B> (born <B>David</B> Jones), <B>Bowie</B>'s"
        );
        assert_eq!(highlight("Davidson", &words), "Davidson");
    }
}
