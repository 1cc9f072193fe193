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
//! The hits are those of `/api/search` for the same words (same tantivy query, analysis and
//! ranking: [`lodestone_indexer::IndexSearcher::text_hits`]). A table holds at most
//! `max_hits` entities, the best ones: a pattern that must be a table (it binds a score, a
//! literal or a snippet, or nothing else binds its subject) sees only those.

mod patterns;
mod plan;
pub mod virtuoso;

use crate::error::ApiError;
use lodestone_indexer::TextIndex;
use lodestone_store::sparql::{CustomFunction, QueryOptions};
use lodestone_store::Reader;
use oxrdf::NamedNode;
use spargebra::algebra::{Expression, GraphPattern};
use spargebra::Query;
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
        GraphPattern::Graph { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
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
