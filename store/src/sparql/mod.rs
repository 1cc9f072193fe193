//! SPARQL 1.1 over the store: queries evaluated by `spareval` on a [`Reader`] with internal
//! ids, and updates applied as one [`crate::Transaction`] per request.

mod dataset;
mod graph_scope;
mod service;
mod statistics;
mod update;

pub use service::RemoteEndpoint;
pub use spareval::{CancellationToken, QueryResults, QuerySolution, QuerySolutionIter};
pub use spargebra::{Query, SparqlParser, SparqlSyntaxError, Update};
pub use statistics::answer_from_statistics;
pub use update::{execute_update, UpdateOptions};

use crate::error::StoreError;
use crate::quads::reader::Reader;
use oxrdf::{GraphName, NamedNode, NamedOrBlankNode, Term};
use spareval::{QueryEvaluationError, QueryEvaluator};
use std::sync::Arc;

/// An extension function callable from queries by its IRI (`<iri>(args…)`): it gets the
/// evaluated arguments and answers a term, or `None` for an evaluation error.
pub type CustomFunction = Arc<dyn Fn(&[Term]) -> Option<Term> + Send + Sync>;

/// How a query is evaluated.
#[derive(Clone, Default)]
pub struct QueryOptions {
    /// Without FROM, the default graph is the union of all graphs (else the store's default
    /// graph only, as the SPARQL specification's strict reading has it).
    pub default_graph_as_union: bool,
    /// Stops the evaluation when cancelled (time budget, client gone).
    pub cancellation: Option<CancellationToken>,
    /// Extension functions, such as the server's text-index match.
    pub functions: Vec<(NamedNode, CustomFunction)>,
    /// Where `SERVICE` blocks are evaluated; `None` refuses them all.
    pub service: Option<Arc<dyn RemoteEndpoint>>,
    /// Evaluate the algebra as written, without the optimizer's rewriting and join
    /// reordering: for very large patterns, whose optimization takes time that grows with
    /// the cube of their size and cannot be cancelled.
    pub without_optimizations: bool,
}

impl QueryOptions {
    /// The union-default-graph setting.
    pub fn with_default_graph_as_union(mut self, union: bool) -> Self {
        self.default_graph_as_union = union;
        self
    }

    /// A cancellation token checked while evaluating.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// An extension function callable by its IRI.
    pub fn with_function(mut self, name: NamedNode, function: CustomFunction) -> Self {
        self.functions.push((name, function));
        self
    }

    /// Skips the optimizer (see [`QueryOptions::without_optimizations`]).
    pub fn without_optimizations(mut self) -> Self {
        self.without_optimizations = true;
        self
    }

    /// The endpoint that evaluates `SERVICE` blocks (by default they are refused).
    pub fn with_service(mut self, endpoint: Arc<dyn RemoteEndpoint>) -> Self {
        self.service = Some(endpoint);
        self
    }

    pub(crate) fn evaluator(&self) -> QueryEvaluator {
        let mut evaluator = QueryEvaluator::new()
            .with_default_service_handler(service::ServiceAdapter(self.service.clone()));
        for (name, function) in &self.functions {
            let function = Arc::clone(function);
            evaluator = evaluator.with_custom_function(name.clone(), move |args| function(args));
        }
        if self.without_optimizations {
            evaluator = evaluator.without_optimizations();
        }
        match &self.cancellation {
            Some(token) => evaluator.with_cancellation_token(token.clone()),
            None => evaluator,
        }
    }
}

/// The graphs a request names with the protocol's `default-graph-uri` and `named-graph-uri`
/// (they replace the query's FROM and FROM NAMED when given).
#[derive(Debug, Clone, Default)]
pub struct DatasetOverride {
    /// `default-graph-uri` values.
    pub default_graphs: Vec<NamedNode>,
    /// `named-graph-uri` values.
    pub named_graphs: Vec<NamedNode>,
}

impl DatasetOverride {
    /// Whether the request named no graph.
    pub fn is_empty(&self) -> bool {
        self.default_graphs.is_empty() && self.named_graphs.is_empty()
    }
}

/// Evaluates a parsed query against a read view.
///
/// Counts over one triple pattern that the store's counters decide are read from them
/// instead (see `statistics`).
///
/// A `GRAPH ?g` over `VALUES`, `MINUS` or a subquery is first expanded over the dataset's
/// named graphs, so that it is scoped as SPARQL says (see `graph_scope`).
///
/// The results borrow the reader; consume them before it goes away.
pub fn evaluate_query<'a, 'db: 'a>(
    reader: &'a Reader<'db>,
    query: &Query,
    dataset: &DatasetOverride,
    options: &QueryOptions,
) -> Result<QueryResults<'a>, StoreError> {
    if let Some(results) = answer_from_statistics(reader, query, dataset, options)? {
        return Ok(results);
    }
    if graph_scope::needs_rewrite(query) {
        if let Some(graphs) = named_graphs(reader, query, dataset, options)? {
            let query = graph_scope::rewrite(query, &graphs)?;
            return evaluate_prepared(reader, &query, dataset, options);
        }
    }
    evaluate_prepared(reader, query, dataset, options)
}

/// The named graphs of `query`'s dataset, or `None` when one is a blank node (which no
/// rewritten query could name; see [`graph_scope`]).
fn named_graphs(
    reader: &Reader<'_>,
    query: &Query,
    dataset: &DatasetOverride,
    options: &QueryOptions,
) -> Result<Option<Vec<NamedNode>>, StoreError> {
    let (listing, variable) = graph_scope::named_graphs_query(query);
    let QueryResults::Solutions(solutions) = evaluate_prepared(reader, &listing, dataset, options)?
    else {
        return Err(StoreError::Evaluation(
            "listing the named graphs gave no solutions".into(),
        ));
    };
    let mut graphs = Vec::new();
    for solution in solutions {
        match solution.map_err(evaluation_error)?.get(&variable) {
            Some(Term::NamedNode(graph)) => graphs.push(graph.clone()),
            Some(_) => return Ok(None),
            None => {}
        }
    }
    Ok(Some(graphs))
}

/// Evaluates `query` as spareval does, with the request's dataset and options.
fn evaluate_prepared<'a, 'db: 'a>(
    reader: &'a Reader<'db>,
    query: &Query,
    dataset: &DatasetOverride,
    options: &QueryOptions,
) -> Result<QueryResults<'a>, StoreError> {
    let evaluator = options.evaluator();
    let mut prepared = evaluator.prepare(query);
    let spec = prepared.dataset_mut();
    if !dataset.is_empty() {
        spec.set_default_graph(
            dataset
                .default_graphs
                .iter()
                .cloned()
                .map(GraphName::from)
                .collect(),
        );
        spec.set_available_named_graphs(
            dataset
                .named_graphs
                .iter()
                .cloned()
                .map(NamedOrBlankNode::from)
                .collect(),
        );
    } else if query.dataset().is_none() && options.default_graph_as_union {
        spec.set_default_graph_as_union();
    }
    prepared.execute(reader).map_err(evaluation_error)
}

/// Evaluates `query` (without FROM, over the union of all graphs when `options` say so),
/// consumes its results and returns how many there were with the plan that was run, as JSON:
/// every step of the optimized plan with the rows it produced and the time it took. For
/// finding where a query spends its time (`lodestone-bench bsbm-explain`); the statistics
/// slow the evaluation down.
pub fn explain_query(
    reader: &Reader<'_>,
    query: &Query,
    options: &QueryOptions,
) -> Result<(usize, String), StoreError> {
    let evaluator = options.evaluator().compute_statistics();
    let mut prepared = evaluator.prepare(query);
    if query.dataset().is_none() && options.default_graph_as_union {
        prepared.dataset_mut().set_default_graph_as_union();
    }
    let (results, explanation) = prepared.explain(reader);
    let mut rows = 0;
    match results.map_err(evaluation_error)? {
        QueryResults::Solutions(solutions) => {
            for solution in solutions {
                solution.map_err(evaluation_error)?;
                rows += 1;
            }
        }
        QueryResults::Graph(triples) => {
            for triple in triples {
                triple.map_err(evaluation_error)?;
                rows += 1;
            }
        }
        QueryResults::Boolean(_) => rows = 1,
    }
    let mut json = Vec::new();
    explanation
        .write_in_json(&mut json)
        .map_err(|e| StoreError::Evaluation(format!("writing the plan failed: {e}")))?;
    let json = String::from_utf8(json)
        .map_err(|e| StoreError::Evaluation(format!("the plan is not UTF-8: {e}")))?;
    Ok((rows, json))
}

/// Maps an evaluation error: cancellation, store failures and user errors stay apart.
pub fn evaluation_error(error: QueryEvaluationError) -> StoreError {
    match error {
        QueryEvaluationError::Cancelled => StoreError::Cancelled,
        QueryEvaluationError::Dataset(e) | QueryEvaluationError::Service(e) => {
            match e.downcast::<StoreError>() {
                Ok(e) => *e,
                Err(e) => StoreError::Evaluation(e.to_string()),
            }
        }
        other => StoreError::Evaluation(other.to_string()),
    }
}
