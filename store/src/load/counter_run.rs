//! Sorted runs of counts: how a load of several chunks into an empty store keeps each
//! chunk's term counters (`term_stats`, `term_graph`) until the final merge, which sums them.
//!
//! A counter's value in the store is its total over every chunk. Written as such, each chunk
//! read back the value the chunks before it left (from the staging copy, see `staging`) and
//! wrote the sum, so the staging database took every chunk's counter files and merged them
//! again and again as the load went on: at 100 M quads its compactions of the two tables
//! cost 37 CPU seconds, beside the look-ups and copies, and the final merge then read every
//! chunk's values only to keep the last. A chunk of a load into an empty store writes its
//! own counts instead, unstaged, as a run of records (a key and its counts); the merge adds
//! up each key's counts over the runs, and counts each term's graphs as the `term_graph`
//! keys it finds for the term (see `merge::merge_counters`). A load into a store that
//! already holds quads writes totals as before: its counters start from the store's.

use super::quad_run::finish_run;
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

/// Buffer of a run being written.
const WRITE_BUFFER_BYTES: usize = 1 << 20;
/// Buffer of each run read by the merge (all of a table's runs are read at once).
const READ_BUFFER_BYTES: usize = 256 << 10;

/// The records of one counter table's runs: keys of one length (at most 16 bytes), each
/// with the same number of counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CounterShape {
    key_len: usize,
    counts: usize,
}

/// `term_stats`: a term's id, and its uses as subject, predicate, object and graph (its
/// number of graphs is counted by the merge).
pub(super) const TERM_STATS: CounterShape = CounterShape {
    key_len: 8,
    counts: 4,
};

/// `term_graph`: a term's and a graph's ids, and the term's positions in the graph.
pub(super) const TERM_GRAPH: CounterShape = CounterShape {
    key_len: 16,
    counts: 1,
};

impl CounterShape {
    /// The shape of `table`'s runs, if its counters are kept as runs.
    pub(super) fn of(table: Table) -> Option<Self> {
        match table {
            Table::TermStats => Some(TERM_STATS),
            Table::TermGraph => Some(TERM_GRAPH),
            _ => None,
        }
    }
}

/// A run being written; keys must come in strictly increasing order.
pub(super) struct CounterRunWriter {
    path: PathBuf,
    out: BufWriter<File>,
    shape: CounterShape,
    last: Vec<u8>,
    records: u64,
    /// The encoding of one record, reused.
    record: Vec<u8>,
}

impl CounterRunWriter {
    /// Creates the run's file at `path`.
    pub(super) fn create(path: &Path, shape: CounterShape) -> Result<Self, StoreError> {
        Ok(Self {
            path: path.to_owned(),
            out: BufWriter::with_capacity(WRITE_BUFFER_BYTES, File::create(path)?),
            shape,
            last: Vec::with_capacity(shape.key_len),
            records: 0,
            record: Vec::new(),
        })
    }

    /// Adds the next record: a key as long as the shape's, and as many counts.
    pub(super) fn put(&mut self, key: &[u8], counts: &[u64]) -> Result<(), StoreError> {
        if key.len() != self.shape.key_len || counts.len() != self.shape.counts {
            return Err(CorruptionError::msg("a counter record of the wrong shape").into());
        }
        debug_assert!(
            self.records == 0 || key > self.last.as_slice(),
            "keys out of order"
        );
        // Each key as the number of leading bytes it shares with the one before and the
        // bytes after those; each count as a LEB128 number (most are small).
        let shared = self
            .last
            .iter()
            .zip(key)
            .take_while(|(a, b)| a == b)
            .count();
        self.record.clear();
        // Shorter than a key (at most 16 bytes).
        self.record.push(u8::try_from(shared).unwrap_or(u8::MAX));
        self.record.extend_from_slice(&key[shared..]);
        for &count in counts {
            let mut rest = count;
            while rest >= 0x80 {
                self.record.push(rest.to_le_bytes()[0] | 0x80);
                rest >>= 7;
            }
            self.record.push(rest.to_le_bytes()[0]);
        }
        self.out.write_all(&self.record)?;
        self.last.clear();
        self.last.extend_from_slice(key);
        self.records += 1;
        Ok(())
    }

    /// Finishes the run: its path, or `None` (and no file) when it holds no record.
    pub(super) fn finish(self) -> Result<Option<PathBuf>, StoreError> {
        finish_run(self.path, self.out, self.records)
    }
}

/// A run read back record by record.
struct CounterRunReader {
    path: PathBuf,
    input: BufReader<File>,
    key: [u8; 16],
    counts: Vec<u64>,
}

impl CounterRunReader {
    fn open(path: &Path, shape: CounterShape) -> Result<Self, StoreError> {
        Ok(Self {
            path: path.to_owned(),
            input: BufReader::with_capacity(READ_BUFFER_BYTES, File::open(path)?),
            key: [0; 16],
            counts: vec![0; shape.counts],
        })
    }

    /// Reads the next record; `false` at the end of the run.
    fn advance(&mut self, shape: CounterShape) -> Result<bool, StoreError> {
        let mut shared = [0u8; 1];
        match self.input.read_exact(&mut shared) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e.into()),
        }
        let shared = usize::from(shared[0]);
        if shared >= shape.key_len {
            return Err(self.corrupt("a key sharing all its bytes with the one before"));
        }
        self.read(shared, shape.key_len)?;
        for slot in 0..self.counts.len() {
            let mut count = 0_u64;
            for shift in (0..64).step_by(7) {
                let mut byte = [0u8; 1];
                self.input.read_exact(&mut byte).map_err(|e| self.cut(e))?;
                count |= u64::from(byte[0] & 0x7F) << shift;
                if byte[0] & 0x80 == 0 {
                    break;
                }
            }
            self.counts[slot] = count;
        }
        Ok(true)
    }

    /// Reads the key's bytes from `from` to `to`.
    fn read(&mut self, from: usize, to: usize) -> Result<(), StoreError> {
        let read = self.input.read_exact(&mut self.key[from..to]);
        read.map_err(|e| self.cut(e))
    }

    /// The key as an integer whose order is the bytes' order (keys of one shape only).
    fn ordered(&self) -> u128 {
        u128::from_be_bytes(self.key)
    }

    fn cut(&self, error: std::io::Error) -> StoreError {
        if error.kind() == ErrorKind::UnexpectedEof {
            self.corrupt("a cut record")
        } else {
            error.into()
        }
    }

    fn corrupt(&self, what: &str) -> StoreError {
        CorruptionError::msg(format!("{what} in {}", self.path.display())).into()
    }
}

/// The records of a table's runs in key order, each key once with its counts summed over the
/// runs that hold it.
pub(super) struct SummedRuns {
    shape: CounterShape,
    readers: Vec<CounterRunReader>,
    /// Each run's current key, the smallest on top.
    heads: BinaryHeap<Reverse<(u128, usize)>>,
    key: [u8; 16],
    counts: Vec<u64>,
}

impl SummedRuns {
    /// Opens `runs`, of `shape`.
    pub(super) fn open(runs: &[PathBuf], shape: CounterShape) -> Result<Self, StoreError> {
        let mut readers = runs
            .iter()
            .map(|path| CounterRunReader::open(path, shape))
            .collect::<Result<Vec<_>, _>>()?;
        let mut heads = BinaryHeap::with_capacity(readers.len());
        for (i, reader) in readers.iter_mut().enumerate() {
            if reader.advance(shape)? {
                heads.push(Reverse((reader.ordered(), i)));
            }
        }
        Ok(Self {
            shape,
            readers,
            heads,
            key: [0; 16],
            counts: vec![0; shape.counts],
        })
    }

    /// Moves to the next key; `false` once every run is read.
    pub(super) fn advance(&mut self) -> Result<bool, StoreError> {
        let Some(&Reverse((first, _))) = self.heads.peek() else {
            return Ok(false);
        };
        self.counts.fill(0);
        while let Some(mut top) = self.heads.peek_mut() {
            let Reverse((key, i)) = *top;
            if key != first {
                break;
            }
            let reader = &mut self.readers[i];
            self.key = reader.key;
            for (sum, count) in self.counts.iter_mut().zip(&reader.counts) {
                *sum = sum.saturating_add(*count);
            }
            if reader.advance(self.shape)? {
                *top = Reverse((reader.ordered(), i));
            } else {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        Ok(true)
    }

    /// The current key (after [`advance`](Self::advance) said there is one).
    pub(super) fn key(&self) -> &[u8] {
        &self.key[..self.shape.key_len]
    }

    /// The current key's counts, summed over the runs.
    pub(super) fn counts(&self) -> &[u64] {
        &self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    type Records = BTreeMap<[u8; 16], (u64, u64)>;
    type Record = ([u8; 16], (u64, u64));

    const SHAPE: CounterShape = CounterShape {
        key_len: 16,
        counts: 2,
    };

    fn write_run(dir: &Path, name: &str, records: &Records) -> Option<PathBuf> {
        let mut run = CounterRunWriter::create(&dir.join(name), SHAPE).expect("create");
        for (key, (a, b)) in records {
            run.put(key, &[*a, *b]).expect("put");
        }
        run.finish().expect("finish")
    }

    fn summed(runs: &[PathBuf]) -> Result<Vec<Record>, StoreError> {
        let mut merged = SummedRuns::open(runs, SHAPE)?;
        let mut out = Vec::new();
        while merged.advance()? {
            let key: [u8; 16] = merged.key().try_into().expect("16 bytes");
            out.push((key, (merged.counts()[0], merged.counts()[1])));
        }
        Ok(out)
    }

    fn key(term: u64, graph: u64) -> [u8; 16] {
        let mut key = [0; 16];
        key[..8].copy_from_slice(&term.to_be_bytes());
        key[8..].copy_from_slice(&graph.to_be_bytes());
        key
    }

    proptest! {
        #[test]
        fn summed_runs_add_up_each_keys_counts(
            runs in prop::collection::vec(
                prop::collection::btree_map(
                    (0u64..50, 0u64..3).prop_map(|(t, g)| key(t << 30, g)),
                    (0u64..1_000, prop_oneof![0u64..3, Just(u64::MAX / 4)]),
                    0..80,
                ),
                0..6,
            )
        ) {
            let dir = tempfile::tempdir().expect("temporary folder");
            let paths: Vec<PathBuf> = runs
                .iter()
                .enumerate()
                .filter_map(|(i, records)| write_run(dir.path(), &format!("{i}.run"), records))
                .collect();
            prop_assert_eq!(paths.len(), runs.iter().filter(|r| !r.is_empty()).count());
            let mut expected: Records = BTreeMap::new();
            for (key, (a, b)) in runs.iter().flatten() {
                // Counts past 2^64 (which no store holds) stay at the largest.
                let sum = expected.entry(*key).or_default();
                sum.0 = sum.0.saturating_add(*a);
                sum.1 = sum.1.saturating_add(*b);
            }
            prop_assert_eq!(summed(&paths).expect("merge"), expected.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_record_of_another_shape_is_refused() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut run = CounterRunWriter::create(&dir.path().join("a.run"), SHAPE).expect("create");
        assert!(run.put(&[1; 8], &[1, 2]).is_err());
        assert!(run.put(&[1; 16], &[1]).is_err());
    }

    #[test]
    fn a_cut_run_is_an_error() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let records: Records = (0..10).map(|i| (key(i, 0), (300, 1))).collect();
        let path = write_run(dir.path(), "a.run", &records).expect("records");
        let len = std::fs::metadata(&path).expect("metadata").len();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_len(len - 2).expect("truncate");
        let error = summed(&[path]).expect_err("a cut record");
        assert!(error.to_string().contains("a cut record"), "{error}");
    }
}
