//! The home page: what the dataset is, how big, its main classes, and where to start.

use crate::pages::layout::Layout;
use crate::WebError;
use askama::Template;

/// One class of the dataset with its number of instances.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassCount {
    /// The class as people read it (`prefix:local` or the IRI).
    pub name: String,
    /// The class IRI.
    pub iri: String,
    /// Instances (`rdf:type` statements naming the class).
    pub count: u64,
    /// Faceted search narrowed to this class.
    pub href: String,
}

/// A link to somewhere worth starting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// What the link shows.
    pub text: String,
    /// Where it leads.
    pub href: String,
}

/// The data of the home page.
#[derive(Debug, Clone, Template)]
#[template(path = "ui/home.html")]
pub struct HomePage {
    /// The shared layout.
    pub layout: Layout,
    /// What this dataset is, from the configuration.
    pub description: Option<String>,
    /// Quads in the store.
    pub quads: u64,
    /// Distinct subjects.
    pub entities: u64,
    /// Named graphs.
    pub graphs: u64,
    /// The classes with the most instances, most first.
    pub classes: Vec<ClassCount>,
    /// Links to a few entities and queries.
    pub examples: Vec<Example>,
}

impl HomePage {
    /// The page as HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}
