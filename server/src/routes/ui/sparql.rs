//! `/sparql` for a browser: the editor page, and the answer of its query as a table.
//!
//! A GET whose `Accept` ranks HTML above every result and RDF syntax (and without `format=`)
//! lands here; every other request is the protocol's. The page runs the query like the
//! protocol does (same parser, dataset, budget and query slot) but shows at most
//! [`SHOWN_ROWS`] rows, with links to the full answer in each syntax.

use super::{html, layout, prefers_html};
use crate::error::ApiError;
use crate::extract::parse;
use crate::extract::sparql::{Operation, SparqlRequest};
use crate::respond::rdf::RDF_OFFERS;
use crate::respond::results::RESULT_OFFERS;
use crate::respond::stream::{run_blocking, run_page};
use crate::state::AppState;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use lodestone_store::sparql::{evaluate_query, DatasetOverride, Query, QueryResults};
use lodestone_store::{Reader, StoreError};
use lodestone_web::ui::links;
use lodestone_web::ui::sparql::{error_position, Answer, Download, ExampleQuery, SparqlPage};
use lodestone_web::ui::{Cell, Prefixes};
use oxrdf::{NamedNode, Term, Variable};
use spargebra::algebra::GraphPattern;
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Rows the page shows; the download links give the whole answer.
pub const SHOWN_ROWS: usize = 500;

/// Quads read to find which namespaces the dataset's predicates use.
const PREDICATE_SAMPLE: usize = 5_000;

/// Classes whose namespaces are declared.
const CLASS_SAMPLE: usize = 50;

/// Whether a `/sparql` request comes from a browser that should get the page.
pub fn is_for_browser(method: &Method, request: &SparqlRequest) -> bool {
    let programs: Vec<&str> = RESULT_OFFERS
        .iter()
        .map(|o| o.media_type)
        .chain(RDF_OFFERS.iter().map(|o| o.media_type))
        .collect();
    *method == Method::GET
        && request.formats.is_empty()
        && matches!(
            request.operation,
            Operation::Query(_) | Operation::ServiceDescription
        )
        && prefers_html(&request.accept, &programs)
}

/// The editor page, with the answer of the query it carries.
pub async fn page(state: AppState, request: SparqlRequest) -> Result<Response, ApiError> {
    let reading = state.clone();
    let prefixes = run_page(&state, move || {
        dataset_prefixes(&reading.store().reader(), &reading.prefixes())
    })
    .await?;
    let top_class = {
        let reading = state.clone();
        run_page(&state, move || top_class(&reading.store().reader())).await?
    };
    let mut page = SparqlPage {
        layout: layout(&state, "SPARQL"),
        query: String::new(),
        prefixes: prefixes.entries().to_vec(),
        examples: examples(top_class.as_ref(), &prefixes),
        answer: None,
        elapsed_ms: None,
        downloads: Vec::new(),
    };
    let Operation::Query(text) = request.operation.clone() else {
        page.query = format!("{}\n{CLASSES_QUERY}", prefixes.declarations());
        return html(StatusCode::OK, page.to_html());
    };
    page.query = text.clone();
    page.layout.title = "SPARQL: answer".to_owned();
    let status = match run(&state, &request, &text, prefixes).await {
        Ok((answer, elapsed, form)) => {
            page.answer = Some(answer);
            page.elapsed_ms = Some(elapsed.as_secs_f64() * 1000.0);
            page.downloads = downloads(&text, form);
            StatusCode::OK
        }
        Err(ApiError::Internal(detail)) => return Err(ApiError::Internal(detail)),
        Err(error) => {
            let status = error.code_and_status().1;
            page.answer = Some(error_answer(&text, &error));
            status
        }
    };
    html(status, page.to_html())
}

/// What kind of answer a query gives, for its download links.
#[derive(Debug, Clone, Copy)]
enum Form {
    Results,
    Graph,
}

async fn run(
    state: &AppState,
    request: &SparqlRequest,
    text: &str,
    prefixes: Prefixes,
) -> Result<(Answer, Duration, Form), ApiError> {
    let parse::Parsed {
        tree: query,
        share,
        optimizable,
    } = parse::query(state, text).await?;
    let form = match query {
        Query::Select { .. } | Query::Ask { .. } => Form::Results,
        Query::Construct { .. } | Query::Describe { .. } => Form::Graph,
    };
    let budget = state.settings().budget(request.timeout);
    let permit = state.try_permit()?;
    state.metrics().queries.fetch_add(1, Ordering::Relaxed);
    let dataset = DatasetOverride {
        default_graphs: request.default_graphs.clone(),
        named_graphs: request.named_graphs.clone(),
    };
    let store = state.store().clone();
    let index = state.text_index().cloned();
    let max_hits = state.settings().max_text_hits;
    // The protocol's options (text function, SERVICE), so the page answers what /sparql does.
    let options = parse::options_for(optimizable, state.query_options());
    run_blocking(state, permit, budget, move |token| {
        let _tree_share = share;
        let start = Instant::now();
        let reader = store.reader();
        let (query, options) =
            crate::text_sparql::prepare(index.as_ref(), max_hits, &reader, query, options)?;
        let options = options.with_cancellation(token.clone());
        let answer = evaluate_query(&reader, &query, &dataset, &options)
            .map_err(|e| ApiError::from_store(e, budget))?;
        let answer = tabulate(answer, &prefixes, budget)?;
        Ok((answer, start.elapsed(), form))
    })
    .await
}

/// The first [`SHOWN_ROWS`] rows of an answer as cells.
fn tabulate(
    answer: QueryResults<'_>,
    prefixes: &Prefixes,
    budget: Duration,
) -> Result<Answer, ApiError> {
    let failed = |e| ApiError::from_store(lodestone_store::sparql::evaluation_error(e), budget);
    match answer {
        QueryResults::Boolean(value) => Ok(Answer::Boolean(value)),
        QueryResults::Solutions(mut solutions) => {
            let columns = solutions
                .variables()
                .iter()
                .map(|v| v.as_str().to_owned())
                .collect();
            let mut rows = Vec::new();
            for solution in solutions.by_ref() {
                if rows.len() == SHOWN_ROWS {
                    return Ok(Answer::Table {
                        columns,
                        rows,
                        truncated: true,
                    });
                }
                let solution = solution.map_err(failed)?;
                rows.push(
                    solution
                        .values()
                        .iter()
                        .map(|value| Cell::of_option(value.as_ref(), prefixes))
                        .collect(),
                );
            }
            Ok(Answer::Table {
                columns,
                rows,
                truncated: false,
            })
        }
        QueryResults::Graph(triples) => {
            let mut rows = Vec::new();
            for triple in triples {
                if rows.len() == SHOWN_ROWS {
                    return Ok(Answer::Table {
                        columns: triple_columns(),
                        rows,
                        truncated: true,
                    });
                }
                let triple = triple.map_err(failed)?;
                rows.push(vec![
                    Cell::of(&triple.subject.into(), prefixes),
                    Cell::iri(triple.predicate.as_str(), prefixes),
                    Cell::of(&triple.object, prefixes),
                ]);
            }
            Ok(Answer::Table {
                columns: triple_columns(),
                rows,
                truncated: false,
            })
        }
    }
}

fn triple_columns() -> Vec<String> {
    ["subject", "predicate", "object"]
        .map(str::to_owned)
        .to_vec()
}

/// An error as the page shows it: with the line and column of a syntax error.
fn error_answer(text: &str, error: &ApiError) -> Answer {
    let message = error.to_string();
    let position = matches!(error, ApiError::QuerySyntax(_))
        .then(|| error_position(&message))
        .flatten();
    let line_text = position.and_then(|p| {
        text.lines()
            .nth(p.line.saturating_sub(1))
            .map(str::to_owned)
    });
    Answer::Error {
        message,
        position,
        line_text,
    }
}

/// Links to the whole answer in each syntax the protocol offers.
fn downloads(text: &str, form: Form) -> Vec<Download> {
    let names: &[(&str, &str)] = match form {
        Form::Results => &[
            ("JSON", "json"),
            ("XML", "xml"),
            ("CSV", "csv"),
            ("TSV", "tsv"),
        ],
        Form::Graph => &[
            ("Turtle", "ttl"),
            ("N-Triples", "nt"),
            ("RDF/XML", "rdf"),
            ("JSON-LD", "jsonld"),
        ],
    };
    names
        .iter()
        .map(|(name, format)| Download {
            name: (*name).to_owned(),
            href: links::with_query("/sparql", &[("query", text), ("format", format)]),
        })
        .collect()
}

/// Counts the instances of every class (constant text: nothing is pasted into it).
const CLASSES_QUERY: &str = "SELECT ?class (COUNT(?entity) AS ?instances)
WHERE { ?entity a ?class }
GROUP BY ?class
ORDER BY DESC(?instances)
LIMIT 20
";

/// The graphs of the dataset and their sizes.
const GRAPHS_QUERY: &str = "SELECT ?graph (COUNT(*) AS ?statements)
WHERE { GRAPH ?graph { ?s ?p ?o } }
GROUP BY ?graph
ORDER BY DESC(?statements)
LIMIT 20
";

/// Whether anything at all is in the store.
const ASK_QUERY: &str = "ASK { ?s ?p ?o }";

fn examples(top_class: Option<&NamedNode>, prefixes: &Prefixes) -> Vec<ExampleQuery> {
    let mut out = vec![ExampleQuery {
        title: "Classes with the most instances".to_owned(),
        href: links::sparql(CLASSES_QUERY),
    }];
    if let Some(class) = top_class {
        out.push(ExampleQuery {
            title: format!("Ten instances of {}", prefixes.short(class.as_str())),
            href: links::sparql(&instances_query(class.as_str())),
        });
        out.push(ExampleQuery {
            title: "Everything about one of them (DESCRIBE)".to_owned(),
            href: links::sparql(&describe_query(class.as_str())),
        });
    }
    out.push(ExampleQuery {
        title: "Named graphs and their sizes".to_owned(),
        href: links::sparql(GRAPHS_QUERY),
    });
    out.push(ExampleQuery {
        title: "Is the store empty? (ASK)".to_owned(),
        href: links::sparql(ASK_QUERY),
    });
    out
}

/// `SELECT ?entity WHERE { ?entity a <class> } LIMIT 10`, built as algebra and printed.
pub fn instances_query(class: &str) -> String {
    Query::Select {
        dataset: None,
        pattern: first_instances(class, 10),
        base_iri: None,
    }
    .to_string()
}

/// `DESCRIBE ?entity WHERE { ?entity a <class> } LIMIT 1`, built as algebra and printed.
fn describe_query(class: &str) -> String {
    Query::Describe {
        dataset: None,
        pattern: first_instances(class, 1),
        base_iri: None,
    }
    .to_string()
}

/// `?entity` of `{ ?entity a <class> }`, the first `limit` of them.
fn first_instances(class: &str, limit: usize) -> GraphPattern {
    let entity = Variable::new_unchecked("entity");
    GraphPattern::Slice {
        inner: Box::new(GraphPattern::Project {
            inner: Box::new(instances_pattern(&entity, class)),
            variables: vec![entity],
        }),
        start: 0,
        length: Some(limit),
    }
}

fn instances_pattern(entity: &Variable, class: &str) -> GraphPattern {
    GraphPattern::Bgp {
        patterns: vec![TriplePattern {
            subject: TermPattern::Variable(entity.clone()),
            predicate: NamedNodePattern::NamedNode(oxrdf::vocab::rdf::TYPE.into_owned()),
            object: TermPattern::NamedNode(NamedNode::new_unchecked(class)),
        }],
    }
}

fn store_error(error: StoreError) -> ApiError {
    ApiError::from_store(error, Duration::ZERO)
}

/// The class with most instances.
fn top_class(reader: &Reader<'_>) -> Result<Option<NamedNode>, ApiError> {
    for (id, _) in reader.top_classes(1).map_err(store_error)? {
        if let Term::NamedNode(class) = reader.term(id).map_err(store_error)? {
            return Ok(Some(class));
        }
    }
    Ok(None)
}

/// The entries of the server's prefix table (`table`, see `crate::prefix_table`) the dataset
/// uses: those of its main classes and of the predicates of a bounded sample of its quads.
pub(super) fn dataset_prefixes(
    reader: &Reader<'_>,
    table: &Prefixes,
) -> Result<Prefixes, ApiError> {
    let mut ids = Vec::new();
    for (class, _) in reader.top_classes(CLASS_SAMPLE).map_err(store_error)? {
        ids.push(class);
    }
    for quad in reader
        .quads_for_pattern(None, None, None, None)
        .take(PREDICATE_SAMPLE)
    {
        let predicate = quad.map_err(store_error)?.predicate;
        if !ids.contains(&predicate) {
            ids.push(predicate);
        }
    }
    let mut iris = Vec::with_capacity(ids.len());
    for id in ids {
        if let Term::NamedNode(node) = reader.term(id).map_err(store_error)? {
            iris.push(node.into_string());
        }
    }
    Ok(table.subset_used_by(iris.iter().map(String::as_str)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::sparql::SparqlParser;

    #[test]
    fn built_queries_parse_back() {
        for text in [
            instances_query("http://dbpedia.org/ontology/Album"),
            describe_query("http://example.org/a%3Eb"),
            CLASSES_QUERY.to_owned(),
            GRAPHS_QUERY.to_owned(),
        ] {
            assert!(SparqlParser::new().parse_query(&text).is_ok(), "{text}");
        }
    }
}
