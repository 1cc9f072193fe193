//! What a BGP with text patterns becomes: the index's hits as a table joined with the rest,
//! or a filter over the rest (see the parent module for when each).

use super::graphs;
use super::order;
use super::patterns::{Level, TextPattern};
use super::LODESTONE;
use crate::error::ApiError;
use lodestone_indexer::{
    HitDetail, IndexError, IndexSearcher, LabelSearch, TextIndex, TextRequest, UserQuery,
};
use lodestone_store::sparql::CustomFunction;
use lodestone_store::Reader;
use oxrdf::{Literal, NamedNode, Term, Variable};
use spargebra::algebra::{Expression, Function, GraphPattern};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// Plans the text patterns of one query; collects the functions its filters call.
pub(super) struct Planner<'i, 'r, 'db> {
    index: Option<&'i Arc<TextIndex>>,
    max_hits: usize,
    reader: &'r Reader<'db>,
    functions: Vec<(NamedNode, CustomFunction)>,
    /// How the patterns being planned are tied to the `GRAPH` they are in, if any.
    graph: Option<InGraph>,
    /// Whether hits enter tables as stand-ins of their IRIs ([`Reader::stand_in`]): only
    /// when the query is evaluated on `reader` itself, which alone knows them.
    stand_ins: bool,
}

/// How the text patterns inside a `GRAPH` group are tied to its graph (see `graphs.rs`).
#[derive(Debug, Clone)]
pub(super) enum InGraph {
    /// A table row per graph holding the match: only the named graph's rows, or a column for
    /// the graph variable (at the top of the group, to be lifted out of it).
    Rows(NamedNodePattern),
    /// Elsewhere in a `GRAPH ?g` group: `FILTER EXISTS` ties each row to a triple of the
    /// graph in which the group is evaluated.
    Exists,
}

fn index_error(error: IndexError) -> ApiError {
    if error.is_user_error() {
        ApiError::QuerySyntax(format!("text pattern: {error}"))
    } else {
        ApiError::Internal(error.to_string())
    }
}

impl<'i, 'r, 'db> Planner<'i, 'r, 'db> {
    pub(super) fn new(
        index: Option<&'i Arc<TextIndex>>,
        max_hits: usize,
        reader: &'r Reader<'db>,
    ) -> Self {
        Self {
            index,
            max_hits,
            reader,
            functions: Vec::new(),
            graph: None,
            stand_ins: true,
        }
    }

    /// Tables hold the hits' IRIs, read from the store, instead of stand-ins: for an update,
    /// whose `WHERE` is evaluated on its transaction's reader, not on the one planned with.
    pub(super) fn without_stand_ins(mut self) -> Self {
        self.stand_ins = false;
        self
    }

    /// Plans what follows as inside a `GRAPH` (`None`: outside any); returns the mode before.
    pub(super) fn in_graph(&mut self, mode: Option<InGraph>) -> Option<InGraph> {
        std::mem::replace(&mut self.graph, mode)
    }

    pub(super) fn into_functions(self) -> Vec<(NamedNode, CustomFunction)> {
        self.functions
    }

    /// The BGP `rest` joined with each text pattern.
    pub(super) fn replace(
        &mut self,
        found: Vec<TextPattern>,
        rest: Vec<TriplePattern>,
    ) -> Result<GraphPattern, ApiError> {
        let index = self.index.ok_or(ApiError::SearchUnavailable)?;
        // Not while the index is being built: its hits would be none, or another state's.
        let sequence = self
            .reader
            .sequence()
            .map_err(|e| ApiError::from_store(e, std::time::Duration::ZERO))?;
        crate::text_index::require_ready(index, sequence)?;
        let searcher = index.searcher();
        let mut tables = Vec::new();
        let mut filters = Vec::new();
        let mut links = Vec::new();
        // The variables the tables bind, which the rest is evaluated from.
        let mut bound = Vec::new();
        for pattern in found {
            let request = self.request(&searcher, &pattern)?;
            let streamed = pattern.level == Level::Literal
                && pattern.score.is_none()
                && pattern.min_score.is_none()
                && self.graph.is_none();
            // A streamed literal that must be a label: its hits are searched in labels only.
            let via = held_through(&rest, &pattern.subject);
            let in_labels = match &via {
                Some(property) if streamed => self.label_property(&searcher, property)?,
                _ => false,
            };
            let bound_by_rest = match &pattern.subject {
                TermPattern::Variable(v) => rest.iter().any(|t| mentions(t, v)),
                _ => false,
            };
            let only_filters = pattern.score.is_none()
                && pattern.literal.is_none()
                && pattern.snippet.is_none()
                && pattern.property.is_none()
                && pattern.limit.is_none()
                && pattern.min_score.is_none()
                && bound_by_rest
                // Inside GRAPH, the rest binds a literal in the graph; an entity, not its literal.
                && (self.graph.is_none() || pattern.level == Level::Literal);
            let labels = match in_labels {
                true => searcher
                    .label_search(&request, self.max_hits)
                    .map_err(index_error)?,
                false => None,
            };
            let count = match &labels {
                Some(search) => search.count(),
                None if only_filters => searcher.count_text(&request).map_err(index_error)?,
                None => 0,
            };
            if only_filters && count > self.max_hits {
                filters.push(self.filter(index, &pattern, request));
            } else if streamed {
                bound.extend(table_variables(&pattern));
                let stream = Stream { via, labels };
                tables.push(self.literal_stream(index, &searcher, &pattern, request, stream)?);
            } else {
                bound.extend(table_variables(&pattern));
                let rows_in = match &self.graph {
                    Some(InGraph::Rows(name)) => Some(name),
                    _ => None,
                };
                tables.push(table(
                    &searcher,
                    self.reader,
                    &pattern,
                    &request,
                    self.max_hits,
                    rows_in,
                )?);
                if matches!(self.graph, Some(InGraph::Exists)) {
                    links.push(self.link(index, &pattern, request));
                }
            }
        }
        let mut out = if tables.is_empty() {
            GraphPattern::Bgp { patterns: rest }
        } else {
            order::from_bound(rest, &bound)
        };
        for filter in filters {
            out = GraphPattern::Filter {
                expr: filter,
                inner: Box::new(out),
            };
        }
        // Index first: the rest is evaluated once per hit, with the hit's terms bound.
        for table in tables {
            out = GraphPattern::Lateral {
                left: Box::new(table),
                right: Box::new(out),
            };
        }
        for link in links {
            out = GraphPattern::Filter {
                expr: Expression::Exists(Box::new(link)),
                inner: Box::new(out),
            };
        }
        Ok(out)
    }

    /// `SELECT DISTINCT ?literal { VALUES ?s { hits } ?s ?p ?literal FILTER(contains) }`: the
    /// literals of the hit entities that contain the words, found hit by hit as the
    /// evaluation asks for them (a `LIMIT` stops it early), each once.
    ///
    /// With `via`, a property the rest of the group requires the literal to be a value of,
    /// only the hits' values of that property are read (`?s <via> ?literal`): every IRI
    /// holding such a literal with it is a hit (its document holds all its text literals), and
    /// the hits' other literals — a review's long text, for a word in product labels — are
    /// not read and tested at all. When that property is a label property, the hits are
    /// searched in the index's label fields only (`labels`): an entity whose label contains
    /// the words has them among its label words. The hits are stand-ins of their IRIs when
    /// the query is evaluated on the planner's reader (see [`Planner::without_stand_ins`]).
    fn literal_stream(
        &mut self,
        index: &Arc<TextIndex>,
        searcher: &IndexSearcher<'_>,
        pattern: &TextPattern,
        request: TextRequest,
        Stream { via, labels }: Stream,
    ) -> Result<GraphPattern, ApiError> {
        let ids = match labels {
            Some(search) => search.into_ids(),
            None => searcher
                .text_entity_ids(&request, self.max_hits)
                .map_err(index_error)?,
        };
        let hits = match self.stand_ins {
            true => ids
                .into_iter()
                .map(|id| self.reader.stand_in(id).into())
                .collect(),
            false => ids
                .into_iter()
                .map(|id| self.reader.term(id))
                .collect::<Result<Vec<Term>, _>>()
                .map_err(|e| ApiError::Internal(e.to_string()))?,
        };
        let n = self.functions.len();
        let entity = Variable::new_unchecked(format!("lodestone_text_entity{n}"));
        let property = Variable::new_unchecked(format!("lodestone_text_property{n}"));
        let hits = GraphPattern::Values {
            variables: vec![entity.clone()],
            bindings: hits.into_iter().map(|term| vec![ground(term)]).collect(),
        };
        let literals = GraphPattern::Bgp {
            patterns: vec![TriplePattern {
                subject: TermPattern::Variable(entity),
                predicate: match via {
                    Some(p) => NamedNodePattern::NamedNode(p),
                    None => NamedNodePattern::Variable(property),
                },
                object: match &pattern.subject {
                    TermPattern::BlankNode(b) => TermPattern::Variable(blank_variable(b)),
                    other => other.clone(),
                },
            }],
        };
        let test = self.filter(index, pattern, request);
        let variables = match &pattern.subject {
            TermPattern::Variable(v) => vec![v.clone()],
            _ => Vec::new(),
        };
        Ok(GraphPattern::Distinct {
            inner: Box::new(GraphPattern::Project {
                inner: Box::new(GraphPattern::Filter {
                    expr: test,
                    inner: Box::new(GraphPattern::Lateral {
                        left: Box::new(hits),
                        right: Box::new(literals),
                    }),
                }),
                variables,
            }),
        })
    }

    /// Whether the index takes the literals of `property` as labels.
    fn label_property(
        &self,
        searcher: &IndexSearcher<'_>,
        property: &NamedNode,
    ) -> Result<bool, ApiError> {
        let id = self
            .reader
            .term_id(property.as_ref().into())
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        match id {
            Some(id) => searcher
                .is_label_property(self.reader, id)
                .map_err(index_error),
            None => Ok(false),
        }
    }

    /// What ties a hit to the graph a `GRAPH` group is evaluated in: a triple there with the
    /// hit's literal as its object (literal level), or a triple of the hit entity with a
    /// matching literal (entity level; the literal the table binds, if it binds one).
    fn link(
        &mut self,
        index: &Arc<TextIndex>,
        pattern: &TextPattern,
        request: TextRequest,
    ) -> GraphPattern {
        let n = self.functions.len();
        let fresh = |role: &str| Variable::new_unchecked(format!("lodestone_text_link_{role}{n}"));
        let term = |t: &TermPattern| match t {
            TermPattern::BlankNode(b) => TermPattern::Variable(blank_variable(b)),
            other => other.clone(),
        };
        let triple = |subject, object| GraphPattern::Bgp {
            patterns: vec![TriplePattern {
                subject,
                predicate: NamedNodePattern::Variable(fresh("p")),
                object,
            }],
        };
        match (pattern.level, &pattern.literal) {
            (Level::Literal, _) => {
                triple(TermPattern::Variable(fresh("s")), term(&pattern.subject))
            }
            (Level::Entity, Some(literal)) => triple(term(&pattern.subject), term(literal)),
            (Level::Entity, None) => {
                let literal = fresh("o");
                let test = TextPattern {
                    level: Level::Literal,
                    subject: TermPattern::Variable(literal.clone()),
                    ..pattern.clone()
                };
                GraphPattern::Filter {
                    expr: self.filter(index, &test, request),
                    inner: Box::new(triple(
                        term(&pattern.subject),
                        TermPattern::Variable(literal),
                    )),
                }
            }
        }
    }

    fn request(
        &self,
        searcher: &IndexSearcher<'_>,
        pattern: &TextPattern,
    ) -> Result<TextRequest, ApiError> {
        let branches = pattern
            .branches
            .iter()
            .map(|b| searcher.parse(b).map_err(index_error))
            .collect::<Result<Vec<UserQuery>, _>>()?;
        let property = match &pattern.property {
            None => None,
            Some(p) => Some(
                self.reader
                    .term_id_or_transient(p.clone().into())
                    .map_err(|e| ApiError::Internal(e.to_string()))?,
            ),
        };
        Ok(TextRequest {
            branches,
            langs: pattern.langs.clone(),
            property,
        })
    }

    /// `FILTER(<urn:lodestone:fn:text:N>(?subject))`, the function asking the index.
    fn filter(
        &mut self,
        index: &Arc<TextIndex>,
        pattern: &TextPattern,
        request: TextRequest,
    ) -> Expression {
        let name = NamedNode::new_unchecked(format!("{LODESTONE}fn:text:{}", self.functions.len()));
        let function: CustomFunction = match pattern.level {
            Level::Literal => {
                let test = Mutex::new(index.searcher().literal_filter(&request));
                Arc::new(move |args: &[Term]| {
                    let [literal] = args else { return None };
                    let mut test = test.lock().unwrap_or_else(|e| e.into_inner());
                    Some(Literal::from(test.matches(literal)).into())
                })
            }
            Level::Entity => {
                let index = Arc::clone(index);
                Arc::new(move |args: &[Term]| {
                    let [entity] = args else { return None };
                    let Term::NamedNode(iri) = entity else {
                        return Some(Literal::from(false).into());
                    };
                    let matched = index.searcher().matches_entity(iri.as_str(), &request);
                    Some(Literal::from(matched.ok()?).into())
                })
            }
        };
        self.functions.push((name.clone(), function));
        let subject = match &pattern.subject {
            TermPattern::Variable(v) => Expression::Variable(v.clone()),
            TermPattern::NamedNode(n) => Expression::NamedNode(n.clone()),
            TermPattern::Literal(l) => Expression::Literal(l.clone()),
            // A blank node of the query is a variable of its group, unnamed: filter on a
            // variable named after it.
            TermPattern::BlankNode(b) => Expression::Variable(blank_variable(b)),
        };
        Expression::FunctionCall(Function::Custom(name), vec![subject])
    }
}

/// How a literal stream reads its hits' literals (see [`Planner::literal_stream`]).
struct Stream {
    /// The property the rest requires the literal to be a value of.
    via: Option<NamedNode>,
    /// The search in labels only, when `via` is a label property.
    labels: Option<LabelSearch>,
}

/// The variables of a pattern that its table binds and the rest may join on: its subject
/// and the matched literal (scores and snippets are new values).
fn table_variables(pattern: &TextPattern) -> impl Iterator<Item = Variable> + '_ {
    [Some(&pattern.subject), pattern.literal.as_ref()]
        .into_iter()
        .flatten()
        .filter_map(|t| match t {
            TermPattern::Variable(v) => Some(v.clone()),
            _ => None,
        })
}

/// A property whose value the rest of the group requires the text pattern's literal to be
/// (`?p rdfs:label ?l` for `?l bif:contains …`), if any.
fn held_through(rest: &[TriplePattern], literal: &TermPattern) -> Option<NamedNode> {
    let TermPattern::Variable(literal) = literal else {
        return None;
    };
    rest.iter().find_map(|t| match (&t.predicate, &t.object) {
        (NamedNodePattern::NamedNode(p), TermPattern::Variable(o)) if o == literal => {
            Some(p.clone())
        }
        _ => None,
    })
}

/// The variable standing for a blank node of the query where a filter must name it.
fn blank_variable(node: &oxrdf::BlankNode) -> Variable {
    Variable::new_unchecked(format!("lodestone_text_blank_{}", node.as_str()))
}

fn mentions(triple: &TriplePattern, variable: &Variable) -> bool {
    let is = |t: &TermPattern| matches!(t, TermPattern::Variable(v) if v == variable);
    is(&triple.subject)
        || is(&triple.object)
        || matches!(&triple.predicate, NamedNodePattern::Variable(v) if v == variable)
}

/// A column of the table: a variable to bind, a constant rows must equal, or nothing.
enum Slot {
    Bind(Variable),
    Equal(Term),
    Free,
}

fn slot(pattern: &TermPattern) -> Slot {
    match pattern {
        TermPattern::Variable(v) => Slot::Bind(v.clone()),
        TermPattern::NamedNode(n) => Slot::Equal(n.clone().into()),
        TermPattern::Literal(l) => Slot::Equal(l.clone().into()),
        TermPattern::BlankNode(_) => Slot::Free,
    }
}

fn ground(term: Term) -> Option<GroundTerm> {
    match term {
        Term::NamedNode(n) => Some(GroundTerm::NamedNode(n)),
        Term::Literal(l) => Some(GroundTerm::Literal(l)),
        _ => None,
    }
}

/// The hits as `VALUES`: one row per entity (entity level) or per distinct literal that
/// contains the words (literal level, with the best score of the entities holding it); inside
/// `GRAPH`, one row per graph holding the match, with the graph bound (`graphs.rs`).
fn table(
    searcher: &IndexSearcher<'_>,
    reader: &Reader<'_>,
    pattern: &TextPattern,
    request: &TextRequest,
    max_hits: usize,
    graph: Option<&NamedNodePattern>,
) -> Result<GraphPattern, ApiError> {
    let literal_slot = pattern.literal.as_ref().map(slot);
    let detail = HitDetail {
        literals: pattern.level == Level::Literal || literal_slot.is_some() || graph.is_some(),
        snippet: pattern.snippet.is_some(),
    };
    let keep = pattern.limit.unwrap_or(max_hits).min(max_hits);
    let mut hits = searcher
        .text_hits(reader, request, (max_hits, keep), detail)
        .map_err(index_error)?;
    if let Some(least) = pattern.min_score {
        hits.retain(|hit| hit.score >= least);
    }
    let subject = slot(&pattern.subject);
    let mut variables = Vec::new();
    if let Slot::Bind(v) = &subject {
        variables.push(v.clone());
    }
    variables.extend(pattern.score.iter().cloned());
    if let Some(Slot::Bind(v)) = &literal_slot {
        variables.push(v.clone());
    }
    variables.extend(pattern.snippet.iter().cloned());
    let graph_column = match graph {
        Some(NamedNodePattern::Variable(g)) if !variables.contains(g) => Some(g.clone()),
        _ => None,
    };
    variables.extend(graph_column.iter().cloned());
    let keeps = |slot: &Slot, term: &Term| match slot {
        Slot::Equal(constant) => constant == term,
        Slot::Bind(_) | Slot::Free => true,
    };
    // Each match with the graph that holds it: every graph (`None`) outside `GRAPH`.
    let placed = |matched: Vec<(NamedNode, Term)>| -> Vec<(Option<NamedNode>, Term)> {
        matched
            .into_iter()
            .filter(|(g, _)| graph.is_some_and(|name| graphs::keeps(name, g)))
            .map(|(g, t)| (Some(g), t))
            .collect()
    };
    let graph_cell = |g: Option<NamedNode>| g.map(GroundTerm::NamedNode);
    let mut bindings = Vec::with_capacity(hits.len());
    match pattern.level {
        Level::Literal => {
            // Hits come best first: the first score of a literal is its best.
            let mut seen: HashSet<Term> = HashSet::new();
            for hit in hits {
                for literal in hit.literals {
                    if !keeps(&subject, &literal) || !seen.insert(literal.clone()) {
                        continue;
                    }
                    let rows = match graph {
                        None => vec![(None, literal)],
                        Some(_) => placed(graphs::literal_graphs(reader, &literal)?),
                    };
                    for (g, literal) in rows {
                        let mut row = Vec::with_capacity(variables.len());
                        if matches!(subject, Slot::Bind(_)) {
                            row.push(ground(literal));
                        }
                        if pattern.score.is_some() {
                            row.push(Some(GroundTerm::Literal(Literal::from(hit.score))));
                        }
                        if graph_column.is_some() {
                            row.push(graph_cell(g));
                        }
                        bindings.push(row);
                    }
                }
            }
        }
        Level::Entity => {
            for mut hit in hits {
                if !keeps(&subject, &hit.term) {
                    continue;
                }
                if let Some(slot @ Slot::Equal(_)) = &literal_slot {
                    hit.literals.retain(|l| keeps(slot, l));
                    if hit.literals.is_empty() {
                        continue;
                    }
                }
                let rows = match graph {
                    None => vec![(None, hit.literals.first().cloned())],
                    Some(_) => placed(graphs::entity_graphs(reader, &hit)?)
                        .into_iter()
                        .map(|(g, l)| (g, Some(l)))
                        .collect(),
                };
                let snippet = hit
                    .snippet
                    .map(|s| GroundTerm::Literal(Literal::new_simple_literal(s.text)));
                for (g, literal) in rows {
                    let mut row = Vec::with_capacity(variables.len());
                    if matches!(subject, Slot::Bind(_)) {
                        row.push(ground(hit.term.clone()));
                    }
                    if pattern.score.is_some() {
                        row.push(Some(GroundTerm::Literal(Literal::from(hit.score))));
                    }
                    if let Some(Slot::Bind(_)) = &literal_slot {
                        row.push(literal.and_then(ground));
                    }
                    if pattern.snippet.is_some() {
                        row.push(snippet.clone());
                    }
                    if graph_column.is_some() {
                        row.push(graph_cell(g));
                    }
                    bindings.push(row);
                }
            }
        }
    }
    Ok(GraphPattern::Values {
        variables,
        bindings,
    })
}
