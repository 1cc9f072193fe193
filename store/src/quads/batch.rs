//! Reads for whole-store passes (the text index's build): the subject order scanned in
//! ranges, so that several threads can each take a part, and dictionary terms decoded many at
//! a time, in id order, without going through the readers' term caches.
//!
//! A pass over every subject reads each term about once: caching them would only evict the
//! terms pages and queries read again and again, and one batched read of sorted ids finds
//! neighbouring entries in the same blocks instead of seeking for each one.

use crate::dictionary::decode_term;
use crate::encoding::{
    is_string_literal_bytes, typed_literal_datatype, EncodedQuad, Permutation, TermId, TermKind,
};
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use crate::quads::reader::{group_by_subject, Reader};
use crate::quads::walk::{advance_to, STEPS_BEFORE_SEEK};
use oxrdf::vocab::xsd;
use oxrdf::{Literal, Term};
use std::ops::{Range, RangeInclusive};

impl<'a> Reader<'a> {
    /// The smallest and the largest subject of a kind (IRIs, say) among the committed quads
    /// of the snapshot; `None` if no quad has a subject of that kind. What
    /// [`Reader::quads_by_subject_in`] ranges are cut from.
    pub fn subject_span(
        &self,
        kind: TermKind,
    ) -> Result<Option<RangeInclusive<TermId>>, StoreError> {
        let first_id = TermId::new(kind, 0);
        let last_id = TermId::new(kind, TermId::MAX_PAYLOAD);
        let mut iter = self.scan_from(Permutation::Spog, &first_id.to_be_bytes());
        let first = match iter.next().transpose()? {
            Some(quad) if quad.subject <= last_id => quad.subject,
            _ => return Ok(None),
        };
        drop(iter);
        let mut end = last_id.to_be_bytes().to_vec();
        end.extend_from_slice(&[u8::MAX; 24]);
        let last = match self.last_key_at_or_before(Table::Spog, &end)? {
            Some(key) => subject_of_key(&key)?,
            None => first,
        };
        Ok(Some(first..=last.max(first)))
    }

    /// The quads of the subjects in `subjects`, one subject at a time in subject order, like
    /// [`Reader::quads_by_subject`] over a part of the store: disjoint ranges read by
    /// several threads (each with its own reader of the same snapshot) cover the store once.
    pub fn quads_by_subject_in(
        &self,
        subjects: Range<TermId>,
    ) -> impl Iterator<Item = Result<(TermId, Vec<EncodedQuad>), StoreError>> + use<'_, 'a> {
        let start = subjects.start;
        let end = subjects.end;
        let quads = self
            .scan_from(Permutation::Spog, &start.to_be_bytes())
            .filter(move |q| q.as_ref().map_or(true, |q| q.subject >= start))
            .take_while(move |q| q.as_ref().map_or(true, |q| q.subject < end));
        group_by_subject(quads)
    }

    /// The string literals (simple or language-tagged: those that hold words) among `ids`, in
    /// the order given; `None` for every other term (typed literals, whose bytes are not
    /// decoded, IRIs, blank nodes, inlined numbers). One batched dictionary read.
    pub fn string_literals(&self, ids: &[TermId]) -> Result<Vec<Option<Literal>>, StoreError> {
        let words = |term: Term| match term {
            Term::Literal(l) if l.language().is_some() || l.datatype() == xsd::STRING => Some(l),
            _ => None,
        };
        self.decode_many(
            ids,
            |id| id.kind() == TermKind::Literal,
            // A typed literal (a number, a date) is skipped without decoding its bytes.
            |id, bytes| {
                if is_string_literal_bytes(bytes) {
                    Ok(words(decode_term(id, bytes)?))
                } else {
                    Ok(None)
                }
            },
            |term| words(term.clone()),
        )
    }

    /// The dictionary literals among many ids whose datatype `keep` accepts, in the order
    /// given; `None` for every other term (simple and language-tagged literals, typed ones
    /// of another datatype, IRIs, blank nodes, inlined numbers). What the ranges of a facet
    /// decode: a typed literal of a datatype they do not bucket (a million prices in a
    /// currency datatype) is skipped on its datatype, without decoding its value. One batched
    /// dictionary read.
    pub fn typed_literals(
        &self,
        ids: &[TermId],
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<Option<Literal>>, StoreError> {
        let kept = |term: &Term| match term {
            Term::Literal(l)
                if l.language().is_none()
                    && l.datatype() != xsd::STRING
                    && keep(l.datatype().as_str()) =>
            {
                Some(l.clone())
            }
            _ => None,
        };
        self.decode_many(
            ids,
            |id| id.kind() == TermKind::Literal,
            |id, bytes| match typed_literal_datatype(bytes) {
                Some(datatype) if keep(datatype) => Ok(kept(&decode_term(id, bytes)?)),
                _ => Ok(None),
            },
            kept,
        )
    }

    /// The terms of many ids, in the order given: one batched dictionary read, which leaves
    /// the term caches as they were.
    pub fn terms(&self, ids: &[TermId]) -> Result<Vec<Term>, StoreError> {
        let decoded = self.decode_many(
            ids,
            |id| id.kind().is_in_dictionary(),
            |id, bytes| decode_term(id, bytes).map(Some),
            |term| Some(term.clone()),
        )?;
        ids.iter()
            .zip(decoded)
            .map(|(id, term)| match term {
                Some(term) => Ok(term),
                None => self.term(*id),
            })
            .collect()
    }

    /// Decodes the ids that `stored` says are in the dictionary with `decode` (from their
    /// dictionary bytes) or `from_overlay` (terms the reader's transaction added); `None` for
    /// the others.
    fn decode_many<T: Clone>(
        &self,
        ids: &[TermId],
        stored: impl Fn(TermId) -> bool,
        mut decode: impl FnMut(TermId, &[u8]) -> Result<Option<T>, StoreError>,
        from_overlay: impl Fn(&Term) -> Option<T>,
    ) -> Result<Vec<Option<T>>, StoreError> {
        let mut out: Vec<Option<T>> = ids.iter().map(|_| None).collect();
        let mut wanted: Vec<(TermId, usize)> = Vec::with_capacity(ids.len());
        for (at, id) in ids.iter().enumerate() {
            if !stored(*id) {
                continue;
            }
            match self.overlay().and_then(|o| o.new_term(*id)) {
                Some(term) => out[at] = from_overlay(term),
                None => wanted.push((*id, at)),
            }
        }
        wanted.sort_unstable();
        let mut ids: Vec<TermId> = wanted.iter().map(|(id, _)| *id).collect();
        ids.dedup();
        let mut next = wanted.iter().peekable();
        let mut visit = |id: TermId, bytes: &[u8]| {
            let decoded = decode(id, bytes)?;
            // Every position asking for this id gets it (ids may repeat).
            while let Some((_, at)) = next.next_if(|(wanted_id, _)| *wanted_id == id) {
                out[*at] = decoded.clone();
            }
            Ok(())
        };
        if is_dense(&ids) {
            self.sweep_dictionary(&ids, visit)?;
        } else {
            let keys = ids.iter().map(|id| id.to_be_bytes());
            for (id, value) in ids.iter().zip(self.multi_get(Table::IdToTerm, keys, true)) {
                let bytes = value?.ok_or_else(|| missing_entry(*id))?;
                visit(*id, &bytes)?;
            }
        }
        Ok(out)
    }

    /// Calls `visit` with the dictionary bytes of each id of `ids` (ascending, without
    /// repeats), by one forward pass over the dictionary: an entry a few places ahead
    /// is reached by stepping to it, a farther one by a seek. Batched point reads
    /// (`MultiGet`) cost about a seek per id however close the ids are; ranges of a facet
    /// decode a million dictionary literals, a few entries apart, and a text index build
    /// the literals of neighbouring subjects.
    fn sweep_dictionary(
        &self,
        ids: &[TermId],
        mut visit: impl FnMut(TermId, &[u8]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut iter = self.raw_iterator(Table::IdToTerm, None);
        for (at, &id) in ids.iter().enumerate() {
            let key = id.to_be_bytes();
            if at == 0 {
                iter.seek(key);
            } else {
                advance_to(&mut iter, &key);
            }
            iter.status()?;
            match (iter.key(), iter.value()) {
                (Some(k), Some(bytes)) if k == key.as_slice() => visit(id, bytes)?,
                _ => return Err(missing_entry(id)),
            }
        }
        Ok(())
    }
}

fn missing_entry(id: TermId) -> StoreError {
    CorruptionError::msg(format!("no dictionary entry for {id:?}")).into()
}

/// Whether sorted ids lie close enough together for a sweep of the dictionary: a step to
/// each on average rather than a seek. Ids of different kinds are far apart.
fn is_dense(ids: &[TermId]) -> bool {
    match (ids.first(), ids.last()) {
        (Some(first), Some(last)) if ids.len() >= SWEEP_MIN_IDS => {
            let span = last.as_u64() - first.as_u64();
            span / (ids.len() as u64 - 1) <= STEPS_BEFORE_SEEK as u64
        }
        _ => false,
    }
}

/// Fewer ids than this are read with point reads whatever their spacing.
const SWEEP_MIN_IDS: usize = 64;

/// The subject id of an SPOG key.
fn subject_of_key(key: &[u8]) -> Result<TermId, StoreError> {
    let bytes: [u8; 8] = key
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| CorruptionError::msg("malformed quad key"))?;
    Ok(TermId::from_be_bytes(bytes))
}
