//! Views over a focus set: what is counted for each focus term, on internal ids.
//!
//! Each count is the number of *distinct focus terms* having the key (a class, a property, a
//! value, a graph), whatever the number of quads behind it. Keys are sorted by count (most
//! first) then by id, so that pages are stable.
//!
//! The views that read every focus term's own quads (`properties`, `properties-in`,
//! `graphs`) cost in proportion to those quads: millions of entities with ten quads each take
//! seconds. For a large focus set ([`SAMPLE_FROM`] terms or more, all of them known) a
//! sample of about [`SAMPLE_SIZE`] terms (chosen by a hash of their ids) is walked first, and
//! its time projects the whole walk's (split between threads as the walk is): when that fits
//! in the time left the whole set is walked and the counts are exact; when it does not (or
//! the whole walk runs out of time after all) the sample's counts scaled by `focus / sample`
//! are answered as estimates, with the sample size, instead of lower bounds of whatever part
//! was walked by the deadline.

use crate::budget::{Deadline, Ticker};
use crate::error::EngineError;
use crate::executor::FocusSet;
use crate::model::{View, ViewKind};
use crate::scan::{self, End};
use crate::{snippets, walks};
use lodestone_store::{Reader, TermId};
use oxrdf::Term;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// Focus sets at least this large are first walked in a sample (see the module's notes).
pub const SAMPLE_FROM: usize = 65_536;

/// Focus terms in the sample of a large focus set (about: every k-th term is taken).
pub const SAMPLE_SIZE: usize = 16_384;

/// The rows of a view before labels and decoding.
#[derive(Debug, Default)]
pub struct ViewRows {
    /// The page of rows: the key and its count (or, for entities, its rank score).
    pub rows: Vec<(TermId, f64)>,
    /// Number of keys in all (focus terms for `entities`).
    pub total: u64,
    /// Whether every focus term was counted.
    pub complete: bool,
    /// When the counts are estimates: the number of focus terms sampled (the counts are the
    /// sample's scaled to the focus set; the answer is then not complete).
    pub sample: Option<u64>,
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
    let graph = scope.graph;
    let mut sample = None;
    let (mut rows, complete) = match view.kind {
        ViewKind::Entities => rank_entities(reader, focus, &ticker)?,
        ViewKind::Classes => match scope.rdf_type {
            Some(t) => count_objects(reader, focus, t, graph, &mut ticker)?,
            None => (Vec::new(), true),
        },
        ViewKind::Properties | ViewKind::PropertiesIn | ViewKind::Graphs => {
            let walk: Walk = match view.kind {
                ViewKind::Properties => walks::properties,
                ViewKind::PropertiesIn => walks::properties_in,
                _ => walks::graphs,
            };
            let fits = |projected| Instant::now() + projected <= deadline.instant();
            let walked = walk_or_estimate(reader, focus, graph, &ticker, walk, fits)?;
            sample = walked.sample;
            (walked.rows, walked.complete)
        }
        // The counts per value from which `ranges` are bucketed (the engine buckets them in
        // [`crate::ranges`]).
        ViewKind::Values | ViewKind::Ranges => match scope.property {
            Some(p) => count_objects(reader, focus, p, graph, &mut ticker)?,
            None => (Vec::new(), true),
        },
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
            sample: None,
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
        complete: complete && focus.complete && sample.is_none(),
        sample,
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

/// About [`SAMPLE_SIZE`] of `sorted`, in order: the terms whose mixed id falls in one of
/// `len / SAMPLE_SIZE` classes. Taking every k-th term instead would follow any period in
/// how the data was loaded (every fourth entity of a kind, in id order, having a property).
fn sample_of(sorted: &[TermId]) -> Vec<TermId> {
    let classes = (sorted.len() / SAMPLE_SIZE).max(1) as u64;
    sorted
        .iter()
        .copied()
        .filter(|id| mix(id.as_u64()).is_multiple_of(classes))
        .collect()
}

/// SplitMix64's finalizer: spreads consecutive ids over the whole range.
fn mix(id: u64) -> u64 {
    let mut z = id;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A walk of the focus terms' own quads ([`walks::properties`] and its kin).
type Walk = fn(
    &Reader<'_>,
    &[TermId],
    Option<TermId>,
    usize,
    &Ticker,
) -> Result<walks::Counted, EngineError>;

/// The rows of a walked view, exact or estimated from a sample.
struct Walked {
    rows: Vec<(TermId, f64)>,
    complete: bool,
    sample: Option<u64>,
}

/// Walks the whole focus set, or, for a large complete one whose walk would not finish in
/// the time left (`fits` says whether a walk of the projected duration would), answers
/// estimates from a sample of it (see the module's notes).
fn walk_or_estimate(
    reader: &Reader<'_>,
    focus: &FocusSet,
    graph: Option<TermId>,
    ticker: &Ticker,
    walk: Walk,
    fits: impl Fn(Duration) -> bool,
) -> Result<Walked, EngineError> {
    let members = &focus.members;
    let whole = |ticker: &Ticker| -> Result<Walked, EngineError> {
        let (rows, complete) = rows_of(walk(
            reader,
            members,
            graph,
            walks::parts_for(members.len()),
            ticker,
        )?);
        Ok(Walked {
            rows,
            complete,
            sample: None,
        })
    };
    if members.len() < SAMPLE_FROM || !focus.complete {
        return whole(ticker);
    }
    let sample = sample_of(members);
    let started = Instant::now();
    let (counts, sampled) = walk(reader, &sample, graph, 1, ticker)?;
    if !sampled {
        // Not even the sample was walked: its counts are lower bounds, as any walk's.
        let (rows, _) = rows_of((counts, false));
        return Ok(Walked {
            rows,
            complete: false,
            sample: None,
        });
    }
    #[allow(clippy::cast_precision_loss)] // a ratio of two set sizes
    let scale = members.len() as f64 / sample.len() as f64;
    // The sample is walked by one thread, the whole set in parts at the same time.
    let parts = walks::parts_for(members.len());
    let projected = started.elapsed().mul_f64(scale) / u32::try_from(parts).unwrap_or(1);
    if fits(projected) {
        let walked = whole(ticker)?;
        if walked.complete {
            return Ok(walked);
        }
    }
    let rows = counts
        .into_iter()
        .map(|(key, count)| (key, (count as f64 * scale).round()))
        .collect();
    Ok(Walked {
        rows,
        complete: false,
        sample: Some(sample.len() as u64),
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::{GraphName, NamedNode, Quad};

    fn iri(name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("http://example.com/{name}"))
    }

    #[test]
    fn a_large_focus_set_is_estimated_from_a_sample_when_its_walk_does_not_fit() {
        let (_dir, store) = crate::testing::temp_store();
        let entities = SAMPLE_FROM + 1000;
        let mut transaction = store.transaction().expect("transaction");
        for n in 0..entities {
            let e = iri(&format!("e{n}"));
            let quad = Quad::new(e.clone(), iri("all"), iri("x"), GraphName::DefaultGraph);
            transaction.insert(quad.as_ref()).expect("insert");
            if n % 4 == 0 {
                let quad = Quad::new(e, iri("quarter"), iri("y"), GraphName::DefaultGraph);
                transaction.insert(quad.as_ref()).expect("insert");
            }
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let mut members: Vec<TermId> = (0..entities)
            .filter_map(|n| {
                reader
                    .term_id(iri(&format!("e{n}")).as_ref().into())
                    .expect("id")
            })
            .collect();
        members.sort_unstable();
        let id = |name: &str| reader.term_id(iri(name).as_ref().into()).expect("id");
        let (all, quarter) = (id("all").expect("all"), id("quarter").expect("quarter"));
        let focus = FocusSet {
            members,
            scores: None,
            complete: true,
        };
        let ticker = Ticker::new(Deadline::after(Duration::from_secs(600)));
        let count =
            |rows: &[(TermId, f64)], key| rows.iter().find(|(k, _)| *k == key).map(|(_, c)| *c);

        let exact = walk_or_estimate(&reader, &focus, None, &ticker, walks::properties, |_| true)
            .expect("walk");
        assert!(exact.complete);
        assert_eq!(exact.sample, None);
        assert_eq!(count(&exact.rows, all), Some(entities as f64));
        assert_eq!(
            count(&exact.rows, quarter),
            Some(entities.div_ceil(4) as f64)
        );

        let estimated =
            walk_or_estimate(&reader, &focus, None, &ticker, walks::properties, |_| false)
                .expect("walk");
        assert!(!estimated.complete);
        let sample = estimated.sample.expect("a sample");
        assert!(sample > SAMPLE_SIZE as u64 / 2 && sample < 2 * SAMPLE_SIZE as u64);
        // Every entity has `all`: the scaled count is the focus size.
        assert_eq!(count(&estimated.rows, all), Some(entities as f64));
        let quarters = count(&estimated.rows, quarter).expect("quarter");
        let expected = entities as f64 / 4.0;
        assert!((quarters - expected).abs() < expected * 0.05, "{quarters}");

        // A small or incomplete focus set is always walked whole.
        let partial = FocusSet {
            complete: false,
            ..focus
        };
        let walked = walk_or_estimate(&reader, &partial, None, &ticker, walks::properties, |_| {
            false
        })
        .expect("walk");
        assert_eq!(walked.sample, None);
        assert_eq!(count(&walked.rows, all), Some(entities as f64));
    }
}
