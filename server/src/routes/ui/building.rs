//! The page a browser gets from a search while the text index is being built: 503 with
//! `Retry-After` and how far the build is, rather than a page of no results.

use super::{html, layout};
use crate::error::ApiError;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use lodestone_indexer::BuildProgress;
use lodestone_web::ui::building::BuildingPage;

/// The "being built" page for a search for `query` (whose URL is `again`).
pub(super) fn page(
    state: &crate::state::AppState,
    progress: &BuildProgress,
    query: &str,
    again: &str,
) -> Result<Response, ApiError> {
    let page = BuildingPage {
        layout: layout(state, "The text index is being built"),
        progress: progress.describe(),
        remaining: progress.remaining().map(|left| {
            let secs = left.as_secs();
            if secs >= 60 {
                format!("{} min {} s", secs / 60, secs % 60)
            } else {
                format!("{secs} s")
            }
        }),
        query: query.to_owned(),
        retry_href: again.to_owned(),
    };
    let mut response = html(StatusCode::SERVICE_UNAVAILABLE, page.to_html())?;
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(crate::error::retry_after(progress)),
    );
    Ok(response)
}
