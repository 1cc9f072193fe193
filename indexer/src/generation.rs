//! One committed state of the index as searches see it: tantivy's searcher and the fast-field
//! columns that every search of it reads, opened once.
//!
//! Opening a fast-field column reads its header and index from the segment's columnar file.
//! Every ranked search reads the `rank` column of each matching document and the `id` column
//! of its best ones, so opening both in every segment per request cost a fifth of a type-ahead
//! request at 35 M quads (16 segments). A generation opens them when the index reader reloads
//! (after a commit) and replaces the previous generation; searches that started before keep
//! theirs, whose segments tantivy keeps open as long as its searcher lives.

use std::sync::{Arc, RwLock};
use tantivy::columnar::Column;
use tantivy::index::SegmentId;
use tantivy::{IndexReader, Searcher, SegmentReader};

/// The columns of one segment.
struct SegmentColumns {
    segment: SegmentId,
    /// The weight of use in tenths (`crate::popularity`); `None` in a segment without it.
    rank: Option<Column<u64>>,
    /// The entity's `TermId`; `None` in a segment without it (a corrupt index).
    id: Option<Column<u64>>,
}

impl SegmentColumns {
    fn open(segment: &SegmentReader) -> Self {
        let fast = segment.fast_fields();
        Self {
            segment: segment.segment_id(),
            rank: fast.u64("rank").ok(),
            id: fast.u64("id").ok(),
        }
    }
}

/// A searcher and its segments' `rank` and `id` columns.
pub(crate) struct Generation {
    searcher: Searcher,
    segments: Vec<SegmentColumns>,
}

impl Generation {
    /// Opens the columns of every segment of `searcher`.
    pub(crate) fn open(searcher: Searcher) -> Self {
        let segments = searcher
            .segment_readers()
            .iter()
            .map(SegmentColumns::open)
            .collect();
        Self { searcher, segments }
    }

    /// The tantivy searcher of this state.
    pub(crate) fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// The `rank` column of a segment, for a collector's per-segment scorer.
    pub(crate) fn rank(&self, segment: &SegmentReader) -> Option<Column<u64>> {
        match self.find(segment) {
            Some(columns) => columns.rank.clone(),
            None => SegmentColumns::open(segment).rank,
        }
    }

    /// The `id` column of a segment, for a collector's per-segment scorer.
    pub(crate) fn id(&self, segment: &SegmentReader) -> Option<Column<u64>> {
        match self.find(segment) {
            Some(columns) => columns.id.clone(),
            None => SegmentColumns::open(segment).id,
        }
    }

    /// The columns of a segment of this generation (`None` for a segment of another, which
    /// a search over this generation's searcher never meets: the caller opens its own).
    fn find(&self, segment: &SegmentReader) -> Option<&SegmentColumns> {
        let id = segment.segment_id();
        self.segments.iter().find(|columns| columns.segment == id)
    }
}

/// The index reader and its current generation, replaced whenever the reader reloads (after a
/// commit, or when a merge of a full build's segments ends on its own thread).
pub(crate) struct Searchable {
    reader: IndexReader,
    current: RwLock<Arc<Generation>>,
}

impl Searchable {
    /// The reader's current state as a generation.
    pub(crate) fn new(reader: IndexReader) -> Self {
        let current = RwLock::new(Arc::new(Generation::open(reader.searcher())));
        Self { reader, current }
    }

    /// The generation searches read now.
    pub(crate) fn current(&self) -> Arc<Generation> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Makes the last commit searchable: reloads the reader and opens the columns of its
    /// segments before searches see them.
    pub(crate) fn reload(&self) -> tantivy::Result<()> {
        self.reader.reload()?;
        let next = Arc::new(Generation::open(self.reader.searcher()));
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = next;
        Ok(())
    }
}
