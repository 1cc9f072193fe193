//! `Reader::walk_terms` against one pattern scan per term: random stores where terms have
//! from none to many quads (so that the walk steps, seeks and skips), random sorted term
//! sets, and a visitor that skips pairs, skips terms or stops by a rule of the quad.

use crate::support::{proptest_config, TempStore};
use lodestone_store::{EncodedQuad, Lead, Reader, Step, TermId, Walked};
use oxrdf::{GraphName, NamedNode, Quad};
use proptest::prelude::*;

fn iri(n: usize) -> NamedNode {
    NamedNode::new_unchecked(format!("http://example.com/t{n}"))
}

/// Terms `t0..t{TERMS}`: subjects, predicates and objects are drawn from the same pool so
/// that a term's quads at one position interleave with other terms' in id order.
const TERMS: usize = 120;

/// What the test visitor answers to a quad: a rule of its ids, so that the same quad gets
/// the same answer from the walk and from the reference.
fn rule(quad: &EncodedQuad, seed: u64) -> Step {
    let mix = quad.terms().iter().fold(seed, |h, t| {
        (h ^ u64::from_be_bytes(t.to_be_bytes())).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    });
    match mix >> 60 {
        0 => Step::SkipPair,
        1 => Step::NextTerm,
        _ => Step::Continue,
    }
}

/// Every visit the walk makes (terms announced are left out: the reference announces every
/// term, the walk only those it looks for).
fn walked(
    reader: &Reader<'_>,
    lead: Lead,
    sorted: &[TermId],
    seed: u64,
    stop_after: usize,
) -> Vec<EncodedQuad> {
    let mut out = Vec::new();
    reader
        .walk_terms(lead, sorted, |w| match w {
            Walked::Term(_) => Step::Continue,
            Walked::Quad(q) => {
                out.push(*q);
                if out.len() >= stop_after {
                    Step::Stop
                } else {
                    rule(q, seed)
                }
            }
        })
        .expect("walk");
    out
}

/// The same visits by one pattern scan per term.
fn reference(
    reader: &Reader<'_>,
    lead: Lead,
    sorted: &[TermId],
    seed: u64,
    stop_after: usize,
) -> Vec<EncodedQuad> {
    let mut out = Vec::new();
    let mut terms = sorted.to_vec();
    terms.dedup();
    'terms: for term in terms {
        let quads = match lead {
            Lead::Subject => reader.quads_for_pattern(Some(term), None, None, None),
            Lead::Object => reader.quads_for_pattern(None, None, Some(term), None),
        };
        let mut skipped: Option<(TermId, TermId)> = None;
        for quad in quads {
            let quad = quad.expect("quad");
            let pair = match lead {
                Lead::Subject => (quad.subject, quad.predicate),
                Lead::Object => (quad.object, quad.subject),
            };
            if skipped == Some(pair) {
                continue;
            }
            out.push(quad);
            if out.len() >= stop_after {
                break 'terms;
            }
            match rule(&quad, seed) {
                Step::SkipPair => skipped = Some(pair),
                Step::NextTerm => continue 'terms,
                Step::Stop => break 'terms,
                Step::Continue => {}
            }
        }
    }
    out
}

fn quads(spec: &[(usize, usize, usize, usize)]) -> Vec<Quad> {
    spec.iter()
        .map(|&(s, p, o, g)| {
            let graph = if g == 0 {
                GraphName::DefaultGraph
            } else {
                iri(g).into()
            };
            Quad::new(iri(s), iri(p), iri(o), graph)
        })
        .collect()
}

fn ids(reader: &Reader<'_>, picks: &[usize]) -> Vec<TermId> {
    let mut out: Vec<TermId> = picks
        .iter()
        .filter_map(|n| reader.term_id(iri(*n).as_ref().into()).expect("term id"))
        .collect();
    out.sort_unstable();
    out
}

/// Quads skewed so that a few terms have long runs (more than the steps before a seek).
fn quad_specs() -> impl Strategy<Value = Vec<(usize, usize, usize, usize)>> {
    let term = prop_oneof![0..8usize, 0..TERMS];
    prop::collection::vec((term.clone(), 0..6usize, term, 0..3usize), 0..600)
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn quads_by_subject_groups_the_full_scan(committed in quad_specs()) {
        let store = TempStore::new();
        let mut transaction = store.transaction().expect("transaction");
        for quad in quads(&committed) {
            transaction.insert(quad.as_ref()).expect("insert");
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let groups: Vec<(TermId, Vec<EncodedQuad>)> = reader
            .quads_by_subject()
            .collect::<Result<_, _>>()
            .expect("groups");
        for pair in groups.windows(2) {
            prop_assert!(pair[0].0 < pair[1].0, "subjects in increasing order, once each");
        }
        for (subject, group) in &groups {
            prop_assert!(!group.is_empty());
            prop_assert!(group.iter().all(|q| q.subject == *subject));
        }
        let scan: Vec<EncodedQuad> = reader
            .quads_for_pattern(None, None, None, None)
            .collect::<Result<_, _>>()
            .expect("scan");
        let grouped: Vec<EncodedQuad> = groups.into_iter().flat_map(|(_, g)| g).collect();
        prop_assert_eq!(grouped, scan);
    }

    #[test]
    fn walk_visits_what_scans_per_term_give(
        committed in quad_specs(),
        pending in quad_specs(),
        picks in prop::collection::vec(0..TERMS, 0..80),
        seed in any::<u64>(),
        stop_after in prop_oneof![Just(usize::MAX), 1..200usize],
        by_object in any::<bool>(),
    ) {
        let store = TempStore::new();
        let mut transaction = store.transaction().expect("transaction");
        for quad in quads(&committed) {
            transaction.insert(quad.as_ref()).expect("insert");
        }
        transaction.commit().expect("commit");
        let lead = if by_object { Lead::Object } else { Lead::Subject };

        let reader = store.reader();
        let sorted = ids(&reader, &picks);
        prop_assert_eq!(
            walked(&reader, lead, &sorted, seed, stop_after),
            reference(&reader, lead, &sorted, seed, stop_after)
        );

        // Split into parts walked at the same time, the visits are the same, part by part.
        for parts in 1..4 {
            let mut visited: Vec<Vec<EncodedQuad>> = vec![Vec::new(); parts];
            let mut visitors: Vec<_> = visited
                .iter_mut()
                .map(|out| {
                    move |w: Walked<'_>| match w {
                        Walked::Term(_) => Step::Continue,
                        Walked::Quad(q) => {
                            out.push(*q);
                            rule(q, seed)
                        }
                    }
                })
                .collect();
            reader.walk_terms_in_parts(lead, &sorted, &mut visitors).expect("walk");
            drop(visitors);
            prop_assert_eq!(visited.concat(), reference(&reader, lead, &sorted, seed, usize::MAX));
        }

        // A transaction's own reader sees its pending changes in the walk too.
        let mut transaction = store.transaction().expect("transaction");
        for quad in quads(&pending) {
            transaction.insert(quad.as_ref()).expect("insert");
        }
        for quad in quads(&committed).iter().step_by(3) {
            transaction.remove(quad.as_ref()).expect("remove");
        }
        let reader = transaction.reader();
        let sorted = ids(&reader, &picks);
        prop_assert_eq!(
            walked(&reader, lead, &sorted, seed, stop_after),
            reference(&reader, lead, &sorted, seed, stop_after)
        );
    }
}
