//! Who may write: the update policy, the bearer token and the same-site rule.
//!
//! Every write (SPARQL Update, Graph Store PUT/POST/DELETE) passes [`authorize_write`]:
//! refused with 403 when the server accepts no writes, refused with 403 when a browser sends
//! it from a page of another site (its `Origin` differs from the `Host` it is sent to — CORS is
//! offered for queries only, and this also stops form posts, which browsers send cross-site
//! without asking), and refused with 401 without the right `Authorization: Bearer` token.
//! Clients that are not browsers send no `Origin` and are not affected by the second rule.
//! Without a token (`--open-updates`), a write must also be addressed to one of the server's
//! own names ([`ServerSettings::public_hosts`]), which stops DNS rebinding.

use crate::error::ApiError;
use crate::settings::{ServerSettings, UpdatePolicy};
use axum::http::{header, HeaderMap};

/// Checks that the request may change data.
pub fn authorize_write(settings: &ServerSettings, headers: &HeaderMap) -> Result<(), ApiError> {
    if settings.updates == UpdatePolicy::Disabled {
        return Err(ApiError::UpdatesDisabled);
    }
    check_same_site(headers)?;
    match &settings.updates {
        UpdatePolicy::Open => check_host(headers, &settings.public_hosts),
        UpdatePolicy::Token(expected) => match bearer_token(headers) {
            Some(token) if constant_time_eq(token.as_bytes(), expected.as_bytes()) => Ok(()),
            _ => Err(ApiError::Unauthorized),
        },
        UpdatePolicy::Disabled => Err(ApiError::UpdatesDisabled),
    }
}

/// The token of an `Authorization: Bearer <token>` header.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Compares without an early exit, so that timing does not tell how much of a guess matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Refuses an open write addressed to a name that is not the server's.
///
/// A page on `evil.example` whose name the attacker re-points at this server's address (DNS
/// rebinding) is same-site with itself, so the `Origin` rule lets it through; without a token
/// only the `Host` tells such a write apart. IP addresses and `localhost` are always this
/// server's names; others must be listed in `public_hosts`.
fn check_host(headers: &HeaderMap, public_hosts: &[String]) -> Result<(), ApiError> {
    // Browsers always send `Host`; a client without one is not a page being rebound.
    let Some(host) = headers.get(header::HOST) else {
        return Ok(());
    };
    let host = host.to_str().unwrap_or_default();
    if is_own_name(host, public_hosts) {
        Ok(())
    } else {
        Err(ApiError::Forbidden(format!(
            "writes without a token are accepted only when addressed to this server by IP \
             address, localhost or a name listed in --public-hosts, not {host:?}"
        )))
    }
}

/// Whether a `Host` header (`name[:port]`, `[v6]:port`) names this server.
fn is_own_name(host: &str, public_hosts: &[String]) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let name = match host.strip_prefix('[') {
        Some(v6) => {
            return v6
                .split(']')
                .next()
                .is_some_and(|ip| ip.parse::<std::net::Ipv6Addr>().is_ok())
        }
        None => host
            .rsplit_once(':')
            .map_or(host.as_str(), |(name, _)| name),
    };
    let name = name.trim_end_matches('.');
    name == "localhost"
        || name.parse::<std::net::Ipv4Addr>().is_ok()
        || public_hosts.iter().any(|p| p.trim_end_matches('.') == name)
}

/// Refuses a request whose `Origin` is not the server it is sent to.
fn check_same_site(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("<not text>");
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if host.is_some_and(|host| same_site(origin, host)) {
        Ok(())
    } else {
        Err(ApiError::CrossSiteWrite(origin.to_owned()))
    }
}

/// Whether an `Origin` (`scheme://host[:port]`) names the authority in a `Host` header.
fn same_site(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        // `null` (sandboxed frames, file: pages) and anything odd.
        return false;
    };
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let normalize = |a: &str| {
        let a = a.trim().trim_end_matches('/').to_ascii_lowercase();
        match a.strip_suffix(default_port) {
            Some(stripped) => stripped.to_owned(),
            None => a,
        }
    };
    normalize(authority) == normalize(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn own_names() {
        let public = vec!["data.example.org".to_owned()];
        assert!(is_own_name("127.0.0.1:7171", &public));
        assert!(is_own_name("[::1]:7171", &public));
        assert!(is_own_name("LOCALHOST", &public));
        assert!(is_own_name("data.example.org:8080", &public));
        assert!(!is_own_name("evil.example:7171", &public));
        assert!(!is_own_name("", &public));
        let open = ServerSettings::default().with_open_updates();
        let rebound = headers(&[
            (header::HOST, "evil.example:7171"),
            (header::ORIGIN, "http://evil.example:7171"),
        ]);
        assert!(matches!(
            authorize_write(&open, &rebound),
            Err(ApiError::Forbidden(_))
        ));
        let local = headers(&[(header::HOST, "127.0.0.1:7171")]);
        assert!(authorize_write(&open, &local).is_ok());
    }

    #[test]
    fn origins() {
        assert!(same_site("http://127.0.0.1:7171", "127.0.0.1:7171"));
        assert!(same_site("http://Example.org", "example.org:80"));
        assert!(same_site("https://example.org:443", "example.org"));
        assert!(!same_site("http://evil.example", "example.org"));
        assert!(!same_site("http://127.0.0.1:7172", "127.0.0.1:7171"));
        assert!(!same_site("null", "127.0.0.1:7171"));
    }

    #[test]
    fn policies() {
        let token = ServerSettings::default().with_update_token("t0k");
        let ok = headers(&[(header::AUTHORIZATION, "Bearer t0k")]);
        assert!(authorize_write(&token, &ok).is_ok());
        let lower = headers(&[(header::AUTHORIZATION, "bearer t0k")]);
        assert!(authorize_write(&token, &lower).is_ok());
        let wrong = headers(&[(header::AUTHORIZATION, "Bearer t0K")]);
        assert!(matches!(
            authorize_write(&token, &wrong),
            Err(ApiError::Unauthorized)
        ));
        let basic = headers(&[(header::AUTHORIZATION, "Basic t0k")]);
        assert!(matches!(
            authorize_write(&token, &basic),
            Err(ApiError::Unauthorized)
        ));
        assert!(matches!(
            authorize_write(&token, &HeaderMap::new()),
            Err(ApiError::Unauthorized)
        ));
        let cross = headers(&[
            (header::AUTHORIZATION, "Bearer t0k"),
            (header::ORIGIN, "http://evil.example"),
            (header::HOST, "127.0.0.1:7171"),
        ]);
        assert!(matches!(
            authorize_write(&token, &cross),
            Err(ApiError::CrossSiteWrite(_))
        ));
        let open = ServerSettings::default().with_open_updates();
        assert!(authorize_write(&open, &HeaderMap::new()).is_ok());
        let disabled = ServerSettings::default();
        assert!(matches!(
            authorize_write(&disabled, &ok),
            Err(ApiError::UpdatesDisabled)
        ));
    }
}
