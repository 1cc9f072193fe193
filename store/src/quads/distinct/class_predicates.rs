//! Distinct counts per class and predicate: how many instances of a class are subjects of a
//! predicate, and how many are its objects.
//!
//! These answer the `properties` and `properties-in` views of the instances of one class
//! without walking them (the 2,000,000 offers of BSBM 100k have 20,000,000 quads), and say
//! whether every subject of a predicate is an instance of a class (its count for the class
//! equals the predicate's distinct subjects), so that a view over the class's values of the
//! predicate need not list the instances.
//!
//! They live in the `distinct_stats` table beside the other distinct counts, under the kind
//! byte of a [`ClassPredicates`], the class id and the predicate id, and are moved by the same
//! commits and loads ([`ClassChanges`]) and recomputed by the same rebuild
//! ([`ClassRebuild`]). An instance is any subject with `rdf:type` the class in some graph; a
//! quad of the predicate counts in any graph too.

use super::{is_entity, Pattern, Probe};
use crate::encoding::{EncodedQuad, TermId};
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use crate::quads::reader::{prefix_upper_bound, Reader};
use crate::stats::decode_u64;
use rustc_hash::{FxHashMap, FxHashSet};

/// Which end of a predicate's quads the instances of a class are counted at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClassPredicates {
    /// Per class and predicate: the distinct instances of the class that are subjects of the
    /// predicate (a `properties` view of the class's instances).
    Subjects,
    /// Per class and predicate: the distinct instances of the class that are objects of the
    /// predicate (a `properties-in` view).
    Objects,
}

impl ClassPredicates {
    fn byte(self) -> u8 {
        match self {
            Self::Subjects => b'C',
            Self::Objects => b'I',
        }
    }

    /// The table key of one count: kind byte, class, predicate.
    pub(super) fn key(self, class: TermId, predicate: TermId) -> Vec<u8> {
        let mut key = Vec::with_capacity(17);
        key.push(self.byte());
        key.extend_from_slice(&class.to_be_bytes());
        key.extend_from_slice(&predicate.to_be_bytes());
        key
    }
}

/// Counts per class and predicate as (class, predicate, count).
pub type ClassPredicateCounts = Vec<(TermId, TermId, u64)>;

/// A count's position: kind, class, predicate.
type CountKey = (ClassPredicates, TermId, TermId);

/// Finds the changes of the class-predicate counts a change makes.
///
/// For every subject whose predicates or classes change, each (class, predicate) pair of it
/// before or after the change is looked at: the subject counts for the pair while it has the
/// class and a quad of the predicate. Likewise for objects: an entity counts for (class,
/// predicate) while it has the class and is the object of a quad of the predicate. Whether a
/// pattern had and has a match comes from the caller's `known` states where the change touched
/// it, else from the probe.
pub(super) struct ClassChanges<'p, 'db, F> {
    probe: &'p Probe<'db, F>,
    rdf_type: TermId,
    /// Per pattern: whether it had a match before the change and has one after.
    known: FxHashMap<Pattern, (bool, bool)>,
    /// The added quads by subject (predicate, object).
    added_by_subject: FxHashMap<TermId, Vec<(TermId, TermId)>>,
}

impl<'p, 'db, F: Fn(TermId) -> bool> ClassChanges<'p, 'db, F> {
    /// For a change whose touched patterns' states are `known` (see [`Probe::had_has`]).
    pub(super) fn new<'q>(
        probe: &'p Probe<'db, F>,
        rdf_type: TermId,
        known: FxHashMap<Pattern, (bool, bool)>,
        added: impl IntoIterator<Item = &'q EncodedQuad>,
    ) -> Self {
        let mut added_by_subject: FxHashMap<TermId, Vec<(TermId, TermId)>> = FxHashMap::default();
        for quad in added {
            added_by_subject
                .entry(quad.subject)
                .or_default()
                .push((quad.predicate, quad.object));
        }
        Self {
            probe,
            rdf_type,
            known,
            added_by_subject,
        }
    }

    /// The changes of the counts for the changed quads (added and removed alike), nonzero.
    pub(super) fn deltas<'q>(
        mut self,
        changed: impl IntoIterator<Item = &'q EncodedQuad>,
    ) -> Result<Vec<(Vec<u8>, i64)>, StoreError> {
        let mut predicates_by_subject: FxHashMap<TermId, Vec<TermId>> = FxHashMap::default();
        let mut classes_by_subject: FxHashMap<TermId, Vec<TermId>> = FxHashMap::default();
        let mut predicates_by_object: FxHashMap<TermId, Vec<TermId>> = FxHashMap::default();
        for quad in changed {
            predicates_by_subject
                .entry(quad.subject)
                .or_default()
                .push(quad.predicate);
            if quad.predicate == self.rdf_type {
                classes_by_subject
                    .entry(quad.subject)
                    .or_default()
                    .push(quad.object);
            }
            if is_entity(quad.object) {
                predicates_by_object
                    .entry(quad.object)
                    .or_default()
                    .push(quad.predicate);
            }
        }
        // (entity, class, predicate) triples whose membership may change, per kind.
        let mut subject_side: FxHashSet<(TermId, TermId, TermId)> = FxHashSet::default();
        let mut object_side: FxHashSet<(TermId, TermId, TermId)> = FxHashSet::default();
        for (&s, predicates) in &predicates_by_subject {
            for class in self.classes_of(s)? {
                for &p in predicates {
                    subject_side.insert((s, class, p));
                }
            }
        }
        for (&o, predicates) in &predicates_by_object {
            for class in self.classes_of(o)? {
                for &p in predicates {
                    object_side.insert((o, class, p));
                }
            }
        }
        for (&x, classes) in &classes_by_subject {
            for p in self.predicates_of_subject(x)? {
                for &class in classes {
                    subject_side.insert((x, class, p));
                }
            }
            for p in self.probe.predicates_of(x)? {
                for &class in classes {
                    object_side.insert((x, class, p));
                }
            }
        }
        let mut deltas: FxHashMap<CountKey, i64> = FxHashMap::default();
        for (x, class, p) in subject_side {
            let typed = self.state([Some(x), Some(self.rdf_type), Some(class), None])?;
            let linked = self.state([Some(x), Some(p), None, None])?;
            count(
                &mut deltas,
                (ClassPredicates::Subjects, class, p),
                typed,
                linked,
            );
        }
        for (x, class, p) in object_side {
            let typed = self.state([Some(x), Some(self.rdf_type), Some(class), None])?;
            let linked = self.state([None, Some(p), Some(x), None])?;
            count(
                &mut deltas,
                (ClassPredicates::Objects, class, p),
                typed,
                linked,
            );
        }
        Ok(deltas
            .into_iter()
            .filter(|(_, d)| *d != 0)
            .map(|((kind, class, p), d)| (kind.key(class, p), d))
            .collect())
    }

    /// Whether a pattern had a match and has one, from the change's known states or the probe
    /// (a pattern the change does not touch).
    fn state(&mut self, pattern: Pattern) -> Result<(bool, bool), StoreError> {
        if let Some(known) = self.known.get(&pattern) {
            return Ok(*known);
        }
        let state = self.probe.had_has(&pattern, false, false)?;
        self.known.insert(pattern, state);
        Ok(state)
    }

    /// The classes `x` has before or after the change.
    fn classes_of(&self, x: TermId) -> Result<Vec<TermId>, StoreError> {
        let mut out: Vec<TermId> = self
            .added_of(x)
            .filter(|(p, _)| *p == self.rdf_type)
            .map(|(_, o)| o)
            .collect();
        if !(self.probe.is_new)(x) {
            for quad in
                self.probe
                    .before
                    .quads_for_pattern(Some(x), Some(self.rdf_type), None, None)
            {
                out.push(quad?.object);
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The predicates `x` is the subject of before or after the change.
    fn predicates_of_subject(&self, x: TermId) -> Result<Vec<TermId>, StoreError> {
        let mut out: Vec<TermId> = self.added_of(x).map(|(p, _)| p).collect();
        if !(self.probe.is_new)(x) {
            for quad in self
                .probe
                .before
                .quads_for_pattern(Some(x), None, None, None)
            {
                let p = quad?.predicate;
                if out.last() != Some(&p) {
                    out.push(p);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    fn added_of(&self, x: TermId) -> impl Iterator<Item = (TermId, TermId)> + '_ {
        self.added_by_subject
            .get(&x)
            .into_iter()
            .flat_map(|pairs| pairs.iter().copied())
    }
}

/// Moves a count by the change of "typed and linked" from before to after.
fn count(
    deltas: &mut FxHashMap<CountKey, i64>,
    key: CountKey,
    (had_type, has_type): (bool, bool),
    (had_link, has_link): (bool, bool),
) {
    let (had, has) = (had_type && had_link, has_type && has_link);
    if had != has {
        *deltas.entry(key).or_default() += if has { 1 } else { -1 };
    }
}

/// The class-predicate counts of a whole store, gathered during the rebuild's scans: the
/// subjects in `spog` order ([`ClassRebuild::subject_quad`], then
/// [`ClassRebuild::end_of_subjects`]), then each distinct (predicate, entity object) of `posg`
/// ([`ClassRebuild::object_pair`]).
#[derive(Debug, Default)]
pub(super) struct ClassRebuild {
    counts: FxHashMap<CountKey, u64>,
    subject: Option<TermId>,
    /// The current subject's classes and predicates (each run of one predicate once).
    classes: Vec<TermId>,
    predicates: Vec<TermId>,
    /// Every (instance, class), in instance order: the classes of objects met in `posg`.
    typed: Vec<(TermId, TermId)>,
}

impl ClassRebuild {
    /// Notes one quad of the `spog` scan.
    pub(super) fn subject_quad(&mut self, quad: &EncodedQuad, rdf_type: Option<TermId>) {
        if self.subject != Some(quad.subject) {
            self.end_of_subjects();
            self.subject = Some(quad.subject);
        }
        if self.predicates.last() != Some(&quad.predicate) {
            self.predicates.push(quad.predicate);
        }
        if Some(quad.predicate) == rdf_type && self.classes.last() != Some(&quad.object) {
            self.classes.push(quad.object);
            self.typed.push((quad.subject, quad.object));
        }
    }

    /// Counts the current subject (after its last quad).
    pub(super) fn end_of_subjects(&mut self) {
        for &class in &self.classes {
            for &p in &self.predicates {
                *self
                    .counts
                    .entry((ClassPredicates::Subjects, class, p))
                    .or_default() += 1;
            }
        }
        self.classes.clear();
        self.predicates.clear();
    }

    /// Notes one distinct (predicate, object) of the `posg` scan, the object an entity;
    /// `typed` are the (instance, class) pairs of the whole `spog` scan.
    pub(super) fn object_pair(
        &mut self,
        typed: &[(TermId, TermId)],
        predicate: TermId,
        object: TermId,
    ) {
        let start = typed.partition_point(|(x, _)| *x < object);
        for (_, class) in typed[start..].iter().take_while(|(x, _)| *x == object) {
            *self
                .counts
                .entry((ClassPredicates::Objects, *class, predicate))
                .or_default() += 1;
        }
    }

    /// Every (instance, class) of the `spog` scan so far, in instance order.
    pub(super) fn typed(&self) -> &[(TermId, TermId)] {
        &self.typed
    }

    /// Adds what a scan of a later part of the same index counted (its subjects ended).
    pub(super) fn absorb(&mut self, later: ClassRebuild) {
        for (key, n) in later.counts {
            *self.counts.entry(key).or_default() += n;
        }
        self.typed.extend(later.typed);
    }

    /// The table entries: key and count.
    pub(super) fn entries(self) -> impl Iterator<Item = (Vec<u8>, u64)> {
        self.counts
            .into_iter()
            .map(|((kind, class, p), n)| (kind.key(class, p), n))
    }
}

impl Reader<'_> {
    /// The counts of `kind` of one class (`None`: of every class) as (class, predicate,
    /// count), in class then predicate id order, nonzero; `None` when the store does not keep
    /// these counts (a store of an older format opened read-only). Committed state only.
    pub fn class_predicate_counts(
        &self,
        kind: ClassPredicates,
        class: Option<TermId>,
    ) -> Result<Option<ClassPredicateCounts>, StoreError> {
        if !self.keeps_class_predicates() {
            return Ok(None);
        }
        let mut prefix = vec![kind.byte()];
        if let Some(class) = class {
            prefix.extend_from_slice(&class.to_be_bytes());
        }
        let id = |key: &[u8], at: usize| -> Result<TermId, StoreError> {
            let bytes: [u8; 8] = key
                .get(at..at + 8)
                .and_then(|k| k.try_into().ok())
                .ok_or_else(|| CorruptionError::msg("distinct_stats key of the wrong length"))?;
            Ok(TermId::from_be_bytes(bytes))
        };
        let mut out = Vec::new();
        let mut iter = self.raw_iterator(Table::DistinctStats, prefix_upper_bound(&prefix));
        iter.seek(&prefix);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            if !key.starts_with(&prefix) {
                break;
            }
            out.push((id(key, 1)?, id(key, 9)?, decode_u64(value)?));
            iter.next();
        }
        iter.status()?;
        Ok(Some(out))
    }

    /// The count of `kind` for the instances of `class` and `predicate`; `None` when the
    /// store does not keep these counts (see [`Reader::class_predicate_counts`]).
    pub fn class_predicate_count(
        &self,
        kind: ClassPredicates,
        class: TermId,
        predicate: TermId,
    ) -> Result<Option<u64>, StoreError> {
        if !self.keeps_class_predicates() {
            return Ok(None);
        }
        self.get(Table::DistinctStats, &kind.key(class, predicate))?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
            .map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;

    #[test]
    fn the_rebuild_counts_each_pair_once_per_instance() {
        let id = |n| TermId::new(TermKind::Iri, n);
        let (rdf_type, p, q, class) = (id(1), id(2), id(3), id(4));
        let mut rebuild = ClassRebuild::default();
        // Subject 10: typed twice the same class (two graphs), two quads of p, one of q.
        for quad in [
            EncodedQuad::new(id(10), rdf_type, class, TermId::DEFAULT_GRAPH),
            EncodedQuad::new(id(10), rdf_type, class, id(99)),
            EncodedQuad::new(id(10), p, id(11), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(id(10), p, id(12), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(id(10), q, id(12), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(id(11), p, id(10), TermId::DEFAULT_GRAPH),
        ] {
            rebuild.subject_quad(&quad, Some(rdf_type));
        }
        rebuild.end_of_subjects();
        // The object pass counts in a part of its own, added to the subject pass's.
        let mut objects = ClassRebuild::default();
        objects.object_pair(rebuild.typed(), p, id(10));
        objects.object_pair(rebuild.typed(), p, id(11));
        rebuild.absorb(objects);
        let counts: FxHashMap<Vec<u8>, u64> = rebuild.entries().collect();
        let get = |kind: ClassPredicates, predicate| counts.get(&kind.key(class, predicate));
        assert_eq!(get(ClassPredicates::Subjects, rdf_type), Some(&1));
        assert_eq!(get(ClassPredicates::Subjects, p), Some(&1));
        assert_eq!(get(ClassPredicates::Subjects, q), Some(&1));
        assert_eq!(get(ClassPredicates::Objects, p), Some(&1));
        assert_eq!(counts.len(), 4);
    }
}
