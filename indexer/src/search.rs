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
use crate::popularity::from_field;
use crate::query::{QueryPart, UserQuery};
use crate::schema::Fields;
use crate::settings::IndexSettings;
use crate::snippet::{best_snippet, Snippet, WordMatcher};
use lodestone_store::model::vocab::rdfs;
use lodestone_store::model::{NamedNodeRef, Term};
use lodestone_store::{Reader, TermId};
use std::cmp::Reverse;
use std::collections::{BTreeSet, VecDeque};
use std::ops::Bound;
use std::sync::OnceLock;
use tantivy::collector::{Count, TopDocs};
use tantivy::columnar::Column;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, PhraseQuery, Query,
    RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Term as IndexTerm};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, Index, Searcher, SegmentReader};

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

/// A hit's sort key: its score, then, among equal scores, its entity id (smallest first).
///
/// Tantivy orders equal scores by document address, which commits change: re-indexing an
/// entity (a new weight of use, a new class) moves it to a new document and merges renumber
/// segments, so the pages of a search read across a commit repeated or skipped hits of equal
/// score. An entity's id does not move.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(crate) struct RankKey {
    /// The combined score.
    pub(crate) score: f32,
    /// The entity id, reversed so that the larger key is the smaller id.
    id: Reverse<u64>,
}

impl RankKey {
    /// The key of a document: its score and its entity id (a document without one, which a
    /// well-formed index has not, comes after every other of its score).
    pub(crate) fn new(score: f32, id: Option<u64>) -> Self {
        Self {
            score,
            id: Reverse(id.unwrap_or(u64::MAX)),
        }
    }
}

/// A searcher over one committed state of the index.
pub struct IndexSearcher<'a> {
    pub(crate) searcher: Searcher,
    pub(crate) fields: &'a Fields,
    pub(crate) settings: &'a IndexSettings,
    index: &'a Index,
    /// The `id` column of each segment, opened at the first hit (opening it costs more than
    /// reading a value: once per hit, it took a fifth of a 4,568-hit SPARQL text pattern).
    ids: OnceLock<Vec<Column<u64>>>,
}

impl<'a> IndexSearcher<'a> {
    pub(crate) fn new(
        searcher: Searcher,
        fields: &'a Fields,
        settings: &'a IndexSettings,
        index: &'a Index,
    ) -> Self {
        Self {
            searcher,
            fields,
            settings,
            index,
            ids: OnceLock::new(),
        }
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
            &TopDocs::with_limit(limit.max(1)).tweak_score(self.rank_tweak()),
        )?;
        top.into_iter()
            .map(|(key, address)| Ok((self.entity_id(address)?, key.score)))
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
                .tweak_score(self.rank_tweak()),
            Count,
        );
        let (top, total) = self.searcher.search(&query, &collector)?;
        let mut page = SearchPage {
            total,
            hits: Vec::with_capacity(top.len()),
        };
        let vocabulary = Vocabulary::resolve(reader, self.settings)?;
        let mut analyzer = self.analyzer(FOLD);
        for (key, address) in top.into_iter().take(request.limit) {
            let id = self.entity_id(address)?;
            let Some((mut hit, text)) =
                self.hit(reader, &vocabulary, (id, key.score), &request.langs, true)?
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
        let vocabulary = Vocabulary::resolve(reader, self.settings)?;
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
            &TopDocs::with_limit(limit.max(1)).tweak_score(self.rank_tweak()),
        )?;
        let vocabulary = Vocabulary::resolve(reader, self.settings)?;
        let mut hits = Vec::with_capacity(top.len());
        for (key, address) in top {
            let id = self.entity_id(address)?;
            if let Some((hit, _)) = self.hit(reader, &vocabulary, (id, key.score), langs, false)? {
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

    pub(crate) fn entity_id(&self, address: DocAddress) -> Result<TermId, IndexError> {
        let columns = match self.ids.get() {
            Some(columns) => columns,
            None => {
                let columns = self
                    .searcher
                    .segment_readers()
                    .iter()
                    .map(|segment| segment.fast_fields().u64("id"))
                    .collect::<Result<Vec<_>, _>>()?;
                self.ids.get_or_init(|| columns)
            }
        };
        let column = usize::try_from(address.segment_ord)
            .ok()
            .and_then(|i| columns.get(i))
            .ok_or_else(|| IndexError::Corrupt("a hit in an unknown segment".into()))?;
        column
            .first(address.doc_id)
            .map(TermId::from_u64)
            .ok_or_else(|| IndexError::Corrupt("a document without an id".into()))
    }

    /// The score tweak: text score × (1 + rank_weight · ln(1 + weight of use)), the weight of
    /// use as `crate::popularity` defines it (references, √description, entity rank); equal
    /// scores ordered by entity id ([`RankKey`]).
    pub(crate) fn rank_tweak(
        &self,
    ) -> impl Fn(&SegmentReader) -> Box<dyn Fn(tantivy::DocId, f32) -> RankKey> + Send + Sync + 'static
    {
        let weight = self.settings.weights.rank_weight;
        move |segment: &SegmentReader| {
            let column = segment.fast_fields().u64("rank").ok();
            let ids = segment.fast_fields().u64("id").ok();
            Box::new(move |doc, score| {
                let used = from_field(column.as_ref().and_then(|c| c.first(doc)).unwrap_or(0));
                // The +1e-3 lets pure filters (score 0) still order by popularity.
                RankKey::new(
                    (score + 1e-3) * (1.0 + weight * used.ln_1p()),
                    ids.as_ref().and_then(|c| c.first(doc)),
                )
            })
        }
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
