//! Lodestone's full-text index over literals (tantivy), following the store's change log.
//!
//! One tantivy document per entity (a subject with text literals): its labels, its other
//! literal text, the languages, classes and graphs it appears with, and its rank (in-degree).
//! [`TextIndex`] owns the index folder and applies the store's change log; its commits record
//! the last store sequence number applied, so that a restarted process catches up.
//! [`TextIndex::searcher`] answers searches, type-ahead and the facet engine's text
//! constraints; [`Follower`] keeps the index in step with the store on a thread of its own.
#![deny(missing_docs)]

mod analysis;
mod build;
mod document;
mod entity;
mod error;
mod folder;
mod follower;
mod form_cost;
mod generation;
mod hit_order;
mod hits;
mod index;
mod label_hits;
mod marks;
mod merges;
pub mod popularity;
mod progress;
mod query;
mod schema;
mod search;
mod settings;
mod snippet;
mod text_pool;
mod typeahead;
mod vocabulary;

pub use crate::document::text_literal;
pub use crate::entity::{EntityText, LabelChoice};
pub use crate::error::IndexError;
pub use crate::follower::Follower;
pub use crate::form_cost::{measure_forms, FormCost, FormsReport};
pub use crate::hits::{HitDetail, LiteralFilter, TextHit, TextRequest};
pub use crate::index::{BuildReport, IndexFailure, TextIndex, INDEX_FORMAT_VERSION};
pub use crate::label_hits::LabelSearch;
pub use crate::progress::{BuildKind, BuildProgress};
pub use crate::query::{QueryError, UserQuery};
pub use crate::search::{IndexSearcher, SearchHit, SearchPage, SearchRequest};
pub use crate::settings::{IndexSettings, RankingWeights};
pub use crate::snippet::Snippet;
pub use crate::text_pool::PoolHit;
pub use crate::typeahead::AutocompleteRequest;
