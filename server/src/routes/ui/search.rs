//! `GET /search`: the faceted search page over the facet engine.
//!
//! The URL is the whole state: `q` (words), `class` (repeatable), `has` (repeatable,
//! `<property> value` with the value in N-Triples syntax), `values` (the property whose values
//! are listed), `pivot` (a property: show the entities it leads to from the matching set),
//! `page` and `timeout_ms`. Each panel is one facet query on the same tree with another view.

use super::{blocking, html, layout};
use crate::error::ApiError;
use crate::facets::model::{
    ClassConstraint, Direction, Edge, FacetQuery, Node, ValueCondition, View, ViewKind,
    DEFAULT_BUCKETS,
};
use crate::facets::response::FacetAnswer;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use lodestone_web::ui::links::{self, with_query};
use lodestone_web::ui::search::{Chip, FacetEntry, FacetPanel, ResultRow, SearchPage};
use lodestone_web::ui::Prefixes;
use oxrdf::{NamedNode, Term};
use std::str::FromStr;
use std::time::Duration;

/// Results per page.
const PAGE_SIZE: usize = 20;
/// Rows per facet panel.
const PANEL_ROWS: usize = 12;
/// The default time budget of each facet query.
const DEFAULT_TIMEOUT_MS: u64 = 2_000;
/// The largest budget a retry link asks for.
const MAX_TIMEOUT_MS: u64 = 30_000;
/// Deepest page.
const MAX_PAGE: usize = 500;

/// The state of a search, as its URL carries it.
#[derive(Debug, Clone, Default, PartialEq)]
struct SearchState {
    text: String,
    classes: Vec<NamedNode>,
    has: Vec<(NamedNode, Term)>,
    values: Option<NamedNode>,
    pivot: Option<NamedNode>,
    page: usize,
    timeout_ms: u64,
}

fn bad(name: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::BadRequest(format!("{name}: {message}"))
}

impl SearchState {
    fn parse(raw: Option<&str>) -> Result<Self, ApiError> {
        let mut state = Self {
            page: 1,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            ..Self::default()
        };
        let iri = |name: &str, v: &str| NamedNode::new(v).map_err(|e| bad(name, e));
        for (key, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            match key.as_ref() {
                "q" => state.text = value.trim().to_owned(),
                "class" => state.classes.push(iri("class", &value)?),
                "values" => state.values = Some(iri("values", &value)?),
                "pivot" => state.pivot = Some(iri("pivot", &value)?),
                "has" => state.has.push(parse_has(&value)?),
                "page" => {
                    state.page = value
                        .parse()
                        .ok()
                        .filter(|p| (1..=MAX_PAGE).contains(p))
                        .ok_or_else(|| bad("page", format!("a number from 1 to {MAX_PAGE}")))?;
                }
                "timeout_ms" => {
                    state.timeout_ms = value
                        .parse::<u64>()
                        .ok()
                        .filter(|t| (1..=MAX_TIMEOUT_MS).contains(t))
                        .ok_or_else(|| bad("timeout_ms", format!("1 to {MAX_TIMEOUT_MS}")))?;
                }
                _ => {}
            }
        }
        Ok(state)
    }

    /// The URL of this state.
    fn href(&self) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if !self.text.is_empty() {
            pairs.push(("q", self.text.clone()));
        }
        pairs.extend(
            self.classes
                .iter()
                .map(|c| ("class", c.as_str().to_owned())),
        );
        pairs.extend(self.has.iter().map(|(p, v)| ("has", format!("{p} {v}"))));
        if let Some(p) = &self.values {
            pairs.push(("values", p.as_str().to_owned()));
        }
        if let Some(p) = &self.pivot {
            pairs.push(("pivot", p.as_str().to_owned()));
        }
        if self.page > 1 {
            pairs.push(("page", self.page.to_string()));
        }
        if self.timeout_ms != DEFAULT_TIMEOUT_MS {
            pairs.push(("timeout_ms", self.timeout_ms.to_string()));
        }
        let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        with_query("/search", &borrowed)
    }

    /// A changed copy, back on the first page.
    fn with(&self, change: impl FnOnce(&mut Self)) -> Self {
        let mut next = self.clone();
        next.page = 1;
        change(&mut next);
        next
    }

    /// The facet tree with `view` on the focus (the pivot's end, if any).
    fn query(&self, view: View) -> FacetQuery {
        let mut root = Node {
            text: (!self.text.is_empty()).then(|| self.text.clone()),
            classes: self
                .classes
                .iter()
                .map(|iri| ClassConstraint {
                    iri: iri.clone(),
                    exclude: false,
                })
                .collect(),
            ..Node::default()
        };
        for (property, value) in &self.has {
            root.edges.push(Edge {
                property: property.clone(),
                direction: Direction::Forward,
                exclude: false,
                node: Node {
                    values: vec![ValueCondition::Eq(value.clone())],
                    ..Node::default()
                },
            });
        }
        match &self.pivot {
            Some(property) => root.edges.push(Edge {
                property: property.clone(),
                direction: Direction::Forward,
                exclude: false,
                node: Node {
                    view: Some(view),
                    ..Node::default()
                },
            }),
            None => root.view = Some(view),
        }
        FacetQuery {
            root,
            timeout: Some(Duration::from_millis(self.timeout_ms)),
        }
    }
}

/// `<property> value`: an IRI in angle brackets, a space, an N-Triples term.
fn parse_has(text: &str) -> Result<(NamedNode, Term), ApiError> {
    let (property, value) = text
        .strip_prefix('<')
        .and_then(|rest| rest.split_once("> "))
        .ok_or_else(|| bad("has", "write `<property IRI> value`"))?;
    let property = NamedNode::new(property).map_err(|e| bad("has", e))?;
    let value = Term::from_str(value.trim()).map_err(|e| bad("has", e))?;
    Ok((property, value))
}

fn view(kind: ViewKind, property: Option<NamedNode>, limit: usize, offset: usize) -> View {
    View {
        kind,
        property,
        limit,
        offset,
        buckets: DEFAULT_BUCKETS,
    }
}

/// The four answers of a page: entities, classes, properties, values (if chosen).
struct Answers {
    prefixes: Prefixes,
    entities: std::sync::Arc<FacetAnswer>,
    classes: std::sync::Arc<FacetAnswer>,
    properties: std::sync::Arc<FacetAnswer>,
    values: Option<std::sync::Arc<FacetAnswer>>,
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
    let store = std::sync::Arc::clone(state.store());
    let engine = state.facets().clone();
    let answers = blocking(move || {
        let _permit = permit;
        let run = |q: &FacetQuery| {
            engine
                .answer(&store, q, budget)
                .map_err(|e| ApiError::from_store(e, budget))
        };
        let prefixes = super::sparql::dataset_prefixes(&store.reader())?;
        Ok(Answers {
            prefixes,
            entities: run(&queries.0)?,
            classes: run(&queries.1)?,
            properties: run(&queries.2)?,
            values: queries.3.as_ref().map(run).transpose()?,
        })
    })
    .await?;
    html(StatusCode::OK, render(&state, &search, &answers).to_html())
}

fn render(state: &AppState, search: &SearchState, answers: &Answers) -> SearchPage {
    let prefixes = &answers.prefixes;
    let entities = &answers.entities;
    let best = entities
        .rows
        .iter()
        .filter_map(|r| r.score)
        .fold(0.0_f64, f64::max);
    let results = entities
        .rows
        .iter()
        .map(|row| {
            let iri = match &row.value {
                Term::NamedNode(n) => n.as_str().to_owned(),
                other => other.to_string(),
            };
            let rank = match (row.score, best > 0.0) {
                (Some(score), true) => (score / best * 100.0).round().clamp(0.0, 100.0) as u32,
                _ => 100,
            };
            ResultRow {
                label: row.label.clone(),
                href: links::describe(&iri),
                iri,
                rank,
            }
        })
        .collect();
    let all = [
        Some(&answers.entities),
        Some(&answers.classes),
        Some(&answers.properties),
        answers.values.as_ref(),
    ];
    let complete = all.iter().flatten().all(|a| a.complete);
    let elapsed_ms = all.iter().flatten().map(|a| a.time_ms).sum();
    let mut panels = vec![
        panel("Kinds", "facet-classes", &answers.classes, |term| {
            let Term::NamedNode(class) = term else {
                return None;
            };
            Some((search.with(|s| s.classes.push(class.clone())).href(), None))
        }),
        panel(
            "Properties",
            "facet-properties",
            &answers.properties,
            |term| {
                // Classes have their own panel.
                let Term::NamedNode(property) = term else {
                    return None;
                };
                if property.as_ref() == oxrdf::vocab::rdf::TYPE {
                    return None;
                }
                Some((
                    search.with(|s| s.values = Some(property.clone())).href(),
                    Some(search.with(|s| s.pivot = Some(property.clone())).href()),
                ))
            },
        ),
    ];
    if let (Some(values), Some(property)) = (&answers.values, &search.values) {
        panels.push(panel(
            &format!("Values of {}", prefixes.short(property.as_str())),
            "facet-values",
            values,
            |term| {
                Some((
                    search
                        .with(|s| {
                            s.has.push((property.clone(), term.clone()));
                            s.values = None;
                        })
                        .href(),
                    None,
                ))
            },
        ));
    }
    let total = entities.total;
    let page_start = (search.page - 1) * PAGE_SIZE;
    SearchPage {
        layout: layout(
            state,
            if search.text.is_empty() {
                "Search".to_owned()
            } else {
                format!("Search: {}", search.text)
            },
        ),
        text: search.text.clone(),
        kept: kept_fields(search),
        chips: chips(search, prefixes),
        results,
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
    }
}

/// A panel of an answer; `links` gives an entry's narrowing link and its pivot link.
fn panel(
    heading: &str,
    id: &str,
    answer: &FacetAnswer,
    links: impl Fn(&Term) -> Option<(String, Option<String>)>,
) -> FacetPanel {
    FacetPanel {
        heading: heading.to_owned(),
        id: id.to_owned(),
        partial: !answer.complete,
        entries: answer
            .rows
            .iter()
            .filter_map(|row| {
                let (href, pivot_href) = links(&row.value)?;
                Some(FacetEntry {
                    label: row.label.clone(),
                    title: match &row.value {
                        Term::NamedNode(n) => n.as_str().to_owned(),
                        other => other.to_string(),
                    },
                    count: row.count.unwrap_or(0),
                    href,
                    pivot_href,
                })
            })
            .collect(),
    }
}

/// The constraints other than the words, as hidden fields of the search form.
fn kept_fields(search: &SearchState) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = search
        .classes
        .iter()
        .map(|c| ("class".to_owned(), c.as_str().to_owned()))
        .collect();
    out.extend(
        search
            .has
            .iter()
            .map(|(p, v)| ("has".to_owned(), format!("{p} {v}"))),
    );
    if let Some(p) = &search.pivot {
        out.push(("pivot".to_owned(), p.as_str().to_owned()));
    }
    out
}

fn chips(search: &SearchState, prefixes: &Prefixes) -> Vec<Chip> {
    let mut out = Vec::new();
    if !search.text.is_empty() {
        out.push(Chip {
            text: format!("words: {}", search.text),
            remove_href: search.with(|s| s.text.clear()).href(),
        });
    }
    for (i, class) in search.classes.iter().enumerate() {
        out.push(Chip {
            text: format!("kind: {}", prefixes.short(class.as_str())),
            remove_href: search
                .with(|s| {
                    s.classes.remove(i);
                })
                .href(),
        });
    }
    for (i, (property, value)) in search.has.iter().enumerate() {
        let shown = match value {
            Term::NamedNode(n) => prefixes.short(n.as_str()),
            Term::Literal(l) => l.value().to_owned(),
            other => other.to_string(),
        };
        out.push(Chip {
            text: format!("{}: {shown}", prefixes.short(property.as_str())),
            remove_href: search
                .with(|s| {
                    s.has.remove(i);
                })
                .href(),
        });
    }
    if let Some(property) = &search.pivot {
        out.push(Chip {
            text: format!("following {}", prefixes.short(property.as_str())),
            remove_href: search.with(|s| s.pivot = None).href(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_the_whole_state() {
        let raw = "q=queen&class=http%3A%2F%2Fdbpedia.org%2Fontology%2FAlbum&has=%3Chttp%3A%2F%2Fex.org%2Fp%3E+%221999%22&pivot=http%3A%2F%2Fex.org%2Fq&page=2";
        let state = SearchState::parse(Some(raw)).expect("parses");
        assert_eq!(state.text, "queen");
        assert_eq!(state.has.len(), 1);
        let again =
            SearchState::parse(state.href().split_once('?').map(|(_, q)| q)).expect("parses");
        assert_eq!(again, state);
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(SearchState::parse(Some("class=not%20an%20iri")).is_err());
        assert!(SearchState::parse(Some("has=%3Chttp%3A%2F%2Fex.org%2Fp%3E")).is_err());
        assert!(SearchState::parse(Some("page=0")).is_err());
    }
}
