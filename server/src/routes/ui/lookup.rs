//! `GET /lookup`: the URI lookup page over the code behind `/api/lookup`.
//!
//! One box takes what people have: a whole IRI (its usage report), or words or the start of
//! an IRI (`nomisma.org/id/ath`, `foaf:Per`: candidate IRIs, most used first, each linking to
//! its report and its page). `uri=` asks for a report directly; `q=` is what the box sends.
//! Refused input and unused IRIs are said on the page, with the status the API would give.

use super::names::Names;
use super::{html, layout};
use crate::error::ApiError;
use crate::routes::search::lookup::{self, Candidates, MatchedBy, UriReport};
use crate::routes::search::{run_blocking, usage::Counted};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use lodestone_indexer::TextIndex;
use lodestone_store::Store;
use lodestone_web::ui::links::{self, with_query};
use lodestone_web::ui::lookup::{
    CandidateList, CandidateRow, CountedLink, LookupPage, NamedLink, TermList, UsageView,
};
use lodestone_web::ui::Prefixes;
use oxrdf::{NamedNodeRef, Term};

/// Candidates listed.
const CANDIDATES: usize = 20;
/// Longest text accepted in the box.
const MAX_QUERY_CHARS: usize = 2_000;

/// What the URL asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Asked {
    /// Nothing yet: the empty form.
    Nothing,
    /// The report of this IRI (`uri=`).
    Report(String),
    /// Whatever was typed (`q=`): a report if it is an IRI in use, candidates otherwise.
    Typed(String),
}

impl Asked {
    fn parse(raw: Option<&str>) -> Result<Self, ApiError> {
        let mut asked = Self::Nothing;
        for (key, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            let value = value.trim();
            if value.chars().count() > MAX_QUERY_CHARS {
                return Err(ApiError::BadParameter {
                    name: if key == "uri" { "uri" } else { "q" },
                    message: format!("longer than {MAX_QUERY_CHARS} characters"),
                });
            }
            match key.as_ref() {
                "uri" if !value.is_empty() => asked = Self::Report(value.to_owned()),
                "q" if !value.is_empty() && asked == Self::Nothing => {
                    asked = Self::Typed(value.to_owned());
                }
                _ => {}
            }
        }
        Ok(asked)
    }

    fn text(&self) -> &str {
        match self {
            Self::Nothing => "",
            Self::Report(text) | Self::Typed(text) => text,
        }
    }
}

/// Whether typed text is a whole IRI (rather than words or a fragment of one).
fn is_whole_iri(text: &str) -> bool {
    NamedNodeRef::new(text).is_ok()
        && (text.contains("://") || text.starts_with("urn:"))
        && !text.contains(char::is_whitespace)
}

pub(super) async fn lookup(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let asked = Asked::parse(raw.as_deref())?;
    let mut page = LookupPage {
        layout: layout(&state, "URI lookup"),
        query: asked.text().to_owned(),
        report: None,
        candidates: None,
        message: None,
    };
    if asked == Asked::Nothing {
        return html(StatusCode::OK, page.to_html());
    }
    if let Some(title) = (!page.query.is_empty()).then(|| format!("Lookup: {}", page.query)) {
        page.layout = layout(&state, title);
    }
    let reading = state.clone();
    let found = run_blocking(&state, move |store, index| {
        gather(store, index, &reading.prefixes(), &asked)
    })
    .await;
    let status = match found {
        Ok(found) => {
            page.report = found.report;
            page.candidates = found.candidates;
            page.message = found.message;
            found.status
        }
        Err(ApiError::Internal(message)) => return Err(ApiError::Internal(message)),
        Err(error) => {
            page.message = Some(error.to_string());
            error.status()
        }
    };
    html(status, page.to_html())
}

/// What the page shows.
struct Found {
    status: StatusCode,
    report: Option<UsageView>,
    candidates: Option<CandidateList>,
    message: Option<String>,
}

/// Runs the lookup and names what it found. Blocking.
fn gather(
    store: &Store,
    index: &TextIndex,
    table: &Prefixes,
    asked: &Asked,
) -> Result<Found, ApiError> {
    let reader = store.reader();
    let prefixes = super::sparql::dataset_prefixes(&reader, table)?;
    let mut names = Names::new(&reader, Some(index), &prefixes);
    let langs = names.languages().to_vec();
    let mut found = Found {
        status: StatusCode::OK,
        report: None,
        candidates: None,
        message: None,
    };
    let iri = match asked {
        Asked::Nothing => return Ok(found),
        Asked::Report(iri) => Some(iri.as_str()),
        Asked::Typed(text) => is_whole_iri(text).then_some(text.as_str()),
    };
    if let Some(iri) = iri {
        match lookup::uri_report(store, index, iri, &langs) {
            Ok(report) => {
                found.report = Some(report_view(&mut names, &report)?);
                return Ok(found);
            }
            // An IRI not used here: say so, and offer the IRIs it starts.
            Err(ApiError::NotFound(message)) => {
                found.message = Some(message);
                if matches!(asked, Asked::Report(_)) {
                    found.status = StatusCode::NOT_FOUND;
                }
            }
            Err(error) => return Err(error),
        }
    }
    let candidates = lookup::candidates(store, index, table, asked.text(), &langs, CANDIDATES)?;
    found.candidates = Some(candidate_view(&mut names, &candidates)?);
    Ok(found)
}

fn report_link(names: &mut Names<'_, '_>, term: &Term) -> Result<NamedLink, ApiError> {
    Ok(NamedLink {
        label: names.term(term)?,
        href: match term {
            Term::NamedNode(n) => with_query("/lookup", &[("uri", n.as_str())]),
            other => links::describe(&other.to_string()),
        },
        iri: match term {
            Term::NamedNode(n) => n.as_str().to_owned(),
            other => other.to_string(),
        },
    })
}

fn counted(names: &mut Names<'_, '_>, list: &[Counted]) -> Result<Vec<CountedLink>, ApiError> {
    list.iter()
        .map(|c| {
            Ok(CountedLink {
                term: report_link(names, &c.term)?,
                count: c.count,
            })
        })
        .collect()
}

fn report_view(names: &mut Names<'_, '_>, report: &UriReport) -> Result<UsageView, ApiError> {
    let usage = &report.usage;
    let classes = report
        .classes
        .iter()
        .map(|class| {
            Ok(NamedLink {
                label: names.iri(class)?,
                iri: class.clone(),
                href: links::search_class(class),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let graphs = usage
        .graphs
        .iter()
        .map(|g| {
            Ok((
                match &g.graph {
                    None => "the default graph".to_owned(),
                    Some(graph) => names.term(graph)?,
                },
                g.positions,
            ))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let same_as = usage
        .same_as
        .iter()
        .map(|p| {
            Ok(CountedLink {
                term: report_link(names, &p.term)?,
                count: p.usage.total(),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let list = |heading: &str, id: &str, entries: Vec<CountedLink>| TermList {
        heading: heading.to_owned(),
        id: id.to_owned(),
        entries,
    };
    Ok(UsageView {
        iri: report.uri.clone(),
        label: report.label.clone(),
        page_href: links::describe(&report.uri),
        classes,
        roles: vec![
            ("subject".to_owned(), usage.usage.as_subject),
            ("predicate".to_owned(), usage.usage.as_predicate),
            ("object".to_owned(), usage.usage.as_object),
            ("graph name".to_owned(), usage.usage.as_graph),
        ],
        total: usage.usage.total(),
        graph_count: usage.usage.graphs,
        graphs,
        pointing: u64::try_from(usage.distinct_subjects_pointing_at).unwrap_or(u64::MAX),
        lists: vec![
            list(
                "Its properties",
                "lookup-out",
                counted(names, &usage.predicates_as_subject)?,
            ),
            list(
                "Used as the value of",
                "lookup-in",
                counted(names, &usage.predicates_as_object)?,
            ),
            list("Same as (owl:sameAs)", "lookup-same-as", same_as),
        ],
        instances: (usage.class_instances > 0).then(|| CountedLink {
            term: NamedLink {
                label: report.label.clone().unwrap_or_else(|| report.uri.clone()),
                iri: report.uri.clone(),
                href: links::search_class(&report.uri),
            },
            count: usage.class_instances,
        }),
        complete: usage.complete,
    })
}

fn candidate_view(
    names: &mut Names<'_, '_>,
    candidates: &Candidates,
) -> Result<CandidateList, ApiError> {
    let rows = candidates
        .results
        .iter()
        .map(|c| {
            let label = match &c.label {
                Some(label) => label.clone(),
                None => names.iri(&c.uri)?,
            };
            Ok(CandidateRow {
                term: NamedLink {
                    label,
                    iri: c.uri.clone(),
                    href: with_query("/lookup", &[("uri", &c.uri)]),
                },
                page_href: links::describe(&c.uri),
                classes: c
                    .classes
                    .iter()
                    .map(|class| names.iri(class))
                    .collect::<Result<_, _>>()?,
                usage: c.usage,
                roles: c.roles,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(CandidateList {
        matched_by: match candidates.matched_by {
            MatchedBy::Label => "words".to_owned(),
            MatchedBy::Iri => "IRI start".to_owned(),
        },
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_tells_iris_from_words() {
        assert!(is_whole_iri("http://nomisma.org/id/athens"));
        assert!(is_whole_iri("urn:isbn:123"));
        assert!(!is_whole_iri("nomisma.org/id/ath"));
        assert!(!is_whole_iri("foaf:Per"));
        assert!(!is_whole_iri("owl of athens"));
    }

    #[test]
    fn the_url_says_what_is_asked() {
        assert_eq!(Asked::parse(None).ok(), Some(Asked::Nothing));
        assert_eq!(
            Asked::parse(Some("q=+athens+")).ok(),
            Some(Asked::Typed("athens".into()))
        );
        assert_eq!(
            Asked::parse(Some("q=x&uri=http%3A%2F%2Fex.org%2Fa")).ok(),
            Some(Asked::Report("http://ex.org/a".into()))
        );
        let long = format!("q={}", "a".repeat(MAX_QUERY_CHARS + 1));
        assert!(Asked::parse(Some(&long)).is_err());
    }
}
