//! Which representation of an entity document a request gets: HTML or one RDF syntax.
//!
//! One place for every document route (`/resource`, `/page`, `/data`, `/describe`): a file
//! suffix or `?format=` wins; otherwise the `Accept` header is negotiated per RFC 9110
//! ([`crate::extract::negotiate`]) against the offers below, whose order is the server's
//! preference on ties. Turtle comes first, so `*/*` alone (curl, most libraries) gets Turtle;
//! a browser names `text/html` explicitly with the top quality and so gets HTML. Legacy media
//! types (`application/x-turtle`, `text/rdf+n3`, `application/xml`, `text/plain`,
//! `application/json`) are understood and answered with the current type.

use crate::error::ApiError;
use crate::extract::negotiate::{AcceptHeader, Offer};
use oxrdfio::{JsonLdProfileSet, RdfFormat};

const JSON_LD: RdfFormat = RdfFormat::JsonLd {
    profile: JsonLdProfileSet::empty(),
};

/// One representation of an entity document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Representation {
    /// The HTML page with RDFa.
    Html,
    /// An RDF document.
    Rdf(RdfFormat),
}

/// Every representation with its suffix and name, in the order they are listed to clients.
pub const REPRESENTATIONS: [(Representation, &str, &str); 7] = [
    (Representation::Html, "html", "HTML"),
    (Representation::Rdf(RdfFormat::Turtle), "ttl", "Turtle"),
    (Representation::Rdf(RdfFormat::NTriples), "nt", "N-Triples"),
    (Representation::Rdf(RdfFormat::RdfXml), "rdf", "RDF/XML"),
    (Representation::Rdf(JSON_LD), "jsonld", "JSON-LD"),
    (Representation::Rdf(RdfFormat::NQuads), "nq", "N-Quads"),
    (Representation::Rdf(RdfFormat::N3), "n3", "N3"),
];

/// What `Accept` is negotiated against, server preference first.
const OFFERS: [Offer<Representation>; 13] = [
    Offer::new("text/turtle", Representation::Rdf(RdfFormat::Turtle)),
    Offer::new("text/html", Representation::Html),
    Offer::new(
        "application/n-triples",
        Representation::Rdf(RdfFormat::NTriples),
    ),
    Offer::new(
        "application/rdf+xml",
        Representation::Rdf(RdfFormat::RdfXml),
    ),
    Offer::new("application/ld+json", Representation::Rdf(JSON_LD)),
    Offer::new(
        "application/n-quads",
        Representation::Rdf(RdfFormat::NQuads),
    ),
    Offer::new("text/n3", Representation::Rdf(RdfFormat::N3)),
    Offer::new(
        "application/x-turtle",
        Representation::Rdf(RdfFormat::Turtle),
    ),
    Offer::new("text/rdf+n3", Representation::Rdf(RdfFormat::N3)),
    Offer::new("application/xml", Representation::Rdf(RdfFormat::RdfXml)),
    Offer::new("application/json", Representation::Rdf(JSON_LD)),
    Offer::new("text/plain", Representation::Rdf(RdfFormat::NTriples)),
    // Last, so that `application/*` asks for an RDF syntax rather than for HTML.
    Offer::new("application/xhtml+xml", Representation::Html),
];

/// Extra `format=` names beyond the suffixes.
const FORMAT_NAMES: [(&str, Representation); 9] = [
    ("turtle", Representation::Rdf(RdfFormat::Turtle)),
    ("ntriples", Representation::Rdf(RdfFormat::NTriples)),
    ("n-triples", Representation::Rdf(RdfFormat::NTriples)),
    ("rdfxml", Representation::Rdf(RdfFormat::RdfXml)),
    ("xml", Representation::Rdf(RdfFormat::RdfXml)),
    ("json-ld", Representation::Rdf(JSON_LD)),
    ("json", Representation::Rdf(JSON_LD)),
    ("nquads", Representation::Rdf(RdfFormat::NQuads)),
    ("htm", Representation::Html),
];

/// The `Content-Type` of an RDF response in `format`: its media type with `charset=utf-8`.
///
/// Every syntax is written in UTF-8, and saying so matters: HTTP/1.1 clients such as Python's
/// `requests` decode a `text/*` body without a charset as Latin-1, garbling every non-ASCII
/// literal of a Turtle document.
pub fn rdf_content_type(format: RdfFormat) -> &'static str {
    match format {
        RdfFormat::Turtle => "text/turtle; charset=utf-8",
        RdfFormat::N3 => "text/n3; charset=utf-8",
        RdfFormat::NTriples => "application/n-triples; charset=utf-8",
        RdfFormat::NQuads => "application/n-quads; charset=utf-8",
        RdfFormat::TriG => "application/trig; charset=utf-8",
        RdfFormat::RdfXml => "application/rdf+xml; charset=utf-8",
        RdfFormat::JsonLd { .. } => "application/ld+json; charset=utf-8",
        other => other.media_type(),
    }
}

impl Representation {
    /// The `Content-Type` of a response (with `charset=utf-8`).
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Html => "text/html; charset=utf-8",
            Self::Rdf(format) => rdf_content_type(format),
        }
    }

    /// The media type without parameters.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Html => "text/html",
            Self::Rdf(format) => format.media_type(),
        }
    }

    /// The file suffix (`ttl`, `html`…).
    pub fn suffix(self) -> &'static str {
        REPRESENTATIONS
            .iter()
            .find(|(r, _, _)| *r == self)
            .map_or("ttl", |(_, suffix, _)| suffix)
    }

    /// The name shown to people.
    pub fn name(self) -> &'static str {
        REPRESENTATIONS
            .iter()
            .find(|(r, _, _)| *r == self)
            .map_or("RDF", |(_, _, name)| name)
    }

    /// The representation of a file suffix, if it is one.
    pub fn from_suffix(suffix: &str) -> Option<Self> {
        REPRESENTATIONS
            .iter()
            .find(|(_, s, _)| s.eq_ignore_ascii_case(suffix))
            .map(|(r, _, _)| *r)
    }

    /// The representation of a `format=` value: a suffix, a name or a media type.
    pub fn from_format_param(value: &str) -> Result<Self, ApiError> {
        let lower = value.trim().to_ascii_lowercase();
        Self::from_suffix(&lower)
            .or_else(|| {
                FORMAT_NAMES
                    .iter()
                    .find(|(n, _)| *n == lower)
                    .map(|(_, r)| *r)
            })
            .or_else(|| {
                let essence = lower.split(';').next().unwrap_or_default().trim();
                OFFERS
                    .iter()
                    .find(|o| o.media_type == essence)
                    .map(|o| o.value)
            })
            .ok_or_else(not_acceptable)
    }
}

/// Chooses the representation: `format=` first, then `Accept`. With `rdf_only`, HTML is not
/// offered (the `/data/` routes).
pub fn choose(
    accept: &AcceptHeader,
    format: Option<&str>,
    rdf_only: bool,
) -> Result<Representation, ApiError> {
    if let Some(value) = format {
        let chosen = Representation::from_format_param(value)?;
        if rdf_only && chosen == Representation::Html {
            return Err(not_acceptable());
        }
        return Ok(chosen);
    }
    let offers: Vec<Offer<Representation>> = OFFERS
        .iter()
        .filter(|o| !(rdf_only && o.value == Representation::Html))
        .cloned()
        .collect();
    accept
        .negotiate(&offers)
        .map(|offer| offer.value)
        .ok_or_else(not_acceptable)
}

/// The 406 error listing what can be produced: media types, then suffixes for `format=`.
pub fn not_acceptable() -> ApiError {
    let mut available: Vec<String> = REPRESENTATIONS
        .iter()
        .map(|(r, _, _)| r.media_type().to_owned())
        .collect();
    available.extend(
        REPRESENTATIONS
            .iter()
            .map(|(_, suffix, _)| format!("format={suffix}")),
    );
    ApiError::NotAcceptable { available }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(accept: &str) -> Option<Representation> {
        choose(&AcceptHeader::parse(accept), None, false).ok()
    }

    const CHROMIUM: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";
    const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

    #[test]
    fn browsers_get_html_and_curl_gets_turtle() {
        assert_eq!(pick(CHROMIUM), Some(Representation::Html));
        assert_eq!(pick(FIREFOX), Some(Representation::Html));
        assert_eq!(pick("*/*"), Some(Representation::Rdf(RdfFormat::Turtle)));
        assert_eq!(pick(""), Some(Representation::Rdf(RdfFormat::Turtle)));
    }

    #[test]
    fn legacy_types_and_ties() {
        assert_eq!(
            pick("application/x-turtle"),
            Some(Representation::Rdf(RdfFormat::Turtle))
        );
        assert_eq!(
            pick("text/rdf+n3"),
            Some(Representation::Rdf(RdfFormat::N3))
        );
        assert_eq!(
            pick("application/rdf+xml;q=0.5, text/turtle;q=0.5"),
            Some(Representation::Rdf(RdfFormat::Turtle))
        );
        assert_eq!(pick("image/png"), None);
    }

    #[test]
    fn format_parameter_and_rdf_only() {
        let any = AcceptHeader::any();
        assert_eq!(
            choose(&any, Some("nt"), false).ok(),
            Some(Representation::Rdf(RdfFormat::NTriples))
        );
        assert_eq!(
            choose(&any, Some("application/ld+json"), false).ok(),
            Some(Representation::Rdf(JSON_LD))
        );
        assert!(choose(&any, Some("html"), true).is_err());
        assert!(choose(&any, Some("pdf"), false).is_err());
        assert_eq!(
            choose(&AcceptHeader::parse(FIREFOX), None, true).ok(),
            Some(Representation::Rdf(RdfFormat::RdfXml))
        );
    }
}
