//! Numeric columns: in-memory copies of the `posg` entries of a predicate whose objects may be
//! numbers, for the range reads that ask for them again and again.
//!
//! A range read under a numeric filter (`quads::numeric_range`) scans `posg` from the range's
//! first key to its last. Each entry costs a RocksDB iterator step, several hundred
//! instructions even when its block is cached, and BSBM's "similar products" query (Q5)
//! reads two such ranges of 12–17 % of all products per query: a third of its time at 35 M
//! quads. A column holds the same entries, in the same order, as an array: a read is a
//! binary search and a copy.
//!
//! A column is committed state at one commit sequence: every change to the quads moves the
//! sequence in the batch that writes them (a bulk load in the batch of counters after its
//! files), so a reader uses a column only when its own sequence is the column's, and a
//! column of an older sequence is dropped when a newer one is built. A predicate gets a
//! column once the range reads at one sequence have visited as many entries as it has quads
//! (what building the column costs): at worst twice the reads the column saves, and for a
//! predicate read once after each commit, no column at all. Columns share a fixed budget
//! (`StoreOptions::number_columns_bytes`); one that does not fit is not built.

use crate::changes::SequenceNumber;
use crate::encoding::{EncodedQuad, TermId, TermKind};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// What one column entry costs (an `EncodedQuad`).
const ENTRY_BYTES: usize = std::mem::size_of::<EncodedQuad>();

/// The numeric columns of a store, shared by its readers.
#[derive(Debug)]
pub(crate) struct NumberColumns {
    state: Mutex<State>,
    budget_bytes: usize,
}

#[derive(Debug, Default)]
struct State {
    predicates: FxHashMap<TermId, Entry>,
    /// Bytes of the built columns.
    bytes: usize,
}

/// What is known of one predicate at one sequence.
#[derive(Debug)]
enum Entry {
    /// Range reads at `sequence` have visited `visited` entries so far.
    Demand {
        sequence: SequenceNumber,
        visited: u64,
    },
    Built(Arc<Column>),
}

impl Entry {
    fn sequence(&self) -> SequenceNumber {
        match self {
            Self::Demand { sequence, .. } => *sequence,
            Self::Built(column) => column.sequence,
        }
    }
}

/// The `posg` entries of one predicate whose object is a literal or an inlined integer, in
/// `posg` order, as of one commit sequence.
#[derive(Debug)]
pub(crate) struct Column {
    sequence: SequenceNumber,
    quads: Box<[EncodedQuad]>,
    /// Where the inlined integers start (the literals come first: their kind sorts lower).
    integers_start: usize,
}

/// What a reader should do for a range read of a predicate.
pub(crate) enum Plan {
    /// Read from this column.
    Column(Arc<Column>),
    /// Build the column (the reads so far have paid for it), then read from it.
    Build,
    /// Read from `posg`, then report the entries visited ([`NumberColumns::visited`]).
    Scan,
}

impl NumberColumns {
    /// Columns holding at most `budget_bytes` together (0 keeps none).
    pub(crate) fn new(budget_bytes: usize) -> Self {
        Self {
            state: Mutex::default(),
            budget_bytes,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How a reader at `sequence` reads ranges of `predicate`, which has `quads` quads.
    pub(crate) fn plan(&self, predicate: TermId, sequence: SequenceNumber, quads: u64) -> Plan {
        let fits = usize::try_from(quads)
            .ok()
            .and_then(|q| q.checked_mul(ENTRY_BYTES))
            .is_some_and(|bytes| bytes <= self.budget_bytes);
        if !fits {
            return Plan::Scan;
        }
        match self.state().predicates.get(&predicate) {
            Some(Entry::Built(column)) if column.sequence == sequence => {
                Plan::Column(Arc::clone(column))
            }
            Some(Entry::Demand {
                sequence: at,
                visited,
            }) if *at == sequence && *visited >= quads => Plan::Build,
            _ => Plan::Scan,
        }
    }

    /// Counts `entries` visited by a range read of `predicate` at `sequence`. What was known
    /// at an older sequence is forgotten (its column too); a reader older than what is known
    /// counts nothing.
    pub(crate) fn visited(&self, predicate: TermId, sequence: SequenceNumber, entries: u64) {
        let mut state = self.state();
        let entry = state.predicates.entry(predicate).or_insert(Entry::Demand {
            sequence,
            visited: 0,
        });
        if entry.sequence() == sequence {
            if let Entry::Demand { visited, .. } = entry {
                *visited = visited.saturating_add(entries);
            }
            return;
        }
        if entry.sequence() > sequence {
            return;
        }
        let freed = match std::mem::replace(
            entry,
            Entry::Demand {
                sequence,
                visited: entries,
            },
        ) {
            Entry::Built(old) => old.bytes(),
            Entry::Demand { .. } => 0,
        };
        state.bytes -= freed;
    }

    /// Keeps `column` if it fits beside the columns of its own sequence (older ones are
    /// dropped first) and nothing newer is known of its predicate; returns it either way, for
    /// the reader that built it.
    pub(crate) fn keep(&self, predicate: TermId, column: Column) -> Arc<Column> {
        let column = Arc::new(column);
        let bytes = column.bytes();
        let sequence = column.sequence;
        let mut state = self.state();
        if state
            .predicates
            .get(&predicate)
            .is_some_and(|entry| entry.sequence() > sequence)
        {
            return column;
        }
        if state.bytes + bytes > self.budget_bytes {
            let mut freed = 0;
            state.predicates.retain(|_, entry| match entry {
                Entry::Built(old) if old.sequence != sequence => {
                    freed += old.bytes();
                    false
                }
                _ => true,
            });
            state.bytes -= freed;
        }
        let replaced = match state.predicates.get(&predicate) {
            Some(Entry::Built(old)) => old.bytes(),
            _ => 0,
        };
        if state.bytes - replaced + bytes <= self.budget_bytes {
            state
                .predicates
                .insert(predicate, Entry::Built(Arc::clone(&column)));
            state.bytes = state.bytes - replaced + bytes;
        }
        column
    }

    /// Bytes of the columns kept now.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.state().bytes
    }
}

impl Column {
    /// A column of entries read from `posg` at `sequence`, in `posg` order.
    pub(crate) fn new(sequence: SequenceNumber, quads: Vec<EncodedQuad>) -> Self {
        let integers_start = quads.partition_point(|q| q.object.kind() != TermKind::Integer);
        Self {
            sequence,
            quads: quads.into_boxed_slice(),
            integers_start,
        }
    }

    fn bytes(&self) -> usize {
        self.quads.len() * ENTRY_BYTES
    }

    /// What a `posg` range read visits: every literal, then the inlined integers with ids in
    /// `integers` (inclusive), in `posg` order.
    pub(crate) fn range(
        &self,
        integers: Option<(TermId, TermId)>,
    ) -> (&[EncodedQuad], &[EncodedQuad]) {
        let (literals, numbers) = self.quads.split_at(self.integers_start);
        let numbers = match integers {
            None => &numbers[..0],
            Some((first, last)) => {
                let start = numbers.partition_point(|q| q.object < first);
                let end = numbers.partition_point(|q| q.object <= last);
                &numbers[start..end.max(start)]
            }
        };
        (literals, numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(object: TermId) -> EncodedQuad {
        let iri = TermId::new(TermKind::Iri, 1);
        EncodedQuad::new(iri, iri, object, TermId::DEFAULT_GRAPH)
    }

    fn column(sequence: SequenceNumber, integers: &[u64]) -> Column {
        let mut quads = vec![quad(TermId::new(TermKind::Literal, 9))];
        quads.extend(
            integers
                .iter()
                .map(|&v| quad(TermId::new(TermKind::Integer, v))),
        );
        Column::new(sequence, quads)
    }

    fn predicate(n: u64) -> TermId {
        TermId::new(TermKind::Iri, n)
    }

    #[test]
    fn a_column_is_built_once_reads_have_visited_as_many_entries_as_it_holds() {
        let columns = NumberColumns::new(1 << 20);
        let p = predicate(5);
        assert!(matches!(columns.plan(p, 3, 100), Plan::Scan));
        columns.visited(p, 3, 60);
        assert!(matches!(columns.plan(p, 3, 100), Plan::Scan));
        columns.visited(p, 3, 40);
        assert!(matches!(columns.plan(p, 3, 100), Plan::Build));
        columns.keep(p, column(3, &[1, 2, 3]));
        assert!(matches!(columns.plan(p, 3, 100), Plan::Column(_)));
        assert_eq!(columns.bytes(), 4 * ENTRY_BYTES);
        // A reader of an older state scans and leaves the column alone.
        assert!(matches!(columns.plan(p, 2, 100), Plan::Scan));
        columns.visited(p, 2, 500);
        assert!(matches!(columns.plan(p, 3, 100), Plan::Column(_)));
        // A newer state forgets the column and counts again.
        assert!(matches!(columns.plan(p, 4, 100), Plan::Scan));
        columns.visited(p, 4, 10);
        assert_eq!(columns.bytes(), 0);
        assert!(matches!(columns.plan(p, 3, 100), Plan::Scan));
    }

    #[test]
    fn columns_stay_within_their_budget() {
        let columns = NumberColumns::new(6 * ENTRY_BYTES);
        // Too large for the budget: never built, however often read.
        columns.visited(predicate(1), 1, 1_000);
        assert!(matches!(columns.plan(predicate(1), 1, 7), Plan::Scan));
        columns.keep(predicate(2), column(1, &[1, 2]));
        assert_eq!(columns.bytes(), 3 * ENTRY_BYTES);
        // Does not fit beside a column of its own sequence: returned, not kept.
        let kept = columns.keep(predicate(3), column(1, &[1, 2, 3, 4]));
        assert_eq!(kept.quads.len(), 5);
        assert_eq!(columns.bytes(), 3 * ENTRY_BYTES);
        // A column of a newer sequence replaces the older ones it does not fit beside.
        columns.keep(predicate(3), column(2, &[1, 2, 3, 4]));
        assert_eq!(columns.bytes(), 5 * ENTRY_BYTES);
        assert!(matches!(columns.plan(predicate(2), 1, 3), Plan::Scan));
        assert!(matches!(columns.plan(predicate(3), 2, 5), Plan::Column(_)));
        // Nothing older than what is known replaces it.
        columns.keep(predicate(3), column(1, &[1]));
        assert!(matches!(columns.plan(predicate(3), 2, 5), Plan::Column(_)));
    }

    #[test]
    fn a_range_is_every_literal_and_the_integers_between_the_ids() {
        let column = column(1, &[2, 4, 6, 8]);
        let id = |v| TermId::new(TermKind::Integer, v);
        let objects = |range| {
            let (literals, numbers) = column.range(range);
            literals
                .iter()
                .chain(numbers)
                .map(|q| q.object)
                .collect::<Vec<_>>()
        };
        let literal = TermId::new(TermKind::Literal, 9);
        assert_eq!(objects(None), vec![literal]);
        assert_eq!(objects(Some((id(3), id(6)))), vec![literal, id(4), id(6)]);
        assert_eq!(objects(Some((id(9), id(20)))), vec![literal]);
        assert_eq!(objects(Some((id(7), id(3)))), vec![literal]);
    }
}
