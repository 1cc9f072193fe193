//! Computes the set of focus terms of a plan, on internal ids.
//!
//! For a node, the cheapest *generator* is picked from the store's statistics (a text match,
//! `eq`/`in` values, the instances of a required class, the neighbours through a required
//! edge — estimated by `class_instances` and the predicate's usage count); its candidates are
//! then checked against every other constraint of the node by short index look-ups
//! ([`Executor::satisfies`], memoised per node and term). Nothing is decoded except literals
//! under an order or language condition.
//!
//! The focus node's own generator gets half of the focus budget: past it, the candidates
//! listed so far are kept (a class's first instances, a property's first subjects, the
//! neighbours of the first terms of a constrained neighbour set), so the set is a part of the
//! true one and every count made from it a lower bound. A generator through a constrained
//! edge lists the neighbour node's set in half of its own time and then the terms linked to
//! it, keeping what each step listed by its deadline: every term kept satisfies the edge. Running out of
//! time while checking the candidates keeps the ones accepted so far; either way the set is
//! marked incomplete. Running out while checking a term against a neighbour (no generator
//! involved) gives an empty incomplete set.

use crate::budget::{Deadline, Ticker};
use crate::compare::compare;
use crate::error::EngineError;
use crate::model::text_words;
use crate::planner::{Condition, Plan, PlanEdge, PlanNode};
use crate::scan::{self, End};
use crate::snippets;
use crate::text::{is_literal_id, literal_contains_words, TextMatcher};
use lodestone_store::{Reader, TermId};
use oxrdf::Term;
use rustc_hash::{FxHashMap, FxHashSet};

/// The most text matches asked of the matcher for one node.
pub const TEXT_MATCH_LIMIT: usize = 1_000_000;

/// The focus terms of a query.
#[derive(Debug, Default)]
pub struct FocusSet {
    /// The terms, in id order.
    pub members: Vec<TermId>,
    /// Text scores of the members, when the focus node has text.
    pub scores: Option<FxHashMap<TermId, f32>>,
    /// Whether every term is there.
    pub complete: bool,
}

/// The constraint a node's candidates come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Generator {
    Text,
    Value(usize),
    Class(usize),
    Edge(usize),
    AllSubjects,
}

/// Text matches of a node.
struct TextSet {
    scores: FxHashMap<TermId, f32>,
}

/// One request's evaluation state.
pub struct Executor<'a, 'r, 'db> {
    reader: &'r Reader<'db>,
    matcher: &'a dyn TextMatcher,
    rdf_type: Option<TermId>,
    graph: Option<TermId>,
    deadline: Deadline,
    ticker: Ticker,
    texts: FxHashMap<usize, TextSet>,
    memo: FxHashMap<(usize, TermId), bool>,
    /// Cleared when a text match was cut short (by its limit or time), or when the focus
    /// node's generator listed only part of its candidates.
    complete: bool,
    /// Whether the generator being run may stop at the deadline with what it has listed
    /// (the focus node's own generator only).
    partial: bool,
}

impl<'a, 'r, 'db> Executor<'a, 'r, 'db> {
    /// An executor over a reader, stopping at `deadline`.
    pub fn new(
        reader: &'r Reader<'db>,
        matcher: &'a dyn TextMatcher,
        plan: &Plan,
        deadline: Deadline,
    ) -> Self {
        Self {
            reader,
            matcher,
            rdf_type: plan.rdf_type,
            graph: plan.graph,
            deadline,
            ticker: Ticker::new(deadline),
            texts: FxHashMap::default(),
            memo: FxHashMap::default(),
            complete: true,
            partial: false,
        }
    }

    /// The focus set of a plan.
    pub fn focus_set(&mut self, plan: &Plan) -> Result<FocusSet, EngineError> {
        let node = &plan.focus;
        if plan.unknown_graph {
            return Ok(FocusSet {
                complete: true,
                ..FocusSet::default()
            });
        }
        let (generator, candidates) = match self.generate_focus(node) {
            Ok(g) => g,
            Err(EngineError::OutOfTime) => return Ok(FocusSet::default()),
            Err(e) => return Err(e),
        };
        let mut members = Vec::new();
        let mut complete = self.complete;
        for x in candidates {
            match self.satisfies_except(node, x, Some(generator)) {
                Ok(true) => members.push(x),
                Ok(false) => {}
                Err(EngineError::OutOfTime) => {
                    complete = false;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        members.sort_unstable();
        let scores = node.text.as_ref().and_then(|_| {
            self.texts.remove(&node.key).map(|t| {
                members
                    .iter()
                    .map(|m| (*m, t.scores.get(m).copied().unwrap_or(0.0)))
                    .collect()
            })
        });
        Ok(FocusSet {
            members,
            scores,
            complete: complete && self.complete,
        })
    }

    /// The focus node's candidates, listed until half of the focus budget is spent (see the
    /// module's notes), so that the rest of it checks them.
    fn generate_focus(&mut self, node: &PlanNode) -> Result<(Generator, Vec<TermId>), EngineError> {
        let now = std::time::Instant::now();
        let half = self.deadline.instant().saturating_duration_since(now) / 2;
        let full = std::mem::replace(&mut self.ticker, Ticker::new(Deadline::at(now + half)));
        self.partial = true;
        let generated = self.generate(node);
        self.partial = false;
        self.ticker = full;
        generated
    }

    /// The terms of a neighbour node (every constraint applied), listed to generate the
    /// terms linked to them. Within the focus node's generator ([`Executor::partial`]) the
    /// listing gets half of the generator's time left and keeps what it listed by then (a
    /// part of the set, so the terms linked to it are a part of the generator's), marking
    /// the answer incomplete; elsewhere running out of time is an error.
    fn node_set(&mut self, node: &PlanNode) -> Result<Vec<TermId>, EngineError> {
        if !self.partial {
            let (generator, candidates) = self.generate(node)?;
            let mut out = Vec::new();
            for x in candidates {
                if self.satisfies_except(node, x, Some(generator))? {
                    out.push(x);
                }
            }
            return Ok(out);
        }
        let now = std::time::Instant::now();
        let half = self
            .ticker
            .deadline()
            .instant()
            .saturating_duration_since(now)
            / 2;
        let outer = std::mem::replace(&mut self.ticker, Ticker::new(Deadline::at(now + half)));
        let listed = self.generate(node).and_then(|(generator, candidates)| {
            let mut out = Vec::new();
            for x in candidates {
                match self.satisfies_except(node, x, Some(generator)) {
                    Ok(true) => out.push(x),
                    Ok(false) => {}
                    Err(EngineError::OutOfTime) => {
                        self.complete = false;
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok(out)
        });
        self.ticker = outer;
        listed
    }

    /// Counts a step of the focus node's generator: `Ok(true)` once its time is up (the
    /// answer is then marked incomplete and the caller keeps what it listed), `Ok(false)`
    /// to go on; outside the generator running out of time is an error.
    fn generator_stops(&mut self) -> Result<bool, EngineError> {
        match self.ticker.tick() {
            Ok(()) => Ok(false),
            Err(EngineError::OutOfTime) if self.partial => {
                self.complete = false;
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether `x` satisfies `node`, for a generator: `None` once the generator's time is up
    /// (see [`Executor::generator_stops`]).
    fn generator_satisfies(
        &mut self,
        node: &PlanNode,
        x: TermId,
    ) -> Result<Option<bool>, EngineError> {
        match self.satisfies(node, x) {
            Ok(v) => Ok(Some(v)),
            Err(EngineError::OutOfTime) if self.partial => {
                self.complete = false;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Estimated number of candidates of the cheapest generator, `u64::MAX` with none.
    fn estimate(&self, node: &PlanNode) -> Result<(u64, Option<Generator>), EngineError> {
        let mut best: (u64, Option<Generator>) = (u64::MAX, None);
        let mut consider = |cost: u64, g: Generator| {
            if best.1.is_none() || cost < best.0 {
                best = (cost, Some(g));
            }
        };
        if node.text.is_some() {
            // The text set is needed for the membership checks anyway: use it when nothing
            // is certainly smaller.
            consider(
                self.texts
                    .get(&node.key)
                    .map_or(10_000, |t| t.scores.len() as u64),
                Generator::Text,
            );
        }
        for (i, value) in node.values.iter().enumerate() {
            match value {
                Condition::Eq(id) => consider(u64::from(id.is_some()), Generator::Value(i)),
                Condition::In(ids) => consider(ids.len() as u64, Generator::Value(i)),
                _ => {}
            }
        }
        for (i, (class, exclude)) in node.classes.iter().enumerate() {
            if !exclude {
                let count = match class {
                    Some(c) => self.reader.class_instances(*c)?,
                    None => 0,
                };
                consider(count, Generator::Class(i));
            }
        }
        for (i, edge) in node.edges.iter().enumerate() {
            if !edge.exclude {
                let mut count = match edge.property {
                    Some(p) => self.reader.usage(p)?.as_predicate,
                    None => 0,
                };
                if edge.node.is_constrained() && self.estimate(&edge.node)?.1.is_some() {
                    count = count.min(self.estimate(&edge.node)?.0);
                }
                consider(count, Generator::Edge(i));
            }
        }
        if best.1.is_none() && node.subject_domain {
            best = (u64::MAX, Some(Generator::AllSubjects));
        }
        Ok(best)
    }

    /// The candidates of a node's cheapest generator.
    fn generate(&mut self, node: &PlanNode) -> Result<(Generator, Vec<TermId>), EngineError> {
        let Some(generator) = self.estimate(node)?.1 else {
            // Only reachable for a node with no constraint that is not the root, which the
            // engine never generates (such nodes are only checked); nothing to list.
            return Ok((Generator::AllSubjects, Vec::new()));
        };
        let candidates = match generator {
            Generator::Text => {
                self.ensure_text(node)?;
                let mut ids: Vec<TermId> = self
                    .texts
                    .get(&node.key)
                    .map(|t| t.scores.keys().copied().collect())
                    .unwrap_or_default();
                ids.sort_unstable();
                ids
            }
            Generator::Value(i) => match node.values.get(i) {
                Some(Condition::Eq(Some(id))) => vec![*id],
                Some(Condition::In(ids)) => ids.clone(),
                _ => Vec::new(),
            },
            Generator::Class(i) => match (node.classes.get(i), self.rdf_type) {
                (Some((Some(class), _)), Some(rdf_type)) => {
                    self.distinct(None, Some(rdf_type), Some(*class), Position::Subject)?
                }
                _ => Vec::new(),
            },
            Generator::Edge(i) => match node.edges.get(i) {
                Some(edge) => self.neighbours(edge)?,
                None => Vec::new(),
            },
            Generator::AllSubjects => self.distinct(None, None, None, Position::Subject)?,
        };
        Ok((generator, candidates))
    }

    /// The terms at this end of an edge whose other end satisfies the edge's node.
    fn neighbours(&mut self, edge: &PlanEdge) -> Result<Vec<TermId>, EngineError> {
        let Some(p) = edge.property else {
            return Ok(Vec::new());
        };
        let here = if edge.outgoing {
            Position::Subject
        } else {
            Position::Object
        };
        if !edge.node.is_constrained() {
            return self.distinct(None, Some(p), None, here);
        }
        if self.estimate(&edge.node)?.1.is_none() {
            // The other end has only filters (values, exclusions): check it on every quad of
            // the property.
            let mut out = FxHashSet::default();
            let reader = self.reader;
            for quad in reader.quads_for_pattern(None, Some(p), None, self.graph) {
                if self.generator_stops()? {
                    break;
                }
                let quad = quad?;
                let (this, other) = if edge.outgoing {
                    (quad.subject, quad.object)
                } else {
                    (quad.object, quad.subject)
                };
                if !out.contains(&this) {
                    match self.generator_satisfies(&edge.node, other)? {
                        Some(true) => {
                            out.insert(this);
                        }
                        Some(false) => {}
                        None => break,
                    }
                }
            }
            let mut out: Vec<TermId> = out.into_iter().collect();
            out.sort_unstable();
            return Ok(out);
        }
        let mut others = self.node_set(&edge.node)?;
        if scan::scan_is_cheaper(self.reader, p, others.len())? {
            // Many others: one pass over the property's quads instead of a seek for each.
            others.sort_unstable();
            let end = if edge.outgoing {
                End::Object
            } else {
                End::Subject
            };
            let (pairs, complete) =
                scan::pairs_by_scan(self.reader, p, &others, end, self.graph, &mut self.ticker)?;
            if !complete {
                // The pairs read so far link listed terms: a part of the generator's terms.
                if !self.partial {
                    return Err(EngineError::OutOfTime);
                }
                self.complete = false;
            }
            let mut out: Vec<TermId> = pairs.into_iter().map(|(_, this)| this).collect();
            out.sort_unstable();
            out.dedup();
            return Ok(out);
        }
        let mut out = FxHashSet::default();
        'others: for y in others {
            let quads = if edge.outgoing {
                self.reader
                    .quads_for_pattern(None, Some(p), Some(y), self.graph)
            } else {
                self.reader
                    .quads_for_pattern(Some(y), Some(p), None, self.graph)
            };
            for quad in quads {
                if self.generator_stops()? {
                    break 'others;
                }
                let quad = quad?;
                out.insert(if edge.outgoing {
                    quad.subject
                } else {
                    quad.object
                });
            }
        }
        let mut out: Vec<TermId> = out.into_iter().collect();
        out.sort_unstable();
        Ok(out)
    }

    /// Distinct terms at one position of a pattern.
    fn distinct(
        &mut self,
        s: Option<TermId>,
        p: Option<TermId>,
        o: Option<TermId>,
        position: Position,
    ) -> Result<Vec<TermId>, EngineError> {
        let mut out = Vec::new();
        // Ids come in ascending order when the position leads the index's free part (the
        // instances of a class, every subject): then the last id is the only one to compare
        // with. The set of ids seen is built only once an id comes out of order.
        let mut seen: Option<FxHashSet<TermId>> = None;
        for quad in self.reader.quads_for_pattern(s, p, o, self.graph) {
            if self.generator_stops()? {
                break;
            }
            let quad = quad?;
            let id = match position {
                Position::Subject => quad.subject,
                Position::Object => quad.object,
            };
            match (&mut seen, out.last()) {
                (None, Some(last)) if *last == id => {}
                (None, Some(last)) if *last > id => {
                    let mut set: FxHashSet<TermId> = out.iter().copied().collect();
                    if set.insert(id) {
                        out.push(id);
                    }
                    seen = Some(set);
                }
                (None, _) => out.push(id),
                (Some(set), _) => {
                    if set.insert(id) {
                        out.push(id);
                    }
                }
            }
        }
        if seen.is_some() {
            out.sort_unstable();
        }
        Ok(out)
    }

    fn ensure_text(&mut self, node: &PlanNode) -> Result<(), EngineError> {
        let Some(text) = &node.text else {
            return Ok(());
        };
        if self.texts.contains_key(&node.key) {
            return Ok(());
        }
        let matches =
            self.matcher
                .matching_entities(self.reader, text, TEXT_MATCH_LIMIT, self.deadline)?;
        self.complete &= matches.complete;
        let mut scores: FxHashMap<TermId, f32> = matches.hits.into_iter().collect();
        if let Some(graph) = self.graph {
            // The matcher reads every graph: keep the entities with a matching literal in
            // the one graph read.
            let words = text_words(text);
            let mut kept = FxHashMap::default();
            for (entity, score) in scores {
                self.ticker.tick()?;
                if !snippets::matching_literals(self.reader, entity, &words, Some(graph), 1)?
                    .is_empty()
                {
                    kept.insert(entity, score);
                }
            }
            scores = kept;
        }
        self.texts.insert(node.key, TextSet { scores });
        Ok(())
    }

    /// Whether `x` satisfies every constraint of `node`, memoised.
    pub fn satisfies(&mut self, node: &PlanNode, x: TermId) -> Result<bool, EngineError> {
        if let Some(v) = self.memo.get(&(node.key, x)) {
            return Ok(*v);
        }
        let v = self.satisfies_except(node, x, None)?;
        self.memo.insert((node.key, x), v);
        Ok(v)
    }

    fn satisfies_except(
        &mut self,
        node: &PlanNode,
        x: TermId,
        skip: Option<Generator>,
    ) -> Result<bool, EngineError> {
        self.ticker.tick()?;
        for (i, condition) in node.values.iter().enumerate() {
            if skip != Some(Generator::Value(i)) && !self.condition_holds(condition, x)? {
                return Ok(false);
            }
        }
        if node.subject_domain
            && !generates_subjects(node, skip)
            && !self.exists(Some(x), None, None)?
        {
            return Ok(false);
        }
        for (i, (class, exclude)) in node.classes.iter().enumerate() {
            if skip == Some(Generator::Class(i)) {
                continue;
            }
            let has = match (class, self.rdf_type) {
                (Some(c), Some(t)) => self.exists(Some(x), Some(t), Some(*c))?,
                _ => false,
            };
            if has == *exclude {
                return Ok(false);
            }
        }
        if node.text.is_some() && skip != Some(Generator::Text) {
            self.ensure_text(node)?;
            let matched = self
                .texts
                .get(&node.key)
                .is_some_and(|t| t.scores.contains_key(&x));
            if !matched {
                return Ok(false);
            }
        }
        for (i, edge) in node.edges.iter().enumerate() {
            if skip == Some(Generator::Edge(i)) {
                continue;
            }
            if self.edge_holds(edge, x)? == edge.exclude {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether `x` has a neighbour through the edge that satisfies its node.
    fn edge_holds(&mut self, edge: &PlanEdge, x: TermId) -> Result<bool, EngineError> {
        let Some(p) = edge.property else {
            return Ok(false);
        };
        let neighbours: Vec<TermId> = {
            let quads = if edge.outgoing {
                self.reader
                    .quads_for_pattern(Some(x), Some(p), None, self.graph)
            } else {
                self.reader
                    .quads_for_pattern(None, Some(p), Some(x), self.graph)
            };
            if !edge.node.is_constrained() {
                return Ok(quads.into_iter().next().transpose()?.is_some());
            }
            let mut out = Vec::new();
            for quad in quads {
                self.ticker.tick()?;
                let quad = quad?;
                out.push(if edge.outgoing {
                    quad.object
                } else {
                    quad.subject
                });
            }
            out
        };
        for y in neighbours {
            if self.satisfies(&edge.node, y)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn exists(
        &self,
        s: Option<TermId>,
        p: Option<TermId>,
        o: Option<TermId>,
    ) -> Result<bool, EngineError> {
        Ok(self
            .reader
            .quads_for_pattern(s, p, o, self.graph)
            .next()
            .transpose()?
            .is_some())
    }

    fn condition_holds(&self, condition: &Condition, x: TermId) -> Result<bool, EngineError> {
        Ok(match condition {
            Condition::Eq(id) => *id == Some(x),
            Condition::Neq(id) => *id != Some(x),
            Condition::In(ids) => ids.binary_search(&x).is_ok(),
            Condition::Compare(op, constant) => {
                compare(&self.term(x)?, constant).is_some_and(|o| op.accepts(o))
            }
            Condition::Range(lo, hi) => {
                let term = self.term(x)?;
                compare(&term, lo).is_some_and(|o| o.is_ge())
                    && compare(&term, hi).is_some_and(|o| o.is_le())
            }
            Condition::Lang(range) => match self.term(x)? {
                Term::Literal(l) => l.language().is_some_and(|tag| lang_matches(tag, range)),
                _ => false,
            },
            Condition::NotIn(ids) => ids.binary_search(&x).is_err(),
            Condition::Contains(words) => {
                is_literal_id(x) && literal_contains_words(&self.term(x)?, words)
            }
            Condition::NotContains(words) => {
                !(is_literal_id(x) && literal_contains_words(&self.term(x)?, words))
            }
        })
    }

    fn term(&self, x: TermId) -> Result<Term, EngineError> {
        Ok(self.reader.term(x)?)
    }
}

/// Whether the generator's candidates are all subjects of some triple already.
fn generates_subjects(node: &PlanNode, generator: Option<Generator>) -> bool {
    match generator {
        Some(Generator::AllSubjects | Generator::Class(_) | Generator::Text) => true,
        Some(Generator::Edge(i)) => node.edges.get(i).is_some_and(|e| e.outgoing),
        Some(Generator::Value(_)) | None => false,
    }
}

#[derive(Debug, Clone, Copy)]
enum Position {
    Subject,
    Object,
}

/// SPARQL's `langMatches` (RFC 4647 basic filtering): `*` matches any non-empty tag, else
/// the range equals the tag or is a prefix of it followed by `-`, ignoring case.
pub fn lang_matches(tag: &str, range: &str) -> bool {
    if tag.is_empty() {
        return false;
    }
    if range == "*" {
        return true;
    }
    let (tag, range) = (tag.to_ascii_lowercase(), range.to_ascii_lowercase());
    tag == range
        || tag
            .strip_prefix(&range)
            .is_some_and(|rest| rest.starts_with('-'))
}

#[cfg(test)]
mod tests {
    use super::lang_matches;

    #[test]
    fn language_ranges() {
        assert!(lang_matches("en-GB", "en"));
        assert!(lang_matches("EN", "en"));
        assert!(!lang_matches("eng", "en"));
        assert!(lang_matches("fr", "*"));
        assert!(!lang_matches("", "*"));
    }
}
