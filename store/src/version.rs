//! The on-disk format version, written at creation and checked at every open.

/// Version of the on-disk layout. Bump it whenever a table, key or value encoding changes; a
/// store written with another version is refused at open rather than misread.
pub const FORMAT_VERSION: u64 = 2;

/// The oldest version this build upgrades at open (version 1 lacks the `hash_iris` table,
/// which the upgrade fills from the dictionary).
pub const UPGRADABLE_VERSION: u64 = 1;
