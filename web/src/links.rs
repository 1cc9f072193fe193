//! Where a link to a resource points, and how an IRI is written into a URL.
//!
//! IRIs under the base IRI get `/page/{rest}`; other IRIs that the store describes get
//! `/describe?uri=…`; anything else links to the IRI itself. Paths carry the IRI's characters
//! with only what a URI cannot hold percent-encoded (RFC 3987 §3.1: non-ASCII characters as
//! UTF-8 octets, plus space, quotes, angle brackets and the like), so `Zürich` travels as
//! `Z%C3%BCrich` and the server maps it back to the exact IRI.

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
    /// (written as a URI).
    pub fn href(&self, iri: &str, described: bool) -> String {
        if described {
            self.page(iri)
        } else {
            encode_path(iri)
        }
    }
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
    }
}
