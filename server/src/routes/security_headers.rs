//! The headers that tell a browser what our pages may do, set on every response on its way out.
//!
//! The pages are HTML rendered on the server with stylesheets and one script of this site
//! (`/static/ui.js`), and no inline script, style or event handler. So an HTML response gets a
//! `Content-Security-Policy` that lets a page use only this site's scripts, styles, fetches
//! and form targets, images also from any web address (entity pages show depictions hosted
//! elsewhere), no plugins, no `<base>`, and no framing by any site (`frame-ancestors`,
//! against clickjacking). Should data ever slip markup past the escaping, it still could not
//! run. `Referrer-Policy` gives a site we link to our origin only, not the page's URL, which
//! may hold the words searched for or the query run. Every response, HTML or not, carries
//! `X-Content-Type-Options: nosniff`: an RDF document or a query answer holding markup is
//! never read as HTML.

use axum::http::header::{
    CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;

/// The policy of every HTML response.
pub const POLICY: &str = "default-src 'self'; img-src 'self' http: https:; object-src 'none'; \
                          base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// What links out tell the other site.
pub const REFERRER: &str = "strict-origin-when-cross-origin";

/// Adds the headers to a response (the router's outermost layer).
pub async fn set(mut response: Response) -> Response {
    add(response.headers_mut());
    response
}

/// Adds `nosniff`, and the policy and referrer policy if the headers are an HTML response's.
fn add(headers: &mut HeaderMap) {
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if is_html(headers) {
        headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
        headers.insert(REFERRER_POLICY, HeaderValue::from_static(REFERRER));
    }
}

/// Whether the `Content-Type` is `text/html` (with any parameters, in any case).
fn is_html(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media_type| media_type.trim().eq_ignore_ascii_case("text/html"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(content_type: Option<&'static str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(content_type) = content_type {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        add(&mut headers);
        headers
    }

    #[test]
    fn html_gets_the_policy_and_everything_gets_nosniff() {
        for html in ["text/html; charset=utf-8", "TEXT/HTML"] {
            let headers = added(Some(html));
            assert_eq!(headers[CONTENT_SECURITY_POLICY], POLICY);
            assert_eq!(headers[REFERRER_POLICY], REFERRER);
            assert_eq!(headers[X_CONTENT_TYPE_OPTIONS], "nosniff");
        }
        for other in [Some("text/turtle"), Some("application/json"), None] {
            let headers = added(other);
            assert!(!headers.contains_key(CONTENT_SECURITY_POLICY), "{other:?}");
            assert_eq!(headers[X_CONTENT_TYPE_OPTIONS], "nosniff", "{other:?}");
        }
    }

    #[test]
    fn the_policy_allows_no_inline_code() {
        assert!(!POLICY.contains("unsafe"));
        assert!(POLICY.contains("frame-ancestors 'none'"));
    }
}
