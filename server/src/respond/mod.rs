//! Writing responses: streamed engine output, SPARQL results and RDF documents.

pub mod rdf;
pub mod results;
pub mod stream;
