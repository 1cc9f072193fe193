//! `GRAPH ?g { P }` scoped as SPARQL 1.1 says, where spareval scopes it otherwise.
//!
//! spareval (through sparopt) evaluates `GRAPH ?g { P }` by giving every triple pattern of `P`
//! the graph variable `?g`. For triple patterns, paths, joins, unions, `OPTIONAL`, `FILTER` and
//! `BIND` that is the specification's `Join(eval(D(g), P), {?g → g})` over the named graphs
//! `g`, but not when `P` holds
//!
//! - a `VALUES` table: it is not the graph's, and its own `?g` must agree with the graph name;
//! - a `MINUS`: both sides share `?g`, so no solution is ever disjoint from the other side;
//! - a subquery: it groups, counts and projects across all the graphs at once.
//!
//! For those (W3C tests `bindings/graph`, `negation/graph-minus`,
//! `aggregates/agg-empty-group-count-graph`) the query is rewritten to the definition itself:
//! one branch per named graph `g` of the query's dataset, `VALUES ?g { g } GRAPH g { P }`, a
//! form spareval evaluates correctly. Queries without such a pattern are left alone, so the
//! rewrite costs nothing to the others.
//!
//! Not covered: a pattern inside `EXISTS` keeps spareval's scoping, and so does a dataset with
//! a blank node as a graph name (a query can name no blank node as a graph).

use crate::error::StoreError;
use spargebra::algebra::GraphPattern;
use spargebra::term::{GroundTerm, NamedNode, NamedNodePattern, Variable};
use spargebra::Query;

/// Past this many copied pattern nodes (graphs times the size of `P`) the rewrite is refused:
/// a request must not make the evaluator hold an unbounded plan.
const MAX_COPIED_NODES: usize = 200_000;

/// Whether the query has a `GRAPH ?g { P }` that [`rewrite`] must expand.
pub(crate) fn needs_rewrite(query: &Query) -> bool {
    fn walk(pattern: &GraphPattern) -> bool {
        match pattern {
            GraphPattern::Graph {
                name: NamedNodePattern::Variable(_),
                inner,
            } if scoped_differently(inner) => true,
            other => children(other).into_iter().any(walk),
        }
    }
    walk(pattern_of(query))
}

/// The query whose every `GRAPH ?g { P }` of the kind [`needs_rewrite`] finds is the union,
/// over `graphs` (the named graphs of the query's dataset), of `VALUES ?g { g } GRAPH g { P }`.
pub(crate) fn rewrite(query: &Query, graphs: &[NamedNode]) -> Result<Query, StoreError> {
    let mut query = query.clone();
    let pattern = match &mut query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let mut budget = MAX_COPIED_NODES;
    expand(pattern, graphs, &mut budget)?;
    Ok(query)
}

/// The query that lists the named graphs of `query`'s dataset, as spareval sees them.
pub(crate) fn named_graphs_query(query: &Query) -> (Query, Variable) {
    let graph = Variable::new_unchecked("graph");
    let pattern = GraphPattern::Distinct {
        inner: Box::new(GraphPattern::Project {
            inner: Box::new(GraphPattern::Graph {
                name: graph.clone().into(),
                inner: Box::new(GraphPattern::Bgp {
                    patterns: Vec::new(),
                }),
            }),
            variables: vec![graph.clone()],
        }),
    };
    let dataset = match query {
        Query::Select { dataset, .. }
        | Query::Construct { dataset, .. }
        | Query::Describe { dataset, .. }
        | Query::Ask { dataset, .. } => dataset.clone(),
    };
    let listing = Query::Select {
        dataset,
        pattern,
        base_iri: None,
    };
    (listing, graph)
}

fn pattern_of(query: &Query) -> &GraphPattern {
    match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    }
}

/// Whether giving `pattern`'s triple patterns the graph variable is not the specification's
/// scoping: it holds `VALUES`, `MINUS` or a subquery outside any inner `GRAPH`.
fn scoped_differently(pattern: &GraphPattern) -> bool {
    match pattern {
        GraphPattern::Values { .. }
        | GraphPattern::Minus { .. }
        | GraphPattern::Project { .. }
        | GraphPattern::Group { .. } => true,
        // An inner GRAPH replaces the outer graph; it is handled on its own.
        GraphPattern::Graph { .. } => false,
        other => children(other).into_iter().any(scoped_differently),
    }
}

fn expand(
    pattern: &mut GraphPattern,
    graphs: &[NamedNode],
    budget: &mut usize,
) -> Result<(), StoreError> {
    for child in children_mut(pattern) {
        expand(child, graphs, budget)?;
    }
    let GraphPattern::Graph {
        name: NamedNodePattern::Variable(variable),
        inner,
    } = pattern
    else {
        return Ok(());
    };
    if !scoped_differently(inner) {
        return Ok(());
    }
    let copies = size(inner).saturating_add(2).saturating_mul(graphs.len());
    *budget = budget.checked_sub(copies).ok_or_else(|| {
        StoreError::TooLarge(format!(
            "GRAPH ?{} over VALUES, MINUS or a subquery is evaluated once per named graph, \
             and this query over {} named graphs is too large for that",
            variable.as_str(),
            graphs.len()
        ))
    })?;
    let branches: Vec<GraphPattern> = graphs
        .iter()
        .map(|graph| GraphPattern::Join {
            left: Box::new(GraphPattern::Values {
                variables: vec![variable.clone()],
                bindings: vec![vec![Some(GroundTerm::NamedNode(graph.clone()))]],
            }),
            right: Box::new(GraphPattern::Graph {
                name: graph.clone().into(),
                inner: inner.clone(),
            }),
        })
        .collect();
    *pattern = balanced_union(branches).unwrap_or_else(|| GraphPattern::Values {
        variables: vec![variable.clone()],
        bindings: Vec::new(),
    });
    Ok(())
}

/// The union of `branches` as a balanced tree: a chain of thousands of unions would take the
/// planner and the evaluator time and stack that grow with its depth.
fn balanced_union(mut branches: Vec<GraphPattern>) -> Option<GraphPattern> {
    if branches.len() <= 1 {
        return branches.pop();
    }
    let right = branches.split_off(branches.len() / 2);
    Some(GraphPattern::Union {
        left: Box::new(balanced_union(branches)?),
        right: Box::new(balanced_union(right)?),
    })
}

/// How many pattern nodes `pattern` has.
fn size(pattern: &GraphPattern) -> usize {
    1 + children(pattern).into_iter().map(size).sum::<usize>()
}

fn children(pattern: &GraphPattern) -> Vec<&GraphPattern> {
    match pattern {
        GraphPattern::Bgp { .. } | GraphPattern::Path { .. } | GraphPattern::Values { .. } => {
            Vec::new()
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => vec![left, right],
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. }
        | GraphPattern::Service { inner, .. } => vec![inner],
    }
}

fn children_mut(pattern: &mut GraphPattern) -> Vec<&mut GraphPattern> {
    match pattern {
        GraphPattern::Bgp { .. } | GraphPattern::Path { .. } | GraphPattern::Values { .. } => {
            Vec::new()
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => vec![left, right],
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. }
        | GraphPattern::Service { inner, .. } => vec![inner],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::SparqlParser;

    fn parse(query: &str) -> Query {
        SparqlParser::new().parse_query(query).unwrap()
    }

    #[test]
    fn only_values_minus_and_subqueries_under_a_graph_variable_are_rewritten() {
        for (query, expected) in [
            (
                "SELECT * { GRAPH ?g { ?s ?p ?o OPTIONAL { ?o ?q ?r } } }",
                false,
            ),
            ("SELECT * { GRAPH <http://e/g> { VALUES ?x { 1 } } }", false),
            ("SELECT * { VALUES ?x { 1 } GRAPH ?g { ?s ?p ?x } }", false),
            (
                "SELECT * { GRAPH ?g { GRAPH <http://e/h> { MINUS { ?a ?b ?c } } } }",
                false,
            ),
            ("SELECT * { GRAPH ?g { VALUES ?x { 1 } } }", true),
            (
                "SELECT * { GRAPH ?g { ?a ?b ?c MINUS { ?d ?e ?f } } }",
                true,
            ),
            (
                "SELECT * { GRAPH ?g { SELECT (COUNT(*) AS ?c) { ?s ?p ?o } } }",
                true,
            ),
            (
                "ASK { ?x ?y ?z { GRAPH ?g { FILTER(true) VALUES ?x { 1 } } } }",
                true,
            ),
        ] {
            assert_eq!(needs_rewrite(&parse(query)), expected, "{query}");
        }
    }

    #[test]
    fn the_rewrite_is_one_branch_per_graph_joined_with_the_graph_name() {
        let query = parse("SELECT ?g ?t { GRAPH ?g { VALUES (?g ?t) { (UNDEF 1) } } }");
        let graphs = [
            NamedNode::new_unchecked("http://e/1"),
            NamedNode::new_unchecked("http://e/2"),
        ];
        let rewritten = rewrite(&query, &graphs).unwrap().to_string();
        assert!(!needs_rewrite(&parse(&rewritten)), "{rewritten}");
        for graph in ["http://e/1", "http://e/2"] {
            assert!(
                rewritten.contains(&format!("GRAPH <{graph}>")),
                "{rewritten}"
            );
        }
        assert!(rewritten.contains("UNION"), "{rewritten}");
        let none = rewrite(&query, &[]).unwrap().to_string();
        assert!(!none.contains("GRAPH"), "{none}");
    }

    #[test]
    fn a_rewrite_past_the_budget_is_refused() {
        let query = parse("SELECT * { GRAPH ?g { VALUES ?x { 1 } } }");
        let graphs: Vec<_> = (0..MAX_COPIED_NODES)
            .map(|i| NamedNode::new_unchecked(format!("http://e/{i}")))
            .collect();
        assert!(matches!(
            rewrite(&query, &graphs),
            Err(StoreError::TooLarge(_))
        ));
    }
}
