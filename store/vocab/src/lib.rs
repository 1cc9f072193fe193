//! Lodestone's shared vocabulary rules, used alike by the store, the text index, the facet
//! engine, the HTML views and the server, so that every surface writes and reads IRIs the same
//! way: the prefix table ([`Prefixes`]) and the label rule ([`labels`]).
#![deny(missing_docs)]

mod error;
pub mod labels;
pub mod prefixes;

pub use crate::error::VocabError;
pub use crate::prefixes::{PrefixSource, Prefixes};
