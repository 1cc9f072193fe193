//! One predicate's quads cut by object: the span of its objects in `posg` and a scan from a
//! given object on, so that a caller can read the halves of a long scan on two threads (each
//! with a [`Reader::sibling`] of one snapshot), as the ranges of a facet over millions of
//! values do.

use crate::encoding::{EncodedQuad, Permutation, TermId, QUAD_KEY_LEN};
use crate::error::{CorruptionError, StoreError};
use crate::kv::permutation_table;
use crate::quads::reader::Reader;
use std::ops::RangeInclusive;

impl<'a> Reader<'a> {
    /// The lowest and the highest object of `predicate`'s committed quads (in id order, the
    /// order of `posg`); `None` when it has none.
    pub fn object_span(
        &self,
        predicate: TermId,
    ) -> Result<Option<RangeInclusive<TermId>>, StoreError> {
        let prefix = predicate.to_be_bytes();
        let object = |key: &[u8]| {
            Permutation::Posg
                .decode(key)
                .map(|quad| quad.object)
                .ok_or_else(|| CorruptionError::msg("malformed quad key"))
        };
        let (slot, mut iter) = self.take_iterator(Permutation::Posg, false);
        iter.seek(prefix);
        let first = match iter.key().filter(|key| key.starts_with(&prefix)) {
            Some(key) => object(key)?,
            None => {
                iter.status()?;
                self.give_back(slot, iter);
                return Ok(None);
            }
        };
        self.give_back(slot, iter);
        let mut end = [0xFF; QUAD_KEY_LEN];
        end[..8].copy_from_slice(&prefix);
        let last = self.last_key_at_or_before(permutation_table(Permutation::Posg), &end)?;
        match last.filter(|key| key.starts_with(&prefix)) {
            Some(key) => Ok(Some(first..=object(&key)?)),
            None => Err(CorruptionError::msg("a predicate's first quad without a last").into()),
        }
    }

    /// The quads of `predicate` (every graph) whose object is `from` or above, in `posg`
    /// order.
    pub fn predicate_quads_from(
        &self,
        predicate: TermId,
        from: TermId,
    ) -> impl Iterator<Item = Result<EncodedQuad, StoreError>> + use<'_, 'a> {
        let pattern = [None, Some(predicate), None, None];
        let mut start = Vec::with_capacity(16);
        start.extend_from_slice(&predicate.to_be_bytes());
        start.extend_from_slice(&from.to_be_bytes());
        let mut quads = self.scan_order(Permutation::Posg, false, &start, pattern);
        quads.prefix = predicate.to_be_bytes().to_vec();
        // A transaction's added quads of the predicate come whatever their object.
        quads.filter(move |quad| quad.as_ref().map_or(true, |q| q.object >= from))
    }
}
