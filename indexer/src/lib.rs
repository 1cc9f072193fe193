//! Lodestone's full-text index over literals (tantivy), following the store's change log.
//!
//! Not built yet: issue 4 ("Full-text index over literals") fills this crate. It exists now so
//! that the workspace has its final shape and the dependency direction store ← indexer ← server
//! is checked from the start.
#![deny(missing_docs)]
