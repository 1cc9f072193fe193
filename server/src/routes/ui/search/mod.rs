//! `GET /search`: the faceted search page over the facet engine.
//!
//! The URL is the whole state (see [`state`]): words, classes, values, properties followed
//! (pivots, several one after the other), page and time budget. Each panel is one facet query
//! on the same tree with another view; names, classes and snippets come from the text index.

mod state;

use super::names::Names;
use super::{html, layout};
use crate::error::ApiError;
use crate::respond::stream::run_page;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use lodestone_facets::model::{FacetQuery, ViewKind};
use lodestone_facets::response::FacetAnswer;
use lodestone_web::ui::links::{self, with_query};
use lodestone_web::ui::search::{segments, Chip, FacetEntry, FacetPanel, ResultRow, SearchPage};
use oxrdf::Term;
use state::{view, Level, SearchState, MAX_PAGE, MAX_PIVOTS, MAX_TIMEOUT_MS};
use std::sync::Arc;
use std::time::Duration;

/// Results per page.
const PAGE_SIZE: usize = 20;
/// Rows per facet panel.
const PANEL_ROWS: usize = 12;

/// The four answers of a page: entities, classes, properties, values (if chosen).
struct Answers {
    entities: Arc<FacetAnswer>,
    classes: Arc<FacetAnswer>,
    properties: Arc<FacetAnswer>,
    values: Option<Arc<FacetAnswer>>,
}

impl Answers {
    fn all(&self) -> impl Iterator<Item = &Arc<FacetAnswer>> {
        [&self.entities, &self.classes, &self.properties]
            .into_iter()
            .chain(self.values.as_ref())
    }
}

pub(super) async fn search(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let search = SearchState::parse(raw.as_deref())?;
    let offset = (search.page - 1) * PAGE_SIZE;
    let queries = (
        search.query(view(ViewKind::Entities, None, PAGE_SIZE, offset)),
        search.query(view(ViewKind::Classes, None, PANEL_ROWS, 0)),
        search.query(view(ViewKind::Properties, None, PANEL_ROWS, 0)),
        search
            .values
            .clone()
            .map(|p| search.query(view(ViewKind::Values, Some(p), PANEL_ROWS, 0))),
    );
    for query in [&queries.0, &queries.1, &queries.2]
        .into_iter()
        .chain(queries.3.as_ref())
    {
        query
            .validate()
            .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    }
    let budget = Duration::from_millis(search.timeout_ms).min(state.settings().query_timeout);
    let permit = state.try_permit()?;
    let reading = state.clone();
    let text_query = queries.0.clone();
    let (words, again) = (search.text.clone(), search.href());
    let page = run_page(&state, move || {
        let _permit = permit;
        let store = reading.store();
        crate::text_index::require_ready_for_facets(reading.text_index(), store, &text_query)?;
        let engine = reading.facets();
        let run = |q: &FacetQuery| {
            engine
                .answer(store, q, budget)
                .map_err(|e| ApiError::from_facets(e, budget))
        };
        let answers = Answers {
            entities: run(&queries.0)?,
            classes: run(&queries.1)?,
            properties: run(&queries.2)?,
            values: queries.3.as_ref().map(run).transpose()?,
        };
        let reader = store.reader();
        let prefixes = super::sparql::dataset_prefixes(&reader, &reading.prefixes())?;
        let index = reading.text_index().map(Arc::as_ref);
        let mut names = Names::new(&reader, index, &prefixes);
        render(&reading, &search, &answers, &mut names)
    })
    .await;
    match page {
        Ok(page) => html(StatusCode::OK, page.to_html()),
        Err(ApiError::IndexBuilding(progress)) => {
            super::building::page(&state, &progress, &words, &again)
        }
        Err(error) => Err(error),
    }
}

/// The results of the entities answer: label, classes and snippet from the text index (when
/// there is one), rank relative to the best on the page.
fn results(
    search: &SearchState,
    entities: &FacetAnswer,
    names: &mut Names<'_, '_>,
) -> Result<Vec<ResultRow>, ApiError> {
    let best = entities
        .rows
        .iter()
        .filter_map(|r| r.score)
        .fold(0.0_f64, f64::max);
    let summaries = names.summaries(
        &entities
            .rows
            .iter()
            .map(|r| r.value.clone())
            .collect::<Vec<_>>(),
        (!search.text.is_empty()).then_some(search.text.as_str()),
    )?;
    let mut out = Vec::with_capacity(entities.rows.len());
    for (row, summary) in entities.rows.iter().zip(summaries) {
        let iri = match &row.value {
            Term::NamedNode(n) => n.as_str().to_owned(),
            other => other.to_string(),
        };
        // Clamped to 0..=100, so it fits a `u32`.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let rank = match (row.score, best > 0.0) {
            (Some(score), true) => (score / best * 100.0).round().clamp(0.0, 100.0) as u32,
            _ => 100,
        };
        let (label, classes, snippet) = match summary {
            Some(hit) => {
                let classes = hit
                    .classes
                    .iter()
                    .map(|c| names.iri(c))
                    .collect::<Result<Vec<_>, _>>()?;
                let snippet = match (&hit.snippet, &hit.description) {
                    (Some(snippet), _) => segments(&snippet.text, &snippet.highlights),
                    (None, Some(description)) => segments(&description.text, &[]),
                    (None, None) => Vec::new(),
                };
                let label = match hit.label {
                    Some(label) => label.text,
                    None => names.term(&row.value)?,
                };
                (label, classes, snippet)
            }
            None => (names.term(&row.value)?, Vec::new(), Vec::new()),
        };
        out.push(ResultRow {
            label,
            href: links::describe(&iri),
            iri,
            classes,
            snippet,
            rank,
        });
    }
    Ok(out)
}

fn render(
    state: &AppState,
    search: &SearchState,
    answers: &Answers,
    names: &mut Names<'_, '_>,
) -> Result<SearchPage, ApiError> {
    let entities = &answers.entities;
    let complete = answers.all().all(|a| a.complete);
    let elapsed_ms = answers.all().map(|a| a.time_ms).sum();
    let focus = search.focus();
    let mut panels = vec![
        panel("Kinds", "facet-classes", &answers.classes, names, |term| {
            let Term::NamedNode(class) = term else {
                return None;
            };
            if focus.classes.contains(class) {
                return None;
            }
            Some((
                search
                    .with(|s| s.focus_mut().classes.push(class.clone()))
                    .href(),
                None,
            ))
        })?,
        panel(
            "Properties",
            "facet-properties",
            &answers.properties,
            names,
            |term| {
                // Classes have their own panel.
                let Term::NamedNode(property) = term else {
                    return None;
                };
                if property.as_ref() == oxrdf::vocab::rdf::TYPE {
                    return None;
                }
                let pivot = (search.levels.len() <= MAX_PIVOTS).then(|| {
                    search
                        .with(|s| {
                            s.values = None;
                            s.levels.push(Level {
                                via: Some(property.clone()),
                                ..Level::default()
                            });
                        })
                        .href()
                });
                Some((
                    search.with(|s| s.values = Some(property.clone())).href(),
                    pivot,
                ))
            },
        )?,
    ];
    if let (Some(values), Some(property)) = (&answers.values, &search.values) {
        let heading = format!("Values of {}", names.iri(property.as_str())?);
        panels.push(panel(&heading, "facet-values", values, names, |term| {
            Some((
                search
                    .with(|s| {
                        s.focus_mut().has.push((property.clone(), term.clone()));
                        s.values = None;
                    })
                    .href(),
                None,
            ))
        })?);
    }
    let total = entities.total;
    let page_start = (search.page - 1) * PAGE_SIZE;
    Ok(SearchPage {
        layout: layout(
            state,
            if search.text.is_empty() {
                "Search".to_owned()
            } else {
                format!("Search: {}", search.text)
            },
        ),
        text: search.text.clone(),
        kept: search
            .constraint_pairs()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
        chips: chips(search, names)?,
        results: results(search, entities, names)?,
        total,
        complete,
        retry_href: (!complete && search.timeout_ms < MAX_TIMEOUT_MS).then(|| {
            let mut more = search.clone();
            more.timeout_ms = (search.timeout_ms * 4).min(MAX_TIMEOUT_MS);
            more.href()
        }),
        elapsed_ms,
        first: page_start as u64 + 1,
        previous_href: (search.page > 1).then(|| {
            let mut previous = search.clone();
            previous.page -= 1;
            previous.href()
        }),
        next_href: ((page_start + PAGE_SIZE) < usize::try_from(total).unwrap_or(usize::MAX)
            && search.page < MAX_PAGE)
            .then(|| {
                let mut next = search.clone();
                next.page += 1;
                next.href()
            }),
        panels,
        sparql_href: links::sparql(&entities.sparql),
        csv_href: with_query("/sparql", &[("query", &entities.sparql), ("format", "csv")]),
        json_href: with_query(
            "/sparql",
            &[("query", &entities.sparql), ("format", "json")],
        ),
    })
}

/// A panel of an answer; `links` gives an entry's narrowing link and its pivot link (`None`
/// leaves the entry out).
fn panel(
    heading: &str,
    id: &str,
    answer: &FacetAnswer,
    names: &mut Names<'_, '_>,
    links: impl Fn(&Term) -> Option<(String, Option<String>)>,
) -> Result<FacetPanel, ApiError> {
    let mut entries = Vec::with_capacity(answer.rows.len());
    for row in &answer.rows {
        let Some((href, pivot_href)) = links(&row.value) else {
            continue;
        };
        entries.push(FacetEntry {
            label: names.term(&row.value)?,
            title: match &row.value {
                Term::NamedNode(n) => n.as_str().to_owned(),
                other => other.to_string(),
            },
            count: row.count.unwrap_or(0),
            href,
            pivot_href,
        });
    }
    Ok(FacetPanel {
        heading: heading.to_owned(),
        id: id.to_owned(),
        partial: !answer.complete,
        entries,
    })
}

fn chips(search: &SearchState, names: &mut Names<'_, '_>) -> Result<Vec<Chip>, ApiError> {
    let mut out = Vec::new();
    if !search.text.is_empty() {
        out.push(Chip {
            text: format!("words: {}", search.text),
            remove_href: search.with(|s| s.text.clear()).href(),
        });
    }
    for (level_index, level) in search.levels.iter().enumerate() {
        if let Some(via) = &level.via {
            // Dropping a step drops the steps after it and the values listed at the end.
            out.push(Chip {
                text: format!("following {}", names.iri(via.as_str())?),
                remove_href: search
                    .with(|s| {
                        s.levels.truncate(level_index);
                        s.values = None;
                    })
                    .href(),
            });
        }
        for (i, class) in level.classes.iter().enumerate() {
            out.push(Chip {
                text: format!("kind: {}", names.iri(class.as_str())?),
                remove_href: search
                    .with(|s| {
                        s.levels[level_index].classes.remove(i);
                    })
                    .href(),
            });
        }
        for (i, (property, value)) in level.has.iter().enumerate() {
            out.push(Chip {
                text: format!("{}: {}", names.iri(property.as_str())?, names.term(value)?),
                remove_href: search
                    .with(|s| {
                        s.levels[level_index].has.remove(i);
                    })
                    .href(),
            });
        }
    }
    Ok(out)
}
