//! Lodestone's quad store.
//!
//! RDF terms are dictionary-encoded to fixed-width [`TermId`]s, quads are kept in six sorted
//! permutation indexes in RocksDB so that every pattern is one prefix scan (small named graphs
//! in four of them, the default graph in three, see `quads::layout`), and usage statistics and a change log are written in
//! the same atomic batch as the quads they describe.
#![deny(missing_docs)]

mod changes;
mod database;
mod dictionary;
mod encoding;
mod error;
mod hash_iris;
mod iri_index;
mod kv;
pub mod load;
pub mod model;
mod prefixes;
mod quads;
pub mod rank;
pub mod sparql;
mod stats;
mod store;
mod threads;
mod version;

pub use crate::changes::{ChangeBatch, SequenceNumber};
pub use crate::database::WriteFailure;
pub use crate::encoding::{EncodedQuad, TermId, TermKind};
pub use crate::error::{CorruptionError, StoreError};
pub use crate::kv::{CacheStats, IndexUsage, StoreOptions};
pub use crate::quads::distinct::{ClassPredicateCounts, ClassPredicates, Distinct};
pub use crate::quads::reader::{QuadIter, Reader};
pub use crate::quads::walk::{Lead, Step, Walked};
pub use crate::quads::writer::Transaction;
pub use crate::rank::{RankReport, RankState};
pub use crate::stats::{StoreCounts, TermGraphUsage, TermUsage};
pub use crate::store::Store;
pub use crate::version::FORMAT_VERSION;
