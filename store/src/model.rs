//! The RDF data model, re-exported from `oxrdf` so that every crate names terms the same way.

pub use oxrdf::*;
