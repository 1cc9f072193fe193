//! Terms to ids for the bulk loader, in memory bounded by the chunk and not by the input.
//!
//! A term met in a chunk gets its id from a cache of known terms (the hot ones: predicates,
//! classes, entities many quads point at) or else a provisional id, an index into the chunk's
//! list of pending terms. When the chunk is full, its pending terms go with its quads to the
//! thread that writes it, which resolves them against the dictionary as the load has left it
//! (see `resolution`) while this one reads the next chunk; the terms the resolution learns
//! come back to the cache. So the loader never holds a map of every term of the input: the
//! cache has a byte budget and is emptied when it is full, and the pending terms are at most
//! those of one chunk.

use crate::database::{Database, WriterState};
use crate::encoding::{encode_term_bytes, inline_id, EncodedQuad, TermId, TermKind, IRI_TAG};
use crate::error::StoreError;
use hashbrown::hash_table::{Entry, HashTable};
use oxrdf::{GraphNameRef, NamedOrBlankNodeRef, Quad, TermRef};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

/// Longest term kept in the cache of known terms: longer ones are mostly text literals,
/// which seldom recur, and would crowd out the IRIs that do.
pub(super) const MAX_CACHED_TERM: usize = 160;
/// Bytes a cached or pending term costs beyond its own bytes (boxed key, map slot, id).
const TERM_OVERHEAD: usize = 48;

/// Turns parsed quads into id quads, one chunk at a time.
pub(super) struct Encoder<'a> {
    database: &'a Database,
    /// Terms whose final ids are known, kept while used (see [`KnownTerms`]).
    known: KnownTerms,
    /// This chunk's terms not in `known`: their provisional index and the kind of id they get.
    pending: TermTable<(u32, TermKind)>,
    pending_bytes: usize,
    blanks: FxHashMap<String, TermId>,
    quads: Vec<EncodedQuad>,
    next_blank_id: u64,
    buffer: Vec<u8>,
}

/// A pending term as the encoder's table holds it: bytes, provisional index and kind.
pub(super) type Pending = (Box<[u8]>, (u32, TermKind));

/// A chunk as read: its quads, whose terms not known when they were read have provisional
/// ids, and those terms.
pub(super) struct ReadChunk {
    /// Quads in input order, duplicates included.
    pub(super) quads: Vec<EncodedQuad>,
    /// The terms with provisional ids, in no order.
    pub(super) pending: Vec<Pending>,
    /// The next free blank node number after this chunk.
    pub(super) next_blank_id: u64,
}

impl<'a> Encoder<'a> {
    /// An encoder continuing the store's blank node numbers, caching up to `known_budget`
    /// bytes of terms between chunks.
    pub(super) fn new(database: &'a Database, state: &WriterState, known_budget: usize) -> Self {
        Self {
            database,
            known: KnownTerms::new(known_budget),
            pending: TermTable::default(),
            pending_bytes: 0,
            blanks: FxHashMap::default(),
            quads: Vec::new(),
            next_blank_id: state.next_blank_id,
            buffer: Vec::new(),
        }
    }

    /// Starts a document: blank node labels are scoped to the document they come from.
    pub(super) fn start_document(&mut self) {
        self.blanks.clear();
    }

    /// Quads in the chunk so far.
    pub(super) fn len(&self) -> usize {
        self.quads.len()
    }

    /// Memory the chunk holds so far, in bytes (quads and pending terms).
    pub(super) fn chunk_bytes(&self) -> usize {
        self.quads.len() * std::mem::size_of::<EncodedQuad>() + self.pending_bytes
    }

    /// Takes back an empty quad buffer of a written chunk, to fill with the next chunk's
    /// quads without allocating (and page-faulting) a new one.
    pub(super) fn recycle(&mut self, quads: Vec<EncodedQuad>) {
        if quads.capacity() > self.quads.capacity() && self.quads.is_empty() {
            self.quads = quads;
        }
    }

    /// Adds one quad to the chunk.
    pub(super) fn push(&mut self, quad: &Quad) -> Result<(), StoreError> {
        let subject = match quad.subject.as_ref() {
            NamedOrBlankNodeRef::BlankNode(b) => self.blank(b.as_str())?,
            s => self.term(s.into()),
        };
        let predicate = self.term(quad.predicate.as_ref().into());
        let object = match quad.object.as_ref() {
            TermRef::BlankNode(b) => self.blank(b.as_str())?,
            o => self.term(o),
        };
        let graph = match quad.graph_name.as_ref() {
            GraphNameRef::DefaultGraph => TermId::DEFAULT_GRAPH,
            GraphNameRef::BlankNode(b) => self.blank(b.as_str())?,
            GraphNameRef::NamedNode(n) => self.term(n.into()),
        };
        self.quads
            .push(EncodedQuad::new(subject, predicate, object, graph));
        Ok(())
    }

    fn blank(&mut self, label: &str) -> Result<TermId, StoreError> {
        if let Some(id) = self.blanks.get(label) {
            return Ok(*id);
        }
        let id = self
            .database
            .blank_numbering()
            .mint(&mut self.next_blank_id)?;
        self.blanks.insert(label.to_owned(), id);
        Ok(id)
    }

    /// The final id of a term if known, else its provisional id in this chunk.
    fn term(&mut self, term: TermRef<'_>) -> TermId {
        if let Some(id) = inline_id(term) {
            return id;
        }
        // An IRI (most terms) is looked up by its text; other terms by their bytes.
        let probe = match term {
            TermRef::NamedNode(iri) => Probe::Iri(iri.as_str()),
            _ => {
                encode_term_bytes(term, &mut self.buffer);
                Probe::Bytes(&self.buffer)
            }
        };
        let hash = probe.hash();
        let len = probe.len();
        if len <= MAX_CACHED_TERM {
            if let Some(id) = self.known.get(hash, probe) {
                return id;
            }
        }
        if let Some((index, _)) = self.pending.get(hash, probe) {
            return provisional(*index);
        }
        if matches!(probe, Probe::Iri(_)) {
            encode_term_bytes(term, &mut self.buffer);
        }
        let index = u32::try_from(self.pending.len()).unwrap_or(u32::MAX);
        self.pending_bytes += len + TERM_OVERHEAD;
        self.pending.insert(
            hash,
            self.buffer.clone().into_boxed_slice(),
            (index, TermKind::of_dictionary_term(term)),
        );
        provisional(index)
    }

    /// Ends the chunk's reading: its quads and pending terms, for the resolution. The
    /// encoder starts the next chunk at once; a term of this chunk met again before the
    /// resolution's findings are [learned](Self::learn) is pending again in that one.
    pub(super) fn end_chunk(&mut self) -> ReadChunk {
        self.pending_bytes = 0;
        ReadChunk {
            quads: std::mem::take(&mut self.quads),
            pending: self.pending.drain(),
            next_blank_id: self.next_blank_id,
        }
    }

    /// Caches terms whose final ids a resolution found or minted (each at most
    /// [`MAX_CACHED_TERM`] bytes long).
    pub(super) fn learn(&mut self, terms: Vec<(Box<[u8]>, TermId)>) {
        for (bytes, id) in terms {
            self.known.insert(bytes, id);
        }
    }
}

/// The hash of a term's dictionary bytes in the encoder's tables: of its tag and the rest
/// apart, so that an IRI's is had from its text without the tagged copy.
fn term_hash(bytes: &[u8]) -> u64 {
    match bytes.split_first() {
        Some((tag, rest)) => tagged_hash(*tag, rest),
        None => tagged_hash(0, &[]),
    }
}

fn tagged_hash(tag: u8, rest: &[u8]) -> u64 {
    FxBuildHasher.hash_one((tag, rest))
}

/// A term looked up in the encoder's tables: its dictionary bytes, or an IRI's text, which
/// is compared with the stored bytes in place rather than copied into bytes of its own.
#[derive(Clone, Copy)]
enum Probe<'a> {
    Bytes(&'a [u8]),
    Iri(&'a str),
}

impl Probe<'_> {
    /// The length of the term's dictionary bytes.
    fn len(self) -> usize {
        match self {
            Self::Bytes(bytes) => bytes.len(),
            Self::Iri(iri) => iri.len() + 1,
        }
    }

    /// [`term_hash`] of the term's dictionary bytes.
    fn hash(self) -> u64 {
        match self {
            Self::Bytes(bytes) => term_hash(bytes),
            Self::Iri(iri) => tagged_hash(IRI_TAG, iri.as_bytes()),
        }
    }

    /// Whether `stored` are the term's dictionary bytes.
    fn matches(self, stored: &[u8]) -> bool {
        match self {
            Self::Bytes(bytes) => stored == bytes,
            Self::Iri(iri) => stored
                .split_first()
                .is_some_and(|(tag, rest)| *tag == IRI_TAG && rest == iri.as_bytes()),
        }
    }
}

/// Terms by their dictionary bytes, each kept with its hash: a term met in the input is
/// hashed once, however many tables it is looked up in (the young and old generations of
/// the known terms, then the pending ones), and never again when a table grows.
struct TermTable<V> {
    entries: HashTable<(u64, Box<[u8]>, V)>,
}

impl<V> Default for TermTable<V> {
    fn default() -> Self {
        Self {
            entries: HashTable::new(),
        }
    }
}

impl<V> TermTable<V> {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn get(&self, hash: u64, probe: Probe<'_>) -> Option<&V> {
        self.entries
            .find(hash, |(_, key, _)| probe.matches(key))
            .map(|(_, _, value)| value)
    }

    fn remove(&mut self, hash: u64, probe: Probe<'_>) -> Option<(Box<[u8]>, V)> {
        let found = self
            .entries
            .find_entry(hash, |(_, key, _)| probe.matches(key));
        found.ok().map(|entry| {
            let ((_, key, value), _) = entry.remove();
            (key, value)
        })
    }

    /// Adds a term, or gives a term already there its new value.
    fn insert(&mut self, hash: u64, bytes: Box<[u8]>, value: V) {
        match self.entries.entry(
            hash,
            |(_, key, _)| **key == *bytes,
            |(stored, _, _)| *stored,
        ) {
            Entry::Occupied(mut entry) => entry.get_mut().2 = value,
            Entry::Vacant(entry) => {
                entry.insert((hash, bytes, value));
            }
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
    }

    /// Takes every term out, leaving the table's memory for the next ones.
    fn drain(&mut self) -> Vec<(Box<[u8]>, V)> {
        self.entries
            .drain()
            .map(|(_, key, value)| (key, value))
            .collect()
    }
}

/// A cache of terms with their ids in two generations: terms go into the young one; when
/// it fills half the budget it becomes the old one and the previous old one is dropped, and
/// a term found in the old generation moves back to the young one. So the terms that keep
/// being used (predicates, classes, often linked entities) stay, and terms met once (most
/// literals) leave within two generations, in bounded memory.
struct KnownTerms {
    young: TermTable<TermId>,
    old: TermTable<TermId>,
    young_bytes: usize,
    generation_budget: usize,
}

impl KnownTerms {
    fn new(budget: usize) -> Self {
        Self {
            young: TermTable::default(),
            old: TermTable::default(),
            young_bytes: 0,
            generation_budget: budget / 2,
        }
    }

    /// The id of the term `probe` (hashed to `hash`), if known.
    fn get(&mut self, hash: u64, probe: Probe<'_>) -> Option<TermId> {
        if let Some(id) = self.young.get(hash, probe) {
            return Some(*id);
        }
        let (bytes, id) = self.old.remove(hash, probe)?;
        self.insert_hashed(hash, bytes, id);
        Some(id)
    }

    fn insert(&mut self, bytes: Box<[u8]>, id: TermId) {
        self.insert_hashed(term_hash(&bytes), bytes, id);
    }

    fn insert_hashed(&mut self, hash: u64, bytes: Box<[u8]>, id: TermId) {
        let cost = bytes.len() + TERM_OVERHEAD;
        if cost > self.generation_budget {
            return;
        }
        if self.young_bytes + cost > self.generation_budget {
            // The old generation's table is reused for the new young one.
            self.old.clear();
            std::mem::swap(&mut self.old, &mut self.young);
            self.young_bytes = 0;
        }
        self.young_bytes += cost;
        self.young.insert(hash, bytes, id);
    }
}

/// The provisional id of a chunk's pending term: a transient id, which no stored quad has.
fn provisional(index: u32) -> TermId {
    TermId::new(TermKind::Transient, u64::from(index))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn id(n: u64) -> TermId {
        TermId::new(TermKind::Iri, n)
    }

    proptest! {
        /// The table does what a map of bytes does, whatever collisions the keys' hashes have.
        #[test]
        fn a_term_table_is_a_map_of_bytes(
            operations in prop::collection::vec(
                (0u8..3, prop::collection::vec(0u8..4, 0..4), 0u64..100),
                0..300,
            )
        ) {
            let mut table = TermTable::default();
            let mut model: HashMap<Vec<u8>, u64> = HashMap::new();
            for (operation, bytes, value) in operations {
                let hash = term_hash(&bytes);
                match operation {
                    0 => {
                        table.insert(hash, bytes.clone().into_boxed_slice(), value);
                        model.insert(bytes, value);
                    }
                    1 => {
                        let removed = table
                            .remove(hash, Probe::Bytes(&bytes))
                            .map(|(k, v)| (k.to_vec(), v));
                        prop_assert_eq!(removed, model.remove_entry(&bytes));
                    }
                    _ => prop_assert_eq!(table.get(hash, Probe::Bytes(&bytes)), model.get(&bytes)),
                }
                prop_assert_eq!(table.len(), model.len());
            }
            let mut drained: Vec<(Vec<u8>, u64)> =
                table.drain().into_iter().map(|(k, v)| (k.to_vec(), v)).collect();
            drained.sort_unstable();
            let mut expected: Vec<(Vec<u8>, u64)> = model.into_iter().collect();
            expected.sort_unstable();
            prop_assert_eq!(drained, expected);
            prop_assert_eq!(table.len(), 0);
        }
    }

    #[test]
    fn an_iri_is_found_by_its_text_as_by_its_bytes() {
        let iri = oxrdf::NamedNode::new("http://example.org/a").expect("IRI");
        let mut bytes = Vec::new();
        encode_term_bytes(iri.as_ref().into(), &mut bytes);
        let by_text = Probe::Iri(iri.as_str());
        assert_eq!(by_text.hash(), Probe::Bytes(&bytes).hash());
        assert_eq!(by_text.len(), bytes.len());
        assert!(by_text.matches(&bytes));
        let mut literal = Vec::new();
        encode_term_bytes(
            oxrdf::Literal::new_simple_literal(iri.as_str())
                .as_ref()
                .into(),
            &mut literal,
        );
        assert!(!by_text.matches(&literal));
        let mut table = TermTable::default();
        table.insert(term_hash(&bytes), bytes.into_boxed_slice(), 7);
        assert_eq!(table.get(by_text.hash(), by_text), Some(&7));
    }

    #[test]
    fn known_terms_keep_what_is_used_again_and_drop_what_is_not() {
        // Room for about four 10-byte terms a generation.
        let mut known = KnownTerms::new(2 * 4 * (10 + TERM_OVERHEAD));
        let term = |n: u64| format!("I{n:09}").into_bytes();
        let get = |known: &mut KnownTerms, n: u64| {
            let bytes = term(n);
            known.get(term_hash(&bytes), Probe::Bytes(&bytes))
        };
        known.insert(term(0).into_boxed_slice(), id(0));
        for n in 1..20 {
            known.insert(term(n).into_boxed_slice(), id(n));
            // Term 0 is used with every new term: it keeps moving back to the young one.
            assert_eq!(get(&mut known, 0), Some(id(0)), "after {n}");
        }
        assert_eq!(get(&mut known, 19), Some(id(19)));
        assert_eq!(get(&mut known, 1), None, "met once, long ago");
    }
}
