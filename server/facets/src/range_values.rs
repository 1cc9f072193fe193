//! The values a `ranges` view buckets: read from the store and decoded.
//!
//! The values of one property are read for the entities of the view ([`Entities`]: the focus
//! set's members, or every subject of the property when the focus is known to hold them all).
//! When the property is *functional* — each subject has one quad of it, which the statistics
//! say (its distinct subjects equal its quads) — an entity has one value, so counting the
//! entities per value is enough: one pass over the property's quads, no (entity, value)
//! pairs to sort ([`Read::PerValue`]). Otherwise the distinct (entity, value) pairs are kept
//! ([`Read::Pairs`]) so that an entity with several values in one bucket counts once.
//!
//! Only the distinct literal values are decoded ([`decode`]): inlined integers without the
//! dictionary, dictionary literals in batches of sorted ids; IRIs and blank nodes are skipped
//! on their ids.

use crate::budget::{Deadline, Ticker};
use crate::compare::is_numeric_type;
use crate::error::EngineError;
use crate::executor::FocusSet;
use crate::scan::{self, End, Members};
use lodestone_store::{Distinct, Reader, TermId, TermKind};
use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNodeRef, Term};
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

/// Which values can be bucketed together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Every numeric datatype.
    Numeric,
    /// `xsd:dateTime`.
    DateTime,
    /// `xsd:date`.
    Date,
    /// `xsd:gYear`.
    GYear,
}

impl Family {
    /// The family of a literal, if it has one.
    pub fn of(literal: &Literal) -> Option<Self> {
        if literal.language().is_some() {
            None
        } else {
            Self::of_datatype(literal.datatype())
        }
    }

    /// The family of the literals of a datatype, if they have one.
    pub fn of_datatype(datatype: NamedNodeRef<'_>) -> Option<Self> {
        if is_numeric_type(datatype) {
            Some(Self::Numeric)
        } else if datatype == xsd::DATE_TIME {
            Some(Self::DateTime)
        } else if datatype == xsd::DATE {
            Some(Self::Date)
        } else if datatype == xsd::G_YEAR {
            Some(Self::GYear)
        } else {
            None
        }
    }
}

/// Whose values are bucketed.
#[derive(Debug, Clone, Copy)]
pub enum Entities<'f> {
    /// The members of a focus set.
    Focus(&'f FocusSet),
    /// Every subject of the property: the focus holds them all.
    EverySubject,
}

impl Entities<'_> {
    /// Whether the entities are all known (a focus set may have been cut short).
    pub fn complete(&self) -> bool {
        match self {
            Self::Focus(focus) => focus.complete,
            Self::EverySubject => true,
        }
    }
}

/// The values read, in one of two shapes.
#[derive(Debug)]
pub enum Read {
    /// Per distinct value, the number of entities having it (a functional property).
    PerValue(Vec<(TermId, u64)>),
    /// The distinct (entity, value) pairs, sorted.
    Pairs(Vec<(TermId, TermId)>),
}

impl Read {
    /// Each value read; a value of [`Read::Pairs`] once per pair.
    pub fn values(&self) -> impl Iterator<Item = TermId> + '_ {
        let (per_value, pairs) = match self {
            Self::PerValue(counts) => (Some(counts), None),
            Self::Pairs(pairs) => (None, Some(pairs)),
        };
        let per_value = per_value.into_iter().flatten().map(|(value, _)| *value);
        per_value.chain(pairs.into_iter().flatten().map(|(_, value)| *value))
    }

    /// Calls `visit` with each value and the number of (entity, value) pairs having it; a
    /// value of [`Read::Pairs`] comes once per pair.
    pub fn for_each(&self, mut visit: impl FnMut(TermId, u64)) {
        match self {
            Self::PerValue(counts) => counts.iter().for_each(|(v, n)| visit(*v, *n)),
            Self::Pairs(pairs) => pairs.iter().for_each(|(_, v)| visit(*v, 1)),
        }
    }
}

/// Reads the values of `property` (in `graph` when given) for `entities`; the flag is false
/// when the entities were not all known or the time ran out (then the values read so far).
pub fn read(
    reader: &Reader<'_>,
    entities: Entities<'_>,
    property: TermId,
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Read, bool), EngineError> {
    let members = match entities {
        Entities::Focus(focus) => Some(focus.members.as_slice()),
        Entities::EverySubject => None,
    };
    let (read, all) = if is_functional(reader, property)? {
        let (counts, all) = per_value(reader, property, members, graph, ticker)?;
        (Read::PerValue(counts), all)
    } else {
        let (pairs, all) = match members {
            Some(members) => scan::pairs(reader, property, members, End::Subject, graph, ticker)?,
            None => scan::pairs_by_scan_of_all(reader, property, End::Subject, graph, ticker)?,
        };
        (Read::Pairs(pairs), all)
    };
    Ok((read, all && entities.complete()))
}

/// Whether every subject of `property` has exactly one quad of it (in all graphs together),
/// so that it has one value.
pub(crate) fn is_functional(reader: &Reader<'_>, property: TermId) -> Result<bool, EngineError> {
    let quads = reader.usage(property)?.as_predicate;
    Ok(quads > 0 && reader.distinct_count(Distinct::PredicateSubjects, property)? == quads)
}

/// Per value of a functional property, the entities (`members`, ascending; `None`: every
/// subject) having it, by one scan of the property's quads (look-ups per member instead when
/// they are few next to the quads).
fn per_value(
    reader: &Reader<'_>,
    property: TermId,
    members: Option<&[TermId]>,
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, u64)>, bool), EngineError> {
    let mut counts = ValueCounts::default();
    let mut complete = true;
    let lookups = match members {
        Some(members) => !scan::scan_is_cheaper(reader, property, members.len())?,
        None => false,
    };
    if lookups {
        // A functional property: each member's one quad, the pairs hold no duplicate.
        let (pairs, all) = scan::pairs_by_lookup(
            reader,
            property,
            members.unwrap_or_default(),
            End::Subject,
            graph,
            ticker,
        )?;
        for (_, value) in pairs {
            counts.add(value);
        }
        complete = all;
    } else {
        let mut members = members.map(Members::new);
        for quad in reader.quads_for_pattern(None, Some(property), None, graph) {
            if scan::out_of_time(ticker)? {
                complete = false;
                break;
            }
            let quad = quad?;
            if members.as_mut().is_none_or(|m| m.contains(quad.subject)) {
                counts.add(quad.object);
            }
        }
    }
    Ok((counts.into_sorted(), complete))
}

/// Entities per value, counted as the values come: a scan of the property's quads gives
/// them in value order, each value's quads together, so a count per run of equal values is
/// enough (a hash map of a million distinct prices cost more than the scan that fed it).
/// Values in any other order are sorted and merged at the end.
#[derive(Debug, Default)]
pub(crate) struct ValueCounts {
    runs: Vec<(TermId, u64)>,
    in_order: bool,
}

impl ValueCounts {
    pub(crate) fn add(&mut self, value: TermId) {
        match self.runs.last_mut() {
            Some((last, n)) if *last == value => *n += 1,
            Some((last, _)) => {
                self.in_order &= *last < value;
                self.runs.push((value, 1));
            }
            None => {
                self.in_order = true;
                self.runs.push((value, 1));
            }
        }
    }

    /// Per distinct value, its count, in value order.
    pub(crate) fn into_sorted(mut self) -> Vec<(TermId, u64)> {
        if !self.in_order {
            self.runs.sort_unstable_by_key(|(value, _)| *value);
            self.runs.dedup_by(|next, kept| {
                let same = next.0 == kept.0;
                if same {
                    kept.1 += next.1;
                }
                same
            });
        }
        self.runs
    }
}

/// The decoded distinct values that are bucketed: each with its family and literal (a value
/// of no family is not in the map).
pub type Values = FxHashMap<TermId, (Family, Literal)>;

/// Distinct values decoded per dictionary read: large enough that one batched read of
/// sorted ids finds many in each block, small enough to check the time between reads.
const DECODE_BATCH: usize = 16_384;

/// The distinct literal values of `read` that have a family, decoded.
/// IRIs and blank nodes are skipped on their ids, inlined integers decoded without the
/// dictionary, and dictionary literals read in batches of sorted ids: a million distinct
/// prices read one look-up each spent the whole budget (BSBM 100k), where sorted batches read
/// each dictionary block once. The flag is false when the time ran out (then only the values
/// decoded so far are in the map).
pub fn decode(
    reader: &Reader<'_>,
    read: &Read,
    deadline: Deadline,
) -> Result<(Values, bool), EngineError> {
    decode_values(reader, read.values(), deadline)
}

/// [`decode`] of the values `ids` (in any order, repeats allowed).
pub(crate) fn decode_values(
    reader: &Reader<'_>,
    ids: impl Iterator<Item = TermId>,
    deadline: Deadline,
) -> Result<(Values, bool), EngineError> {
    let ranged = |term: Term| match term {
        Term::Literal(l) => Family::of(&l).map(|f| (f, l)),
        _ => None,
    };
    let mut values = Values::default();
    let mut stored: Vec<TermId> = Vec::new();
    for value in ids {
        match value.kind() {
            TermKind::Integer => {
                if let Entry::Vacant(slot) = values.entry(value) {
                    if let Some(ranged) = value.decode_inline().and_then(ranged) {
                        slot.insert(ranged);
                    }
                }
            }
            TermKind::Literal => stored.push(value),
            _ => {}
        }
    }
    stored.sort_unstable();
    stored.dedup();
    for batch in stored.chunks(DECODE_BATCH) {
        if deadline.passed() {
            return Ok((values, false));
        }
        // Literals of a datatype no family holds are skipped undecoded.
        let literals = reader.typed_literals(batch, |datatype| {
            Family::of_datatype(NamedNodeRef::new_unchecked(datatype)).is_some()
        })?;
        values.extend(
            batch
                .iter()
                .copied()
                .zip(literals)
                .filter_map(|(id, literal)| {
                    literal
                        .and_then(|l| ranged(Term::Literal(l)))
                        .map(|ranged| (id, ranged))
                }),
        );
    }
    Ok((values, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(values: &[u64]) -> Vec<(TermId, u64)> {
        let mut counts = ValueCounts::default();
        for v in values {
            counts.add(TermId::new(TermKind::Literal, *v));
        }
        counts.into_sorted()
    }

    #[test]
    fn values_are_counted_in_order_whatever_order_they_come_in() {
        let id = |v| TermId::new(TermKind::Literal, v);
        let expected = vec![(id(1), 2), (id(2), 1), (id(5), 3)];
        assert_eq!(counted(&[1, 1, 2, 5, 5, 5]), expected);
        assert_eq!(counted(&[5, 1, 5, 2, 1, 5]), expected);
        assert_eq!(counted(&[1, 2, 5, 5, 1, 5]), expected);
        assert_eq!(counted(&[]), Vec::new());
    }
}
