//! N-Triples and N-Quads read so that a bad statement costs its own line and nothing more.
//!
//! oxttl recovers from an error at the next line jump, but its lexer reads an unterminated
//! literal on to the next quote, however many lines further, and the good statements in
//! between are lost. Here the input is cut into blocks of whole lines, each parsed by a fresh
//! parser over the block; after an error the parser starts again at the line after the one
//! the error is on. A statement is one line in these syntaxes (and an unterminated literal or
//! IRI ends with its line), so one error is one skipped statement, and every line after it is
//! read. Lines end at `\n`; positions are counted here from the start of the document (a
//! restarted parser counts from its own start).

use super::ReadError;
use crate::error::StoreError;
use oxrdf::{GraphName, Quad};
use oxttl::{NQuadsParser, NTriplesParser, TurtleSyntaxError};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read};

/// Bytes read at a time; a block is this much and up to the end of its last line.
const BLOCK: usize = 1 << 16;

/// The line-based syntaxes.
#[derive(Debug, Clone, Copy)]
pub(super) enum LineSyntax {
    NTriples,
    NQuads,
}

/// Quads of a line-based document, or the statements that could not be read.
pub(super) struct LineQuads<R> {
    reader: R,
    syntax: LineSyntax,
    /// Graph of triples, and of the default-graph quads of N-Quads.
    graph: GraphName,
    source_name: String,
    /// Bytes read and not parsed yet; they start at the start of a line.
    buffer: Vec<u8>,
    /// Number (from 0) of the line `buffer` starts with.
    line: u64,
    eof: bool,
    done: bool,
    ready: VecDeque<Result<Quad, ReadError>>,
}

impl<R: Read> LineQuads<R> {
    pub(super) fn new(reader: R, syntax: LineSyntax, graph: GraphName, source_name: &str) -> Self {
        Self {
            reader,
            syntax,
            graph,
            source_name: source_name.to_owned(),
            buffer: Vec::with_capacity(2 * BLOCK),
            line: 0,
            eof: false,
            done: false,
            ready: VecDeque::new(),
        }
    }

    /// Reads until the buffer holds a block of whole lines (or the rest of the input); the
    /// block's length, or `None` at the end.
    fn next_block(&mut self) -> std::io::Result<Option<usize>> {
        loop {
            if self.eof {
                return Ok((!self.buffer.is_empty()).then_some(self.buffer.len()));
            }
            let start = self.buffer.len();
            self.buffer.resize(start + BLOCK, 0);
            let read = loop {
                match self.reader.read(&mut self.buffer[start..]) {
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    other => break other,
                }
            };
            let read = match read {
                Ok(read) => read,
                Err(e) => {
                    self.buffer.truncate(start);
                    return Err(e);
                }
            };
            self.buffer.truncate(start + read);
            if read == 0 {
                self.eof = true;
            } else if self.buffer.len() >= BLOCK {
                // Only the bytes just read can hold a line end not seen before.
                if let Some(end) = self.buffer[start..].iter().rposition(|b| *b == b'\n') {
                    return Ok(Some(start + end + 1));
                }
            }
        }
    }

    /// Parses the first `len` bytes of the buffer, restarting after each error at the next
    /// line, and drops them from the buffer.
    fn parse_block(&mut self, len: usize) {
        let block = &self.buffer[..len];
        // Where the current parser started, and how far line ends have been counted.
        let mut position = 0;
        let mut counted = 0;
        let mut lines = self.line;
        while position < len {
            let mut error = None;
            for quad in parse_slice(self.syntax, &block[position..]) {
                match quad {
                    Ok(mut quad) => {
                        if quad.graph_name.is_default_graph() {
                            quad.graph_name = self.graph.clone();
                        }
                        self.ready.push_back(Ok(quad));
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            let Some(error) = error else { break };
            let location = error.location();
            let mut start = usize::try_from(location.start.offset)
                .map_or(len, |offset| (position + offset).min(len));
            // An error on a line jump (a statement cut short) is placed just after it, at the
            // start of the next line; it belongs to the line the jump ends.
            if location.start.offset == location.end.offset
                && start > position
                && block[start - 1] == b'\n'
            {
                start -= 1;
            }
            lines += count_line_ends(&block[counted..start]);
            counted = start;
            let line_start = block[..start]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let column = block[line_start..start]
                .iter()
                .filter(|b| (**b & 0xC0) != 0x80)
                .count();
            self.ready
                .push_back(Err(ReadError::Statement(StoreError::Syntax {
                    source_name: self.source_name.clone(),
                    message: format!(
                        "line {}, column {}: {}",
                        lines + 1,
                        column + 1,
                        error.message()
                    ),
                })));
            position = block[start..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(len, |i| start + i + 1);
        }
        self.line += count_line_ends(block);
        self.buffer.drain(..len);
    }
}

/// The quads of a slice of whole lines, by a parser of its own.
fn parse_slice(
    syntax: LineSyntax,
    slice: &[u8],
) -> Box<dyn Iterator<Item = Result<Quad, TurtleSyntaxError>> + '_> {
    match syntax {
        LineSyntax::NTriples => Box::new(
            NTriplesParser::new()
                .for_slice(slice)
                .map(|t| t.map(|t| t.in_graph(GraphName::DefaultGraph))),
        ),
        LineSyntax::NQuads => Box::new(NQuadsParser::new().for_slice(slice)),
    }
}

/// The line ends in `bytes` (the line-based and the statement-based lenient readers count
/// lines alike).
pub(super) fn count_line_ends(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|b| **b == b'\n').count() as u64
}

impl<R: Read> Iterator for LineQuads<R> {
    type Item = Result<Quad, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            match self.next_block() {
                Ok(Some(len)) => self.parse_block(len),
                Ok(None) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(Err(ReadError::Fatal(StoreError::Syntax {
                        source_name: self.source_name.clone(),
                        message: e.to_string(),
                    })));
                }
            }
        }
    }
}
