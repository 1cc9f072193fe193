//! The distinct counts computed from the indexes, every core scanning a part of each.
//!
//! One pass over `spog` counts subjects per predicate and per class and lists the subjects
//! (sorted); one over `posg` counts the objects per predicate that are in that list; one over
//! `gspo` counts subjects per named graph. Each pass is cut into key ranges that never split
//! what it counts (a subject's quads, a (predicate, object) run, a (graph, subject) run), one
//! per core: the parts' counts add up to those of one scan. After a load of 35 M quads into an
//! empty store, the single scan was 14 s with one core busy.

use super::class_predicates::ClassRebuild;
use super::{is_entity, rdf_type_id, Distinct};
use crate::database::Database;
use crate::encoding::{EncodedQuad, Permutation, TermId};
use crate::error::StoreError;
use crate::kv::{meta_key, permutation_table, Table};
use crate::quads::reader::Reader;
use crate::stats::encode_u64;
use rocksdb::WriteBatch;
use rustc_hash::FxHashMap;

/// Counts of one kind of distinct pair per term, as one part of a scan found them.
type Counts = FxHashMap<(Distinct, TermId), u64>;

/// Bytes of one term id in a quad key: a part boundary of `spog` is one id (a subject), of
/// `posg` and `gspo` two (a predicate and object, a graph and subject).
const ID_BYTES: usize = 8;

/// Recomputes the whole table from the indexes (see the module documentation). For the
/// upgrade of an older store and after a bulk load into an empty store or of many quads.
/// Holds no lock: the caller makes sure nothing writes meanwhile.
pub(crate) fn rebuild(database: &Database) -> Result<(), StoreError> {
    let rdf_type = rdf_type_id(database)?;
    // Two parts at least, so that the cut scans are what every store runs, tests included.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
    let mut counts = Counts::default();
    let mut classes = ClassRebuild::default();
    let mut subjects: Vec<TermId> = Vec::new();

    // Subject-first order: a change of (subject, predicate) or (subject, type, class) is a
    // new distinct pair. The parts come back in key order, so the subjects stay sorted.
    let parts = key_ranges(database, Permutation::Spog, ID_BYTES, workers)?;
    for part in in_parallel(&parts, |range| subject_part(database, range, rdf_type))? {
        add_counts(&mut counts, part.counts);
        classes.absorb(part.classes);
        subjects.extend(part.subjects);
    }
    let typed = classes.typed();
    let parts = key_ranges(database, Permutation::Posg, 2 * ID_BYTES, workers)?;
    let object_parts = in_parallel(&parts, |range| {
        object_part(database, range, &subjects, typed)
    })?;
    for (part_counts, part_classes) in object_parts {
        add_counts(&mut counts, part_counts);
        classes.absorb(part_classes);
    }
    let parts = key_ranges(database, Permutation::Gspo, 2 * ID_BYTES, workers)?;
    for part in in_parallel(&parts, |range| graph_part(database, range))? {
        add_counts(&mut counts, part);
    }

    let mut entries: Vec<((Distinct, TermId), u64)> = counts.into_iter().collect();
    entries.sort_unstable();
    let cf = database.cf(Table::DistinctStats);
    let mut batch = WriteBatch::default();
    batch.delete_range_cf(cf, [0_u8].as_slice(), [u8::MAX; 10].as_slice());
    for ((kind, term), count) in entries {
        batch.put_cf(cf, kind.key(term), encode_u64(count));
    }
    for (key, count) in classes.entries() {
        batch.put_cf(cf, key, encode_u64(count));
    }
    batch.delete_cf(database.cf(Table::Meta), meta_key::DISTINCT_STATS_STALE);
    database.write(batch, &database.write_options())?;
    Ok(())
}

/// What one part of the `spog` pass found.
struct SubjectPart {
    counts: Counts,
    classes: ClassRebuild,
    subjects: Vec<TermId>,
}

fn subject_part(
    database: &Database,
    range: &KeyRange,
    rdf_type: Option<TermId>,
) -> Result<SubjectPart, StoreError> {
    let mut part = SubjectPart {
        counts: Counts::default(),
        classes: ClassRebuild::default(),
        subjects: Vec::new(),
    };
    let mut last: Option<EncodedQuad> = None;
    scan(database, Permutation::Spog, range, |q| {
        part.classes.subject_quad(&q, rdf_type);
        if last.is_none_or(|l| l.subject != q.subject) {
            part.subjects.push(q.subject);
            *part
                .counts
                .entry((Distinct::Subjects, TermId::DEFAULT_GRAPH))
                .or_default() += 1;
        }
        let same_sp = last.is_some_and(|l| l.subject == q.subject && l.predicate == q.predicate);
        if !same_sp {
            *part
                .counts
                .entry((Distinct::PredicateSubjects, q.predicate))
                .or_default() += 1;
        }
        if Some(q.predicate) == rdf_type && !(same_sp && last.is_some_and(|l| l.object == q.object))
        {
            *part
                .counts
                .entry((Distinct::ClassSubjects, q.object))
                .or_default() += 1;
        }
        last = Some(q);
    })?;
    part.classes.end_of_subjects();
    Ok(part)
}

fn object_part(
    database: &Database,
    range: &KeyRange,
    subjects: &[TermId],
    typed: &[(TermId, TermId)],
) -> Result<(Counts, ClassRebuild), StoreError> {
    let mut counts = Counts::default();
    let mut classes = ClassRebuild::default();
    let mut last: Option<EncodedQuad> = None;
    scan(database, Permutation::Posg, range, |q| {
        let same = last.is_some_and(|l| l.predicate == q.predicate && l.object == q.object);
        if !same && is_entity(q.object) && subjects.binary_search(&q.object).is_ok() {
            *counts
                .entry((Distinct::PredicateObjects, q.predicate))
                .or_default() += 1;
            classes.object_pair(typed, q.predicate, q.object);
        }
        last = Some(q);
    })?;
    Ok((counts, classes))
}

fn graph_part(database: &Database, range: &KeyRange) -> Result<Counts, StoreError> {
    let mut counts = Counts::default();
    let mut last: Option<EncodedQuad> = None;
    scan(database, Permutation::Gspo, range, |q| {
        let same = last.is_some_and(|l| l.graph == q.graph && l.subject == q.subject);
        if !same && !q.graph.is_default_graph() {
            *counts
                .entry((Distinct::GraphSubjects, q.graph))
                .or_default() += 1;
        }
        last = Some(q);
    })?;
    Ok(counts)
}

fn add_counts(into: &mut Counts, part: Counts) {
    for (key, n) in part {
        *into.entry(key).or_default() += n;
    }
}

/// A part of a scan: from `start` (inclusive) to `end` (exclusive); `None` is the table's
/// first or last key.
#[derive(Debug)]
struct KeyRange {
    start: Option<Vec<u8>>,
    end: Option<Vec<u8>>,
}

/// Cuts the index of `permutation` into at most `parts` ranges, each boundary a key prefix of
/// `prefix_len` bytes (at most 16), so that no run of quads sharing such a prefix is split.
/// With as many files as parts, the ranges hold about the same bytes on disk; with fewer, the
/// boundaries are spread evenly between the first key and the last.
fn key_ranges(
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
        let (first, last) = (as_number(&prefix(first)), as_number(&prefix(last)));
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

/// A key prefix of at most 16 bytes as a number with the same order.
fn as_number(prefix: &[u8]) -> u128 {
    let mut bytes = [0_u8; 16];
    let n = prefix.len().min(16);
    bytes[..n].copy_from_slice(&prefix[..n]);
    u128::from_be_bytes(bytes)
}

/// Runs `job` on every range, a thread each; the results come back in the ranges' order.
fn in_parallel<T: Send>(
    ranges: &[KeyRange],
    job: impl Fn(&KeyRange) -> Result<T, StoreError> + Sync,
) -> Result<Vec<T>, StoreError> {
    let job = &job;
    std::thread::scope(|scope| {
        let handles = ranges
            .iter()
            .map(|range| {
                std::thread::Builder::new()
                    .name("distinct-counts".to_owned())
                    .spawn_scoped(scope, move || job(range))
            })
            .collect::<Result<Vec<_>, _>>()?;
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
            .collect()
    })
}

/// Visits the quads of one part of an index in key order: a reader's scan in total order
/// (which reads ahead and leaves the block cache alone), stopped at the part's end.
fn scan(
    database: &Database,
    permutation: Permutation,
    range: &KeyRange,
    mut visit: impl FnMut(EncodedQuad),
) -> Result<(), StoreError> {
    let reader = Reader::new(database, None);
    for quad in reader.scan_from(permutation, range.start.as_deref().unwrap_or_default()) {
        let quad = quad?;
        if range
            .end
            .as_ref()
            .is_some_and(|end| permutation.key(&quad).as_slice() >= end.as_slice())
        {
            break;
        }
        visit(quad);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::StoreOptions;
    use crate::load::{BulkLoader, Input};
    use std::collections::BTreeSet;

    fn loaded(text: &str) -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().expect("temporary folder");
        let data = dir.path().join("data.nt");
        std::fs::write(&data, text).expect("write");
        let database =
            Database::open(&dir.path().join("store"), StoreOptions::default()).expect("open");
        BulkLoader::on(&database)
            .load(&[Input::File(data)])
            .expect("bulk load");
        (dir, database)
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
            let mut all = Vec::new();
            let mut prefixes_seen: Vec<BTreeSet<Vec<u8>>> = Vec::new();
            for range in &ranges {
                let mut prefixes = BTreeSet::new();
                scan(&database, permutation, range, |q| {
                    let key = permutation.key(&q);
                    prefixes.insert(key[..prefix_len].to_vec());
                    all.push(key.to_vec());
                })
                .expect("scan");
                prefixes_seen.push(prefixes);
            }
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
        let mut read = 0;
        for range in &ranges {
            scan(&database, Permutation::Spog, range, |_| read += 1).expect("scan");
        }
        assert_eq!(read, 3);
    }
}
