//! `GET /api/lookup`: `uri=` gives one IRI's usage statistics, `q=` finds candidate IRIs by
//! label words, local name, CURIE or a fragment of the IRI itself (`dbpedia.org/resource/Ber`,
//! `foaf:Per`), ranked by match and usage (see `candidates`).

use super::candidates::{rank, MatchKind, Reading};
use super::format::Format;
use super::params::{bad, languages, Params};
use super::{index_error, run_blocking, usage};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use lodestone_indexer::TextIndex;
use lodestone_store::model::{NamedNodeRef, Term};
use lodestone_store::{Reader, Store};
use lodestone_vocab::Prefixes;
use serde_json::{json, Value};
use std::time::Duration;

/// Candidates returned by `q=`.
const CANDIDATES: usize = 20;

/// `GET /api/lookup?uri=` or `?q=`.
pub(crate) async fn lookup(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let params = Params::parse(raw.as_deref());
    let format = match Format::for_request(&params, &headers, Format::Json) {
        Ok(format) => format,
        Err(refusal) => return *refusal,
    };
    let result = async {
        let langs = languages(&params, &headers)?;
        match (params.iri("uri")?, params.get("q")?) {
            (Some(uri), None) => {
                run_blocking(&state, move |store, index| {
                    uri_report(store, index, &uri, &langs).map(|r| r.to_json())
                })
                .await
            }
            (None, Some(q)) => {
                let q = q.to_owned();
                let limit = params.count("limit", CANDIDATES, 100)?;
                let reading = state.clone();
                run_blocking(&state, move |store, index| {
                    let prefixes = reading.prefixes();
                    candidates(store, index, &prefixes, &q, &langs, limit).map(|c| c.to_json())
                })
                .await
            }
            (Some(_), Some(_)) => Err(bad("uri", "give either uri= or q=, not both")),
            (None, None) => Err(bad(
                "uri",
                "give uri= (an IRI) or q= (words or an IRI part)",
            )),
        }
    }
    .await;
    match result {
        Ok(value) => format.respond(&value, "lookup"),
        Err(error) => format.error(error),
    }
}

fn store_error(error: lodestone_store::StoreError) -> ApiError {
    ApiError::from_store(error, Duration::ZERO)
}

/// What `uri=` answers: one IRI's label, classes and usage statistics.
#[derive(Debug, Clone)]
pub(crate) struct UriReport {
    /// The IRI.
    pub uri: String,
    /// Its best label for the requested languages.
    pub label: Option<String>,
    /// Its classes (IRIs).
    pub classes: Vec<String>,
    /// Its usage.
    pub usage: usage::UsageReport,
}

impl UriReport {
    fn to_json(&self) -> Value {
        let mut report = self.usage.to_json();
        report["uri"] = self.uri.as_str().into();
        report["label"] = self.label.clone().into();
        report["classes"] = self.classes.clone().into();
        report
    }
}

/// The usage report of an IRI used in the store (404 otherwise). Blocking.
pub(crate) fn uri_report(
    store: &Store,
    index: &TextIndex,
    uri: &str,
    langs: &[String],
) -> Result<UriReport, ApiError> {
    let reader = store.reader();
    let node = NamedNodeRef::new(uri).map_err(|e| bad("uri", &e.to_string()))?;
    let id = reader
        .term_id(node.into())
        .map_err(store_error)?
        .filter(|id| reader.usage(*id).is_ok_and(|u| !u.is_unused()))
        .ok_or_else(|| ApiError::NotFound(format!("the IRI <{uri}> is not used in this store")))?;
    Ok(UriReport {
        uri: uri.to_owned(),
        label: index
            .best_label(&reader, id, langs)
            .map_err(super::index_error)?,
        classes: classes_of(&reader, id)?,
        usage: usage::UsageReport::read(&reader, id).map_err(store_error)?,
    })
}

fn classes_of(reader: &Reader<'_>, id: lodestone_store::TermId) -> Result<Vec<String>, ApiError> {
    let Some(rdf_type) = reader
        .term_id(lodestone_store::model::vocab::rdf::TYPE.into())
        .map_err(store_error)?
    else {
        return Ok(Vec::new());
    };
    let mut out: Vec<String> = Vec::new();
    for quad in reader.quads_for_pattern(Some(id), Some(rdf_type), None, None) {
        if let Term::NamedNode(n) = reader
            .term(quad.map_err(store_error)?.object)
            .map_err(store_error)?
        {
            if !out.iter().any(|c| c == n.as_str()) {
                out.push(n.into_string());
            }
        }
    }
    Ok(out)
}

/// How `q=` was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MatchedBy {
    /// As words of labels and text.
    Label,
    /// As the start of IRIs.
    Iri,
}

/// One candidate IRI of `q=`.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    /// The IRI.
    pub uri: String,
    /// Its best label.
    pub label: Option<String>,
    /// Its classes (IRIs).
    pub classes: Vec<String>,
    /// Quads using it in any position.
    pub usage: u64,
    /// Quads with it as subject and as object.
    pub roles: Option<(u64, u64)>,
    /// Its entity rank (link analysis, mean 1; 0 without links), if known.
    pub entity_rank: Option<f64>,
    /// How it matched the text.
    pub matched: MatchKind,
    /// Its ranking score (docs/api.md, "Lookup ranking").
    pub score: f64,
}

/// What `q=` answers: candidate IRIs, best first.
#[derive(Debug, Clone)]
pub(crate) struct Candidates {
    /// The query as given.
    pub query: String,
    /// How it was read.
    pub matched_by: MatchedBy,
    /// The candidates.
    pub results: Vec<Candidate>,
}

impl Candidates {
    fn to_json(&self) -> Value {
        let results: Vec<Value> = self
            .results
            .iter()
            .map(|c| {
                let mut v = json!({
                    "uri": c.uri,
                    "label": c.label,
                    "classes": c.classes,
                    "usage": c.usage,
                    "match": c.matched.name(),
                    "score": (c.score * 1000.0).round() / 1000.0,
                });
                if let Some((as_subject, as_object)) = c.roles {
                    v["asObject"] = as_object.into();
                    v["asSubject"] = as_subject.into();
                }
                if let Some(rank) = c.entity_rank {
                    v["entityRank"] = ((rank * 1000.0).round() / 1000.0).into();
                }
                v
            })
            .collect();
        json!({
            "query": self.query,
            "matchedBy": match self.matched_by {
                MatchedBy::Label => "label",
                MatchedBy::Iri => "iri",
            },
            "results": results,
        })
    }
}

/// Candidate IRIs for words, a local name, a CURIE or an IRI part, best first, at most
/// `limit` (see `candidates`). Blocking.
pub(crate) fn candidates(
    store: &Store,
    index: &TextIndex,
    prefixes: &Prefixes,
    q: &str,
    langs: &[String],
    limit: usize,
) -> Result<Candidates, ApiError> {
    let reader = store.reader();
    let reading = Reading::of(q, prefixes);
    let scored = rank(&reader, index, q, &reading, langs, limit)?;
    // Labels and classes of the shown candidates only: one read of each one's statements.
    let ids: Vec<_> = scored.iter().map(|s| s.id).collect();
    let summaries = index
        .searcher()
        .summaries(&reader, &ids, None, langs)
        .map_err(index_error)?;
    let mut results = Vec::with_capacity(scored.len());
    for (s, summary) in scored.into_iter().zip(summaries) {
        let (label, classes) = summary.map_or((None, Vec::new()), |hit| {
            (hit.label.map(|l| l.text), hit.classes)
        });
        results.push(Candidate {
            uri: s.iri.into_string(),
            label,
            classes,
            usage: s.uses,
            roles: Some(s.roles),
            entity_rank: Some(s.entity_rank),
            matched: s.matched,
            score: s.score,
        });
    }
    Ok(Candidates {
        query: q.to_owned(),
        matched_by: if reading.is_iri() {
            MatchedBy::Iri
        } else {
            MatchedBy::Label
        },
        results,
    })
}
