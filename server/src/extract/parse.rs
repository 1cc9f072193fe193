//! A request's SPARQL text turned into a tree, in the order that keeps the process safe.
//!
//! The text is scanned first ([`super::nesting`]), then parsed on a blocking-pool thread (its
//! stack is sized for every tree the scan admits, and parsing a long text is CPU work that must
//! not hold an async worker), then the tree is bounded exactly ([`super::tree_depth`]); a tree
//! refused there is dropped on the same large stack. Every route that takes SPARQL from a
//! client parses it here.
//!
//! A parsed tree can take a hundred times its text (a `VALUES` list of small numbers), so
//! before parsing, the request takes a share of the budget of bodies in flight as large as
//! the scan's estimate of its tree ([`super::nesting::TextShape::tree_bytes`]) and holds it
//! while it runs: one request larger than the whole budget is refused with `413`, and many at
//! once wait their turn as bodies do.

use super::body::BodyShare;
use super::nesting::check_text;
use super::tree_depth;
use crate::error::ApiError;
use crate::state::AppState;
use lodestone_store::sparql::{Query, QueryOptions, SparqlParser, Update};

/// The parser, with the configured base IRI and the text patterns' prefixes predeclared
/// (`bif:`, `text:`, `lodestone:`; a query's own `PREFIX` wins).
pub fn parser(state: &AppState) -> Result<SparqlParser, ApiError> {
    let mut parser = SparqlParser::new();
    for (name, iri) in crate::text_sparql::PREDECLARED {
        parser = parser
            .with_prefix(name, iri)
            .map_err(|e| ApiError::Internal(format!("a predeclared prefix is invalid: {e}")))?;
    }
    match &state.settings().base_iri {
        None => Ok(parser),
        Some(base) => parser
            .with_base_iri(base.as_str())
            .map_err(|e| ApiError::Internal(format!("the configured base IRI is invalid: {e}"))),
    }
}

/// A request's parsed tree with its share of the budget of bodies in flight: keep it until
/// the request is answered.
#[derive(Debug)]
pub struct Parsed<T> {
    /// The query or update.
    pub tree: T,
    /// The memory the tree was estimated to take, held from the shared budget.
    pub share: BodyShare,
    /// Whether the optimizer may plan it ([`tree_depth::TreeShape::optimizable`]).
    pub optimizable: bool,
}

/// `options` for evaluating a tree whose shape is `optimizable` or not: a very large pattern
/// is evaluated as written (see [`tree_depth::MAX_OPTIMIZED_PATTERNS`]).
pub fn options_for(optimizable: bool, options: QueryOptions) -> QueryOptions {
    if optimizable {
        options
    } else {
        options.without_optimizations()
    }
}

/// Parses a query a client sent (Virtuoso's `OPTION ( … )` after `bif:contains` read first:
/// [`crate::text_sparql::options`]).
pub async fn query(state: &AppState, text: &str) -> Result<Parsed<Query>, ApiError> {
    parse(state, text, |parser, text| {
        let text = crate::text_sparql::options::rewrite(text).map_err(ApiError::QuerySyntax)?;
        let query = parser
            .parse_query(&text)
            .map_err(|e| ApiError::QuerySyntax(e.to_string()))?;
        let shape = tree_depth::check_query(&query)?;
        Ok((query, shape.optimizable()))
    })
    .await
}

/// Parses an update a client sent.
pub async fn update(state: &AppState, text: &str) -> Result<Parsed<Update>, ApiError> {
    parse(state, text, |parser, text| {
        let text = crate::text_sparql::options::rewrite(text).map_err(ApiError::UpdateSyntax)?;
        let update = parser
            .parse_update(&text)
            .map_err(|e| ApiError::UpdateSyntax(e.to_string()))?;
        let shape = tree_depth::check_update(&update)?;
        Ok((update, shape.optimizable()))
    })
    .await
}

/// A parser run on a blocking-pool thread: the tree, and whether the optimizer may plan it.
type ParseFn<T> = fn(SparqlParser, &str) -> Result<(T, bool), ApiError>;

/// Checks the text and takes the tree's share of memory, then runs `parse` (which checks the
/// tree) on a blocking-pool thread.
async fn parse<T: Send + 'static>(
    state: &AppState,
    text: &str,
    parse: ParseFn<T>,
) -> Result<Parsed<T>, ApiError> {
    let shape = check_text(text)?;
    let share = state.body_budget().take(shape.tree_bytes())?;
    let parser = parser(state)?;
    let text = text.to_owned();
    let (tree, optimizable) = state
        .spawn_read(move || parse(parser, &text))
        .await
        .map_err(|e| ApiError::Internal(format!("the parsing task failed: {e}")))??;
    Ok(Parsed {
        tree,
        share,
        optimizable,
    })
}
