//! The browsing pages: home `/`, faceted search `/search`, URI lookup `/lookup`, `/status` and
//! `/sparql` for a browser, and their static files.
//!
//! Handlers gather plain values on a blocking thread and hand them to `lodestone_web`, which
//! renders them (escaped) into the shared layout. A page is chosen over a program's format only
//! when the client's `Accept` header ranks `text/html` above that format, so curl and SPARQL
//! clients keep their JSON and results (see [`prefers_html`]).

mod building;
mod home;
mod lookup;
mod names;
mod search;
pub mod sparql;
pub mod status;

use crate::error::ApiError;
use crate::extract::negotiate::AcceptHeader;
use crate::state::AppState;
use axum::extract::Path;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use lodestone_web::{Layout, WebError};

/// The home page and the static files of the browsing pages.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(home::home))
        .route("/search", get(search::search))
        .route("/lookup", get(lookup::lookup))
        .route("/static/{file}", get(asset))
        .route("/favicon.ico", get(favicon))
}

/// The layout of a page with this title (the site name is the entity pages' setting).
pub fn layout(state: &AppState, title: impl Into<String>) -> Layout {
    Layout::new(state.settings().pages.site_name.clone(), "en", title)
}

/// Whether the client ranks `text/html` above every one of `others` (media types a program
/// would get): a browser does, `*/*` does not, and neither does an explicit program type.
pub fn prefers_html(accept: &AcceptHeader, others: &[&str]) -> bool {
    let Some((html, html_specificity)) = accept.quality_of("text/html", &[]) else {
        return false;
    };
    html > 0
        && others
            .iter()
            .all(|other| match accept.quality_of(other, &[]) {
                None => true,
                Some((quality, specificity)) => {
                    html > quality || (html == quality && html_specificity > specificity)
                }
            })
}

/// An HTML response with `status`.
pub fn html(status: StatusCode, page: Result<String, WebError>) -> Result<Response, ApiError> {
    let body = page.map_err(|e| ApiError::Internal(e.to_string()))?;
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    Ok(response)
}

async fn asset(Path(file): Path<String>) -> Response {
    match lodestone_web::ui::assets::by_name(&file) {
        Some((media_type, content)) => {
            let mut response = content.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            response
        }
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// Browsers ask for it on every site; an SVG answers (Chromium and Firefox accept it).
async fn favicon() -> Response {
    let mut response = lodestone_web::ui::assets::FAVICON.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("image/svg+xml"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: [&str; 1] = ["application/json"];

    #[test]
    fn browsers_get_pages_and_programs_get_data() {
        let browser =
            AcceptHeader::parse("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
        assert!(prefers_html(&browser, &PROGRAM));
        assert!(!prefers_html(&AcceptHeader::any(), &PROGRAM));
        assert!(!prefers_html(
            &AcceptHeader::parse("application/json"),
            &PROGRAM
        ));
        assert!(!prefers_html(
            &AcceptHeader::parse("application/json, text/html"),
            &PROGRAM
        ));
        assert!(prefers_html(&AcceptHeader::parse("text/html"), &PROGRAM));
    }
}
