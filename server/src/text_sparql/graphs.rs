//! Text patterns inside `GRAPH`: a hit counts in a graph when the matching literal is there.
//!
//! The text index knows entities and their literals, not graphs, so inside `GRAPH ?g { … }`
//! (or `GRAPH <g>`) the table of hits gets one row per graph that holds the match, and a
//! column for `?g`:
//! - literal level (`?o bif:contains …`): the named graphs the literal is an object in;
//! - entity level (`text:query`, `lodestone:text`): the named graphs in which the entity has
//!   one of its matching literals (that literal is the one bound as the pattern's literal).
//!
//! A table at the top of a `GRAPH ?g` group is then joined outside it ([`lift`]), `?g` bound
//! by the table: `GRAPH ?g` over a `VALUES` table would otherwise be evaluated once per named
//! graph. Elsewhere in the group (under `OPTIONAL`, `UNION`…) the table stays inside, with the
//! same rows.

use crate::error::ApiError;
use lodestone_indexer::TextHit;
use lodestone_store::{Reader, TermId};
use oxrdf::{NamedNode, Term};
use spargebra::algebra::GraphPattern;
use spargebra::term::NamedNodePattern;
use std::collections::BTreeMap;

fn store_error(error: lodestone_store::StoreError) -> ApiError {
    ApiError::Internal(error.to_string())
}

/// The named graphs a literal is an object in.
pub(super) fn literal_graphs(
    reader: &Reader<'_>,
    literal: &Term,
) -> Result<Vec<(NamedNode, Term)>, ApiError> {
    let Some(id) = reader.term_id(literal.into()).map_err(store_error)? else {
        return Ok(Vec::new());
    };
    let found = reader
        .term_graphs(id, usize::MAX)
        .map_err(store_error)?
        .into_iter()
        .map(|usage| (usage.graph, literal.clone()))
        .collect();
    named(reader, found)
}

/// The named graphs in which the entity of `hit` has one of its literals, each with the first
/// such literal.
pub(super) fn entity_graphs(
    reader: &Reader<'_>,
    hit: &TextHit,
) -> Result<Vec<(NamedNode, Term)>, ApiError> {
    let mut found: BTreeMap<TermId, Term> = BTreeMap::new();
    let Some(entity) = reader.term_id((&hit.term).into()).map_err(store_error)? else {
        return Ok(Vec::new());
    };
    for literal in &hit.literals {
        let Some(id) = reader.term_id(literal.into()).map_err(store_error)? else {
            continue;
        };
        for quad in reader.quads_for_pattern(Some(entity), None, Some(id), None) {
            let quad = quad.map_err(store_error)?;
            found.entry(quad.graph).or_insert_with(|| literal.clone());
        }
    }
    named(reader, found)
}

/// The named graphs among `found` (the default graph is no `GRAPH`'s), as IRIs.
fn named(
    reader: &Reader<'_>,
    found: BTreeMap<TermId, Term>,
) -> Result<Vec<(NamedNode, Term)>, ApiError> {
    let mut out = Vec::with_capacity(found.len());
    for (graph, literal) in found {
        if graph == TermId::DEFAULT_GRAPH {
            continue;
        }
        if let Term::NamedNode(name) = reader.term(graph).map_err(store_error)? {
            out.push((name, literal));
        }
    }
    Ok(out)
}

/// Whether rows of graph `graph` belong in `GRAPH name`.
pub(super) fn keeps(name: &NamedNodePattern, graph: &NamedNode) -> bool {
    match name {
        NamedNodePattern::NamedNode(n) => n == graph,
        NamedNodePattern::Variable(_) => true,
    }
}

/// `GRAPH ?g { LATERAL(table, rest) }` (or with a `FILTER` around the `LATERAL`) as
/// `LATERAL(table, GRAPH ?g { rest })` when the table binds `?g`: the same rows, without a
/// `VALUES` inside the graph (see the module's notes).
pub(super) fn lift(pattern: &mut GraphPattern) {
    let GraphPattern::Graph {
        name: NamedNodePattern::Variable(graph),
        inner,
    } = pattern
    else {
        return;
    };
    let binds_graph = |p: &GraphPattern| matches!(p, GraphPattern::Values { variables, .. } if variables.contains(graph));
    let taken = match inner.as_mut() {
        GraphPattern::Lateral { left, right } if binds_graph(left) => {
            Some((take(left), take(right), None))
        }
        GraphPattern::Filter {
            expr,
            inner: lateral,
        } => match lateral.as_mut() {
            GraphPattern::Lateral { left, right } if binds_graph(left) => {
                Some((take(left), take(right), Some(expr.clone())))
            }
            _ => None,
        },
        _ => None,
    };
    let Some((table, rest, filter)) = taken else {
        return;
    };
    let rest = match filter {
        Some(expr) => GraphPattern::Filter {
            expr,
            inner: Box::new(rest),
        },
        None => rest,
    };
    let mut graph_group = GraphPattern::Graph {
        name: NamedNodePattern::Variable(graph.clone()),
        inner: Box::new(rest),
    };
    // Tables of several text patterns: lift each.
    lift(&mut graph_group);
    *pattern = GraphPattern::Lateral {
        left: Box::new(table),
        right: Box::new(graph_group),
    };
}

fn take(pattern: &mut GraphPattern) -> GraphPattern {
    std::mem::replace(
        pattern,
        GraphPattern::Bgp {
            patterns: Vec::new(),
        },
    )
}
