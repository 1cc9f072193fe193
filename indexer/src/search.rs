//! Searching: entity search, type-ahead, IRI look-up and the facet engine's text matches.
//!
//! The tantivy query of a user query (see [`crate::RankingWeights`] for the formula): every
//! part must match; a word matches in labels (boosted), in other text, stemmed in the
//! requested languages, or within one edit when it has 5+ letters; a `prefix*` matches label
//! word prefixes or any text word starting with it; a phrase matches in labels or text.
//! Optional clauses add the exact-label, label-prefix and proximity boosts. Scores are then
//! multiplied by `1 + rank_weight · ln(1 + in-degree)`.

use crate::analysis::{stem_analyzer_name, stemmed_language, words, FOLD, LONGEST_PREFIX};
use crate::document::Vocabulary;
use crate::entity::{EntityText, LabelChoice};
use crate::error::IndexError;
use crate::generation::Generation;
use crate::hit_order::{entity_of, hit_order, score_of, ByEntity, ByUse, Weighing};
use crate::query::{QueryPart, UserQuery};
use crate::schema::Fields;
use crate::settings::IndexSettings;
use crate::snippet::{best_snippet, Snippet, WordMatcher};
use crate::vocabulary::SharedVocabulary;
use lodestone_store::model::vocab::rdfs;
use lodestone_store::model::{NamedNodeRef, Term};
use lodestone_store::{Reader, TermId};
use std::collections::{BTreeSet, VecDeque};
use std::ops::Bound;
use std::sync::Arc;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, PhraseQuery, Query,
    RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Term as IndexTerm};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, Searcher};

/// Most classes a `class=` filter expands to through `rdfs:subClassOf`.
const MAX_SUBCLASSES: usize = 10_000;

/// An entity search.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query.
    pub query: UserQuery,
    /// Only instances of one of these classes (IRIs; empty: no filter). See
    /// [`IndexSearcher::with_subclasses`].
    pub classes: Vec<String>,
    /// Only entities with statements in this named graph.
    pub graph: Option<String>,
    /// Preferred languages, most wanted first (labels, descriptions, stemming).
    pub langs: Vec<String>,
    /// Hits per page.
    pub limit: usize,
    /// Hits skipped.
    pub offset: usize,
}

/// One entity found.
#[derive(Debug, Clone)]
pub struct SearchHit {
    /// The entity.
    pub id: TermId,
    /// Its IRI.
    pub iri: String,
    /// Best label for the requested languages.
    pub label: Option<LabelChoice>,
    /// Best description for the requested languages.
    pub description: Option<LabelChoice>,
    /// Its classes (IRIs).
    pub classes: Vec<String>,
    /// The combined score (text score × rank factor).
    pub score: f32,
    /// Quads with the entity as object, now.
    pub in_degree: u64,
    /// The best matching literal.
    pub snippet: Option<Snippet>,
    /// The IRI of the snippet's property.
    pub snippet_property: Option<String>,
}

/// A page of hits.
#[derive(Debug, Clone)]
pub struct SearchPage {
    /// Entities matching in the index (entities deleted since the last index commit that
    /// were dropped from this page are subtracted).
    pub total: usize,
    /// The hits of the requested page, best first.
    pub hits: Vec<SearchHit>,
}

/// A searcher over one committed state of the index.
pub struct IndexSearcher<'a> {
    pub(crate) searcher: Searcher,
    /// The state searched, with its segments' open columns.
    generation: Arc<Generation>,
    pub(crate) fields: &'a Fields,
    pub(crate) settings: &'a IndexSettings,
    index: &'a Index,
    vocabulary: &'a SharedVocabulary,
}

impl<'a> IndexSearcher<'a> {
    pub(crate) fn new(
        generation: Arc<Generation>,
        fields: &'a Fields,
        settings: &'a IndexSettings,
        index: &'a Index,
        vocabulary: &'a SharedVocabulary,
    ) -> Self {
        Self {
            searcher: generation.searcher().clone(),
            generation,
            fields,
            settings,
            index,
            vocabulary,
        }
    }

    /// The store vocabulary of `reader`'s state (shared by the searches of that state).
    pub(crate) fn vocabulary(&self, reader: &Reader<'_>) -> Result<Arc<Vocabulary>, IndexError> {
        self.vocabulary.of(reader, self.settings)
    }

    /// The order of hits: the text score weighed as `weighing` says by the weight of use,
    /// then the entity id ([`crate::hit_order`]).
    pub(crate) fn hit_order(&self, weighing: Weighing) -> (ByUse, ByEntity) {
        hit_order(
            &self.generation,
            self.settings.weights.rank_weight,
            weighing,
        )
    }

    /// Parses a query with the configured length bound.
    pub fn parse(&self, text: &str) -> Result<UserQuery, IndexError> {
        Ok(UserQuery::parse(text, self.settings.max_query_chars)?)
    }

    /// The words the index makes of `text` (split on non-alphanumerics, lower-cased, folded,
    /// stop words and over-long tokens dropped), as it analyzes a query's words: a word that
    /// yields none cannot be searched for ("the query has no words to search for").
    pub fn analyze(&self, text: &str) -> Vec<String> {
        words(&mut self.analyzer(FOLD), text)
    }

    /// Whether `label` is exactly `text` as type-ahead and URI lookup decide it: the same
    /// folded words, the same words dropped between them (stop words), and the same
    /// characters before the first and after the last (`St. Louis` is `st louis`, the
    /// fragment `Athe…` is not `athe`).
    pub fn same_label(&self, label: &str, text: &str) -> bool {
        crate::analysis::same_label(&mut self.analyzer(FOLD), label, text)
    }

    /// Every entity whose text matches `query` (the `/api/search` syntax) with its combined
    /// score, best first, at most `limit`. For the facet engine's text constraints.
    pub fn matching_entities(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(TermId, f32)>, IndexError> {
        let query = self.parse(query)?;
        let (tantivy_query, _) = self.text_query(&query, &[])?;
        let top = self.searcher.search(
            &tantivy_query,
            &TopDocs::with_limit(limit.max(1)).order_by(self.hit_order(Weighing::Text)),
        )?;
        top.into_iter()
            .map(|(key, _)| Ok((entity_of(&key)?, score_of(&key))))
            .collect()
    }

    /// One page of entities matching a search, rendered from `reader` (entities it no longer
    /// holds are dropped).
    pub fn search(
        &self,
        reader: &Reader<'_>,
        request: &SearchRequest,
    ) -> Result<SearchPage, IndexError> {
        let (text_query, matcher) = self.text_query(&request.query, &request.langs)?;
        let query = self.with_filters(text_query, &request.classes, request.graph.as_deref());
        let collector = (
            TopDocs::with_limit(request.limit.max(1))
                .and_offset(request.offset)
                .order_by(self.hit_order(Weighing::Text)),
            Count,
        );
        let (top, total) = self.searcher.search(&query, &collector)?;
        let mut page = SearchPage {
            total,
            hits: Vec::with_capacity(top.len()),
        };
        let vocabulary = self.vocabulary(reader)?;
        let mut analyzer = self.analyzer(FOLD);
        for (key, _) in top.into_iter().take(request.limit) {
            let id = entity_of(&key)?;
            let Some((mut hit, text)) = self.hit(
                reader,
                &vocabulary,
                (id, score_of(&key)),
                &request.langs,
                true,
            )?
            else {
                page.total = page.total.saturating_sub(1);
                continue;
            };
            if let Some(snippet) = best_snippet(
                &text.literals,
                |p| text.labels.iter().any(|(l, _)| l.predicate == p),
                &matcher,
                &mut analyzer,
            ) {
                hit.snippet_property = iri_of(reader, snippet.property)?;
                hit.snippet = Some(snippet);
            }
            page.hits.push(hit);
        }
        Ok(page)
    }

    /// The summaries of entities found elsewhere (e.g. by the facet engine), in their order:
    /// label, description, classes and, when `words` are given (the `/api/search` syntax), the
    /// snippet of their best matching literal. `None` for an entity the snapshot no longer
    /// holds; the `score` of each hit is 0.
    pub fn summaries(
        &self,
        reader: &Reader<'_>,
        entities: &[TermId],
        words: Option<&str>,
        langs: &[String],
    ) -> Result<Vec<Option<SearchHit>>, IndexError> {
        let matcher = match words.map(str::trim).filter(|w| !w.is_empty()) {
            Some(words) => Some(self.text_query(&self.parse(words)?, langs)?.1),
            None => None,
        };
        let vocabulary = self.vocabulary(reader)?;
        let mut analyzer = self.analyzer(FOLD);
        let mut out = Vec::with_capacity(entities.len());
        for id in entities {
            let Some((mut hit, text)) =
                self.hit(reader, &vocabulary, (*id, 0.0), langs, matcher.is_some())?
            else {
                out.push(None);
                continue;
            };
            if let Some(matcher) = &matcher {
                if let Some(snippet) = best_snippet(
                    &text.literals,
                    |p| text.labels.iter().any(|(l, _)| l.predicate == p),
                    matcher,
                    &mut analyzer,
                ) {
                    hit.snippet_property = iri_of(reader, snippet.property)?;
                    hit.snippet = Some(snippet);
                }
            }
            out.push(Some(hit));
        }
        Ok(out)
    }

    /// Entities whose IRI starts with `prefix`, most referenced first.
    pub fn iri_prefix(
        &self,
        reader: &Reader<'_>,
        prefix: &str,
        langs: &[String],
        limit: usize,
    ) -> Result<Vec<SearchHit>, IndexError> {
        let lower = Bound::Included(IndexTerm::from_field_text(self.fields.iri, prefix));
        let upper = match prefix_successor(prefix) {
            Some(next) => Bound::Excluded(IndexTerm::from_field_text(self.fields.iri, &next)),
            None => Bound::Unbounded,
        };
        let query = RangeQuery::new(lower, upper);
        let top = self.searcher.search(
            &query,
            &TopDocs::with_limit(limit.max(1)).order_by(self.hit_order(Weighing::Text)),
        )?;
        let vocabulary = self.vocabulary(reader)?;
        let mut hits = Vec::with_capacity(top.len());
        for (key, _) in top {
            let id = entity_of(&key)?;
            if let Some((hit, _)) =
                self.hit(reader, &vocabulary, (id, score_of(&key)), langs, false)?
            {
                hits.push(hit);
            }
        }
        Ok(hits)
    }

    /// A class IRI and every class below it through `rdfs:subClassOf` (transitively, at most
    /// 10,000), for the `class=` filter.
    pub fn with_subclasses(reader: &Reader<'_>, class: &str) -> Result<Vec<String>, IndexError> {
        let mut out = vec![class.to_owned()];
        let (Ok(node), Some(sub_class_of)) = (
            NamedNodeRef::new(class),
            reader.term_id(rdfs::SUB_CLASS_OF.into())?,
        ) else {
            return Ok(out);
        };
        let Some(root) = reader.term_id(node.into())? else {
            return Ok(out);
        };
        let mut seen = BTreeSet::from([root]);
        let mut queue = VecDeque::from([root]);
        while let Some(class) = queue.pop_front() {
            for quad in reader.quads_for_pattern(None, Some(sub_class_of), Some(class), None) {
                let sub = quad?.subject;
                if seen.len() < MAX_SUBCLASSES && seen.insert(sub) {
                    queue.push_back(sub);
                    if let Some(iri) = iri_of(reader, sub)? {
                        out.push(iri);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The summary of one entity and its text (every literal if `snippets`, else its labels
    /// and descriptions only), or `None` if the snapshot no longer has it.
    pub(crate) fn hit(
        &self,
        reader: &Reader<'_>,
        vocabulary: &Vocabulary,
        (id, score): (TermId, f32),
        langs: &[String],
        snippets: bool,
    ) -> Result<Option<(SearchHit, EntityText)>, IndexError> {
        let text = if snippets {
            EntityText::load(reader, vocabulary, id)?
        } else {
            EntityText::load_names(reader, vocabulary, id)?
        };
        if !text.exists {
            return Ok(None);
        }
        let Some(iri) = iri_of(reader, id)? else {
            return Ok(None);
        };
        let mut classes = Vec::with_capacity(text.classes.len());
        for class in &text.classes {
            classes.extend(iri_of(reader, *class)?);
        }
        let hit = SearchHit {
            id,
            iri,
            label: text.best_label(langs),
            description: text.best_description(langs),
            classes,
            score,
            in_degree: reader.usage(id)?.as_object,
            snippet: None,
            snippet_property: None,
        };
        Ok(Some((hit, text)))
    }

    pub(crate) fn analyzer(&self, name: &str) -> TextAnalyzer {
        self.index
            .tokenizers()
            .get(name)
            .unwrap_or_else(|| crate::analysis::folding_analyzer(&self.settings.stop_words))
    }

    pub(crate) fn term_query(&self, field: Field, text: &str) -> Box<dyn Query> {
        Box::new(TermQuery::new(
            IndexTerm::from_field_text(field, text),
            IndexRecordOption::WithFreqs,
        ))
    }

    pub(crate) fn with_filters(
        &self,
        query: Box<dyn Query>,
        classes: &[String],
        graph: Option<&str>,
    ) -> Box<dyn Query> {
        if classes.is_empty() && graph.is_none() {
            return query;
        }
        let mut clauses = vec![(Occur::Must, query)];
        if !classes.is_empty() {
            let any_class = classes
                .iter()
                .map(|c| {
                    (
                        Occur::Should,
                        const_score(self.term_query(self.fields.class, c), 0.0),
                    )
                })
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(any_class))));
        }
        if let Some(graph) = graph {
            clauses.push((
                Occur::Must,
                const_score(self.term_query(self.fields.graph, graph), 0.0),
            ));
        }
        Box::new(BooleanQuery::new(clauses))
    }

    /// The tantivy query of a user query and the words its snippets look for.
    pub(crate) fn text_query(
        &self,
        query: &UserQuery,
        langs: &[String],
    ) -> Result<(Box<dyn Query>, WordMatcher), IndexError> {
        self.text_query_with(query, langs, true)
    }

    /// [`Self::text_query`], with the one-typo matches of words of 5+ letters only if `typos`
    /// (the automaton over the term dictionaries is the costliest part of a query).
    pub(crate) fn text_query_with(
        &self,
        query: &UserQuery,
        langs: &[String],
        typos: bool,
    ) -> Result<(Box<dyn Query>, WordMatcher), IndexError> {
        let f = self.fields;
        let w = self.settings.weights;
        let mut fold = self.analyzer(FOLD);
        let mut stemmers: Vec<(Field, TextAnalyzer)> = Vec::new();
        let wanted: Vec<&str> = if langs.is_empty() {
            vec!["en"]
        } else {
            langs.iter().map(String::as_str).collect()
        };
        for code in wanted.into_iter().filter_map(stemmed_language) {
            if let Some(field) = f.stemmed_field(code) {
                if !stemmers.iter().any(|(existing, _)| *existing == field) {
                    stemmers.push((field, self.analyzer(&stem_analyzer_name(code))));
                }
            }
        }
        let mut matcher = WordMatcher::default();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut all_words = Vec::new();
        let mut last_word: Option<String> = None;
        for part in query.parts() {
            match part {
                QueryPart::Word(raw) => {
                    let tokens = words(&mut fold, raw);
                    if tokens.len() > 1 {
                        clauses.push((Occur::Must, self.phrase(&tokens)));
                    } else if let Some(token) = tokens.first() {
                        let mut any: Vec<(Occur, Box<dyn Query>)> = vec![
                            (
                                Occur::Should,
                                const_score(self.term_query(f.label, token), w.label_word_score),
                            ),
                            (Occur::Should, self.term_query(f.text, token)),
                        ];
                        for (field, stemmer) in &mut stemmers {
                            for stem in words(stemmer, raw) {
                                any.push((
                                    Occur::Should,
                                    boost(self.term_query(*field, &stem), w.stem_boost),
                                ));
                            }
                        }
                        if typos && token.chars().count() >= 5 {
                            let fuzzy = |field| {
                                Box::new(FuzzyTermQuery::new(
                                    IndexTerm::from_field_text(field, token),
                                    1,
                                    true,
                                ))
                            };
                            let label_score = w.label_word_score * w.fuzzy_boost;
                            any.push((Occur::Should, const_score(fuzzy(f.label), label_score)));
                            any.push((Occur::Should, boost(fuzzy(f.text), w.fuzzy_boost)));
                        }
                        clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
                    }
                    last_word = tokens.last().cloned();
                    matcher.words.extend(tokens.iter().cloned());
                    all_words.extend(tokens);
                }
                QueryPart::Prefix(raw) => {
                    let tokens = words(&mut fold, raw);
                    let Some((prefix, before)) = tokens.split_last() else {
                        continue;
                    };
                    for token in before {
                        clauses.push((Occur::Must, self.term_query(f.text, token)));
                    }
                    let short: String = prefix.chars().take(LONGEST_PREFIX).collect();
                    let mut any: Vec<(Occur, Box<dyn Query>)> = vec![(
                        Occur::Should,
                        const_score(self.term_query(f.label_prefix, &short), w.label_boost),
                    )];
                    if let Some(next) = prefix_successor(prefix) {
                        let range = RangeQuery::new(
                            Bound::Included(IndexTerm::from_field_text(f.text, prefix)),
                            Bound::Excluded(IndexTerm::from_field_text(f.text, &next)),
                        );
                        any.push((Occur::Should, const_score(Box::new(range), 1.0)));
                    }
                    clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
                    matcher.words.extend(before.iter().cloned());
                    matcher.prefixes.push(prefix.clone());
                    last_word = Some(prefix.clone());
                    all_words.extend(tokens);
                }
                QueryPart::Phrase(raw) => {
                    let tokens = words(&mut fold, raw);
                    match tokens.len() {
                        0 => {}
                        1 => clauses.push((
                            Occur::Must,
                            Box::new(BooleanQuery::new(vec![
                                (
                                    Occur::Should,
                                    boost(self.term_query(f.label, &tokens[0]), w.label_boost),
                                ),
                                (Occur::Should, self.term_query(f.text, &tokens[0])),
                            ])),
                        )),
                        _ => clauses.push((Occur::Must, self.phrase(&tokens))),
                    }
                    last_word = None;
                    matcher.words.extend(tokens.iter().cloned());
                    all_words.extend(tokens);
                }
            }
        }
        if clauses.is_empty() {
            return Err(crate::query::QueryError::Empty.into());
        }
        if !all_words.is_empty() {
            clauses.push((
                Occur::Should,
                const_score(
                    self.term_query(f.label_exact, &all_words.join(" ")),
                    w.exact_label_boost,
                ),
            ));
        }
        if let Some(word) = last_word {
            let short: String = word.chars().take(LONGEST_PREFIX).collect();
            clauses.push((
                Occur::Should,
                const_score(
                    self.term_query(f.label_prefix, &short),
                    w.prefix_label_boost,
                ),
            ));
        }
        if all_words.len() >= 2 {
            for field in [f.label, f.text] {
                let terms = all_words
                    .iter()
                    .map(|t| IndexTerm::from_field_text(field, t))
                    .collect();
                let mut near = PhraseQuery::new(terms);
                near.set_slop(w.proximity_slop);
                clauses.push((Occur::Should, boost(Box::new(near), w.proximity_boost)));
            }
        }
        Ok((Box::new(BooleanQuery::new(clauses)), matcher))
    }

    /// Words next to one another in a label (boosted) or in other text.
    fn phrase(&self, tokens: &[String]) -> Box<dyn Query> {
        let make = |field: Field| -> Box<dyn Query> {
            Box::new(PhraseQuery::new(
                tokens
                    .iter()
                    .map(|t| IndexTerm::from_field_text(field, t))
                    .collect(),
            ))
        };
        Box::new(BooleanQuery::new(vec![
            (
                Occur::Should,
                boost(make(self.fields.label), self.settings.weights.label_boost),
            ),
            (Occur::Should, make(self.fields.text)),
        ]))
    }
}

fn boost(query: Box<dyn Query>, by: f32) -> Box<dyn Query> {
    Box::new(BoostQuery::new(query, by))
}

pub(crate) fn const_score(query: Box<dyn Query>, score: f32) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(query, score))
}

/// The smallest string greater than every string starting with `prefix` (`None`: none).
pub(crate) fn prefix_successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = char::from_u32(u32::from(last) + 1) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// The IRI of a term, `None` for anything else.
fn iri_of(reader: &Reader<'_>, id: TermId) -> Result<Option<String>, IndexError> {
    Ok(match reader.term(id)? {
        Term::NamedNode(node) => Some(node.into_string()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::prefix_successor;

    #[test]
    fn prefix_successors_bound_ranges() {
        assert_eq!(prefix_successor("abc").as_deref(), Some("abd"));
        assert_eq!(prefix_successor("").as_deref(), None);
    }
}
