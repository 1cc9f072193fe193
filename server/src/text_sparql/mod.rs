//! Full-text search inside SPARQL, driven by the text index: `?o bif:contains "…"`
//! (Virtuoso), `?s text:query …` (Jena) and `?e lodestone:text [ … ]` (Lodestone's own form).
//!
//! Before a query is evaluated, [`rewrite`] finds these patterns in its BGPs
//! (`patterns.rs`), takes them out and puts in their place either
//! - the index's hits as a `VALUES` table, with the rest of the BGP evaluated once per hit
//!   (`LATERAL`: index first, the hit's terms bound); a literal pattern without a score
//!   streams its literals instead, hit by hit, so that a `LIMIT` stops the reading early,
//!   when the index counts at most `max_hits` matching documents (the setting
//!   [`crate::settings::ServerSettings::max_text_hits`], 10,000 by default), or when the pattern
//!   binds something only the index knows (score, literal, snippet) or nothing else binds
//!   its subject; or
//! - a filter, evaluated row by row over the rest (per-query extension functions asking the
//!   index whether the words match that entity, or testing that literal), when more documents
//!   match and the rest of the BGP binds the pattern's subject: the same rows, without
//!   materialising a large list.
//!
//! Inside `GRAPH`, a hit counts in the graphs that hold its matching literal (`graphs.rs`);
//! Virtuoso's `OPTION (score ?sc)` is read before parsing (`options.rs`); the `WHERE` of an
//! update is planned as a query's is ([`prepare_update`]).
//!
//! The hits are those of `/api/search` for the same words (same tantivy query, analysis and
//! ranking: [`lodestone_indexer::IndexSearcher::text_hits`]). A table holds at most
//! `max_hits` entities, the best ones: a pattern that must be a table (it binds a score, a
//! literal or a snippet, or nothing else binds its subject) sees only those.

mod graphs;
pub mod options;
mod order;
mod patterns;
mod plan;
pub mod virtuoso;

use crate::error::ApiError;
use lodestone_indexer::TextIndex;
use lodestone_store::sparql::{CustomFunction, QueryOptions};
use lodestone_store::Reader;
use oxrdf::NamedNode;
use plan::InGraph;
use spargebra::algebra::{Expression, GraphPattern};
use spargebra::term::NamedNodePattern;
use spargebra::{GraphUpdateOperation, Query, Update};
use std::sync::Arc;

/// Virtuoso's `bif:contains`.
pub const BIF_CONTAINS: &str = "http://www.openlinksw.com/schemas/bif#contains";

/// Jena's `text:query`.
pub const TEXT_QUERY: &str = "http://jena.apache.org/text#query";

/// The namespace of Lodestone's own names (`lodestone:text`, `lodestone:fn:textMatch`).
pub const LODESTONE: &str = "urn:lodestone:";

/// Prefixes every query may use without declaring them.
pub const PREDECLARED: [(&str, &str); 3] = [
    ("bif", "http://www.openlinksw.com/schemas/bif#"),
    ("text", "http://jena.apache.org/text#"),
    ("lodestone", LODESTONE),
];

/// A query with its text patterns replaced, and the extension functions its filters call.
pub struct Rewritten {
    /// The query to evaluate.
    pub query: Query,
    /// Functions to register for this query's evaluation.
    pub functions: Vec<(NamedNode, CustomFunction)>,
}

/// The query to evaluate with the options to evaluate it with: its text patterns replaced,
/// the functions their filters call added. Blocking (it may search the index).
pub fn prepare(
    index: Option<&Arc<TextIndex>>,
    max_hits: usize,
    reader: &Reader<'_>,
    query: Query,
    options: QueryOptions,
) -> Result<(Query, QueryOptions), ApiError> {
    let rewritten = rewrite(index, max_hits, reader, query)?;
    let options = rewritten
        .functions
        .into_iter()
        .fold(options, |options, (name, function)| {
            options.with_function(name, function)
        });
    Ok((rewritten.query, options))
}

/// The text patterns of every `DELETE`/`INSERT … WHERE` of an update replaced, as a query's
/// are, with the functions their filters call added to the options. Blocking.
///
/// `reader` is the store as the update starts (updates run one at a time, so it is the
/// snapshot the update's transaction starts from); the planner waits, as for a query, until
/// the index reflects that snapshot's last commit. The hits are computed once, before the
/// first operation runs: operations earlier in the same request are not seen by the index.
pub fn prepare_update(
    index: Option<&Arc<TextIndex>>,
    max_hits: usize,
    reader: &Reader<'_>,
    update: &mut Update,
    options: QueryOptions,
) -> Result<QueryOptions, ApiError> {
    let mut planner = plan::Planner::new(index, max_hits, reader).without_stand_ins();
    for operation in &mut update.operations {
        if let GraphUpdateOperation::DeleteInsert { pattern, .. } = operation {
            visit(pattern, &mut planner)?;
        }
    }
    Ok(planner
        .into_functions()
        .into_iter()
        .fold(options, |options, (name, function)| {
            options.with_function(name, function)
        }))
}

/// Replaces the text patterns of a query (see the module's notes). Without a text index, a
/// query with text patterns is answered "search unavailable".
pub fn rewrite(
    index: Option<&Arc<TextIndex>>,
    max_hits: usize,
    reader: &Reader<'_>,
    mut query: Query,
) -> Result<Rewritten, ApiError> {
    let pattern = match &mut query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let mut planner = plan::Planner::new(index, max_hits, reader);
    visit(pattern, &mut planner)?;
    Ok(Rewritten {
        query,
        functions: planner.into_functions(),
    })
}

fn visit(
    pattern: &mut GraphPattern,
    planner: &mut plan::Planner<'_, '_, '_>,
) -> Result<(), ApiError> {
    match pattern {
        GraphPattern::Bgp { patterns } => {
            let (found, rest) = patterns::extract(patterns).map_err(ApiError::QuerySyntax)?;
            if !found.is_empty() {
                *pattern = planner.replace(found, rest)?;
            }
        }
        GraphPattern::Path { .. } | GraphPattern::Values { .. } => {}
        GraphPattern::Join { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right }
        | GraphPattern::Lateral { left, right } => {
            visit(left, planner)?;
            visit(right, planner)?;
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            visit(left, planner)?;
            visit(right, planner)?;
            if let Some(expression) = expression {
                visit_expression(expression, planner)?;
            }
        }
        GraphPattern::Filter { expr, inner } => {
            visit_expression(expr, planner)?;
            visit(inner, planner)?;
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            visit_expression(expression, planner)?;
            visit(inner, planner)?;
        }
        GraphPattern::Graph { inner, name } => {
            // The group's own BGP gets a row per graph (lifted out of the group after); deeper
            // patterns under a graph variable are tied to the graph by FILTER EXISTS.
            let top = Some(InGraph::Rows(name.clone()));
            let deep = match name {
                NamedNodePattern::NamedNode(_) => top.clone(),
                NamedNodePattern::Variable(_) => Some(InGraph::Exists),
            };
            let outer = planner.in_graph(deep);
            match inner.as_mut() {
                GraphPattern::Bgp { .. } => {
                    planner.in_graph(top);
                    visit(inner, planner)?;
                }
                GraphPattern::Filter { expr, inner: bgp }
                    if matches!(bgp.as_ref(), GraphPattern::Bgp { .. }) =>
                {
                    visit_expression(expr, planner)?;
                    planner.in_graph(top);
                    visit(bgp, planner)?;
                }
                _ => visit(inner, planner)?,
            }
            planner.in_graph(outer);
            graphs::lift(pattern);
        }
        GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. }
        | GraphPattern::Service { inner, .. } => visit(inner, planner)?,
    }
    Ok(())
}

/// `EXISTS { … }` inside expressions.
fn visit_expression(
    expression: &mut Expression,
    planner: &mut plan::Planner<'_, '_, '_>,
) -> Result<(), ApiError> {
    match expression {
        Expression::Exists(pattern) => visit(pattern, planner),
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
            visit_expression(a, planner)?;
            visit_expression(b, planner)
        }
        Expression::UnaryPlus(e) | Expression::UnaryMinus(e) | Expression::Not(e) => {
            visit_expression(e, planner)
        }
        Expression::If(a, b, c) => {
            visit_expression(a, planner)?;
            visit_expression(b, planner)?;
            visit_expression(c, planner)
        }
        Expression::In(a, list) => {
            visit_expression(a, planner)?;
            list.iter_mut()
                .try_for_each(|e| visit_expression(e, planner))
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => list
            .iter_mut()
            .try_for_each(|e| visit_expression(e, planner)),
        Expression::NamedNode(_)
        | Expression::Literal(_)
        | Expression::Variable(_)
        | Expression::Bound(_) => Ok(()),
    }
}
