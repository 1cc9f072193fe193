//! Columns: in-memory copies of one predicate's quads, for the reads that ask for them again
//! and again.
//!
//! Two reads of a predicate are served from columns:
//! - **Numeric ranges** (order [`ColumnOrder::Objects`]). A range read under a numeric filter
//!   (`quads::numeric_range`) scans `posg` from the range's first key to its last. Each entry
//!   costs a RocksDB iterator step, several hundred instructions even when its block is
//!   cached, and BSBM's "similar products" query (Q5) reads two such ranges of 12–17 % of all
//!   products per query: a third of its time at 35 M quads. The column holds the same
//!   entries, in the same order, as an array: a read is a binary search and a copy.
//! - **A subject's values** (order [`ColumnOrder::Subjects`]): a look-up of `?o` for a given
//!   subject and predicate (`quads::subject_column`), as a for-loop join makes once per row
//!   (Q5's labels of the similar products, the titles of a product's reviews). Each is a seek,
//!   8 µs with its blocks cached and several times more without: at 35 M quads, a third of
//!   Q5's time in the BSBM mix went to its 90 label look-ups. The column holds the
//!   predicate's quads by subject, with every sixteenth entry's subject beside them: a
//!   look-up is a binary search of those fences, then of sixteen entries.
//!
//! A column is committed state at one commit sequence: every change to the quads moves the
//! sequence in the batch that writes them (a bulk load in the batch of counters after its
//! files), so a reader uses a column only when its own sequence is the column's, and a
//! column of an older sequence is dropped when a newer one is built. A column is built once
//! the reads it would serve at one sequence have cost as much as reading its entries (a seek
//! counts as [`SEEK_ENTRIES`] entries): at worst twice the reads the column saves, and for a
//! predicate read once after each commit, no column at all. The columns of each order share a
//! fixed budget (`StoreOptions::number_columns_bytes`, `subject_columns_bytes`); a column
//! larger than half of it is never built, and one that does not fit beside the others makes
//! room by dropping those read least recently.

use crate::changes::SequenceNumber;
use crate::encoding::{EncodedQuad, TermId, TermKind};
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// What one column entry costs (an `EncodedQuad`).
const ENTRY_BYTES: usize = std::mem::size_of::<EncodedQuad>();

/// Entries per fence of a column of subjects: a look-up searches the fences (half a byte
/// per entry of 32, so they stay in the processor's caches) and then one run of this many
/// entries, instead of the whole column (at 100 M quads, 11 MB of labels: a dozen cache
/// misses per look-up).
const FENCE_STRIDE: usize = 16;

/// What a seek costs, in entries read in order (at 35 M quads, 8 µs for a seek whose blocks
/// are cached, 70 ns per entry read in order).
pub(crate) const SEEK_ENTRIES: u64 = 128;

/// The columns of a store, shared by its readers.
#[derive(Debug)]
pub(crate) struct Columns {
    state: Mutex<State>,
    budget_bytes: usize,
}

#[derive(Debug, Default)]
struct State {
    columns: FxHashMap<ColumnKey, Entry>,
    /// Bytes of the built columns.
    bytes: usize,
    /// Counts the reads of columns: which was read least recently.
    tick: u64,
}

/// Which column: a predicate's quads in one order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ColumnKey {
    pub(crate) predicate: TermId,
    pub(crate) order: ColumnOrder,
}

/// The order of a column's entries, which says what it serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ColumnOrder {
    /// The `posg` entries whose object is a literal or an inlined integer, in `posg` order:
    /// numeric range reads.
    Objects,
    /// Every entry, by subject, then object, then graph (the order of `spog`): the values of
    /// a subject.
    Subjects,
}

/// What is known of one column at one sequence.
#[derive(Debug)]
enum Entry {
    /// Reads at `sequence` have cost `visited` entries so far.
    Demand {
        sequence: SequenceNumber,
        visited: u64,
    },
    /// The column, last read at tick `used` of [`State::tick`].
    Built { column: Arc<Column>, used: u64 },
}

impl Entry {
    fn sequence(&self) -> SequenceNumber {
        match self {
            Self::Demand { sequence, .. } => *sequence,
            Self::Built { column, .. } => column.sequence,
        }
    }
}

/// Entries of one predicate in one [`ColumnOrder`], as of one commit sequence.
#[derive(Debug)]
pub(crate) struct Column {
    sequence: SequenceNumber,
    order: ColumnOrder,
    quads: Box<[EncodedQuad]>,
    /// In a column of objects, where the inlined integers start (the literals come first:
    /// their kind sorts lower).
    integers_start: usize,
    /// In a column of subjects, the subject of every [`FENCE_STRIDE`]th entry (empty in a
    /// column of objects).
    fences: Box<[TermId]>,
}

/// What a reader should do for a read a column would serve.
pub(crate) enum Plan {
    /// Read from this column.
    Column(Arc<Column>),
    /// Build the column (the reads so far have paid for it), then read from it.
    Build,
    /// Read from the store, then report what it cost ([`Columns::visited`]).
    Scan,
}

impl Columns {
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

    /// Whether a column of a predicate with `quads` quads may be built: one column takes at
    /// most half the budget, so that no single one evicts all the others.
    pub(crate) fn fits(&self, quads: u64) -> bool {
        usize::try_from(quads)
            .ok()
            .and_then(|q| q.checked_mul(ENTRY_BYTES))
            .is_some_and(|bytes| bytes <= self.budget_bytes / 2)
    }

    /// The column `key` at `sequence`, if it is built.
    pub(crate) fn built(&self, key: ColumnKey, sequence: SequenceNumber) -> Option<Arc<Column>> {
        let mut state = self.state();
        state.tick += 1;
        let tick = state.tick;
        match state.columns.get_mut(&key) {
            Some(Entry::Built { column, used }) if column.sequence == sequence => {
                *used = tick;
                Some(Arc::clone(column))
            }
            _ => None,
        }
    }

    /// How a reader at `sequence` makes a read that column `key` would serve, of a predicate
    /// with `quads` quads.
    pub(crate) fn plan(&self, key: ColumnKey, sequence: SequenceNumber, quads: u64) -> Plan {
        if !self.fits(quads) {
            return Plan::Scan;
        }
        if let Some(column) = self.built(key, sequence) {
            return Plan::Column(column);
        }
        match self.state().columns.get(&key) {
            Some(Entry::Demand {
                sequence: at,
                visited,
            }) if *at == sequence && *visited >= quads => Plan::Build,
            _ => Plan::Scan,
        }
    }

    /// Counts `entries` read at `sequence` for what column `key` would serve (a seek counts
    /// [`SEEK_ENTRIES`]). What was known at an older sequence is forgotten (its column too);
    /// a reader older than what is known counts nothing.
    pub(crate) fn visited(&self, key: ColumnKey, sequence: SequenceNumber, entries: u64) {
        let mut state = self.state();
        let entry = state.columns.entry(key).or_insert(Entry::Demand {
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
            Entry::Built { column, .. } => column.bytes(),
            Entry::Demand { .. } => 0,
        };
        state.bytes -= freed;
    }

    /// Keeps `column` as `key` unless something newer is known of it, making room by dropping
    /// the columns of older sequences, then those of its own read least recently (their
    /// reads count from zero again: each build is paid for by reads since the last); returns
    /// it either way, for the reader that built it.
    pub(crate) fn keep(&self, key: ColumnKey, column: Column) -> Arc<Column> {
        debug_assert_eq!(key.order, column.order);
        let column = Arc::new(column);
        let bytes = column.bytes();
        let sequence = column.sequence;
        let mut state = self.state();
        if state
            .columns
            .get(&key)
            .is_some_and(|entry| entry.sequence() > sequence)
        {
            return column;
        }
        let replaced = match state.columns.remove(&key) {
            Some(Entry::Built { column, .. }) => column.bytes(),
            _ => 0,
        };
        state.bytes -= replaced;
        if state.bytes + bytes > self.budget_bytes {
            let mut freed = 0;
            state.columns.retain(|_, entry| match entry {
                Entry::Built { column, .. } if column.sequence != sequence => {
                    freed += column.bytes();
                    false
                }
                _ => true,
            });
            state.bytes -= freed;
        }
        while state.bytes + bytes > self.budget_bytes {
            let Some(oldest) = state
                .columns
                .iter()
                .filter_map(|(key, entry)| match entry {
                    Entry::Built { used, .. } => Some((*used, *key)),
                    Entry::Demand { .. } => None,
                })
                .min_by_key(|(used, _)| *used)
                .map(|(_, key)| key)
            else {
                break;
            };
            let evicted = Entry::Demand {
                sequence,
                visited: 0,
            };
            if let Some(Entry::Built { column, .. }) = state.columns.insert(oldest, evicted) {
                state.bytes -= column.bytes();
            }
        }
        if state.bytes + bytes <= self.budget_bytes {
            state.tick += 1;
            let used = state.tick;
            let entry = Entry::Built {
                column: Arc::clone(&column),
                used,
            };
            state.columns.insert(key, entry);
            state.bytes += bytes;
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
    /// A column of objects: entries read from `posg` at `sequence`, in `posg` order.
    pub(crate) fn objects(sequence: SequenceNumber, quads: Vec<EncodedQuad>) -> Self {
        let integers_start = quads.partition_point(|q| q.object.kind() != TermKind::Integer);
        Self {
            sequence,
            order: ColumnOrder::Objects,
            quads: quads.into_boxed_slice(),
            integers_start,
            fences: Box::default(),
        }
    }

    /// A column of subjects: every entry of one predicate at `sequence`, in any order.
    pub(crate) fn subjects(sequence: SequenceNumber, mut quads: Vec<EncodedQuad>) -> Self {
        quads.sort_unstable_by_key(|q| (q.subject, q.object, q.graph));
        let fences = quads
            .iter()
            .step_by(FENCE_STRIDE)
            .map(|q| q.subject)
            .collect();
        Self {
            sequence,
            order: ColumnOrder::Subjects,
            quads: quads.into_boxed_slice(),
            integers_start: 0,
            fences,
        }
    }

    fn bytes(&self) -> usize {
        self.quads.len() * ENTRY_BYTES + self.fences.len() * std::mem::size_of::<TermId>()
    }

    /// What a `posg` range read visits: every literal, then the inlined integers with ids in
    /// `integers` (inclusive), in `posg` order. A column of objects only.
    pub(crate) fn range(
        &self,
        integers: Option<(TermId, TermId)>,
    ) -> (&[EncodedQuad], &[EncodedQuad]) {
        debug_assert_eq!(self.order, ColumnOrder::Objects);
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

    /// The entries of `subject`, by object then graph. A column of subjects only.
    pub(crate) fn of_subject(&self, subject: TermId) -> &[EncodedQuad] {
        debug_assert_eq!(self.order, ColumnOrder::Subjects);
        // Fence `f` is below `subject` and fence `f + 1` is not: the first entry at or above
        // `subject` lies past the first and at most at the second.
        let after = self.fences.partition_point(|s| *s < subject);
        let run =
            after.saturating_sub(1) * FENCE_STRIDE..(after * FENCE_STRIDE).min(self.quads.len());
        let start = run.start + self.quads[run].partition_point(|q| q.subject < subject);
        // A subject has few entries: counting them beats a second search over the rest.
        let len = self.quads[start..]
            .iter()
            .take_while(|q| q.subject == subject)
            .count();
        &self.quads[start..start + len]
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
        Column::objects(sequence, quads)
    }

    /// The column of objects of predicate `n`.
    fn predicate(n: u64) -> ColumnKey {
        ColumnKey {
            predicate: TermId::new(TermKind::Iri, n),
            order: ColumnOrder::Objects,
        }
    }

    #[test]
    fn a_column_is_built_once_reads_have_visited_as_many_entries_as_it_holds() {
        let columns = Columns::new(1 << 20);
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
        let columns = Columns::new(10 * ENTRY_BYTES);
        // Larger than half the budget: never built, however often read.
        columns.visited(predicate(1), 1, 1_000);
        assert!(matches!(columns.plan(predicate(1), 1, 6), Plan::Scan));
        columns.keep(predicate(2), column(1, &[1, 2]));
        columns.keep(predicate(4), column(1, &[1]));
        columns.keep(predicate(6), column(1, &[1, 2]));
        assert_eq!(columns.bytes(), 8 * ENTRY_BYTES);
        assert!(matches!(columns.plan(predicate(2), 1, 3), Plan::Column(_)));
        assert!(matches!(columns.plan(predicate(6), 1, 3), Plan::Column(_)));
        // Does not fit beside the columns of its own sequence: the one read least recently
        // (4) makes room, and must be paid for by reads again before it is rebuilt.
        let kept = columns.keep(predicate(5), column(1, &[1, 2]));
        assert_eq!(kept.quads.len(), 3);
        assert_eq!(columns.bytes(), 9 * ENTRY_BYTES);
        assert!(matches!(columns.plan(predicate(4), 1, 2), Plan::Scan));
        columns.visited(predicate(4), 1, 1);
        assert!(matches!(columns.plan(predicate(4), 1, 2), Plan::Scan));
        columns.visited(predicate(4), 1, 1);
        assert!(matches!(columns.plan(predicate(4), 1, 2), Plan::Build));
        assert!(matches!(columns.plan(predicate(2), 1, 3), Plan::Column(_)));
        assert!(matches!(columns.plan(predicate(6), 1, 3), Plan::Column(_)));
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

    #[test]
    fn a_subject_reads_its_own_entries_by_object_then_graph() {
        let iri = |n| TermId::new(TermKind::Iri, n);
        let p = iri(1);
        let named = iri(50);
        let quads = vec![
            EncodedQuad::new(iri(7), p, iri(30), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(iri(5), p, iri(31), named),
            EncodedQuad::new(iri(7), p, iri(20), named),
            EncodedQuad::new(iri(9), p, iri(10), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(iri(7), p, iri(20), TermId::DEFAULT_GRAPH),
        ];
        let column = Column::subjects(1, quads);
        let values = |s| {
            column
                .of_subject(iri(s))
                .iter()
                .map(|q| (q.object, q.graph))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            values(7),
            vec![
                (iri(20), TermId::DEFAULT_GRAPH),
                (iri(20), named),
                (iri(30), TermId::DEFAULT_GRAPH)
            ]
        );
        assert_eq!(values(5), vec![(iri(31), named)]);
        assert_eq!(values(6), vec![]);
        assert_eq!(values(4), vec![]);
        assert_eq!(values(10), vec![]);
    }

    /// Columns of many fences, subjects with runs of entries of every length (across fences
    /// too) and gaps between them: a look-up gives what a scan of the whole column gives.
    #[test]
    fn a_subject_is_found_past_the_fences_as_by_a_scan() {
        let iri = |n| TermId::new(TermKind::Iri, n);
        let p = iri(1);
        for len in [0, 1, 15, 16, 17, 100, 1_000] {
            // Subject `3 * (i / run)` for a run length that varies with `i`.
            let quads = (0..len)
                .map(|i: u64| {
                    let subject = 3 * (i / (1 + i % 37 / 9));
                    EncodedQuad::new(iri(subject), p, iri(i), TermId::DEFAULT_GRAPH)
                })
                .collect::<Vec<_>>();
            let column = Column::subjects(1, quads.clone());
            for s in 0..=3 * len + 3 {
                let mut expected = quads
                    .iter()
                    .filter(|q| q.subject == iri(s))
                    .copied()
                    .collect::<Vec<_>>();
                expected.sort_unstable_by_key(|q| (q.object, q.graph));
                assert_eq!(
                    column.of_subject(iri(s)),
                    expected,
                    "{len} entries, subject {s}"
                );
            }
        }
    }

    #[test]
    fn the_two_columns_of_a_predicate_are_counted_apart() {
        let columns = Columns::new(1 << 20);
        let objects = predicate(5);
        let subjects = ColumnKey {
            order: ColumnOrder::Subjects,
            ..objects
        };
        columns.visited(subjects, 3, 100);
        assert!(matches!(columns.plan(subjects, 3, 100), Plan::Build));
        assert!(matches!(columns.plan(objects, 3, 100), Plan::Scan));
        columns.keep(subjects, Column::subjects(3, vec![]));
        assert!(matches!(columns.plan(subjects, 3, 100), Plan::Column(_)));
        assert!(matches!(columns.plan(objects, 3, 100), Plan::Scan));
    }
}
