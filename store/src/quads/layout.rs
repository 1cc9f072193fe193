//! How graphs are laid out in the graph-first indexes.
//!
//! The default graph is in none of them: its quads are in `spog`, `posg` and `ospg` only, and
//! a pattern bound to the default graph scans one of those, skipping other graphs' quads.
//! Bulk loads of N-Triples dumps are all default graph; they write three index entries per
//! quad instead of six. Where the default graph is small beside named graphs, its patterns
//! read the named graphs' quads too; but a query reads the default graph alone only under the
//! strict default graph setting (without it, its default graph is the union of all graphs).
//!
//! Most named graphs of a publisher are small: one entity, one programme, one feed item. Such
//! a graph is kept *compact*: in `gspo` only, without entries in `gpos` and `gosp`. A pattern
//! with the graph bound then scans the graph's few quads in `gspo` and filters them, where an
//! indexed graph would be read in `gpos` or `gosp`. That spares every quad of a small graph
//! two of its six index entries: a quarter of what replacing a 150-quad graph writes into
//! memtables, flushes and compacts. A graph that grows past
//! [`StoreOptions::compact_graph_max_quads`](crate::StoreOptions::compact_graph_max_quads)
//! gets its `gpos` and `gosp` entries in the commit that makes it grow, and stays *indexed*.
//!
//! The layout is the value of the graph's entry in the `graphs` table: empty for an indexed
//! graph, one marker byte for a compact one. Graphs of stores written before compact graphs
//! existed, and graphs written by the bulk loader, are indexed; the default graph has no
//! entry.

use crate::database::Database;
use crate::encoding::TermId;
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use crate::stats::TermUsage;
use rustc_hash::{FxHashMap, FxHashSet};

const COMPACT_MARKER: u8 = b'c';

/// Which graph-first indexes hold a named graph's quads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GraphLayout {
    /// In `gspo`, `gpos` and `gosp`.
    Indexed,
    /// In `gspo` only; patterns with the graph bound filter its quads.
    Compact,
}

impl GraphLayout {
    /// The value of the graph's entry in the `graphs` table.
    pub(crate) fn encode(self) -> &'static [u8] {
        match self {
            Self::Indexed => &[],
            Self::Compact => &[COMPACT_MARKER],
        }
    }

    /// Reads the value of a `graphs` entry.
    pub(crate) fn decode(value: &[u8]) -> Result<Self, CorruptionError> {
        match value {
            [] => Ok(Self::Indexed),
            [COMPACT_MARKER] => Ok(Self::Compact),
            _ => Err(CorruptionError::msg("unknown graph layout")),
        }
    }

    /// The layout of a graph that holds `quads` quads and had `before` (`None`: the graph is
    /// new): compact while small, indexed for good once it has been large.
    fn after(before: Option<Self>, quads: u64, max_compact: u64) -> Self {
        match before {
            Some(Self::Indexed) => Self::Indexed,
            None | Some(Self::Compact) if quads <= max_compact => Self::Compact,
            None | Some(Self::Compact) => Self::Indexed,
        }
    }
}

/// A named graph's layout before and after a commit (`None`: the graph does not exist).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LayoutChange {
    pub before: Option<GraphLayout>,
    pub after: Option<GraphLayout>,
}

impl LayoutChange {
    /// Whether the graph's quads had entries in `gpos` and `gosp` before the commit.
    pub(crate) fn indexed_before(self) -> bool {
        self.before != Some(GraphLayout::Compact)
    }

    /// Whether they have entries there after it.
    pub(crate) fn indexed_after(self) -> bool {
        self.after != Some(GraphLayout::Compact)
    }

    /// Whether the commit gives a compact graph its `gpos` and `gosp` entries.
    pub(crate) fn converts(self) -> bool {
        self.before == Some(GraphLayout::Compact) && self.after == Some(GraphLayout::Indexed)
    }
}

/// What a transaction does to named graphs, as far as their layouts are concerned: the change
/// of each graph's quad count (every graph it touched, created or dropped has an entry), and
/// the graphs it created and dropped.
pub(crate) struct GraphDeltas<'a> {
    pub quads: FxHashMap<TermId, i64>,
    pub created: &'a FxHashSet<TermId>,
    pub dropped: &'a FxHashSet<TermId>,
}

/// The layout changes of every named graph a transaction touches. Graphs not in the plan
/// (the default graph) are indexed before and after.
#[derive(Debug, Default)]
pub(crate) struct LayoutPlan {
    changes: FxHashMap<TermId, LayoutChange>,
    /// Graphs that get `gpos` and `gosp` entries in this commit without having had any
    /// (converted, or created indexed under a name the store knew), sorted.
    reindexed: Vec<TermId>,
}

impl LayoutPlan {
    /// Plans the layouts at commit. `is_new` tells the ids the transaction handed out: a graph
    /// named by one cannot exist yet.
    pub(crate) fn new(
        database: &Database,
        graphs: GraphDeltas<'_>,
        is_new: impl Fn(TermId) -> bool,
    ) -> Result<Self, StoreError> {
        let GraphDeltas {
            quads: deltas,
            created,
            dropped,
        } = graphs;
        let db = database.db();
        let max_compact = database.options().compact_graph_max_quads as u64;
        let mut changes = FxHashMap::default();
        let mut reindexed = Vec::new();
        for (graph, delta) in deltas {
            let before = if is_new(graph) || created.contains(&graph) {
                None
            } else {
                // A graph holding quads always has an entry; without one, assume the layout
                // that writes every entry.
                let value = db.get_pinned_cf(database.cf(Table::Graphs), graph.to_be_bytes())?;
                Some(value.map_or(Ok(GraphLayout::Indexed), |v| GraphLayout::decode(&v))?)
            };
            let after = if dropped.contains(&graph) {
                None
            } else {
                let committed = match before {
                    Some(GraphLayout::Compact) => {
                        let usage =
                            db.get_pinned_cf(database.cf(Table::TermStats), graph.to_be_bytes())?;
                        usage
                            .map_or(Ok(TermUsage::default()), |v| TermUsage::decode(&v))?
                            .as_graph
                    }
                    _ => 0,
                };
                let quads = committed.saturating_add_signed(delta);
                Some(GraphLayout::after(before, quads, max_compact))
            };
            let change = LayoutChange { before, after };
            if change.converts() || (before.is_none() && change.indexed_after() && !is_new(graph)) {
                reindexed.push(graph);
            }
            changes.insert(graph, change);
        }
        reindexed.sort_unstable();
        Ok(Self { changes, reindexed })
    }

    /// The change of one graph.
    pub(crate) fn change(&self, graph: TermId) -> LayoutChange {
        self.changes.get(&graph).copied().unwrap_or(LayoutChange {
            before: Some(GraphLayout::Indexed),
            after: Some(GraphLayout::Indexed),
        })
    }

    /// Graphs the commit gives their `gpos` and `gosp` entries.
    pub(crate) fn conversions(&self) -> impl Iterator<Item = TermId> + '_ {
        self.changes
            .iter()
            .filter(|(_, c)| c.converts())
            .map(|(g, _)| *g)
    }

    /// Graphs whose `gpos` and `gosp` entries start with this commit, apart from graphs named
    /// by a term the commit adds: their ranges there are cleared first. A compact graph has no
    /// entries there, but a store written by an earlier build can hold some (a compact graph
    /// cleared and refilled with the same quads got them), which would otherwise come back
    /// with its first entries.
    pub(crate) fn reindexed(&self) -> impl Iterator<Item = TermId> + '_ {
        self.reindexed.iter().copied()
    }

    /// Graphs whose `graphs` entry the commit writes, with its value: the created ones and the
    /// converted ones.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (TermId, GraphLayout)> + '_ {
        self.changes
            .iter()
            .filter_map(|(g, c)| match (c.before, c.after) {
                (None, Some(after)) => Some((*g, after)),
                (Some(before), Some(after)) if before != after => Some((*g, after)),
                _ => None,
            })
    }
}
