//! Stored XSS through IRIs (issue 27): an IRI is data, and `javascript:`, `data:` or
//! `vbscript:` IRIs once became clickable links and image sources. Every panel of an entity
//! page, and every browsing page that shows IRIs, is checked: a link or image leads out only
//! to `http(s)` (links also to `mailto`), anything else stays on this site. And every HTML
//! response carries the headers that keep a page from running or framing what it did not ask
//! for.

use crate::common::{client, header, load};
use crate::indexed::IndexedServer;
use crate::support::BASE;
use lodestone_server::settings::ServerSettings;
use reqwest::blocking::Response;
use std::time::Duration;

/// IRIs a browser would run or render as a document of this site if they were links. The data
/// URL is percent-encoded: `<` cannot be in an IRI, and browsers decode it all the same.
const SCRIPT_IRIS: [&str; 4] = [
    "javascript:alert(1)",
    "data:text/html,%3Cscript%3Ealert(1)%3C/script%3E",
    "vbscript:msgbox(1)",
    "JaVaScRiPt:alert(1)",
];

/// The entity under the base (served at `/page/victim`) and one outside it (`/describe`).
const VICTIMS: [&str; 2] = [
    "http://example.org/resource/victim",
    "http://other.example/victim",
];

/// Each victim has every script IRI as a value, an `owl:sameAs` partner, a class, a
/// predicate and a depiction, none of them described here (no statement has them as
/// subject), next to an `http` link, an `https` depiction and a `mailto` link.
fn data() -> String {
    let mut trig = String::from(
        "@prefix v: <http://example.org/vocab/> .\n\
         @prefix owl: <http://www.w3.org/2002/07/owl#> .\n\
         @prefix foaf: <http://xmlns.com/foaf/0.1/> .\n\
         @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n",
    );
    for victim in VICTIMS {
        trig.push_str(&format!(
            "<{victim}> rdfs:label \"Victim\" ; v:link <http://elsewhere.example/ok> ;\n\
             foaf:depiction <https://images.example/ok.png> ; v:mail <mailto:someone@example.org> .\n"
        ));
        for iri in SCRIPT_IRIS {
            trig.push_str(&format!(
                "<{victim}> v:link <{iri}> ; owl:sameAs <{iri}> ; a <{iri}> ; <{iri}> \"a value\" ;\n\
                 foaf:depiction <{iri}> .\n"
            ));
        }
    }
    trig
}

/// A server over [`data`] with its text index (the search and lookup pages need one).
struct Server(IndexedServer);

impl Server {
    fn start() -> Self {
        let settings = ServerSettings::default().with_base_iri(BASE);
        Self(IndexedServer::start(
            settings,
            Duration::from_secs(60),
            |store| load(store, &data()),
        ))
    }

    /// GET `path` as a browser asks for pages.
    fn page(&self, path: &str) -> Response {
        client()
            .get(format!("{}{path}", self.0.base))
            .header("Accept", "text/html")
            .send()
            .expect("request")
    }

    /// The HTML of `path`, which must answer 200.
    fn html(&self, path: &str) -> String {
        let response = self.page(path);
        assert_eq!(response.status(), 200, "{path}");
        response.text().expect("html")
    }
}

/// `/describe?uri=…` for an IRI.
fn describe(iri: &str) -> String {
    format!("/describe?{}", query("uri", iri))
}

/// Every page that shows the victims' IRIs.
fn pages() -> Vec<String> {
    let mut pages = vec!["/page/victim".to_owned(), describe(VICTIMS[1])];
    for victim in VICTIMS {
        pages.push(format!("/lookup?{}", query("uri", victim)));
    }
    pages.extend(
        [
            "/",
            "/search?q=victim",
            "/lookup?q=victim",
            "/sparql?query=SELECT%20*%20WHERE%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D",
        ]
        .map(str::to_owned),
    );
    pages
}

/// `key=value`, form-encoded.
fn query(key: &str, value: &str) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair(key, value)
        .finish()
}

/// The values of every `name="…"` attribute in `html`, character references decoded.
fn attributes(html: &str, name: &str) -> Vec<String> {
    let opening = format!(" {name}=\"");
    html.match_indices(&opening)
        .filter_map(|(at, _)| {
            let rest = &html[at + opening.len()..];
            rest.find('"').map(|end| decode(&rest[..end]))
        })
        .collect()
}

/// Decodes the character references askama writes (`&#60;`, `&#x3c;`, `&amp;`…).
fn decode(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';') else { break };
        let reference = &rest[1..end];
        let decoded = match reference {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "apos" => Some('\''),
            _ => reference
                .strip_prefix("#x")
                .or_else(|| reference.strip_prefix("#X"))
                .map(|hex| u32::from_str_radix(hex, 16))
                .or_else(|| reference.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The scheme a browser reads from a URL (lower case), or `None` for a relative URL: leading
/// spaces and controls are dropped, tabs and newlines anywhere are ignored (WHATWG URL).
fn scheme(url: &str) -> Option<String> {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

#[test]
fn script_iris_are_never_links_or_images() {
    let server = Server::start();
    for path in pages() {
        let html = server.html(&path);
        for (attribute, allowed) in [
            ("href", &["http", "https", "mailto"][..]),
            ("src", &["http", "https"][..]),
            ("action", &[][..]),
        ] {
            for url in attributes(&html, attribute) {
                if let Some(scheme) = scheme(&url) {
                    assert!(
                        allowed.contains(&scheme.as_str()),
                        "{path}: {attribute}=\"{url}\"\n{html}"
                    );
                }
            }
        }
    }
}

#[test]
fn web_iris_stay_links_and_script_iris_link_to_their_page_here() {
    let server = Server::start();
    for path in ["/page/victim".to_owned(), describe(VICTIMS[1])] {
        let html = server.html(&path);
        let hrefs = attributes(&html, "href");
        let sources = attributes(&html, "src");
        assert!(
            hrefs.iter().any(|h| h == "http://elsewhere.example/ok"),
            "{path}"
        );
        assert!(
            hrefs.iter().any(|h| h == "mailto:someone@example.org"),
            "{path}"
        );
        assert_eq!(sources, ["https://images.example/ok.png"], "{path}");
        for iri in SCRIPT_IRIS {
            assert!(
                hrefs.contains(&describe(iri)),
                "{path}: no link to the page of {iri}\n{html}"
            );
        }
    }
    // The page a script IRI links to exists: the IRI is used here, if only as an object.
    for iri in SCRIPT_IRIS {
        let html = server.html(&describe(iri));
        assert!(html.contains("/page/victim"), "{iri}");
    }
}

#[test]
fn html_responses_carry_the_security_headers() {
    let server = Server::start();
    let mut html = pages();
    html.extend(["/status".to_owned(), describe(SCRIPT_IRIS[0])]);
    for path in html {
        let response = server.page(&path);
        assert!(
            header(&response, "content-type").starts_with("text/html"),
            "{path}"
        );
        let policy = header(&response, "content-security-policy");
        for directive in [
            "default-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ] {
            assert!(policy.contains(directive), "{path}: {policy:?}");
        }
        assert!(!policy.contains("unsafe"), "{path}: {policy:?}");
        assert_eq!(
            header(&response, "x-content-type-options"),
            "nosniff",
            "{path}"
        );
        assert!(!header(&response, "referrer-policy").is_empty(), "{path}");
    }
    // Other responses are not sniffed into HTML either.
    for (path, accept) in [
        ("/data/victim.ttl", "text/turtle"),
        ("/sparql?query=ASK%7B%7D", "application/sparql-results+json"),
        ("/static/ui.js", "*/*"),
    ] {
        let response = client()
            .get(format!("{}{path}", server.0.base))
            .header("Accept", accept)
            .send()
            .expect("request");
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            header(&response, "x-content-type-options"),
            "nosniff",
            "{path}"
        );
    }
}
