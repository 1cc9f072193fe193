//! How one RDF term is shown, and what RDFa attributes state it.
//!
//! A statement on a page is one element carrying `about` (the subject), `property` (the
//! predicate) and either `resource` (an IRI or a blank node as `[_:id]`) or `content` with
//! `datatype` / `lang` (a literal). `lang=""` on untagged strings stops the page's own `lang`
//! from leaking into them; `xsd:string` literals carry no `datatype`, as RDF 1.1 makes them
//! the same as simple literals. Every value goes through askama's escaping.

use crate::labels::{Labels, LanguageChain};
use crate::links::Linker;
use lodestone_vocab::Prefixes;
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{BlankNodeRef, NamedNode, NamedNodeRef, NamedOrBlankNodeRef, TermRef};
use std::collections::{HashMap, HashSet};

/// One value on a page with its RDFa statement.
#[derive(Debug, Clone)]
pub struct ValueView {
    /// RDFa `about`: the statement's subject.
    pub about: String,
    /// RDFa `property`: the predicate IRI.
    pub property: String,
    /// RDFa `resource` when the object is an IRI or a blank node.
    pub resource: Option<String>,
    /// RDFa `content` when the object is a literal (its lexical form).
    pub content: Option<String>,
    /// RDFa `datatype` of a typed literal.
    pub datatype: Option<String>,
    /// `lang` of a literal: its tag, or empty for an untagged one.
    pub lang: Option<String>,
    /// Where the value links to, if anywhere.
    pub href: Option<String>,
    /// Text shown.
    pub text: String,
    /// Shown on hover (the full IRI of a resource).
    pub title: String,
    /// Small note after the value: language tag or datatype.
    pub note: String,
    /// The graph the statement is in, as shown (empty for the default graph).
    pub graph: String,
    /// Whether the RDFa states the value. An XML or HTML literal with markup is not stated:
    /// RDFa reads such a literal from the element's child nodes, and putting a literal's
    /// markup into the page as nodes would let data run scripts.
    pub stated: bool,
}

/// What turning terms into text needs: labels, links and the reader's languages.
pub(crate) struct Render<'a> {
    /// Labels of the IRIs on the page.
    pub labels: &'a HashMap<NamedNode, Labels>,
    /// IRIs the store describes.
    pub described: &'a HashSet<NamedNode>,
    /// Link builder.
    pub linker: &'a Linker,
    /// The prefix table IRIs without a label are written with.
    pub prefixes: &'a Prefixes,
    /// The reader's languages.
    pub chain: &'a LanguageChain,
}

impl Render<'_> {
    /// The text shown for an IRI: its best label, else a short form.
    pub(crate) fn iri_text(&self, iri: NamedNodeRef<'_>) -> String {
        self.labels
            .get(&iri.into_owned())
            .and_then(|labels| labels.best(self.chain))
            .map_or_else(
                || short_iri(self.prefixes, iri.as_str()),
                |l| l.value().to_owned(),
            )
    }

    /// Where a link to an IRI goes.
    pub(crate) fn iri_href(&self, iri: NamedNodeRef<'_>) -> String {
        self.linker
            .href(iri.as_str(), self.described.contains(&iri.into_owned()))
    }

    /// The RDFa and display of `subject predicate object` in `graph` (empty: default graph).
    pub(crate) fn value(
        &self,
        subject: NamedOrBlankNodeRef<'_>,
        predicate: NamedNodeRef<'_>,
        object: TermRef<'_>,
        graph: String,
    ) -> ValueView {
        let mut view = ValueView {
            about: rdfa_subject(subject),
            property: predicate.as_str().to_owned(),
            resource: None,
            content: None,
            datatype: None,
            lang: None,
            href: None,
            text: String::new(),
            title: String::new(),
            note: String::new(),
            graph,
            stated: true,
        };
        match object {
            TermRef::NamedNode(iri) => {
                view.resource = Some(iri.as_str().to_owned());
                view.href = Some(self.iri_href(iri));
                view.text = self.iri_text(iri);
                view.title = iri.as_str().to_owned();
            }
            TermRef::BlankNode(node) => {
                view.resource = Some(rdfa_blank(node));
                view.href = Some(format!("#{}", blank_anchor(node)));
                view.text = format!("_:{}", node.as_str());
            }
            TermRef::Literal(literal) => {
                view.content = Some(literal.value().to_owned());
                view.text = literal.value().to_owned();
                if let Some(language) = literal.language() {
                    view.lang = Some(language.to_owned());
                    view.note = language.to_owned();
                } else if literal.datatype() == xsd::STRING {
                    view.lang = Some(String::new());
                } else {
                    view.datatype = Some(literal.datatype().as_str().to_owned());
                    view.note = short_iri(self.prefixes, literal.datatype().as_str());
                    if is_markup_literal(literal.datatype()) && has_markup(literal.value()) {
                        view.stated = false;
                        view.note
                            .push_str(", markup shown as text, not in the RDFa");
                    }
                }
            }
            // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
            #[allow(unreachable_patterns)]
            _ => view.text = object.to_string(),
        }
        view
    }
}

impl Render<'_> {
    /// An incoming statement: the same RDFa as [`Render::value`], but what is shown and
    /// linked is the subject (the resource pointing here), not the page's own entity.
    pub(crate) fn incoming_value(
        &self,
        subject: NamedOrBlankNodeRef<'_>,
        predicate: NamedNodeRef<'_>,
        object: TermRef<'_>,
        graph: String,
    ) -> ValueView {
        let mut view = self.value(subject, predicate, object, graph);
        view.note = String::new();
        match subject {
            NamedOrBlankNodeRef::NamedNode(iri) => {
                view.href = Some(self.iri_href(iri));
                view.text = self.iri_text(iri);
                view.title = iri.as_str().to_owned();
            }
            NamedOrBlankNodeRef::BlankNode(node) => {
                view.href = None;
                view.text = format!("_:{}", node.as_str());
                view.title = String::new();
            }
        }
        view
    }
}

/// RDFa form of a subject: the IRI, or a blank node as a safe CURIE `[_:id]`.
pub(crate) fn rdfa_subject(subject: NamedOrBlankNodeRef<'_>) -> String {
    match subject {
        NamedOrBlankNodeRef::NamedNode(iri) => iri.as_str().to_owned(),
        NamedOrBlankNodeRef::BlankNode(node) => rdfa_blank(node),
    }
}

fn rdfa_blank(node: BlankNodeRef<'_>) -> String {
    format!("[_:{}]", node.as_str())
}

/// The element id of a blank node's block on a page.
pub(crate) fn blank_anchor(node: BlankNodeRef<'_>) -> String {
    format!("b-{}", node.as_str())
}

/// `xsd:integer` for a namespace of the prefix table, else the part after the last `#` or
/// `/`, else the IRI.
pub(crate) fn short_iri(prefixes: &Prefixes, iri: &str) -> String {
    if let Some(curie) = prefixes.compact(iri) {
        return curie;
    }
    let local = iri
        .rsplit(['#', '/'])
        .next()
        .filter(|l| !l.is_empty())
        .unwrap_or(iri);
    local.to_owned()
}

/// Whether a datatype's literals are read by RDFa from child nodes (`rdf:XMLLiteral`,
/// `rdf:HTML`).
fn is_markup_literal(datatype: NamedNodeRef<'_>) -> bool {
    datatype == rdf::XML_LITERAL || datatype == rdf::HTML
}

/// Whether a lexical form would not survive as one escaped text node: markup, references,
/// or characters an XML serializer escapes.
fn has_markup(value: &str) -> bool {
    value.contains(['<', '>', '&', '"', '\''])
}

/// Whether a predicate is `rdf:type`.
pub(crate) fn is_type(predicate: NamedNodeRef<'_>) -> bool {
    predicate == rdf::TYPE
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_vocab::PrefixSource;
    use oxrdf::Literal;

    /// Runs `check` with a renderer of no labels, under `http://h/resource/`.
    fn with_render(check: impl FnOnce(&Render<'_>)) {
        let labels = HashMap::new();
        let described = HashSet::new();
        let linker = Linker::new("http://h/resource/");
        let chain = LanguageChain::default();
        check(&Render {
            labels: &labels,
            described: &described,
            linker: &linker,
            prefixes: &Prefixes::well_known(),
            chain: &chain,
        });
    }

    #[test]
    fn literals_state_language_and_datatype() {
        with_render(literals_state_language_and_datatype_in);
    }

    fn literals_state_language_and_datatype_in(render: &Render<'_>) {
        let s = NamedNode::new_unchecked("http://h/resource/s");
        let p = NamedNode::new_unchecked("http://h/p");
        let plain = Literal::new_simple_literal("<script>");
        let view = render.value(
            s.as_ref().into(),
            p.as_ref(),
            plain.as_ref().into(),
            String::new(),
        );
        assert_eq!(view.lang.as_deref(), Some(""));
        assert_eq!(view.datatype, None);
        assert_eq!(view.content.as_deref(), Some("<script>"));
        let typed = Literal::new_typed_literal("01", xsd::INTEGER);
        let view = render.value(
            s.as_ref().into(),
            p.as_ref(),
            typed.as_ref().into(),
            String::new(),
        );
        assert_eq!(view.datatype.as_deref(), Some(xsd::INTEGER.as_str()));
        assert_eq!(view.note, "xsd:integer");
        assert_eq!(view.lang, None);
    }

    #[test]
    fn markup_literals_are_shown_but_not_stated() {
        with_render(markup_literals_in);
    }

    fn markup_literals_in(render: &Render<'_>) {
        let subject = NamedNodeRef::new_unchecked("http://h/resource/a");
        let predicate = NamedNodeRef::new_unchecked("http://h/p");
        let view = |value: &str, datatype: NamedNodeRef<'_>| {
            let literal = Literal::new_typed_literal(value, datatype);
            render.value(
                subject.into(),
                predicate,
                literal.as_ref().into(),
                String::new(),
            )
        };
        let markup = view("<b>bold</b> &amp; more", rdf::XML_LITERAL);
        assert!(!markup.stated);
        assert_eq!(markup.text, "<b>bold</b> &amp; more");
        assert!(!view("<p>x</p>", rdf::HTML).stated);
        // Without markup, the escaped text is the literal's one child node: stated.
        assert!(view("plain words", rdf::XML_LITERAL).stated);
        // Other datatypes are stated through `content`, whatever their characters.
        assert!(view("a < b", xsd::STRING).stated);
    }

    #[test]
    fn short_forms() {
        let table = Prefixes::well_known();
        assert_eq!(
            short_iri(&table, "http://www.w3.org/2001/XMLSchema#date"),
            "xsd:date"
        );
        assert_eq!(short_iri(&table, "http://example.org/a/b"), "b");
        assert_eq!(short_iri(&table, "http://example.org/a#c"), "c");
        assert_eq!(short_iri(&table, "urn:x"), "urn:x");
        let declared = table.with("ex", "http://example.org/a/", PrefixSource::Declared);
        assert_eq!(short_iri(&declared, "http://example.org/a/b"), "ex:b");
    }
}
