//! RDF terms as table cells: IRIs link to their page and read compactly, literals show their
//! language or datatype, blank nodes their label.

use crate::ui::links;
use crate::ui::prefixes::Prefixes;
use oxrdf::Term;

/// One term as a page shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// No value (an unbound variable).
    Empty,
    /// An IRI: its short form, the IRI itself (for the tooltip) and the link to its page.
    Iri {
        /// `prefix:local` or the full IRI.
        text: String,
        /// The IRI.
        iri: String,
        /// Our page about it.
        href: String,
    },
    /// A literal with its language tag or (non-string) datatype.
    Literal {
        /// The lexical form.
        value: String,
        /// `@lang` or `^^datatype` (compacted), if any.
        note: Option<String>,
    },
    /// A blank node.
    Blank(String),
    /// A quoted triple, written in Turtle.
    Triple(String),
}

impl Cell {
    /// The cell of a term.
    pub fn of(term: &Term, prefixes: &Prefixes) -> Self {
        match term {
            Term::NamedNode(node) => Self::iri(node.as_str(), prefixes),
            Term::BlankNode(node) => Self::Blank(format!("_:{}", node.as_str())),
            Term::Literal(literal) => {
                let note = if let Some(language) = literal.language() {
                    Some(format!("@{language}"))
                } else if literal.datatype() == oxrdf::vocab::xsd::STRING {
                    None
                } else {
                    Some(format!("^^{}", prefixes.short(literal.datatype().as_str())))
                };
                Self::Literal {
                    value: literal.value().to_owned(),
                    note,
                }
            }
            // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
            #[allow(unreachable_patterns)]
            other => Self::Triple(other.to_string()),
        }
    }

    /// The cell of an IRI.
    pub fn iri(iri: &str, prefixes: &Prefixes) -> Self {
        Self::Iri {
            text: prefixes.short(iri),
            iri: iri.to_owned(),
            href: links::describe(iri),
        }
    }

    /// A cell with no value.
    pub fn of_option(term: Option<&Term>, prefixes: &Prefixes) -> Self {
        term.map_or(Self::Empty, |t| Self::of(t, prefixes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::{Literal, NamedNode};

    #[test]
    fn literals_note_language_and_datatype() {
        let prefixes = Prefixes::well_known();
        let tagged = Term::from(Literal::new_language_tagged_literal_unchecked("Nike", "el"));
        assert_eq!(
            Cell::of(&tagged, &prefixes),
            Cell::Literal {
                value: "Nike".into(),
                note: Some("@el".into())
            }
        );
        let year = Term::from(Literal::new_typed_literal(
            "-0450",
            NamedNode::new_unchecked("http://www.w3.org/2001/XMLSchema#gYear"),
        ));
        assert_eq!(
            Cell::of(&year, &prefixes),
            Cell::Literal {
                value: "-0450".into(),
                note: Some("^^xsd:gYear".into())
            }
        );
        let plain = Term::from(Literal::new_simple_literal("x"));
        assert!(matches!(
            Cell::of(&plain, &prefixes),
            Cell::Literal { note: None, .. }
        ));
    }

    #[test]
    fn iris_link_to_their_page() {
        let cell = Cell::iri("http://dbpedia.org/resource/Queen", &Prefixes::well_known());
        let Cell::Iri { text, href, .. } = cell else {
            panic!("not an IRI cell")
        };
        assert_eq!(text, "dbr:Queen");
        assert_eq!(
            href,
            "/describe?uri=http%3A%2F%2Fdbpedia.org%2Fresource%2FQueen"
        );
    }
}
