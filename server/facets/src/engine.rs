//! The facet engine: plan → focus set → view → labels, with a cache of complete answers.
//!
//! Views the statistics decide skip the focus set: the start views ([`start`]) and the
//! `properties` / `properties-in` views of one class's instances ([`class_focus`]), and a
//! `ranges` view of a class whose instances hold every subject of the property reads the
//! property's quads without listing them.
//!
//! Answers are cached (moka) under the query and the store's commit sequence, so a commit
//! makes every older entry unreachable; only complete answers are cached, since an
//! incomplete one depends on the machine's load at the time.

use crate::budget::Deadline;
use crate::class_focus;
use crate::error::EngineError;
use crate::executor::Executor;
use crate::labels::Labels;
use crate::model::{text_words, FacetQuery, Node, View, ViewKind};
use crate::planner::plan;
use crate::range_values::Entities;
use crate::ranges::{self, Bucket};
use crate::response::{FacetAnswer, Row, TextMatch};
use crate::snippets;
use crate::sparql::{equivalent_query, in_graph};
use crate::start::{self, StartRows};
use crate::text::{LiteralScanMatcher, TextMatcher};
use crate::views::{self, Scope};
use lodestone_store::{SequenceNumber, Store};
use lodestone_vocab::labels::DEFAULT_LABEL_PROPERTIES;
use moka::sync::Cache;
use oxrdf::Term;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Answers kept in the cache.
const CACHE_ENTRIES: u64 = 1_000;

/// Share of the budget given to finding the focus set; the rest is for the view.
const FOCUS_SHARE: f64 = 0.8;

/// The facet engine of a server.
#[derive(Clone)]
pub struct FacetEngine {
    matcher: Arc<RwLock<Arc<dyn TextMatcher>>>,
    cache: Cache<(FacetQuery, SequenceNumber), Arc<FacetAnswer>>,
    /// The label properties, most preferred first (the server's `--label-properties`).
    label_properties: Arc<[String]>,
}

impl Default for FacetEngine {
    fn default() -> Self {
        Self::new(Arc::new(LiteralScanMatcher))
    }
}

impl FacetEngine {
    /// An engine using `matcher` for text constraints.
    pub fn new(matcher: Arc<dyn TextMatcher>) -> Self {
        Self {
            matcher: Arc::new(RwLock::new(matcher)),
            cache: Cache::new(CACHE_ENTRIES),
            label_properties: DEFAULT_LABEL_PROPERTIES
                .iter()
                .map(|&p| p.to_owned())
                .collect(),
        }
    }

    /// The same engine labelling terms by `properties` (absolute IRIs, most preferred first;
    /// then, as everywhere, a property named `name`, `label` or `title` in any namespace)
    /// instead of the default label properties, with an empty cache.
    pub fn with_label_properties(self, properties: Vec<String>) -> Self {
        Self {
            label_properties: properties.into(),
            ..Self::new(self.matcher())
        }
    }

    /// Switches to another text matcher (the text index, once the server has opened it) and
    /// forgets every cached answer.
    pub fn set_matcher(&self, matcher: Arc<dyn TextMatcher>) {
        *self.matcher.write().unwrap_or_else(|e| e.into_inner()) = matcher;
        self.cache.invalidate_all();
    }

    fn matcher(&self) -> Arc<dyn TextMatcher> {
        Arc::clone(&self.matcher.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The same engine with another text matcher (e.g. the text index), and an empty cache.
    pub fn with_matcher(self, matcher: Arc<dyn TextMatcher>) -> Self {
        Self {
            label_properties: self.label_properties,
            ..Self::new(matcher)
        }
    }

    /// Answers a validated query within `budget`. Blocking.
    pub fn answer(
        &self,
        store: &Store,
        query: &FacetQuery,
        budget: Duration,
    ) -> Result<Arc<FacetAnswer>, EngineError> {
        let start = Instant::now();
        let reader = store.reader();
        let sequence = reader.sequence()?;
        let key = (query.clone(), sequence);
        if let Some(hit) = self.cache.get(&key) {
            return Ok(hit);
        }
        let answer = Arc::new(self.compute(&reader, query, budget, start)?);
        if answer.complete {
            self.cache.insert(key, Arc::clone(&answer));
        }
        Ok(answer)
    }

    /// Answers without reading or filling the cache (benchmarks). Blocking.
    pub fn answer_uncached(
        &self,
        store: &Store,
        query: &FacetQuery,
        budget: Duration,
    ) -> Result<FacetAnswer, EngineError> {
        let start = Instant::now();
        self.compute(&store.reader(), query, budget, start)
    }

    fn compute(
        &self,
        reader: &lodestone_store::Reader<'_>,
        query: &FacetQuery,
        budget: Duration,
        start: Instant,
    ) -> Result<FacetAnswer, EngineError> {
        let view = query.view().cloned().ok_or(EngineError::NoView)?;
        let matcher = self.matcher();
        let sparql = |buckets: &[Bucket]| {
            equivalent_query(query, matcher.as_ref(), buckets)
                .map(|q| in_graph(q, query.graph.as_ref()).to_string())
                .unwrap_or_default()
        };
        if let Some(start_view) = start::start_view(reader, query)? {
            let found = start::rows(reader, start_view)?;
            return self.answer_from_statistics(reader, &view, found, start, budget, sparql(&[]));
        }
        let class_focus = class_focus::class_focus(reader, query)?;
        if let Some(focus) = class_focus {
            if let Some(found) = class_focus::rows(reader, focus, view.kind)? {
                return self.answer_from_statistics(
                    reader,
                    &view,
                    found,
                    start,
                    budget,
                    sparql(&[]),
                );
            }
        }
        let plan = plan(reader, query)?;
        let focus_deadline = Deadline::at(start + budget.mul_f64(FOCUS_SHARE));
        let deadline = Deadline::at(start + budget);
        let property = match &view.property {
            Some(p) => reader.term_id(p.as_ref().into())?,
            None => None,
        };
        if view.kind == ViewKind::Ranges {
            // A class whose instances hold every subject of the property: its quads are read
            // without listing the instances.
            let covering = match (class_focus, property) {
                (Some(focus), Some(p)) if class_focus::covers(reader, focus, p)? => Some(focus),
                _ => None,
            };
            let (ranges, focus_size) = match covering {
                Some(focus) => (
                    ranges::compute(
                        reader,
                        Entities::EverySubject,
                        property,
                        view.buckets,
                        plan.graph,
                        deadline,
                    )?,
                    focus.instances,
                ),
                None => {
                    let mut executor =
                        Executor::new(reader, matcher.as_ref(), &plan, focus_deadline);
                    let focus = executor.focus_set(&plan)?;
                    let entities = Entities::Focus(&focus);
                    let ranges = ranges::compute(
                        reader,
                        entities,
                        property,
                        view.buckets,
                        plan.graph,
                        deadline,
                    )?;
                    (ranges, focus.members.len() as u64)
                }
            };
            let buckets: Vec<Bucket> = ranges.buckets.iter().map(|(b, _)| b.clone()).collect();
            let sparql = sparql(&buckets);
            let total = ranges.buckets.len() as u64;
            let rows = ranges
                .buckets
                .into_iter()
                .skip(view.offset)
                .take(view.limit)
                .map(|(bucket, count)| Row {
                    value: bucket.lower.clone().into(),
                    label: bucket.label(),
                    count: Some(count),
                    score: None,
                    bucket: Some(bucket),
                    text: None,
                })
                .collect();
            let mut answer = answer(&view, ranges.complete, start, total, budget, sparql, rows);
            answer.focus_size = focus_size;
            return Ok(answer);
        }
        let mut executor = Executor::new(reader, matcher.as_ref(), &plan, focus_deadline);
        let focus = executor.focus_set(&plan)?;
        let focus_size = focus.members.len() as u64;
        let sparql = sparql(&[]);
        let words = focus_words(&query.root);
        let scope = Scope {
            property,
            rdf_type: plan.rdf_type,
            graph: plan.graph,
            words: &words,
        };
        let page = views::compute(reader, &focus, &view, scope, deadline)?;
        let labels = Labels::new(reader, &self.label_properties)?;
        let mut rows = Vec::with_capacity(page.rows.len());
        for (id, figure) in page.rows {
            let value = reader.term(id)?;
            let label = labels.label(reader, id, &value)?;
            let (count, score) = if view.kind == ViewKind::Entities {
                (None, Some(figure))
            } else {
                // The figures of the counting views are whole counts made from `u64`s.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                (Some(figure as u64), None)
            };
            let text = if view.kind == ViewKind::Entities {
                let score = focus.scores.as_ref().and_then(|s| s.get(&id).copied());
                Some(text_match(
                    reader,
                    id,
                    &words,
                    plan.graph,
                    score.unwrap_or(0.0),
                )?)
            } else {
                None
            };
            rows.push(Row {
                value,
                label,
                count,
                score,
                bucket: None,
                text,
            });
        }
        let mut answer = answer(
            &view,
            page.complete,
            start,
            page.total,
            budget,
            sparql,
            rows,
        );
        answer.focus_size = focus_size;
        answer.sample = page.sample;
        Ok(answer)
    }
}

impl FacetEngine {
    /// The answer of a view the statistics decide (complete and exact), labelled.
    fn answer_from_statistics(
        &self,
        reader: &lodestone_store::Reader<'_>,
        view: &View,
        found: StartRows,
        start: Instant,
        budget: Duration,
        sparql: String,
    ) -> Result<FacetAnswer, EngineError> {
        let total = found.rows.len() as u64;
        let labels = Labels::new(reader, &self.label_properties)?;
        let mut rows = Vec::with_capacity(view.limit.min(found.rows.len()));
        for (id, count) in found.rows.into_iter().skip(view.offset).take(view.limit) {
            let value = reader.term(id)?;
            rows.push(Row {
                label: labels.label(reader, id, &value)?,
                value,
                count: Some(count),
                score: None,
                bucket: None,
                text: None,
            });
        }
        let mut answer = answer(view, true, start, total, budget, sparql, rows);
        answer.focus_size = found.focus_size;
        Ok(answer)
    }
}

/// The words of the text on the node that carries the view.
fn focus_words(node: &Node) -> Vec<String> {
    fn focus(node: &Node) -> Option<&Node> {
        if node.view.is_some() {
            return Some(node);
        }
        node.edges.iter().find_map(|e| focus(&e.node))
    }
    focus(node)
        .and_then(|n| n.text.as_deref())
        .map(text_words)
        .unwrap_or_default()
}

/// The scores, graph and excerpt of an entity that matched the text.
fn text_match(
    reader: &lodestone_store::Reader<'_>,
    entity: lodestone_store::TermId,
    words: &[String],
    graph: Option<lodestone_store::TermId>,
    text_score: f32,
) -> Result<TextMatch, EngineError> {
    let in_degree = reader.usage(entity)?.as_object;
    #[allow(clippy::cast_precision_loss)] // a rank: precision past 2^52 links is irrelevant
    let entity_rank = (1.0 + in_degree as f64).ln();
    let first = snippets::matching_literals(reader, entity, words, graph, 1)?
        .into_iter()
        .next();
    let (graph, excerpt) = match first {
        Some((quad, Term::Literal(literal))) => {
            let graph = if quad.graph.is_default_graph() {
                None
            } else {
                Some(reader.term(quad.graph)?)
            };
            (graph, snippets::excerpt(literal.value(), words))
        }
        _ => (None, String::new()),
    };
    Ok(TextMatch {
        text_score: f64::from(text_score),
        entity_rank,
        graph,
        excerpt,
    })
}

/// An answer timed from `start`.
fn answer(
    view: &View,
    complete: bool,
    start: Instant,
    total: u64,
    budget: Duration,
    sparql: String,
    rows: Vec<Row>,
) -> FacetAnswer {
    FacetAnswer {
        view: view.kind,
        complete,
        time_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
        total,
        timeout_ms: u64::try_from(budget.as_millis()).unwrap_or(u64::MAX),
        sparql,
        rows,
        focus_size: 0,
        sample: None,
    }
}
