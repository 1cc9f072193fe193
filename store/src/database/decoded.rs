//! Decoded dictionary terms shared by every reader of a store.
//!
//! A committed dictionary id names the same term for ever: ids are never reused, a bulk load
//! that has started to ingest always finishes (on the next open if need be), and terms of a
//! transaction that is rolled back are never put here (they live in its overlay). So a term
//! decoded once by any reader is right for every later reader, whatever its snapshot, and
//! pages, SPARQL results and facets that show the same classes, properties and hubs again and
//! again decode them from memory instead of a dictionary read each.

use crate::encoding::TermId;
use oxrdf::Term;
use rustc_hash::FxHashMap;
use std::sync::Mutex;

/// Shards of the map: readers on different threads rarely wait for one another.
const SHARDS: usize = 16;
/// What one entry costs besides its text (map slot, `Term` and `String` headers).
const ENTRY_OVERHEAD: usize = 64;

/// A bounded map from committed dictionary ids to their terms.
#[derive(Debug)]
pub(crate) struct DecodedTerms {
    shards: Box<[Mutex<Shard>]>,
    shard_budget: usize,
}

#[derive(Debug, Default)]
struct Shard {
    terms: FxHashMap<TermId, Term>,
    bytes: usize,
}

impl DecodedTerms {
    /// A map holding at most about `budget_bytes` of terms (0 keeps nothing).
    pub(crate) fn new(budget_bytes: usize) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            shard_budget: budget_bytes / SHARDS,
        }
    }

    fn shard(&self, id: TermId) -> &Mutex<Shard> {
        // Ids of one kind are consecutive numbers: their low bits spread them evenly.
        // On 32-bit targets the cast keeps the low bits, which are the ones that spread.
        #[allow(clippy::cast_possible_truncation)]
        let index = (id.payload() as usize) % SHARDS;
        &self.shards[index]
    }

    /// The term of a committed id, if decoded before.
    pub(crate) fn get(&self, id: TermId) -> Option<Term> {
        if self.shard_budget == 0 {
            return None;
        }
        let shard = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
        shard.terms.get(&id).cloned()
    }

    /// Keeps the term of a committed id. A shard over its budget is emptied first: a simple
    /// bound that costs nothing per read, and hot terms come back at once.
    pub(crate) fn insert(&self, id: TermId, term: &Term) {
        let weight = weight(term);
        if weight > self.shard_budget {
            return;
        }
        let mut shard = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
        if shard.bytes + weight > self.shard_budget {
            shard.terms.clear();
            shard.bytes = 0;
        }
        if shard.terms.insert(id, term.clone()).is_none() {
            shard.bytes += weight;
        }
    }
}

fn weight(term: &Term) -> usize {
    ENTRY_OVERHEAD
        + match term {
            Term::NamedNode(n) => n.as_str().len(),
            Term::BlankNode(b) => b.as_str().len(),
            Term::Literal(l) => {
                l.value().len()
                    + l.language().map_or(0, str::len)
                    + if l.language().is_none() {
                        l.datatype().as_str().len()
                    } else {
                        0
                    }
            }
            // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
            #[allow(unreachable_patterns)]
            _ => 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;
    use oxrdf::{Literal, NamedNode};

    fn iri(n: u64) -> (TermId, Term) {
        (
            TermId::new(TermKind::Iri, n),
            NamedNode::new_unchecked(format!("http://example.org/{n}")).into(),
        )
    }

    #[test]
    fn keeps_what_it_is_given() {
        let terms = DecodedTerms::new(1 << 20);
        let (id, term) = iri(7);
        assert_eq!(terms.get(id), None);
        terms.insert(id, &term);
        assert_eq!(terms.get(id), Some(term));
        let literal: Term = Literal::new_language_tagged_literal_unchecked("chat", "fr").into();
        let id = TermId::new(TermKind::Literal, 8);
        terms.insert(id, &literal);
        assert_eq!(terms.get(id), Some(literal));
    }

    #[test]
    fn stays_within_its_budget() {
        let budget = 16 * 1024;
        let terms = DecodedTerms::new(budget);
        for n in 0..10_000 {
            let (id, term) = iri(n);
            terms.insert(id, &term);
            let held: usize = terms
                .shards
                .iter()
                .map(|s| s.lock().map(|s| s.bytes).unwrap_or(0))
                .sum();
            assert!(held <= budget, "{held} bytes held after {n} inserts");
        }
        // The most recent term of each shard is still there.
        let (id, term) = iri(9_999);
        assert_eq!(terms.get(id), Some(term));
    }

    #[test]
    fn a_zero_budget_keeps_nothing() {
        let terms = DecodedTerms::new(0);
        let (id, term) = iri(1);
        terms.insert(id, &term);
        assert_eq!(terms.get(id), None);
    }
}
