//! The quads of one predicate whose object may be a number within a range, read at once from
//! `posg`: what a for-loop join under a range filter reads instead of looking its subjects up
//! one by one (spareval's `internal_quads_for_numeric_range`, store/vendor/spareval).
//!
//! Inlined integers sort by value, so those within the range are one key range after the
//! predicate; a number stored in the dictionary (a decimal, a double, an integer written in a
//! form that is not canonical) cannot be placed without decoding it, so every dictionary
//! literal of the predicate is read too. The caller filters what it gets. A predicate whose
//! ranges are read often is read from its column of objects instead (`database::columns`).

use crate::database::{Column, ColumnKey, ColumnOrder, Plan};
use crate::encoding::{EncodedQuad, Permutation, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::quads::reader::Reader;

impl Reader<'_> {
    /// The quads with `predicate` (in `graph`; `None`: every graph, the default one included)
    /// whose object may be a number within `[lower, upper]` (inclusive; `None`: unbounded),
    /// in `posg` order: the predicate's dictionary literals and its inlined integers within
    /// the bounds. `None` when the read would visit more than `limit` quads, or when the
    /// reader has a transaction's changes on top (they are not in `posg`). Read from the
    /// predicate's column of objects once range reads have paid for one (`database::columns`).
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
        let integers = TermId::inline_integer_range(lower, upper);
        let columns = self.database().number_columns();
        let key = ColumnKey {
            predicate,
            order: ColumnOrder::Objects,
        };
        let sequence = self.sequence()?;
        let quads = self.usage(predicate)?.as_predicate;
        let column = match columns.plan(key, sequence, quads) {
            Plan::Column(column) => column,
            Plan::Build => columns.keep(key, self.read_column(predicate, sequence)?),
            Plan::Scan => {
                let (read, visited) = self.scan_numeric_range(predicate, integers, graph, limit)?;
                columns.visited(key, sequence, visited);
                return Ok(read);
            }
        };
        let (literals, numbers) = column.range(integers);
        if literals.len() + numbers.len() > limit {
            return Ok(None);
        }
        let mut quads = Vec::with_capacity(literals.len() + numbers.len());
        quads.extend(
            literals
                .iter()
                .chain(numbers)
                .filter(|quad| graph.is_none_or(|g| g == quad.graph)),
        );
        Ok(Some(quads))
    }

    /// The range read from `posg`, and how many entries it visited.
    fn scan_numeric_range(
        &self,
        predicate: TermId,
        integers: Option<(TermId, TermId)>,
        graph: Option<TermId>,
        limit: usize,
    ) -> Result<(Option<Vec<EncodedQuad>>, u64), StoreError> {
        let literals = (
            TermId::new(TermKind::Literal, 0),
            TermId::new(TermKind::Literal, TermId::MAX_PAYLOAD),
        );
        let mut quads = Vec::new();
        let mut visited = 0_usize;
        for range in [Some(literals), integers].into_iter().flatten() {
            let complete = self.read_posg_objects(predicate, range, |quad| {
                visited += 1;
                if visited > limit {
                    return false;
                }
                if graph.is_none_or(|g| g == quad.graph) {
                    quads.push(quad);
                }
                true
            })?;
            if !complete {
                return Ok((None, limit as u64));
            }
        }
        Ok((Some(quads), visited as u64))
    }

    /// The predicate's column of objects: every `posg` entry whose object is a literal or an
    /// inlined integer.
    fn read_column(&self, predicate: TermId, sequence: u64) -> Result<Column, StoreError> {
        let objects = (
            TermId::new(TermKind::Literal, 0),
            TermId::new(TermKind::Integer, TermId::MAX_PAYLOAD),
        );
        Ok(Column::objects(
            sequence,
            self.posg_entries(predicate, objects)?,
        ))
    }

    /// Every `posg` entry of `predicate` with an object in `objects` (inclusive), in order.
    pub(super) fn posg_entries(
        &self,
        predicate: TermId,
        objects: (TermId, TermId),
    ) -> Result<Vec<EncodedQuad>, StoreError> {
        let mut quads = Vec::new();
        self.read_posg_objects(predicate, objects, |quad| {
            quads.push(quad);
            true
        })?;
        Ok(quads)
    }

    /// Hands `each` the `posg` entries of `predicate` with objects in `(first, last)`
    /// (inclusive), in order, until it returns `false`; returns whether it read them all.
    fn read_posg_objects(
        &self,
        predicate: TermId,
        (first, last): (TermId, TermId),
        mut each: impl FnMut(EncodedQuad) -> bool,
    ) -> Result<bool, StoreError> {
        let prefix = predicate.to_be_bytes();
        let (slot, mut iter) = self.take_iterator(Permutation::Posg, false);
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
            if !each(quad) {
                self.give_back(slot, iter);
                return Ok(false);
            }
            iter.next();
        }
        iter.status()?;
        self.give_back(slot, iter);
        Ok(true)
    }
}
