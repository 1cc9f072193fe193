//! `/sparql`: the SPARQL 1.1 Protocol endpoint — queries, updates, service description.
//!
//! Each handler reads as extract → check → take a slot → run blocking → answer. Queries stream
//! their results (see `respond::stream`); updates run as one transaction and answer 204.
//! Cross-origin reads are allowed (CORS); writes are not (see `extract::auth`).

use crate::error::ApiError;
use crate::extract::auth::authorize_write;
use crate::extract::negotiate::AcceptHeader;
use crate::extract::parse;
use crate::extract::representation::rdf_content_type;
use crate::extract::sparql::{Operation, SparqlRequest};
use crate::respond::stream::{run_write, stream_blocking, ChunkSink, Outcome, TRUNCATED_HEADER};
use crate::respond::{rdf, results};
use crate::slots::Taken;
use crate::state::AppState;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use lodestone_store::sparql::{
    evaluate_query, evaluation_error, execute_update, DatasetOverride, Query, QueryResults, Update,
    UpdateOptions,
};
use oxrdf::vocab::rdf as rdf_vocab;
use oxrdf::{BlankNode, GraphName, NamedNode, Triple};
use oxrdfio::{RdfFormat, RdfSerializer};
use sparesults::QueryResultsFormat;
use spargebra::algebra::QueryDataset;
use spargebra::GraphUpdateOperation;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tower_http::cors::{Any, CorsLayer};

/// The `/sparql` route.
pub fn router(state: &AppState) -> Router<AppState> {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::CONTENT_TYPE, header::ACCEPT])
        .expose_headers([TRUNCATED_HEADER])
        .max_age(Duration::from_secs(3600));
    Router::new()
        .route("/sparql", get(handle).post(handle))
        .layer(DefaultBodyLimit::max(state.settings().max_body_bytes))
        .layer(cors)
}

async fn handle(
    State(state): State<AppState>,
    method: Method,
    request: SparqlRequest,
) -> Result<Response, ApiError> {
    if crate::routes::ui::sparql::is_for_browser(&method, &request) {
        return crate::routes::ui::sparql::page(state, request).await;
    }
    match request.operation.clone() {
        Operation::Query(text) => query(state, request, &text).await,
        Operation::Update(text) => update(state, request, &text).await,
        Operation::ServiceDescription => service_description(&state, &request),
    }
}

/// The syntax a query's answer is written in.
#[derive(Debug, Clone, Copy)]
enum AnswerFormat {
    Results(QueryResultsFormat),
    Rdf(RdfFormat),
}

impl AnswerFormat {
    fn media_type(self) -> &'static str {
        match self {
            Self::Results(f) => f.media_type(),
            Self::Rdf(f) => rdf_content_type(f),
        }
    }
}

async fn query(state: AppState, request: SparqlRequest, text: &str) -> Result<Response, ApiError> {
    let parse::Parsed {
        tree: query,
        share,
        optimizable,
    } = parse::query(&state, text).await?;
    let format = match &query {
        Query::Select { .. } | Query::Ask { .. } => {
            AnswerFormat::Results(negotiate(&request, results::choose)?)
        }
        Query::Construct { .. } | Query::Describe { .. } => {
            AnswerFormat::Rdf(negotiate(&request, rdf::choose)?)
        }
    };
    let Taken { permit, budget } = state
        .query_slot(state.settings().budget(request.timeout))
        .await?;
    state.metrics().queries.fetch_add(1, Ordering::Relaxed);
    let dataset = DatasetOverride {
        default_graphs: request.default_graphs,
        named_graphs: request.named_graphs,
    };
    let store = state.store().clone();
    let index = state.text_index().cloned();
    let max_hits = state.settings().max_text_hits;
    let options = parse::options_for(optimizable, state.query_options());
    let cap = state.settings().result_row_cap;
    stream_blocking(
        &state,
        permit,
        budget,
        format.media_type(),
        move |sink, token| {
            let _tree_share = share;
            let reader = store.reader();
            let (query, options) =
                crate::text_sparql::prepare(index.as_ref(), max_hits, &reader, query, options)?;
            let options = options.with_cancellation(token.clone());
            let answer = evaluate_query(&reader, &query, &dataset, &options)
                .map_err(|e| ApiError::from_store(e, budget))?;
            write_answer(sink, answer, format, cap, budget)
        },
    )
    .await
}

/// Writes a query's answer in the chosen syntax.
fn write_answer(
    sink: &mut ChunkSink,
    answer: QueryResults<'_>,
    format: AnswerFormat,
    cap: u64,
    budget: Duration,
) -> Result<Outcome, ApiError> {
    match (answer, format) {
        (QueryResults::Solutions(solutions), AnswerFormat::Results(f)) => {
            results::write_solutions(sink, solutions, f, cap, budget)
        }
        (QueryResults::Boolean(value), AnswerFormat::Results(f)) => {
            results::write_boolean(sink, value, f)
        }
        (QueryResults::Graph(triples), AnswerFormat::Rdf(f)) => {
            let quads = triples.map(|triple| {
                triple
                    .map(|t| t.in_graph(GraphName::DefaultGraph))
                    .map_err(|e| ApiError::from_store(evaluation_error(e), budget))
            });
            rdf::write_quads(sink, quads, f, Some(cap))
        }
        _ => Err(ApiError::Internal(
            "the query's answer does not match its form".into(),
        )),
    }
}

/// The representation of the first `format=` (or `output=`, `results=`) value that `choose`
/// knows; when none does, the one `Accept` asks for.
fn negotiate<T>(
    request: &SparqlRequest,
    choose: impl Fn(&AcceptHeader, Option<&str>) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let any = AcceptHeader::any();
    match request
        .formats
        .iter()
        .find_map(|name| choose(&any, Some(name)).ok())
    {
        Some(format) => Ok(format),
        None => choose(&request.accept, None),
    }
}

async fn update(state: AppState, request: SparqlRequest, text: &str) -> Result<Response, ApiError> {
    authorize_write(state.settings(), &request.headers)?;
    let parse::Parsed {
        tree: mut update,
        share,
        optimizable,
    } = parse::update(&state, text).await?;
    apply_using(
        &mut update,
        &request.using_graphs,
        &request.using_named_graphs,
    )?;
    let Taken { permit, budget } = state
        .write_slot(state.settings().budget(request.timeout))
        .await?;
    state.metrics().updates.fetch_add(1, Ordering::Relaxed);
    let store = state.store().clone();
    let settings = state.settings().clone();
    let query_options = parse::options_for(optimizable, state.query_options());
    let index = state.text_index().cloned();
    // Recorded by the update's commit.
    let declared = crate::extract::prologue::declarations(text);
    run_write(&state, permit, budget, text.len(), move |token| {
        let _tree_share = share;
        // The text patterns of its WHERE clauses, against the store as the update starts.
        let query_options = crate::text_sparql::prepare_update(
            index.as_ref(),
            settings.max_text_hits,
            &store.reader(),
            &mut update,
            query_options,
        )?;
        let options = UpdateOptions {
            query: query_options.with_cancellation(token.clone()),
            load_folder: settings.load_folder.clone(),
            prefixes: declared,
        };
        execute_update(&store, &update, &options).map_err(|e| ApiError::from_store(e, budget))?;
        Ok(())
    })
    .await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Gives `using-graph-uri` / `using-named-graph-uri` to every DELETE/INSERT … WHERE.
///
/// The protocol (§2.2.3) makes it an error to combine them with an operation that has its own
/// USING, USING NAMED or WITH, so such a request is refused rather than half-applied.
fn apply_using(
    update: &mut Update,
    default: &[NamedNode],
    named: &[NamedNode],
) -> Result<(), ApiError> {
    if default.is_empty() && named.is_empty() {
        return Ok(());
    }
    for operation in &mut update.operations {
        if let GraphUpdateOperation::DeleteInsert { using, .. } = operation {
            if using.is_some() {
                return Err(ApiError::BadRequest(
                    "using-graph-uri and using-named-graph-uri cannot be combined with an update that has USING, USING NAMED or WITH".into(),
                ));
            }
            *using = Some(QueryDataset {
                default: default.to_vec(),
                named: Some(named.to_vec()),
            });
        }
    }
    Ok(())
}

const SD: &str = "http://www.w3.org/ns/sparql-service-description#";

fn sd(local: &str) -> Result<NamedNode, ApiError> {
    NamedNode::new(format!("{SD}{local}"))
        .map_err(|e| ApiError::Internal(format!("bad service description IRI: {e}")))
}

/// The endpoint's own URL as the client addressed it (`Host` header), if it is a valid IRI.
fn endpoint_iri(headers: &HeaderMap) -> Option<NamedNode> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    NamedNode::new(format!("http://{host}/sparql")).ok()
}

/// A `sd:Service` description of this endpoint, in the negotiated RDF syntax (Turtle if the
/// client asks for nothing RDF, e.g. a browser).
fn service_description(state: &AppState, request: &SparqlRequest) -> Result<Response, ApiError> {
    let format = negotiate(request, rdf::choose).unwrap_or(RdfFormat::Turtle);
    let service = BlankNode::default();
    let mut triples = vec![Triple::new(
        service.clone(),
        rdf_vocab::TYPE,
        sd("Service")?,
    )];
    if let Some(endpoint) = endpoint_iri(&request.headers) {
        triples.push(Triple::new(service.clone(), sd("endpoint")?, endpoint));
    }
    let mut languages = vec![sd("SPARQL11Query")?];
    if state.settings().updates != crate::settings::UpdatePolicy::Disabled {
        languages.push(sd("SPARQL11Update")?);
    }
    for language in languages {
        triples.push(Triple::new(
            service.clone(),
            sd("supportedLanguage")?,
            language,
        ));
    }
    let result_formats = [
        QueryResultsFormat::Json,
        QueryResultsFormat::Xml,
        QueryResultsFormat::Csv,
        QueryResultsFormat::Tsv,
    ]
    .map(QueryResultsFormat::iri)
    .into_iter()
    .chain(rdf::RDF_OFFERS.iter().take(6).map(|o| o.value.iri()));
    for iri in result_formats {
        let format = NamedNode::new(iri).map_err(|e| ApiError::Internal(e.to_string()))?;
        triples.push(Triple::new(service.clone(), sd("resultFormat")?, format));
    }
    if state.settings().union_default_graph {
        triples.push(Triple::new(
            service.clone(),
            sd("feature")?,
            sd("UnionDefaultGraph")?,
        ));
    }
    let dataset = BlankNode::default();
    let default_graph = BlankNode::default();
    triples.push(Triple::new(service, sd("defaultDataset")?, dataset.clone()));
    triples.push(Triple::new(
        dataset.clone(),
        rdf_vocab::TYPE,
        sd("Dataset")?,
    ));
    triples.push(Triple::new(
        dataset,
        sd("defaultGraph")?,
        default_graph.clone(),
    ));
    triples.push(Triple::new(default_graph, rdf_vocab::TYPE, sd("Graph")?));

    let mut serializer = RdfSerializer::from_format(format)
        .with_prefix("sd", SD)
        .map_err(|e| ApiError::Internal(e.to_string()))?
        .for_writer(Vec::new());
    for triple in triples {
        serializer
            .serialize_triple(&triple)
            .map_err(results::io_error)?;
    }
    let body = serializer.finish().map_err(results::io_error)?;
    let mut response = body.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(rdf_content_type(format)),
    );
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::sparql::SparqlParser;

    #[test]
    fn using_parameters_fill_operations_without_a_dataset() {
        let g = NamedNode::new_unchecked("http://example.org/g");
        let parse = |text: &str| {
            SparqlParser::new()
                .parse_update(text)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let mut update = parse(
            "INSERT { <s:a> <p:b> ?o } WHERE { ?x <p:c> ?o } ; INSERT DATA { <s:a> <p:b> 1 }",
        );
        assert!(apply_using(&mut update, std::slice::from_ref(&g), &[]).is_ok());
        let GraphUpdateOperation::DeleteInsert { using, .. } = &update.operations[0] else {
            panic!("not a DELETE/INSERT")
        };
        assert_eq!(
            using.as_ref().map(|u| u.default.clone()),
            Some(vec![g.clone()])
        );

        let mut with = parse("WITH <http://example.org/h> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }");
        assert!(apply_using(&mut with, std::slice::from_ref(&g), &[]).is_err());
        let mut untouched =
            parse("WITH <http://example.org/h> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }");
        assert!(apply_using(&mut untouched, &[], &[]).is_ok());
    }
}
