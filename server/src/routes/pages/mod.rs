//! Entity pages and documents: dereferenceable IRIs with content negotiation.
//!
//! - `GET /resource/{path}`: the IRI `{base}{path}`; 303 to `/page/{path}` (HTML) or
//!   `/data/{path}.{ext}` (RDF), or the representation itself with `Content-Location` when
//!   the server is set to answer in place;
//! - `GET /page/{path}`: the HTML page (RDFa included);
//! - `GET /data/{path}.{ext}`: one RDF syntax; `/data/{path}` negotiates among them;
//! - `GET /describe?uri=IRI[&format=]`: the same for any IRI of the store.
//!
//! An IRI the store does not use but that is the document of hash IRIs (`{iri}#…`) answers
//! with those resources (see `hash_document`), at `/resource/…` in place; an IRI the store
//! uses is redirected like any other, its RDF documents covering its hash IRIs too.
//!
//! Every route takes `page=` (documents longer than one page are paged, with `Link:
//! rel="next"`), `lang=` (label languages), `format=` (overrides `Accept`). Responses carry
//! `Vary`, `Link: rel="alternate"` for every format, and an `ETag` / `Last-Modified` taken
//! from the store's last commit, so a client revalidates with `If-None-Match` and gets 304.
//! Paths arrive percent-encoded; the IRI is looked up as written, then percent-decoded, so
//! IRIs with non-ASCII characters round-trip exactly.

mod describe;
mod document;
mod hash_document;
mod respond;

use crate::error::ApiError;
use crate::extract::negotiate::AcceptHeader;
use crate::extract::representation::{self, Representation};
use crate::extract::sparql::{accept_header, parse_pairs};
use crate::routes::ui;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use document::DocumentRequest;
use lodestone_web::assets::{STYLESHEET, STYLESHEET_PATH};
use lodestone_web::{LanguageChain, Linker, NotFoundPage};
use percent_encoding::percent_decode_str;

/// The entity routes and the stylesheet.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/resource/{*path}", get(resource))
        .route("/page/{*path}", get(page))
        .route("/data/{*path}", get(data))
        .route("/describe", get(describe_any))
        .route(STYLESHEET_PATH, get(stylesheet))
}

/// Query parameters common to the document routes.
#[derive(Debug, Default)]
struct Params {
    uri: Option<String>,
    format: Option<String>,
    lang: Option<String>,
    page: Option<u64>,
}

impl Params {
    fn parse(uri: &Uri) -> Result<Self, ApiError> {
        let mut params = Self::default();
        for (key, value) in uri
            .query()
            .map(|q| parse_pairs(q.as_bytes()))
            .unwrap_or_default()
        {
            match key.as_str() {
                // `url=` is Virtuoso's name of the parameter of its `/describe`.
                "uri" | "url" if params.uri.is_none() => params.uri = Some(value),
                "format" => params.format = Some(value),
                "lang" => params.lang = Some(value),
                "page" => {
                    let page = value.parse().ok().filter(|p| *p >= 1).ok_or_else(|| {
                        ApiError::BadRequest(format!(
                            "page: {value:?} is not a page number (1, 2, …)"
                        ))
                    })?;
                    params.page = Some(page);
                }
                _ => {}
            }
        }
        Ok(params)
    }
}

/// The base IRI of entity IRIs: the configured one, else `http://{Host}/resource/`.
fn base_iri(state: &AppState, headers: &HeaderMap) -> Result<String, ApiError> {
    if let Some(base) = &state.settings().base_iri {
        return Ok(base.clone());
    }
    Ok(format!("{}/resource/", origin(headers)?))
}

/// This server as the client addressed it: `http://{Host}`.
fn origin(headers: &HeaderMap) -> Result<String, ApiError> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_graphic() && !b"/?#@".contains(&b))
        })
        .ok_or_else(|| {
            ApiError::BadRequest(
                "a Host header naming this server is required (or configure --base-iri)".into(),
            )
        })?;
    Ok(format!("http://{host}"))
}

/// The IRIs a path may stand for: as written, then percent-decoded (if that differs).
fn candidates(base: &str, raw: &str) -> Vec<String> {
    let mut out = vec![format!("{base}{raw}")];
    if let Ok(decoded) = percent_decode_str(raw).decode_utf8() {
        if decoded != raw {
            out.push(format!("{base}{decoded}"));
        }
    }
    out
}

fn chain(state: &AppState, headers: &HeaderMap, params: &Params) -> LanguageChain {
    let accept_language = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    LanguageChain::from_request(
        params.lang.as_deref(),
        accept_language,
        &state.settings().pages.labels.default_language,
    )
}

fn request(
    state: &AppState,
    headers: &HeaderMap,
    params: &Params,
    candidates: Vec<String>,
    representation: Representation,
) -> Result<DocumentRequest, ApiError> {
    Ok(DocumentRequest {
        candidates,
        representation,
        page: params.page,
        page_size: state.settings().pages.page_size,
        // Only a paged document needs it (its paging statements name absolute URLs).
        origin: origin(headers).ok(),
        linker: Linker::new(base_iri(state, headers)?),
        chain: chain(state, headers, params),
        if_none_match: header_text(headers, header::IF_NONE_MATCH),
        if_modified_since: header_text(headers, header::IF_MODIFIED_SINCE),
        content_location: None,
        whole_document: true,
    })
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

async fn resource(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = resource_answer(&state, &uri, &headers).await;
    not_found_page(&state, &headers, answer)
}

async fn resource_answer(
    state: &AppState,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let raw = uri
        .path()
        .strip_prefix("/resource/")
        .unwrap_or_default()
        .to_owned();
    let params = Params::parse(uri)?;
    let representation =
        representation::choose(&accept_header(headers), params.format.as_deref(), false)?;
    let base = base_iri(state, headers)?;
    let mut document = request(
        state,
        headers,
        &params,
        candidates(&base, &raw),
        representation,
    )?;
    let target = match representation {
        Representation::Html => format!("/page/{raw}"),
        Representation::Rdf(_) => format!("/data/{raw}.{}", representation.suffix()),
    };
    let target = with_page(&target, params.page);
    let in_place = state.settings().pages.resource_in_place
        // A document of hash IRIs whose own IRI is not used needs no redirect: it is what
        // the client asked for, and no other resource it could be mistaken for.
        || matches!(
            respond::ensure_exists(state, &document.candidates)?,
            respond::Found::HashDocument
        );
    if in_place {
        document.content_location = Some(target);
        return respond::document(state, document).await;
    }
    let mut response = StatusCode::SEE_OTHER.into_response();
    let location = HeaderValue::try_from(target)
        .map_err(|e| ApiError::Internal(format!("redirect target: {e}")))?;
    response.headers_mut().insert(header::LOCATION, location);
    Ok(response)
}

async fn page(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = page_answer(&state, &uri, &headers).await;
    not_found_page(&state, &headers, answer)
}

async fn page_answer(
    state: &AppState,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let raw = uri.path().strip_prefix("/page/").unwrap_or_default();
    let params = Params::parse(uri)?;
    let base = base_iri(state, headers)?;
    // The page is HTML whatever `Accept` says; `format=` names another representation, which
    // is answered here, its own URL in `Content-Location`.
    let representation = match &params.format {
        Some(format) => Representation::from_format_param(format)?,
        None => Representation::Html,
    };
    let mut document = request(
        state,
        headers,
        &params,
        candidates(&base, raw),
        representation,
    )?;
    if representation != Representation::Html {
        document.content_location = Some(with_page(
            &format!("/data/{raw}.{}", representation.suffix()),
            params.page,
        ));
    }
    respond::document(state, document).await
}

async fn data(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = data_answer(&state, &uri, &headers).await;
    not_found_page(&state, &headers, answer)
}

async fn data_answer(
    state: &AppState,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let raw = uri.path().strip_prefix("/data/").unwrap_or_default();
    let params = Params::parse(uri)?;
    let base = base_iri(state, headers)?;
    let suffixed = raw
        .rsplit_once('.')
        .filter(|(_, ext)| !ext.contains('/'))
        .and_then(|(stem, ext)| Some((stem, Representation::from_suffix(ext)?)))
        .filter(|(_, r)| *r != Representation::Html);
    // A known suffix names the format; the IRI without the suffix is tried first, then the
    // whole path (an IRI may itself end in `.ttl`), negotiated.
    let negotiated =
        || representation::choose(&accept_header(headers), params.format.as_deref(), true);
    let (mut candidates, representation, content_location) = match suffixed {
        Some((stem, representation)) => {
            let representation = match &params.format {
                Some(_) => negotiated()?,
                None => representation,
            };
            (candidates(&base, stem), representation, None)
        }
        None => {
            let representation = negotiated()?;
            let location = with_page(
                &format!("/data/{raw}.{}", representation.suffix()),
                params.page,
            );
            (candidates(&base, raw), representation, Some(location))
        }
    };
    if suffixed.is_some() {
        candidates.extend(self::candidates(&base, raw));
    }
    let mut document = request(state, headers, &params, candidates, representation)?;
    document.content_location = content_location;
    respond::document(state, document).await
}

async fn describe_any(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = describe_any_answer(&state, &uri, &headers).await;
    not_found_page(&state, &headers, answer)
}

async fn describe_any_answer(
    state: &AppState,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let params = Params::parse(uri)?;
    let iri = params.uri.clone().ok_or_else(|| {
        ApiError::BadRequest("give the resource as ?uri=IRI (or ?url=IRI)".into())
    })?;
    oxrdf::NamedNode::new(iri.as_str())
        .map_err(|e| ApiError::BadRequest(format!("uri: {iri:?} is not an absolute IRI: {e}")))?;
    let accept: AcceptHeader = accept_header(headers);
    let representation = representation::choose(&accept, params.format.as_deref(), false)?;
    let mut document = request(state, headers, &params, vec![iri.clone()], representation)?;
    document.whole_document = false;
    if params.format.is_none() {
        let pairs = [("uri", iri.as_str()), ("format", representation.suffix())];
        document.content_location = Some(with_page(
            &format!("/describe?{}", lodestone_web::links::query(&pairs)),
            params.page,
        ));
    }
    respond::document(state, document).await
}

/// A browser (a client that ranks HTML above JSON) asking for an entity the store does not
/// know gets an HTML 404 page; any other client, and any other error, the JSON error.
fn not_found_page(
    state: &AppState,
    headers: &HeaderMap,
    answer: Result<Response, ApiError>,
) -> Result<Response, ApiError> {
    match answer {
        Err(ApiError::EntityNotFound(iri))
            if ui::prefers_html(&accept_header(headers), &["application/json"]) =>
        {
            let page = NotFoundPage::new(ui::layout(state, "Not found"), &iri);
            ui::html(StatusCode::NOT_FOUND, page.to_html())
        }
        other => other,
    }
}

/// Appends `page=` to a link when a page is given.
fn with_page(link: &str, page: Option<u64>) -> String {
    match page {
        None => link.to_owned(),
        Some(page) if link.contains('?') => format!("{link}&page={page}"),
        Some(page) => format!("{link}?page={page}"),
    }
}

async fn stylesheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        STYLESHEET,
    )
        .into_response()
}
