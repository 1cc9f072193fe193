//! The two kinds of read of the `concurrency` benchmark, as spargebra queries.
//!
//! Every version of the graph gives all its quads the same version number, so a read sees a
//! mix of two versions when the versions it gets differ, and a partial graph when it counts
//! fewer quads than it asked for.
//!
//! - A **typical read** is what a client of a published graph asks: in one query, the
//!   version of [`SPREAD`] subjects spread over the whole graph (the first, the last and
//!   random ones) and of a run of [`RUN`] consecutive subjects from a random start (a
//!   "subject range"): `SELECT (COUNT(*) AS ?n) (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) WHERE
//!   { VALUES ?s { … } GRAPH <g> { ?s <version> ?v } }`. Whole iff `?n` is the number of
//!   subjects asked for and `?lo = ?hi`.
//! - A **whole-graph audit** counts every quad of the graph and takes the smallest and largest
//!   version: the same query without `VALUES`. Whole iff `?n` is the graph's size and
//!   `?lo = ?hi`.

use crate::rng::Rng;
use oxrdf::{Literal, NamedNode, Variable};
use spargebra::algebra::{AggregateExpression, AggregateFunction, Expression, GraphPattern};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;

/// The replaced graph.
pub(super) const GRAPH: &str = "http://concurrency.example/g";
/// The predicate every quad of it uses, with the version number as object.
pub(super) const VERSION: &str = "http://concurrency.example/version";

/// Subjects spread over the graph in one typical read (first, last, and random ones).
pub(super) const SPREAD: usize = 8;
/// Consecutive subjects in one typical read.
pub(super) const RUN: usize = 32;

/// The IRI of the `k`-th subject.
pub(super) fn subject(k: usize) -> String {
    format!("{GRAPH}/s{k}")
}

/// One read to send, and the count a whole answer has.
pub(super) struct Read {
    /// The query text (printed from its algebra).
    pub query: String,
    /// `?n` of a whole answer.
    pub expected: usize,
}

/// A whole-graph audit of a graph of `quads` quads.
pub(super) fn audit(quads: usize) -> Read {
    Read {
        query: count_versions(None),
        expected: quads,
    }
}

/// A typical read of a graph of `quads` subjects, drawn from `rng`.
pub(super) fn typical(quads: usize, rng: &mut Rng) -> Read {
    let mut subjects = vec![0, quads.saturating_sub(1)];
    while subjects.len() < SPREAD.min(quads) {
        subjects.push(rng.below(quads));
    }
    let start = rng.below(quads.saturating_sub(RUN).max(1));
    subjects.extend(start..(start + RUN).min(quads));
    subjects.sort_unstable();
    subjects.dedup();
    Read {
        query: count_versions(Some(&subjects)),
        expected: subjects.len(),
    }
}

/// `SELECT (COUNT(*) AS ?n) (MIN(?v) AS ?lo) (MAX(?v) AS ?hi)` over the version quads of the
/// graph, of the given subjects only if there are some.
fn count_versions(subjects: Option<&[usize]>) -> String {
    let [s, v, n, lo, hi] = ["s", "v", "n", "lo", "hi"].map(Variable::new_unchecked);
    let quad = GraphPattern::Graph {
        name: NamedNodePattern::NamedNode(NamedNode::new_unchecked(GRAPH)),
        inner: Box::new(GraphPattern::Bgp {
            patterns: vec![TriplePattern {
                subject: TermPattern::Variable(s.clone()),
                predicate: NamedNodePattern::NamedNode(NamedNode::new_unchecked(VERSION)),
                object: TermPattern::Variable(v.clone()),
            }],
        }),
    };
    let inner = match subjects {
        None => quad,
        Some(subjects) => GraphPattern::Join {
            left: Box::new(GraphPattern::Values {
                variables: vec![s],
                bindings: subjects
                    .iter()
                    .map(|k| {
                        vec![Some(GroundTerm::NamedNode(NamedNode::new_unchecked(
                            subject(*k),
                        )))]
                    })
                    .collect(),
            }),
            right: Box::new(quad),
        },
    };
    let of_v = |name| AggregateExpression::FunctionCall {
        name,
        expr: Expression::Variable(v.clone()),
        distinct: false,
    };
    let pattern = GraphPattern::Project {
        inner: Box::new(GraphPattern::Group {
            inner: Box::new(inner),
            variables: Vec::new(),
            aggregates: vec![
                (
                    n.clone(),
                    AggregateExpression::CountSolutions { distinct: false },
                ),
                (lo.clone(), of_v(AggregateFunction::Min)),
                (hi.clone(), of_v(AggregateFunction::Max)),
            ],
        }),
        variables: vec![n, lo, hi],
    };
    Query::Select {
        dataset: None,
        pattern,
        base_iri: None,
    }
    .to_string()
}

/// The body of version `version` of the graph (Turtle).
pub(super) fn version_body(version: u64, quads: usize) -> String {
    let object = Literal::from(version as i64);
    (0..quads)
        .map(|k| format!("<{}> <{VERSION}> {object} .\n", subject(k)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::SparqlParser;

    #[test]
    fn reads_print_as_queries_that_parse() {
        let mut rng = Rng::new(7);
        let read = typical(10_000, &mut rng);
        SparqlParser::new()
            .parse_query(&read.query)
            .expect("a query");
        assert!(read.query.contains("VALUES"), "{}", read.query);
        assert!(read.query.contains("COUNT(*)"), "{}", read.query);
        assert!(read.expected > RUN && read.expected <= SPREAD + RUN);
        assert!(read.query.contains(&format!("<{}>", subject(0))));
        assert!(read.query.contains(&format!("<{}>", subject(9_999))));
        let audit = audit(10_000);
        SparqlParser::new()
            .parse_query(&audit.query)
            .expect("a query");
        assert_eq!(audit.expected, 10_000);
    }

    #[test]
    fn a_small_graph_asks_for_each_subject_once() {
        let read = typical(3, &mut Rng::new(1));
        assert_eq!(read.expected, 3);
    }
}
