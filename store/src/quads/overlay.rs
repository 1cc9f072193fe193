//! A write transaction's uncommitted changes, and the index entries they become at commit.
//!
//! Invariants the writer keeps:
//! - `added` holds quads the committed store does not have, `removed` quads it has; a quad is
//!   never in both.
//! - For every graph in `cleared_graphs` (cleared whole by this transaction), each quad the
//!   committed store holds in that graph is either in `removed` or in `restored` (inserted
//!   again after the clear). So the graph's content at commit is `restored` plus its `added`
//!   quads, which lets the commit replace the graph in the graph-first indexes with one range
//!   deletion, and lets inserts into it skip the look-up of the committed store.

use crate::database::Database;
use crate::encoding::{EncodedQuad, Permutation, TermId};
use crate::kv::permutation_table;
use crate::quads::layout::{GraphDeltas, LayoutPlan};
use oxrdf::Term;
use rocksdb::WriteBatch;
use rustc_hash::{FxHashMap, FxHashSet};

/// Uncommitted changes of a transaction, visible to its own reads.
#[derive(Default)]
pub(crate) struct Overlay {
    pub(super) added: FxHashSet<EncodedQuad>,
    pub(super) removed: FxHashSet<EncodedQuad>,
    pub(super) new_terms: FxHashMap<Vec<u8>, TermId>,
    pub(super) new_terms_by_id: FxHashMap<TermId, Term>,
    pub(super) created_graphs: FxHashSet<TermId>,
    pub(super) dropped_graphs: FxHashSet<TermId>,
    /// Graphs (the default one included) whose every committed quad this transaction removed.
    pub(super) cleared_graphs: FxHashSet<TermId>,
    /// Committed quads of cleared graphs that were inserted again after the clear.
    pub(super) restored: FxHashSet<EncodedQuad>,
}

impl Overlay {
    /// The changes to named graphs that decide their layouts at commit: every graph whose
    /// index entries the commit writes has one, a cleared graph whose quads all came back
    /// included (its restored quads are written again, see `write_index_entries`).
    pub(crate) fn graph_deltas(&self) -> GraphDeltas<'_> {
        let mut quads: FxHashMap<TermId, i64> = FxHashMap::default();
        let added = self.added.iter().map(|q| (q, 1));
        for (quad, sign) in added.chain(self.removed.iter().map(|q| (q, -1))) {
            if !quad.graph.is_default_graph() {
                *quads.entry(quad.graph).or_default() += sign;
            }
        }
        let restored = self.restored.iter().map(|q| &q.graph);
        let touched = self.created_graphs.iter().chain(&self.dropped_graphs);
        for graph in touched.chain(restored.filter(|g| !g.is_default_graph())) {
            quads.entry(*graph).or_default();
        }
        GraphDeltas {
            quads,
            created: &self.created_graphs,
            dropped: &self.dropped_graphs,
        }
    }

    pub(crate) fn added_matching(
        &self,
        permutation: Permutation,
        pattern: [Option<TermId>; 4],
    ) -> Vec<EncodedQuad> {
        let mut out: Vec<EncodedQuad> = self
            .added
            .iter()
            .filter(|q| q.matches(&pattern))
            .copied()
            .collect();
        out.sort_unstable_by_key(|q| permutation.key(q));
        out
    }

    /// `Some(true)` if added, `Some(false)` if removed, `None` if untouched.
    pub(crate) fn contains(&self, quad: &EncodedQuad) -> Option<bool> {
        if self.added.contains(quad) {
            Some(true)
        } else if self.removed.contains(quad) {
            Some(false)
        } else {
            None
        }
    }

    pub(crate) fn is_removed(&self, quad: &EncodedQuad) -> bool {
        self.removed.contains(quad)
    }

    pub(crate) fn new_term_id(&self, bytes: &[u8]) -> Option<TermId> {
        self.new_terms.get(bytes).copied()
    }

    pub(crate) fn new_term(&self, id: TermId) -> Option<&Term> {
        self.new_terms_by_id.get(&id)
    }

    pub(crate) fn is_dropped_graph(&self, graph: TermId) -> bool {
        self.dropped_graphs.contains(&graph)
    }

    pub(crate) fn is_created_graph(&self, graph: TermId) -> bool {
        self.created_graphs.contains(&graph)
    }

    pub(crate) fn created_graphs(&self) -> impl Iterator<Item = TermId> + '_ {
        self.created_graphs.iter().copied()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.created_graphs.is_empty()
            && self.dropped_graphs.is_empty()
    }

    /// Whether the committed store holds `quad`, if the overlay alone can tell: quads of a
    /// graph cleared whole are committed exactly when removed or restored.
    pub(super) fn known_committed(&self, quad: &EncodedQuad) -> Option<bool> {
        self.cleared_graphs
            .contains(&quad.graph)
            .then(|| self.removed.contains(quad) || self.restored.contains(quad))
    }

    /// Marks a committed quad removed.
    pub(super) fn remove_committed(&mut self, quad: EncodedQuad) {
        self.restored.remove(&quad);
        self.removed.insert(quad);
    }

    /// Takes a removed committed quad back; returns false if it was not removed.
    pub(super) fn restore(&mut self, quad: &EncodedQuad) -> bool {
        if !self.removed.remove(quad) {
            return false;
        }
        if self.cleared_graphs.contains(&quad.graph) {
            self.restored.insert(*quad);
        }
        true
    }

    /// The cleared graphs that held at least `min_quads` committed quads (removed, or put
    /// back after the clear): worth a range deletion (see
    /// `StoreOptions::range_deletion_min_quads`).
    fn ranged_graphs(&self, min_quads: usize) -> FxHashSet<TermId> {
        if self.cleared_graphs.is_empty() {
            return FxHashSet::default();
        }
        let mut removed: FxHashMap<TermId, usize> = FxHashMap::default();
        for quad in self.removed.iter().chain(&self.restored) {
            if self.cleared_graphs.contains(&quad.graph) {
                *removed.entry(quad.graph).or_default() += 1;
            }
        }
        removed
            .into_iter()
            .filter(|(_, n)| *n >= min_quads)
            .map(|(graph, _)| graph)
            .collect()
    }

    /// Writes the quad index entries of the changes into `batch`, in key order per table so
    /// that memtable inserts walk the skip list from the previous position.
    ///
    /// In the three graph-first indexes a large graph cleared whole (see
    /// `StoreOptions::range_deletion_min_quads`) is one range deletion followed by the puts
    /// of its quads at commit (its `added` and `restored` ones): readers then seek past the old
    /// version instead of stepping over one tombstone per quad, and the commit writes a third
    /// fewer entries. The subject-first indexes get a point deletion per removed quad. Quads
    /// restored in other indexes are untouched.
    ///
    /// The graph-first indexes hold no quad of the default graph, and `gpos` and `gosp` the
    /// quads of indexed named graphs only (see `quads::layout`): `converted` are the final
    /// quads of the graphs the commit turns from compact to indexed.
    pub(super) fn write_index_entries(
        &self,
        database: &Database,
        batch: &mut WriteBatch,
        layouts: &LayoutPlan,
        converted: &[EncodedQuad],
    ) {
        let ranged = self.ranged_graphs(database.options().range_deletion_min_quads);
        let mut ranges: Vec<TermId> = ranged.iter().copied().collect();
        ranges.sort_unstable();
        for permutation in Permutation::ALL {
            let cf = database.cf(permutation_table(permutation));
            let graph_first = permutation.is_graph_first();
            // Whether this order holds a graph's quads before and after the commit (the quads
            // of a converted graph are written whole, below).
            let before = |g: TermId| permutation.holds(g, !layouts.change(g).indexed_before());
            let after = |g: TermId| {
                let change = layouts.change(g);
                permutation.holds(g, !change.indexed_after() || change.converts())
            };
            let mut keys: Vec<([u8; 32], bool)> = self
                .added
                .iter()
                .filter(|q| after(q.graph))
                .map(|q| (permutation.key(q), true))
                .chain(
                    self.removed
                        .iter()
                        .filter(|q| before(q.graph) && (!graph_first || !ranged.contains(&q.graph)))
                        .map(|q| (permutation.key(q), false)),
                )
                .collect();
            if graph_first {
                // A range deletion covers the entries written before it in the batch only,
                // so it goes first.
                for graph in ranges.iter().filter(|g| before(**g)) {
                    let (start, end) = Permutation::graph_range(*graph);
                    batch.delete_range_cf(cf, start.as_slice(), end.as_slice());
                }
                keys.extend(
                    self.restored
                        .iter()
                        .filter(|q| ranged.contains(&q.graph) && after(q.graph))
                        .map(|q| (permutation.key(q), true)),
                );
                if !permutation.holds_compact_graphs() {
                    // Entries left there by a version that wrote some quads of compact graphs
                    // into these orders would come back with the graph's first entries.
                    for graph in layouts.reindexed() {
                        let (start, end) = Permutation::graph_range(graph);
                        batch.delete_range_cf(cf, start.as_slice(), end.as_slice());
                    }
                    keys.extend(converted.iter().map(|q| (permutation.key(q), true)));
                }
            }
            keys.sort_unstable();
            for (key, is_put) in keys {
                if is_put {
                    batch.put_cf(cf, key, []);
                } else {
                    batch.delete_cf(cf, key);
                }
            }
        }
    }
}
