//! `/store`: the SPARQL 1.1 Graph Store HTTP Protocol (indirect graph identification).
//!
//! `?graph=IRI` names a graph, `?default` the store's default graph. GET and HEAD read (404 for
//! a named graph that does not exist), PUT replaces, POST merges, DELETE drops. Every write is
//! one transaction: a PUT clears and refills the graph in the same commit, so readers see the
//! old content or the new, never an empty or half-written graph; a body that does not parse
//! leaves the store untouched. Writes need the same authorization as SPARQL updates.

use crate::error::ApiError;
use crate::extract::auth::authorize_write;
use crate::extract::body::read_body;
use crate::extract::nesting::check_json_depth;
use crate::extract::rdfxml::check_entities;
use crate::extract::representation::rdf_content_type;
use crate::extract::sparql::{accept_header, parse_pairs};
use crate::respond::rdf;
use crate::respond::stream::{run_blocking, run_write, stream_blocking};
use crate::slots::Taken;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use lodestone_store::load::{
    describe_parse_error, encode_scoped, parser_for, BlankScope, ParseOptions,
};
use lodestone_store::sparql::CancellationToken;
use lodestone_store::{Store, TermId};
use oxrdf::{GraphName, GraphNameRef, NamedNode};
use oxrdfio::RdfFormat;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tower_http::cors::{Any, CorsLayer};

/// How often (in quads) a long upload checks its time budget.
const CANCEL_CHECK_EVERY: u64 = 10_000;

/// The `/store` route.
pub fn router(state: &AppState) -> Router<AppState> {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::HEAD])
        .allow_headers([header::ACCEPT]);
    Router::new()
        .route(
            "/store",
            get(read_graph)
                .head(head_graph)
                .put(put_graph)
                .post(post_graph)
                .delete(delete_graph),
        )
        .layer(axum::extract::DefaultBodyLimit::max(
            state.settings().max_upload_bytes,
        ))
        .layer(cors)
}

/// The graph a request is about.
#[derive(Debug, Clone)]
enum Target {
    Default,
    Named(NamedNode),
}

impl Target {
    fn graph_name(&self) -> GraphName {
        match self {
            Self::Default => GraphName::DefaultGraph,
            Self::Named(n) => n.clone().into(),
        }
    }
}

/// Reads `?graph=IRI` or `?default` (exactly one of them); other parameters are ignored.
fn target(uri: &Uri, method: &Method) -> Result<Target, ApiError> {
    let params = uri
        .query()
        .map(|q| parse_pairs(q.as_bytes()))
        .unwrap_or_default();
    let graphs: Vec<&str> = params
        .iter()
        .filter(|(k, _)| k == "graph")
        .map(|(_, v)| v.as_str())
        .collect();
    let default = params.iter().any(|(k, _)| k == "default");
    match (graphs.as_slice(), default) {
        ([], true) => Ok(Target::Default),
        ([iri], false) => NamedNode::new(*iri)
            .map(Target::Named)
            .map_err(|e| ApiError::BadRequest(format!("graph: {iri:?} is not an absolute IRI: {e}"))),
        ([], false) if method == Method::POST => Err(ApiError::BadRequest(
            "POST /store needs ?graph=IRI or ?default: creating a graph with a server-chosen IRI is not supported".into(),
        )),
        ([], false) => Err(ApiError::BadRequest("name the graph with ?graph=IRI or ?default".into())),
        (_, true) => Err(ApiError::BadRequest("give either ?graph=IRI or ?default, not both".into())),
        (_, false) => Err(ApiError::BadRequest("give ?graph= only once".into())),
    }
}

fn format_param(uri: &Uri) -> Option<String> {
    let params = uri
        .query()
        .map(|q| parse_pairs(q.as_bytes()))
        .unwrap_or_default();
    params
        .into_iter()
        .find(|(k, _)| k == "format")
        .map(|(_, v)| v)
}

/// The store id of the target graph; `GraphNotFound` for a named graph that does not exist.
fn existing_graph(
    reader: &lodestone_store::Reader<'_>,
    target: &Target,
) -> Result<TermId, ApiError> {
    let store_error = |e| ApiError::from_store(e, Duration::ZERO);
    match target {
        Target::Default => Ok(TermId::DEFAULT_GRAPH),
        Target::Named(name) => match reader
            .graph_id(GraphNameRef::NamedNode(name.as_ref()))
            .map_err(store_error)?
        {
            Some(id) if reader.contains_named_graph(id).map_err(store_error)? => Ok(id),
            _ => Err(ApiError::GraphNotFound(name.to_string())),
        },
    }
}

async fn read_graph(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let target = target(&uri, &Method::GET)?;
    let format = rdf::choose(&accept_header(&headers), format_param(&uri).as_deref())?;
    let Taken { permit, budget } = state.query_slot(state.settings().budget(None)).await?;
    state.metrics().queries.fetch_add(1, Ordering::Relaxed);
    let store = state.store().clone();
    stream_blocking(
        &state,
        permit,
        budget,
        rdf_content_type(format),
        move |sink, token| {
            let reader = store.reader();
            let graph = existing_graph(&reader, &target)?;
            let quads = reader
                .quads_for_pattern(None, None, None, Some(graph))
                .map(|quad| {
                    if token.is_cancelled() {
                        return Err(ApiError::Timeout(budget));
                    }
                    quad.and_then(|q| reader.decode_quad(&q))
                        .map_err(|e| ApiError::from_store(e, budget))
                });
            rdf::write_quads(sink, quads, format, None)
        },
    )
    .await
}

async fn head_graph(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let target = target(&uri, &Method::HEAD)?;
    let format = rdf::choose(&accept_header(&headers), format_param(&uri).as_deref())?;
    let Taken { permit, budget } = state.query_slot(state.settings().budget(None)).await?;
    let store = state.store().clone();
    run_blocking(&state, permit, budget, move |_| {
        existing_graph(&store.reader(), &target).map(|_| ())
    })
    .await?;
    let mut response = StatusCode::OK.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(rdf_content_type(format)),
    );
    Ok(response)
}

async fn put_graph(State(state): State<AppState>, request: Request) -> Result<Response, ApiError> {
    write(state, request, true).await
}

async fn post_graph(State(state): State<AppState>, request: Request) -> Result<Response, ApiError> {
    write(state, request, false).await
}

/// PUT (`replace`) or POST: checks, reads the body, then one transaction. 201 if the graph was
/// created, 204 otherwise.
async fn write(state: AppState, request: Request, replace: bool) -> Result<Response, ApiError> {
    authorize_write(state.settings(), request.headers())?;
    let target = target(request.uri(), request.method())?;
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let format = rdf::upload_format(content_type.as_deref())?;
    let (body, _share) = read_body(
        request,
        state.settings().max_upload_bytes,
        state.body_budget(),
    )
    .await?;
    match format {
        RdfFormat::RdfXml => check_entities(&body)?,
        RdfFormat::JsonLd { .. } => check_json_depth(&body)?,
        _ => {}
    }
    let Taken { permit, budget } = state.write_slot(state.settings().budget(None)).await?;
    state.metrics().updates.fetch_add(1, Ordering::Relaxed);
    let store = state.store().clone();
    let request_bytes = body.len();
    let (created, quads) = run_write(&state, permit, budget, request_bytes, move |token| {
        write_graph(&store, &target, format, &body, replace, token, budget)
    })
    .await?;
    state
        .metrics()
        .quads_written
        .fetch_add(quads, Ordering::Relaxed);
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::NO_CONTENT
    };
    Ok(status.into_response())
}

fn write_graph(
    store: &Store,
    target: &Target,
    format: RdfFormat,
    body: &[u8],
    replace: bool,
    token: &CancellationToken,
    budget: Duration,
) -> Result<(bool, u64), ApiError> {
    let store_error = |e| ApiError::from_store(e, budget);
    let mut transaction = store.transaction().map_err(store_error)?;
    let graph_name = target.graph_name();
    let graph = transaction
        .graph_id_for_insert(graph_name.as_ref())
        .map_err(store_error)?;
    let created = match target {
        Target::Default => false,
        Target::Named(_) => !transaction
            .reader()
            .contains_named_graph(graph)
            .map_err(store_error)?,
    };
    if replace {
        transaction.clear_graph(graph).map_err(store_error)?;
    }
    if let Target::Named(_) = target {
        // An empty upload still leaves an (empty) graph behind.
        transaction.create_graph(graph).map_err(store_error)?;
    }
    let options = ParseOptions {
        format: Some(format),
        graph: Some(graph_name.clone()),
        base_iri: match target {
            Target::Named(name) => Some(name.as_str().to_owned()),
            Target::Default => None,
        },
        lenient: false,
    };
    let parser = parser_for(format, &options).map_err(store_error)?;
    let mut scope = BlankScope::default();
    let mut count = 0_u64;
    let mut quads = parser.for_reader(body);
    for quad in quads.by_ref() {
        let quad = quad.map_err(|e| store_error(describe_parse_error("request body", &e)))?;
        if quad.graph_name != graph_name {
            return Err(ApiError::BadRequest(format!(
                "the document puts statements in the graph {}, but a Graph Store request writes only the graph it names",
                quad.graph_name
            )));
        }
        let encoded =
            encode_scoped(&mut transaction, &mut scope, quad.as_ref()).map_err(store_error)?;
        transaction.insert_encoded(encoded).map_err(store_error)?;
        count += 1;
        if count.is_multiple_of(CANCEL_CHECK_EVERY) && token.is_cancelled() {
            return Err(ApiError::Timeout(budget));
        }
    }
    transaction.declare_prefixes(
        quads
            .prefixes()
            .map(|(name, namespace)| (name.to_owned(), namespace.to_owned())),
    );
    transaction.commit().map_err(store_error)?;
    Ok((created, count))
}

async fn delete_graph(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    authorize_write(state.settings(), &headers)?;
    let target = target(&uri, &Method::DELETE)?;
    let Taken { permit, budget } = state.write_slot(state.settings().budget(None)).await?;
    state.metrics().updates.fetch_add(1, Ordering::Relaxed);
    let store = state.store().clone();
    run_write(&state, permit, budget, 0, move |_| {
        let store_error = |e| ApiError::from_store(e, budget);
        let mut transaction = store.transaction().map_err(store_error)?;
        let graph = existing_graph(&transaction.reader(), &target)?;
        match target {
            Target::Default => {
                transaction.clear_graph(graph).map_err(store_error)?;
            }
            Target::Named(_) => {
                transaction.drop_graph(graph).map_err(store_error)?;
            }
        }
        transaction.commit().map_err(store_error)?;
        Ok(())
    })
    .await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
