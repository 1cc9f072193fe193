//! The set of linked IRIs of the entity rank, numbered densely in term order.

use crate::encoding::{TermId, TermKind};
use crate::error::{CorruptionError, StoreError};

/// A set of IRIs as a bitmap over their dictionary numbers (the payloads of their ids, handed
/// out by one counter), with the count of members before each word once sealed, so that a
/// member's *node number* (its position in term order) is one look-up and a popcount.
///
/// One bit per dictionary term and 4 bytes per 64 terms: 3.3 MB for 20 M terms, where a hash
/// map from ids to node numbers took about 24 bytes per member, with random reads into it for
/// every link.
#[derive(Debug, Default)]
pub(super) struct NodeSet {
    words: Vec<u64>,
    /// Members in the words before each word; filled by [`NodeSet::seal`].
    before: Vec<u32>,
    len: u32,
}

impl NodeSet {
    /// The dictionary number of an IRI, as the set and the link rows hold it while the links
    /// are read.
    pub(super) fn number(term: TermId) -> Result<u32, StoreError> {
        u32::try_from(term.payload())
            .map_err(|_| CorruptionError::msg("more than 2^32 dictionary terms to rank").into())
    }

    /// Adds the IRI of dictionary number `number`.
    pub(super) fn insert(&mut self, number: u32) {
        let word = number as usize / 64;
        if word >= self.words.len() {
            self.words.resize((word + 1).next_power_of_two(), 0);
        }
        self.words[word] |= 1 << (number % 64);
    }

    /// Adds the members of `other` (before [`NodeSet::seal`]).
    pub(super) fn union(&mut self, other: NodeSet) {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (word, theirs) in self.words.iter_mut().zip(other.words) {
            *word |= theirs;
        }
    }

    /// Ends the insertions: counts the members before each word.
    pub(super) fn seal(&mut self) {
        let last = self
            .words
            .iter()
            .rposition(|w| *w != 0)
            .map_or(0, |i| i + 1);
        self.words.truncate(last);
        self.words.shrink_to_fit();
        let mut count = 0_u32;
        self.before = self
            .words
            .iter()
            .map(|w| {
                let before = count;
                count += w.count_ones();
                before
            })
            .collect();
        self.len = count;
    }

    /// Members of the set (after [`NodeSet::seal`]).
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// The node number of a member, from its dictionary number (after [`NodeSet::seal`]).
    pub(super) fn node(&self, number: u32) -> Option<u32> {
        let word = *self.words.get(number as usize / 64)?;
        let bit = 1_u64 << (number % 64);
        (word & bit != 0)
            .then(|| self.before[number as usize / 64] + (word & (bit - 1)).count_ones())
    }

    /// The members in term order, with their node numbers (0, 1, 2, …).
    pub(super) fn terms(&self) -> impl Iterator<Item = (TermId, u32)> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(i, &word)| {
                let base = i as u64 * 64;
                let mut rest = word;
                std::iter::from_fn(move || {
                    (rest != 0).then(|| {
                        let bit = rest.trailing_zeros();
                        rest &= rest - 1;
                        base + u64::from(bit)
                    })
                })
            })
            .zip(0..)
            .map(|(number, node)| (TermId::new(TermKind::Iri, number), node))
    }

    /// Bytes held.
    pub(super) fn memory_bytes(&self) -> u64 {
        (self.words.capacity() * 8 + self.before.capacity() * 4) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_numbered_in_term_order() {
        let mut set = NodeSet::default();
        for n in [700, 3, 64, 65, 3, 1_000_000] {
            set.insert(n);
        }
        set.seal();
        assert_eq!(set.len(), 5);
        let numbers: Vec<u32> = [3, 64, 65, 700, 1_000_000]
            .iter()
            .map(|&n| set.node(n).unwrap())
            .collect();
        assert_eq!(numbers, [0, 1, 2, 3, 4]);
        assert_eq!(set.node(4), None);
        assert_eq!(set.node(u32::MAX), None);
        let terms: Vec<(u64, u32)> = set.terms().map(|(t, n)| (t.payload(), n)).collect();
        assert_eq!(terms, [(3, 0), (64, 1), (65, 2), (700, 3), (1_000_000, 4)]);
    }

    #[test]
    fn an_empty_set_has_no_nodes() {
        let mut set = NodeSet::default();
        set.seal();
        assert_eq!(set.len(), 0);
        assert_eq!(set.node(0), None);
        assert_eq!(set.terms().count(), 0);
    }
}
