//! The faceted search page: ranked results next to facet panels (classes, properties, values
//! of one property), the active constraints as removable chips, paging, and links to the
//! same answer as SPARQL, CSV and JSON. Every link carries the whole state in its URL.

use crate::pages::layout::Layout;
use crate::WebError;
use askama::Template;

/// An active constraint and the link that drops it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chip {
    /// What the constraint says (`class: dbo:Album`).
    pub text: String,
    /// The same search without it.
    pub remove_href: String,
}

/// One row of a facet panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetEntry {
    /// Label of the class, property or value.
    pub label: String,
    /// Its IRI or literal, for the tooltip.
    pub title: String,
    /// Matching entities.
    pub count: u64,
    /// The search narrowed by it.
    pub href: String,
    /// For properties: the search of the entities it leads to.
    pub pivot_href: Option<String>,
}

/// A facet panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetPanel {
    /// Heading.
    pub heading: String,
    /// Element id (for the heading's `aria-labelledby`).
    pub id: String,
    /// Rows, most entities first.
    pub entries: Vec<FacetEntry>,
    /// Counts are lower bounds (the time budget ran out).
    pub partial: bool,
}

/// A piece of a snippet; matched words are marked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The text.
    pub text: String,
    /// Whether it matched the words searched for.
    pub marked: bool,
}

/// `text` cut into segments at the byte ranges in `marks` (in order, not overlapping); a
/// range out of order or not on character boundaries is left unmarked.
pub fn segments(text: &str, marks: &[std::ops::Range<usize>]) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut push = |piece: &str, marked: bool| {
        if !piece.is_empty() {
            out.push(Segment {
                text: piece.to_owned(),
                marked,
            });
        }
    };
    for range in marks {
        let (Some(before), Some(marked)) = (
            text.get(at..range.start.max(at)),
            text.get(range.start.max(at)..range.end.max(at)),
        ) else {
            continue;
        };
        push(before, false);
        push(marked, true);
        at = range.end.max(at);
    }
    push(text.get(at..).unwrap_or_default(), false);
    out
}

/// One result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultRow {
    /// Best label.
    pub label: String,
    /// The IRI.
    pub iri: String,
    /// Its page.
    pub href: String,
    /// Its classes, by label.
    pub classes: Vec<String>,
    /// The literal that best matches the words (or a description), matches marked.
    pub snippet: Vec<Segment>,
    /// Rank relative to the best result on the page, 0–100.
    pub rank: u32,
}

/// The data of the search page.
#[derive(Debug, Clone, Template)]
#[template(path = "ui/search.html")]
pub struct SearchPage {
    /// The shared layout.
    pub layout: Layout,
    /// The words searched for.
    pub text: String,
    /// Hidden form fields that keep the other constraints when the words change.
    pub kept: Vec<(String, String)>,
    /// Active constraints.
    pub chips: Vec<Chip>,
    /// This page of results.
    pub results: Vec<ResultRow>,
    /// Matching entities in all.
    pub total: u64,
    /// Whether every count on the page is exact.
    pub complete: bool,
    /// The same search with a larger time budget, when something was cut short.
    pub retry_href: Option<String>,
    /// Milliseconds the engine took.
    pub elapsed_ms: u64,
    /// First result's position (1-based).
    pub first: u64,
    /// Previous and next pages.
    pub previous_href: Option<String>,
    /// Next page.
    pub next_href: Option<String>,
    /// Facet panels.
    pub panels: Vec<FacetPanel>,
    /// The SPARQL page with the equivalent query.
    pub sparql_href: String,
    /// The results as CSV (through the SPARQL endpoint).
    pub csv_href: String,
    /// The results as SPARQL JSON.
    pub json_href: String,
}

impl SearchPage {
    /// The page as HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(segments: &[Segment]) -> String {
        segments
            .iter()
            .map(|s| {
                if s.marked {
                    format!("[{}]", s.text)
                } else {
                    s.text.clone()
                }
            })
            .collect()
    }

    #[test]
    fn snippets_mark_their_ranges() {
        assert_eq!(
            shown(&segments("Gold coin of Athens", &[0..4, 13..19])),
            "[Gold] coin of [Athens]"
        );
        assert_eq!(shown(&segments("no match", &[])), "no match");
        // Out of bounds or inside a character: left unmarked, nothing lost.
        assert_eq!(shown(&segments("é x", &[1..2, 3..9])), "é x");
    }
}
