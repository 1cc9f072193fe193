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
use std::collections::{BTreeMap, VecDeque};
use std::io::{ErrorKind, Read};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};

/// Bytes read at a time; a block is this much and up to the end of its last line.
const BLOCK: usize = 1 << 16;

/// The line-based syntaxes.
#[derive(Debug, Clone, Copy)]
pub(super) enum LineSyntax {
    NTriples,
    NQuads,
}

/// How one document's lines become quads: its syntax, the graph of its triples (and of the
/// default-graph quads of N-Quads), and its name for error messages.
#[derive(Debug, Clone)]
pub(super) struct LineDocument {
    pub(super) syntax: LineSyntax,
    pub(super) graph: GraphName,
    pub(super) source_name: String,
}

/// Whole lines of a document, and the number (from 0) of the first.
struct Block {
    bytes: Vec<u8>,
    first_line: u64,
}

/// Cuts a document into blocks of whole lines.
struct LineBlocks<R> {
    reader: R,
    /// Bytes read and not handed out yet; they start at the start of a line.
    buffer: Vec<u8>,
    /// Number (from 0) of the line `buffer` starts with.
    line: u64,
    eof: bool,
}

impl<R: Read> LineBlocks<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            buffer: Vec::with_capacity(2 * BLOCK),
            line: 0,
            eof: false,
        }
    }

    /// The next block of whole lines (the rest of the input at its end), or `None` at the end.
    fn next_block(&mut self) -> std::io::Result<Option<Block>> {
        let Some(len) = self.next_block_len()? else {
            return Ok(None);
        };
        let rest = self.buffer.split_off(len);
        let bytes = std::mem::replace(&mut self.buffer, rest);
        let first_line = self.line;
        self.line += count_line_ends(&bytes);
        Ok(Some(Block { bytes, first_line }))
    }

    /// Reads until the buffer holds a block of whole lines (or the rest of the input); the
    /// block's length, or `None` at the end.
    fn next_block_len(&mut self) -> std::io::Result<Option<usize>> {
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
}

impl LineDocument {
    /// The statements of one block, in order: its quads, and an error for each line that
    /// could not be read (the parser starts again at the next line).
    fn parse(&self, block: &Block) -> Vec<Result<Quad, ReadError>> {
        let block_bytes = &block.bytes[..];
        let len = block_bytes.len();
        let mut out = Vec::new();
        // Where the current parser started, and how far line ends have been counted.
        let mut position = 0;
        let mut counted = 0;
        let mut lines = block.first_line;
        while position < len {
            let mut error = None;
            for quad in parse_slice(self.syntax, &block_bytes[position..]) {
                match quad {
                    Ok(mut quad) => {
                        if quad.graph_name.is_default_graph() {
                            quad.graph_name = self.graph.clone();
                        }
                        out.push(Ok(quad));
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
                && block_bytes[start - 1] == b'\n'
            {
                start -= 1;
            }
            lines += count_line_ends(&block_bytes[counted..start]);
            counted = start;
            let line_start = block_bytes[..start]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let column = block_bytes[line_start..start]
                .iter()
                .filter(|b| (**b & 0xC0) != 0x80)
                .count();
            out.push(Err(ReadError::Statement(StoreError::Syntax {
                source_name: self.source_name.clone(),
                message: format!(
                    "line {}, column {}: {}",
                    lines + 1,
                    column + 1,
                    error.message()
                ),
            })));
            position = block_bytes[start..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(len, |i| start + i + 1);
        }
        out
    }

    /// The error that ends the document when it cannot be read further.
    fn fatal(&self, error: &std::io::Error) -> ReadError {
        ReadError::Fatal(StoreError::Syntax {
            source_name: self.source_name.clone(),
            message: error.to_string(),
        })
    }

    /// Reads the document on one thread and parses its blocks on `workers` others at once,
    /// handing each block's statements to `emit` in document order (what [`LineQuads`] would
    /// give, a block at a time). Stops early when `emit` returns `false`. For the bulk loader,
    /// whose parsing would otherwise hold one core while the other waits.
    pub(super) fn parse_in_parallel<R: Read + Send>(
        &self,
        reader: R,
        workers: usize,
        mut emit: impl FnMut(Vec<Result<Quad, ReadError>>) -> bool,
    ) {
        let workers = workers.max(1);
        let (work_sender, work) = sync_channel::<(u64, std::io::Result<Block>)>(2 * workers);
        let (done_sender, done) = sync_channel::<(u64, Vec<Result<Quad, ReadError>>)>(2 * workers);
        std::thread::scope(|scope| {
            // Shared by the workers only: when the last one has stopped, the reader's next
            // send fails and it stops too.
            let work = Arc::new(Mutex::new(work));
            let spawned = std::thread::Builder::new()
                .name("load-reader".to_owned())
                .spawn_scoped(scope, move || {
                    let mut blocks = LineBlocks::new(reader);
                    for sequence in 0.. {
                        let (item, last) = match blocks.next_block() {
                            Ok(Some(block)) => (Ok(block), false),
                            Ok(None) => return,
                            Err(e) => (Err(e), true),
                        };
                        if work_sender.send((sequence, item)).is_err() || last {
                            return;
                        }
                    }
                });
            // Without a reader thread nothing is read: the document reads as ending here.
            if let Err(e) = spawned {
                emit(vec![Err(self.fatal(&e))]);
                return;
            }
            for _ in 0..workers {
                let (work, done_sender) = (Arc::clone(&work), done_sender.clone());
                let spawned = std::thread::Builder::new()
                    .name("load-lines".to_owned())
                    .spawn_scoped(scope, move || loop {
                        let job = work.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok((sequence, block)) = job else { return };
                        let statements = match block {
                            Ok(block) => self.parse(&block),
                            Err(e) => vec![Err(self.fatal(&e))],
                        };
                        if done_sender.send((sequence, statements)).is_err() {
                            return;
                        }
                    });
                if let Err(e) = spawned {
                    emit(vec![Err(self.fatal(&e))]);
                    return;
                }
            }
            drop((work, done_sender));
            // Blocks finish out of order; they are handed on in order.
            let mut waiting = BTreeMap::new();
            let mut next = 0;
            for (sequence, statements) in done {
                waiting.insert(sequence, statements);
                while let Some(statements) = waiting.remove(&next) {
                    next += 1;
                    if !emit(statements) {
                        return;
                    }
                }
            }
        });
    }
}

/// Quads of a line-based document, or the statements that could not be read, parsed on the
/// calling thread.
pub(super) struct LineQuads<R> {
    blocks: LineBlocks<R>,
    document: LineDocument,
    done: bool,
    ready: VecDeque<Result<Quad, ReadError>>,
}

impl<R: Read> LineQuads<R> {
    pub(super) fn new(reader: R, document: LineDocument) -> Self {
        Self {
            blocks: LineBlocks::new(reader),
            document,
            done: false,
            ready: VecDeque::new(),
        }
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
            match self.blocks.next_block() {
                Ok(Some(block)) => self.ready.extend(self.document.parse(&block)),
                Ok(None) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.document.fatal(&e)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A document of several blocks with a bad line now and then.
    fn document() -> String {
        let mut text = String::new();
        for i in 0..20_000 {
            match i % 997 {
                13 => text.push_str("<http://e/s> <http://e/p> \"unterminated .\n"),
                500 => text.push_str("<http://e/s> <http://e/p> <bad iri> .\n"),
                _ => text.push_str(&format!(
                    "<http://e/s{i}> <http://e/p> \"value {i}\" .\n_:b{i} <http://e/q> <http://e/o> .\n"
                )),
            }
        }
        text
    }

    fn described(statements: Vec<Result<Quad, ReadError>>) -> Vec<String> {
        statements
            .into_iter()
            .map(|s| match s {
                Ok(quad) => quad.to_string(),
                Err(ReadError::Statement(e)) => format!("statement: {e}"),
                Err(ReadError::Fatal(e)) => format!("fatal: {e}"),
            })
            .collect()
    }

    fn line_document() -> LineDocument {
        LineDocument {
            syntax: LineSyntax::NTriples,
            graph: GraphName::DefaultGraph,
            source_name: "test.nt".to_owned(),
        }
    }

    #[test]
    fn parsing_in_parallel_gives_the_statements_of_one_thread_in_order() {
        let text = document();
        assert!(text.len() > 10 * BLOCK, "the document spans many blocks");
        let one = described(LineQuads::new(text.as_bytes(), line_document()).collect());
        assert!(one.iter().any(|s| s.starts_with("statement: ")));
        for workers in [1, 2, 3] {
            let mut many = Vec::new();
            line_document().parse_in_parallel(text.as_bytes(), workers, |statements| {
                many.extend(statements);
                true
            });
            assert_eq!(described(many), one, "{workers} workers");
        }
    }

    /// An IRI-shaped string: a scheme-like start, then words and the bytes that IRIs treat
    /// apart (delimiters, percent escapes good and bad, brackets, non-ASCII), none of which
    /// N-Triples' lexer refuses before the IRI is validated. Words are most of it, so that
    /// many strings are valid IRIs but for one byte.
    fn iri_like() -> impl Strategy<Value = String> {
        let start = prop::sample::select(vec![
            "http://",
            "http:",
            "urn:",
            "h",
            "",
            "1a:",
            "a+b.c-d:",
            "http://a:",
            "http://[::1]",
            "file:///",
            "http://u@h/",
            "http://h:80",
        ]);
        let special = prop::sample::select(vec![
            "/", "//", "?", "#", ":", "@", "%41", "%4", "%zz", "%", "[", "]", "!", "$", "&", "'",
            "(", ")", "*", "+", ",", ";", "=", ".", "_", "~", "-", "é", "\u{E000}", "\u{FFFF}",
        ]);
        let token = prop_oneof![3 => "[a-zA-Z0-9]{1,3}", 2 => special.prop_map(str::to_owned)];
        (start, prop::collection::vec(token, 0..8))
            .prop_map(|(start, tokens)| format!("{start}{}", tokens.concat()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The vendored oxttl's quick check of plain IRIs (store/vendor/oxttl/PATCH.md) takes
        /// no IRI that `oxiri` refuses, and leaves it the others.
        #[test]
        fn an_iri_is_read_when_oxiri_accepts_it(iri in iri_like()) {
            let line = format!("<{iri}> <http://e/p> <{iri}> .\n");
            let parsed: Vec<_> = parse_slice(LineSyntax::NTriples, line.as_bytes()).collect();
            if oxiri::Iri::parse(iri.as_str()).is_ok() {
                prop_assert_eq!(parsed.len(), 1);
                match &parsed[0] {
                    Ok(quad) => prop_assert_eq!(quad.subject.to_string(), format!("<{iri}>")),
                    Err(e) => prop_assert!(false, "{} refused though oxiri accepts it: {}", iri, e),
                }
            } else {
                prop_assert!(parsed.iter().any(Result::is_err), "{} read though oxiri refuses it", iri);
            }
        }
    }

    #[test]
    fn parsing_in_parallel_stops_when_told() {
        let text = document();
        let mut calls = 0;
        line_document().parse_in_parallel(text.as_bytes(), 2, |_| {
            calls += 1;
            calls < 3
        });
        assert_eq!(calls, 3);
    }
}
