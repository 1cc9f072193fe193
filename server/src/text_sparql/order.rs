//! The order in which the rest of a BGP is evaluated once per hit of the index: from the
//! variables the hit binds outwards, each next triple pattern one that shares a variable with
//! those bound so far, fixed by nesting `LATERAL`s.
//!
//! Left to the optimizer, the rest of `?p a bsbm:Product . ?p rdfs:label ?l . ?l bif:contains
//! "w"` may start from the class: its estimate (object and predicate fixed) equals that of
//! `?p rdfs:label ?l` with `?l` bound, and the first of equals wins. Evaluated per hit, that
//! scans every member of the class for each matching literal; from `?l`, it is one look-up of
//! the literal's subjects and one membership test per subject.

use spargebra::algebra::GraphPattern;
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern, Variable};
use std::collections::HashSet;

/// `rest` as a chain of `LATERAL`s starting from the triple patterns that use a variable of
/// `bound` (the hit's), greedily: each step takes, among the patterns sharing a variable with
/// those bound so far, the one with the most positions fixed (constants or bound variables),
/// the earliest written on a tie. Patterns sharing no variable with the chain follow as one
/// BGP, ordered by the optimizer. A BGP with blank nodes is left whole (a blank node's scope is
/// its BGP), as is one of fewer than two patterns.
pub(super) fn from_bound(rest: Vec<TriplePattern>, bound: &[Variable]) -> GraphPattern {
    if rest.len() < 2 || rest.iter().any(has_blank_node) {
        return GraphPattern::Bgp { patterns: rest };
    }
    let mut bound: HashSet<Variable> = bound.iter().cloned().collect();
    let mut todo = rest;
    let mut chain: Option<GraphPattern> = None;
    while let Some(next) = todo
        .iter()
        .enumerate()
        .filter(|(_, t)| variables(t).any(|v| bound.contains(v)))
        .max_by_key(|(i, t)| (fixed(t, &bound), std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
    {
        let triple = todo.remove(next);
        bound.extend(variables(&triple).cloned());
        let step = GraphPattern::Bgp {
            patterns: vec![triple],
        };
        chain = Some(match chain {
            None => step,
            Some(chain) => GraphPattern::Lateral {
                left: Box::new(chain),
                right: Box::new(step),
            },
        });
    }
    match chain {
        None => GraphPattern::Bgp { patterns: todo },
        Some(chain) if todo.is_empty() => chain,
        Some(chain) => GraphPattern::Join {
            left: Box::new(chain),
            right: Box::new(GraphPattern::Bgp { patterns: todo }),
        },
    }
}

/// The variables of a triple pattern.
fn variables(triple: &TriplePattern) -> impl Iterator<Item = &Variable> {
    fn term(t: &TermPattern) -> Option<&Variable> {
        match t {
            TermPattern::Variable(v) => Some(v),
            _ => None,
        }
    }
    let predicate = match &triple.predicate {
        NamedNodePattern::Variable(v) => Some(v),
        NamedNodePattern::NamedNode(_) => None,
    };
    term(&triple.subject)
        .into_iter()
        .chain(predicate)
        .chain(term(&triple.object))
}

/// How many of the three positions are fixed: constants or variables already bound.
fn fixed(triple: &TriplePattern, bound: &HashSet<Variable>) -> usize {
    let term = |t: &TermPattern| match t {
        TermPattern::Variable(v) => bound.contains(v),
        _ => true,
    };
    let predicate = match &triple.predicate {
        NamedNodePattern::Variable(v) => bound.contains(v),
        NamedNodePattern::NamedNode(_) => true,
    };
    usize::from(term(&triple.subject)) + usize::from(predicate) + usize::from(term(&triple.object))
}

fn has_blank_node(triple: &TriplePattern) -> bool {
    let blank = |t: &TermPattern| matches!(t, TermPattern::BlankNode(_));
    blank(&triple.subject) || blank(&triple.object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::term::NamedNode;

    fn var(name: &str) -> TermPattern {
        TermPattern::Variable(Variable::new_unchecked(name))
    }

    fn iri(name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("http://example.org/{name}"))
    }

    fn triple(subject: TermPattern, predicate: &str, object: TermPattern) -> TriplePattern {
        TriplePattern {
            subject,
            predicate: NamedNodePattern::NamedNode(iri(predicate)),
            object,
        }
    }

    /// The triple patterns of a chain, in evaluation order.
    fn order(pattern: &GraphPattern) -> Vec<TriplePattern> {
        match pattern {
            GraphPattern::Bgp { patterns } => patterns.clone(),
            GraphPattern::Lateral { left, right } | GraphPattern::Join { left, right } => {
                let mut out = order(left);
                out.extend(order(right));
                out
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn starts_from_the_bound_variable_not_the_class() {
        let class = triple(var("p"), "type", iri("Product").into());
        let label = triple(var("p"), "label", var("l"));
        let chain = from_bound(
            vec![class.clone(), label.clone()],
            &[Variable::new_unchecked("l")],
        );
        assert!(matches!(chain, GraphPattern::Lateral { .. }));
        assert_eq!(order(&chain), [label, class]);
    }

    #[test]
    fn follows_shared_variables_and_leaves_the_disconnected_to_the_optimizer() {
        let producer_label = triple(
            var("x"),
            "label",
            TermPattern::Literal(oxrdf::Literal::new_simple_literal("P")),
        );
        let producer = triple(var("p"), "producer", var("x"));
        let label = triple(var("p"), "label", var("l"));
        let other = triple(var("z"), "type", iri("Thing").into());
        let chain = from_bound(
            vec![
                producer_label.clone(),
                other.clone(),
                producer.clone(),
                label.clone(),
            ],
            &[Variable::new_unchecked("l")],
        );
        assert!(matches!(chain, GraphPattern::Join { .. }));
        assert_eq!(order(&chain), [label, producer, producer_label, other]);
    }

    #[test]
    fn blank_nodes_and_single_patterns_stay_a_bgp() {
        let blank = triple(
            TermPattern::BlankNode(oxrdf::BlankNode::new_unchecked("b")),
            "label",
            var("l"),
        );
        let class = triple(var("p"), "type", iri("Product").into());
        let bound = [Variable::new_unchecked("l")];
        assert!(matches!(
            from_bound(vec![blank, class.clone()], &bound),
            GraphPattern::Bgp { .. }
        ));
        assert!(matches!(
            from_bound(vec![class], &bound),
            GraphPattern::Bgp { .. }
        ));
    }
}
