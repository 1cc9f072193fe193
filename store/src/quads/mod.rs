//! Reading and writing quads: snapshots with pattern scans, and the write transaction.

pub(crate) mod layout;
pub(crate) mod overlay;
pub mod reader;
pub mod walk;
pub mod writer;
