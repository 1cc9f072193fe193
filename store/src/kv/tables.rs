//! Every table of the store, declared once with its column family name and its key layout.

use crate::encoding::Permutation;

/// A RocksDB column family of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Table {
    /// `TermId` → dictionary term bytes.
    IdToTerm,
    /// term bytes (or `0xFF` + 128-bit hash for long terms) → `TermId`s.
    TermToId,
    /// Quad keys in subject, predicate, object, graph order (empty values).
    Spog,
    /// predicate, object, subject, graph.
    Posg,
    /// object, subject, predicate, graph.
    Ospg,
    /// graph, subject, predicate, object.
    Gspo,
    /// graph, predicate, object, subject.
    Gpos,
    /// graph, object, subject, predicate.
    Gosp,
    /// `TermId` → usage counters (subject, predicate, object, graph name, graphs).
    TermStats,
    /// `TermId` + graph `TermId` → number of positions the term fills in that graph.
    TermGraph,
    /// class `TermId` → number of `rdf:type` quads with it as object.
    ClassStats,
    /// graph `TermId` → nothing: the named graphs that exist (possibly empty).
    Graphs,
    /// commit sequence number → subjects whose statements changed.
    Changes,
    /// named settings and counters (see [`meta_key`]).
    Meta,
    /// hash of an IRI's document part + the IRI's `TermId` → nothing: the IRIs with a `#`
    /// (see `hash_iris`).
    HashIris,
    /// `I` + IRI + `TermId` and `L` + folded local name + `TermId` → nothing: every IRI in
    /// sorted order, for prefix range scans (see `iri_index`).
    IriIndex,
    /// entity `TermId` → its entity rank (f64 little-endian, scaled so that the mean over the
    /// ranked entities is 1): a PageRank-style link-analysis score (see `rank`).
    EntityRank,
    /// prefix name → namespace IRI: the prefixes declared in loaded files and updates (see
    /// `prefixes`).
    Prefixes,
    /// kind byte + `TermId` → distinct count (u64 little-endian): per class, predicate or
    /// named graph, the distinct subjects or objects the start views count (see
    /// `quads::distinct`).
    DistinctStats,
}

impl Table {
    /// Every table, in declaration order.
    pub(crate) const ALL: [Self; 19] = [
        Self::IdToTerm,
        Self::TermToId,
        Self::Spog,
        Self::Posg,
        Self::Ospg,
        Self::Gspo,
        Self::Gpos,
        Self::Gosp,
        Self::TermStats,
        Self::TermGraph,
        Self::ClassStats,
        Self::Graphs,
        Self::Changes,
        Self::Meta,
        Self::HashIris,
        Self::IriIndex,
        Self::EntityRank,
        Self::Prefixes,
        Self::DistinctStats,
    ];

    /// The column family name.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::IdToTerm => "id2term",
            Self::TermToId => "term2id",
            Self::Spog => "spog",
            Self::Posg => "posg",
            Self::Ospg => "ospg",
            Self::Gspo => "gspo",
            Self::Gpos => "gpos",
            Self::Gosp => "gosp",
            Self::TermStats => "term_stats",
            Self::TermGraph => "term_graph",
            Self::ClassStats => "class_stats",
            Self::Graphs => "graphs",
            Self::Changes => "changes",
            Self::Meta => "meta",
            Self::HashIris => "hash_iris",
            Self::IriIndex => "iri_index",
            Self::EntityRank => "entity_rank",
            Self::Prefixes => "prefixes",
            Self::DistinctStats => "distinct_stats",
        }
    }

    /// Whether the table holds quad keys.
    pub(crate) const fn is_quad_index(self) -> bool {
        matches!(
            self,
            Self::Spog | Self::Posg | Self::Ospg | Self::Gspo | Self::Gpos | Self::Gosp
        )
    }

    /// Whether the table is keyed by a term id first (8 bytes) and read by point look-ups or
    /// scans of one term: it gets a prefix extractor on the term id (see `kv::disk`).
    pub(crate) const fn is_keyed_by_term(self) -> bool {
        matches!(
            self,
            Self::IdToTerm
                | Self::TermStats
                | Self::TermGraph
                | Self::ClassStats
                | Self::EntityRank
        )
    }

    /// Whether point lookups of keys that may be absent dominate, so a bloom filter pays for
    /// itself. `id2term` and `term_stats` are read by the ids of terms in use, which are
    /// there; ids only grow, so a file of an upper level holds recent ids and its key range
    /// alone tells a look-up of an older one to pass it by. Their filters were 22 MB at 35 M
    /// quads, and the block cache held them.
    pub(crate) const fn wants_bloom_filter(self) -> bool {
        matches!(
            self,
            Self::TermToId
                | Self::TermGraph
                | Self::ClassStats
                | Self::Spog
                | Self::Graphs
                | Self::HashIris
                | Self::EntityRank
        )
    }
}

/// Keys of the `meta` table.
pub(crate) mod meta_key {
    /// On-disk format version (u64 little-endian).
    pub(crate) const VERSION: &[u8] = b"version";
    /// Next dictionary payload to hand out.
    pub(crate) const NEXT_DICTIONARY_ID: &[u8] = b"next_dictionary_id";
    /// Next minted blank node number.
    pub(crate) const NEXT_BLANK_ID: &[u8] = b"next_blank_id";
    /// Present (value `descending`) when minted blank node numbers count down from the top of
    /// the payload range (stores created since format 3, see `BlankNumbering`).
    pub(crate) const BLANK_NUMBERING: &[u8] = b"blank_numbering";
    /// Sequence number of the last commit.
    pub(crate) const SEQUENCE: &[u8] = b"sequence";
    /// Number of quads in the store.
    pub(crate) const QUAD_COUNT: &[u8] = b"quad_count";
    /// The store totals last counted by a scan and the commit they describe
    /// ([`crate::stats::encode_counts`]; absent until a count was remembered).
    pub(crate) const COUNTS: &[u8] = b"counts";
    /// Unix time in milliseconds of the last commit.
    pub(crate) const LAST_COMMIT_MS: &[u8] = b"last_commit_ms";
    /// Unix time in milliseconds of the last write probe (written only while writes fail,
    /// to learn when they reach the disk again).
    pub(crate) const WRITE_PROBE: &[u8] = b"write_probe";
    /// Commit sequence number the entity rank was computed at (u64 little-endian; absent
    /// until it was computed once).
    pub(crate) const RANK_SEQUENCE: &[u8] = b"rank_sequence";
    /// Number of quads in the store when the entity rank was computed (u64 little-endian).
    pub(crate) const RANK_QUADS: &[u8] = b"rank_quads";
    /// Present while the `distinct_stats` table must be recomputed from the indexes (an
    /// upgrade or a bulk load not finished yet); a read-write open recomputes it.
    pub(crate) const DISTINCT_STATS_STALE: &[u8] = b"distinct_stats_stale";
}

/// The table that indexes quads in `permutation` order.
pub(crate) fn permutation_table(permutation: Permutation) -> Table {
    match permutation {
        Permutation::Spog => Table::Spog,
        Permutation::Posg => Table::Posg,
        Permutation::Ospg => Table::Ospg,
        Permutation::Gspo => Table::Gspo,
        Permutation::Gpos => Table::Gpos,
        Permutation::Gosp => Table::Gosp,
    }
}
