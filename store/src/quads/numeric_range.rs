//! The quads of one predicate whose object may be a number within a range, read at once from
//! `posg`: what a for-loop join under a range filter reads instead of looking its subjects up
//! one by one (spareval's `internal_quads_for_numeric_range`, store/vendor/spareval).
//!
//! Inlined integers sort by value, so those within the range are one key range after the
//! predicate; a number stored in the dictionary (a decimal, a double, an integer written in a
//! form that is not canonical) cannot be placed without decoding it, so every dictionary
//! literal of the predicate is read too. The caller filters what it gets.

use crate::encoding::{EncodedQuad, Permutation, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::quads::reader::Reader;

impl Reader<'_> {
    /// The quads with `predicate` (in `graph`; `None`: every graph, the default one included)
    /// whose object may be a number within `[lower, upper]` (inclusive; `None`: unbounded),
    /// in `posg` order: the predicate's dictionary literals and its inlined integers within
    /// the bounds. `None` when the read would visit more than `limit` quads, or when the
    /// reader has a transaction's changes on top (they are not in `posg`).
    pub fn quads_in_numeric_range(
        &self,
        predicate: TermId,
        lower: Option<f64>,
        upper: Option<f64>,
        graph: Option<TermId>,
        limit: usize,
    ) -> Result<Option<Vec<EncodedQuad>>, StoreError> {
        if self.overlay().is_some() {
            return Ok(None);
        }
        let literals = (
            TermId::new(TermKind::Literal, 0),
            TermId::new(TermKind::Literal, TermId::MAX_PAYLOAD),
        );
        let integers = TermId::inline_integer_range(lower, upper);
        let prefix = predicate.to_be_bytes();
        let (slot, mut iter) = self.take_iterator(Permutation::Posg, false);
        let mut quads = Vec::new();
        let mut visited = 0_usize;
        for (first, last) in [Some(literals), integers].into_iter().flatten() {
            let mut start = [0; 16];
            start[..8].copy_from_slice(&prefix);
            start[8..].copy_from_slice(&first.to_be_bytes());
            iter.seek(start);
            while let Some(key) = iter.key().filter(|key| key.starts_with(&prefix)) {
                let quad = Permutation::Posg
                    .decode(key)
                    .ok_or_else(|| CorruptionError::msg("malformed quad key"))?;
                if quad.object > last {
                    break;
                }
                visited += 1;
                if visited > limit {
                    self.give_back(slot, iter);
                    return Ok(None);
                }
                if graph.is_none_or(|g| g == quad.graph) {
                    quads.push(quad);
                }
                iter.next();
            }
            iter.status()?;
        }
        self.give_back(slot, iter);
        Ok(Some(quads))
    }
}
