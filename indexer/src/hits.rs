//! Text hits for SPARQL text patterns: the entities a query matches (the same tantivy query
//! and ranking as `/api/search`), each with the literals that contain the words and a
//! snippet, read from the store snapshot the SPARQL query reads.
//!
//! A query may be a disjunction (Virtuoso's `a OR b`): each branch is an ordinary
//! `/api/search` query, an entity matching several keeps its best score. A literal "contains
//! the words" when every part of one branch matches inside that literal alone, with the
//! analysis the index uses (folding, stemming in the literal's own language when it is one of
//! the requested ones, one typo forgiven in words of 5+ letters, prefixes, phrases), so the
//! literals bound are always literals of entities `/api/search` returns.

use crate::analysis::{stem_analyzer_name, stemmed_language, words, FOLD};
use crate::document::text_literal;
use crate::entity::{EntityText, LiteralText};
use crate::error::IndexError;
use crate::hit_order::{entity_of, score_of, Weighing};
use crate::query::{QueryPart, UserQuery};
use crate::search::IndexSearcher;
use crate::snippet::{best_snippet, within_one_edit, Snippet, WordMatcher};
use lodestone_store::model::{Literal, Term};
use lodestone_store::{Reader, TermId, TermKind};
use std::collections::HashMap;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term as IndexTerm};
use tantivy::tokenizer::TextAnalyzer;

/// Entities best first, their scores, and the documents matched (summed over branches).
pub(crate) type Ranked = (Vec<TermId>, HashMap<TermId, f32>, usize);

/// A text query as a SPARQL pattern states it.
#[derive(Debug, Clone)]
pub struct TextRequest {
    /// Alternatives, each an `/api/search` query; an entity matches when one matches.
    pub branches: Vec<UserQuery>,
    /// Languages to stem the words in (empty: English, as `/api/search` without a preference).
    pub langs: Vec<String>,
    /// Only entities with a literal of this property that contains the words (Jena's
    /// `text:query (rdfs:label "word")`).
    pub property: Option<TermId>,
}

/// What each hit must carry besides the entity and its score.
#[derive(Debug, Clone, Copy, Default)]
pub struct HitDetail {
    /// The literals that contain the words.
    pub literals: bool,
    /// The best snippet.
    pub snippet: bool,
}

/// One entity matched by a text pattern.
#[derive(Debug, Clone)]
pub struct TextHit {
    /// The entity (an IRI the snapshot still holds as a subject).
    pub entity: TermId,
    /// Its term.
    pub term: Term,
    /// The combined score, as `/api/search` ranks it.
    pub score: f32,
    /// Its literals that contain the words (of the pattern's property, when it names one),
    /// best first (most query words, then labels); filled when asked for.
    pub literals: Vec<Term>,
    /// The best snippet, when asked for.
    pub snippet: Option<Snippet>,
}

impl IndexSearcher<'_> {
    /// How many index documents match a text request: read from the index alone, before
    /// anything is fetched (entities deleted since the last index commit still count).
    pub fn count_text(&self, request: &TextRequest) -> Result<usize, IndexError> {
        let (queries, _) = self.text_queries(request)?;
        self.count(&queries)
    }

    /// The documents the queries of a request's branches match, summed.
    pub(crate) fn count(&self, queries: &[Box<dyn Query>]) -> Result<usize, IndexError> {
        let mut total = 0usize;
        for query in queries {
            total = total.saturating_add(self.searcher.search(query.as_ref(), &Count)?);
        }
        Ok(total)
    }

    /// The tantivy query of each branch of a request, and the words snippets look for.
    fn text_queries(
        &self,
        request: &TextRequest,
    ) -> Result<(Vec<Box<dyn Query>>, WordMatcher), IndexError> {
        let mut queries = Vec::with_capacity(request.branches.len());
        let mut snippet_words = WordMatcher::default();
        for branch in &request.branches {
            let (query, matcher) = self.text_query(branch, &request.langs)?;
            snippet_words.words.extend(matcher.words);
            snippet_words.prefixes.extend(matcher.prefixes);
            queries.push(query);
        }
        Ok((queries, snippet_words))
    }

    /// The entities matching a text request, best first, read from `reader`: of the best
    /// `limit` documents of each branch, at most `keep` entities; entities the snapshot no
    /// longer holds, and (with a property) entities without a literal of that property
    /// containing the words, are dropped.
    pub fn text_hits(
        &self,
        reader: &Reader<'_>,
        request: &TextRequest,
        (limit, keep): (usize, usize),
        detail: HitDetail,
    ) -> Result<Vec<TextHit>, IndexError> {
        let (queries, snippet_words) = self.text_queries(request)?;
        let (order, scores, _) = self.ranked(&queries, limit)?;
        let mut matchers = request
            .branches
            .iter()
            .map(|branch| LiteralMatcher::new(self, branch, &request.langs))
            .collect::<Vec<_>>();
        let needs_text = detail.literals || detail.snippet || request.property.is_some();
        let vocabulary = self.vocabulary(reader)?;
        let mut analyzer = self.analyzer(FOLD);
        let mut hits = Vec::with_capacity(order.len().min(keep));
        for id in order {
            if hits.len() == keep {
                break;
            }
            let term = reader.term(id)?;
            if !matches!(term, Term::NamedNode(_)) {
                continue;
            }
            let score = scores[&id];
            if !needs_text {
                if reader.usage(id)?.as_subject > 0 {
                    hits.push(TextHit {
                        entity: id,
                        term,
                        score,
                        literals: Vec::new(),
                        snippet: None,
                    });
                }
                continue;
            }
            let text = EntityText::load(reader, &vocabulary, id)?;
            if !text.exists {
                continue;
            }
            let mut literals: Vec<&LiteralText> = text
                .literals
                .iter()
                .filter(|l| request.property.is_none_or(|p| p == l.predicate))
                .filter(|l| {
                    matchers
                        .iter_mut()
                        .any(|m| m.matches(&l.text, l.lang.as_deref()))
                })
                .collect();
            if request.property.is_some() && literals.is_empty() {
                continue;
            }
            let is_label = |p: TermId| text.labels.iter().any(|(l, _)| l.predicate == p);
            literals.sort_by_key(|l| std::cmp::Reverse(is_label(l.predicate)));
            let snippet = if detail.snippet {
                best_snippet(&text.literals, is_label, &snippet_words, &mut analyzer)
            } else {
                None
            };
            hits.push(TextHit {
                entity: id,
                term,
                score,
                literals: if detail.literals {
                    literals.into_iter().map(literal_term).collect()
                } else {
                    Vec::new()
                },
                snippet,
            });
        }
        // The caller's table of them is encoded without looking them up again.
        reader.remember_ids(hits.iter().map(|h| (h.entity, &h.term)));
        Ok(hits)
    }

    /// The ids of the entities matching a text request, best first, of the best `limit`
    /// documents of each branch; without reading their IRIs, their text, or checking that
    /// the snapshot still holds them (for callers that join the entities' triples next, which
    /// drops those it no longer holds).
    pub fn text_entity_ids(
        &self,
        request: &TextRequest,
        limit: usize,
    ) -> Result<Vec<TermId>, IndexError> {
        let (queries, _) = self.text_queries(request)?;
        let (order, _, _) = self.ranked(&queries, limit)?;
        Ok(iris(order))
    }

    /// The entities of the best `limit` documents of each branch's query, best first (an
    /// entity matched by several branches keeps its best score), their scores, and how many
    /// documents the queries match (counted in the same pass).
    pub(crate) fn ranked(
        &self,
        queries: &[Box<dyn Query>],
        limit: usize,
    ) -> Result<Ranked, IndexError> {
        let mut scores: HashMap<TermId, f32> = HashMap::new();
        let mut order = Vec::new();
        let mut count = 0usize;
        for query in queries {
            let (matched, top) = self.searcher.search(
                query.as_ref(),
                &(
                    Count,
                    TopDocs::with_limit(limit.max(1)).order_by(self.hit_order(Weighing::Text)),
                ),
            )?;
            count = count.saturating_add(matched);
            for (key, _) in top {
                let (id, score) = (entity_of(&key)?, score_of(&key));
                let best = scores.entry(id).or_insert_with(|| {
                    order.push(id);
                    score
                });
                *best = best.max(score);
            }
        }
        // Best first; an equal score by entity id, as `/api/search` orders it.
        order.sort_by(|a, b| scores[b].total_cmp(&scores[a]).then(a.cmp(b)));
        Ok((order, scores, count))
    }

    /// Whether the words match the entity with this IRI (what `/api/search` would say), for
    /// text patterns evaluated row by row.
    pub fn matches_entity(&self, iri: &str, request: &TextRequest) -> Result<bool, IndexError> {
        for branch in &request.branches {
            let (query, _) = self.text_query(branch, &request.langs)?;
            let entity = TermQuery::new(
                IndexTerm::from_field_text(self.fields.iri, iri),
                IndexRecordOption::Basic,
            );
            let both =
                BooleanQuery::new(vec![(Occur::Must, query), (Occur::Must, Box::new(entity))]);
            if self.searcher.search(&both, &Count)? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The test "this literal contains the words" of a request, for text patterns evaluated
    /// row by row.
    pub fn literal_filter(&self, request: &TextRequest) -> LiteralFilter {
        LiteralFilter {
            matchers: request
                .branches
                .iter()
                .map(|branch| LiteralMatcher::new(self, branch, &request.langs))
                .collect(),
        }
    }
}

/// Whether single literals contain the words of a text request (see the module's notes).
pub struct LiteralFilter {
    matchers: Vec<LiteralMatcher>,
}

impl LiteralFilter {
    /// Whether the literal contains the words of one of the branches. Terms that carry no
    /// words (IRIs, numbers, dates) never do.
    pub fn matches(&mut self, literal: &Term) -> bool {
        let Some((text, lang)) = text_literal(literal) else {
            return false;
        };
        self.matchers.iter_mut().any(|m| m.matches(text, lang))
    }
}

/// The literal of an entity's text, as a term.
fn literal_term(literal: &LiteralText) -> Term {
    match &literal.lang {
        Some(lang) => Literal::new_language_tagged_literal_unchecked(&literal.text, lang),
        None => Literal::new_simple_literal(&literal.text),
    }
    .into()
}

/// One part of a branch, analyzed.
#[derive(Debug)]
enum Needle {
    /// A folded word, with its stems per stemmed language.
    Word(String, Vec<(&'static str, Vec<String>)>),
    /// Folded words that must all be present, the last as a prefix.
    Prefix(Vec<String>, String),
    /// Folded words next to one another.
    Phrase(Vec<String>),
}

/// The parts of one branch, analyzed once, matched against single literals.
struct LiteralMatcher {
    needles: Vec<Needle>,
    fold: TextAnalyzer,
    stemmers: Vec<(&'static str, TextAnalyzer)>,
}

impl LiteralMatcher {
    fn new(searcher: &IndexSearcher<'_>, query: &UserQuery, langs: &[String]) -> Self {
        let mut fold = searcher.analyzer(FOLD);
        let mut stemmers: Vec<(&'static str, TextAnalyzer)> = Vec::new();
        let wanted: Vec<&str> = if langs.is_empty() {
            vec!["en"]
        } else {
            langs.iter().map(String::as_str).collect()
        };
        for code in wanted.into_iter().filter_map(stemmed_language) {
            if !stemmers.iter().any(|(c, _)| *c == code) {
                stemmers.push((code, searcher.analyzer(&stem_analyzer_name(code))));
            }
        }
        let mut needles = Vec::new();
        for part in query.parts() {
            match part {
                QueryPart::Word(raw) => {
                    let tokens = words(&mut fold, raw);
                    if tokens.len() > 1 {
                        needles.push(Needle::Phrase(tokens));
                    } else if let Some(token) = tokens.into_iter().next() {
                        let stems = stemmers
                            .iter_mut()
                            .map(|(code, stemmer)| (*code, words(stemmer, raw)))
                            .collect();
                        needles.push(Needle::Word(token, stems));
                    }
                }
                QueryPart::Prefix(raw) => {
                    let mut tokens = words(&mut fold, raw);
                    if let Some(last) = tokens.pop() {
                        needles.push(Needle::Prefix(tokens, last));
                    }
                }
                QueryPart::Phrase(raw) => {
                    let tokens = words(&mut fold, raw);
                    if !tokens.is_empty() {
                        needles.push(Needle::Phrase(tokens));
                    }
                }
            }
        }
        Self {
            needles,
            fold,
            stemmers,
        }
    }

    /// Whether every part matches inside this one text.
    fn matches(&mut self, text: &str, lang: Option<&str>) -> bool {
        if self.needles.is_empty() {
            return false;
        }
        let tokens = words(&mut self.fold, text);
        let stemmed: Option<(&str, Vec<String>)> = lang.and_then(stemmed_language).and_then(|c| {
            self.stemmers
                .iter_mut()
                .find(|(code, _)| *code == c)
                .map(|(code, stemmer)| (*code, words(stemmer, text)))
        });
        self.needles.iter().all(|needle| match needle {
            Needle::Word(word, stems) => {
                tokens
                    .iter()
                    .any(|t| t == word || (word.chars().count() >= 5 && within_one_edit(word, t)))
                    || stemmed.as_ref().is_some_and(|(code, literal_stems)| {
                        stems
                            .iter()
                            .filter(|(c, _)| c == code)
                            .any(|(_, s)| s.iter().any(|s| literal_stems.contains(s)))
                    })
            }
            Needle::Prefix(before, prefix) => {
                before.iter().all(|w| tokens.contains(w))
                    && tokens.iter().any(|t| t.starts_with(prefix.as_str()))
            }
            Needle::Phrase(phrase) => tokens.windows(phrase.len()).any(|w| w == phrase.as_slice()),
        })
    }
}

/// The ids of IRIs among `ids`, in order (documents are only made for IRIs).
pub(crate) fn iris(ids: Vec<TermId>) -> Vec<TermId> {
    ids.into_iter()
        .filter(|id| id.kind() == TermKind::Iri)
        .collect()
}
