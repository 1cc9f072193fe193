//! The change log: for every commit, the subjects whose statements changed.
//!
//! It is written in the same batch as the quads, so a follower (the text index) that records
//! the last sequence number it applied can always catch up after a crash: nothing is logged
//! that was not committed and nothing committed is missing from the log.

use crate::encoding::TermId;
use crate::error::CorruptionError;

/// The number of a commit; increases by one with every commit that changes something.
pub type SequenceNumber = u64;

/// What one commit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeBatch {
    /// The commit's sequence number.
    pub sequence: SequenceNumber,
    /// Subjects that gained or lost statements, each once, sorted.
    pub subjects: Vec<TermId>,
}

impl ChangeBatch {
    pub(crate) fn encode_subjects(subjects: &[TermId]) -> Vec<u8> {
        let mut out = Vec::with_capacity(subjects.len() * 8);
        for s in subjects {
            out.extend_from_slice(&s.to_be_bytes());
        }
        out
    }

    pub(crate) fn decode(key: &[u8], value: &[u8]) -> Result<Self, CorruptionError> {
        let sequence = u64::from_be_bytes(
            key.try_into()
                .map_err(|_| CorruptionError::msg("change log key of the wrong length"))?,
        );
        if !value.len().is_multiple_of(8) {
            return Err(CorruptionError::msg("change log value of the wrong length"));
        }
        let subjects = value
            .chunks_exact(8)
            .map(|c| {
                let mut b = [0; 8];
                b.copy_from_slice(c);
                TermId::from_be_bytes(b)
            })
            .collect();
        Ok(Self { sequence, subjects })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;

    #[test]
    fn change_batches_round_trip() {
        let subjects = vec![
            TermId::new(TermKind::Iri, 1),
            TermId::new(TermKind::MintedBlank, 9),
        ];
        let value = ChangeBatch::encode_subjects(&subjects);
        let batch = ChangeBatch::decode(&5_u64.to_be_bytes(), &value).expect("decode");
        assert_eq!(
            batch,
            ChangeBatch {
                sequence: 5,
                subjects
            }
        );
        let empty = ChangeBatch::decode(&6_u64.to_be_bytes(), &[]).expect("decode");
        assert!(empty.subjects.is_empty());
    }

    #[test]
    fn malformed_change_entries_are_errors() {
        assert!(ChangeBatch::decode(&[0; 7], &[]).is_err());
        assert!(ChangeBatch::decode(&[0; 8], &[0; 9]).is_err());
    }
}
