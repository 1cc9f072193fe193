//! Picks a display label for every IRI in a facet response.
//!
//! Kept on its own so that it can later give way to the shared label selection of the web
//! crate: the rest of the engine only calls [`Labels::label`]. The choice: the first of
//! `rdfs:label`, `skos:prefLabel`, `foaf:name`, `dct:title`, `schema:name` the term has, and
//! among that property's values the first preferred language (English, then no language,
//! then any other, the smallest lexical form for determinism); with none, the IRI's local
//! name.

use lodestone_store::{Reader, StoreError, TermId};
use oxrdf::{NamedNodeRef, Term};

/// Label properties in order of preference.
const LABEL_PROPERTIES: [&str; 6] = [
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://xmlns.com/foaf/0.1/name",
    "http://purl.org/dc/terms/title",
    "http://schema.org/name",
    "https://schema.org/name",
];

/// The most label values read per term and property (a term with thousands of labels must
/// not slow a response).
const MAX_CANDIDATES: usize = 64;

/// Label look-up over one reader.
pub struct Labels {
    properties: Vec<TermId>,
}

impl Labels {
    /// Resolves the label properties the store knows.
    pub fn new(reader: &Reader<'_>) -> Result<Self, StoreError> {
        let mut properties = Vec::new();
        for iri in LABEL_PROPERTIES {
            if let Some(id) = reader.term_id(NamedNodeRef::new_unchecked(iri).into())? {
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
            let mut best: Option<(u8, String)> = None;
            for quad in reader
                .quads_for_pattern(Some(id), Some(*property), None, None)
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
            if let Some((_, label)) = best {
                return Ok(Some(label));
            }
        }
        Ok(None)
    }
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
