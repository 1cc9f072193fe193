//! `GET /api/lookup?q=`: the IRIs a text may stand for, every IRI of the store included
//! (predicates, classes, graph names and IRIs used only as objects, not only subjects with
//! text), ranked by how well the text matches and by how much each IRI is used.
//!
//! The text is read every way that applies, each one bounded range scan or one text search:
//!
//! - a whole IRI (`http://…`, `urn:…`): that IRI, then the IRIs it starts;
//! - a CURIE (`skos:pref`) with a prefix of the one prefix table: the same, expanded;
//! - an IRI without its scheme (`dbpedia.org/resource/Ber`): the IRIs starting with it after
//!   `http://`, `https://` and their `www.` forms;
//! - one word: the IRIs whose local name starts with it (`preflabel`, `athe`);
//! - words: the entities whose labels and text match, from the text index.
//!
//! Score (docs/api.md, "Lookup ranking"): `match weight × (1 + 0.2·ln(1 + weight of use))`,
//! DBpedia Lookup's `1 + 0.1·ln(1 + refCount)` with twice its slope (at 0.1 a thing used
//! hundreds of times barely outranks a page used once). The weight of use
//! (`lodestone_indexer::popularity`) counts the quads that use the IRI other than to describe
//! it (as object, predicate or graph name), plus the square root of those describing it (as
//! subject), so that a well described entity counts but a long description does not outweigh
//! references, plus its entity rank (link analysis, mean 1 over linked entities). The match weights are exact IRI 16,
//! IRI prefix 4, local-name prefix 3, label words `2 × (0.5 + 0.5 × text score / best text
//! score)`, and exact name (a local name or label equal to the text) `2 + 6 × g`, `g =
//! min(1, ln(1 + w) / ln(101))²` (`lodestone_indexer::popularity::exact_share`): an exact
//! name is worth up to 8 only as far as the IRI is used, so that unused pages and one-use
//! fragments named like the text do not outrank the thing everybody uses.

use super::index_error;
use crate::error::ApiError;
use lodestone_indexer::popularity::{exact_share, weight_of_use};
use lodestone_indexer::TextIndex;
use lodestone_store::model::{NamedNode, Term};
use lodestone_store::{Reader, TermId};
use lodestone_vocab::Prefixes;
use std::collections::HashMap;
use std::time::Duration;

/// Most index entries one range scan reads: a bound on the work of a short prefix.
const SCAN: usize = 2_000;
/// Text hits re-ranked by usage.
const TEXT_POOL: usize = 100;

/// How a candidate matched the text; the order is from best to weakest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum MatchKind {
    /// The text is the IRI (or a CURIE of it).
    ExactIri,
    /// The text is the IRI's local name, or its label for an IRI used more than once.
    ExactName,
    /// The IRI starts with the text (or its expansion).
    IriPrefix,
    /// The IRI's local name starts with the text.
    LocalNamePrefix,
    /// The words match the entity's labels or text.
    Label,
}

impl MatchKind {
    /// The weight of the match in the score, for an IRI of the given weight of use.
    fn weight(self, used: f64) -> f64 {
        match self {
            Self::ExactIri => 16.0,
            Self::ExactName => 2.0 + 6.0 * exact_share(used),
            Self::IriPrefix => 4.0,
            Self::LocalNamePrefix => 3.0,
            Self::Label => 2.0,
        }
    }

    /// The name used in responses.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::ExactIri => "exactIri",
            Self::ExactName => "exactName",
            Self::IriPrefix => "iriPrefix",
            Self::LocalNamePrefix => "localNamePrefix",
            Self::Label => "label",
        }
    }
}

/// Popularity damping: `1 + 0.2·ln(1 + weight of use)`.
pub(crate) fn popularity(weight_of_use: f64) -> f64 {
    lodestone_indexer::popularity::popularity(weight_of_use, 0.2)
}

/// One scored match of the text.
#[derive(Debug, Clone)]
pub(crate) struct Scored {
    /// The IRI's id.
    pub id: TermId,
    /// The IRI.
    pub iri: NamedNode,
    /// Its best match.
    pub matched: MatchKind,
    /// Quads using it, in any position.
    pub uses: u64,
    /// Quads with it as subject and as object.
    pub roles: (u64, u64),
    /// Its entity rank (0 if it has none).
    pub entity_rank: f64,
    /// `match weight × popularity`.
    pub score: f64,
}

/// How the text was read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reading {
    /// The whole IRI it stands for (itself or an expanded CURIE).
    pub iri: Option<String>,
    /// The IRI starts it stands for.
    pub iri_starts: Vec<String>,
    /// The local-name start it stands for (one word).
    pub local_name: Option<String>,
    /// Whether it is searched as words.
    pub words: bool,
}

impl Reading {
    /// Reads `q` with a prefix table.
    pub(crate) fn of(q: &str, prefixes: &Prefixes) -> Self {
        let q = q.trim();
        let mut reading = Self::default();
        if q.is_empty() {
            return reading;
        }
        if q.contains(char::is_whitespace) {
            reading.words = true;
            return reading;
        }
        if is_absolute_iri(q) {
            reading.iri = Some(q.to_owned());
            reading.iri_starts.push(q.to_owned());
            return reading;
        }
        if let Some(expanded) = prefixes.expand(q) {
            reading.iri_starts.push(expanded.clone());
            reading.iri = Some(expanded);
            return reading;
        }
        if q.contains('/') || (q.contains('.') && !q.ends_with('.')) {
            reading.iri_starts = ["http://", "https://", "http://www.", "https://www."]
                .iter()
                .map(|scheme| format!("{scheme}{q}"))
                .collect();
        }
        if !q.contains(['/', ':']) {
            reading.local_name = Some(q.to_owned());
            reading.words = true;
        }
        reading
    }

    /// Whether the text was read as (a part of) an IRI.
    pub(crate) fn is_iri(&self) -> bool {
        !self.iri_starts.is_empty()
    }
}

/// Whether `q` is an absolute IRI rather than a CURIE: `scheme://…` or `urn:…`.
fn is_absolute_iri(q: &str) -> bool {
    q.split_once(':').is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && (rest.starts_with("//") || scheme.eq_ignore_ascii_case("urn"))
    })
}

/// Every match of one IRI found so far.
#[derive(Default)]
struct Found {
    /// The IRI, when the match gave it (the text index gives ids only).
    iri: Option<NamedNode>,
    /// Each match with its factor; the best one counts once the IRI's use is known.
    matches: Vec<(MatchKind, f64)>,
}

/// The candidates of `q`, best first, at most `limit`. Blocking.
///
/// Reads per candidate only its usage counters and entity rank (two batched reads for all);
/// the IRIs of the text index's entities are decoded only for the best `limit` (and those
/// tied with the last of them), and labels only of the entities one of whose labels has the
/// text's words (`lodestone_indexer::PoolHit`), to tell an exact name.
pub(crate) fn rank(
    reader: &Reader<'_>,
    index: &TextIndex,
    q: &str,
    reading: &Reading,
    langs: &[String],
    limit: usize,
) -> Result<Vec<Scored>, ApiError> {
    let mut found: HashMap<TermId, Found> = HashMap::new();
    let mut note = |id: TermId, iri: Option<NamedNode>, kind: MatchKind, factor: f64| {
        let entry = found.entry(id).or_default();
        if entry.iri.is_none() {
            entry.iri = iri;
        }
        entry.matches.push((kind, factor));
    };
    for start in &reading.iri_starts {
        for (id, iri) in reader
            .iris_starting_with(start, SCAN)
            .map_err(store_error)?
        {
            let kind = if reading.iri.as_deref() == Some(iri.as_str()) {
                MatchKind::ExactIri
            } else {
                MatchKind::IriPrefix
            };
            note(id, Some(iri), kind, 1.0);
        }
    }
    if let Some(start) = &reading.local_name {
        let folded = start.to_lowercase();
        for (id, iri) in reader
            .iris_with_local_name_starting(start, SCAN)
            .map_err(store_error)?
        {
            let exact = lodestone_vocab::prefixes::local_name(iri.as_str())
                .is_some_and(|local| local.to_lowercase() == folded);
            let kind = if exact {
                MatchKind::ExactName
            } else {
                MatchKind::LocalNamePrefix
            };
            note(id, Some(iri), kind, 1.0);
        }
    }
    if reading.words {
        let searcher = index.searcher();
        let query = searcher.parse(q).map_err(index_error)?;
        let pool = searcher
            .text_pool(&query, q, langs, TEXT_POOL, limit)
            .map_err(index_error)?;
        let best = pool
            .first()
            .map_or(1.0, |h| f64::from(h.score).max(f64::MIN_POSITIVE));
        for hit in pool {
            let exact_label = hit.label_may_equal
                && index
                    .best_label(reader, hit.id, langs)
                    .map_err(index_error)?
                    .is_some_and(|label| searcher.same_label(&label, q));
            let (kind, factor) = if exact_label {
                (MatchKind::ExactName, 1.0)
            } else {
                (MatchKind::Label, 0.5 + 0.5 * f64::from(hit.score) / best)
            };
            note(hit.id, None, kind, factor);
        }
    }
    let ids: Vec<TermId> = found.keys().copied().collect();
    let usages = reader.usages(&ids).map_err(store_error)?;
    let ranks = reader.entity_ranks(&ids).map_err(store_error)?;
    let mut scored: Vec<Pending> = ids
        .into_iter()
        .zip(usages.into_iter().zip(ranks))
        .filter(|(_, (usage, _))| !usage.is_unused())
        .filter_map(|(id, (usage, entity_rank))| {
            let Found { iri, matches } = found.remove(&id)?;
            let used = weight_of_use(&usage, entity_rank);
            let (kind, weight) = matches
                .into_iter()
                .map(|(kind, factor)| (kind, kind.weight(used) * factor))
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
            Some(Pending {
                id,
                iri,
                matched: kind,
                uses: usage.total(),
                roles: (usage.as_subject, usage.as_object),
                entity_rank,
                score: weight * popularity(used),
            })
        })
        .collect();
    // The best `limit` and those tied with the last of them; then the IRI orders ties.
    scored.sort_by(Pending::by_score);
    let kept = match limit.checked_sub(1).and_then(|i| scored.get(i)) {
        Some(last) => {
            limit
                + scored
                    .iter()
                    .skip(limit)
                    .take_while(|p| Pending::by_score(p, last).is_eq())
                    .count()
        }
        None => limit,
    };
    scored.truncate(kept);
    let mut out = Vec::with_capacity(scored.len());
    for p in scored {
        let iri = match p.iri {
            Some(iri) => iri,
            None => match reader.term(p.id).map_err(store_error)? {
                Term::NamedNode(iri) => iri,
                _ => continue,
            },
        };
        out.push(Scored {
            id: p.id,
            iri,
            matched: p.matched,
            uses: p.uses,
            roles: p.roles,
            entity_rank: p.entity_rank,
            score: p.score,
        });
    }
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.matched.cmp(&b.matched))
            .then(a.iri.as_str().cmp(b.iri.as_str()))
    });
    out.truncate(limit);
    Ok(out)
}

/// A scored candidate whose IRI may not be decoded yet.
struct Pending {
    id: TermId,
    iri: Option<NamedNode>,
    matched: MatchKind,
    uses: u64,
    roles: (u64, u64),
    entity_rank: f64,
    score: f64,
}

impl Pending {
    /// Best score first, then the better match.
    fn by_score(a: &Self, b: &Self) -> std::cmp::Ordering {
        b.score.total_cmp(&a.score).then(a.matched.cmp(&b.matched))
    }
}

fn store_error(error: lodestone_store::StoreError) -> ApiError {
    ApiError::from_store(error, Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_read_as_iris_curies_fragments_and_words() {
        let prefixes = Prefixes::well_known();
        let curie = Reading::of("skos:pref", &prefixes);
        assert_eq!(
            curie.iri_starts,
            ["http://www.w3.org/2004/02/skos/core#pref"]
        );
        assert!(!curie.words);
        let org = Reading::of("org:organi", &prefixes);
        assert_eq!(org.iri_starts, ["http://www.w3.org/ns/org#organi"]);
        let iri = Reading::of("http://dbpedia.org/resource/Ath", &prefixes);
        assert_eq!(iri.iri.as_deref(), Some("http://dbpedia.org/resource/Ath"));
        let fragment = Reading::of("dbpedia.org/resource/Ber", &prefixes);
        assert_eq!(fragment.iri_starts[0], "http://dbpedia.org/resource/Ber");
        assert!(fragment.local_name.is_none());
        let word = Reading::of("athe", &prefixes);
        assert_eq!(word.local_name.as_deref(), Some("athe"));
        assert!(word.words && !word.is_iri());
        let words = Reading::of("new york", &prefixes);
        assert!(words.words && words.local_name.is_none() && !words.is_iri());
        assert!(Reading::of("urn:isbn:1", &prefixes).iri.is_some());
    }

    #[test]
    fn popularity_is_damped() {
        assert!((popularity(0.0) - 1.0).abs() < 1e-9);
        assert!(popularity(448.0) > 2.2 && popularity(448.0) < 2.3);
        // An exact name is worth up to 8 as far as the IRI is used.
        assert!((MatchKind::ExactName.weight(0.0) - 2.0).abs() < 1e-9);
        assert!((MatchKind::ExactName.weight(100.0) - 8.0).abs() < 1e-9);
        assert!((MatchKind::ExactName.weight(1e9) - 8.0).abs() < 1e-9);
        assert!(MatchKind::ExactName.weight(1.0) < MatchKind::LocalNamePrefix.weight(1.0));
        assert!(MatchKind::ExactIri.weight(0.0) > MatchKind::ExactName.weight(1e12));
        let described = lodestone_store::TermUsage {
            as_subject: 100,
            as_object: 3,
            ..lodestone_store::TermUsage::default()
        };
        assert!((weight_of_use(&described, 0.0) - 13.0).abs() < 1e-9);
    }
}
