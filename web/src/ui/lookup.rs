//! The URI lookup page: candidates for words or an IRI fragment, ranked by how much they are
//! used, and for one IRI its usage by role and by graph, the predicates it is used with, its
//! `owl:sameAs` partners and a link to its page.

use crate::pages::layout::Layout;
use crate::WebError;
use askama::Template;

/// A term shown by its label, with its IRI a hover away and a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedLink {
    /// What people read (a label, `prefix:local`, or the IRI).
    pub label: String,
    /// The IRI (or the term in N-Triples syntax), for the tooltip.
    pub iri: String,
    /// Where the link leads.
    pub href: String,
}

/// A term with a count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountedLink {
    /// The term.
    pub term: NamedLink,
    /// How often.
    pub count: u64,
}

/// A titled list of counted terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermList {
    /// Heading.
    pub heading: String,
    /// Element id of the heading.
    pub id: String,
    /// Entries, most first.
    pub entries: Vec<CountedLink>,
}

/// One candidate IRI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidateRow {
    /// Its label and its usage report.
    pub term: NamedLink,
    /// Its page.
    pub page_href: String,
    /// Its classes, by label.
    pub classes: Vec<String>,
    /// Quads using it.
    pub usage: u64,
    /// Quads with it as subject and as object, when known.
    pub roles: Option<(u64, u64)>,
}

/// Candidates found for what was typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidateList {
    /// How the query was read (`words` or `IRI start`).
    pub matched_by: String,
    /// Most used first.
    pub rows: Vec<CandidateRow>,
}

/// The usage report of one IRI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageView {
    /// The IRI.
    pub iri: String,
    /// Its label, if it has one.
    pub label: Option<String>,
    /// Its page.
    pub page_href: String,
    /// Its classes.
    pub classes: Vec<NamedLink>,
    /// (role, quads) for subject, predicate, object and graph name.
    pub roles: Vec<(String, u64)>,
    /// Quads using it in any position.
    pub total: u64,
    /// Graphs it is used in (the default graph counts).
    pub graph_count: u64,
    /// The graphs using it most, with positions.
    pub graphs: Vec<(String, u64)>,
    /// Distinct subjects pointing at it.
    pub pointing: u64,
    /// Its properties, the properties pointing at it, its `owl:sameAs` partners.
    pub lists: Vec<TermList>,
    /// Its instances, if it is a class, with a search link to them.
    pub instances: Option<CountedLink>,
    /// Whether the scanned figures are exact.
    pub complete: bool,
}

/// The data of the lookup page.
#[derive(Debug, Clone, Template)]
#[template(path = "ui/lookup.html")]
pub struct LookupPage {
    /// The shared layout.
    pub layout: Layout,
    /// What was typed or pasted.
    pub query: String,
    /// The report of one IRI.
    pub report: Option<UsageView>,
    /// Candidates for the query.
    pub candidates: Option<CandidateList>,
    /// Why there is neither (an unused IRI, a refused query, no text index).
    pub message: Option<String>,
}

impl LookupPage {
    /// The page as HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}
