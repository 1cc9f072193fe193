//! Integration tests of `lodestone-store` against real on-disk RocksDB stores.
//!
//! One binary with a module per area (see `tests/store/`). Shared helpers live in `support`
//! (stores in temporary folders, dumps, isomorphism) and `oracle` (the in-memory model the
//! store is compared with).

#[path = "store/backup.rs"]
mod backup;
#[path = "store/blank_nodes.rs"]
mod blank_nodes;
#[path = "store/changes.rs"]
mod changes;
#[path = "store/durability.rs"]
mod durability;
#[path = "store/failures.rs"]
mod failures;
#[path = "store/isolation.rs"]
mod isolation;
#[path = "store/loading.rs"]
mod loading;
#[path = "store/model.rs"]
mod model;
#[path = "store/oracle.rs"]
mod oracle;
#[path = "store/reclaim.rs"]
mod reclaim;
#[path = "store/roundtrip.rs"]
mod roundtrip;
#[path = "store/support.rs"]
mod support;
