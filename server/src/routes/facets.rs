//! `/api/facets` (JSON or XML; the model's JSON syntax) and `/fct/service` (Virtuoso's
//! Facets Web Service XML).
//!
//! Each handler reads as parse → validate → take a slot → run the engine blocking → write.
//! `GET /api/facets` carries the whole query in its URL, so it can be bookmarked: `q=` holds
//! the JSON query, or flattened parameters describe a root-only query (`text`, `class`,
//! `not-class`, `view`, `view-property`, `limit`, `offset`, `timeout_ms`, `graph`). The answer is JSON
//! unless `format=xml` or `Accept` prefers XML.
//!
//! `/fct/service` answers in Virtuoso's shapes ([`lodestone_facets::fct_xml`]), errors
//! included (`<error>` with an SQLSTATE-like code, the message and Lodestone's error code);
//! `GET /fct`, `/fct/` and `/fct/search?q=` (Virtuoso's browser entry points) lead to the
//! faceted search page.

use crate::error::ApiError;
use crate::extract::negotiate::{AcceptHeader, Offer};
use crate::respond::stream::run_blocking;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use lodestone_facets::fct::parse_service_request;
use lodestone_facets::fct_xml::{fct_error, fct_xml};
use lodestone_facets::json::{parse_flat, parse_query};
use lodestone_facets::model::{FacetQuery, DEFAULT_TIMEOUT};
use lodestone_facets::response::FacetAnswer;
use lodestone_facets::xml::answer_xml;
use std::sync::Arc;
use std::time::Duration;

/// The answer syntaxes of `/api/facets`.
#[derive(Debug, Clone, Copy)]
enum Syntax {
    Json,
    Xml,
}

const OFFERS: [Offer<Syntax>; 3] = [
    Offer::new("application/json", Syntax::Json),
    Offer::new("application/xml", Syntax::Xml),
    Offer::new("text/xml", Syntax::Xml),
];

/// The facet routes.
pub fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/api/facets", get(get_facets).post(post_facets))
        .route("/fct/service", post(fct_service))
        .route("/fct", get(fct_browser))
        .route("/fct/", get(fct_browser))
        .route("/fct/search", get(fct_browser))
        .layer(DefaultBodyLimit::max(state.settings().max_body_bytes))
}

fn bad(message: impl ToString) -> ApiError {
    ApiError::BadRequest(message.to_string())
}

/// The decoded parameters of a query string.
fn query_parameters(raw: Option<String>) -> Vec<(String, String)> {
    form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

/// `format=` from a query string.
fn format_parameter(params: &[(String, String)]) -> Option<&str> {
    params
        .iter()
        .find(|(k, _)| k == "format")
        .map(|(_, v)| v.as_str())
}

fn choose(headers: &HeaderMap, format: Option<&str>) -> Result<Syntax, ApiError> {
    match format {
        Some("json") | Some("application/json") => return Ok(Syntax::Json),
        Some("xml") | Some("application/xml") | Some("text/xml") => return Ok(Syntax::Xml),
        Some(_) => {
            return Err(ApiError::NotAcceptable {
                available: vec!["json".into(), "xml".into()],
            })
        }
        None => {}
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map_or_else(AcceptHeader::any, AcceptHeader::parse);
    accept
        .negotiate(&OFFERS)
        .map(|o| o.value)
        .ok_or_else(|| ApiError::NotAcceptable {
            available: OFFERS.iter().map(|o| o.media_type.to_owned()).collect(),
        })
}

async fn get_facets(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let params = query_parameters(raw);
    let syntax = choose(&headers, format_parameter(&params))?;
    let query = match params.iter().find(|(k, _)| k == "q") {
        Some((_, json)) => {
            if let Some((other, _)) = params.iter().find(|(k, _)| k != "q" && k != "format") {
                return Err(bad(format!(
                    "`{other}` cannot be combined with q=: put everything in the JSON query"
                )));
            }
            parse_query(json).map_err(bad)?
        }
        None => parse_flat(&params).map_err(bad)?,
    };
    let answer = run(&state, query).await?;
    write(&answer, syntax)
}

async fn post_facets(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let params = query_parameters(raw);
    let syntax = choose(&headers, format_parameter(&params))?;
    let text = std::str::from_utf8(&body).map_err(|_| bad("the body is not UTF-8"))?;
    let query = parse_query(text).map_err(bad)?;
    let answer = run(&state, query).await?;
    write(&answer, syntax)
}

/// The answer syntaxes of `/fct/service`: its XML only.
const FCT_OFFERS: [Offer<()>; 2] = [
    Offer::new("text/xml", ()),
    Offer::new("application/xml", ()),
];

async fn fct_service(State(state): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let answered = async {
        refuse_what_virtuoso_reads_and_we_do_not(&headers)?;
        let request = parse_service_request(&body).map_err(bad)?;
        let answer = run(&state, request.query).await?;
        let prefixes = state.prefixes_read().await?;
        fct_xml(&answer, &request.view_type, &|iri| prefixes.compact(iri))
            .map_err(|e| ApiError::Internal(format!("writing XML failed: {e}")))
    }
    .await;
    match answered {
        Ok(xml) => xml_response(xml),
        Err(error) => fct_error_response(&error),
    }
}

/// Virtuoso's service also reads JSON requests (its `json2xml`) and answers SPARQL results
/// to a client that accepts only JSON; this one reads and writes its XML only, and says so
/// rather than answering something else.
fn refuse_what_virtuoso_reads_and_we_do_not(headers: &HeaderMap) -> Result<(), ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if content_type.to_ascii_lowercase().contains("json") {
        return Err(ApiError::UnsupportedMediaType {
            found: content_type.to_owned(),
            supported: vec!["text/xml".into(), "application/xml".into()],
        });
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map_or_else(AcceptHeader::any, AcceptHeader::parse);
    if accept.negotiate(&FCT_OFFERS).is_none() {
        return Err(ApiError::NotAcceptable {
            available: FCT_OFFERS.iter().map(|o| o.media_type.to_owned()).collect(),
        });
    }
    Ok(())
}

/// An error as Virtuoso's service writes it: `<error>` with an SQLSTATE-like `code`
/// (`22023` for a request refused, `S1TAT` for a time budget spent, `HY000` otherwise),
/// the `message`, and Lodestone's error code as `diagnostics`; the HTTP status is the one
/// the error has everywhere.
fn fct_error_response(error: &ApiError) -> Response {
    let (code, status) = error.code_and_status();
    let sqlstate = match error {
        ApiError::Timeout(_) => "S1TAT",
        _ if status.is_client_error() => "22023",
        _ => "HY000",
    };
    let message = match error {
        ApiError::Internal(_) => "internal error; the details are in the server log".to_owned(),
        other => other.to_string(),
    };
    let mut response = xml_response(fct_error(sqlstate, &message, code));
    *response.status_mut() = status;
    response
}

/// `GET /fct`, `/fct/` and `/fct/search?q=…`: Virtuoso's faceted browser lives at
/// `/search` here (`q` is carried over).
async fn fct_browser(RawQuery(raw): RawQuery) -> Response {
    let params = query_parameters(raw);
    let target = match params
        .iter()
        .find(|(k, v)| k == "q" && !v.trim().is_empty())
    {
        Some((_, q)) => format!(
            "/search?{}",
            form_urlencoded::Serializer::new(String::new())
                .append_pair("q", q)
                .finish()
        ),
        None => "/search".to_owned(),
    };
    Redirect::to(&target).into_response()
}

/// Validates and answers a query within its budget (the server's limit caps `timeout_ms`).
async fn run(state: &AppState, query: FacetQuery) -> Result<Arc<FacetAnswer>, ApiError> {
    query.validate().map_err(bad)?;
    let limit = state.settings().query_timeout;
    let budget: Duration = query.timeout.unwrap_or(DEFAULT_TIMEOUT).min(limit);
    let permit = state.try_permit()?;
    let store = Arc::clone(state.store());
    let engine = state.facets().clone();
    let index = state.text_index().cloned();
    // The engine stops itself at the budget; the slot is held for a little longer so that
    // labels and writing the page can finish.
    run_blocking(state, permit, budget + Duration::from_secs(1), move |_| {
        crate::text_index::require_ready_for_facets(index.as_ref(), &store, &query)?;
        engine
            .answer(&store, &query, budget)
            .map_err(|e| ApiError::from_facets(e, budget))
    })
    .await
}

fn xml_response(xml: Vec<u8>) -> Response {
    let mut response = xml.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml; charset=utf-8"),
    );
    response
}

fn write(answer: &FacetAnswer, syntax: Syntax) -> Result<Response, ApiError> {
    Ok(match syntax {
        Syntax::Json => axum::Json(answer.to_json()).into_response(),
        Syntax::Xml => xml_response(
            answer_xml(answer)
                .map_err(|e| ApiError::Internal(format!("writing XML failed: {e}")))?,
        ),
    })
}
