//! Queries the statistics answer: counts over one triple pattern of variables, read from the
//! counters kept beside the quads instead of by reading the quads.
//!
//! Recognized on the algebra, with the query's own dataset (no FROM, no protocol graphs) and
//! committed state (no transaction's changes):
//!
//! - `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`, or with `<p>` for `?p`, or inside
//!   `GRAPH ?g { … }` — quads in all, of one predicate;
//! - the same grouped by `?p`, by `?o` when the predicate is `rdf:type` (instances per class),
//!   or by `?g` — counts per predicate, per class, per named graph;
//! - `SELECT DISTINCT ?p` (or `?o` of `rdf:type`, or `?g`) over such a pattern.
//!
//! `COUNT(?x)` of a variable of the pattern counts the same as `COUNT(*)`. The default graph
//! is the store's default graph, or the union of all graphs (quads, not deduplicated, as the
//! evaluator reads it) under `default_graph_as_union`. The counters count quads in all
//! graphs; a count restricted to the default graph or to the named graphs is answered only
//! when the counters decide it (a predicate used only as a predicate, or used only in the
//! default graph); otherwise the query is evaluated as usual. Results are the evaluator's:
//! the test in `tests/store/statistics.rs` compares them on several datasets.

use crate::error::StoreError;
use crate::kv::{meta_key, Table};
use crate::quads::distinct::Distinct;
use crate::quads::reader::Reader;
use crate::sparql::{DatasetOverride, QueryOptions};
use crate::stats::decode_u64;
use crate::TermId;
use oxrdf::vocab::rdf;
use oxrdf::{Literal, Term, Variable};
use spareval::{QueryResults, QuerySolution, QuerySolutionIter};
use spargebra::algebra::{AggregateExpression, AggregateFunction, Expression, GraphPattern};
use spargebra::term::{NamedNodePattern, TermPattern};
use spargebra::Query;
use std::sync::Arc;

/// Which quads are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The default graph: the store's, or every graph under `default_graph_as_union`.
    Default { union: bool },
    /// The named graphs (`GRAPH ?g`).
    Named,
}

/// What the rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    /// One row, the total.
    Nothing,
    Predicate,
    /// The object of `rdf:type`.
    Class,
    Graph,
}

/// A recognized query.
#[derive(Debug)]
struct Shape {
    scope: Scope,
    /// The predicate when the pattern names one.
    predicate: Option<Term>,
    key: Key,
    /// The variable bound to the key.
    key_variable: Option<Variable>,
    /// The projected variables in order: the key's and/or the count's.
    projection: Vec<Variable>,
}

/// Answers `query` from the statistics when it is one of the recognized forms and they decide
/// it; `None` otherwise (then [`crate::sparql::evaluate_query`] evaluates it). Public for
/// benchmarks and tests, which compare it with a full evaluation.
pub fn answer_from_statistics<'a>(
    reader: &'a Reader<'_>,
    query: &Query,
    dataset: &DatasetOverride,
    options: &QueryOptions,
) -> Result<Option<QueryResults<'a>>, StoreError> {
    let Query::Select {
        dataset: None,
        pattern,
        ..
    } = query
    else {
        return Ok(None);
    };
    if !dataset.is_empty() || reader.has_overlay() {
        return Ok(None);
    }
    let Some(shape) = recognize(pattern, options.default_graph_as_union) else {
        return Ok(None);
    };
    let Some(rows) = rows(reader, &shape)? else {
        return Ok(None);
    };
    let variables: Arc<[Variable]> = shape.projection.clone().into();
    let mut solutions = Vec::with_capacity(rows.len());
    for (key, count) in rows {
        let key = key.map(|k| reader.term(k)).transpose()?;
        let values: Vec<Option<Term>> = shape
            .projection
            .iter()
            .map(|v| {
                if Some(v) == shape.key_variable.as_ref() {
                    key.clone()
                } else {
                    // The count: `xsd:integer`, as COUNT gives it.
                    Some(Literal::from(i64::try_from(count).unwrap_or(i64::MAX)).into())
                }
            })
            .collect();
        solutions.push(Ok(QuerySolution::from((Arc::clone(&variables), values))));
    }
    Ok(Some(QueryResults::Solutions(QuerySolutionIter::new(
        variables, solutions,
    ))))
}

/// The shape of a recognized query's algebra.
fn recognize(pattern: &GraphPattern, union: bool) -> Option<Shape> {
    let (distinct, pattern) = match pattern {
        GraphPattern::Distinct { inner } | GraphPattern::Reduced { inner } => (true, &**inner),
        other => (false, other),
    };
    let GraphPattern::Project { inner, variables } = pattern else {
        return None;
    };
    if let GraphPattern::Extend {
        inner,
        variable,
        expression: Expression::Variable(aggregate),
    } = &**inner
    {
        let GraphPattern::Group {
            inner,
            variables: groups,
            aggregates,
        } = &**inner
        else {
            return None;
        };
        let [(counted, count)] = aggregates.as_slice() else {
            return None;
        };
        let (scope, triple) = triple_pattern(inner, union)?;
        let counts_solutions = match count {
            AggregateExpression::CountSolutions { distinct: false } => true,
            AggregateExpression::FunctionCall {
                name: AggregateFunction::Count,
                expr: Expression::Variable(v),
                distinct: false,
            } => triple.variables.contains(v),
            _ => false,
        };
        if counted != aggregate || !counts_solutions || groups.len() > 1 {
            return None;
        }
        let key_variable = groups.first().cloned();
        let expected = variables.len() == groups.len() + 1
            && variables.contains(variable)
            && groups.iter().all(|g| variables.contains(g));
        if !expected || (distinct && key_variable.is_none()) {
            return None;
        }
        let key = key_of(&triple, scope, key_variable.as_ref())?;
        return Some(Shape {
            scope,
            predicate: triple.predicate,
            key,
            key_variable,
            projection: variables.clone(),
        });
    }
    // `SELECT DISTINCT ?k WHERE { … }`.
    let [key_variable] = variables.as_slice() else {
        return None;
    };
    if !distinct {
        return None;
    }
    let (scope, triple) = triple_pattern(inner, union)?;
    let key = key_of(&triple, scope, Some(key_variable))?;
    (key != Key::Nothing).then(|| Shape {
        scope,
        predicate: triple.predicate,
        key,
        key_variable: Some(key_variable.clone()),
        projection: variables.clone(),
    })
}

/// One triple pattern of distinct variables (the predicate may be an IRI).
struct Triple {
    predicate: Option<Term>,
    predicate_variable: Option<Variable>,
    object: Variable,
    graph: Option<Variable>,
    variables: Vec<Variable>,
}

fn triple_pattern(pattern: &GraphPattern, union: bool) -> Option<(Scope, Triple)> {
    let (scope, graph, pattern) = match pattern {
        GraphPattern::Graph {
            name: NamedNodePattern::Variable(g),
            inner,
        } => (Scope::Named, Some(g.clone()), &**inner),
        other => (Scope::Default { union }, None, other),
    };
    let GraphPattern::Bgp { patterns } = pattern else {
        return None;
    };
    let [triple] = patterns.as_slice() else {
        return None;
    };
    let (TermPattern::Variable(s), TermPattern::Variable(o)) = (&triple.subject, &triple.object)
    else {
        return None;
    };
    let (predicate, predicate_variable) = match &triple.predicate {
        NamedNodePattern::NamedNode(p) => (Some(Term::from(p.clone())), None),
        NamedNodePattern::Variable(p) => (None, Some(p.clone())),
    };
    let mut variables: Vec<Variable> = [Some(s), predicate_variable.as_ref(), Some(o)]
        .into_iter()
        .flatten()
        .chain(graph.as_ref())
        .cloned()
        .collect();
    let count = variables.len();
    variables.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
    variables.dedup();
    (variables.len() == count).then(|| {
        (
            scope,
            Triple {
                predicate,
                predicate_variable,
                object: o.clone(),
                graph,
                variables,
            },
        )
    })
}

/// What a grouping or projected variable keys the rows by.
fn key_of(triple: &Triple, scope: Scope, key: Option<&Variable>) -> Option<Key> {
    let Some(key) = key else {
        return Some(Key::Nothing);
    };
    let is_type = triple.predicate.as_ref() == Some(&Term::from(rdf::TYPE.into_owned()));
    if Some(key) == triple.predicate_variable.as_ref() {
        Some(Key::Predicate)
    } else if Some(key) == triple.graph.as_ref() && scope == Scope::Named {
        Some(Key::Graph)
    } else if *key == triple.object && is_type {
        Some(Key::Class)
    } else {
        None
    }
}

/// Rows of counts: the key (none for a total) and the count.
type Rows = Vec<(Option<TermId>, u64)>;

/// The rows (key, count) of a recognized query, `None` when the counters do not decide it.
fn rows(reader: &Reader<'_>, shape: &Shape) -> Result<Option<Rows>, StoreError> {
    let predicate = match &shape.predicate {
        Some(p) => match reader.term_id(p.as_ref())? {
            Some(id) => Some(id),
            // A predicate the store does not know: nothing matches.
            None => return Ok(Some(empty(shape))),
        },
        None => None,
    };
    let counter = Counter { reader };
    let mut rows: Rows = Vec::new();
    match (shape.key, predicate) {
        (Key::Nothing, None) => {
            let total = counter.quad_count()?;
            let named = counter.named_graph_quads()?;
            rows.push((
                None,
                match shape.scope {
                    Scope::Default { union: true } => total,
                    Scope::Default { union: false } => total.saturating_sub(named),
                    Scope::Named => named,
                },
            ));
        }
        (Key::Nothing, Some(p)) => {
            let Some(count) = counter.predicate_quads(p, shape.scope)? else {
                return Ok(None);
            };
            rows.push((None, count));
        }
        (Key::Predicate, None) => {
            for (p, _) in reader.distinct_counts(Distinct::PredicateSubjects)? {
                let Some(count) = counter.predicate_quads(p, shape.scope)? else {
                    return Ok(None);
                };
                rows.push((Some(p), count));
            }
        }
        (Key::Class, Some(rdf_type)) => {
            let Some(in_scope) = counter.predicate_quads(rdf_type, shape.scope)? else {
                return Ok(None);
            };
            let all = reader.usage(rdf_type)?.as_predicate;
            // The class counts count every graph: they answer when the scope holds all of the
            // `rdf:type` quads or none of them.
            if in_scope == all {
                for (class, count) in reader.top_classes(usize::MAX)? {
                    rows.push((Some(class), count));
                }
            } else if in_scope != 0 {
                return Ok(None);
            }
        }
        (Key::Graph, None) => {
            for graph in reader.named_graphs()? {
                rows.push((Some(graph), reader.usage(graph)?.as_graph));
            }
        }
        (Key::Graph, Some(p)) => {
            let usage = reader.usage(p)?;
            if usage.as_subject != 0 || usage.as_object != 0 {
                return Ok(None);
            }
            for graph in reader.term_graphs(p, usize::MAX)? {
                if !graph.graph.is_default_graph() {
                    rows.push((Some(graph.graph), graph.positions));
                }
            }
        }
        _ => return Ok(None),
    }
    if shape.key != Key::Nothing {
        rows.retain(|(_, count)| *count > 0);
    }
    Ok(Some(rows))
}

/// The rows of a query whose predicate the store does not hold.
fn empty(shape: &Shape) -> Rows {
    if shape.key == Key::Nothing {
        vec![(None, 0)]
    } else {
        Vec::new()
    }
}

/// Quad counts from the counters.
struct Counter<'r, 'db> {
    reader: &'r Reader<'db>,
}

impl Counter<'_, '_> {
    fn quad_count(&self) -> Result<u64, StoreError> {
        self.reader
            .get(Table::Meta, meta_key::QUAD_COUNT)?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }

    /// Quads in the named graphs: the graph-name counters summed over the named graphs.
    fn named_graph_quads(&self) -> Result<u64, StoreError> {
        let graphs = self.reader.named_graphs()?;
        let usages = self.reader.usages(&graphs)?;
        Ok(usages.iter().map(|u| u.as_graph).sum())
    }

    /// Quads with predicate `p` in `scope`, when the counters decide it: the term's
    /// positions in the default graph are its predicate positions there when it is used
    /// only as a predicate, and all of its predicate positions when it is used in the
    /// default graph only.
    fn predicate_quads(&self, p: TermId, scope: Scope) -> Result<Option<u64>, StoreError> {
        let usage = self.reader.usage(p)?;
        let in_default = || -> Result<Option<u64>, StoreError> {
            let positions = self.reader.term_graph_positions(p, TermId::DEFAULT_GRAPH)?;
            Ok(if positions == 0 {
                Some(0)
            } else if usage.as_subject == 0 && usage.as_object == 0 {
                Some(positions)
            } else if usage.graphs == 1 {
                Some(usage.as_predicate)
            } else {
                None
            })
        };
        Ok(match scope {
            Scope::Default { union: true } => Some(usage.as_predicate),
            Scope::Default { union: false } => in_default()?,
            Scope::Named => in_default()?.map(|d| usage.as_predicate.saturating_sub(d)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::SparqlParser;

    fn shape(query: &str, union: bool) -> Option<Shape> {
        let Query::Select { pattern, .. } = SparqlParser::new().parse_query(query).unwrap() else {
            panic!("not a SELECT");
        };
        recognize(&pattern, union)
    }

    #[test]
    fn recognizes_the_counting_forms_and_nothing_else() {
        let count = shape("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", false).unwrap();
        assert_eq!(count.key, Key::Nothing);
        assert_eq!(count.scope, Scope::Default { union: false });
        let graphs = shape(
            "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g",
            true,
        )
        .unwrap();
        assert_eq!((graphs.key, graphs.scope), (Key::Graph, Scope::Named));
        let classes = shape(
            "SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s a ?c } GROUP BY ?c",
            false,
        )
        .unwrap();
        assert_eq!(classes.key, Key::Class);
        let predicates = shape("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", false).unwrap();
        assert_eq!(predicates.key, Key::Predicate);
        for other in [
            "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }",
            "SELECT ?p WHERE { ?s ?p ?o }",
            "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?s }",
            "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?o ?q ?r }",
            "SELECT ?o (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?o",
            "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(?o != 1) }",
            "SELECT (COUNT(*) + 1 AS ?n) WHERE { ?s ?p ?o }",
        ] {
            assert!(shape(other, false).is_none(), "{other}");
        }
    }
}
