//! Distinct counts kept beside the quads, for the views a visitor opens first.
//!
//! The per-term statistics (`stats`) count quads; the faceted browser's start views count
//! distinct entities. These are kept in the `distinct_stats` table, each under a kind byte
//! and a term id:
//!
//! - [`Distinct::ClassSubjects`]: per class, the subjects with `rdf:type` it (in any graph);
//! - [`Distinct::PredicateSubjects`]: per predicate, its distinct subjects;
//! - [`Distinct::PredicateObjects`]: per predicate, its distinct objects that are subjects
//!   too (the entities a `properties-in` start view counts);
//! - [`Distinct::GraphSubjects`]: per named graph, its distinct subjects;
//! - [`Distinct::Subjects`]: the store's distinct subjects, one count under the default
//!   graph's id.
//!
//! Beside them, per class and predicate, the instances of the class that are subjects or
//! objects of the predicate ([`ClassPredicates`], see [`class_predicates`]).
//!
//! A commit finds, for every such (key, entity) pair its changed quads touch, whether the
//! pair had a quad before and has one after — from the transaction's own quads where they
//! decide it, else by one seek in the committed store and one in the store with the
//! transaction on top — and moves the counts by ±1. A bulk load into a non-empty store does
//! the same from its new quads ([`LoadedQuads`]) unless they are many; a load into an empty
//! store, a large load and the upgrade of an older store compute the table from the indexes
//! ([`rebuild`]).

mod class_predicates;
mod object_pairs;
mod rebuild;

pub use class_predicates::{ClassPredicateCounts, ClassPredicates};

use crate::database::{Database, IdMark, WriterState};
use crate::encoding::{encode_term_bytes, EncodedQuad, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::kv::{meta_key, multi_get, Table};
use crate::quads::overlay::Overlay;
use crate::quads::reader::Reader;
use crate::stats::{decode_u64, encode_u64};
use class_predicates::ClassChanges;
pub(crate) use object_pairs::ObjectPairsWriter;
use oxrdf::vocab::rdf;
pub(crate) use rebuild::{rebuild, rebuild_reading_links};
use rocksdb::{ReadOptions, WriteBatch};
use rustc_hash::FxHashMap;

/// What one distinct count counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Distinct {
    /// Per class: the distinct subjects having it as `rdf:type`, in any graph.
    ClassSubjects,
    /// Per predicate: its distinct subjects.
    PredicateSubjects,
    /// Per predicate: its distinct objects that are also subjects of some quad.
    PredicateObjects,
    /// Per named graph: its distinct subjects.
    GraphSubjects,
    /// The distinct subjects of the whole store (one count, under
    /// [`TermId::DEFAULT_GRAPH`]).
    Subjects,
}

impl Distinct {
    /// Every kind.
    pub const ALL: [Self; 5] = [
        Self::ClassSubjects,
        Self::PredicateSubjects,
        Self::PredicateObjects,
        Self::GraphSubjects,
        Self::Subjects,
    ];

    fn byte(self) -> u8 {
        match self {
            Self::ClassSubjects => b'c',
            Self::PredicateSubjects => b's',
            Self::PredicateObjects => b'o',
            Self::GraphSubjects => b'g',
            Self::Subjects => b'a',
        }
    }

    /// The table key of the count of `term`.
    fn key(self, term: TermId) -> [u8; 9] {
        let mut key = [0; 9];
        key[0] = self.byte();
        key[1..].copy_from_slice(&term.to_be_bytes());
        key
    }

    /// The (counted term, pattern whose match decides the entity's membership) of this kind
    /// for one quad, or `None` when the quad is not counted by this kind.
    fn pair(self, quad: &EncodedQuad, rdf_type: Option<TermId>) -> Option<(TermId, Pattern)> {
        let q = quad;
        match self {
            Self::ClassSubjects => (Some(q.predicate) == rdf_type).then_some((
                q.object,
                [Some(q.subject), Some(q.predicate), Some(q.object), None],
            )),
            Self::PredicateSubjects => Some((
                q.predicate,
                [Some(q.subject), Some(q.predicate), None, None],
            )),
            Self::PredicateObjects => is_entity(q.object)
                .then_some((q.predicate, [None, Some(q.predicate), Some(q.object), None])),
            Self::GraphSubjects => (!q.graph.is_default_graph())
                .then_some((q.graph, [Some(q.subject), None, None, Some(q.graph)])),
            Self::Subjects => Some((TermId::DEFAULT_GRAPH, [Some(q.subject), None, None, None])),
        }
    }
}

/// A quad pattern (subject, predicate, object, graph; `None` is a wildcard, and a wildcard
/// graph means every graph).
type Pattern = [Option<TermId>; 4];

/// Whether a term is an IRI or a blank node.
pub(crate) fn is_entity(term: TermId) -> bool {
    matches!(
        term.kind(),
        TermKind::Iri | TermKind::MintedBlank | TermKind::NamedBlank
    )
}

/// The id of `rdf:type` in the committed dictionary.
fn rdf_type_id(database: &Database) -> Result<Option<TermId>, StoreError> {
    let mut bytes = Vec::new();
    encode_term_bytes(rdf::TYPE.into(), &mut bytes);
    database.committed_term_id(&bytes)
}

/// Whether a quad matches a pattern, before and after a change.
struct Probe<'db, F> {
    before: Reader<'db>,
    /// The store after the change; `None` for a change that only adds quads (a bulk load),
    /// where a pattern has a match after it if it had one before or an added quad matches it
    /// — and every caller says so (`added`) for the patterns of added quads.
    after: Option<Reader<'db>>,
    is_new: F,
    /// The predicates of the added quads, by object: the change's share of
    /// [`Probe::predicates_of`] without a scan of every added quad per object.
    added_predicates: FxHashMap<TermId, Vec<TermId>>,
}

impl<F: Fn(TermId) -> bool> Probe<'_, F> {
    /// Whether the pattern had a committed match and has one after the change; `added` /
    /// `removed` say that a quad the change adds / removes matches it.
    fn had_has(&self, p: &Pattern, added: bool, removed: bool) -> Result<(bool, bool), StoreError> {
        let exists = |reader: &Reader<'_>| -> Result<bool, StoreError> {
            Ok(reader
                .quads_for_pattern(p[0], p[1], p[2], p[3])
                .next()
                .transpose()?
                .is_some())
        };
        // A removed quad was committed; a pattern with a term new in the change had no
        // committed match.
        let had =
            removed || (!p.iter().flatten().any(|t| (self.is_new)(*t)) && exists(&self.before)?);
        let has = added
            || match &self.after {
                Some(after) => exists(after)?,
                None => had,
            };
        Ok((had, has))
    }

    /// The predicates having `object` as object, before and after the change.
    fn predicates_of(&self, object: TermId) -> Result<Vec<TermId>, StoreError> {
        // Before or after the change is before or added: the quads after it are the committed
        // ones, less some, plus the added ones.
        let mut out = self
            .added_predicates
            .get(&object)
            .cloned()
            .unwrap_or_default();
        if !(self.is_new)(object) {
            for quad in self
                .before
                .quads_for_pattern(None, None, Some(object), None)
            {
                out.push(quad?.predicate);
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}

/// Adds to `batch` the changes of the distinct counts that a commit of `overlay` makes.
/// `rdf_type` is the id of `rdf:type` (committed or new in the transaction); `is_new` says
/// whether an id was handed out by the transaction (no committed quad uses it).
pub(crate) fn write_changes(
    database: &Database,
    overlay: &Overlay,
    rdf_type: Option<TermId>,
    is_new: impl Fn(TermId) -> bool,
    batch: &mut WriteBatch,
) -> Result<(), StoreError> {
    write_deltas(
        database,
        &overlay.added,
        &overlay.removed,
        Some(Reader::new(database, Some(overlay))),
        rdf_type,
        is_new,
        batch,
    )
}

/// Adds to `batch` the changes of the distinct counts for `added`, quads that the committed
/// store does not hold and a change adds without removing any (see [`LoadedQuads`]).
fn write_additions(
    database: &Database,
    added: &[EncodedQuad],
    rdf_type: Option<TermId>,
    is_new: impl Fn(TermId) -> bool,
    batch: &mut WriteBatch,
) -> Result<(), StoreError> {
    write_deltas(database, added, &[], None, rdf_type, is_new, batch)
}

/// The common part of [`write_changes`] and [`write_additions`]: finds, for every (kind,
/// counted term, pattern) the changed quads touch, whether the pattern had a match before and
/// has one after (`after` reads the store after the change, see [`Probe::after`]), and moves
/// the counts by ±1.
///
/// [`Distinct::PredicateObjects`] counts an object only while it is a subject too, so it
/// moves with its (predicate, object) pairs and with the objects that become or stop being
/// subjects: for those, every predicate they are the object of is looked at.
fn write_deltas<'db, 'q>(
    database: &'db Database,
    added: impl IntoIterator<Item = &'q EncodedQuad> + Copy,
    removed: impl IntoIterator<Item = &'q EncodedQuad> + Copy,
    after: Option<Reader<'db>>,
    rdf_type: Option<TermId>,
    is_new: impl Fn(TermId) -> bool,
    batch: &mut WriteBatch,
) -> Result<(), StoreError> {
    // Per (kind, counted term, pattern): whether an added / a removed quad matches it.
    let mut touched: FxHashMap<(Distinct, TermId, Pattern), (bool, bool)> = FxHashMap::default();
    let changed = added
        .into_iter()
        .map(|q| (q, true))
        .chain(removed.into_iter().map(|q| (q, false)));
    for (quad, is_added) in changed {
        for kind in Distinct::ALL {
            if let Some((term, pattern)) = kind.pair(quad, rdf_type) {
                let seen = touched.entry((kind, term, pattern)).or_default();
                if is_added {
                    seen.0 = true;
                } else {
                    seen.1 = true;
                }
            }
        }
    }
    if touched.is_empty() {
        return Ok(());
    }
    let mut added_predicates: FxHashMap<TermId, Vec<TermId>> = FxHashMap::default();
    for quad in added {
        added_predicates
            .entry(quad.object)
            .or_default()
            .push(quad.predicate);
    }
    let probe = Probe {
        before: Reader::new(database, None),
        after,
        is_new,
        added_predicates,
    };
    let mut deltas: FxHashMap<(Distinct, TermId), i64> = FxHashMap::default();
    // Whether a term was and is a subject.
    let mut subject: FxHashMap<TermId, (bool, bool)> = FxHashMap::default();
    let mut object_pairs: FxHashMap<(TermId, TermId), (bool, bool)> = FxHashMap::default();
    // Per pattern met: whether it had a match and has one (the class-predicate counts
    // combine them).
    let mut known: FxHashMap<Pattern, (bool, bool)> = FxHashMap::default();
    for ((kind, term, pattern), (added, removed)) in &touched {
        if *kind == Distinct::PredicateObjects {
            if let [None, Some(p), Some(o), None] = *pattern {
                object_pairs.insert((p, o), (*added, *removed));
            }
            continue;
        }
        let (had, has) = probe.had_has(pattern, *added, *removed)?;
        known.insert(*pattern, (had, has));
        if let (Distinct::Subjects, Some(s)) = (kind, pattern[0]) {
            subject.insert(s, (had, has));
        }
        if had != has {
            *deltas.entry((*kind, *term)).or_default() += if has { 1 } else { -1 };
        }
    }
    drop(touched);
    for (&term, &(had, has)) in &subject {
        if had != has && is_entity(term) {
            for p in probe.predicates_of(term)? {
                object_pairs.entry((p, term)).or_default();
            }
        }
    }
    for ((p, o), (added, removed)) in object_pairs {
        let (had_pair, has_pair) =
            probe.had_has(&[None, Some(p), Some(o), None], added, removed)?;
        known.insert([None, Some(p), Some(o), None], (had_pair, has_pair));
        let (was_subject, is_subject) = match subject.get(&o) {
            Some(known) => *known,
            None => {
                let known = probe.had_has(&[Some(o), None, None, None], false, false)?;
                subject.insert(o, known);
                known
            }
        };
        let (had, has) = (had_pair && was_subject, has_pair && is_subject);
        if had != has {
            *deltas.entry((Distinct::PredicateObjects, p)).or_default() += if has { 1 } else { -1 };
        }
    }
    let mut keys: Vec<(Vec<u8>, i64)> = deltas
        .into_iter()
        .filter(|(_, d)| *d != 0)
        .map(|((kind, term), d)| (kind.key(term).to_vec(), d))
        .collect();
    // A load whose quads hold no `rdf:type` does not know its id, but its quads may still
    // link instances of the store's classes.
    let rdf_type = match rdf_type {
        Some(id) => Some(id),
        None => rdf_type_id(database)?,
    };
    if let Some(rdf_type) = rdf_type {
        let changed = added.into_iter().chain(removed);
        keys.extend(ClassChanges::new(&probe, rdf_type, known, added).deltas(changed)?);
    }
    keys.sort_unstable();
    let cf = database.cf(Table::DistinctStats);
    let current = multi_get(
        database.db(),
        cf,
        keys.iter().map(|(key, _)| key),
        true,
        &ReadOptions::default(),
    );
    for ((key, delta), value) in keys.iter().zip(current) {
        let old = value?.map_or(Ok(0), |v| decode_u64(&v))?;
        let new = old.saturating_add_signed(*delta);
        if new == 0 {
            batch.delete_cf(cf, key);
        } else {
            batch.put_cf(cf, key, encode_u64(new));
        }
    }
    Ok(())
}

/// A load of more new quads than this recomputes the table ([`rebuild`]) instead of
/// updating it from its quads: the update holds about half a kilobyte per new quad.
const LOADED_QUADS_LIMIT: usize = 1 << 19;
/// A load into a store of `n` quads updates the table from its new quads while they are at
/// most `n / LOADED_QUADS_SHARE` (or [`LOADED_QUADS_FLOOR`]): each new quad costs a few seeks
/// in the store, a recompute a few sequential reads of every quad.
const LOADED_QUADS_SHARE: u64 = 16;
/// Loads of up to this many new quads update the table whatever the store's size.
const LOADED_QUADS_FLOOR: usize = 1 << 16;

/// The new quads of a bulk load into a non-empty store, gathered chunk by chunk while few
/// enough that updating the distinct counts from them beats recomputing the table. A load into
/// an empty store gathers nothing: it recomputes.
pub(crate) struct LoadedQuads {
    /// The counters before the load: ids newer than these are the load's own terms.
    before: IdMark,
    /// The most quads gathered before giving up for a recompute.
    limit: usize,
    /// `None` once the load has more new quads than `limit`, or into an empty store.
    quads: Option<Vec<EncodedQuad>>,
    rdf_type: Option<TermId>,
}

impl LoadedQuads {
    /// For a load into the store as `state` (the writer counters before the load) leaves it.
    pub(crate) fn new(state: &WriterState) -> Self {
        let share = usize::try_from(state.quad_count / LOADED_QUADS_SHARE).unwrap_or(usize::MAX);
        Self {
            before: state.id_mark(),
            limit: share.clamp(LOADED_QUADS_FLOOR, LOADED_QUADS_LIMIT),
            quads: (state.quad_count > 0).then(Vec::new),
            rdf_type: None,
        }
    }

    /// Notes a chunk's new quads (none of them in the store or in an earlier chunk) and the
    /// id of `rdf:type` the chunk was encoded with.
    pub(crate) fn note(&mut self, quads: &[EncodedQuad], rdf_type: Option<TermId>) {
        if let Some(kept) = &mut self.quads {
            if kept.len() + quads.len() > self.limit {
                self.quads = None;
            } else {
                kept.extend_from_slice(quads);
            }
        }
        self.rdf_type = rdf_type.or(self.rdf_type);
    }

    /// The changes of the distinct counts the load makes, computed against the store before
    /// the load (so called before its files are ingested), with the mark that the table needs
    /// a recompute cleared; `None` when the table must be recomputed after the ingest.
    pub(crate) fn changes(&self, database: &Database) -> Result<Option<WriteBatch>, StoreError> {
        let Some(quads) = &self.quads else {
            return Ok(None);
        };
        let mut batch = WriteBatch::default();
        let numbering = database.blank_numbering();
        write_additions(
            database,
            quads,
            self.rdf_type,
            |t| self.before.is_newer(numbering, t),
            &mut batch,
        )?;
        batch.delete_cf(database.cf(Table::Meta), meta_key::DISTINCT_STATS_STALE);
        Ok(Some(batch))
    }
}

/// Marks the table as needing a [`rebuild`] (before a bulk load ingests its files), so that
/// a load interrupted before its rebuild gets one at the next read-write open.
pub(crate) fn mark_stale(database: &Database) -> Result<(), StoreError> {
    database
        .db()
        .put_cf(database.cf(Table::Meta), meta_key::DISTINCT_STATS_STALE, [])?;
    Ok(())
}

/// Whether the table was marked as needing a rebuild.
pub(crate) fn is_stale(database: &Database) -> Result<bool, StoreError> {
    Ok(database
        .db()
        .get_pinned_cf(database.cf(Table::Meta), meta_key::DISTINCT_STATS_STALE)?
        .is_some())
}

impl Reader<'_> {
    /// The distinct count of one kind for one term (0 when absent). Committed state only.
    pub fn distinct_count(&self, kind: Distinct, term: TermId) -> Result<u64, StoreError> {
        self.get(Table::DistinctStats, &kind.key(term))?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }

    /// The number of distinct subjects in the store. Committed state only.
    pub fn distinct_subjects(&self) -> Result<u64, StoreError> {
        self.distinct_count(Distinct::Subjects, TermId::DEFAULT_GRAPH)
    }

    /// Every term with a distinct count of one kind, and its count, in id order. Costs one
    /// scan of that kind's entries (as many as there are classes, predicates or graphs).
    /// Committed state only.
    pub fn distinct_counts(&self, kind: Distinct) -> Result<Vec<(TermId, u64)>, StoreError> {
        let mut out = Vec::new();
        let start = [kind.byte()];
        let end = [kind.byte() + 1];
        let mut iter = self.raw_iterator(Table::DistinctStats, Some(end.to_vec()));
        iter.seek(start);
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let id: [u8; 8] = key
                .get(1..9)
                .and_then(|k| k.try_into().ok())
                .ok_or_else(|| CorruptionError::msg("distinct_stats key of the wrong length"))?;
            out.push((TermId::from_be_bytes(id), decode_u64(value)?));
            iter.next();
        }
        iter.status()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_kind_then_term() {
        let a = TermId::new(TermKind::Iri, 1);
        let b = TermId::new(TermKind::Iri, 2);
        let keys = [
            Distinct::ClassSubjects.key(b),
            Distinct::PredicateSubjects.key(a),
            Distinct::ClassSubjects.key(a),
        ];
        let mut sorted = keys;
        sorted.sort_unstable();
        assert_eq!(sorted[0], Distinct::ClassSubjects.key(a));
        assert_eq!(sorted[1], Distinct::ClassSubjects.key(b));
        assert!(Distinct::ALL.iter().all(|k| k.key(a)[0] == k.byte()));
    }
}
