//! The equivalent SPARQL query of a facet query, built as `spargebra` algebra and printed.
//!
//! Node *i* of the tree (depth-first order, the root first) is `?e{i}`; the root's terms are
//! subjects (`?e0 ?p0 ?o0`), a `property` edge is `?parent <p> ?child`, a `property-of` edge
//! `?child <p> ?parent`, an excluded edge or class is `FILTER NOT EXISTS`, value conditions
//! are filters on the node's variable (`sameTerm` for `eq`/`neq`/`in`, so that they compare
//! terms exactly as the engine does). The views project the focus variable:
//! `SELECT DISTINCT ?eN` for entities, `SELECT ?key (COUNT(DISTINCT ?eN) AS ?count) … GROUP BY
//! ?key ORDER BY DESC(?count) ?key` for the counting views, with the page's LIMIT/OFFSET.
//! The `ranges` view lists its buckets in `VALUES (?lower ?upper ?closed)` and counts, per
//! bucket, the focus terms with a value `?v` such that `?v >= ?lower && (?v < ?upper ||
//! ?closed && ?v <= ?upper)` (an `OPTIONAL`, so that empty buckets count 0). Run
//! at `/sparql` (whose default graph is the union of all graphs), it gives the same rows —
//! as a set: equal counts may be ordered differently.

use crate::model::{Comparison, Direction, FacetQuery, Node, ValueCondition, ViewKind};
use crate::ranges::Bucket;
use crate::text::TextMatcher;
use oxrdf::vocab::rdf;
use oxrdf::{Literal, NamedNode, Term, Variable};
use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use spargebra::Query;

/// The variable a view's keys are bound to.
pub fn key_variable(kind: ViewKind) -> &'static str {
    match kind {
        ViewKind::Entities => "entity",
        ViewKind::Classes => "class",
        ViewKind::Properties | ViewKind::PropertiesIn => "property",
        ViewKind::Values => "value",
        ViewKind::Graphs => "graph",
        ViewKind::Ranges => "lower",
        ViewKind::TextProperties => "property",
    }
}

/// Builds the query; `None` only for a query without a view (rejected earlier). `buckets`
/// are the bounds of a `ranges` view (ignored by the other views).
pub fn equivalent_query(
    query: &FacetQuery,
    matcher: &dyn TextMatcher,
    buckets: &[Bucket],
) -> Option<Query> {
    let view = query.view()?.clone();
    let mut builder = Builder {
        matcher,
        nodes: 0,
        helpers: 0,
        focus: None,
    };
    let root = builder.fresh_node();
    let binder = builder.root_binder(&query.root, &root);
    let pattern = builder.node(&query.root, &root, binder)?;
    let focus = builder.focus.clone()?;
    let key = Variable::new_unchecked(key_variable(view.kind));
    let count = Variable::new_unchecked("count");
    let focus_term = TermPattern::Variable(focus.clone());
    let key_term = TermPattern::Variable(key.clone());
    let body = match view.kind {
        ViewKind::Entities => {
            let score = Variable::new_unchecked("score");
            let ranked = focus_text(&query.root)
                .filter(|text| !crate::model::text_words(text).is_empty())
                .and_then(|text| matcher.ranked_pattern(&focus, &text, &score));
            let (inner, variables) = match ranked {
                // Ranked as the list is: by the text score, equal scores by IRI.
                Some(ranked) => (
                    GraphPattern::OrderBy {
                        inner: Box::new(join(pattern, ranked)),
                        expression: vec![
                            OrderExpression::Desc(Expression::Variable(score.clone())),
                            OrderExpression::Asc(Expression::FunctionCall(
                                Function::Str,
                                vec![Expression::Variable(focus.clone())],
                            )),
                        ],
                    },
                    vec![focus, score],
                ),
                None => (pattern, vec![focus]),
            };
            let projected = GraphPattern::Project {
                inner: Box::new(inner),
                variables,
            };
            return Some(select(slice(
                GraphPattern::Distinct {
                    inner: Box::new(projected),
                },
                view.offset,
                view.limit,
            )));
        }
        ViewKind::Classes => triple(focus_term, NamedNode::from(rdf::TYPE).into(), key_term),
        ViewKind::Properties => triple(
            focus_term,
            NamedNodePattern::Variable(key.clone()),
            TermPattern::Variable(builder.helper("o")),
        ),
        ViewKind::PropertiesIn => triple(
            TermPattern::Variable(builder.helper("s")),
            NamedNodePattern::Variable(key.clone()),
            focus_term,
        ),
        ViewKind::Values => triple(focus_term, view.property.clone()?.into(), key_term),
        ViewKind::TextProperties => {
            let text = builder.helper("text");
            let matched = GraphPattern::Filter {
                expr: contains_words(&text, &focus_text(&query.root).unwrap_or_default()),
                inner: Box::new(GraphPattern::Bgp {
                    patterns: vec![triple(
                        focus_term,
                        NamedNodePattern::Variable(key.clone()),
                        TermPattern::Variable(text),
                    )],
                }),
            };
            return Some(select(counted(
                join(pattern, matched),
                &key,
                &count,
                &focus,
                view.offset,
                view.limit,
            )));
        }
        ViewKind::Ranges => {
            let value = builder.helper("v");
            let linked = join(
                pattern,
                GraphPattern::Bgp {
                    patterns: vec![triple(
                        focus_term,
                        view.property.clone()?.into(),
                        TermPattern::Variable(value.clone()),
                    )],
                },
            );
            return Some(select(bucketed(
                linked,
                &value,
                &focus,
                buckets,
                view.offset,
                view.limit,
            )));
        }
        ViewKind::Graphs => {
            let inner = GraphPattern::Bgp {
                patterns: vec![triple(
                    focus_term,
                    NamedNodePattern::Variable(builder.helper("p")),
                    TermPattern::Variable(builder.helper("o")),
                )],
            };
            let graph = GraphPattern::Graph {
                name: NamedNodePattern::Variable(key.clone()),
                inner: Box::new(inner),
            };
            return Some(select(counted(
                join(pattern, graph),
                &key,
                &count,
                &focus,
                view.offset,
                view.limit,
            )));
        }
    };
    let pattern = join(
        pattern,
        GraphPattern::Bgp {
            patterns: vec![body],
        },
    );
    Some(select(counted(
        pattern,
        &key,
        &count,
        &focus,
        view.offset,
        view.limit,
    )))
}

fn select(pattern: GraphPattern) -> Query {
    Query::Select {
        dataset: None,
        pattern,
        base_iri: None,
    }
}

fn slice(pattern: GraphPattern, offset: usize, limit: usize) -> GraphPattern {
    GraphPattern::Slice {
        inner: Box::new(pattern),
        start: offset,
        length: Some(limit),
    }
}

/// `SELECT ?key (COUNT(DISTINCT ?focus) AS ?count) … GROUP BY ?key ORDER BY DESC(?count) ?key`.
fn counted(
    pattern: GraphPattern,
    key: &Variable,
    count: &Variable,
    focus: &Variable,
    offset: usize,
    limit: usize,
) -> GraphPattern {
    let grouped = GraphPattern::Group {
        inner: Box::new(pattern),
        variables: vec![key.clone()],
        aggregates: vec![count_distinct(count, focus)],
    };
    let ordered = GraphPattern::OrderBy {
        inner: Box::new(grouped),
        expression: vec![
            OrderExpression::Desc(Expression::Variable(count.clone())),
            OrderExpression::Asc(Expression::Variable(key.clone())),
        ],
    };
    let projected = GraphPattern::Project {
        inner: Box::new(ordered),
        variables: vec![key.clone(), count.clone()],
    };
    slice(projected, offset, limit)
}

/// `SELECT ?lower ?upper (COUNT(DISTINCT ?focus) AS ?count) { VALUES (?lower ?upper ?closed)
/// {…} OPTIONAL { pattern FILTER(?v >= ?lower && (?v < ?upper || ?closed && ?v <= ?upper)) } }
/// GROUP BY ?lower ?upper ORDER BY ?lower`.
fn bucketed(
    pattern: GraphPattern,
    value: &Variable,
    focus: &Variable,
    buckets: &[Bucket],
    offset: usize,
    limit: usize,
) -> GraphPattern {
    let [lower, upper, closed, count] =
        ["lower", "upper", "closed", "count"].map(Variable::new_unchecked);
    let var = |v: &Variable| Box::new(Expression::Variable(v.clone()));
    let table = GraphPattern::Values {
        variables: vec![lower.clone(), upper.clone(), closed.clone()],
        bindings: buckets
            .iter()
            .map(|b| {
                vec![
                    Some(GroundTerm::Literal(b.lower.clone())),
                    Some(GroundTerm::Literal(b.upper.clone())),
                    Some(GroundTerm::Literal(Literal::from(b.closed))),
                ]
            })
            .collect(),
    };
    let within = and(
        Expression::GreaterOrEqual(var(value), var(&lower)),
        Expression::Or(
            Box::new(Expression::Less(var(value), var(&upper))),
            Box::new(and(
                Expression::Variable(closed),
                Expression::LessOrEqual(var(value), var(&upper)),
            )),
        ),
    );
    let counted = GraphPattern::Group {
        inner: Box::new(GraphPattern::LeftJoin {
            left: Box::new(table),
            right: Box::new(pattern),
            expression: Some(within),
        }),
        variables: vec![lower.clone(), upper.clone()],
        aggregates: vec![count_distinct(&count, focus)],
    };
    let ordered = GraphPattern::OrderBy {
        inner: Box::new(counted),
        expression: vec![OrderExpression::Asc(Expression::Variable(lower.clone()))],
    };
    let projected = GraphPattern::Project {
        inner: Box::new(ordered),
        variables: vec![lower, upper, count],
    };
    slice(projected, offset, limit)
}

fn triple(subject: TermPattern, predicate: NamedNodePattern, object: TermPattern) -> TriplePattern {
    TriplePattern {
        subject,
        predicate,
        object,
    }
}

fn join(left: GraphPattern, right: GraphPattern) -> GraphPattern {
    match (&left, &right) {
        (GraphPattern::Bgp { patterns }, _) if patterns.is_empty() => right,
        (_, GraphPattern::Bgp { patterns }) if patterns.is_empty() => left,
        (GraphPattern::Bgp { patterns: a }, GraphPattern::Bgp { patterns: b }) => {
            GraphPattern::Bgp {
                patterns: a.iter().chain(b).cloned().collect(),
            }
        }
        _ => GraphPattern::Join {
            left: Box::new(left),
            right: Box::new(right),
        },
    }
}

fn and(left: Expression, right: Expression) -> Expression {
    Expression::And(Box::new(left), Box::new(right))
}

fn term_expression(term: &Term) -> Expression {
    match term {
        Term::NamedNode(n) => Expression::NamedNode(n.clone()),
        Term::Literal(l) => Expression::Literal(l.clone()),
        // Blank nodes are refused by both syntaxes; a blank node in a query would be a
        // variable, so nothing can match it: the same as the engine's unknown term.
        _ => Expression::Literal(Literal::from(false)),
    }
}

struct Builder<'a> {
    matcher: &'a dyn TextMatcher,
    nodes: usize,
    helpers: usize,
    focus: Option<Variable>,
}

impl Builder<'_> {
    fn fresh_node(&mut self) -> Variable {
        let v = Variable::new_unchecked(format!("e{}", self.nodes));
        self.nodes += 1;
        v
    }

    fn helper(&mut self, name: &str) -> Variable {
        let v = Variable::new_unchecked(format!("{name}{}", self.helpers));
        self.helpers += 1;
        v
    }

    /// What binds the root's variable to subjects: its required classes or the forward edge
    /// towards the focus when it has them (nothing to add), else the distinct subjects.
    fn root_binder(&mut self, root: &Node, var: &Variable) -> GraphPattern {
        let bound_as_subject = root.classes.iter().any(|c| !c.exclude)
            || root
                .edges
                .iter()
                .any(|e| !e.exclude && e.direction == Direction::Forward && contains_view(&e.node));
        if bound_as_subject {
            return GraphPattern::Bgp {
                patterns: Vec::new(),
            };
        }
        let subjects = GraphPattern::Bgp {
            patterns: vec![triple(
                TermPattern::Variable(var.clone()),
                NamedNodePattern::Variable(self.helper("p")),
                TermPattern::Variable(self.helper("o")),
            )],
        };
        GraphPattern::Distinct {
            inner: Box::new(GraphPattern::Project {
                inner: Box::new(subjects),
                variables: vec![var.clone()],
            }),
        }
    }

    /// The pattern of a node and its subtree, binding `var` to the node's terms; `base` binds
    /// `var` (the edge from the parent, or the root's binder) and sits inside the node's group
    /// so that the node's filters see `var` bound. Only the edges towards the focus are
    /// joined; text and every other edge are `FILTER EXISTS`, so that no constraint
    /// multiplies the solutions.
    fn node(&mut self, node: &Node, var: &Variable, base: GraphPattern) -> Option<GraphPattern> {
        if node.view.is_some() {
            self.focus = Some(var.clone());
        }
        let this = TermPattern::Variable(var.clone());
        let mut pattern = base;
        let mut filters: Vec<Expression> = Vec::new();
        if let Some(text) = &node.text {
            if !crate::model::text_words(text).is_empty() {
                let mut helpers = self.helpers;
                let text_pattern = self.matcher.equivalent_pattern(var, text, &mut |name| {
                    let v = Variable::new_unchecked(format!("{name}{helpers}"));
                    helpers += 1;
                    v
                });
                self.helpers = helpers;
                filters.push(Expression::Exists(Box::new(text_pattern)));
            }
        }
        for class in &node.classes {
            let typed = triple(
                this.clone(),
                NamedNode::from(rdf::TYPE).into(),
                class.iri.clone().into(),
            );
            if class.exclude {
                filters.push(not_exists(GraphPattern::Bgp {
                    patterns: vec![typed],
                }));
            } else {
                pattern = join(
                    pattern,
                    GraphPattern::Bgp {
                        patterns: vec![typed],
                    },
                );
            }
        }
        for condition in &node.values {
            filters.push(condition_expression(condition, var));
        }
        for edge in &node.edges {
            let child = self.fresh_node();
            let other = TermPattern::Variable(child.clone());
            let link = match edge.direction {
                Direction::Forward => triple(this.clone(), edge.property.clone().into(), other),
                Direction::Inverse => triple(other, edge.property.clone().into(), this.clone()),
            };
            let linked = self.node(
                &edge.node,
                &child,
                GraphPattern::Bgp {
                    patterns: vec![link],
                },
            )?;
            if edge.exclude {
                filters.push(not_exists(linked));
            } else if contains_view(&edge.node) {
                pattern = join(pattern, linked);
            } else {
                filters.push(Expression::Exists(Box::new(linked)));
            }
        }
        Some(match filters.into_iter().reduce(and) {
            Some(expr) => GraphPattern::Filter {
                expr,
                inner: Box::new(pattern),
            },
            None => pattern,
        })
    }
}

/// Whether the view is on this node or below it.
fn contains_view(node: &Node) -> bool {
    node.view.is_some() || node.edges.iter().any(|e| contains_view(&e.node))
}

fn not_exists(pattern: GraphPattern) -> Expression {
    Expression::Not(Box::new(Expression::Exists(Box::new(pattern))))
}

fn condition_expression(condition: &ValueCondition, var: &Variable) -> Expression {
    let v = || Box::new(Expression::Variable(var.clone()));
    let same = |t: &Term| Expression::SameTerm(v(), Box::new(term_expression(t)));
    match condition {
        ValueCondition::Eq(t) => same(t),
        ValueCondition::Neq(t) => Expression::Not(Box::new(same(t))),
        ValueCondition::In(terms) => terms
            .iter()
            .map(same)
            .reduce(|a, b| Expression::Or(Box::new(a), Box::new(b)))
            .unwrap_or(Expression::Literal(Literal::from(false))),
        ValueCondition::Compare(op, l) => {
            let c = Box::new(Expression::Literal(l.clone()));
            match op {
                Comparison::Lt => Expression::Less(v(), c),
                Comparison::Lte => Expression::LessOrEqual(v(), c),
                Comparison::Gt => Expression::Greater(v(), c),
                Comparison::Gte => Expression::GreaterOrEqual(v(), c),
            }
        }
        ValueCondition::Range(lo, hi) => and(
            Expression::GreaterOrEqual(v(), Box::new(Expression::Literal(lo.clone()))),
            Expression::LessOrEqual(v(), Box::new(Expression::Literal(hi.clone()))),
        ),
        ValueCondition::NotIn(terms) => Expression::Not(Box::new(
            terms
                .iter()
                .map(same)
                .reduce(|a, b| Expression::Or(Box::new(a), Box::new(b)))
                .unwrap_or(Expression::Literal(Literal::from(false))),
        )),
        ValueCondition::Contains(text) => contains_words(var, text),
        ValueCondition::NotContains(text) => Expression::Not(Box::new(contains_words(var, text))),
        ValueCondition::Lang(range) => Expression::FunctionCall(
            Function::LangMatches,
            vec![
                Expression::FunctionCall(Function::Lang, vec![Expression::Variable(var.clone())]),
                Expression::Literal(Literal::from(range.as_str())),
            ],
        ),
    }
}

/// `(COUNT(DISTINCT ?focus) AS ?count)`.
fn count_distinct(count: &Variable, focus: &Variable) -> (Variable, AggregateExpression) {
    (
        count.clone(),
        AggregateExpression::FunctionCall {
            name: AggregateFunction::Count,
            expr: Expression::Variable(focus.clone()),
            distinct: true,
        },
    )
}

/// `isLiteral(?v) && CONTAINS(LCASE(STR(?v)), "w1") && …`: the scan matcher's rule for the
/// words of `text` (the `contains` condition and the `text-properties` view).
fn contains_words(var: &Variable, text: &str) -> Expression {
    let lowered = Expression::FunctionCall(
        Function::LCase,
        vec![Expression::FunctionCall(
            Function::Str,
            vec![Expression::Variable(var.clone())],
        )],
    );
    crate::model::text_words(text).into_iter().fold(
        Expression::FunctionCall(Function::IsLiteral, vec![Expression::Variable(var.clone())]),
        |acc, word| {
            and(
                acc,
                Expression::FunctionCall(
                    Function::Contains,
                    vec![lowered.clone(), Expression::Literal(Literal::from(word))],
                ),
            )
        },
    )
}

/// The text of the node that carries the view.
fn focus_text(node: &Node) -> Option<String> {
    if node.view.is_some() {
        return node.text.clone();
    }
    node.edges.iter().find_map(|e| focus_text(&e.node))
}

/// The query read from one graph only (`FROM <graph> FROM NAMED <graph>`), as the facet
/// query's `graph` asks.
pub fn in_graph(query: Query, graph: Option<&NamedNode>) -> Query {
    match (query, graph) {
        (
            Query::Select {
                pattern, base_iri, ..
            },
            Some(graph),
        ) => Query::Select {
            dataset: Some(spargebra::algebra::QueryDataset {
                default: vec![graph.clone()],
                named: Some(vec![graph.clone()]),
            }),
            pattern,
            base_iri,
        },
        (query, _) => query,
    }
}
