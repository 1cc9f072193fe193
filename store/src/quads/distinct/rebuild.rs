//! The distinct counts computed from the indexes, every core scanning a part of each.
//!
//! One pass over `spog` counts subjects per predicate and per class and lists the subjects
//! (sorted); one over `posg` counts the objects per predicate that are in that list (or, after
//! a bulk load into an empty store, a file of the pairs the load noted: `object_pairs`); one over
//! `gspo` counts subjects per named graph. Each pass is cut into key ranges that never split
//! what it counts (a subject's quads, a (predicate, object) run, a (graph, subject) run), one
//! per core (see `quads::parts`): the parts' counts add up to those of one scan. After a load of 35 M quads into an
//! empty store, the single scan was 14 s with one core busy. After a bulk load the `spog`
//! pass also reads the entity rank's links, which the load ranks next.

use super::class_predicates::ClassRebuild;
use super::object_pairs::read_pairs;
use super::{is_entity, rdf_type_id, Distinct};
use crate::database::Database;
use crate::encoding::{EncodedQuad, Permutation, TermId};
use crate::error::StoreError;
use crate::kv::{meta_key, Table};
use crate::quads::parts::{in_parallel, key_ranges, part_count, scan, KeyRange};
use crate::quads::reader::Reader;
use crate::rank::{LinkReader, ReadLinks};
use crate::stats::encode_u64;
use rocksdb::WriteBatch;
use rustc_hash::FxHashMap;
use std::ops::ControlFlow;
use std::path::Path;

/// Counts of one kind of distinct pair per term, as one part of a scan found them.
type Counts = FxHashMap<(Distinct, TermId), u64>;

/// The name of the scanning threads.
const THREAD: &str = "distinct-counts";

/// Bytes of one term id in a quad key: a part boundary of `spog` is one id (a subject), of
/// `posg` and `gspo` two (a predicate and object, a graph and subject).
const ID_BYTES: usize = 8;

/// Recomputes the whole table from the indexes (see the module documentation). For the
/// upgrade of an older store and after a bulk load into an empty store or of many quads.
/// Holds no lock: the caller makes sure nothing writes meanwhile.
pub(crate) fn rebuild(database: &Database) -> Result<(), StoreError> {
    rebuild_reading_links(database, false, None).map(drop)
}

/// [`rebuild`]; with `links`, its pass over `spog` also reads the entity rank's links, as the
/// rank would in a scan of its own (see [`LinkReader`]), and gives them back. With
/// `object_pairs`, the file of every distinct (predicate, entity object) pair of `posg` (see
/// `distinct::object_pairs`), the pairs are read from it instead of `posg`.
pub(crate) fn rebuild_reading_links(
    database: &Database,
    links: bool,
    object_pairs: Option<&Path>,
) -> Result<Option<ReadLinks>, StoreError> {
    let parts = rebuild_reading(database, links, object_pairs)?;
    links.then(|| ReadLinks::from_parts(parts)).transpose()
}

/// [`rebuild`]; with `links`, the links each part of `spog` holds, in key order.
fn rebuild_reading(
    database: &Database,
    links: bool,
    object_pairs: Option<&Path>,
) -> Result<Vec<LinkReader>, StoreError> {
    let rdf_type = rdf_type_id(database)?;
    let cut_in = part_count();
    let reader = Reader::new(database, None);
    let mut counts = Counts::default();
    let mut classes = ClassRebuild::default();
    let mut subjects: Vec<TermId> = Vec::new();
    let mut part_links = Vec::new();

    // Subject-first order: a change of (subject, predicate) or (subject, type, class) is a
    // new distinct pair. The parts come back in key order, so the subjects stay sorted.
    let parts = key_ranges(database, Permutation::Spog, ID_BYTES, cut_in)?;
    for part in in_parallel(&reader, &parts, THREAD, |reader, range| {
        subject_part(reader, range, rdf_type, links)
    })? {
        add_counts(&mut counts, part.counts);
        classes.absorb(part.classes);
        subjects.extend(part.subjects);
        part_links.extend(part.links);
    }
    let typed = classes.typed();
    let object_parts = match object_pairs {
        Some(path) => vec![noted_object_pairs(path, &subjects, typed)?],
        None => {
            let parts = key_ranges(database, Permutation::Posg, 2 * ID_BYTES, cut_in)?;
            in_parallel(&reader, &parts, THREAD, |reader, range| {
                object_part(reader, range, &subjects, typed)
            })?
        }
    };
    for (part_counts, part_classes) in object_parts {
        add_counts(&mut counts, part_counts);
        classes.absorb(part_classes);
    }
    let parts = key_ranges(database, Permutation::Gspo, 2 * ID_BYTES, cut_in)?;
    for part in in_parallel(&reader, &parts, THREAD, graph_part)? {
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
    Ok(part_links)
}

/// What one part of the `spog` pass found.
struct SubjectPart {
    counts: Counts,
    classes: ClassRebuild,
    subjects: Vec<TermId>,
    /// The part's links, when asked for.
    links: Option<LinkReader>,
}

fn subject_part(
    reader: &Reader<'_>,
    range: &KeyRange,
    rdf_type: Option<TermId>,
    links: bool,
) -> Result<SubjectPart, StoreError> {
    let mut part = SubjectPart {
        counts: Counts::default(),
        classes: ClassRebuild::default(),
        subjects: Vec::new(),
        links: links.then(LinkReader::default),
    };
    let mut last: Option<EncodedQuad> = None;
    scan(reader, Permutation::Spog, range, |q| {
        if let Some(links) = &mut part.links {
            if links.visit(&q).is_break() {
                return ControlFlow::Break(());
            }
        }
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
        ControlFlow::Continue(())
    })?;
    part.classes.end_of_subjects();
    Ok(part)
}

fn object_part(
    reader: &Reader<'_>,
    range: &KeyRange,
    subjects: &[TermId],
    typed: &[(TermId, TermId)],
) -> Result<(Counts, ClassRebuild), StoreError> {
    let mut counts = Counts::default();
    let mut classes = ClassRebuild::default();
    let mut last: Option<EncodedQuad> = None;
    scan(reader, Permutation::Posg, range, |q| {
        let same = last.is_some_and(|l| l.predicate == q.predicate && l.object == q.object);
        if !same && is_entity(q.object) {
            object_pair(
                &mut counts,
                &mut classes,
                subjects,
                typed,
                q.predicate,
                q.object,
            );
        }
        last = Some(q);
        ControlFlow::Continue(())
    })?;
    Ok((counts, classes))
}

/// What [`object_part`] finds of the whole of `posg`, from the pairs a load noted in `path`.
fn noted_object_pairs(
    path: &Path,
    subjects: &[TermId],
    typed: &[(TermId, TermId)],
) -> Result<(Counts, ClassRebuild), StoreError> {
    let mut counts = Counts::default();
    let mut classes = ClassRebuild::default();
    read_pairs(path, |predicate, object| {
        object_pair(
            &mut counts,
            &mut classes,
            subjects,
            typed,
            predicate,
            object,
        );
    })?;
    Ok((counts, classes))
}

/// Counts one distinct (predicate, entity object) pair of `posg`, if the object is one of
/// the `subjects`.
fn object_pair(
    counts: &mut Counts,
    classes: &mut ClassRebuild,
    subjects: &[TermId],
    typed: &[(TermId, TermId)],
    predicate: TermId,
    object: TermId,
) {
    if subjects.binary_search(&object).is_ok() {
        *counts
            .entry((Distinct::PredicateObjects, predicate))
            .or_default() += 1;
        classes.object_pair(typed, predicate, object);
    }
}

fn graph_part(reader: &Reader<'_>, range: &KeyRange) -> Result<Counts, StoreError> {
    let mut counts = Counts::default();
    let mut last: Option<EncodedQuad> = None;
    scan(reader, Permutation::Gspo, range, |q| {
        let same = last.is_some_and(|l| l.graph == q.graph && l.subject == q.subject);
        if !same && !q.graph.is_default_graph() {
            *counts
                .entry((Distinct::GraphSubjects, q.graph))
                .or_default() += 1;
        }
        last = Some(q);
        ControlFlow::Continue(())
    })?;
    Ok(counts)
}

fn add_counts(into: &mut Counts, part: Counts) {
    for (key, n) in part {
        *into.entry(key).or_default() += n;
    }
}
