//! The depth of a parsed query or update, measured without recursion.
//!
//! The text scan of [`super::nesting`] bounds brackets and the number of operators before the
//! parser runs, but the parser folds a chain (`1+1+…`, `{} UNION {} …`, a run of `OPTIONAL`s,
//! a path `a/b/c…`) into a tree as deep as the chain is long, and the evaluator then recurses
//! once per level while it builds the plan and again for every solution it pulls. So the parsed
//! tree is walked here with an explicit stack, and a tree deeper than [`MAX_TREE_DEPTH`] is
//! refused before anything evaluates it. A basic graph pattern counts one level per triple
//! pattern, since the evaluator joins its patterns one inside the other.
//!
//! The threads that parse, evaluate and drop these trees have stacks sized for every tree the
//! two bounds admit ([`crate::priority::STACK_BYTES`]).

use crate::error::ApiError;
use spargebra::algebra::{
    AggregateExpression, Expression, GraphPattern, OrderExpression, PropertyPathExpression,
};
use spargebra::term::{GroundQuadPattern, QuadPattern, TriplePattern};
use spargebra::{GraphUpdateOperation, Query, Update};

/// The deepest parsed tree accepted: far beyond what people and tools write (a hand-written
/// query rarely passes 50), far below what the server's stacks hold.
pub const MAX_TREE_DEPTH: usize = 1_000;

/// The most triple patterns and path steps a query may have for the optimizer to plan it.
/// Its planning time grows with the cube of that number (0.07 s at 100, 1.5 s at 300, minutes
/// at 1,000, measured) and nothing can cancel it; larger patterns are evaluated as written,
/// which the time budget does stop.
pub const MAX_OPTIMIZED_PATTERNS: usize = 128;

/// What the walk of a parsed tree finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeShape {
    /// The depth of the deepest node.
    pub depth: usize,
    /// Triple and quad patterns and property path steps, in all.
    pub patterns: usize,
}

impl TreeShape {
    /// Whether the optimizer may plan the query (see [`MAX_OPTIMIZED_PATTERNS`]).
    pub fn optimizable(&self) -> bool {
        self.patterns <= MAX_OPTIMIZED_PATTERNS
    }
}

/// A node of the algebra still to visit, with its depth.
enum Node<'a> {
    Pattern(&'a GraphPattern),
    Expression(&'a Expression),
    Path(&'a PropertyPathExpression),
    Triples(&'a [TriplePattern]),
    Quads(&'a [QuadPattern]),
    GroundQuads(&'a [GroundQuadPattern]),
}

/// Refuses a query whose tree is deeper than [`MAX_TREE_DEPTH`]; returns its shape otherwise.
pub fn check_query(query: &Query) -> Result<TreeShape, ApiError> {
    let (pattern, template) = match query {
        Query::Select { pattern, .. }
        | Query::Ask { pattern, .. }
        | Query::Describe { pattern, .. } => (pattern, None),
        Query::Construct {
            template, pattern, ..
        } => (pattern, Some(template.as_slice())),
    };
    let mut roots = vec![Node::Pattern(pattern)];
    roots.extend(template.map(Node::Triples));
    check(roots)
}

/// Refuses an update any of whose operations is deeper than [`MAX_TREE_DEPTH`]; returns the
/// shape of all its operations otherwise.
pub fn check_update(update: &Update) -> Result<TreeShape, ApiError> {
    let mut roots = Vec::new();
    for operation in &update.operations {
        match operation {
            GraphUpdateOperation::DeleteInsert {
                delete,
                insert,
                pattern,
                ..
            } => {
                roots.push(Node::GroundQuads(delete));
                roots.push(Node::Quads(insert));
                roots.push(Node::Pattern(pattern));
            }
            GraphUpdateOperation::InsertData { .. }
            | GraphUpdateOperation::DeleteData { .. }
            | GraphUpdateOperation::Load { .. }
            | GraphUpdateOperation::Clear { .. }
            | GraphUpdateOperation::Create { .. }
            | GraphUpdateOperation::Drop { .. } => {}
        }
    }
    check(roots)
}

fn check(roots: Vec<Node<'_>>) -> Result<TreeShape, ApiError> {
    let shape = measure(roots);
    let depth = shape.depth;
    if depth > MAX_TREE_DEPTH {
        return Err(ApiError::TooComplex(format!(
            "the request's algebra is {depth} levels deep (each operator, join, union, optional, \
             path step and triple pattern is a level); the limit is {MAX_TREE_DEPTH}"
        )));
    }
    Ok(shape)
}

/// The depth of the deepest node under `roots` (each root at depth 1), and the number of
/// patterns and path steps.
///
/// Stops as soon as the depth limit is passed: the depth is then some depth above it.
fn measure(roots: Vec<Node<'_>>) -> TreeShape {
    let mut stack: Vec<(Node<'_>, usize)> = roots.into_iter().map(|n| (n, 1)).collect();
    let mut deepest = 0;
    let mut patterns = 0_usize;
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if deepest > MAX_TREE_DEPTH {
            break;
        }
        let below = depth + 1;
        match node {
            Node::Pattern(pattern) => push_pattern_children(pattern, below, &mut stack),
            Node::Expression(expression) => {
                push_expression_children(expression, below, &mut stack);
            }
            Node::Path(path) => match path {
                PropertyPathExpression::NamedNode(_)
                | PropertyPathExpression::NegatedPropertySet(_) => patterns += 1,
                PropertyPathExpression::Reverse(inner)
                | PropertyPathExpression::ZeroOrMore(inner)
                | PropertyPathExpression::OneOrMore(inner)
                | PropertyPathExpression::ZeroOrOne(inner) => {
                    stack.push((Node::Path(inner), below));
                }
                PropertyPathExpression::Sequence(a, b)
                | PropertyPathExpression::Alternative(a, b) => {
                    stack.push((Node::Path(a), below));
                    stack.push((Node::Path(b), below));
                }
            },
            // Without RDF 1.2 terms a pattern holds no nested triple: a list of them is as
            // deep as it is long.
            Node::Triples(triples) => {
                deepest = deepest.max(depth + triples.len());
                patterns += triples.len();
            }
            Node::Quads(quads) => {
                deepest = deepest.max(depth + quads.len());
                patterns += quads.len();
            }
            Node::GroundQuads(quads) => {
                deepest = deepest.max(depth + quads.len());
                patterns += quads.len();
            }
        }
    }
    TreeShape {
        depth: deepest,
        patterns,
    }
}

fn push_pattern_children<'a>(
    pattern: &'a GraphPattern,
    below: usize,
    stack: &mut Vec<(Node<'a>, usize)>,
) {
    match pattern {
        GraphPattern::Bgp { patterns } => {
            stack.push((Node::Triples(patterns), below));
        }
        GraphPattern::Path { path, .. } => stack.push((Node::Path(path), below)),
        GraphPattern::Join { left, right }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            stack.push((Node::Pattern(left), below));
            stack.push((Node::Pattern(right), below));
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            stack.push((Node::Pattern(left), below));
            stack.push((Node::Pattern(right), below));
            if let Some(expression) = expression {
                stack.push((Node::Expression(expression), below));
            }
        }
        GraphPattern::Filter { expr, inner } => {
            stack.push((Node::Expression(expr), below));
            stack.push((Node::Pattern(inner), below));
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            stack.push((Node::Expression(expression), below));
            stack.push((Node::Pattern(inner), below));
        }
        GraphPattern::OrderBy { inner, expression } => {
            stack.push((Node::Pattern(inner), below));
            for order in expression {
                let (OrderExpression::Asc(e) | OrderExpression::Desc(e)) = order;
                stack.push((Node::Expression(e), below));
            }
        }
        GraphPattern::Group {
            inner, aggregates, ..
        } => {
            stack.push((Node::Pattern(inner), below));
            for (_, aggregate) in aggregates {
                if let AggregateExpression::FunctionCall { expr, .. } = aggregate {
                    stack.push((Node::Expression(expr), below));
                }
            }
        }
        GraphPattern::Graph { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Service { inner, .. } => stack.push((Node::Pattern(inner), below)),
        GraphPattern::Values { .. } => {}
    }
}

fn push_expression_children<'a>(
    expression: &'a Expression,
    below: usize,
    stack: &mut Vec<(Node<'a>, usize)>,
) {
    match expression {
        Expression::NamedNode(_)
        | Expression::Literal(_)
        | Expression::Variable(_)
        | Expression::Bound(_) => {}
        Expression::Or(a, b)
        | Expression::And(a, b)
        | Expression::Equal(a, b)
        | Expression::SameTerm(a, b)
        | Expression::Greater(a, b)
        | Expression::GreaterOrEqual(a, b)
        | Expression::Less(a, b)
        | Expression::LessOrEqual(a, b)
        | Expression::Add(a, b)
        | Expression::Subtract(a, b)
        | Expression::Multiply(a, b)
        | Expression::Divide(a, b) => {
            stack.push((Node::Expression(a), below));
            stack.push((Node::Expression(b), below));
        }
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
            stack.push((Node::Expression(a), below));
        }
        Expression::If(a, b, c) => {
            for e in [a, b, c] {
                stack.push((Node::Expression(e), below));
            }
        }
        Expression::In(a, list) => {
            stack.push((Node::Expression(a), below));
            stack.extend(list.iter().map(|e| (Node::Expression(e), below)));
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
            stack.extend(list.iter().map(|e| (Node::Expression(e), below)));
        }
        Expression::Exists(pattern) => stack.push((Node::Pattern(pattern), below)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::SparqlParser;

    fn query_depth(text: &str) -> usize {
        let query = SparqlParser::new().parse_query(text).expect("parses");
        let (Query::Select { pattern, .. }
        | Query::Ask { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Construct { pattern, .. }) = &query;
        measure(vec![Node::Pattern(pattern)]).depth
    }

    #[test]
    fn everyday_queries_are_shallow() {
        assert!(query_depth("SELECT * WHERE { ?s ?p ?o }") <= 4);
        let bsbm_like = "SELECT DISTINCT ?p ?l WHERE { ?p <http://e/label> ?l . \
            ?p <http://e/feature> ?f . OPTIONAL { ?p <http://e/x> ?x } \
            FILTER(?x > 10 && ?x < 100 || !BOUND(?x)) } ORDER BY ?l LIMIT 10";
        assert!(query_depth(bsbm_like) < 20);
    }

    #[test]
    fn chains_are_as_deep_as_they_are_long() {
        let plus = format!("SELECT ({} AS ?x) WHERE {{}}", vec!["1"; 500].join("+"));
        assert!(query_depth(&plus) >= 500);
        let unions = format!("SELECT * WHERE {{ {} }}", vec!["{}"; 300].join(" UNION "));
        assert!(query_depth(&unions) >= 300);
        let path = format!("ASK {{ ?s {} ?o }}", vec!["<http://e/p>"; 200].join("/"));
        assert!(query_depth(&path) >= 200);
        let triples: String = (0..400)
            .map(|i| format!("?a{i} <http://e/p> ?b . "))
            .collect();
        assert!(query_depth(&format!("ASK {{ {triples} }}")) >= 400);
    }

    #[test]
    fn patterns_and_path_steps_count() {
        let text = "SELECT * WHERE { ?s <http://e/a>/<http://e/b>|^<http://e/c> ?o . ?o ?p ?x }";
        let query = SparqlParser::new().parse_query(text).expect("parses");
        let shape = check_query(&query).expect("accepted");
        assert_eq!(shape.patterns, 4);
        assert!(shape.optimizable());
        let long = format!(
            "ASK {{ ?s {} ?o }}",
            vec!["<http://e/p>"; MAX_OPTIMIZED_PATTERNS + 1].join("/")
        );
        let query = SparqlParser::new().parse_query(&long).expect("parses");
        assert!(!check_query(&query).expect("accepted").optimizable());
    }

    #[test]
    fn deep_trees_are_refused() {
        let optionals = format!(
            "SELECT * WHERE {{ ?s ?p ?o {} }}",
            "OPTIONAL { ?s ?p ?o } ".repeat(MAX_TREE_DEPTH + 10)
        );
        let query = SparqlParser::new().parse_query(&optionals).expect("parses");
        assert!(matches!(check_query(&query), Err(ApiError::TooComplex(_))));
        let update = SparqlParser::new()
            .parse_update(&format!(
                "DELETE WHERE {{ {} }}",
                (0..MAX_TREE_DEPTH + 10)
                    .map(|i| format!("?a{i} <http://e/p> ?b . "))
                    .collect::<String>()
            ))
            .expect("parses");
        assert!(matches!(
            check_update(&update),
            Err(ApiError::TooComplex(_))
        ));
    }
}
