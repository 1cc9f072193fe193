//! The on-disk format version, written at creation and checked at every open.

/// Version of the on-disk layout. Bump it whenever a table, key or value encoding changes; a
/// store written with another version is refused at open rather than misread.
pub const FORMAT_VERSION: u64 = 8;

/// Format 1 lacks the `hash_iris` table, which a read-write open fills from the dictionary.
pub(crate) const FORMAT_WITHOUT_HASH_IRIS: u64 = 1;

/// Format 2 has no compact graphs (see `quads::layout`): every named graph is indexed, which
/// format 3 reads as it is, so a read-only open reads it and a read-write open only marks it
/// as format 3. A build of format 2 refuses a format 3 store, whose compact graphs it would
/// misread.
pub(crate) const FORMAT_WITHOUT_COMPACT_GRAPHS: u64 = 2;

/// Format 3 lacks the `iri_index` table (every IRI in sorted order, see `iri_index`), which a
/// read-write open fills from the dictionary; formats 1 and 2 lack it too. A read-only open
/// refuses a store without the table. A build of format 3 refuses a format 4 store, whose
/// index it would not keep up to date.
pub(crate) const FORMAT_WITHOUT_IRI_INDEX: u64 = 3;

/// Format 4 lacks the `entity_rank` and `prefixes` tables, which a read-write open creates
/// empty: the entity rank is computed by the next load or by the server in the background,
/// and prefixes are recorded from the next loads and updates. A read-only open refuses a
/// store without them. A build of format 4 refuses a format 5 store, whose rank it would let
/// go stale without noticing.
pub(crate) const FORMAT_WITHOUT_ENTITY_RANK: u64 = 4;

/// Format 5 lacks the `distinct_stats` table (distinct subjects per class, predicate and
/// graph, see `quads::distinct`), which a read-write open computes from the indexes; older
/// formats lack it too. A read-only open refuses a store without the table. A build of
/// format 5 refuses a format 6 store, whose distinct counts it would let go stale.
pub(crate) const FORMAT_WITHOUT_DISTINCT_STATS: u64 = 5;

/// Format 6 indexes the default graph's quads in the graph-first orders too, which format 7
/// leaves out (see `quads::layout`): a read-only open reads it as it is, a read-write open
/// deletes those entries; older formats get the same at their upgrade. A build of format 6
/// refuses a format 7 store, whose default graph it would not find.
pub(crate) const FORMAT_WITH_DEFAULT_GRAPH_FIRST: u64 = 6;

/// Format 7 lacks the per (class, predicate) distinct counts (see
/// `quads::distinct::class_predicates`): a read-write open recomputes the `distinct_stats`
/// table with them; a read-only open reads the store as it is, and its readers say they do not
/// have those counts. A build of format 7 refuses a format 8 store, whose class-predicate
/// counts its commits would let go stale.
pub(crate) const FORMAT_WITHOUT_CLASS_PREDICATES: u64 = 7;
