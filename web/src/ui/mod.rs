//! The browsing pages around the entity pages: home, status, the SPARQL editor (and, with the
//! search index, faceted search and URI lookup). Each page is a struct rendered by one template
//! in `templates/ui/`, extending the shared layout.

pub mod assets;
pub mod building;
pub mod home;
pub mod links;
pub mod lookup;
pub mod prefixes;
pub mod search;
pub mod sparql;
pub mod status;
pub mod term;

pub use crate::ui::prefixes::Prefixes;
pub use crate::ui::term::Cell;
