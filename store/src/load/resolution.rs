//! The resolution of a chunk's pending terms against the dictionary as the load has left it,
//! on both cores.
//!
//! At the end of a chunk the reading stops while its terms are resolved, and the chunk before
//! it is written by then, so one core would sit idle: the terms are keyed and sorted in two
//! halves at once and merged, and each half of the sorted terms is looked up on its own
//! thread. The ids are then minted in key order by the encoder, on one thread.

use super::staging::{current_values, Staging};
use crate::database::Database;
use crate::dictionary::{decode_ids, is_hashed_key, lookup_key};
use crate::encoding::{TermId, TermKind};
use crate::error::StoreError;
use crate::kv::Table;
use crate::threads::at_once;

/// Fewest terms worth a second thread.
const TWO_THREADS_FROM: usize = 1_024;

/// A chunk's pending term at resolution.
pub(super) struct PendingTerm {
    /// Its dictionary key, by which the chunk's terms are resolved in order.
    pub(super) key: Vec<u8>,
    /// Its dictionary bytes.
    pub(super) bytes: Box<[u8]>,
    /// Its provisional index in the chunk.
    pub(super) index: u32,
    /// The kind of id it gets if new.
    pub(super) kind: TermKind,
}

/// A pending term as the encoder's table holds it: bytes, provisional index and kind.
pub(super) type Pending = (Box<[u8]>, (u32, TermKind));

/// The terms keyed by their dictionary key and sorted by it.
pub(super) fn sorted_by_key(mut terms: Vec<Pending>) -> Result<Vec<PendingTerm>, StoreError> {
    fn keyed_and_sorted(terms: Vec<Pending>) -> Vec<PendingTerm> {
        let mut keyed: Vec<PendingTerm> = terms
            .into_iter()
            .map(|(bytes, (index, kind))| PendingTerm {
                key: lookup_key(&bytes),
                bytes,
                index,
                kind,
            })
            .collect();
        keyed.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        keyed
    }
    if terms.len() < TWO_THREADS_FROM {
        return Ok(keyed_and_sorted(terms));
    }
    let right = terms.split_off(terms.len() / 2);
    let (left, right) = at_once(
        "load-resolver",
        || keyed_and_sorted(terms),
        || keyed_and_sorted(right),
    )?;
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let mut right = right.into_iter().peekable();
    for term in left {
        while let Some(before) = right.next_if(|r| r.key < term.key) {
            merged.push(before);
        }
        merged.push(term);
    }
    merged.extend(right);
    Ok(merged)
}

/// Gives `work`'s results for the two halves of `items`, in order, the second half worked on
/// by another thread at the same time.
pub(super) fn on_two_threads<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&[T]) -> Result<Vec<R>, StoreError> + Sync,
) -> Result<Vec<R>, StoreError> {
    if items.len() < TWO_THREADS_FROM {
        return work(items);
    }
    let (left, right) = items.split_at(items.len() / 2);
    let (left, right) = at_once("load-resolver", || work(left), || work(right))?;
    let mut results = left?;
    results.extend(right?);
    Ok(results)
}

/// What the dictionary has for a term: its id if listed, and the ids listed under its key
/// (several only for a hashed key shared by other terms).
pub(super) type Found = (Option<TermId>, Vec<TermId>);

/// Where a chunk's terms are looked up: the chunks staged before it, and the store when it
/// held terms before the load.
pub(super) struct Lookup<'a> {
    pub(super) database: &'a Database,
    pub(super) staging: Option<&'a Staging>,
    /// Whether the store held dictionary terms before the load.
    pub(super) in_store: bool,
    /// The first dictionary id this load minted: ids below it are the store's.
    pub(super) first_load_id: u64,
}

impl Lookup<'_> {
    /// For each term (sorted by key), its id if the dictionary has it, and the ids listed
    /// under its key.
    pub(super) fn existing(&self, terms: &[PendingTerm]) -> Result<Vec<Found>, StoreError> {
        let found = current_values(
            self.database,
            self.staging,
            Table::TermToId,
            self.in_store,
            || terms.iter().map(|term| term.key.as_slice()),
            |v| Ok(decode_ids(v)?),
        )?;
        terms
            .iter()
            .zip(found)
            .map(|(term, candidates)| {
                let candidates = candidates.unwrap_or_default();
                let existing = self.existing_id(&term.key, &term.bytes, &candidates)?;
                Ok((existing, candidates))
            })
            .collect()
    }

    /// Which of the ids listed under a term's dictionary key is the term's own. A direct key
    /// lists exactly one; a hashed key lists every term with that hash, each checked against
    /// its bytes (in the staged chunks for this load's ids, else in the store).
    fn existing_id(
        &self,
        key: &[u8],
        bytes: &[u8],
        candidates: &[TermId],
    ) -> Result<Option<TermId>, StoreError> {
        if !is_hashed_key(key) {
            return Ok(candidates.first().copied());
        }
        for id in candidates {
            let stored = if id.payload() >= self.first_load_id {
                match self.staging {
                    Some(staging) => staging.get(Table::IdToTerm, &id.to_be_bytes())?,
                    None => None,
                }
            } else {
                let db = self.database.db();
                db.get_cf(self.database.cf(Table::IdToTerm), id.to_be_bytes())?
            };
            if stored.as_deref() == Some(bytes) {
                return Ok(Some(*id));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Terms of every length around the dictionary's hashed-key threshold, in no order.
    fn terms(count: u32) -> Vec<Pending> {
        (0..count)
            .map(|i| {
                let n = i.wrapping_mul(2_654_435_761) % 100_000;
                let bytes = format!("http://example.org/{}/{n}", "x".repeat((n % 90) as usize));
                (bytes.into_bytes().into_boxed_slice(), (i, TermKind::Iri))
            })
            .collect()
    }

    #[test]
    fn terms_sorted_in_two_halves_are_in_key_order() {
        for count in [0, 1, 1_023, 1_024, 5_001] {
            let sorted = sorted_by_key(terms(count)).unwrap();
            assert_eq!(sorted.len(), count as usize);
            let mut indexes: Vec<u32> = sorted.iter().map(|t| t.index).collect();
            assert!(
                sorted.windows(2).all(|w| w[0].key <= w[1].key),
                "{count} terms"
            );
            indexes.sort_unstable();
            assert_eq!(indexes, (0..count).collect::<Vec<_>>(), "every term once");
        }
    }

    #[test]
    fn work_on_two_threads_keeps_the_order_of_the_items() {
        let items: Vec<u32> = (0..5_000).collect();
        let doubled = on_two_threads(&items, |part| Ok(part.iter().map(|i| i * 2).collect()));
        assert_eq!(
            doubled.unwrap(),
            items.iter().map(|i| i * 2).collect::<Vec<_>>()
        );
        let failed = on_two_threads(&items, |part| match part.first() {
            Some(0) => Ok(part.to_vec()),
            _ => Err(StoreError::Io(std::io::Error::other("second half"))),
        });
        assert!(failed.is_err(), "an error of either half is the result");
    }
}
