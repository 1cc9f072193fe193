//! Picks a display label for every IRI in a facet response, by the label rule every surface
//! shares (`lodestone_vocab::labels`): the first of the label properties (the server's
//! `--label-properties`; by default `skos:prefLabel`, `rdfs:label`, `foaf:name`,
//! `schema:name`, `dcterms:title`, …) the term has, then any other property of its own
//! named `name`, `label`, `title` or `prefLabel` in any namespace; among that property's
//! values the first preferred language (English, then no language, then any other, the
//! smallest lexical form for determinism); with none, the IRI's local name.

use lodestone_store::{Reader, StoreError, TermId};
use lodestone_vocab::labels::fallback_rank;
use oxrdf::{NamedNodeRef, Term};

/// The most statements of a term read for a fallback label property.
const MAX_FALLBACK_STATEMENTS: usize = 256;

/// The most label values read per term and property (a term with thousands of labels must
/// not slow a response).
const MAX_CANDIDATES: usize = 64;

/// Label look-up over one reader.
pub struct Labels {
    properties: Vec<TermId>,
}

impl Labels {
    /// Resolves the label properties (absolute IRIs, most preferred first) the store knows.
    pub fn new(reader: &Reader<'_>, label_properties: &[String]) -> Result<Self, StoreError> {
        let mut properties = Vec::new();
        for iri in label_properties {
            let Ok(iri) = NamedNodeRef::new(iri) else {
                continue;
            };
            if let Some(id) = reader.term_id(iri.into())? {
                properties.push(id);
            }
        }
        Ok(Self { properties })
    }

    /// The best label of a term: a stored label, the local name of an IRI, or the lexical
    /// form of a literal.
    pub fn label(
        &self,
        reader: &Reader<'_>,
        id: TermId,
        term: &Term,
    ) -> Result<String, StoreError> {
        if matches!(term, Term::NamedNode(_) | Term::BlankNode(_)) {
            if let Some(label) = self.stored_label(reader, id)? {
                return Ok(label);
            }
        }
        Ok(match term {
            Term::NamedNode(n) => local_name(n.as_str()).to_owned(),
            Term::BlankNode(b) => format!("_:{}", b.as_str()),
            Term::Literal(l) => l.value().to_owned(),
            // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
            #[allow(unreachable_patterns)]
            _ => term.to_string(),
        })
    }

    fn stored_label(&self, reader: &Reader<'_>, id: TermId) -> Result<Option<String>, StoreError> {
        for property in &self.properties {
            if let Some(label) = best_value(reader, id, *property)? {
                return Ok(Some(label));
            }
        }
        // The fallback: a property of its own named like a label, the best-ranked name.
        let mut fallback: Option<(usize, TermId)> = None;
        for quad in reader
            .quads_for_pattern(Some(id), None, None, None)
            .take(MAX_FALLBACK_STATEMENTS)
        {
            let quad = quad?;
            if fallback.is_some_and(|(_, p)| p == quad.predicate)
                || self.properties.contains(&quad.predicate)
            {
                continue;
            }
            let Term::NamedNode(predicate) = reader.term(quad.predicate)? else {
                continue;
            };
            if let Some(rank) = fallback_rank(predicate.as_str()) {
                if fallback.is_none_or(|(best, _)| rank < best) {
                    fallback = Some((rank, quad.predicate));
                }
            }
        }
        match fallback {
            Some((_, property)) => best_value(reader, id, property),
            None => Ok(None),
        }
    }
}

/// The best literal of one property of a term: English, then no language, then any other,
/// the smallest lexical form among equals.
fn best_value(
    reader: &Reader<'_>,
    id: TermId,
    property: TermId,
) -> Result<Option<String>, StoreError> {
    let mut best: Option<(u8, String)> = None;
    for quad in reader
        .quads_for_pattern(Some(id), Some(property), None, None)
        .take(MAX_CANDIDATES)
    {
        let Term::Literal(literal) = reader.term(quad?.object)? else {
            continue;
        };
        let rank = match literal.language() {
            Some(l) if l.eq_ignore_ascii_case("en") || l.starts_with("en-") => 0,
            None => 1,
            Some(_) => 2,
        };
        let better = best
            .as_ref()
            .is_none_or(|(r, v)| (rank, literal.value()) < (*r, v.as_str()));
        if better {
            best = Some((rank, literal.value().to_owned()));
        }
    }
    Ok(best.map(|(_, label)| label))
}

/// The part of an IRI after its last `#`, `/` or `:` (the whole IRI when that is empty).
pub fn local_name(iri: &str) -> &str {
    let trimmed = iri.trim_end_matches(['/', '#']);
    match trimmed.rfind(['#', '/', ':']) {
        Some(i) if i + 1 < trimmed.len() => &trimmed[i + 1..],
        _ => iri,
    }
}

#[cfg(test)]
mod tests {
    use super::local_name;

    #[test]
    fn local_names() {
        assert_eq!(local_name("http://schema.org/City"), "City");
        assert_eq!(local_name("http://example.org/a#b"), "b");
        assert_eq!(local_name("http://example.org/dir/"), "dir");
        assert_eq!(local_name("urn:isbn:123"), "123");
    }
}
