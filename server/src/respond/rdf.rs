//! RDF documents (CONSTRUCT and DESCRIBE results, Graph Store reads, the service description)
//! in Turtle, N-Triples, RDF/XML, JSON-LD, N-Quads, TriG or N3, through `oxrdfio`.
//!
//! The same table of media types serves `Accept` negotiation and the `Content-Type` of Graph
//! Store uploads, so what can be written can be read back.

use crate::error::ApiError;
use crate::extract::negotiate::{AcceptHeader, Offer};
use crate::respond::results::io_error;
use crate::respond::stream::{ChunkSink, Outcome};
use oxrdf::{GraphName, Quad};
use oxrdfio::{JsonLdProfileSet, RdfFormat, RdfSerializer};

const JSON_LD: RdfFormat = RdfFormat::JsonLd {
    profile: JsonLdProfileSet::empty(),
};

/// What RDF responses offer, in order of preference (Turtle for `*/*`).
pub const RDF_OFFERS: [Offer<RdfFormat>; 11] = [
    Offer::new("text/turtle", RdfFormat::Turtle),
    Offer::new("application/n-triples", RdfFormat::NTriples),
    Offer::new("application/rdf+xml", RdfFormat::RdfXml),
    Offer::new("application/ld+json", JSON_LD),
    Offer::new("application/n-quads", RdfFormat::NQuads),
    Offer::new("application/trig", RdfFormat::TriG),
    Offer::new("text/n3", RdfFormat::N3),
    Offer::new("application/x-turtle", RdfFormat::Turtle),
    Offer::new("text/plain", RdfFormat::NTriples),
    Offer::new("application/json", JSON_LD),
    Offer::new("application/xml", RdfFormat::RdfXml),
];

/// `format=` names for RDF.
const RDF_NAMES: [(&str, RdfFormat); 17] = [
    ("ttl", RdfFormat::Turtle),
    ("turtle", RdfFormat::Turtle),
    ("nt", RdfFormat::NTriples),
    ("ntriples", RdfFormat::NTriples),
    ("n-triples", RdfFormat::NTriples),
    ("rdf", RdfFormat::RdfXml),
    ("rdfxml", RdfFormat::RdfXml),
    ("xml", RdfFormat::RdfXml),
    // SPARQLWrapper's name for RDF/XML.
    ("rdf+xml", RdfFormat::RdfXml),
    ("jsonld", JSON_LD),
    ("json-ld", JSON_LD),
    ("json", JSON_LD),
    ("nq", RdfFormat::NQuads),
    ("nquads", RdfFormat::NQuads),
    ("n-quads", RdfFormat::NQuads),
    ("trig", RdfFormat::TriG),
    ("n3", RdfFormat::N3),
];

/// The media types a Graph Store upload may have.
pub const UPLOAD_TYPES: [&str; 7] = [
    "text/turtle",
    "application/n-triples",
    "application/rdf+xml",
    "application/ld+json",
    "application/n-quads",
    "application/trig",
    "text/n3",
];

/// Chooses the RDF syntax: `format=` (a name or a media type) wins over `Accept`.
pub fn choose(accept: &AcceptHeader, format: Option<&str>) -> Result<RdfFormat, ApiError> {
    if let Some(name) = format {
        let lower = name.trim().to_ascii_lowercase();
        return RDF_NAMES
            .iter()
            .find(|(n, _)| *n == lower)
            .map(|(_, f)| *f)
            .or_else(|| RdfFormat::from_media_type(&lower))
            .ok_or_else(|| ApiError::NotAcceptable {
                available: RDF_NAMES.iter().map(|(n, _)| (*n).to_owned()).collect(),
            });
    }
    accept
        .negotiate(&RDF_OFFERS)
        .map(|offer| offer.value)
        .ok_or_else(|| ApiError::NotAcceptable {
            available: RDF_OFFERS.iter().map(|o| o.media_type.to_owned()).collect(),
        })
}

/// The syntax of an upload from its `Content-Type` (parameters such as `charset` ignored).
pub fn upload_format(content_type: Option<&str>) -> Result<RdfFormat, ApiError> {
    let essence = content_type
        .map(|c| {
            c.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if UPLOAD_TYPES.contains(&essence.as_str()) {
        if let Some(format) = content_type.and_then(RdfFormat::from_media_type) {
            return Ok(format);
        }
    }
    Err(ApiError::UnsupportedMediaType {
        found: content_type.unwrap_or_default().to_owned(),
        supported: UPLOAD_TYPES.iter().map(|t| (*t).to_owned()).collect(),
    })
}

/// Writes quads; formats without graphs get the triples only. Stops after `cap` quads.
pub fn write_quads(
    sink: &mut ChunkSink,
    quads: impl Iterator<Item = Result<Quad, ApiError>>,
    format: RdfFormat,
    cap: Option<u64>,
) -> Result<Outcome, ApiError> {
    let releaser = sink.releaser();
    let mut serializer = RdfSerializer::from_format(format).for_writer(&mut *sink);
    let datasets = format.supports_datasets();
    let mut truncated = false;
    for (count, quad) in (0_u64..).zip(quads) {
        let mut quad = quad?;
        releaser.release();
        if cap.is_some_and(|cap| count == cap) {
            truncated = true;
            break;
        }
        if !datasets {
            quad.graph_name = GraphName::DefaultGraph;
        }
        serializer.serialize_quad(&quad).map_err(io_error)?;
    }
    serializer.finish().map_err(io_error)?;
    Ok(Outcome { truncated })
}
