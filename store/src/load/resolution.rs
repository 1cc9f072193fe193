//! The resolution of a chunk's pending terms against the dictionary as the load has left it.
//!
//! A chunk's terms are resolved on the thread that then writes the chunk, while the reading
//! thread goes on with the next chunk; the chunk before is written and staged by then. The
//! terms are keyed and sorted in two halves at once and merged, and each half of the sorted
//! terms is looked up on its own thread; the ids are then minted in key order, on one thread,
//! and the chunk's quads rewritten with them.

use super::encoder::{Pending, ReadChunk, MAX_CACHED_TERM};
use super::staging::{current_values, Staging};
use crate::database::{Database, WriterState};
use crate::dictionary::{decode_ids, is_hashed_key, lookup_key};
use crate::encoding::{encode_term_bytes, EncodedQuad, TermId, TermKind};
use crate::error::StoreError;
use crate::kv::Table;
use crate::threads::at_once;
use oxrdf::vocab::rdf;

/// Fewest terms worth a second thread.
const TWO_THREADS_FROM: usize = 1_024;

/// Resolves the chunks of one load, one after the other.
pub(super) struct Resolver<'a> {
    database: &'a Database,
    /// The first dictionary id this load minted: ids below it are the store's.
    first_load_id: u64,
    /// Whether the store held dictionary terms before the load; it does not change until the
    /// load commits, so only then is its dictionary worth a look-up.
    store_had_terms: bool,
    rdf_type_bytes: Vec<u8>,
    /// The id of `rdf:type`, once a chunk has used it.
    rdf_type: Option<TermId>,
}

/// The quads of one chunk (with final ids once settled), and the dictionary terms new to the
/// load.
pub(super) struct EncodedChunk {
    /// Quads in input order, duplicates included; until [settled](Self::settle), a pending
    /// term of the chunk has its provisional id.
    pub(super) quads: Vec<EncodedQuad>,
    /// The final id of each provisional id, by index; empty once settled.
    provisional: Vec<TermId>,
    /// Terms minted for this chunk, with their dictionary bytes, in dictionary key order.
    pub(super) new_terms: Vec<(TermId, Box<[u8]>)>,
    /// The hashed dictionary keys of new terms that the store or an earlier chunk already
    /// lists (a hash collision: nearly always none), with the ids listed, in key order. The
    /// resolution read them; the chunk's `term2id` entries keep those ids.
    pub(super) shared_keys: Vec<(Vec<u8>, Vec<TermId>)>,
    /// The id of `rdf:type`, once any chunk has used it.
    pub(super) rdf_type: Option<TermId>,
    /// The next free ids after this chunk.
    pub(super) next_dictionary_id: u64,
    /// The next free blank node number after this chunk.
    pub(super) next_blank_id: u64,
}

/// Terms with their final ids, for the encoder's cache of known terms.
pub(super) type Learned = Vec<(Box<[u8]>, TermId)>;

impl<'a> Resolver<'a> {
    /// The resolver of a load into the store of `database`, whose counters were `state`
    /// before the load.
    pub(super) fn new(database: &'a Database, state: &WriterState) -> Self {
        let mut rdf_type_bytes = Vec::new();
        encode_term_bytes(rdf::TYPE.into(), &mut rdf_type_bytes);
        Self {
            database,
            first_load_id: state.next_dictionary_id,
            store_had_terms: state.next_dictionary_id > 1,
            rdf_type_bytes,
            rdf_type: None,
        }
    }

    /// Resolves a chunk's pending terms against the dictionary as `staging` and the store
    /// have it and mints ids for the terms found in neither, from `next_dictionary_id` on.
    /// `staging` must hold every chunk written before this one. Gives the chunk, whose quads
    /// still hold provisional ids ([`EncodedChunk::settle`] gives them their final ones), and
    /// the terms short enough to cache with their ids.
    pub(super) fn resolve(
        &mut self,
        chunk: ReadChunk,
        staging: Option<&Staging>,
        mut next_dictionary_id: u64,
    ) -> Result<(EncodedChunk, Learned), StoreError> {
        let ReadChunk {
            quads,
            pending,
            next_blank_id,
        } = chunk;
        let pending = sorted_by_key(pending)?;
        let lookup = Lookup {
            database: self.database,
            staging,
            in_store: self.store_had_terms,
            first_load_id: self.first_load_id,
        };
        let found = if self.store_had_terms || staging.is_some() {
            on_two_threads(&pending, |terms| lookup.existing(terms))?
        } else {
            Vec::new()
        };
        let mut ids = vec![TermId::DEFAULT_GRAPH; pending.len()];
        let mut new_terms = Vec::new();
        let mut shared_keys = Vec::new();
        let mut learned = Vec::new();
        let mut found = found.into_iter();
        for PendingTerm {
            key,
            bytes,
            index,
            kind,
        } in pending
        {
            let (existing, candidates) = found.next().unwrap_or_default();
            if existing.is_none() && !candidates.is_empty() {
                shared_keys.push((key, candidates));
            }
            let id = existing.unwrap_or_else(|| {
                let id = TermId::new(kind, next_dictionary_id);
                next_dictionary_id += 1;
                id
            });
            if *bytes == *self.rdf_type_bytes {
                self.rdf_type = Some(id);
            }
            ids[index as usize] = id;
            match (existing, bytes.len() <= MAX_CACHED_TERM) {
                (Some(_), true) => learned.push((bytes, id)),
                (Some(_), false) => {}
                (None, true) => {
                    new_terms.push((id, bytes.clone()));
                    learned.push((bytes, id));
                }
                (None, false) => new_terms.push((id, bytes)),
            }
        }
        let chunk = EncodedChunk {
            quads,
            provisional: ids,
            new_terms,
            shared_keys,
            rdf_type: self.rdf_type,
            next_dictionary_id,
            next_blank_id,
        };
        Ok((chunk, learned))
    }
}

impl EncodedChunk {
    /// Gives the quads' pending terms their final ids.
    pub(super) fn settle(&mut self) {
        let provisional = std::mem::take(&mut self.provisional);
        if provisional.is_empty() {
            return;
        }
        for quad in &mut self.quads {
            for term in [
                &mut quad.subject,
                &mut quad.predicate,
                &mut quad.object,
                &mut quad.graph,
            ] {
                if term.kind() == TermKind::Transient {
                    *term = provisional[usize::try_from(term.payload()).unwrap_or(usize::MAX)];
                }
            }
        }
    }
}

/// A chunk's pending term at resolution.
struct PendingTerm {
    /// Its dictionary key, by which the chunk's terms are resolved in order.
    key: Vec<u8>,
    /// Its dictionary bytes.
    bytes: Box<[u8]>,
    /// Its provisional index in the chunk.
    index: u32,
    /// The kind of id it gets if new.
    kind: TermKind,
}

/// The terms keyed by their dictionary key and sorted by it.
fn sorted_by_key(mut terms: Vec<Pending>) -> Result<Vec<PendingTerm>, StoreError> {
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
fn on_two_threads<T: Sync, R: Send>(
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
type Found = (Option<TermId>, Vec<TermId>);

/// Where a chunk's terms are looked up: the chunks staged before it, and the store when it
/// held terms before the load.
struct Lookup<'a> {
    database: &'a Database,
    staging: Option<&'a Staging>,
    /// Whether the store held dictionary terms before the load.
    in_store: bool,
    /// The first dictionary id this load minted: ids below it are the store's.
    first_load_id: u64,
}

impl Lookup<'_> {
    /// For each term (sorted by key), its id if the dictionary has it, and the ids listed
    /// under its key.
    fn existing(&self, terms: &[PendingTerm]) -> Result<Vec<Found>, StoreError> {
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
