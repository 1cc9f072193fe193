//! An index cut into key ranges that every core scans at once, for whole-store passes that
//! add up per part: the distinct counts' rebuild and the entity rank's reading of the links.
//!
//! The cuts are key prefixes (a subject, a predicate and object), so that no run of quads a
//! pass counts or groups is split between two parts, and they follow the index's files, so
//! that the parts hold about the same bytes. A thread per core takes the next part in turn,
//! each with a reader of the same snapshot ([`Reader::sibling`]), so the parts together are
//! one state of the store.

use crate::database::Database;
use crate::encoding::{prefix_number, EncodedQuad, Permutation};
use crate::error::{CorruptionError, StoreError};
use crate::kv::permutation_table;
use crate::quads::reader::Reader;
use crate::threads::with_helpers;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A part of a scan: from `start` (inclusive) to `end` (exclusive); `None` is the table's
/// first or last key.
#[derive(Debug)]
pub(crate) struct KeyRange {
    start: Option<Vec<u8>>,
    end: Option<Vec<u8>>,
}

/// The threads of a whole-store pass: one per core, two at least, so that the cut scans are
/// what every store runs, tests included.
pub(crate) fn thread_count() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

/// The parts a whole-store pass is cut into: a few per thread, taken in turn, so that the
/// threads finish together however the quads crowd (two halves of `spog` by bytes on disk
/// held 21.6 and 13.7 M of BSBM's 35 M quads).
pub(crate) fn part_count() -> usize {
    PARTS_PER_THREAD * thread_count()
}

/// Parts per thread of a whole-store pass.
const PARTS_PER_THREAD: usize = 8;

/// Cuts the index of `permutation` into at most `parts` ranges, each boundary a key prefix of
/// `prefix_len` bytes (at most 16), so that no run of quads sharing such a prefix is split.
/// With as many files as parts, the ranges hold about the same bytes on disk; with fewer, the
/// boundaries are spread evenly between the first key and the last.
pub(crate) fn key_ranges(
    database: &Database,
    permutation: Permutation,
    prefix_len: usize,
    parts: usize,
) -> Result<Vec<KeyRange>, StoreError> {
    let table = permutation_table(permutation);
    let mut files: Vec<(Vec<u8>, Vec<u8>, usize)> = database
        .db()
        .live_files()?
        .into_iter()
        .filter(|f| f.column_family_name == table.name())
        .filter_map(|f| Some((f.start_key?, f.end_key?, f.size)))
        .collect();
    files.sort_unstable();
    let prefix = |key: &[u8]| key[..prefix_len.min(key.len())].to_vec();
    let mut bounds: Vec<Vec<u8>> = Vec::new();
    if files.len() >= parts {
        let total: usize = files.iter().map(|(_, _, size)| size).sum();
        let mut before = 0;
        let mut share = 1;
        for (start, _, size) in &files {
            if share < parts && before > 0 && before * parts >= total * share {
                bounds.push(prefix(start));
                share += 1;
            }
            before += size;
        }
    } else if let (Some((first, _, _)), Some(last)) =
        (files.first(), files.iter().map(|(_, end, _)| end).max())
    {
        let (first, last) = (prefix_number(&prefix(first)), prefix_number(&prefix(last)));
        let step = (last - first) / parts as u128;
        for share in 1..parts {
            let bound = (first + step * share as u128).to_be_bytes();
            bounds.push(bound[..prefix_len.min(16)].to_vec());
        }
    }
    let mut ranges = Vec::with_capacity(bounds.len() + 1);
    let mut start = None;
    for bound in bounds {
        // Files of several levels may give a bound twice or out of order.
        if start.as_ref().is_some_and(|s: &Vec<u8>| *s >= bound) {
            continue;
        }
        ranges.push(KeyRange {
            start: start.take(),
            end: Some(bound.clone()),
        });
        start = Some(bound);
    }
    ranges.push(KeyRange { start, end: None });
    Ok(ranges)
}

/// Runs `job` on every range, on one thread per core (named `thread_name`), each with a
/// reader of `reader`'s snapshot, the threads taking the next range in turn; the results
/// come back in the ranges' order. When the store committed since `reader` was made (no
/// second reader of its state), the ranges are run one after the other on `reader`.
pub(crate) fn in_parallel<'a, T: Send>(
    reader: &Reader<'a>,
    ranges: &[KeyRange],
    thread_name: &str,
    job: impl Fn(&Reader<'a>, &KeyRange) -> Result<T, StoreError> + Sync,
) -> Result<Vec<T>, StoreError> {
    let threads = thread_count().min(ranges.len());
    let mut siblings = Vec::with_capacity(threads);
    for _ in 1..threads {
        match reader.sibling()? {
            Some(sibling) => siblings.push(sibling),
            None => return ranges.iter().map(|range| job(reader, range)).collect(),
        }
    }
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<T>>> = Mutex::new(ranges.iter().map(|_| None).collect());
    let work = |reader: &Reader<'a>| -> Result<(), StoreError> {
        // The helpers' scans too (`Reader::new` quiets only the thread it runs on).
        crate::kv::quiet_perf_counters();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(range) = ranges.get(i) else {
                return Ok(());
            };
            let result = job(reader, range).inspect_err(|_| {
                // The other threads take no further range.
                next.store(ranges.len(), Ordering::Relaxed);
            })?;
            done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
        }
    };
    let work = &work;
    with_helpers(
        thread_name,
        siblings.into_iter().map(|sibling| move || work(&sibling)),
        || work(reader),
    )?;
    done.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|result| result.ok_or_else(|| CorruptionError::msg("a part left unread").into()))
        .collect()
}

/// Visits the committed quads of one part of an index in key order, until `visit` breaks: a
/// scan in total order (which reads ahead and leaves the block cache alone), stopped at the
/// part's end.
pub(crate) fn scan(
    reader: &Reader<'_>,
    permutation: Permutation,
    range: &KeyRange,
    mut visit: impl FnMut(EncodedQuad) -> ControlFlow<()>,
) -> Result<(), StoreError> {
    for quad in reader.scan_from(permutation, range.start.as_deref().unwrap_or_default()) {
        let quad = quad?;
        if range
            .end
            .as_ref()
            .is_some_and(|end| permutation.key(&quad).as_slice() >= end.as_slice())
        {
            break;
        }
        if visit(quad).is_break() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kv::StoreOptions;
    use crate::load::{BulkLoader, Input};
    use std::collections::BTreeSet;

    /// A store in a temporary folder with `text` (N-Quads) bulk-loaded.
    pub(crate) fn loaded(text: &str) -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().expect("temporary folder");
        let data = dir.path().join("data.nq");
        std::fs::write(&data, text).expect("write");
        let database =
            Database::open(&dir.path().join("store"), StoreOptions::default()).expect("open");
        BulkLoader::on(&database)
            .load(&[Input::File(data)])
            .expect("bulk load");
        (dir, database)
    }

    /// Every quad of the parts of `permutation`, in the order visited, each part on its
    /// thread.
    fn keys_in_parts(
        database: &Database,
        permutation: Permutation,
        ranges: &[KeyRange],
    ) -> Vec<Vec<Vec<u8>>> {
        let reader = Reader::new(database, None);
        in_parallel(&reader, ranges, "test-parts", |reader, range| {
            let mut keys = Vec::new();
            scan(reader, permutation, range, |q| {
                keys.push(permutation.key(&q).to_vec());
                ControlFlow::Continue(())
            })?;
            Ok(keys)
        })
        .expect("scans")
    }

    #[test]
    fn parts_cover_the_index_without_splitting_a_prefix() {
        let mut text = String::new();
        for s in 0..300 {
            for p in 0..4 {
                text.push_str(&format!(
                    "<http://e/s{s}> <http://e/p{p}> <http://e/o{}> .\n",
                    (s * 7 + p) % 50
                ));
            }
        }
        let (_dir, database) = loaded(&text);
        for (permutation, prefix_len) in [(Permutation::Spog, 8), (Permutation::Posg, 16)] {
            let ranges = key_ranges(&database, permutation, prefix_len, 3).expect("ranges");
            assert!(ranges.len() > 1, "{permutation:?}: {ranges:?}");
            let parts = keys_in_parts(&database, permutation, &ranges);
            let prefixes_seen: Vec<BTreeSet<Vec<u8>>> = parts
                .iter()
                .map(|keys| keys.iter().map(|k| k[..prefix_len].to_vec()).collect())
                .collect();
            let all: Vec<&Vec<u8>> = parts.iter().flatten().collect();
            assert_eq!(all.len(), 1200, "{permutation:?}: every quad once");
            assert!(all.windows(2).all(|w| w[0] < w[1]), "in key order");
            for (i, a) in prefixes_seen.iter().enumerate() {
                for b in &prefixes_seen[i + 1..] {
                    assert!(a.is_disjoint(b), "{permutation:?}: a prefix in two parts");
                }
            }
        }
    }

    #[test]
    fn a_part_starting_at_a_key_no_quad_has_is_read_whole() {
        // Two subjects: the cut between their ids is a subject no quad has, which the prefix
        // filter of `spog`'s one file rules out (a scan from there without total order read
        // nothing).
        let (_dir, database) = loaded(
            "<http://e/s0> <http://e/p> <http://e/o> .\n\
             <http://e/o> <http://e/p> <http://e/s1> .\n\
             <http://e/s1> <http://e/p> <http://e/o> .\n",
        );
        let ranges = key_ranges(&database, Permutation::Spog, 8, 2).expect("ranges");
        assert_eq!(ranges.len(), 2);
        let parts = keys_in_parts(&database, Permutation::Spog, &ranges);
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), 3);
    }

    #[test]
    fn a_commit_after_the_reader_runs_the_parts_on_its_snapshot() {
        let (_dir, database) = loaded(
            "<http://e/s0> <http://e/p> <http://e/o> .\n\
             <http://e/s1> <http://e/p> <http://e/o> .\n",
        );
        let reader = Reader::new(&database, None);
        let mut transaction = crate::quads::writer::Transaction::new(&database);
        let iri = |s: &str| oxrdf::NamedNode::new_unchecked(format!("http://e/{s}"));
        let quad = oxrdf::Quad::new(
            iri("s2"),
            iri("p"),
            iri("o"),
            oxrdf::GraphName::DefaultGraph,
        );
        transaction.insert(quad.as_ref()).expect("insert");
        transaction.commit().expect("commit");
        let ranges = key_ranges(&database, Permutation::Spog, 8, 2).expect("ranges");
        let read = in_parallel(&reader, &ranges, "test-parts", |reader, range| {
            let mut n = 0;
            scan(reader, Permutation::Spog, range, |_| {
                n += 1;
                ControlFlow::Continue(())
            })?;
            Ok(n)
        })
        .expect("scans");
        assert_eq!(
            read.iter().sum::<usize>(),
            2,
            "the reader's state, not the commit's"
        );
    }
}
