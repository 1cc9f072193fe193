//! The text side of URI lookup (`/api/lookup?q=`): the entities whose labels and text match,
//! with their scores, read from the index alone.
//!
//! Lookup re-ranks these by usage and shows only its best few, so nothing is read from the
//! store per entity here: no labels, classes or snippets (a search hit reads every literal of
//! its entity, which for a hundred candidates cost most of a look-up on a 35 M-quad store).
//! What lookup needs to tell an exact name from a word match is answered by the index too:
//! whether one of the entity's labels is made of the same folded words as the text (the
//! `label_exact` field) — a label equal to the text ignoring case always is, so lookup reads
//! the labels of only those entities to decide.
//!
//! Typos: the one-typo matches of words of 5+ letters run an automaton over the label and text
//! dictionaries, the costliest part of a query; they are searched only when the exact words
//! give fewer than the wanted number of entities.

use crate::error::IndexError;
use crate::hit_order::{entity_of, score_of, HitKey, Weighing};
use crate::query::UserQuery;
use crate::search::IndexSearcher;
use lodestone_store::TermId;
use std::collections::BTreeMap;
use tantivy::collector::TopDocs;
use tantivy::schema::{IndexRecordOption, Term as IndexTerm};
use tantivy::{DocAddress, DocId, DocSet, TERMINATED};

/// One entity of the pool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolHit {
    /// The entity.
    pub id: TermId,
    /// Its search score (text score × the index's popularity factor).
    pub score: f32,
    /// Whether one of its labels has the same folded words as the text (a label equal to
    /// the text ignoring case has; the converse does not hold: `Athe…` folds as `athe`).
    pub label_may_equal: bool,
}

impl IndexSearcher<'_> {
    /// The best `limit` entities matching `query` (the `/api/search` syntax, stemmed for
    /// `langs`), best first, searched with typos only if the exact words match fewer than
    /// `enough` entities. `text` is the text the query was parsed from.
    pub fn text_pool(
        &self,
        query: &UserQuery,
        text: &str,
        langs: &[String],
        limit: usize,
        enough: usize,
    ) -> Result<Vec<PoolHit>, IndexError> {
        let mut top = self.top(query, langs, limit, false)?;
        if top.len() < enough {
            top = self.top(query, langs, limit, true)?;
        }
        let exact = self.with_label_words(text, top.iter().map(|(_, address)| *address))?;
        top.into_iter()
            .map(|(key, address)| {
                Ok(PoolHit {
                    id: entity_of(&key)?,
                    score: score_of(&key),
                    label_may_equal: exact.contains(&address),
                })
            })
            .collect()
    }

    fn top(
        &self,
        query: &UserQuery,
        langs: &[String],
        limit: usize,
        typos: bool,
    ) -> Result<Vec<(HitKey, DocAddress)>, IndexError> {
        let (query, _) = self.text_query_with(query, langs, typos)?;
        Ok(self.searcher.search(
            &query,
            &TopDocs::with_limit(limit.max(1)).order_by(self.hit_order(Weighing::Text)),
        )?)
    }

    /// Those of `documents` with a label whose folded words are those of `text`: a seek per
    /// document in the postings of one `label_exact` term (never the whole list, which a
    /// common label makes long).
    fn with_label_words(
        &self,
        text: &str,
        documents: impl Iterator<Item = DocAddress>,
    ) -> Result<Vec<DocAddress>, IndexError> {
        let words = self.analyze(text);
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let term = IndexTerm::from_field_text(self.fields.label_exact, &words.join(" "));
        let mut by_segment: BTreeMap<u32, Vec<DocId>> = BTreeMap::new();
        for address in documents {
            by_segment
                .entry(address.segment_ord)
                .or_default()
                .push(address.doc_id);
        }
        let segments = self.searcher.segment_readers();
        let mut out = Vec::new();
        for (ord, mut docs) in by_segment {
            let Some(segment) = usize::try_from(ord).ok().and_then(|i| segments.get(i)) else {
                continue;
            };
            let Some(mut postings) = segment
                .inverted_index(self.fields.label_exact)?
                .read_postings(&term, IndexRecordOption::Basic)?
            else {
                continue;
            };
            docs.sort_unstable();
            for doc in docs {
                if postings.doc() == TERMINATED {
                    break;
                }
                // The documents are ascending, so the postings only ever move forward.
                if postings.doc() <= doc && postings.seek(doc) == doc {
                    out.push(DocAddress::new(ord, doc));
                }
            }
        }
        Ok(out)
    }
}
