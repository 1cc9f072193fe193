//! `GET /api/lookup`: `uri=` gives one IRI's usage statistics, `q=` finds candidate IRIs by
//! label words or by a fragment of the IRI itself (`dbpedia.org/resource/Ber`, `foaf:Per`),
//! ranked by how much they are used.

use super::format::Format;
use super::params::{bad, languages, Params};
use super::{index_error, run_blocking, usage};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use lodestone_indexer::{SearchHit, SearchRequest, TextIndex};
use lodestone_store::model::{NamedNodeRef, Term};
use lodestone_store::{Reader, Store};
use serde_json::{json, Value};
use std::time::Duration;

/// Prefixes expanded in `q=` (`foaf:Per` → `http://xmlns.com/foaf/0.1/Per`).
pub(crate) const KNOWN_PREFIXES: [(&str, &str); 22] = [
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("foaf", "http://xmlns.com/foaf/0.1/"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("dct", "http://purl.org/dc/terms/"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("schema", "http://schema.org/"),
    ("dbo", "http://dbpedia.org/ontology/"),
    ("dbr", "http://dbpedia.org/resource/"),
    ("dbp", "http://dbpedia.org/property/"),
    ("wd", "http://www.wikidata.org/entity/"),
    ("wdt", "http://www.wikidata.org/prop/direct/"),
    ("geo", "http://www.w3.org/2003/01/geo/wgs84_pos#"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("void", "http://rdfs.org/ns/void#"),
    ("dcat", "http://www.w3.org/ns/dcat#"),
    ("nm", "http://nomisma.org/id/"),
    ("nmo", "http://nomisma.org/ontology#"),
    (
        "bsbm",
        "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/",
    ),
];

/// Candidates returned by `q=`.
const CANDIDATES: usize = 20;
/// Text hits re-ranked by usage for `q=`.
const TEXT_POOL: usize = 100;

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
                run_blocking(&state, move |store, index| {
                    candidates(store, index, &q, &langs, limit).map(|c| c.to_json())
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

/// The IRI prefixes a `q=` may stand for, if it looks like an IRI or a part of one.
fn iri_prefixes(q: &str) -> Vec<String> {
    let q = q.trim();
    if q.contains(char::is_whitespace) {
        return Vec::new();
    }
    if q.starts_with("http://") || q.starts_with("https://") || q.starts_with("urn:") {
        return vec![q.to_owned()];
    }
    if let Some((prefix, local)) = q.split_once(':') {
        if let Some((_, namespace)) = KNOWN_PREFIXES.iter().find(|(p, _)| *p == prefix) {
            return vec![format!("{namespace}{local}")];
        }
    }
    if q.contains('/') || q.contains('.') {
        return ["http://", "https://", "http://www.", "https://www."]
            .iter()
            .map(|scheme| format!("{scheme}{q}"))
            .collect();
    }
    Vec::new()
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
    /// Quads with it as subject and as object, for entities of the text index.
    pub roles: Option<(u64, u64)>,
}

/// What `q=` answers: candidate IRIs, most used first.
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
                });
                if let Some((as_subject, as_object)) = c.roles {
                    v["asObject"] = as_object.into();
                    v["asSubject"] = as_subject.into();
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

/// Candidate IRIs for words or an IRI fragment, most used first, at most `limit`. Blocking.
pub(crate) fn candidates(
    store: &Store,
    index: &TextIndex,
    q: &str,
    langs: &[String],
    limit: usize,
) -> Result<Candidates, ApiError> {
    let reader = store.reader();
    let searcher = index.searcher();
    let prefixes = iri_prefixes(q);
    let mut hits: Vec<SearchHit> = Vec::new();
    let mut extra: Vec<(String, u64)> = Vec::new();
    let matched_by = if prefixes.is_empty() {
        let request = SearchRequest {
            query: searcher.parse(q).map_err(index_error)?,
            classes: Vec::new(),
            graph: None,
            langs: langs.to_vec(),
            limit: TEXT_POOL,
            offset: 0,
        };
        hits = searcher
            .search(&reader, &request)
            .map_err(index_error)?
            .hits;
        MatchedBy::Label
    } else {
        for prefix in &prefixes {
            hits.extend(
                searcher
                    .iri_prefix(&reader, prefix, langs, limit)
                    .map_err(index_error)?,
            );
            // Classes often have no literals of their own: look them up in the statistics.
            for (class, _) in reader.top_classes(usize::MAX).map_err(store_error)? {
                if let Term::NamedNode(n) = reader.term(class).map_err(store_error)? {
                    if n.as_str().starts_with(prefix.as_str())
                        && !hits.iter().any(|h| h.iri == n.as_str())
                    {
                        let total = reader.usage(class).map_err(store_error)?.total();
                        extra.push((n.into_string(), total));
                    }
                }
            }
        }
        MatchedBy::Iri
    };
    let mut results: Vec<Candidate> = Vec::new();
    for hit in hits {
        let usage = reader.usage(hit.id).map_err(store_error)?;
        results.push(Candidate {
            uri: hit.iri,
            label: hit.label.map(|l| l.text),
            classes: hit.classes,
            usage: usage.total(),
            roles: Some((usage.as_subject, usage.as_object)),
        });
    }
    for (uri, total) in extra {
        results.push(Candidate {
            uri,
            label: None,
            classes: Vec::new(),
            usage: total,
            roles: None,
        });
    }
    results.sort_by_key(|c| std::cmp::Reverse(c.usage));
    let mut seen = std::collections::HashSet::new();
    results.retain(|c| seen.insert(c.uri.clone()));
    results.truncate(limit);
    Ok(Candidates {
        query: q.to_owned(),
        matched_by,
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::iri_prefixes;

    #[test]
    fn iri_fragments_expand() {
        assert_eq!(iri_prefixes("foaf:Per"), ["http://xmlns.com/foaf/0.1/Per"]);
        assert_eq!(
            iri_prefixes("dbpedia.org/resource/Ber")[0],
            "http://dbpedia.org/resource/Ber"
        );
        assert!(iri_prefixes("Berlin").is_empty());
        assert!(iri_prefixes("new york").is_empty());
    }
}
