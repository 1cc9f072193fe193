//! Reading and writing quads: snapshots with pattern scans, and the write transaction.

pub(crate) mod batch;
pub(crate) mod distinct;
pub(crate) mod layout;
mod numeric_range;
pub(crate) mod overlay;
pub(crate) mod parts;
pub(crate) mod reader;
pub(crate) mod walk;
pub(crate) mod writer;
