//! Helpers of the crate's unit tests: a store in a temporary folder.

use lodestone_store::{Store, StoreOptions};

/// A new empty store in a temporary folder (kept while the folder lives), with a small memory
/// budget.
pub(crate) fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = Store::open(
        dir.path(),
        StoreOptions::default().with_memory_budget(64 << 20),
    )
    .expect("a new store");
    (dir, store)
}
