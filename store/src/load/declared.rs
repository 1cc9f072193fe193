//! The prefixes a document declares (`@prefix` and `PREFIX` in Turtle, TriG and N3, `xmlns:`
//! in RDF/XML), read by the same parser as its quads.
//!
//! Every reader of a document's quads is a [`QuadSource`]: an iterator of quads that can tell,
//! once it has ended, the prefixes the document declared (the last declaration of a name, as
//! the parser keeps them). The loaders hand them to `crate::prefixes` only once the document's
//! quads are committed, so a failed load or request records nothing.

use super::lines::LineQuads;
use super::statements::{own, StatementQuads};
use super::{describe_parse_error, ReadError};
use oxrdf::Quad;
use oxrdfio::{RdfParseError, ReaderQuadParser};
use std::io::Read;

/// Quads of one document, and the prefixes it declared.
pub(crate) trait QuadSource: Iterator<Item = Result<Quad, ReadError>> {
    /// The (name, namespace) declarations read so far: all of them once the iterator ended.
    fn prefixes(&self) -> Vec<(String, String)>;
}

/// Quads of a document read by oxrdfio's parser (the syntaxes read without resynchronising).
pub(super) struct ParsedQuads<R: Read> {
    parser: ReaderQuadParser<R>,
    source_name: String,
}

impl<R: Read> ParsedQuads<R> {
    pub(super) fn new(parser: ReaderQuadParser<R>, source_name: &str) -> Self {
        Self {
            parser,
            source_name: source_name.to_owned(),
        }
    }
}

impl<R: Read> Iterator for ParsedQuads<R> {
    type Item = Result<Quad, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(self.parser.next()?.map_err(|e| match e {
            RdfParseError::Syntax(_) => {
                ReadError::Statement(describe_parse_error(&self.source_name, &e))
            }
            RdfParseError::Io(_) => ReadError::Fatal(describe_parse_error(&self.source_name, &e)),
        }))
    }
}

impl<R: Read> QuadSource for ParsedQuads<R> {
    fn prefixes(&self) -> Vec<(String, String)> {
        own(self.parser.prefixes())
    }
}

impl<R: Read> QuadSource for StatementQuads<R> {
    fn prefixes(&self) -> Vec<(String, String)> {
        self.declared().to_vec()
    }
}

impl<R: Read> QuadSource for LineQuads<R> {
    /// N-Triples and N-Quads declare none.
    fn prefixes(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_quads, ParseOptions, RdfFormat};

    fn declared(text: &str, format: RdfFormat, lenient: bool) -> Vec<(String, String)> {
        let options = ParseOptions {
            format: Some(format),
            lenient,
            ..ParseOptions::default()
        };
        let mut quads = read_quads(text.as_bytes(), "test", format, &options).unwrap();
        assert!(quads.by_ref().all(|q| q.is_ok()));
        let mut prefixes = quads.prefixes();
        prefixes.sort();
        prefixes
    }

    #[test]
    fn documents_tell_their_prefixes_once_read() {
        let turtle = "@prefix foo: <http://example.org/foo#> .\nPREFIX b: <http://b.org/>\nfoo:a b:p foo:c .\n@prefix foo: <http://example.org/again#> .\n";
        let expected = vec![
            ("b".to_owned(), "http://b.org/".to_owned()),
            ("foo".to_owned(), "http://example.org/again#".to_owned()),
        ];
        assert_eq!(declared(turtle, RdfFormat::Turtle, false), expected);
        assert_eq!(declared(turtle, RdfFormat::Turtle, true), expected);
        let trig = "@prefix g: <http://g.org/> .\ng:x { g:a g:b g:c }\n";
        assert_eq!(
            declared(trig, RdfFormat::TriG, true),
            [("g".to_owned(), "http://g.org/".to_owned())]
        );
        assert!(declared(
            "<http://a/> <http://b/> <http://c/> .\n",
            RdfFormat::NTriples,
            false
        )
        .is_empty());
    }
}
