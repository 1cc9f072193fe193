//! Full-text matching through the text index, said the same way in two places: as the facet
//! engine's [`TextMatcher`], and as the SPARQL extension function
//! `<urn:lodestone:fn:textMatch>(?entity, "words")`, so that the equivalent SPARQL of a facet
//! query with text gives the same rows at `/sparql` as the facet engine does.
//!
//! Both ask the index for every entity matching the words (the `/api/search` syntax: stemming,
//! phrases, prefixes) and keep those that are still the subject of a quad in the snapshot being
//! read. An entity committed but not yet indexed (the follower runs within a second of each
//! commit) is missing from both alike.

use crate::text_sparql::LODESTONE;
use lodestone_facets::budget::Deadline;
use lodestone_facets::{EngineError, TextMatcher, TextMatches};
use lodestone_indexer::TextIndex;
use lodestone_store::sparql::CustomFunction;
use lodestone_store::{Reader, Store, TermId};
use oxrdf::{BlankNode, Literal, NamedNode, Term, Variable};
use rustc_hash::FxHashSet;
use spargebra::algebra::{Expression, Function, GraphPattern};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// IRI of the SPARQL extension function `textMatch(?entity, "words") → xsd:boolean`.
pub const TEXT_MATCH_FUNCTION: &str = "urn:lodestone:fn:textMatch";

/// Distinct word queries whose matching entities the SPARQL function keeps at once.
const FUNCTION_CACHE_ENTRIES: usize = 32;

/// The text index as the facet engine's text matcher.
pub struct IndexTextMatcher {
    index: Arc<TextIndex>,
}

impl IndexTextMatcher {
    /// A matcher over an index.
    pub fn new(index: Arc<TextIndex>) -> Self {
        Self { index }
    }
}

/// Every entity of `reader`'s snapshot matching `query` in the index, best first, at most
/// `limit`; the flag says whether the limit cut the list.
fn matching(
    index: &TextIndex,
    reader: &Reader<'_>,
    query: &str,
    limit: usize,
) -> Result<(Vec<(TermId, f32)>, bool), EngineError> {
    let everything = usize::try_from(index.document_count())
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let hits = index
        .searcher()
        .matching_entities(query, everything.min(limit.saturating_add(1)))
        .map_err(|e| EngineError::Text(e.to_string()))?;
    let mut live = Vec::with_capacity(hits.len().min(limit));
    for (entity, score) in hits {
        if reader.usage(entity)?.as_subject > 0 {
            live.push((entity, score));
        }
    }
    let complete = live.len() <= limit;
    live.truncate(limit);
    Ok((live, complete))
}

impl TextMatcher for IndexTextMatcher {
    fn matching_entities(
        &self,
        reader: &Reader<'_>,
        query: &str,
        limit: usize,
        deadline: Deadline,
    ) -> Result<TextMatches, EngineError> {
        let (hits, complete) = matching(&self.index, reader, query, limit)?;
        if deadline.passed() {
            return Err(EngineError::OutOfTime);
        }
        Ok(TextMatches { hits, complete })
    }

    /// `?entity ?p ?o FILTER(<urn:lodestone:fn:textMatch>(?entity, "words"))`: exact at
    /// `/sparql` of a server with a text index (the function is registered there).
    fn equivalent_pattern(
        &self,
        entity: &Variable,
        query: &str,
        fresh: &mut dyn FnMut(&str) -> Variable,
    ) -> GraphPattern {
        let triple = TriplePattern {
            subject: TermPattern::Variable(entity.clone()),
            predicate: NamedNodePattern::Variable(fresh("textp")),
            object: TermPattern::Variable(fresh("text")),
        };
        GraphPattern::Filter {
            expr: Expression::FunctionCall(
                Function::Custom(NamedNode::new_unchecked(TEXT_MATCH_FUNCTION)),
                vec![
                    Expression::Variable(entity.clone()),
                    Expression::Literal(Literal::from(query)),
                ],
            ),
            inner: Box::new(GraphPattern::Bgp {
                patterns: vec![triple],
            }),
        }
    }

    /// `?entity lodestone:text [ lodestone:query "words"; lodestone:score ?score ]`: the
    /// index's hits with the scores the entities view ranks by (see `crate::text_sparql`).
    fn ranked_pattern(
        &self,
        entity: &Variable,
        query: &str,
        score: &Variable,
    ) -> Option<GraphPattern> {
        let node = TermPattern::BlankNode(BlankNode::new_unchecked("text"));
        let name = |local: &str| {
            NamedNodePattern::NamedNode(NamedNode::new_unchecked(format!("{LODESTONE}{local}")))
        };
        let triple = |subject, predicate, object| TriplePattern {
            subject,
            predicate,
            object,
        };
        Some(GraphPattern::Bgp {
            patterns: vec![
                triple(
                    TermPattern::Variable(entity.clone()),
                    name("text"),
                    node.clone(),
                ),
                triple(
                    node.clone(),
                    name("query"),
                    TermPattern::Literal(Literal::from(query)),
                ),
                triple(node, name("score"), TermPattern::Variable(score.clone())),
            ],
        })
    }
}

/// The SPARQL extension function over an index: true when the first argument is an entity the
/// words of the second match, false for any other term, an error (unbound) for words that are
/// not a valid query.
pub fn sparql_function(store: Arc<Store>, index: Arc<TextIndex>) -> (NamedNode, CustomFunction) {
    type Matches = Arc<FxHashSet<Term>>;
    let cache: Mutex<HashMap<(String, u64), Matches>> = Mutex::new(HashMap::new());
    let function = move |args: &[Term]| -> Option<Term> {
        let [entity, Term::Literal(words)] = args else {
            return None;
        };
        let key = (
            words.value().to_owned(),
            index.applied().unwrap_or_default(),
        );
        let cached = cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        let matches = match cached {
            Some(matches) => matches,
            None => {
                let reader = store.reader();
                let (hits, _) = matching(&index, &reader, words.value(), usize::MAX - 1).ok()?;
                let terms = hits
                    .into_iter()
                    .map(|(id, _)| reader.term(id))
                    .collect::<Result<FxHashSet<Term>, _>>()
                    .ok()?;
                let matches = Arc::new(terms);
                let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
                if cache.len() >= FUNCTION_CACHE_ENTRIES {
                    cache.clear();
                }
                cache.insert(key, Arc::clone(&matches));
                matches
            }
        };
        Some(Literal::from(matches.contains(entity)).into())
    };
    (
        NamedNode::new_unchecked(TEXT_MATCH_FUNCTION),
        Arc::new(function),
    )
}
