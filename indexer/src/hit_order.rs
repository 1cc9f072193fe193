//! The order of hits: a score weighted by the entity's weight of use, then, among equal
//! scores, the entity id (smallest first).
//!
//! Tantivy orders equal scores by document address, which commits change: re-indexing an
//! entity (a new weight of use, a new class) moves it to a new document and merges renumber
//! segments, so the pages of a search read across a commit repeated or skipped hits of equal
//! score. An entity's id does not move.
//!
//! The key is a pair that tantivy compares lazily: the score is computed for every matching
//! document, the id is read only for a document whose score ties the collector's current
//! threshold or beats it (it enters the top). For a common type-ahead prefix that is a few
//! hundred of 100,000 matches. Both columns come from the [`Generation`], opened once per
//! commit. The id in the key is also the hit's entity: callers need not read it again.

use crate::error::IndexError;
use crate::generation::Generation;
use crate::popularity::{exact_share, from_field};
use lodestone_store::TermId;
use std::sync::Arc;
use tantivy::collector::sort_key::{NaturalComparator, ReverseNoneIsLowerComparator};
use tantivy::collector::{SegmentSortKeyComputer, SortKeyComputer};
use tantivy::columnar::Column;
use tantivy::{DocId, Score, SegmentReader};

/// A hit's sort key as the collectors return it: the combined score, then the entity id
/// (`None` for a document without one, which a well-formed index has not: it comes after
/// every other of its score).
pub(crate) type HitKey = (Score, Option<u64>);

/// The score of a [`HitKey`].
pub(crate) fn score_of(key: &HitKey) -> f32 {
    key.0
}

/// The entity of a [`HitKey`].
pub(crate) fn entity_of(key: &HitKey) -> Result<TermId, IndexError> {
    key.1
        .map(TermId::from_u64)
        .ok_or_else(|| IndexError::Corrupt("a document without an id".into()))
}

/// How the score of a document is made from its text score and its weight of use `w`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Weighing {
    /// Search and lookup: `(text score + 0.001) × (1 + rank_weight · ln(1 + w))` (the 0.001
    /// lets pure filters, of score 0, still order by use).
    Text,
    /// Type-ahead, which has no text score: `(1 + exact · min(1, ln(1 + w) / ln(101))²) ×
    /// (1 + rank_weight · ln(1 + w))`, `exact` being 1 for documents known to have a label
    /// equal to what was typed ([`crate::popularity::exact_share`]: an exact label doubles
    /// the score of an entity of weight 100 or more and adds about 15 % to one used once).
    Use {
        /// Whether every document of the query has an exact label.
        exact: bool,
    },
}

impl Weighing {
    fn score(self, text_score: Score, rank_weight: f32, used: f32) -> Score {
        let popularity = 1.0 + rank_weight * used.ln_1p();
        match self {
            Self::Text => (text_score + 1e-3) * popularity,
            Self::Use { exact: false } => popularity,
            Self::Use { exact: true } => {
                #[allow(clippy::cast_possible_truncation)] // a share in [0, 1]
                let boost = exact_share(f64::from(used)) as f32;
                (1.0 + boost) * popularity
            }
        }
    }
}

/// The sort key computer of [`HitKey`]s, for `TopDocs::order_by`.
pub(crate) fn hit_order(
    generation: &Arc<Generation>,
    rank_weight: f32,
    weighing: Weighing,
) -> (ByUse, ByEntity) {
    (
        ByUse {
            generation: Arc::clone(generation),
            rank_weight,
            weighing,
        },
        ByEntity {
            generation: Arc::clone(generation),
        },
    )
}

/// The first part of the key: the weighted score.
pub(crate) struct ByUse {
    generation: Arc<Generation>,
    rank_weight: f32,
    weighing: Weighing,
}

impl SortKeyComputer for ByUse {
    type SortKey = Score;
    type Child = SegmentByUse;
    type Comparator = NaturalComparator;

    fn requires_scoring(&self) -> bool {
        matches!(self.weighing, Weighing::Text)
    }

    fn segment_sort_key_computer(&self, segment: &SegmentReader) -> tantivy::Result<SegmentByUse> {
        Ok(SegmentByUse {
            rank: self.generation.rank(segment),
            rank_weight: self.rank_weight,
            weighing: self.weighing,
        })
    }
}

/// [`ByUse`] in one segment.
pub(crate) struct SegmentByUse {
    rank: Option<Column<u64>>,
    rank_weight: f32,
    weighing: Weighing,
}

impl SegmentSortKeyComputer for SegmentByUse {
    type SortKey = Score;
    type SegmentSortKey = Score;
    type SegmentComparator = NaturalComparator;

    #[inline]
    fn segment_sort_key(&mut self, doc: DocId, score: Score) -> Score {
        let used = from_field(self.rank.as_ref().and_then(|c| c.first(doc)).unwrap_or(0));
        self.weighing.score(score, self.rank_weight, used)
    }

    fn convert_segment_sort_key(&self, key: Score) -> Score {
        key
    }
}

/// The second part of the key: the entity id, smallest first, missing last.
pub(crate) struct ByEntity {
    generation: Arc<Generation>,
}

impl SortKeyComputer for ByEntity {
    type SortKey = Option<u64>;
    type Child = SegmentByEntity;
    type Comparator = ReverseNoneIsLowerComparator;

    fn segment_sort_key_computer(
        &self,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentByEntity> {
        Ok(SegmentByEntity {
            id: self.generation.id(segment),
        })
    }
}

/// [`ByEntity`] in one segment.
pub(crate) struct SegmentByEntity {
    id: Option<Column<u64>>,
}

impl SegmentSortKeyComputer for SegmentByEntity {
    type SortKey = Option<u64>;
    type SegmentSortKey = Option<u64>;
    type SegmentComparator = ReverseNoneIsLowerComparator;

    #[inline]
    fn segment_sort_key(&mut self, doc: DocId, _score: Score) -> Option<u64> {
        self.id.as_ref().and_then(|c| c.first(doc))
    }

    fn convert_segment_sort_key(&self, key: Option<u64>) -> Option<u64> {
        key
    }
}
