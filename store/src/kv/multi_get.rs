//! Batched point reads of many keys, in groups of bounded size.
//!
//! RocksDB's `MultiGet` builds a context per key (and the binding a boxed copy of each key)
//! before it reads anything. A bulk load asks for the current values of millions of keys at
//! once (a chunk's terms, counters and quads); in one call those contexts are a fresh
//! allocation of hundreds of megabytes that the kernel zeroes page by page: 15 % of the CPU
//! of a 100 M-quad load went to that alone. In groups of [`GROUP`] keys the same memory is
//! reused from one group to the next, and RocksDB reads the sorted keys just as well.

use rocksdb::{AsColumnFamilyRef, DBPinnableSlice, Error, ReadOptions, DB};

/// Keys per `MultiGet` call.
const GROUP: usize = 4096;

/// The values of `keys` in `cf`, in the order given; `sorted` says the keys come in the
/// table's order (RocksDB then skips sorting each group).
pub(crate) fn multi_get<'db, K: AsRef<[u8]>>(
    db: &'db DB,
    cf: &impl AsColumnFamilyRef,
    keys: impl IntoIterator<Item = K>,
    sorted: bool,
    options: &ReadOptions,
) -> Vec<Result<Option<DBPinnableSlice<'db>>, Error>> {
    let mut keys = keys.into_iter().peekable();
    let mut values = Vec::with_capacity(keys.size_hint().0);
    while keys.peek().is_some() {
        values.extend(db.batched_multi_get_cf_opt(cf, keys.by_ref().take(GROUP), sorted, options));
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_in_the_order_asked_across_groups() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let db = DB::open_cf(&options, dir.path(), ["table"]).unwrap();
        let cf = db.cf_handle("table").unwrap();
        for i in (0..10_000u32).step_by(2) {
            db.put_cf(cf, i.to_be_bytes(), i.to_le_bytes()).unwrap();
        }
        let keys: Vec<[u8; 4]> = (0..10_000u32).rev().map(u32::to_be_bytes).collect();
        let values = multi_get(&db, cf, &keys, false, &ReadOptions::default());
        assert_eq!(values.len(), 10_000);
        for (key, value) in keys.iter().zip(values) {
            let i = u32::from_be_bytes(*key);
            let value = value.unwrap().map(|v| v.to_vec());
            let expected = (i % 2 == 0).then(|| i.to_le_bytes().to_vec());
            assert_eq!(value, expected, "key {i}");
        }
    }
}
