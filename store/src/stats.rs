//! Usage statistics kept in the same batch as the quads they count.
//!
//! Per term: how many quads use it as subject, predicate, object and graph name, and in how
//! many graphs it appears. These counters double as reference counts: a term whose counters
//! all reach zero is removed from the dictionary. Per term and graph: how many positions it
//! fills there (so "in which graphs, how often" is one prefix scan). Per class: instances.

use crate::encoding::TermId;
use crate::error::CorruptionError;

/// How often one term is used across the store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TermUsage {
    /// Quads with the term as subject.
    pub as_subject: u64,
    /// Quads with the term as predicate.
    pub as_predicate: u64,
    /// Quads with the term as object.
    pub as_object: u64,
    /// Quads in the graph named by the term.
    pub as_graph: u64,
    /// Distinct graphs (the default graph included) in which the term is subject, predicate
    /// or object.
    pub graphs: u64,
}

const USAGE_LEN: usize = 40;

impl TermUsage {
    /// Whether no quad refers to the term any more.
    pub fn is_unused(&self) -> bool {
        self.as_subject == 0 && self.as_predicate == 0 && self.as_object == 0 && self.as_graph == 0
    }

    /// The total number of quads positions filled by the term.
    pub fn total(&self) -> u64 {
        self.as_subject + self.as_predicate + self.as_object + self.as_graph
    }

    pub(crate) fn encode(&self) -> [u8; USAGE_LEN] {
        let mut out = [0; USAGE_LEN];
        for (i, v) in self.fields().into_iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, CorruptionError> {
        if bytes.len() != USAGE_LEN {
            return Err(CorruptionError::msg("term usage value of the wrong length"));
        }
        let field = |i: usize| {
            let mut b = [0; 8];
            b.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(b)
        };
        Ok(Self {
            as_subject: field(0),
            as_predicate: field(1),
            as_object: field(2),
            as_graph: field(3),
            graphs: field(4),
        })
    }

    fn fields(&self) -> [u64; 5] {
        [
            self.as_subject,
            self.as_predicate,
            self.as_object,
            self.as_graph,
            self.graphs,
        ]
    }

    /// Adds signed deltas; counts never go below zero.
    pub(crate) fn apply(&mut self, delta: &UsageDelta) {
        let add = |v: &mut u64, d: i64| *v = v.saturating_add_signed(d);
        add(&mut self.as_subject, delta.as_subject);
        add(&mut self.as_predicate, delta.as_predicate);
        add(&mut self.as_object, delta.as_object);
        add(&mut self.as_graph, delta.as_graph);
        add(&mut self.graphs, delta.graphs);
    }
}

/// Changes to a term's counters made by one transaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct UsageDelta {
    pub as_subject: i64,
    pub as_predicate: i64,
    pub as_object: i64,
    pub as_graph: i64,
    pub graphs: i64,
}

impl UsageDelta {
    /// Adds `other`'s changes to these.
    pub(crate) fn add(&mut self, other: &UsageDelta) {
        self.as_subject += other.as_subject;
        self.as_predicate += other.as_predicate;
        self.as_object += other.as_object;
        self.as_graph += other.as_graph;
        self.graphs += other.graphs;
    }
}

/// How often a term is used in one graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermGraphUsage {
    /// The graph ([`TermId::DEFAULT_GRAPH`] for the default graph).
    pub graph: TermId,
    /// Subject, predicate and object positions the term fills in that graph.
    pub positions: u64,
}

/// Store-wide totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreCounts {
    /// Quads in all graphs.
    pub quads: u64,
    /// Entries in the term dictionary (inlined terms are not counted).
    pub dictionary_terms: u64,
    /// Named graphs (created or holding quads).
    pub named_graphs: u64,
    /// Distinct classes (objects of `rdf:type`).
    pub classes: u64,
    /// Distinct predicates.
    pub predicates: u64,
    /// Distinct subjects.
    pub subjects: u64,
    /// Sequence number of the last commit.
    pub sequence: u64,
}

/// The value kept in the store for `counts` (`meta_key::COUNTS`): the totals that take a
/// scan to count and the commit they describe (the quad count is a counter of its own).
pub(crate) fn encode_counts(counts: &StoreCounts) -> Vec<u8> {
    [
        counts.sequence,
        counts.dictionary_terms,
        counts.named_graphs,
        counts.classes,
        counts.predicates,
        counts.subjects,
    ]
    .iter()
    .flat_map(|v| encode_u64(*v))
    .collect()
}

/// The counts a value of [`encode_counts`] holds, with `quads` quads.
pub(crate) fn decode_counts(bytes: &[u8], quads: u64) -> Result<StoreCounts, CorruptionError> {
    if bytes.len() != 6 * 8 {
        return Err(CorruptionError::msg(
            "remembered counts of the wrong length",
        ));
    }
    let field = |i: usize| decode_u64(&bytes[i * 8..(i + 1) * 8]);
    Ok(StoreCounts {
        quads,
        sequence: field(0)?,
        dictionary_terms: field(1)?,
        named_graphs: field(2)?,
        classes: field(3)?,
        predicates: field(4)?,
        subjects: field(5)?,
    })
}

pub(crate) fn encode_u64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

pub(crate) fn decode_u64(bytes: &[u8]) -> Result<u64, CorruptionError> {
    let b: [u8; 8] = bytes
        .try_into()
        .map_err(|_| CorruptionError::msg("counter of the wrong length"))?;
    Ok(u64::from_le_bytes(b))
}

/// Key of the `term_graph` table.
pub(crate) fn term_graph_key(term: TermId, graph: TermId) -> [u8; 16] {
    let mut key = [0; 16];
    key[..8].copy_from_slice(&term.to_be_bytes());
    key[8..].copy_from_slice(&graph.to_be_bytes());
    key
}

/// A stored entity-rank score (see `rank`): 0 when absent.
pub(crate) fn decode_score(value: Option<&[u8]>) -> Result<f64, CorruptionError> {
    match value {
        Some(bytes) => <[u8; 8]>::try_from(bytes)
            .map(f64::from_le_bytes)
            .map_err(|_| CorruptionError::msg("entity_rank value of the wrong length")),
        None => Ok(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_round_trips() {
        let usage = TermUsage {
            as_subject: 1,
            as_predicate: 2,
            as_object: 3,
            as_graph: 4,
            graphs: 5,
        };
        assert_eq!(TermUsage::decode(&usage.encode()).ok(), Some(usage));
    }
}
