//! Where a link to a resource points, and how an IRI is written into a URL.
//!
//! IRIs under the base IRI get `/page/{rest}`; other IRIs that the store describes get
//! `/describe?uri=…`; anything else links to the IRI itself, but only when it is a web
//! address (`http`, `https`, `mailto`). An IRI is data: `javascript:`, `data:` or `vbscript:`
//! (any case) would run script in the reader's browser if followed, so an IRI of any other
//! scheme links to its page here (`/describe?uri=…`), which exists for every IRI the store
//! uses and shows what points at it. Images load only over `http` and `https`. Paths carry
//! the IRI's characters with only what a URI cannot hold percent-encoded (RFC 3987 §3.1:
//! non-ASCII characters as UTF-8 octets, plus space, quotes, angle brackets and the like), so
//! `Zürich` travels as `Z%C3%BCrich` and the server maps it back to the exact IRI.

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};

/// Characters percent-encoded in a path segment taken from an IRI (everything non-ASCII is
/// encoded by the encoder itself). `%` is kept: an IRI's own escapes stay as they are.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Schemes of the IRIs a page links to directly (compared ignoring case).
const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Schemes of the IRIs a page loads as images (compared ignoring case).
const IMAGE_SCHEMES: [&str; 2] = ["http", "https"];

/// Builds the links of one site.
#[derive(Debug, Clone)]
pub struct Linker {
    base_iri: String,
}

impl Linker {
    /// Links for a site whose entity IRIs start with `base_iri` (e.g. `http://host/resource/`).
    pub fn new(base_iri: impl Into<String>) -> Self {
        Self {
            base_iri: base_iri.into(),
        }
    }

    /// The base IRI.
    pub fn base_iri(&self) -> &str {
        &self.base_iri
    }

    /// The part of an IRI after the base, when the IRI can be served under `/page/` and
    /// `/data/` (under the base, not empty, no query or fragment).
    pub fn local_path<'a>(&self, iri: &'a str) -> Option<&'a str> {
        iri.strip_prefix(self.base_iri.as_str())
            .filter(|rest| !rest.is_empty() && !rest.contains(['?', '#']))
    }

    /// The HTML page of a resource the store describes.
    pub fn page(&self, iri: &str) -> String {
        match self.local_path(iri) {
            Some(rest) => format!("/page/{}", encode_path(rest)),
            None => format!("/describe?{}", query(&[("uri", iri)])),
        }
    }

    /// An RDF document of a resource, `ext` being the file suffix of the format.
    pub fn data(&self, iri: &str, ext: &str) -> String {
        match self.local_path(iri) {
            Some(rest) => format!("/data/{}.{ext}", encode_path(rest)),
            None => format!("/describe?{}", query(&[("uri", iri), ("format", ext)])),
        }
    }

    /// Where a link to an IRI goes: its page if the store describes it, else the IRI itself
    /// (written as a URI) if it is a web address, else its page here all the same.
    pub fn href(&self, iri: &str, described: bool) -> String {
        if described || !is_link_target(iri) {
            self.page(iri)
        } else {
            encode_path(iri)
        }
    }
}

/// Whether a page may link to `iri` itself: an `http`, `https` or `mailto` IRI.
pub fn is_link_target(iri: &str) -> bool {
    has_scheme(iri, &LINK_SCHEMES)
}

/// Whether a page may load `iri` as an image: an `http` or `https` IRI.
pub fn is_image_source(iri: &str) -> bool {
    has_scheme(iri, &IMAGE_SCHEMES)
}

/// Whether `iri` starts with one of `schemes` and a colon, in any case. Nothing precedes the
/// scheme: an IRI with leading spaces or controls (which a browser would strip) matches none.
fn has_scheme(iri: &str, schemes: &[&str]) -> bool {
    iri.split_once(':').is_some_and(|(scheme, _)| {
        schemes
            .iter()
            .any(|allowed| scheme.eq_ignore_ascii_case(allowed))
    })
}

/// Percent-encodes what a URI cannot hold (non-ASCII, space, quotes…), leaving `/`, `%`,
/// `?`, `#` and the other delimiters as they are.
pub fn encode_path(text: &str) -> String {
    utf8_percent_encode(text, PATH).to_string()
}

/// A query string (`a=1&b=2`) with form encoding.
pub fn query(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iris_under_the_base_get_pages() {
        let linker = Linker::new("http://h/resource/");
        assert_eq!(linker.page("http://h/resource/Zürich"), "/page/Z%C3%BCrich");
        assert_eq!(linker.data("http://h/resource/a/b", "ttl"), "/data/a/b.ttl");
        assert_eq!(
            linker.page("http://h/resource/doc#me"),
            "/describe?uri=http%3A%2F%2Fh%2Fresource%2Fdoc%23me"
        );
        assert_eq!(
            linker.data("http://other/x", "nt"),
            "/describe?uri=http%3A%2F%2Fother%2Fx&format=nt"
        );
        assert_eq!(
            linker.page("http://h/resource/"),
            "/describe?uri=http%3A%2F%2Fh%2Fresource%2F"
        );
    }

    #[test]
    fn external_iris_link_to_themselves_as_uris() {
        let linker = Linker::new("http://h/resource/");
        assert_eq!(
            linker.href("http://x/é?a=1#f", false),
            "http://x/%C3%A9?a=1#f"
        );
        assert_eq!(linker.href("http://x/%41", false), "http://x/%41");
        assert_eq!(linker.href("HTTPS://x/", false), "HTTPS://x/");
        assert_eq!(
            linker.href("mailto:a@example.org", false),
            "mailto:a@example.org"
        );
    }

    #[test]
    fn other_schemes_link_to_their_page_here() {
        let linker = Linker::new("http://h/resource/");
        for (iri, page) in [
            (
                "javascript:alert(1)",
                "/describe?uri=javascript%3Aalert%281%29",
            ),
            (
                "JaVaScRiPt:alert(1)",
                "/describe?uri=JaVaScRiPt%3Aalert%281%29",
            ),
            (
                "vbscript:msgbox(1)",
                "/describe?uri=vbscript%3Amsgbox%281%29",
            ),
            (
                "data:text/html,%3Cscript%3E",
                "/describe?uri=data%3Atext%2Fhtml%2C%253Cscript%253E",
            ),
            (" javascript:x", "/describe?uri=+javascript%3Ax"),
            (
                "urn:isbn:0451450523",
                "/describe?uri=urn%3Aisbn%3A0451450523",
            ),
            ("httpx://h/", "/describe?uri=httpx%3A%2F%2Fh%2F"),
        ] {
            assert_eq!(linker.href(iri, false), page, "{iri}");
        }
        // Described or not, an IRI with a page here links to it.
        assert_eq!(
            linker.href("javascript:alert(1)", true),
            "/describe?uri=javascript%3Aalert%281%29"
        );
    }

    #[test]
    fn images_load_only_over_http() {
        assert!(is_image_source("http://x/a.png"));
        assert!(is_image_source("HTTPS://x/a.png"));
        for iri in [
            "javascript:alert(1)",
            "data:image/svg+xml,%3Csvg%3E",
            "mailto:a@example.org",
            "file:///etc/passwd",
            "//x/a.png",
            "/static/a.png",
        ] {
            assert!(!is_image_source(iri), "{iri}");
        }
    }
}
