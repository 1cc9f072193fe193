//! Quad keys of the six permutation indexes.
//!
//! A key is the four term ids of a quad, big-endian, in the order of its index. With the six
//! orders below every combination of bound positions is a prefix of one of them, so any quad
//! pattern is a single prefix range scan (one bound to the default graph, which the
//! graph-first orders leave out, scans a union order and keeps that graph's quads).

use super::TermId;

/// Length of a quad key: four 8-byte ids.
pub(crate) const QUAD_KEY_LEN: usize = 32;

/// The first sixteen bytes of a key (zeros past its end) as a number: two keys whose numbers
/// differ are in the same order as the numbers.
pub(crate) fn prefix_number(key: &[u8]) -> u128 {
    let mut bytes = [0_u8; 16];
    let n = key.len().min(16);
    bytes[..n].copy_from_slice(&key[..n]);
    u128::from_be_bytes(bytes)
}

/// A quad as four term ids; the graph is [`TermId::DEFAULT_GRAPH`] for the default graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EncodedQuad {
    /// Subject.
    pub subject: TermId,
    /// Predicate.
    pub predicate: TermId,
    /// Object.
    pub object: TermId,
    /// Graph name, or the default graph.
    pub graph: TermId,
}

impl EncodedQuad {
    /// Builds a quad from its four ids.
    pub fn new(subject: TermId, predicate: TermId, object: TermId, graph: TermId) -> Self {
        Self {
            subject,
            predicate,
            object,
            graph,
        }
    }

    /// The ids in subject, predicate, object, graph order.
    pub fn terms(&self) -> [TermId; 4] {
        [self.subject, self.predicate, self.object, self.graph]
    }

    /// Whether the quad matches a pattern of ids (`None` is a wildcard).
    pub(crate) fn matches(&self, pattern: &[Option<TermId>; 4]) -> bool {
        self.terms()
            .iter()
            .zip(pattern)
            .all(|(t, p)| p.is_none_or(|p| p == *t))
    }
}

/// One of the six orders in which quads are indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Permutation {
    /// subject, predicate, object, graph
    Spog,
    /// predicate, object, subject, graph
    Posg,
    /// object, subject, predicate, graph
    Ospg,
    /// graph, subject, predicate, object
    Gspo,
    /// graph, predicate, object, subject
    Gpos,
    /// graph, object, subject, predicate
    Gosp,
}

/// Positions of S, P, O, G in a quad's `terms()` array.
const S: usize = 0;
const P: usize = 1;
const O: usize = 2;
const G: usize = 3;

impl Permutation {
    /// All six, in the order their tables are declared.
    pub(crate) const ALL: [Self; 6] = [
        Self::Spog,
        Self::Posg,
        Self::Ospg,
        Self::Gspo,
        Self::Gpos,
        Self::Gosp,
    ];

    /// Position of this order in [`Self::ALL`].
    pub(crate) const fn index(self) -> usize {
        match self {
            Self::Spog => 0,
            Self::Posg => 1,
            Self::Ospg => 2,
            Self::Gspo => 3,
            Self::Gpos => 4,
            Self::Gosp => 5,
        }
    }

    /// The order of the quad positions (0 = S, 1 = P, 2 = O, 3 = G) in this permutation's keys.
    pub(crate) const fn order(self) -> [usize; 4] {
        match self {
            Self::Spog => [S, P, O, G],
            Self::Posg => [P, O, S, G],
            Self::Ospg => [O, S, P, G],
            Self::Gspo => [G, S, P, O],
            Self::Gpos => [G, P, O, S],
            Self::Gosp => [G, O, S, P],
        }
    }

    /// The index whose keys start with exactly the bound positions of a pattern, and the
    /// number of leading ids that are bound.
    pub(crate) fn for_pattern(s: bool, p: bool, o: bool, g: bool) -> (Self, usize) {
        let count = usize::from(s) + usize::from(p) + usize::from(o) + usize::from(g);
        let permutation = match (s, p, o, g) {
            (true, true, _, false) => Self::Spog,
            (true, false, true, false) => Self::Ospg,
            (true, false, false, false) => Self::Spog,
            (false, true, _, false) => Self::Posg,
            (false, false, true, false) => Self::Ospg,
            (false, false, false, false) => Self::Spog,
            (true, true, _, true) => Self::Gspo,
            (true, false, true, true) => Self::Gosp,
            (true, false, false, true) => Self::Gspo,
            (false, true, _, true) => Self::Gpos,
            (false, false, true, true) => Self::Gosp,
            (false, false, false, true) => Self::Gspo,
        };
        (permutation, count)
    }

    /// Writes the key of a quad in this order.
    pub(crate) fn key(self, quad: &EncodedQuad) -> [u8; QUAD_KEY_LEN] {
        let terms = quad.terms();
        let mut key = [0; QUAD_KEY_LEN];
        for (slot, position) in self.order().into_iter().enumerate() {
            key[slot * 8..slot * 8 + 8].copy_from_slice(&terms[position].to_be_bytes());
        }
        key
    }

    /// Reads a quad back from one of this order's keys.
    pub(crate) fn decode(self, key: &[u8]) -> Option<EncodedQuad> {
        let key: &[u8; QUAD_KEY_LEN] = key.get(..QUAD_KEY_LEN)?.try_into().ok()?;
        let mut terms = [TermId::DEFAULT_GRAPH; 4];
        for (slot, position) in self.order().into_iter().enumerate() {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(&key[slot * 8..slot * 8 + 8]);
            terms[position] = TermId::from_be_bytes(bytes);
        }
        Some(EncodedQuad::new(terms[S], terms[P], terms[O], terms[G]))
    }

    /// Whether the graph comes first in this order's keys, so that one graph's quads are one
    /// contiguous key range.
    pub(crate) const fn is_graph_first(self) -> bool {
        matches!(self, Self::Gspo | Self::Gpos | Self::Gosp)
    }

    /// Whether this order holds the quads of `graph` (`compact`: the graph is laid out
    /// compact). The union orders hold every quad. The graph-first orders leave out the
    /// default graph, whose patterns a union order serves (see `quads::layout`); `gpos` and
    /// `gosp` leave out the compact named graphs too, whose patterns `gspo` serves.
    pub(crate) fn holds(self, graph: TermId, compact: bool) -> bool {
        match self {
            Self::Spog | Self::Posg | Self::Ospg => true,
            Self::Gspo => !graph.is_default_graph(),
            Self::Gpos | Self::Gosp => !graph.is_default_graph() && !compact,
        }
    }

    /// Whether this order holds the quads of compact named graphs (see `quads::layout`).
    pub(crate) const fn holds_compact_graphs(self) -> bool {
        !matches!(self, Self::Gpos | Self::Gosp)
    }

    /// The key range `[start, end)` holding every quad of `graph` in a graph-first order:
    /// the graph's id, and that id followed by more `0xFF` bytes than the rest of any key.
    pub(crate) fn graph_range(graph: TermId) -> ([u8; 8], [u8; QUAD_KEY_LEN + 1]) {
        let start = graph.to_be_bytes();
        let mut end = [u8::MAX; QUAD_KEY_LEN + 1];
        end[..8].copy_from_slice(&start);
        (start, end)
    }

    /// The key prefix made of the bound ids of a pattern, in this order; stops at the first
    /// unbound position.
    pub(crate) fn prefix(self, pattern: [Option<TermId>; 4]) -> Vec<u8> {
        let mut prefix = Vec::with_capacity(QUAD_KEY_LEN);
        for position in self.order() {
            match pattern[position] {
                Some(id) => prefix.extend_from_slice(&id.to_be_bytes()),
                None => break,
            }
        }
        prefix
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;

    #[test]
    fn every_pattern_is_a_prefix() {
        for mask in 0..16_u8 {
            let bound = [mask & 1 != 0, mask & 2 != 0, mask & 4 != 0, mask & 8 != 0];
            let (permutation, count) =
                Permutation::for_pattern(bound[0], bound[1], bound[2], bound[3]);
            let order = permutation.order();
            for slot in 0..4 {
                assert_eq!(
                    bound[order[slot]],
                    slot < count,
                    "mask {mask:04b} with {permutation:?}"
                );
            }
        }
    }

    #[test]
    fn a_graph_range_holds_exactly_that_graph_in_graph_first_orders() {
        let id = |n| TermId::new(TermKind::Iri, n);
        let graph = id(7);
        let (start, end) = Permutation::graph_range(graph);
        let max = TermId::from_be_bytes([u8::MAX; 8]);
        for permutation in Permutation::ALL.into_iter().filter(|p| p.is_graph_first()) {
            let inside = [
                EncodedQuad::new(id(0), id(0), id(0), graph),
                EncodedQuad::new(max, max, max, graph),
            ];
            for quad in inside {
                let key = permutation.key(&quad);
                assert!(key.as_slice() >= start.as_slice() && key.as_slice() < end.as_slice());
            }
            let outside = [
                EncodedQuad::new(max, max, max, id(6)),
                EncodedQuad::new(id(0), id(0), id(0), id(8)),
            ];
            for quad in outside {
                let key = permutation.key(&quad);
                assert!(key.as_slice() < start.as_slice() || key.as_slice() >= end.as_slice());
            }
        }
    }

    #[test]
    fn keys_round_trip() {
        let id = |n| TermId::new(TermKind::Iri, n);
        let quad = EncodedQuad::new(id(1), id(2), id(3), id(4));
        for permutation in Permutation::ALL {
            assert_eq!(permutation.decode(&permutation.key(&quad)), Some(quad));
        }
    }
}
