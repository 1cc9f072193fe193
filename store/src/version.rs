//! The on-disk format version, written at creation and checked at every open.

/// Version of the on-disk layout. Bump it whenever a table, key or value encoding changes; a
/// store written with another version is refused at open rather than misread.
pub const FORMAT_VERSION: u64 = 1;
