//! Sorted runs of quad index keys: how a load of several chunks keeps the index orders that
//! no later chunk reads back until the final merge.
//!
//! Every chunk adds keys all over `posg` and `ospg` (each chunk uses every predicate, and
//! most of the classes and shared objects), so their chunk files are always merged at the
//! load's end. Written as SST files, each key was put into a block, compressed, and read back
//! through RocksDB's merging iterator, only to be written once more by the merge. A run is
//! what the merge needs and no more: the keys in order, each written as the number of leading
//! bytes it shares with the key before and the bytes after those (sorted quad keys share
//! most of theirs), read back with a plain buffered read and merged by a heap of the runs'
//! current keys.

use crate::encoding::QUAD_KEY_LEN;
use crate::error::{CorruptionError, StoreError};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

/// One quad index key.
pub(super) type QuadKey = [u8; QUAD_KEY_LEN];

/// Buffer of a run being written.
const WRITE_BUFFER_BYTES: usize = 1 << 20;
/// Buffer of each run read by the merge (all of a table's runs are read at once).
const READ_BUFFER_BYTES: usize = 256 << 10;

/// A run being written; keys must come in strictly increasing order.
pub(super) struct RunWriter {
    path: PathBuf,
    out: BufWriter<File>,
    last: QuadKey,
    keys: u64,
}

impl RunWriter {
    /// Creates the run's file at `path`.
    pub(super) fn create(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            path: path.to_owned(),
            out: BufWriter::with_capacity(WRITE_BUFFER_BYTES, File::create(path)?),
            last: [0; QUAD_KEY_LEN],
            keys: 0,
        })
    }

    /// Adds the next key.
    pub(super) fn put(&mut self, key: &QuadKey) -> Result<(), StoreError> {
        debug_assert!(self.keys == 0 || *key > self.last, "keys out of order");
        let shared = if self.keys == 0 {
            0
        } else {
            shared_prefix(&self.last, key)
        };
        self.out.write_all(&[shared])?;
        self.out.write_all(&key[usize::from(shared)..])?;
        self.last = *key;
        self.keys += 1;
        Ok(())
    }

    /// Finishes the run: its path, or `None` (and no file) when it holds no key.
    pub(super) fn finish(self) -> Result<Option<PathBuf>, StoreError> {
        finish_run(self.path, self.out, self.keys)
    }
}

/// Finishes a run of `entries` written through `out` to `path`: its path, or `None` (and no
/// file) when it holds none.
pub(super) fn finish_run(
    path: PathBuf,
    out: BufWriter<File>,
    entries: u64,
) -> Result<Option<PathBuf>, StoreError> {
    if entries == 0 {
        drop(out);
        std::fs::remove_file(&path)?;
        return Ok(None);
    }
    out.into_inner().map_err(|e| e.into_error())?;
    Ok(Some(path))
}

/// The number of leading bytes two different keys share (fewer than 32).
fn shared_prefix(a: &QuadKey, b: &QuadKey) -> u8 {
    let mut shared = 0;
    for (x, y) in a.iter().zip(b) {
        if x != y {
            break;
        }
        shared += 1;
    }
    shared
}

/// A run read back key by key.
struct RunReader {
    path: PathBuf,
    input: BufReader<File>,
    key: QuadKey,
}

impl RunReader {
    fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            path: path.to_owned(),
            input: BufReader::with_capacity(READ_BUFFER_BYTES, File::open(path)?),
            key: [0; QUAD_KEY_LEN],
        })
    }

    /// Reads the next key into `self.key`; `false` at the end of the run.
    fn advance(&mut self) -> Result<bool, StoreError> {
        let mut shared = [0u8; 1];
        match self.input.read_exact(&mut shared) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e.into()),
        }
        let shared = usize::from(shared[0]);
        if shared >= QUAD_KEY_LEN {
            return Err(self.corrupt("a key sharing all its bytes with the one before"));
        }
        match self.input.read_exact(&mut self.key[shared..]) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => Err(self.corrupt("a cut key")),
            Err(e) => Err(e.into()),
        }
    }

    fn corrupt(&self, what: &str) -> StoreError {
        CorruptionError::msg(format!("{what} in {}", self.path.display())).into()
    }
}

/// A quad key as two integers whose order is the key's byte order. The merge compares keys
/// at every step of its heap; as byte arrays each comparison was a call to `memcmp`, the
/// largest single cost of merging the runs.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Ordered(u128, u128);

impl Ordered {
    fn of(key: &QuadKey) -> Self {
        let mut high = [0; 16];
        let mut low = [0; 16];
        high.copy_from_slice(&key[..16]);
        low.copy_from_slice(&key[16..]);
        Self(u128::from_be_bytes(high), u128::from_be_bytes(low))
    }
}

/// Reads `runs` (of one table) in one pass and gives `put` their keys in increasing order,
/// each once however many runs hold it.
pub(super) fn merge_runs(
    runs: &[PathBuf],
    mut put: impl FnMut(&QuadKey) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut readers = runs
        .iter()
        .map(|path| RunReader::open(path))
        .collect::<Result<Vec<_>, _>>()?;
    // The smallest current key on top; the run's number breaks no ties that matter (equal
    // keys are the same entry: quad index values are empty).
    let mut heads = BinaryHeap::with_capacity(readers.len());
    for (i, reader) in readers.iter_mut().enumerate() {
        if reader.advance()? {
            heads.push(Reverse((Ordered::of(&reader.key), i)));
        }
    }
    let mut last: Option<Ordered> = None;
    while let Some(mut top) = heads.peek_mut() {
        let Reverse((key, i)) = *top;
        let reader = &mut readers[i];
        if last != Some(key) {
            put(&reader.key)?;
            last = Some(key);
        }
        if reader.advance()? {
            *top = Reverse((Ordered::of(&reader.key), i));
        } else {
            std::collections::binary_heap::PeekMut::pop(top);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn key(words: [u64; 4]) -> QuadKey {
        let mut key = [0; QUAD_KEY_LEN];
        for (slot, word) in words.iter().enumerate() {
            key[slot * 8..slot * 8 + 8].copy_from_slice(&word.to_be_bytes());
        }
        key
    }

    fn write_run(dir: &Path, name: &str, keys: &BTreeSet<QuadKey>) -> Option<PathBuf> {
        let mut run = RunWriter::create(&dir.join(name)).expect("create");
        for k in keys {
            run.put(k).expect("put");
        }
        run.finish().expect("finish")
    }

    fn merged(runs: &[PathBuf]) -> Result<Vec<QuadKey>, StoreError> {
        let mut out = Vec::new();
        merge_runs(runs, |k| {
            out.push(*k);
            Ok(())
        })?;
        Ok(out)
    }

    proptest! {
        #[test]
        fn merged_runs_are_the_sorted_union_of_their_keys(
            runs in prop::collection::vec(
                prop::collection::btree_set(
                    (0u64..4, 0u64..300, 0u64..3, 0u64..2).prop_map(|(a, b, c, d)| key([a, b << 20, c, d])),
                    0..200,
                ),
                0..6,
            )
        ) {
            let dir = tempfile::tempdir().expect("temporary folder");
            let paths: Vec<PathBuf> = runs
                .iter()
                .enumerate()
                .filter_map(|(i, keys)| write_run(dir.path(), &format!("{i}.run"), keys))
                .collect();
            prop_assert_eq!(paths.len(), runs.iter().filter(|r| !r.is_empty()).count());
            let expected: Vec<QuadKey> = runs.iter().flatten().copied().collect::<BTreeSet<_>>().into_iter().collect();
            prop_assert_eq!(merged(&paths).expect("merge"), expected);
        }
    }

    proptest! {
        #[test]
        fn keys_as_integers_keep_the_order_of_their_bytes(
            a in prop::array::uniform32(any::<u8>()),
            b in prop::array::uniform32(any::<u8>()),
            shared in 0usize..32,
        ) {
            // Keys that share a prefix, as sorted keys mostly do.
            let mut c = a;
            c[shared..].copy_from_slice(&b[shared..]);
            prop_assert_eq!(Ordered::of(&a).cmp(&Ordered::of(&b)), a.cmp(&b));
            prop_assert_eq!(Ordered::of(&a).cmp(&Ordered::of(&c)), a.cmp(&c));
        }
    }

    #[test]
    fn a_run_keeps_only_what_keys_do_not_share() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let keys: BTreeSet<QuadKey> = (0..1000).map(|i| key([7, 9, i, 0])).collect();
        let path = write_run(dir.path(), "a.run", &keys).expect("keys");
        let bytes = std::fs::metadata(&path).expect("metadata").len();
        // 33 bytes for the first key, then a byte of shared length and the bytes from the
        // first that differs on: the last one or two of the third word, and the fourth.
        assert!(bytes <= 33 + 999 * 11, "{bytes} bytes");
        assert!(bytes < 1000 * 32 / 3, "{bytes} bytes");
        assert_eq!(merged(&[path]).expect("merge").len(), 1000);
    }

    #[test]
    fn a_cut_run_is_an_error() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let keys: BTreeSet<QuadKey> = (0..10).map(|i| key([1, 2, 3, i])).collect();
        let path = write_run(dir.path(), "a.run", &keys).expect("keys");
        let len = std::fs::metadata(&path).expect("metadata").len();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_len(len - 1).expect("truncate");
        let error = merged(&[path]).expect_err("a cut key");
        assert!(error.to_string().contains("a cut key"), "{error}");
    }
}
