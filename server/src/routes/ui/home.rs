//! `GET /`: what the dataset is, its size, its main classes and a few places to start.

use super::names::Names;
use super::{html, layout};
use crate::error::ApiError;
use crate::respond::stream::run_page;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use lodestone_store::{Distinct, Reader};
use lodestone_web::ui::home::{ClassCount, Example, HomePage};
use lodestone_web::ui::links::{self, with_query};
use oxrdf::vocab::rdf;
use oxrdf::Term;
use std::sync::Arc;
use std::time::Duration;

/// Classes listed on the home page.
const TOP_CLASSES: usize = 12;

/// Classes whose first instance is offered as an example.
const EXAMPLE_CLASSES: usize = 3;

pub(super) async fn home(State(state): State<AppState>) -> Result<Response, ApiError> {
    let reading = state.clone();
    let page = run_page(&state, move || {
        let reader = reading.store().reader();
        // From the statistics: a counter, the distinct subjects, the graphs table — not a
        // scan of every term's counters.
        let quads = reader.quad_count().map_err(store_error)?;
        let entities = reader.distinct_subjects().map_err(store_error)?;
        let graphs = reader.named_graphs().map_err(store_error)?.len() as u64;
        let prefixes = super::sparql::dataset_prefixes(&reader, &reading.prefixes())?;
        let mut names = Names::new(&reader, reading.text_index().map(Arc::as_ref), &prefixes);
        let classes = top_classes(&reader, &mut names)?;
        let (mut examples, first) = first_instances(&reader, &classes, &mut names)?;
        if let Some(entity) = first {
            examples.push(Example {
                text: format!("Lookup: how {} is used", names.iri(&entity)?),
                href: with_query("/lookup", &[("uri", &entity)]),
            });
        }
        if let Some(class) = classes.first() {
            examples.push(Example {
                text: format!("SPARQL: ten {} and their properties", class.name),
                href: links::sparql(&super::sparql::instances_query(&class.iri)),
            });
        }
        Ok(HomePage {
            layout: layout(&reading, "Home"),
            description: reading.settings().ui.description.clone(),
            quads,
            entities,
            graphs,
            classes,
            examples,
        })
    })
    .await?;
    html(StatusCode::OK, page.to_html())
}

fn store_error(error: lodestone_store::StoreError) -> ApiError {
    ApiError::from_store(error, Duration::ZERO)
}

/// The classes with most instances (distinct entities, as the faceted search they link to
/// counts them), as links into faceted search.
fn top_classes(
    reader: &Reader<'_>,
    names: &mut Names<'_, '_>,
) -> Result<Vec<ClassCount>, ApiError> {
    let mut classes = reader
        .distinct_counts(Distinct::ClassSubjects)
        .map_err(store_error)?;
    classes.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    classes.truncate(TOP_CLASSES);
    let mut out = Vec::new();
    for (id, count) in classes {
        if let Term::NamedNode(class) = reader.term(id).map_err(store_error)? {
            out.push(ClassCount {
                name: names.iri(class.as_str())?,
                href: links::search_class(class.as_str()),
                iri: class.into_string(),
                count,
            });
        }
    }
    Ok(out)
}

/// One instance of each of the first classes, linking to its page, and the first of them.
fn first_instances(
    reader: &Reader<'_>,
    classes: &[ClassCount],
    names: &mut Names<'_, '_>,
) -> Result<(Vec<Example>, Option<String>), ApiError> {
    let Some(rdf_type) = reader.term_id(rdf::TYPE.into()).map_err(store_error)? else {
        return Ok((Vec::new(), None));
    };
    let mut first_entity = None;
    let mut out = Vec::new();
    for class in classes.iter().take(EXAMPLE_CLASSES) {
        let Some(class_id) = reader
            .term_id(oxrdf::NamedNodeRef::new_unchecked(&class.iri).into())
            .map_err(store_error)?
        else {
            continue;
        };
        let first = reader
            .quads_for_pattern(None, Some(rdf_type), Some(class_id), None)
            .next()
            .transpose()
            .map_err(store_error)?;
        if let Some(quad) = first {
            if let Term::NamedNode(entity) = reader.term(quad.subject).map_err(store_error)? {
                out.push(Example {
                    text: format!("A {}: {}", class.name, names.iri(entity.as_str())?),
                    href: links::describe(entity.as_str()),
                });
                first_entity.get_or_insert_with(|| entity.into_string());
            }
        }
    }
    Ok((out, first_entity))
}
