//! Full-text constraints: the [`TextMatcher`] seam and the store-scanning matcher.
//!
//! The facet engine asks a matcher for the entities whose text matches some words, with a
//! score. Two implementations are meant to exist:
//! - [`LiteralScanMatcher`] (here): scans the store's literals. An entity matches when one of
//!   its literal values contains every word, case-insensitively, as a substring — exactly
//!   `?e ?p ?o FILTER(isLiteral(?o) && CONTAINS(LCASE(STR(?o)), "w1") && …)` in SPARQL, which
//!   is the pattern [`TextMatcher::equivalent_pattern`] gives, so property tests can compare
//!   it with `/sparql`. It costs a scan of the store and suits small stores and tests.
//! - the tantivy index of `lodestone-indexer` (wired in by the server when the index exists):
//!   its `matching_entities(query, limit)` fits [`TextMatcher::matching_entities`] as is; its
//!   equivalent pattern is then an approximation (the index tokenizes and stems), which the
//!   implementation must say in its [`TextMatcher::equivalent_pattern`] doc.

use crate::budget::{Deadline, Ticker};
use crate::error::EngineError;
use crate::model::text_words;
use lodestone_store::{Reader, TermId, TermKind};
use oxrdf::{Literal, Term, Variable};
use rustc_hash::FxHashMap;
use spargebra::algebra::{Expression, Function, GraphPattern};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};

/// Entities matching a text query.
#[derive(Debug, Clone, Default)]
pub struct TextMatches {
    /// Matching entities with their scores, best first.
    pub hits: Vec<(TermId, f32)>,
    /// Whether every match is in `hits` (not cut by the limit or the deadline).
    pub complete: bool,
}

/// Finds entities by text; the engine's only access to full-text search.
pub trait TextMatcher: Send + Sync {
    /// Entities whose text matches `query`, best first, at most `limit`, stopping at
    /// `deadline` (then `complete` is false).
    fn matching_entities(
        &self,
        reader: &Reader<'_>,
        query: &str,
        limit: usize,
        deadline: Deadline,
    ) -> Result<TextMatches, EngineError>;

    /// The SPARQL pattern binding `entity` to the entities `query` matches; `fresh` names
    /// helper variables so that they do not clash with the rest of the query.
    fn equivalent_pattern(
        &self,
        entity: &Variable,
        query: &str,
        fresh: &mut dyn FnMut(&str) -> Variable,
    ) -> GraphPattern;

    /// The SPARQL pattern binding `entity` to the entities `query` matches and `score` to the
    /// score the entities view ranks them by, so that the SPARQL of a ranked list can be
    /// ordered as the list is; `None` when there is no such pattern (the list's SPARQL is then
    /// unordered).
    fn ranked_pattern(
        &self,
        _entity: &Variable,
        _query: &str,
        _score: &Variable,
    ) -> Option<GraphPattern> {
        None
    }
}

/// Matches by scanning every quad with a literal object (see the module documentation).
#[derive(Debug, Default, Clone, Copy)]
pub struct LiteralScanMatcher;

/// Whether a term is a literal containing every word (lowercase, from
/// [`text_words`]) as a substring, ignoring case: the scan matcher's rule, which the `contains`
/// condition and the excerpts of text rows apply too.
pub fn literal_contains_words(term: &Term, words: &[String]) -> bool {
    let Term::Literal(literal) = term else {
        return false;
    };
    let text = literal.value().to_lowercase();
    words.iter().all(|w| text.contains(w.as_str()))
}

/// Whether an id is a literal (dictionary or inlined).
pub fn is_literal_id(id: TermId) -> bool {
    matches!(
        id.kind(),
        TermKind::Literal | TermKind::Integer | TermKind::Boolean
    )
}

impl TextMatcher for LiteralScanMatcher {
    fn matching_entities(
        &self,
        reader: &Reader<'_>,
        query: &str,
        limit: usize,
        deadline: Deadline,
    ) -> Result<TextMatches, EngineError> {
        let words = text_words(query);
        if words.is_empty() {
            return Ok(TextMatches::default());
        }
        let mut literal_verdicts: FxHashMap<TermId, bool> = FxHashMap::default();
        let mut scores: FxHashMap<TermId, f32> = FxHashMap::default();
        let mut ticker = Ticker::new(deadline);
        let mut complete = true;
        for quad in reader.quads_for_pattern(None, None, None, None) {
            if let Err(EngineError::OutOfTime) = ticker.tick() {
                complete = false;
                break;
            }
            let quad = quad.map_err(EngineError::Store)?;
            if !is_literal_id(quad.object) {
                continue;
            }
            let matches = match literal_verdicts.get(&quad.object) {
                Some(v) => *v,
                None => {
                    let v = literal_contains_words(&reader.term(quad.object)?, &words);
                    literal_verdicts.insert(quad.object, v);
                    v
                }
            };
            if matches {
                *scores.entry(quad.subject).or_default() += 1.0;
            }
        }
        let mut hits: Vec<(TermId, f32)> = scores.into_iter().collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if hits.len() > limit {
            hits.truncate(limit);
            complete = false;
        }
        Ok(TextMatches { hits, complete })
    }

    fn equivalent_pattern(
        &self,
        entity: &Variable,
        query: &str,
        fresh: &mut dyn FnMut(&str) -> Variable,
    ) -> GraphPattern {
        let predicate = fresh("textp");
        let object = fresh("text");
        let triple = TriplePattern {
            subject: TermPattern::Variable(entity.clone()),
            predicate: NamedNodePattern::Variable(predicate),
            object: TermPattern::Variable(object.clone()),
        };
        let lowered = Expression::FunctionCall(
            Function::LCase,
            vec![Expression::FunctionCall(
                Function::Str,
                vec![Expression::Variable(object.clone())],
            )],
        );
        let condition = text_words(query).into_iter().fold(
            Expression::FunctionCall(Function::IsLiteral, vec![Expression::Variable(object)]),
            |acc, word| {
                Expression::And(
                    Box::new(acc),
                    Box::new(Expression::FunctionCall(
                        Function::Contains,
                        vec![lowered.clone(), Expression::Literal(Literal::from(word))],
                    )),
                )
            },
        );
        GraphPattern::Filter {
            expr: condition,
            inner: Box::new(GraphPattern::Bgp {
                patterns: vec![triple],
            }),
        }
    }
}
