//! The counters a chunk adds to — how often each term is used (`term_stats`), in which
//! graphs (`term_graph`), how many instances each class has (`class_stats`) — from the runs
//! each index order yields once sorted (see `chunk::write_order`), added to the values the
//! store and the staged chunks hold; or, in a load of several chunks into an empty store,
//! the chunk's own counts of use and of terms in graphs, which the final merge sums (see
//! `counter_run`).
//!
//! Each order's runs come sorted by term, so a chunk's runs are merged rather than sorted
//! again, and the graph pairs and the term usage are looked up and written on two threads:
//! this is the last of a chunk's writing, which the reading of the next chunk may be waiting
//! for.

use super::ingest::IngestBatch;
use super::staging::{current_values, spread};
use crate::database::Database;
use crate::encoding::TermId;
use crate::error::StoreError;
use crate::kv::Table;
use crate::stats::{decode_u64, encode_u64, term_graph_key, TermUsage, UsageDelta};
use crate::threads::at_once;

/// Statistics that one index order yields from its sorted runs.
#[derive(Default)]
pub(super) struct OrderStats {
    /// Counts of use by term, sorted by term.
    pub(super) deltas: Vec<(TermId, UsageDelta)>,
    /// Quads by term and graph, sorted by term and graph unless the order starts with the
    /// graph.
    pub(super) pairs: Vec<(TermId, TermId, u64)>,
    /// Instances by class.
    pub(super) classes: Vec<(TermId, u64)>,
    /// The graphs the chunk has quads in.
    pub(super) graphs: Vec<TermId>,
    /// The chunk's subjects, sorted.
    pub(super) subjects: Vec<TermId>,
}

/// Writes a chunk's counters into a load's ingest batch.
pub(super) struct Counters<'a> {
    pub(super) database: &'a Database,
    pub(super) batch: &'a IngestBatch,
    /// Whether the store held quads before the load (see `ChunkWriter`).
    pub(super) store_had_quads: bool,
}

impl Counters<'_> {
    /// Writes the counters of a chunk whose orders gave `orders`, where `minted` tells the
    /// terms minted for the chunk (which no earlier counter has); gives the chunk's graphs
    /// and subjects.
    pub(super) fn write(
        &self,
        orders: Vec<OrderStats>,
        minted: impl Fn(TermId) -> bool + Copy + Send + Sync,
    ) -> Result<(Vec<TermId>, Vec<TermId>), StoreError> {
        let mut delta_runs = Vec::new();
        let mut pair_runs = Vec::new();
        let mut classes = Vec::new();
        let mut graphs = Vec::new();
        let mut subjects = Vec::new();
        for order in orders {
            delta_runs.push(order.deltas);
            pair_runs.push(order.pairs);
            classes.extend(order.classes);
            graphs.extend(order.graphs);
            subjects.extend(order.subjects);
        }
        if self.batch.sums_counters() {
            self.write_counts(pair_runs, delta_runs)?;
        } else {
            self.write_totals(pair_runs, delta_runs, minted)?;
        }
        let old = self.existing_counters(
            Table::ClassStats,
            classes.iter().map(|(c, _)| c.to_be_bytes().to_vec()),
        )?;
        self.batch.write(
            Table::ClassStats,
            classes
                .iter()
                .zip(old)
                .map(|((c, n), old)| (c.to_be_bytes(), encode_u64(n + old))),
        )?;
        Ok((graphs, subjects))
    }

    /// Writes the chunk's own counts of use and of terms in graphs, which the final merge sums
    /// (see `counter_run`), on two threads.
    fn write_counts(
        &self,
        pair_runs: Vec<Vec<(TermId, TermId, u64)>>,
        delta_runs: Vec<Vec<(TermId, UsageDelta)>>,
    ) -> Result<(), StoreError> {
        let (pairs, usage) = at_once(
            "load-counters",
            || {
                let pairs = merged_pairs(pair_runs);
                self.batch.write_counts(
                    Table::TermGraph,
                    pairs.iter().map(|(t, g, n)| (term_graph_key(*t, *g), [*n])),
                )
            },
            || {
                let usage = merged_usage(delta_runs);
                self.batch.write_counts(
                    Table::TermStats,
                    usage.iter().map(|(t, d)| {
                        let counts = [d.as_subject, d.as_predicate, d.as_object, d.as_graph];
                        (t.to_be_bytes(), counts.map(i64::unsigned_abs))
                    }),
                )
            },
        )?;
        pairs?;
        usage
    }

    /// Writes the counters as totals: the chunk's counts added to those the store and the
    /// chunks before it left.
    fn write_totals(
        &self,
        pair_runs: Vec<Vec<(TermId, TermId, u64)>>,
        delta_runs: Vec<Vec<(TermId, UsageDelta)>>,
        minted: impl Fn(TermId) -> bool + Copy + Send + Sync,
    ) -> Result<(), StoreError> {
        let (entered, usage) = at_once(
            "load-counters",
            || self.write_term_graph(pair_runs, minted),
            || self.usage(delta_runs, minted),
        )?;
        let (mut usage, mut stored) = usage?;
        self.add_entered_graphs(&mut usage, &mut stored, &entered?)?;
        self.batch.write(
            Table::TermStats,
            usage.iter().zip(stored).map(|((t, d), u)| {
                let mut u = u.unwrap_or_default();
                u.apply(d);
                (t.to_be_bytes(), u.encode())
            }),
        )
    }

    /// Writes the term-graph counts (a chunk's plus the earlier value); gives the terms that
    /// entered a graph, sorted, once per graph entered.
    fn write_term_graph(
        &self,
        pair_runs: Vec<Vec<(TermId, TermId, u64)>>,
        minted: impl Fn(TermId) -> bool,
    ) -> Result<Vec<TermId>, StoreError> {
        let mut merged = merged_pairs(pair_runs);
        // A term minted for this chunk has no earlier counters: only the others are looked up
        // (in a data dump, most of a chunk's terms are new).
        let known = |(t, _, _): &(TermId, TermId, u64)| !minted(*t);
        let found = self.existing_counters(
            Table::TermGraph,
            merged
                .iter()
                .filter(|pair| known(pair))
                .map(|(t, g, _)| term_graph_key(*t, *g).to_vec()),
        )?;
        let old = spread(&merged, known, found, 0);
        let mut entered = Vec::new();
        for ((t, _, n), old) in merged.iter_mut().zip(&old) {
            if *old == 0 {
                entered.push(*t);
            }
            *n += old;
        }
        self.batch.write(
            Table::TermGraph,
            merged
                .iter()
                .map(|(t, g, n)| (term_graph_key(*t, *g), encode_u64(*n))),
        )?;
        Ok(entered)
    }

    /// The chunk's counts of use by term, sorted, and the values stored before it.
    #[allow(clippy::type_complexity)]
    fn usage(
        &self,
        delta_runs: Vec<Vec<(TermId, UsageDelta)>>,
        minted: impl Fn(TermId) -> bool,
    ) -> Result<(Vec<(TermId, UsageDelta)>, Vec<Option<TermUsage>>), StoreError> {
        let usage = merged_usage(delta_runs);
        let stored = self.stored_usage(&usage, minted)?;
        Ok((usage, stored))
    }

    /// The stored usage of `usage`'s terms but those `minted` for the chunk.
    fn stored_usage(
        &self,
        usage: &[(TermId, UsageDelta)],
        minted: impl Fn(TermId) -> bool,
    ) -> Result<Vec<Option<TermUsage>>, StoreError> {
        let known = |(t, _): &(TermId, UsageDelta)| !minted(*t);
        let found = current_values(
            self.database,
            self.batch.staging(),
            Table::TermStats,
            self.store_had_quads,
            || {
                usage
                    .iter()
                    .filter(|term| known(term))
                    .map(|(t, _)| t.to_be_bytes())
            },
            |v| Ok(TermUsage::decode(v)?),
        )?;
        Ok(spread(usage, known, found, None))
    }

    /// Counts in `usage` the graphs the terms `entered` (sorted) entered. Every term of a
    /// graph pair has a count of use from the same order, so each is in `usage` already;
    /// one that were not would be added with its stored value.
    fn add_entered_graphs(
        &self,
        usage: &mut Vec<(TermId, UsageDelta)>,
        stored: &mut Vec<Option<TermUsage>>,
        entered: &[TermId],
    ) -> Result<(), StoreError> {
        let mut missing = Vec::new();
        let mut at = 0;
        for &t in entered {
            while usage.get(at).is_some_and(|(u, _)| *u < t) {
                at += 1;
            }
            match usage.get_mut(at) {
                Some((u, d)) if *u == t => d.graphs += 1,
                _ => missing.push(t),
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let mut added: Vec<(TermId, UsageDelta)> = Vec::new();
        for t in missing {
            match added.last_mut() {
                Some((u, d)) if *u == t => d.graphs += 1,
                _ => added.push((
                    t,
                    UsageDelta {
                        graphs: 1,
                        ..UsageDelta::default()
                    },
                )),
            }
        }
        let added_stored = self.stored_usage(&added, |_| false)?;
        let old = std::mem::take(usage)
            .into_iter()
            .zip(std::mem::take(stored))
            .collect();
        let new = added.into_iter().zip(added_stored).collect();
        for ((t, d), s) in merge_runs(vec![old, new], |((t, _), _)| *t) {
            usage.push((t, d));
            stored.push(s);
        }
        Ok(())
    }

    /// Current values of counters (0 when absent); keys must be sorted.
    fn existing_counters(
        &self,
        table: Table,
        keys: impl Iterator<Item = Vec<u8>>,
    ) -> Result<Vec<u64>, StoreError> {
        let keys: Vec<Vec<u8>> = keys.collect();
        let values = current_values(
            self.database,
            self.batch.staging(),
            table,
            self.store_had_quads,
            || keys.iter(),
            |v| Ok(decode_u64(v)?),
        )?;
        Ok(values.into_iter().map(Option::unwrap_or_default).collect())
    }
}

/// The chunk's quads by term and graph, from every order's runs: sorted, each pair once.
fn merged_pairs(pair_runs: Vec<Vec<(TermId, TermId, u64)>>) -> Vec<(TermId, TermId, u64)> {
    let mut merged: Vec<(TermId, TermId, u64)> = Vec::new();
    for (t, g, n) in merge_runs(pair_runs, |(t, g, _)| (*t, *g)) {
        match merged.last_mut() {
            Some((lt, lg, ln)) if *lt == t && *lg == g => *ln += n,
            _ => merged.push((t, g, n)),
        }
    }
    merged
}

/// The chunk's counts of use by term, from every order's runs: sorted, each term once.
fn merged_usage(delta_runs: Vec<Vec<(TermId, UsageDelta)>>) -> Vec<(TermId, UsageDelta)> {
    let mut usage: Vec<(TermId, UsageDelta)> = Vec::new();
    for (t, d) in merge_runs(delta_runs, |(t, _)| *t) {
        match usage.last_mut() {
            Some((lt, ld)) if *lt == t => ld.add(&d),
            _ => usage.push((t, d)),
        }
    }
    usage
}

/// The items of `runs` in one vector sorted by `key`: each run is sorted first unless it is
/// (as the orders' runs nearly always are), then the runs are merged.
fn merge_runs<T, K: Ord>(mut runs: Vec<Vec<T>>, key: impl Fn(&T) -> K) -> Vec<T> {
    runs.retain(|run| !run.is_empty());
    for run in &mut runs {
        if !run.is_sorted_by_key(&key) {
            run.sort_by_key(&key);
        }
    }
    if runs.len() <= 1 {
        return runs.pop().unwrap_or_default();
    }
    let mut merged = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    let mut heads: Vec<_> = runs
        .into_iter()
        .map(|run| run.into_iter().peekable())
        .collect();
    loop {
        let mut next: Option<(usize, K)> = None;
        for (i, head) in heads.iter_mut().enumerate() {
            if let Some(item) = head.peek() {
                let k = key(item);
                if next.as_ref().is_none_or(|(_, best)| k < *best) {
                    next = Some((i, k));
                }
            }
        }
        let Some(item) = next.and_then(|(i, _)| heads[i].next()) else {
            break;
        };
        merged.push(item);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn runs_merge_into_the_sorted_whole(
            runs in proptest::collection::vec(proptest::collection::vec(0u8..50, 0..60), 0..7),
            presorted in any::<bool>(),
        ) {
            let runs: Vec<Vec<u8>> = runs
                .into_iter()
                .map(|mut run| {
                    if presorted {
                        run.sort_unstable();
                    }
                    run
                })
                .collect();
            let mut expected: Vec<u8> = runs.concat();
            expected.sort_unstable();
            prop_assert_eq!(merge_runs(runs, |x| *x), expected);
        }
    }
}
