//! The SPARQL page: an editor (a plain form; the script only adds keyboard shortcuts), the
//! dataset's prefixes, example queries, and the answer of the query in the editor.

use crate::pages::layout::Layout;
use crate::ui::term::Cell;
use crate::WebError;
use askama::Template;

/// A query worth trying, with a link that runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleQuery {
    /// What it asks.
    pub title: String,
    /// The SPARQL page with the query loaded and run.
    pub href: String,
}

/// Where a syntax error is, counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Line.
    pub line: usize,
    /// Column (characters).
    pub column: usize,
}

/// What running the query gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Rows of a SELECT, or the triples of a CONSTRUCT/DESCRIBE as subject/predicate/object.
    Table {
        /// Column names.
        columns: Vec<String>,
        /// Rows, each as long as `columns`.
        rows: Vec<Vec<Cell>>,
        /// More rows exist than are shown.
        truncated: bool,
    },
    /// The answer of an ASK.
    Boolean(bool),
    /// The query could not be parsed or run.
    Error {
        /// The message.
        message: String,
        /// Where in the query, for syntax errors.
        position: Option<Position>,
        /// The query line the position is on.
        line_text: Option<String>,
    },
}

/// A link to the same answer in another syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    /// Syntax name.
    pub name: String,
    /// The protocol URL with `format=`.
    pub href: String,
}

/// The data of the SPARQL page.
#[derive(Debug, Clone, Template)]
#[template(path = "ui/sparql.html")]
pub struct SparqlPage {
    /// The shared layout.
    pub layout: Layout,
    /// The text in the editor.
    pub query: String,
    /// The dataset's prefixes (already declared in a new editor's text).
    pub prefixes: Vec<(String, String)>,
    /// Example queries.
    pub examples: Vec<ExampleQuery>,
    /// The answer, when a query was run.
    pub answer: Option<Answer>,
    /// Milliseconds the query took.
    pub elapsed_ms: Option<f64>,
    /// The answer in other syntaxes.
    pub downloads: Vec<Download>,
}

impl SparqlPage {
    /// The page as HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }

    /// Rows in the table answer.
    pub fn row_count(&self) -> usize {
        match &self.answer {
            Some(Answer::Table { rows, .. }) => rows.len(),
            _ => 0,
        }
    }
}

/// The position a SPARQL parser message gives (`error at 3:14: expected …`), if any.
pub fn error_position(message: &str) -> Option<Position> {
    let rest = &message[message.find(" at ")? + 4..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':'))
        .unwrap_or(rest.len());
    let (line, column) = rest[..end].trim_end_matches(':').split_once(':')?;
    Some(Position {
        line: line.parse().ok()?,
        column: column.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_read_from_parser_messages() {
        assert_eq!(
            error_position("error at 3:14: expected one of \"{\""),
            Some(Position {
                line: 3,
                column: 14
            })
        );
        assert_eq!(error_position("The blank node _:b cannot be shared"), None);
    }
}
