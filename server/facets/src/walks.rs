//! Counts over every focus term's own quads, in one forward walk of an index.
//!
//! The `properties`, `properties-in` and `graphs` views and the in-degrees that rank the
//! `entities` view read the quads of each focus term (as subject or as object). The focus
//! terms are sorted, and terms loaded together have neighbouring ids, so their keys lie next
//! to each other in the index: [`Reader::walk_terms`] visits them with one iterator moving
//! forward (steps over short gaps, a seek over long ones) instead of a seek per term, which
//! on the instances of a large class is most of the cost.
//!
//! Each count is the number of distinct focus terms having the key; the walk stops at the
//! deadline and the counts so far are returned with `complete: false`.

use crate::budget::Ticker;
use crate::error::EngineError;
use lodestone_store::{EncodedQuad, Lead, Reader, Step, TermId, Walked};
use rustc_hash::FxHashMap;

/// Counts per key, and whether every focus term was read.
pub type Counted = (FxHashMap<TermId, u64>, bool);

/// Quads of one object counted in the walk; past this many the object's in-degree is read
/// from the store's statistics instead (one look-up costs less than reading its quads).
pub const IN_DEGREE_WALK_LIMIT: u64 = 64;

/// Focus terms per part when a walk is split between threads: sets smaller than twice this
/// are walked by one thread (starting threads costs more than it saves there).
pub const TERMS_PER_PART: usize = 32_768;

/// The most threads one walk uses.
pub const MAX_PARTS: usize = 4;

/// Per predicate, the focus terms (ascending `sorted`) that are its subjects (in `graph` when
/// given).
pub fn properties(
    reader: &Reader<'_>,
    sorted: &[TermId],
    graph: Option<TermId>,
    parts: usize,
    ticker: &Ticker,
) -> Result<Counted, EngineError> {
    let (states, complete) = walk(
        reader,
        Lead::Subject,
        sorted,
        parts,
        ticker,
        |counts: &mut FxHashMap<TermId, u64>, quad| {
            if graph.is_some_and(|g| g != quad.graph) {
                return Step::Continue;
            }
            // Subject-first order: each (subject, predicate) run is one distinct pair.
            *counts.entry(quad.predicate).or_default() += 1;
            Step::SkipPair
        },
    )?;
    Ok((sum(states), complete))
}

/// Per predicate, the focus terms that are its objects (in `graph` when given).
pub fn properties_in(
    reader: &Reader<'_>,
    sorted: &[TermId],
    graph: Option<TermId>,
    parts: usize,
    ticker: &Ticker,
) -> Result<Counted, EngineError> {
    count_distinct(reader, Lead::Object, sorted, parts, ticker, |quad| {
        graph
            .is_none_or(|g| g == quad.graph)
            .then_some((quad.object, quad.predicate))
    })
}

/// Per named graph, the focus terms that are subjects in it (SPARQL's `GRAPH ?g` ranges
/// over named graphs only, so the default graph is left out); only `graph` when given.
pub fn graphs(
    reader: &Reader<'_>,
    sorted: &[TermId],
    graph: Option<TermId>,
    parts: usize,
    ticker: &Ticker,
) -> Result<Counted, EngineError> {
    count_distinct(reader, Lead::Subject, sorted, parts, ticker, |quad| {
        (!quad.graph.is_default_graph() && graph.is_none_or(|g| g == quad.graph))
            .then_some((quad.subject, quad.graph))
    })
}

/// Per key, the focus terms having it, where `pick` gives a quad's (focus term, key) and a
/// term's keys do not come in order (so a short list per term keeps them distinct).
fn count_distinct(
    reader: &Reader<'_>,
    lead: Lead,
    sorted: &[TermId],
    parts: usize,
    ticker: &Ticker,
    pick: impl Fn(&EncodedQuad) -> Option<(TermId, TermId)> + Sync,
) -> Result<Counted, EngineError> {
    let (states, complete) = walk(
        reader,
        lead,
        sorted,
        parts,
        ticker,
        |state: &mut DistinctCounts, quad| {
            if let Some((term, key)) = pick(quad) {
                state.count(term, key);
            }
            Step::Continue
        },
    )?;
    Ok((sum(states.into_iter().map(|p| p.counts)), complete))
}

/// The number of quads having each focus term as object (the in-degree that ranks
/// entities, equal to the statistics' `as_object`), for the terms that have any. Short runs
/// are counted in the walk, long ones read from the statistics.
pub fn in_degrees(
    reader: &Reader<'_>,
    sorted: &[TermId],
    parts: usize,
    ticker: &Ticker,
) -> Result<Counted, EngineError> {
    let (states, complete) = walk(
        reader,
        Lead::Object,
        sorted,
        parts,
        ticker,
        |state: &mut (FxHashMap<TermId, u64>, Vec<TermId>), quad| {
            let count = state.0.entry(quad.object).or_default();
            *count += 1;
            if *count >= IN_DEGREE_WALK_LIMIT {
                state.1.push(quad.object);
                Step::NextTerm
            } else {
                Step::Continue
            }
        },
    )?;
    let mut counts = FxHashMap::default();
    let mut heavy = Vec::new();
    for (part, long) in states {
        counts.extend(part);
        heavy.extend(long);
    }
    for batch in heavy.chunks(HEAVY_BATCH) {
        for (term, usage) in batch.iter().zip(reader.usages(batch)?) {
            counts.insert(*term, usage.as_object);
        }
    }
    Ok((counts, complete))
}

/// Statistics read together for the objects with long runs.
const HEAVY_BATCH: usize = 4096;

/// Walks the quads of `sorted` at `lead`, split into `parts` walked at the same time, each
/// with its own state and a tick per term and per quad. The states of the parts, and
/// `false` when the deadline stopped any of them.
fn walk<S: Default + Send>(
    reader: &Reader<'_>,
    lead: Lead,
    sorted: &[TermId],
    parts: usize,
    ticker: &Ticker,
    visit: impl Fn(&mut S, &EncodedQuad) -> Step + Sync,
) -> Result<(Vec<S>, bool), EngineError> {
    let parts = parts.max(1);
    let mut slots: Vec<(S, Ticker, Option<EngineError>)> = (0..parts)
        .map(|_| (S::default(), ticker.fork(), None))
        .collect();
    let visit = &visit;
    let mut visitors: Vec<_> = slots
        .iter_mut()
        .map(|(state, ticker, stopped)| {
            move |walked: Walked<'_>| {
                if let Err(e) = ticker.tick() {
                    *stopped = Some(e);
                    return Step::Stop;
                }
                match walked {
                    Walked::Term(_) => Step::Continue,
                    Walked::Quad(quad) => visit(state, quad),
                }
            }
        })
        .collect();
    reader.walk_terms_in_parts(lead, sorted, &mut visitors)?;
    drop(visitors);
    let mut complete = true;
    let mut states = Vec::with_capacity(parts);
    for (state, _, stopped) in slots {
        match stopped {
            None => {}
            Some(EngineError::OutOfTime) => complete = false,
            Some(e) => return Err(e),
        }
        states.push(state);
    }
    Ok((states, complete))
}

/// How many parts (threads) a walk over `terms` focus terms is best split into: one below
/// twice [`TERMS_PER_PART`], at most the machine's cores and [`MAX_PARTS`].
pub fn parts_for(terms: usize) -> usize {
    let wanted = terms / TERMS_PER_PART;
    if wanted < 2 {
        // Most focus sets: no need to ask the system for its cores (a read of cgroup files).
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    wanted.min(cores.clamp(1, MAX_PARTS))
}

/// The counts of the parts added up (the parts hold disjoint focus terms).
fn sum(parts: impl IntoIterator<Item = FxHashMap<TermId, u64>>) -> FxHashMap<TermId, u64> {
    let mut total = FxHashMap::default();
    for part in parts {
        for (key, count) in part {
            *total.entry(key).or_default() += count;
        }
    }
    total
}

/// Counts per key of the distinct terms having it (see [`count_distinct`]).
#[derive(Debug, Default)]
struct DistinctCounts {
    counts: FxHashMap<TermId, u64>,
    distinct: DistinctPerTerm,
}

impl DistinctCounts {
    fn count(&mut self, term: TermId, key: TermId) {
        if self.distinct.first_time(term, key) {
            *self.counts.entry(key).or_default() += 1;
        }
    }
}

/// The keys already met for the current term of a walk (terms come one after the other, and
/// each has few distinct keys, so a short list beats a set).
#[derive(Debug, Default)]
struct DistinctPerTerm {
    term: Option<TermId>,
    keys: Vec<TermId>,
}

impl DistinctPerTerm {
    /// Whether `key` is met for the first time for `term`.
    fn first_time(&mut self, term: TermId, key: TermId) -> bool {
        if self.term != Some(term) {
            self.term = Some(term);
            self.keys.clear();
        }
        if self.keys.contains(&key) {
            false
        } else {
            self.keys.push(key);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Deadline;
    use oxrdf::{GraphName, NamedNode, Quad};
    use proptest::prelude::*;
    use std::time::Duration;

    fn iri(n: usize) -> NamedNode {
        NamedNode::new_unchecked(format!("http://example.com/t{n}"))
    }

    /// The same counts by one pattern scan per term, as the views used to compute them.
    fn naive(
        reader: &Reader<'_>,
        sorted: &[TermId],
        lead: Lead,
        key: impl Fn(&EncodedQuad) -> Option<TermId>,
    ) -> FxHashMap<TermId, u64> {
        let mut terms = sorted.to_vec();
        terms.dedup();
        let mut counts = FxHashMap::default();
        for term in terms {
            let quads = match lead {
                Lead::Subject => reader.quads_for_pattern(Some(term), None, None, None),
                Lead::Object => reader.quads_for_pattern(None, None, Some(term), None),
            };
            let mut keys: Vec<TermId> = quads.filter_map(|q| key(&q.expect("quad"))).collect();
            keys.sort_unstable();
            keys.dedup();
            for k in keys {
                *counts.entry(k).or_default() += 1;
            }
        }
        counts
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn walked_counts_equal_counts_per_term(
            // Objects skewed to a few, so that some in-degrees pass the walk's limit.
            spec in prop::collection::vec(
                (0..40usize, 0..5usize, prop_oneof![0..4usize, 0..40usize], 0..3usize),
                0..800,
            ),
            picks in prop::collection::vec(0..40usize, 0..40),
        ) {
            let (_dir, store) = crate::testing::temp_store();
            let mut transaction = store.transaction().expect("transaction");
            for (s, p, o, g) in spec {
                let graph = if g == 0 { GraphName::DefaultGraph } else { iri(100 + g).into() };
                transaction
                    .insert(Quad::new(iri(s), iri(50 + p), iri(o), graph).as_ref())
                    .expect("insert");
            }
            transaction.commit().expect("commit");
            let reader = store.reader();
            let mut sorted: Vec<TermId> = picks
                .iter()
                .filter_map(|n| reader.term_id(iri(*n).as_ref().into()).expect("id"))
                .collect();
            sorted.sort_unstable();
            let ticker = Ticker::new(Deadline::after(Duration::from_secs(60)));
            for parts in 1..4 {
                let (counts, complete) = properties(&reader, &sorted, None, parts, &ticker).expect("walk");
                prop_assert!(complete);
                prop_assert_eq!(counts, naive(&reader, &sorted, Lead::Subject, |q| Some(q.predicate)));

                let (counts, _) = properties_in(&reader, &sorted, None, parts, &ticker).expect("walk");
                prop_assert_eq!(counts, naive(&reader, &sorted, Lead::Object, |q| Some(q.predicate)));

                let (counts, _) = graphs(&reader, &sorted, None, parts, &ticker).expect("walk");
                let named = |q: &EncodedQuad| (!q.graph.is_default_graph()).then_some(q.graph);
                prop_assert_eq!(counts, naive(&reader, &sorted, Lead::Subject, named));

                // In-degrees equal the statistics' counters, for short and long runs alike.
                let (counts, _) = in_degrees(&reader, &sorted, parts, &ticker).expect("walk");
                let usages = reader.usages(&sorted).expect("usages");
                for (term, usage) in sorted.iter().zip(usages) {
                    prop_assert_eq!(counts.get(term).copied().unwrap_or(0), usage.as_object);
                }
            }
        }
    }

    #[test]
    fn small_sets_are_walked_by_one_thread_large_ones_by_at_most_the_cores() {
        assert_eq!(parts_for(0), 1);
        assert_eq!(parts_for(2 * TERMS_PER_PART - 1), 1);
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let most = parts_for(usize::MAX);
        assert!(
            most >= 1 && most <= MAX_PARTS.min(cores),
            "{most} parts on {cores} cores"
        );
        assert_eq!(parts_for(2 * TERMS_PER_PART), 2.min(cores));
    }

    #[test]
    fn a_passed_deadline_stops_the_walk_incomplete() {
        let (_dir, store) = crate::testing::temp_store();
        let mut transaction = store.transaction().expect("transaction");
        for s in 0..3000 {
            transaction
                .insert(Quad::new(iri(s), iri(1), iri(2), GraphName::DefaultGraph).as_ref())
                .expect("insert");
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let mut sorted: Vec<TermId> = (0..3000)
            .filter_map(|n| reader.term_id(iri(n).as_ref().into()).expect("id"))
            .collect();
        sorted.sort_unstable();
        let ticker = Ticker::new(Deadline::after(Duration::ZERO));
        let (counts, complete) = properties(&reader, &sorted, None, 1, &ticker).expect("walk");
        assert!(!complete);
        assert!(counts.values().sum::<u64>() < 3000);
    }
}
