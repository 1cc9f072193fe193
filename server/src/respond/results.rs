//! SPARQL query results (SELECT and ASK) as JSON, XML, CSV or TSV, through `sparesults`.
//!
//! Solutions are written one at a time into a [`ChunkSink`] and counted; at the row cap the
//! document is closed normally and the outcome says it was truncated.

use crate::error::ApiError;
use crate::extract::negotiate::{AcceptHeader, Offer};
use crate::respond::stream::{ChunkSink, Outcome};
use lodestone_store::sparql::{evaluation_error, QuerySolutionIter};
use sparesults::{QueryResultsFormat, QueryResultsSerializer};
use std::time::Duration;

/// What `/sparql` offers for SELECT and ASK, in order of preference (JSON for `*/*`).
pub const RESULT_OFFERS: [Offer<QueryResultsFormat>; 7] = [
    Offer::new("application/sparql-results+json", QueryResultsFormat::Json),
    Offer::new("application/sparql-results+xml", QueryResultsFormat::Xml),
    Offer::new("text/csv", QueryResultsFormat::Csv),
    Offer::new("text/tab-separated-values", QueryResultsFormat::Tsv),
    Offer::new("application/json", QueryResultsFormat::Json),
    Offer::new("application/xml", QueryResultsFormat::Xml),
    Offer::new("text/xml", QueryResultsFormat::Xml),
];

/// `format=` names for results.
const RESULT_NAMES: [(&str, QueryResultsFormat); 6] = [
    ("json", QueryResultsFormat::Json),
    ("srj", QueryResultsFormat::Json),
    ("xml", QueryResultsFormat::Xml),
    ("srx", QueryResultsFormat::Xml),
    ("csv", QueryResultsFormat::Csv),
    ("tsv", QueryResultsFormat::Tsv),
];

/// Chooses the results syntax: `format=` (a name or a media type) wins over `Accept`.
pub fn choose(accept: &AcceptHeader, format: Option<&str>) -> Result<QueryResultsFormat, ApiError> {
    if let Some(name) = format {
        let lower = name.trim().to_ascii_lowercase();
        return RESULT_NAMES
            .iter()
            .find(|(n, _)| *n == lower)
            .map(|(_, f)| *f)
            .or_else(|| QueryResultsFormat::from_media_type(&lower))
            .ok_or_else(|| ApiError::NotAcceptable {
                available: RESULT_NAMES.iter().map(|(n, _)| (*n).to_owned()).collect(),
            });
    }
    accept
        .negotiate(&RESULT_OFFERS)
        .map(|offer| offer.value)
        .ok_or_else(|| ApiError::NotAcceptable {
            available: RESULT_OFFERS
                .iter()
                .map(|o| o.media_type.to_owned())
                .collect(),
        })
}

/// Writes solutions, at most `cap` of them.
pub fn write_solutions(
    sink: &mut ChunkSink,
    solutions: QuerySolutionIter<'_>,
    format: QueryResultsFormat,
    cap: u64,
    budget: Duration,
) -> Result<Outcome, ApiError> {
    let variables = solutions.variables().to_vec();
    let releaser = sink.releaser();
    let mut serializer = QueryResultsSerializer::from_format(format)
        .serialize_solutions_to_writer(&mut *sink, variables)
        .map_err(io_error)?;
    let mut truncated = false;
    for (rows, solution) in (0_u64..).zip(solutions) {
        let solution = solution.map_err(|e| ApiError::from_store(evaluation_error(e), budget))?;
        releaser.release();
        if rows == cap {
            truncated = true;
            break;
        }
        serializer.serialize(&solution).map_err(io_error)?;
    }
    serializer.finish().map_err(io_error)?;
    Ok(Outcome { truncated })
}

/// Writes an ASK answer.
pub fn write_boolean(
    sink: &mut ChunkSink,
    value: bool,
    format: QueryResultsFormat,
) -> Result<Outcome, ApiError> {
    QueryResultsSerializer::from_format(format)
        .serialize_boolean_to_writer(&mut *sink, value)
        .map_err(io_error)?;
    Ok(Outcome::default())
}

/// A write error; the sink knows the real cause (budget or client) and the caller uses it.
pub fn io_error(error: std::io::Error) -> ApiError {
    ApiError::Internal(format!("writing the response failed: {error}"))
}
