//! Turtle and TriG read leniently, so that a bad statement costs that statement and no more.
//!
//! oxttl resumes after an error at the next `.` token, but its lexer reads an unterminated
//! literal on to the next quote, however many lines further, and every good statement in
//! between is lost (each of them breaking again on the quotes it now misreads). Here a small
//! scanner of our own finds where statements end (a `.` outside IRIs, strings, comments and
//! brackets, a line of `PREFIX`/`BASE`, the `}` of a TriG graph block) and treats an IRI or
//! a one-line string that reaches the end of its line as ending there, its statement too when
//! the line ends with the `.` the broken token swallowed. The input is cut into blocks of
//! whole statements; a block is parsed by a fresh parser that knows the prefixes and base
//! declared before it. On an error the statement that holds it is skipped whole (none of its
//! triples is kept), the statements before it are parsed again on their own, and reading
//! resumes after it, inside the same TriG graph block if it was in one. Positions are counted
//! here from the start of the document.

use super::lines::count_line_ends;
use super::ReadError;
use crate::error::StoreError;
use oxrdf::{GraphName, Quad};
use oxttl::{TriGParser, TurtleParser, TurtleSyntaxError};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read};

/// Bytes read at a time; a block is at least this much, up to the end of a statement.
const BLOCK: usize = 1 << 16;

/// The syntaxes read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TerseSyntax {
    Turtle,
    TriG,
}

/// A place that matters for resynchronisation, as a byte offset in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// Just after the end of a statement.
    End { at: usize },
    /// Just after the `{` of a TriG graph block whose label starts at `label`.
    Open { at: usize, label: usize },
    /// Just after the `}` closing a TriG graph block.
    Close { at: usize },
}

impl Mark {
    fn at(self) -> usize {
        match self {
            Self::End { at } | Self::Open { at, .. } | Self::Close { at } => at,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Code,
    Iri,
    Short(u8),
    Long(u8),
    Comment,
}

/// Where the graph block around an offset was opened.
#[derive(Debug, Clone, Copy)]
enum Opened {
    /// In an earlier block: its label is `StatementQuads::carried`.
    Before,
    /// In the buffer: its label starts at `label`, its `{` ends at `open`.
    Here { label: usize, open: usize },
}

/// Finds statement ends; scans on where it stopped as bytes arrive.
#[derive(Debug, Default)]
struct Scanner {
    position: usize,
    mode: Mode,
    brackets: usize,
    in_graph: bool,
    /// Where the current top-level unit (a statement or a graph block) starts.
    unit: usize,
    line: usize,
    marks: Vec<Mark>,
    /// Where IRIs and one-line strings reached the end of their line: errors all.
    broken: Vec<usize>,
}

impl Scanner {
    /// Scans `data` from where it stopped; `eof` when no more bytes will come.
    fn scan(&mut self, data: &[u8], eof: bool) {
        while let Some(&byte) = data.get(self.position) {
            let next = data.get(self.position + 1).copied();
            let after = data.get(self.position + 2).copied();
            let lookahead_missing = |n: usize| !eof && self.position + n >= data.len();
            let mut step = 1;
            match self.mode {
                Mode::Code => match byte {
                    b'<' => self.mode = Mode::Iri,
                    b'"' | b'\'' => {
                        if lookahead_missing(2) {
                            return;
                        }
                        if next == Some(byte) && after == Some(byte) {
                            self.mode = Mode::Long(byte);
                            step = 3;
                        } else {
                            self.mode = Mode::Short(byte);
                        }
                    }
                    b'#' => self.mode = Mode::Comment,
                    b'[' | b'(' => self.brackets += 1,
                    b']' | b')' => self.brackets = self.brackets.saturating_sub(1),
                    b'{' if !self.in_graph => {
                        self.in_graph = true;
                        self.brackets = 0;
                        self.marks.push(Mark::Open {
                            at: self.position + 1,
                            label: self.unit,
                        });
                    }
                    b'}' if self.in_graph => {
                        self.in_graph = false;
                        self.brackets = 0;
                        self.end_unit(Mark::Close {
                            at: self.position + 1,
                        });
                    }
                    b'.' if self.brackets == 0 => {
                        if lookahead_missing(1) {
                            return;
                        }
                        if next.is_none_or(|b| b.is_ascii_whitespace() || b"#<[(\"'}".contains(&b))
                        {
                            self.end_statement(self.position + 1);
                        }
                    }
                    b'\n' => self.line_end(data),
                    _ => {}
                },
                Mode::Iri => match byte {
                    b'>' => self.mode = Mode::Code,
                    b'\n' => self.broken_token(data),
                    _ => {}
                },
                Mode::Short(quote) => match byte {
                    b'\\' => step = 2,
                    b'\n' => self.broken_token(data),
                    b if b == quote => self.mode = Mode::Code,
                    _ => {}
                },
                Mode::Long(quote) => match byte {
                    b'\\' => step = 2,
                    b if b == quote => {
                        if lookahead_missing(2) {
                            return;
                        }
                        if next == Some(quote) && after == Some(quote) {
                            self.mode = Mode::Code;
                            step = 3;
                        }
                    }
                    _ => {}
                },
                Mode::Comment => {
                    if byte == b'\n' {
                        self.mode = Mode::Code;
                        self.line_end(data);
                    }
                }
            }
            if byte == b'\n' {
                self.line = self.position + 1;
            }
            self.position += step;
        }
    }

    fn end_statement(&mut self, at: usize) {
        self.brackets = 0;
        if self.in_graph {
            self.marks.push(Mark::End { at });
        } else {
            self.end_unit(Mark::End { at });
        }
    }

    fn end_unit(&mut self, mark: Mark) {
        self.unit = mark.at();
        self.marks.push(mark);
    }

    /// At a line end in code: a `PREFIX`, `BASE` or `VERSION` line is a statement of its own.
    fn line_end(&mut self, data: &[u8]) {
        if self.brackets != 0 || self.in_graph {
            return;
        }
        let line = data[self.line..self.position].trim_ascii_start();
        let keyword = line
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or_default();
        if [&b"PREFIX"[..], b"BASE", b"VERSION"]
            .iter()
            .any(|k| keyword.eq_ignore_ascii_case(k))
        {
            self.end_statement(self.position + 1);
        }
    }

    /// An IRI or one-line string reached the end of its line: it ends there, and so does its
    /// statement when the line ends with a `.` (the one the broken token swallowed).
    fn broken_token(&mut self, data: &[u8]) {
        self.mode = Mode::Code;
        self.broken.push(self.position);
        if data[self.line..self.position]
            .trim_ascii_end()
            .ends_with(b".")
        {
            self.end_statement(self.position + 1);
        }
    }

    /// Forgets the first `len` bytes, cut at a top-level mark.
    fn drain(&mut self, len: usize) {
        self.marks.retain(|m| m.at() > len);
        for mark in &mut self.marks {
            match mark {
                Mark::End { at } | Mark::Close { at } => *at -= len,
                Mark::Open { at, label } => {
                    *at -= len;
                    *label = label.saturating_sub(len);
                }
            }
        }
        self.broken.retain(|b| *b >= len);
        for broken in &mut self.broken {
            *broken -= len;
        }
        self.position -= len;
        self.unit = self.unit.saturating_sub(len);
        self.line = self.line.saturating_sub(len);
    }
}

/// Quads of a Turtle or TriG document, or the statements that could not be read.
pub(super) struct StatementQuads<R> {
    reader: R,
    syntax: TerseSyntax,
    graph: GraphName,
    source_name: String,
    buffer: Vec<u8>,
    scanner: Scanner,
    /// Line number (from 0) of the buffer's first byte, and bytes before it.
    line: u64,
    prefixes: Vec<(String, String)>,
    base: Option<String>,
    /// The label and `{` of the graph block the buffer starts inside, if it does.
    carried: Option<Vec<u8>>,
    eof: bool,
    done: bool,
    ready: VecDeque<Result<Quad, ReadError>>,
}

/// What one parser run gave: its quads up to its first error, and the declarations then.
struct Run {
    /// Bytes of graph context put before the buffer's text (see `graph_context`).
    head: usize,
    quads: Vec<Quad>,
    error: Option<TurtleSyntaxError>,
    prefixes: Vec<(String, String)>,
    base: Option<String>,
}

impl<R: Read> StatementQuads<R> {
    pub(super) fn new(
        reader: R,
        syntax: TerseSyntax,
        graph: GraphName,
        base: Option<String>,
        source_name: &str,
    ) -> Self {
        Self {
            reader,
            syntax,
            graph,
            source_name: source_name.to_owned(),
            buffer: Vec::with_capacity(2 * BLOCK),
            scanner: Scanner::default(),
            line: 0,
            prefixes: Vec::new(),
            base,
            carried: None,
            eof: false,
            done: false,
            ready: VecDeque::new(),
        }
    }

    /// The prefixes declared so far (by the statements read without error).
    pub(super) fn declared(&self) -> &[(String, String)] {
        &self.prefixes
    }

    /// Reads until the buffer holds a block of whole top-level statements (or the rest of
    /// the input); the block's length, or `None` at the end.
    fn next_block(&mut self) -> std::io::Result<Option<usize>> {
        loop {
            self.scanner.scan(&self.buffer, self.eof);
            if self.eof {
                return Ok((!self.buffer.is_empty()).then_some(self.buffer.len()));
            }
            if self.buffer.len() >= BLOCK {
                if let Some(mark) = self.scanner.marks.last() {
                    return Ok(Some(mark.at()));
                }
            }
            let start = self.buffer.len();
            self.buffer.resize(start + BLOCK, 0);
            let read = loop {
                match self.reader.read(&mut self.buffer[start..]) {
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    other => break other,
                }
            };
            match read {
                Ok(read) => {
                    self.buffer.truncate(start + read);
                    self.eof = read == 0;
                }
                Err(e) => {
                    self.buffer.truncate(start);
                    return Err(e);
                }
            }
        }
    }

    /// Parses the first `len` bytes of the buffer and drops them.
    fn parse_block(&mut self, len: usize) {
        self.parse_region(0, len);
        // A block may end inside a graph block: the next one starts with its label.
        self.carried = match self.open_graph_at(len) {
            Some(Opened::Here { label, open }) => Some(self.buffer[label..open].to_vec()),
            Some(Opened::Before) => self.carried.take(),
            None => None,
        };
        self.line += count_line_ends(&self.buffer[..len]);
        self.buffer.drain(..len);
        self.scanner.drain(len);
    }

    /// Parses `buffer[from..to]`, where `from` and `to` are statement boundaries, skipping
    /// each statement that holds an error.
    fn parse_region(&mut self, from: usize, to: usize) {
        let mut position = from;
        while position < to {
            let run = self.run(position, to);
            let Some(error) = run.error else {
                self.accept(run);
                return;
            };
            // A token broken at its line end is the first error, wherever the parser, which
            // reads it on to its closing character, places it.
            let at = error_offset(&error, run.head, position, to);
            let at = self
                .scanner
                .broken
                .iter()
                .copied()
                .find(|b| *b >= position && *b < at)
                .unwrap_or(at);
            let (start, end) = self.statement_around(at, position, to);
            if start > position {
                // The statements before the bad one, on their own (they may hold an error
                // placed later than it is).
                self.parse_region(position, start);
            }
            self.report(at, error.message());
            position = end;
        }
    }

    fn accept(&mut self, run: Run) {
        for mut quad in run.quads {
            if quad.graph_name.is_default_graph() {
                quad.graph_name = self.graph.clone();
            }
            self.ready.push_back(Ok(quad));
        }
        self.prefixes = run.prefixes;
        self.base = run.base;
    }

    /// A fresh parser over `buffer[from..to]`, inside the graph block `from` is in (if any).
    fn run(&self, from: usize, to: usize) -> Run {
        let (head, tail) = self.graph_context(from, to);
        let mut text = Vec::with_capacity(head.len() + to - from + tail.len());
        text.extend_from_slice(head);
        text.extend_from_slice(&self.buffer[from..to]);
        text.extend_from_slice(tail);
        let mut run = Run {
            head: head.len(),
            quads: Vec::new(),
            error: None,
            prefixes: Vec::new(),
            base: None,
        };
        match self.syntax {
            TerseSyntax::Turtle => {
                // The declarations come from a parser, or were checked by `parser_for`.
                let mut parser = TurtleParser::new();
                for (name, iri) in &self.prefixes {
                    parser = parser.clone().with_prefix(name, iri).unwrap_or(parser);
                }
                if let Some(base) = &self.base {
                    parser = parser.clone().with_base_iri(base).unwrap_or(parser);
                }
                let mut parser = parser.for_slice(&text);
                for triple in parser.by_ref() {
                    match triple {
                        Ok(t) => run.quads.push(t.in_graph(GraphName::DefaultGraph)),
                        Err(e) => {
                            run.error = Some(e);
                            break;
                        }
                    }
                }
                run.prefixes = own(parser.prefixes());
                run.base = parser.base_iri().map(str::to_owned);
            }
            TerseSyntax::TriG => {
                let mut parser = TriGParser::new();
                for (name, iri) in &self.prefixes {
                    parser = parser.clone().with_prefix(name, iri).unwrap_or(parser);
                }
                if let Some(base) = &self.base {
                    parser = parser.clone().with_base_iri(base).unwrap_or(parser);
                }
                let mut parser = parser.for_slice(&text);
                for quad in parser.by_ref() {
                    match quad {
                        Ok(q) => run.quads.push(q),
                        Err(e) => {
                            run.error = Some(e);
                            break;
                        }
                    }
                }
                run.prefixes = own(parser.prefixes());
                run.base = parser.base_iri().map(str::to_owned);
            }
        }
        run
    }

    /// The text that puts a parser starting at `from` inside its graph block (the block's
    /// label and `{`), and the `}` that closes it when `to` is still inside it.
    fn graph_context(&self, from: usize, to: usize) -> (&[u8], &[u8]) {
        let head = match self.open_graph_at(from) {
            Some(Opened::Here { label, open }) => &self.buffer[label..open],
            Some(Opened::Before) => self.carried.as_deref().unwrap_or_default(),
            None => &[][..],
        };
        let tail: &[u8] = if self.open_graph_at(to).is_some() {
            b"\n}"
        } else {
            b""
        };
        (head, tail)
    }

    /// The graph block `offset` is inside, if any.
    fn open_graph_at(&self, offset: usize) -> Option<Opened> {
        let mut opened = self.carried.as_ref().map(|_| Opened::Before);
        for mark in &self.scanner.marks {
            if mark.at() > offset {
                break;
            }
            match *mark {
                Mark::Open { at, label } => opened = Some(Opened::Here { label, open: at }),
                Mark::Close { .. } => opened = None,
                Mark::End { .. } => {}
            }
        }
        opened
    }

    /// The statement that holds `at`, as `(start, end)` within `from..to`. An error in a graph
    /// block's label takes the whole block.
    fn statement_around(&self, at: usize, from: usize, to: usize) -> (usize, usize) {
        let start = self
            .scanner
            .marks
            .iter()
            .map(|m| m.at())
            .filter(|m| *m > from && *m <= at)
            .max()
            .unwrap_or(from);
        let mut end = to;
        let mut depth = 0_usize;
        for mark in self
            .scanner
            .marks
            .iter()
            .filter(|m| m.at() > at && m.at() <= to)
        {
            match mark {
                Mark::Open { .. } => depth += 1,
                Mark::Close { at } if depth <= 1 => {
                    end = *at;
                    break;
                }
                Mark::Close { .. } => depth -= 1,
                Mark::End { at } if depth == 0 => {
                    end = *at;
                    break;
                }
                Mark::End { .. } => {}
            }
        }
        (start, end)
    }

    fn report(&mut self, at: usize, message: &str) {
        let line = self.line + count_line_ends(&self.buffer[..at]);
        let line_start = self.buffer[..at]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        let column = self.buffer[line_start..at]
            .iter()
            .filter(|b| (**b & 0xC0) != 0x80)
            .count();
        self.ready
            .push_back(Err(ReadError::Statement(StoreError::Syntax {
                source_name: self.source_name.clone(),
                message: format!("line {}, column {}: {message}", line + 1, column + 1),
            })));
    }
}

/// Owned copies of a parser's (name, namespace) pairs.
pub(super) fn own<'a>(prefixes: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(String, String)> {
    prefixes
        .map(|(name, iri)| (name.to_owned(), iri.to_owned()))
        .collect()
}

/// The error's offset in the buffer, within `from..to`, for a parser whose text had `head`
/// bytes of graph context before `buffer[from..]`.
fn error_offset(error: &TurtleSyntaxError, head: usize, from: usize, to: usize) -> usize {
    let offset = usize::try_from(error.location().start.offset).unwrap_or(usize::MAX);
    from.saturating_add(offset.saturating_sub(head))
        .min(to.saturating_sub(1))
        .max(from)
}

impl<R: Read> Iterator for StatementQuads<R> {
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
