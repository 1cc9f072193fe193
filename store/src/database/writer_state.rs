//! What only the writer changes: the counters of the next ids, the commit sequence and the
//! quad count, and the writer's cache of committed dictionary terms. Guarded by the writer
//! lock ([`Database::lock_writer`](super::Database::lock_writer)).

use crate::changes::SequenceNumber;
use crate::encoding::{BlankNumbering, TermId, TermKind, BLANK_NUMBER_LIMIT};
use rustc_hash::FxHashMap;

/// Counters only the single writer changes; guarded by the writer lock.
#[derive(Debug, Clone)]
pub(crate) struct WriterState {
    /// The next dictionary number (IRIs, literals, blank nodes with foreign labels).
    pub next_dictionary_id: u64,
    /// The number of the next blank node the store mints.
    pub next_blank_id: u64,
    /// Sequence number of the last commit.
    pub sequence: SequenceNumber,
    /// Quads in the store.
    pub quad_count: u64,
    /// Committed dictionary terms the writer looked up recently (term bytes → id). Entries of
    /// reclaimed terms are removed in the same commit, and ids are never reused, so an entry
    /// is always right.
    pub term_cache: TermCache,
}

impl WriterState {
    /// The id counters as they stand now, to tell later the ids handed out since.
    pub(crate) fn id_mark(&self) -> IdMark {
        IdMark {
            dictionary: self.next_dictionary_id,
            blank: self.next_blank_id,
        }
    }
}

/// The id counters at one moment (the start of a transaction or of a bulk load): an id
/// handed out since then is used by no quad committed before it, so a look-up of the
/// committed store for a pattern naming it can be skipped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdMark {
    dictionary: u64,
    blank: u64,
}

impl IdMark {
    /// Whether `id` was handed out after the mark. Relies on every stored blank node number
    /// below `BLANK_NUMBER_LIMIT` being below the counter (see `BlankNumbering::reserve`).
    pub(crate) fn is_newer(self, numbering: BlankNumbering, id: TermId) -> bool {
        match id.kind() {
            TermKind::Iri | TermKind::Literal | TermKind::NamedBlank => {
                id.payload() >= self.dictionary
            }
            TermKind::MintedBlank => {
                (self.blank..BLANK_NUMBER_LIMIT).contains(&numbering.number(id))
            }
            _ => false,
        }
    }
}

/// A bounded map from dictionary term bytes to committed ids, owned by the writer.
#[derive(Debug, Clone, Default)]
pub(crate) struct TermCache(FxHashMap<Box<[u8]>, TermId>);

impl TermCache {
    /// Entries kept before the map is emptied.
    const LIMIT: usize = 100_000;

    /// The id of a committed term, if the writer met it recently.
    pub(crate) fn get(&self, bytes: &[u8]) -> Option<TermId> {
        self.0.get(bytes).copied()
    }

    /// Remembers a committed term's id; empties the map first when it is full.
    pub(crate) fn insert(&mut self, bytes: &[u8], id: TermId) {
        if self.0.len() >= Self::LIMIT {
            self.0.clear();
        }
        self.0.insert(bytes.into(), id);
    }

    /// Forgets a term (reclaimed by the commit being written).
    pub(crate) fn remove(&mut self, bytes: &[u8]) {
        self.0.remove(bytes);
    }
}
