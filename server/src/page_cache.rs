//! What entity pages look up again and again, kept until the next commit: the ids of the
//! label properties, per IRI its labels and whether the store describes it, and per entity
//! its incoming link counts (a hub's counts take a scan of all its incoming links).
//!
//! Pages of one dataset link to the same classes, properties and hubs over and over; reading
//! their labels once per commit instead of once per page is most of a typical page's cost.
//! Entries belong to one commit sequence: a reader whose snapshot is of another commit neither
//! reads nor fills the cache, and the first reader of a newer commit empties it.

use lodestone_store::TermId;
use lodestone_web::Labels;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// Entries kept before the cache is emptied (a simple bound on memory).
const MAX_ENTRIES: usize = 200_000;

/// What a page needs to know about an IRI it shows.
#[derive(Debug, Clone, Default)]
pub struct TermFacts {
    /// Its labels, by label property.
    pub labels: Labels,
    /// Whether it is the subject of some statement (so it has a page).
    pub described: bool,
}

/// The cache, shared by every request.
#[derive(Debug, Default)]
pub struct PageCache {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    sequence: u64,
    label_ids: Option<Arc<Vec<TermId>>>,
    facts: FxHashMap<TermId, Arc<TermFacts>>,
    incoming: FxHashMap<TermId, Arc<Vec<(TermId, u64)>>>,
}

impl PageCache {
    fn with<T>(&self, sequence: u64, f: impl FnOnce(&mut Inner) -> Option<T>) -> Option<T> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if sequence > inner.sequence {
            *inner = Inner {
                sequence,
                ..Inner::default()
            };
        }
        if sequence != inner.sequence {
            return None;
        }
        f(&mut inner)
    }

    /// The label property ids cached for this commit.
    pub fn label_ids(&self, sequence: u64) -> Option<Arc<Vec<TermId>>> {
        self.with(sequence, |inner| inner.label_ids.clone())
    }

    /// Keeps the label property ids of this commit.
    pub fn set_label_ids(&self, sequence: u64, ids: Arc<Vec<TermId>>) {
        self.with(sequence, |inner| inner.label_ids.replace(ids));
    }

    /// The facts cached for a term at this commit.
    pub fn facts(&self, sequence: u64, term: TermId) -> Option<Arc<TermFacts>> {
        self.with(sequence, |inner| inner.facts.get(&term).cloned())
    }

    /// Keeps the facts of a term at this commit.
    pub fn set_facts(&self, sequence: u64, term: TermId, facts: Arc<TermFacts>) {
        self.with(sequence, |inner| {
            if inner.facts.len() >= MAX_ENTRIES {
                inner.facts.clear();
            }
            inner.facts.insert(term, facts)
        });
    }
}

impl PageCache {
    /// The incoming link counts per predicate of an entity at this commit.
    pub fn incoming_counts(
        &self,
        sequence: u64,
        entity: TermId,
    ) -> Option<Arc<Vec<(TermId, u64)>>> {
        self.with(sequence, |inner| inner.incoming.get(&entity).cloned())
    }

    /// Keeps the incoming link counts of an entity at this commit.
    pub fn set_incoming_counts(
        &self,
        sequence: u64,
        entity: TermId,
        counts: Arc<Vec<(TermId, u64)>>,
    ) {
        self.with(sequence, |inner| {
            if inner.incoming.len() >= MAX_ENTRIES {
                inner.incoming.clear();
            }
            inner.incoming.insert(entity, counts)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::TermKind;

    #[test]
    fn entries_live_for_one_commit() {
        let cache = PageCache::default();
        let term = TermId::new(TermKind::Iri, 7);
        let facts = Arc::new(TermFacts {
            described: true,
            ..TermFacts::default()
        });
        cache.set_facts(3, term, facts);
        assert!(cache.facts(3, term).is_some_and(|f| f.described));
        // An older snapshot neither sees nor disturbs the entries.
        assert!(cache.facts(2, term).is_none());
        assert!(cache.facts(3, term).is_some());
        // A newer commit empties the cache.
        assert!(cache.facts(4, term).is_none());
        assert!(cache.facts(3, term).is_none());
    }
}
