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
use crate::entity::EntityText;
use crate::error::IndexError;
use crate::hit_order::{entity_of, score_of, Weighing};
use crate::search::{const_score, IndexSearcher, SearchHit};
use lodestone_store::{Reader, TermId};
use std::collections::HashMap;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query};

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
            &TopDocs::with_limit(limit).order_by(self.hit_order(Weighing::Use { exact: false })),
        )?;
        let same_words = self.searcher.search(
            &self.typed_query(&typed, &request.classes, true),
            &TopDocs::with_limit(limit * EXACT_WINDOW)
                .order_by(self.hit_order(Weighing::Use { exact: true })),
        )?;
        let vocabulary = self.vocabulary(reader)?;
        let mut best: HashMap<TermId, f32> = HashMap::with_capacity(limit * 2);
        for (key, _) in &by_use {
            best.insert(entity_of(key)?, score_of(key));
        }
        let mut analyzer = self.analyzer(FOLD);
        let mut equal = 0;
        for (key, _) in &same_words {
            if equal == limit {
                // The rest score below these `limit` even with their boost.
                break;
            }
            let id = entity_of(key)?;
            let text = EntityText::load_names(reader, &vocabulary, id)?;
            if text
                .labels
                .iter()
                .any(|(label, _)| same_label(&mut analyzer, &label.text, &request.text))
            {
                equal += 1;
                best.insert(id, score_of(key));
            }
        }
        let mut ranked: Vec<(TermId, f32)> = best.into_iter().collect();
        // Best first; an equal score by entity id, as the collectors order them.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        let mut hits = Vec::with_capacity(ranked.len());
        for (id, score) in ranked {
            if let Some((hit, _)) =
                self.hit(reader, &vocabulary, (id, score), &request.langs, false)?
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
}
