//! The start views, answered from the store's distinct counts.
//!
//! A view on the root with no constraint and no graph (the faceted browser's first screen:
//! classes, properties, properties-in and graphs of every entity) counts over every subject
//! of the store; walking them takes time that grows with the store. The store keeps the
//! counts these views need beside the quads (`Distinct` in `lodestone-store`), so such a
//! view is a scan of one kind's entries: as many as there are classes, predicates or graphs.
//!
//! Each count is the view's own (distinct subjects per class, per predicate and per graph;
//! per predicate the distinct objects that are subjects too), so the answers are exact.

use crate::model::{FacetQuery, ViewKind};
use lodestone_store::{Distinct, Reader, StoreError, TermId};

/// The rows of a start view, in view order (most first, then by id).
#[derive(Debug)]
pub struct StartRows {
    /// Every key with its count.
    pub rows: Vec<(TermId, u64)>,
    /// The number of focus terms: every distinct subject.
    pub focus_size: u64,
}

/// The statistic a start view reads, when `query` is a start view.
pub fn statistic(query: &FacetQuery) -> Option<Distinct> {
    let root = &query.root;
    let view = root.view.as_ref()?;
    let unconstrained = root.text.is_none()
        && root.classes.is_empty()
        && root.values.is_empty()
        && root.edges.is_empty()
        && query.graph.is_none();
    if !unconstrained {
        return None;
    }
    match view.kind {
        ViewKind::Classes => Some(Distinct::ClassSubjects),
        ViewKind::Properties => Some(Distinct::PredicateSubjects),
        ViewKind::PropertiesIn => Some(Distinct::PredicateObjects),
        ViewKind::Graphs => Some(Distinct::GraphSubjects),
        _ => None,
    }
}

/// The rows of a start view (see [`statistic`]).
pub fn rows(reader: &Reader<'_>, kind: Distinct) -> Result<StartRows, StoreError> {
    let mut rows = reader.distinct_counts(kind)?;
    rows.retain(|(_, count)| *count > 0);
    rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(StartRows {
        rows,
        focus_size: reader.distinct_subjects()?,
    })
}
