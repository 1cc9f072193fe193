//! Views over a focus set: what is counted for each focus term, on internal ids.
//!
//! Each count is the number of *distinct focus terms* having the key (a class, a property, a
//! value, a graph), whatever the number of quads behind it. Keys are sorted by count (most
//! first) then by id, so that pages are stable.

use crate::budget::{Deadline, Ticker};
use crate::error::EngineError;
use crate::executor::FocusSet;
use crate::model::{View, ViewKind};
use crate::scan::{self, End};
use crate::{snippets, walks};
use lodestone_store::{Reader, TermId};
use oxrdf::Term;
use rustc_hash::FxHashMap;

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

/// What a view reads besides the focus set.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope<'a> {
    /// The property of `values` and `ranges`.
    pub property: Option<TermId>,
    /// The id of `rdf:type`, when the store knows it.
    pub rdf_type: Option<TermId>,
    /// The one graph read (`None`: every graph).
    pub graph: Option<TermId>,
    /// The focus node's text words (`text-properties`).
    pub words: &'a [String],
}

/// Computes one view's page.
pub fn compute(
    reader: &Reader<'_>,
    focus: &FocusSet,
    view: &View,
    scope: Scope<'_>,
    deadline: Deadline,
) -> Result<ViewRows, EngineError> {
    let mut ticker = Ticker::new(deadline);
    let parts = walks::parts_for(focus.members.len());
    let graph = scope.graph;
    let (mut rows, complete) = match view.kind {
        ViewKind::Entities => rank_entities(reader, focus, &ticker)?,
        ViewKind::Classes => match scope.rdf_type {
            Some(t) => count_objects(reader, focus, t, graph, &mut ticker)?,
            None => (Vec::new(), true),
        },
        ViewKind::Properties => rows_of(walks::properties(
            reader,
            &focus.members,
            graph,
            parts,
            &ticker,
        )?),
        ViewKind::PropertiesIn => rows_of(walks::properties_in(
            reader,
            &focus.members,
            graph,
            parts,
            &ticker,
        )?),
        // The counts per value from which `ranges` are bucketed (the engine buckets them in
        // [`crate::ranges`]).
        ViewKind::Values | ViewKind::Ranges => match scope.property {
            Some(p) => count_objects(reader, focus, p, graph, &mut ticker)?,
            None => (Vec::new(), true),
        },
        ViewKind::Graphs => rows_of(walks::graphs(
            reader,
            &focus.members,
            graph,
            parts,
            &ticker,
        )?),
        ViewKind::TextProperties => {
            snippets::text_properties(reader, &focus.members, scope.words, graph, &mut ticker)?
        }
    };
    let total = rows.len() as u64;
    if view.kind == ViewKind::Entities && focus.scores.is_some() {
        // Text-ranked entities come in IRI order: a stable sort by score keeps equal scores
        // in IRI order, as the list's SPARQL (`ORDER BY DESC(?score) STR(?e)`) has them.
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        let rows = rows
            .into_iter()
            .skip(view.offset)
            .take(view.limit)
            .collect();
        return Ok(ViewRows {
            rows,
            total,
            complete: complete && focus.complete,
        });
    }
    let order = |a: &(TermId, f64), b: &(TermId, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    // Only the page is put in order (the key order is total, so the page is the same as
    // after a full sort).
    let end = view.offset.saturating_add(view.limit);
    if end < rows.len() {
        rows.select_nth_unstable_by(end, order);
        rows.truncate(end);
    }
    rows.sort_by(order);
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
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, f64)>, bool), EngineError> {
    let (pairs, complete) = scan::pairs(
        reader,
        predicate,
        &focus.members,
        End::Subject,
        graph,
        ticker,
    )?;
    let mut counts: FxHashMap<TermId, u64> = FxHashMap::default();
    // The pairs are distinct (focus term, object).
    for (_, object) in pairs {
        *counts.entry(object).or_default() += 1;
    }
    let rows = counts.into_iter().map(|(k, c)| (k, c as f64)).collect();
    Ok((rows, complete))
}

/// Counts as rows.
fn rows_of((counts, complete): walks::Counted) -> (Vec<(TermId, f64)>, bool) {
    let rows = counts.into_iter().map(|(k, c)| (k, c as f64)).collect();
    (rows, complete)
}

/// Entities ranked by their text score (the index's, which already weighs in the in-degree,
/// and which the list's SPARQL binds), in IRI order; or by in-degree alone without text.
/// In-degrees come from one walk over the members' quads as objects
/// ([`walks::in_degrees`]); past the deadline the entities not reached yet are still listed
/// (the total stays right) but unranked, and the response says it is incomplete.
fn rank_entities(
    reader: &Reader<'_>,
    focus: &FocusSet,
    ticker: &Ticker,
) -> Result<(Vec<(TermId, f64)>, bool), EngineError> {
    let mut members = focus.members.clone();
    members.sort_unstable();
    members.dedup();
    if let Some(scores) = &focus.scores {
        let mut named = Vec::with_capacity(members.len());
        for x in members {
            let name = match reader.term(x)? {
                Term::NamedNode(iri) => iri.into_string(),
                other => other.to_string(),
            };
            named.push((name, x));
        }
        named.sort_unstable();
        let rows = named
            .into_iter()
            .map(|(_, x)| (x, f64::from(scores.get(&x).copied().unwrap_or(0.0))))
            .collect();
        return Ok((rows, true));
    }
    let (refs, complete) =
        walks::in_degrees(reader, &members, walks::parts_for(members.len()), ticker)?;
    let rows = members
        .into_iter()
        .map(|x| (x, (1.0 + refs.get(&x).copied().unwrap_or(0) as f64).ln()))
        .collect();
    Ok((rows, complete))
}
