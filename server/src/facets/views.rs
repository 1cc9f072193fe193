//! Views over a focus set: what is counted for each focus term, on internal ids.
//!
//! Each count is the number of *distinct focus terms* having the key (a class, a property, a
//! value, a graph), whatever the number of quads behind it. Keys are sorted by count (most
//! first) then by id, so that pages are stable.

use crate::facets::budget::{Deadline, EngineError, Ticker};
use crate::facets::executor::FocusSet;
use crate::facets::model::{View, ViewKind};
use crate::facets::scan::{self, End};
use lodestone_store::{Reader, TermId};
use rustc_hash::{FxHashMap, FxHashSet};

/// The rows of a view before labels and decoding.
#[derive(Debug, Default)]
pub struct ViewRows {
    /// The page of rows: the key and its count (or, for entities, its rank score).
    pub rows: Vec<(TermId, f64)>,
    /// Number of keys in all (focus terms for `entities`).
    pub total: u64,
    /// Whether every focus term was counted.
    pub complete: bool,
}

/// Computes one view's page.
pub fn compute(
    reader: &Reader<'_>,
    focus: &FocusSet,
    view: &View,
    property: Option<TermId>,
    rdf_type: Option<TermId>,
    deadline: Deadline,
) -> Result<ViewRows, EngineError> {
    let mut ticker = Ticker::new(deadline);
    let (mut rows, complete) = match view.kind {
        ViewKind::Entities => rank_entities(reader, focus, &mut ticker)?,
        ViewKind::Classes => match rdf_type {
            Some(t) => count_objects(reader, focus, t, &mut ticker)?,
            None => (Vec::new(), true),
        },
        ViewKind::Properties => count_keys(focus, &mut ticker, |x| {
            collect(reader.quads_for_pattern(Some(x), None, None, None), |q| {
                q.predicate
            })
        })?,
        ViewKind::PropertiesIn => count_keys(focus, &mut ticker, |x| {
            collect(reader.quads_for_pattern(None, None, Some(x), None), |q| {
                q.predicate
            })
        })?,
        // The counts per value from which `ranges` are bucketed (the engine buckets them in
        // [`crate::facets::ranges`]).
        ViewKind::Values | ViewKind::Ranges => match property {
            Some(p) => count_objects(reader, focus, p, &mut ticker)?,
            None => (Vec::new(), true),
        },
        ViewKind::Graphs => count_keys(focus, &mut ticker, |x| {
            let mut graphs = collect(reader.quads_for_pattern(Some(x), None, None, None), |q| {
                q.graph
            })?;
            // SPARQL's `GRAPH ?g` ranges over named graphs only.
            graphs.retain(|g| !g.is_default_graph());
            Ok(graphs)
        })?,
    };
    let total = rows.len() as u64;
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let rows = rows
        .into_iter()
        .skip(view.offset)
        .take(view.limit)
        .collect();
    Ok(ViewRows {
        rows,
        total,
        complete: complete && focus.complete,
    })
}

/// Counts, per object of `predicate`, the focus terms having it, by look-ups or one scan of
/// the predicate (whichever is cheaper).
fn count_objects(
    reader: &Reader<'_>,
    focus: &FocusSet,
    predicate: TermId,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, f64)>, bool), EngineError> {
    let (pairs, complete) = scan::pairs(reader, predicate, &focus.members, End::Subject, ticker)?;
    let mut counts: FxHashMap<TermId, u64> = FxHashMap::default();
    // The pairs are distinct (focus term, object).
    for (_, object) in pairs {
        *counts.entry(object).or_default() += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let rows = counts.into_iter().map(|(k, c)| (k, c as f64)).collect();
    Ok((rows, complete))
}

/// Distinct ids picked from a pattern's quads.
fn collect(
    quads: lodestone_store::QuadIter<'_, '_>,
    pick: impl Fn(&lodestone_store::EncodedQuad) -> TermId,
) -> Result<Vec<TermId>, EngineError> {
    let mut out = Vec::new();
    for quad in quads {
        let id = pick(&quad?);
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

/// Counts, per key, the focus terms whose `keys` include it; stops at the deadline.
fn count_keys(
    focus: &FocusSet,
    ticker: &mut Ticker,
    mut keys: impl FnMut(TermId) -> Result<Vec<TermId>, EngineError>,
) -> Result<(Vec<(TermId, f64)>, bool), EngineError> {
    let mut counts: FxHashMap<TermId, u64> = FxHashMap::default();
    let mut complete = true;
    for x in &focus.members {
        if let Err(EngineError::OutOfTime) = ticker.tick() {
            complete = false;
            break;
        }
        for key in keys(*x)? {
            *counts.entry(key).or_default() += 1;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let rows = counts.into_iter().map(|(k, c)| (k, c as f64)).collect();
    Ok((rows, complete))
}

/// Entities ranked by text score and in-degree (`score × (1 + 0.1·ln(1 + refs))`), or by
/// in-degree alone without text. In-degrees are read in batches of [`RANK_BATCH`].
fn rank_entities(
    reader: &Reader<'_>,
    focus: &FocusSet,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, f64)>, bool), EngineError> {
    let mut seen = FxHashSet::default();
    let members: Vec<TermId> = focus
        .members
        .iter()
        .copied()
        .filter(|x| seen.insert(*x))
        .collect();
    let mut rows = Vec::with_capacity(members.len());
    let mut complete = true;
    for batch in members.chunks(RANK_BATCH) {
        // Past the deadline the remaining entities are still listed (the total stays
        // right) but unranked, and the response says it is incomplete.
        if complete && batch.iter().all(|_| ticker.tick().is_ok()) {
            let usages = reader.usages(batch)?;
            for (x, usage) in batch.iter().zip(usages) {
                #[allow(clippy::cast_precision_loss)]
                rows.push((*x, score(focus, *x, usage.as_object as f64)));
            }
        } else {
            complete = false;
            rows.extend(batch.iter().map(|x| (*x, score(focus, *x, 0.0))));
        }
    }
    Ok((rows, complete))
}

/// Entities whose in-degrees are read together.
const RANK_BATCH: usize = 4096;

/// The rank score of an entity with `refs` incoming links.
fn score(focus: &FocusSet, x: TermId, refs: f64) -> f64 {
    let rank = (1.0 + refs).ln();
    match &focus.scores {
        Some(scores) => f64::from(scores.get(&x).copied().unwrap_or(0.0)) * (1.0 + 0.1 * rank),
        None => rank,
    }
}
