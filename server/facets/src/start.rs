//! The start views, answered from the store's distinct counts.
//!
//! A view on the root with no constraint (the faceted browser's first screen: classes,
//! properties, properties-in and graphs of every entity) counts over every subject of the
//! store; walking them takes time that grows with the store. The store keeps the counts
//! these views need beside the quads (`Distinct` in `lodestone-store`), so such a view is a
//! scan of one kind's entries: as many as there are classes, predicates or graphs.
//!
//! Each count is the view's own (distinct subjects per class, per predicate and per graph;
//! per predicate the distinct objects that are subjects too), so the answers are exact.
//!
//! With a `graph`, the statistics suffice for two views: `graphs` (its one row is the
//! graph's distinct subjects) and any view when that graph holds every quad of the store
//! (a store loaded into one named graph), where the graph's counts are the store's. The
//! counts of one graph among several are not kept; those views walk the graph's subjects.

use crate::model::{FacetQuery, ViewKind};
use lodestone_store::{Distinct, Reader, StoreError, TermId};

/// A start view: the statistic it reads, and the one graph it is restricted to when only
/// that graph's entry counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartView {
    /// The kind of distinct count read.
    pub kind: Distinct,
    /// For a `graphs` view in one graph: that graph (its entry is the only row).
    pub only: Option<TermId>,
}

/// The rows of a start view, in view order (most first, then by id).
#[derive(Debug)]
pub struct StartRows {
    /// Every key with its count.
    pub rows: Vec<(TermId, u64)>,
    /// The number of focus terms: every distinct subject (of the graph, for one graph).
    pub focus_size: u64,
}

/// How `query` is answered from the statistics, when it is a start view they decide.
pub fn start_view(
    reader: &Reader<'_>,
    query: &FacetQuery,
) -> Result<Option<StartView>, StoreError> {
    let root = &query.root;
    let Some(view) = root.view.as_ref() else {
        return Ok(None);
    };
    let unconstrained = root.constrained_by_classes_only() && root.classes.is_empty();
    let kind = match view.kind {
        ViewKind::Classes => Distinct::ClassSubjects,
        ViewKind::Properties => Distinct::PredicateSubjects,
        ViewKind::PropertiesIn => Distinct::PredicateObjects,
        ViewKind::Graphs => Distinct::GraphSubjects,
        _ => return Ok(None),
    };
    if !unconstrained {
        return Ok(None);
    }
    if kind == Distinct::GraphSubjects {
        if let Some(graph) = &query.graph {
            // A graph the store does not know is answered (no rows) by the general path.
            return Ok(reader
                .term_id(graph.as_ref().into())?
                .map(|graph| StartView {
                    kind,
                    only: Some(graph),
                }));
        }
    }
    Ok(store_wide(reader, query)?.then_some(StartView { kind, only: None }))
}

/// Whether the store-wide statistics describe what `query` reads: it reads every graph, or
/// one graph holding every quad of the store (a store loaded into one named graph).
pub fn store_wide(reader: &Reader<'_>, query: &FacetQuery) -> Result<bool, StoreError> {
    let Some(graph) = &query.graph else {
        return Ok(true);
    };
    let Some(graph) = reader.term_id(graph.as_ref().into())? else {
        return Ok(false);
    };
    let in_graph = reader.usage(graph)?.as_graph;
    Ok(in_graph > 0 && in_graph == reader.quad_count()?)
}

/// The rows of a start view (see [`start_view`]).
pub fn rows(reader: &Reader<'_>, view: StartView) -> Result<StartRows, StoreError> {
    if let Some(graph) = view.only {
        let count = reader.distinct_count(view.kind, graph)?;
        return Ok(StartRows {
            rows: if count > 0 {
                vec![(graph, count)]
            } else {
                Vec::new()
            },
            focus_size: count,
        });
    }
    let mut rows = reader.distinct_counts(view.kind)?;
    rows.retain(|(_, count)| *count > 0);
    rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(StartRows {
        rows,
        focus_size: reader.distinct_subjects()?,
    })
}
