//! Type-ahead (`/api/autocomplete`): entities with a label word starting with each typed word,
//! ranked by weight of use, a label equal to what was typed boosted as far as the entity is
//! used (docs/api.md, "Ranking").
//!
//! Which labels equal what was typed is decided on the labels themselves
//! ([`crate::analysis::same_label`]), not on the `label_exact` term alone: that term is the
//! label's folded words, which a fragment `Athe…` shares with `athe`. So the ranking is two
//! searches merged: every matching entity by weight of use alone, and the few whose
//! `label_exact` term is the typed words, best first, each with its exact boost once one of its
//! labels is read and found equal. An entity never scores above its boosted score, so the best
//! `limit` of the merge are the best `limit` overall, as long as no more than
//! [`EXACT_WINDOW`] × `limit` entities share the typed words' term ahead of an equal one.

use crate::analysis::{same_label, words, FOLD, LONGEST_PREFIX};
use crate::document::Vocabulary;
use crate::entity::EntityText;
use crate::error::IndexError;
use crate::popularity::{exact_share, from_field};
use crate::search::{const_score, IndexSearcher, RankKey, SearchHit};
use lodestone_store::Reader;
use std::collections::HashMap;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query};
use tantivy::{DocAddress, SegmentReader};

/// How many entities holding the typed words' `label_exact` term are read per suggestion
/// asked for, at most, to find those whose label equals what was typed.
const EXACT_WINDOW: usize = 4;

/// A type-ahead request: label word prefixes.
#[derive(Debug, Clone)]
pub struct AutocompleteRequest {
    /// What was typed so far.
    pub text: String,
    /// Only instances of one of these classes (IRIs; empty: no filter).
    pub classes: Vec<String>,
    /// Preferred languages for the label shown.
    pub langs: Vec<String>,
    /// Most suggestions.
    pub limit: usize,
}

impl IndexSearcher<'_> {
    /// Type-ahead: entities with a label word starting with each typed word, most referenced
    /// first, a label equal to what was typed boosted only as far as the entity is referenced
    /// (docs/api.md, "Ranking").
    pub fn autocomplete(
        &self,
        reader: &Reader<'_>,
        request: &AutocompleteRequest,
    ) -> Result<Vec<SearchHit>, IndexError> {
        if request.text.chars().count() > self.settings.max_query_chars {
            return Err(crate::query::QueryError::TooLong {
                found: request.text.chars().count(),
                limit: self.settings.max_query_chars,
            }
            .into());
        }
        let typed = words(&mut self.analyzer(FOLD), &request.text);
        if typed.is_empty() {
            return Err(crate::query::QueryError::Empty.into());
        }
        let limit = request.limit.max(1);
        let by_use = self.searcher.search(
            &self.typed_query(&typed, &request.classes, false),
            &TopDocs::with_limit(limit).tweak_score(self.typeahead_tweak(false)),
        )?;
        let same_words = self.searcher.search(
            &self.typed_query(&typed, &request.classes, true),
            &TopDocs::with_limit(limit * EXACT_WINDOW).tweak_score(self.typeahead_tweak(true)),
        )?;
        let vocabulary = Vocabulary::resolve(reader, self.settings)?;
        let mut best: HashMap<DocAddress, RankKey> = by_use
            .into_iter()
            .map(|(key, address)| (address, key))
            .collect();
        let mut analyzer = self.analyzer(FOLD);
        let mut equal = 0;
        for (key, address) in same_words {
            if equal == limit {
                // The rest score below these `limit` even with their boost.
                break;
            }
            let text = EntityText::load_names(reader, &vocabulary, self.entity_id(address)?)?;
            if text
                .labels
                .iter()
                .any(|(label, _)| same_label(&mut analyzer, &label.text, &request.text))
            {
                equal += 1;
                best.insert(address, key);
            }
        }
        let mut ranked: Vec<(RankKey, DocAddress)> = best
            .into_iter()
            .map(|(address, key)| (key, address))
            .collect();
        ranked.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        ranked.truncate(limit);
        let mut hits = Vec::with_capacity(ranked.len());
        for (key, address) in ranked {
            let id = self.entity_id(address)?;
            if let Some((hit, _)) =
                self.hit(reader, &vocabulary, (id, key.score), &request.langs, false)?
            {
                hits.push(hit);
            }
        }
        Ok(hits)
    }

    /// Entities with a label word starting with each typed word (of the classes, if any);
    /// with `same_words`, only those with a label made of the typed words.
    fn typed_query(
        &self,
        typed: &[String],
        classes: &[String],
        same_words: bool,
    ) -> Box<dyn Query> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = typed
            .iter()
            .map(|word| {
                let prefix: String = word.chars().take(LONGEST_PREFIX).collect();
                (
                    Occur::Must,
                    const_score(self.term_query(self.fields.label_prefix, &prefix), 0.0),
                )
            })
            .collect();
        if same_words {
            clauses.push((
                Occur::Must,
                const_score(
                    self.term_query(self.fields.label_exact, &typed.join(" ")),
                    0.0,
                ),
            ));
        }
        self.with_filters(Box::new(BooleanQuery::new(clauses)), classes, None)
    }

    /// Type-ahead's score: `(1 + exact · min(1, ln(1 + w) / ln(101))²) × (1 + rank_weight ·
    /// ln(1 + w))`, where `exact` is 1 for a label equal to the typed text and `w` is the
    /// weight of use (`crate::popularity`). An exact label doubles the score of an entity of
    /// weight 100 or more and adds about 15 % to one used once
    /// ([`crate::popularity::exact_share`]).
    fn typeahead_tweak(
        &self,
        exact: bool,
    ) -> impl Fn(&SegmentReader) -> Box<dyn Fn(tantivy::DocId, f32) -> RankKey> + Send + Sync + 'static
    {
        let weight = self.settings.weights.rank_weight;
        move |segment: &SegmentReader| {
            let column = segment.fast_fields().u64("rank").ok();
            let ids = segment.fast_fields().u64("id").ok();
            Box::new(move |doc, _| {
                let used = from_field(column.as_ref().and_then(|c| c.first(doc)).unwrap_or(0));
                #[allow(clippy::cast_possible_truncation)] // a share in [0, 1]
                let boost = if exact {
                    exact_share(f64::from(used)) as f32
                } else {
                    0.0
                };
                RankKey::new(
                    (1.0 + boost) * (1.0 + weight * used.ln_1p()),
                    ids.as_ref().and_then(|c| c.first(doc)),
                )
            })
        }
    }
}
