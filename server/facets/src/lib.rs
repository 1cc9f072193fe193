//! Lodestone's facet engine: faceted browsing over a `lodestone-store` snapshot, with one
//! model, two syntaxes and one engine.
//!
//! It needs no HTTP, so it lives in its own crate: the server (`lodestone-server`) keeps the
//! routes (`/api/facets`, `/fct/service`) and the text-index adapter, and the fuzz targets
//! link only this crate and the store.
//!
//! - [`model`]: the facet tree; [`json`] and [`fct`] read the two syntaxes into it.
//! - [`planner`] resolves it to ids and re-hangs it from the focus; [`executor`] finds the
//!   focus set from the most selective constraint ([`scan`] chooses between look-ups and
//!   one scan of a predicate); [`views`] counts on ids ([`walks`] reads every focus term's
//!   quads in one forward pass); [`labels`]
//!   names what is shown; [`engine`] ties them together with the time budget ([`budget`])
//!   and the cache.
//! - [`start`] answers the start views (no constraint) from the store's distinct counts;
//!   [`class_focus`] the views of one class's instances from its counts per predicate.
//! - [`snippets`] finds the literals behind a text match (excerpts, `text-properties`).
//! - [`ranges`] buckets numeric and date values for the `ranges` view ([`range_values`]
//!   reads and decodes them); [`compare`] orders literals by value.
//! - [`sparql`] builds the equivalent SPARQL query as algebra; [`text`] is the seam to full
//!   text search; [`response`], [`xml`] and [`fct_xml`] write answers.
//! - [`error`]: the engine's error type.
#![deny(missing_docs)]

pub mod budget;
pub mod class_focus;
pub mod compare;
pub mod engine;
pub mod error;
pub mod executor;
pub mod fct;
mod fct_values;
pub mod fct_xml;
pub mod json;
pub mod labels;
pub mod model;
pub mod planner;
pub mod range_parts;
pub mod range_values;
pub mod ranges;
pub mod response;
pub mod scan;
pub mod snippets;
pub mod sparql;
pub mod start;
#[cfg(test)]
mod testing;
pub mod text;
pub mod views;
pub mod walks;
pub mod xml;

pub use crate::engine::FacetEngine;
pub use crate::error::EngineError;
pub use crate::text::{LiteralScanMatcher, TextMatcher, TextMatches};
