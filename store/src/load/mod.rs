//! Reading RDF into the store.
//!
//! [`Input`] opens files (decompressing `.gz`, `.bz2`, `.zst` on the fly) and guesses their
//! syntax; [`parse_into`] adds a document to an open [`Transaction`] (the trickle path used by
//! SPARQL Update and the Graph Store protocol); [`BulkLoader`] builds sorted index files and
//! ingests them (the path of `lodestone load`). Either way blank node labels are scoped to the
//! document they come from, and a syntax error leaves the store as it was unless the load is
//! lenient. A lenient load skips each bad statement and reads on: N-Triples and N-Quads at the
//! next line (see `lines`), Turtle and TriG at the end of the bad statement (see `statements`),
//! the other syntaxes where their parser resynchronises.

mod bulk;
mod chunk;
mod counter_run;
mod counters;
mod declared;
mod encoder;
mod ingest;
mod input;
mod key_sort;
mod lines;
mod merge;
mod quad_run;
mod resolution;
mod staging;
mod statements;
mod table_file;

pub use bulk::{BulkLoader, LoadProgress, LoadReport, DEFAULT_LOAD_BUDGET};
pub(crate) use declared::QuadSource;
#[doc(hidden)]
pub use ingest::simulate_crash_after_next_ingest;
pub(crate) use ingest::{recover_interrupted_ingest, TMP_PREFIX};
pub use input::{format_from_path, Input};
pub use oxrdfio::RdfFormat;

use crate::encoding::{EncodedQuad, TermId};
use crate::error::StoreError;
use crate::quads::writer::Transaction;
use lines::{LineDocument, LineQuads, LineSyntax};
use oxrdf::{BlankNodeRef, GraphName, GraphNameRef, NamedOrBlankNodeRef, QuadRef, TermRef};
use oxrdfio::{RdfParseError, RdfParser};
use rustc_hash::FxHashMap;
use statements::{StatementQuads, TerseSyntax};
use std::io::Read;

/// How to read a document.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// The syntax; guessed from the file name when not given.
    pub format: Option<RdfFormat>,
    /// Graph for triples (and for the default graph of quad formats); default graph if `None`.
    pub graph: Option<GraphName>,
    /// Base IRI for relative IRIs.
    pub base_iri: Option<String>,
    /// Skip statements with errors instead of failing.
    pub lenient: bool,
}

/// Maps the blank node labels of one document to fresh store blank nodes.
#[derive(Default)]
pub struct BlankScope {
    labels: FxHashMap<String, TermId>,
}

impl BlankScope {
    /// The store blank node standing for `label` in this document, minted on first use.
    pub fn resolve(
        &mut self,
        label: BlankNodeRef<'_>,
        transaction: &mut Transaction<'_>,
    ) -> Result<TermId, StoreError> {
        if let Some(id) = self.labels.get(label.as_str()) {
            return Ok(*id);
        }
        let id = transaction.mint_blank_node()?;
        self.labels.insert(label.as_str().to_owned(), id);
        Ok(id)
    }
}

/// Counts of one parsed document.
#[derive(Debug, Clone, Default)]
pub struct ParseReport {
    /// Quads read (duplicates included).
    pub quads: u64,
    /// Statements skipped in lenient mode.
    pub skipped: u64,
    /// The first skipped statements ([`REPORTED_ERRORS`] at most), each with its position.
    pub first_errors: Vec<String>,
    /// The prefixes the document declared, (name, namespace), for the caller to record with
    /// `Store::record_prefixes` once the transaction is committed.
    pub prefixes: Vec<(String, String)>,
}

/// How many skipped statements a report lists (all of them are counted).
pub const REPORTED_ERRORS: usize = 100;

/// Formats a parse error as `source:line:column: message`.
pub fn describe_parse_error(source_name: &str, error: &RdfParseError) -> StoreError {
    match error {
        RdfParseError::Io(e) => StoreError::Syntax {
            source_name: source_name.to_owned(),
            message: e.to_string(),
        },
        RdfParseError::Syntax(e) => {
            let message = match e.location() {
                Some(location) => format!(
                    "line {}, column {}: {e}",
                    location.start.line + 1,
                    location.start.column + 1
                ),
                None => e.to_string(),
            };
            StoreError::Syntax {
                source_name: source_name.to_owned(),
                message,
            }
        }
    }
}

/// Builds the parser for a document.
pub fn parser_for(format: RdfFormat, options: &ParseOptions) -> Result<RdfParser, StoreError> {
    let mut parser = RdfParser::from_format(format);
    if let Some(base) = &options.base_iri {
        parser = parser
            .with_base_iri(base.as_str())
            .map_err(|e| StoreError::Format(format!("invalid base IRI {base}: {e}")))?;
    }
    if let Some(graph) = &options.graph {
        parser = parser.with_default_graph(graph.clone());
    }
    // `options.lenient` is handled by the callers, which skip the statements the parser
    // reports. oxrdfio's own `lenient()` is something else: it stops checking IRIs and
    // language tags, so broken terms would be stored instead of skipped.
    Ok(parser)
}

/// Parses a whole document into a transaction, with its own blank node scope.
///
/// On a syntax error (not lenient) returns the error; the caller drops the transaction, so
/// nothing of the document is committed.
pub fn parse_into(
    transaction: &mut Transaction<'_>,
    reader: impl Read,
    source_name: &str,
    options: &ParseOptions,
) -> Result<ParseReport, StoreError> {
    let format = options
        .format
        .ok_or_else(|| StoreError::Format(format!("{source_name}: unknown RDF syntax")))?;
    let mut scope = BlankScope::default();
    let mut report = ParseReport::default();
    let mut quads = read_quads(reader, source_name, format, options)?;
    for quad in quads.by_ref() {
        match quad {
            Ok(quad) => {
                let encoded = encode_scoped(transaction, &mut scope, quad.as_ref())?;
                transaction.insert_encoded(encoded)?;
                report.quads += 1;
            }
            Err(ReadError::Statement(e)) if options.lenient => {
                report.skipped += 1;
                if report.first_errors.len() < REPORTED_ERRORS {
                    report.first_errors.push(e.to_string());
                }
            }
            Err(ReadError::Statement(e) | ReadError::Fatal(e)) => return Err(e),
        }
    }
    report.prefixes = quads.prefixes();
    Ok(report)
}

/// Why a document's quads stop or skip.
pub(crate) enum ReadError {
    /// One statement could not be read; a lenient load skips it and reads on.
    Statement(StoreError),
    /// The document cannot be read further (an I/O error).
    Fatal(StoreError),
}

/// How a document in a line-based syntax (N-Triples, N-Quads) is read; `None` for the others.
fn line_document(
    source_name: &str,
    format: RdfFormat,
    options: &ParseOptions,
) -> Option<LineDocument> {
    let syntax = match format {
        RdfFormat::NTriples => LineSyntax::NTriples,
        RdfFormat::NQuads => LineSyntax::NQuads,
        _ => return None,
    };
    Some(LineDocument {
        syntax,
        graph: options.graph.clone().unwrap_or_default(),
        source_name: source_name.to_owned(),
    })
}

/// The quads of a document, in order, with its bad statements in their place; once read, the
/// prefixes it declared.
pub(crate) fn read_quads<'a, R: Read + 'a>(
    reader: R,
    source_name: &str,
    format: RdfFormat,
    options: &ParseOptions,
) -> Result<Box<dyn QuadSource + 'a>, StoreError> {
    if let Some(document) = line_document(source_name, format, options) {
        return Ok(Box::new(LineQuads::new(reader, document)));
    }
    let graph = options.graph.clone().unwrap_or_default();
    let terse = match format {
        RdfFormat::Turtle => Some(TerseSyntax::Turtle),
        RdfFormat::TriG => Some(TerseSyntax::TriG),
        _ => None,
    };
    if let (Some(syntax), true) = (terse, options.lenient) {
        parser_for(format, options).map(drop)?; // checks the base IRI
        return Ok(Box::new(StatementQuads::new(
            reader,
            syntax,
            graph,
            options.base_iri.clone(),
            source_name,
        )));
    }
    Ok(Box::new(declared::ParsedQuads::new(
        parser_for(format, options)?.for_reader(reader),
        source_name,
    )))
}

/// Encodes a quad for insertion, mapping its blank nodes through the document's scope.
pub fn encode_scoped(
    transaction: &mut Transaction<'_>,
    scope: &mut BlankScope,
    quad: QuadRef<'_>,
) -> Result<EncodedQuad, StoreError> {
    let subject = match quad.subject {
        NamedOrBlankNodeRef::BlankNode(b) => scope.resolve(b, transaction)?,
        s => transaction.term_id_for_insert(s.into())?,
    };
    let predicate = transaction.term_id_for_insert(quad.predicate.into())?;
    let object = match quad.object {
        TermRef::BlankNode(b) => scope.resolve(b, transaction)?,
        o => transaction.term_id_for_insert(o)?,
    };
    let graph = match quad.graph_name {
        GraphNameRef::BlankNode(b) => scope.resolve(b, transaction)?,
        g => transaction.graph_id_for_insert(g)?,
    };
    Ok(EncodedQuad::new(subject, predicate, object, graph))
}
