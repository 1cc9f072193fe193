//! Cross-origin reads of the read-only routes, as DBpedia Lookup and Virtuoso allow them: a
//! page of any site may call the REST API (`/api/*`), read entity documents (`/resource`,
//! `/page`, `/data`, `/describe`) and post facet queries (`POST /api/facets`,
//! `POST /fct/service`), which change nothing.
//!
//! Their responses (errors included) carry `Access-Control-Allow-Origin: *`, and their
//! preflights (`OPTIONS` with `Access-Control-Request-Method`) are answered here, before
//! routing, with the methods the route takes. No credentials are involved (`*` rules them
//! out), so nothing a browser holds for this site is exposed. `/sparql` and `/store`, which
//! also take writes, have their own policy (reads allowed, writes checked by `Origin`); every
//! other route gets no CORS header at all.

use axum::extract::Request;
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_METHOD,
};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Request headers a cross-origin request may set (beyond the safelisted ones).
const ALLOWED_HEADERS: &str = "accept, accept-language, content-type, if-none-match";
/// Response headers a cross-origin page may read (beyond the safelisted ones): the paging,
/// alternate and revalidation headers of documents.
const EXPOSED_HEADERS: &str = "link, content-location, etag, x-lodestone-truncated";
/// How long a browser may cache a preflight, in seconds.
const MAX_AGE: &str = "3600";

/// The methods a read-only route takes, or `None` for a route outside this policy.
fn read_only_methods(path: &str) -> Option<&'static str> {
    match path {
        "/api/facets" => Some("GET, HEAD, POST"),
        "/fct/service" => Some("POST"),
        "/describe" => Some("GET, HEAD"),
        _ if ["/api/", "/resource/", "/page/", "/data/"]
            .iter()
            .any(|prefix| path.starts_with(prefix)) =>
        {
            Some("GET, HEAD")
        }
        _ => None,
    }
}

/// Answers the preflights of the read-only routes and marks their responses as readable
/// from any origin (a router layer).
pub async fn read_only(request: Request, next: Next) -> Response {
    let Some(methods) = read_only_methods(request.uri().path()) else {
        return next.run(request).await;
    };
    if request.method() == Method::OPTIONS
        && request
            .headers()
            .contains_key(ACCESS_CONTROL_REQUEST_METHOD)
    {
        let mut response = StatusCode::NO_CONTENT.into_response();
        let headers = response.headers_mut();
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
        headers.insert(
            ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(methods),
        );
        headers.insert(
            ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(ALLOWED_HEADERS),
        );
        headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
        return response;
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(
        ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_read_only_routes_are_covered() {
        assert_eq!(read_only_methods("/api/search"), Some("GET, HEAD"));
        assert_eq!(read_only_methods("/api/facets"), Some("GET, HEAD, POST"));
        assert_eq!(read_only_methods("/fct/service"), Some("POST"));
        assert_eq!(read_only_methods("/data/alice.ttl"), Some("GET, HEAD"));
        assert_eq!(read_only_methods("/describe"), Some("GET, HEAD"));
        for other in [
            "/sparql", "/store", "/", "/search", "/status", "/apix", "/fct/",
        ] {
            assert_eq!(read_only_methods(other), None, "{other}");
        }
    }
}
