//! A subject's values for one predicate, read from the predicate's column of subjects once
//! look-ups have paid for one (`database::columns`): what a for-loop join asks once per row,
//! such as BSBM Q5's label of each similar product.
//!
//! Only a reader's look-ups of a predicate past its first [`LOOKUPS_BEFORE_DEMAND`] count
//! toward the column; every reader uses a column that exists.

use super::Reader;
use crate::changes::SequenceNumber;
use crate::database::{Column, ColumnKey, ColumnOrder, Plan, SEEK_ENTRIES};
use crate::encoding::{EncodedQuad, TermId, TermKind};
use crate::error::StoreError;
use std::sync::Arc;

/// Look-ups of one predicate a reader makes before its look-ups count toward a column: a
/// for-loop join's count, not the few a query makes of one entity. Counted, each property of a
/// product that product pages look up once would get a column, crowding out the ones that
/// save many seeks per query (at 35 M quads, thirteen columns for a budget that held ten:
/// they evicted one another and their rebuilds took up to 200 ms of a query's time).
const LOOKUPS_BEFORE_DEMAND: u64 = 16;

/// What a reader knows of one predicate's column of subjects.
#[derive(Clone)]
pub(crate) enum SubjectLookup {
    /// The column, at the reader's sequence.
    Column(Arc<Column>),
    /// No column at the first look-up; this reader looked the predicate up `lookups` times,
    /// not yet more than [`LOOKUPS_BEFORE_DEMAND`].
    Few { lookups: u64 },
    /// No column when last asked; this reader's look-ups count toward one, and the predicate
    /// has `quads` quads.
    Counting { quads: u64 },
    /// The predicate's column would not fit in the budget: never built.
    TooLarge,
}

impl Reader<'_> {
    /// The quads of `subject` with `predicate` in `graph` (`None`: every graph, the default
    /// one included; else the default graph only), in `spog` order, from the predicate's
    /// column of subjects. `None` when no column serves the look-up: the caller reads the
    /// store, and the look-up may count toward building the column. Readers with a
    /// transaction's changes on top never use columns (committed state only).
    pub(super) fn subject_column_matches(
        &self,
        subject: TermId,
        predicate: TermId,
        graph: Option<TermId>,
    ) -> Result<Option<Vec<EncodedQuad>>, StoreError> {
        if self.overlay().is_some()
            || graph.is_some_and(|g| !g.is_default_graph())
            || predicate.kind() == TermKind::Transient
        {
            return Ok(None);
        }
        let matches = |column: &Column| {
            column
                .of_subject(subject)
                .iter()
                .filter(|q| graph.is_none_or(|g| g == q.graph))
                .copied()
                .collect()
        };
        // Once the reader holds the column, a look-up is a binary search in it.
        let known = self.read_subject_lookup(predicate, |lookup| match lookup {
            Some(SubjectLookup::Column(column)) => Some(matches(column)),
            _ => None,
        });
        if known.is_some() {
            return Ok(known);
        }
        Ok(self.subject_column(predicate)?.map(|c| matches(&c)))
    }

    /// The column serving this look-up of `predicate`, if any. A reader's first look-up takes
    /// a column that exists (a read of the snapshot's sequence, once per reader); the next
    /// ones read nothing more until they count, when the predicate's size is read from its
    /// counters once and each look-up asks for the column again.
    fn subject_column(&self, predicate: TermId) -> Result<Option<Arc<Column>>, StoreError> {
        let columns = self.database().subject_columns();
        let key = subject_key(predicate);
        let quads = match self.known_subject_lookup(predicate) {
            Some(SubjectLookup::Column(column)) => return Ok(Some(column)),
            Some(SubjectLookup::TooLarge) => return Ok(None),
            None => {
                let column = columns.built(key, self.cached_sequence()?);
                let lookup = match &column {
                    Some(column) => SubjectLookup::Column(Arc::clone(column)),
                    None => SubjectLookup::Few { lookups: 1 },
                };
                self.remember_subject_lookup(predicate, lookup);
                return Ok(column);
            }
            Some(SubjectLookup::Few { lookups }) if lookups < LOOKUPS_BEFORE_DEMAND => {
                let lookups = lookups + 1;
                self.remember_subject_lookup(predicate, SubjectLookup::Few { lookups });
                return Ok(None);
            }
            Some(SubjectLookup::Few { .. }) => {
                let quads = self.usage(predicate)?.as_predicate;
                if !columns.fits(quads) {
                    self.remember_subject_lookup(predicate, SubjectLookup::TooLarge);
                    return Ok(None);
                }
                self.remember_subject_lookup(predicate, SubjectLookup::Counting { quads });
                quads
            }
            Some(SubjectLookup::Counting { quads }) => quads,
        };
        let sequence = self.cached_sequence()?;
        let column = match columns.plan(key, sequence, quads) {
            Plan::Column(column) => column,
            Plan::Build => columns.keep(key, self.read_subject_column(predicate, sequence)?),
            Plan::Scan => {
                columns.visited(key, sequence, SEEK_ENTRIES);
                return Ok(None);
            }
        };
        self.remember_subject_lookup(predicate, SubjectLookup::Column(Arc::clone(&column)));
        Ok(Some(column))
    }

    /// What this reader learned of `predicate`'s column of subjects, if it looked it up.
    fn known_subject_lookup(&self, predicate: TermId) -> Option<SubjectLookup> {
        self.cache.borrow().subject_lookups.get(&predicate).cloned()
    }

    /// `read` applied to what this reader learned of `predicate`'s column of subjects, without
    /// taking a reference to a column (readers on other threads count those).
    fn read_subject_lookup<R>(
        &self,
        predicate: TermId,
        read: impl FnOnce(Option<&SubjectLookup>) -> R,
    ) -> R {
        read(self.cache.borrow().subject_lookups.get(&predicate))
    }

    /// Keeps what this reader learned of `predicate`'s column of subjects.
    fn remember_subject_lookup(&self, predicate: TermId, lookup: SubjectLookup) {
        self.cache
            .borrow_mut()
            .subject_lookups
            .insert(predicate, lookup);
    }

    /// Every `posg` entry of `predicate`, as a column of subjects.
    fn read_subject_column(
        &self,
        predicate: TermId,
        sequence: SequenceNumber,
    ) -> Result<Column, StoreError> {
        let every_object = (
            TermId::new(TermKind::DefaultGraph, 0),
            TermId::new(TermKind::Transient, TermId::MAX_PAYLOAD),
        );
        Ok(Column::subjects(
            sequence,
            self.posg_entries(predicate, every_object)?,
        ))
    }
}

fn subject_key(predicate: TermId) -> ColumnKey {
    ColumnKey {
        predicate,
        order: ColumnOrder::Subjects,
    }
}
