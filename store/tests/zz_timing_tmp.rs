use lodestone_store::{Store, StoreOptions};
use std::time::Instant;
#[test]
fn timing() {
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let store = Store::open(dir.path(), StoreOptions::default().with_memory_budget(8 << 20)).unwrap();
        let opened = t.elapsed();
        let txn = store.transaction().unwrap();
        txn.commit().unwrap();
        let committed = t.elapsed();
        drop(store);
        let dropped = t.elapsed();
        eprintln!("open {opened:?} commit {committed:?} drop {dropped:?}");
    }
}
