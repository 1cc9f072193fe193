//! Numbers of the blank nodes the store mints, and the id payloads they become.

use super::{TermId, TermKind};
use crate::error::StoreError;

/// Blank node numbers from this one on are never minted. A blank node inserted under a
/// store-style label (see `inline_id`) with a number below it moves the counter past it; one
/// with a number above it needs nothing, since the counter never gets there. So a label can
/// never name a node minted later, and an odd label cannot use up the numbers.
pub(crate) const BLANK_NUMBER_LIMIT: u64 = 1 << 59;

/// How the numbers of minted blank nodes (1, 2, 3, …, from one counter) map to id payloads.
///
/// Stores created since format 3 count downward from the top of the payload range. The
/// newest IRIs have the highest ids of their kind and the newest blank nodes the lowest of
/// theirs, and no id lies between them: the new subjects of a commit, IRIs and blank nodes
/// alike, land at one place of `spog`, so a compaction of new entries rewrites the files
/// around that place instead of every blank node's entries. Older stores count upward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlankNumbering {
    /// Payload = number (stores created before format 3).
    Ascending,
    /// Payload = largest payload − number.
    Descending,
}

impl BlankNumbering {
    /// The id of the blank node with this number.
    pub(crate) fn id(self, number: u64) -> TermId {
        let payload = match self {
            Self::Ascending => number,
            Self::Descending => TermId::MAX_PAYLOAD - number,
        };
        TermId::new(TermKind::MintedBlank, payload)
    }

    /// The number of a minted blank node's id.
    pub(crate) fn number(self, id: TermId) -> u64 {
        match self {
            Self::Ascending => id.payload(),
            Self::Descending => TermId::MAX_PAYLOAD - id.payload(),
        }
    }

    /// A fresh blank node: the one numbered `next`, which then moves on.
    pub(crate) fn mint(self, next: &mut u64) -> Result<TermId, StoreError> {
        if *next >= BLANK_NUMBER_LIMIT {
            return Err(StoreError::BlankNodesExhausted);
        }
        let id = self.id(*next);
        *next += 1;
        Ok(id)
    }

    /// Moves `next` past a minted blank node's number, so that it is never minted again
    /// (numbers at or above the limit never are).
    pub(crate) fn reserve(self, next: &mut u64, id: TermId) {
        let number = self.number(id);
        if number < BLANK_NUMBER_LIMIT && number >= *next {
            *next = number + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_descending_ids_fall() {
        for numbering in [BlankNumbering::Ascending, BlankNumbering::Descending] {
            for number in [1, 2, 1000, BLANK_NUMBER_LIMIT - 1] {
                let id = numbering.id(number);
                assert_eq!(id.kind(), TermKind::MintedBlank);
                assert_eq!(numbering.number(id), number);
            }
        }
        let descending = BlankNumbering::Descending;
        assert!(descending.id(2) < descending.id(1));
        // Every descending id sorts after every IRI id.
        assert!(
            descending.id(BLANK_NUMBER_LIMIT - 1) > TermId::new(TermKind::Iri, TermId::MAX_PAYLOAD)
        );
    }
}
