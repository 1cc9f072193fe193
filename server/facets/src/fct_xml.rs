//! Virtuoso's Facets Web Service answer (`fct:facets`) and error (`<error>`) documents.
//!
//! The shapes follow Virtuoso's service (`binsrc/fct/sql/facet_svc.sql`: `fct_svc_exec`
//! writes `facets` with `sparql`, `time`, `complete`, `timeout`, `db-activity` and the
//! `result`; `facet.sql`: `fct_xml_wrap` writes the rows of each view; `sum.sql`:
//! `sum_result` the rows of `text-d`; `fct_resp.xsl` puts every element in the facets
//! namespace), view by view:
//! - `text`: `<column trank="trank">` text score, `<column erank="erank">` entity rank,
//!   `<column graph="g">` the graph of the match, the entity, its label, the excerpt.
//! - `text-d`: `<column datatype="trank">`, `<column datatype="erank">`,
//!   `<column datatype="url" shortform>` entity, label, `<column datatype="url" shortform>`
//!   graph, excerpt.
//! - `list`, `entities-list`, `propval-list`: the entity (with `sparql_ser` on `list`) and
//!   its label.
//! - `list-count`, `classes`, `properties`, `properties-in`, `graphs`, `text-properties`: the
//!   key, its label and its count.
//!
//! A value column carries `datatype` (`uri` for an IRI, the literal's datatype, or
//! Virtuoso's plain-string datatype for a simple literal), `xml:lang`, and `shortform`: the
//! IRI as a CURIE when the caller's prefix table has its namespace, else the IRI, in both
//! cases cut in the middle past [`SHORTFORM_CHARS`] characters (`fct_short_form`).

use crate::response::{FacetAnswer, Row};
use crate::xml::FCT_NAMESPACE;
use oxrdf::vocab::xsd;
use oxrdf::Term;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

/// Virtuoso's datatype for a literal without language or datatype.
pub const PLAIN_STRING: &str = "http://www.openlinksw.com/schemas/facets/dtp/plainstring";

/// Longest `shortform` before it is cut in the middle.
pub const SHORTFORM_CHARS: usize = 40;

/// Compacts an IRI to a CURIE with the caller's prefix table (`None`: no prefix fits).
pub type Compact<'a> = &'a dyn Fn(&str) -> Option<String>;

type XmlResult = std::io::Result<()>;

/// `s` when at most [`SHORTFORM_CHARS`] characters long, else its first half, `...` and its
/// end (Virtuoso's `fct_trunc_uri`).
pub fn middle_truncated(s: &str) -> String {
    let count = s.chars().count();
    if count <= SHORTFORM_CHARS {
        return s.to_owned();
    }
    let half = SHORTFORM_CHARS / 2;
    let head: String = s.chars().take(half).collect();
    let tail: String = s.chars().skip(count - (half - 1)).collect();
    format!("{head}...{tail}")
}

/// The `shortform` of a term: a CURIE or the IRI, or a string's text, cut in the middle;
/// none for other literals.
pub fn shortform(term: &Term, compact: Compact<'_>) -> Option<String> {
    match term {
        Term::NamedNode(n) => Some(middle_truncated(
            &compact(n.as_str()).unwrap_or_else(|| n.as_str().to_owned()),
        )),
        Term::BlankNode(b) => Some(format!("_:{}", b.as_str())),
        Term::Literal(l) if l.language().is_some() || l.datatype() == xsd::STRING => {
            Some(middle_truncated(l.value()))
        }
        _ => None,
    }
}

fn term_text(term: &Term) -> String {
    match term {
        Term::NamedNode(n) => n.as_str().to_owned(),
        Term::BlankNode(b) => format!("_:{}", b.as_str()),
        Term::Literal(l) => l.value().to_owned(),
        // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
        #[allow(unreachable_patterns)]
        _ => term.to_string(),
    }
}

fn column(w: &mut Writer<Vec<u8>>, attrs: &[(&str, &str)], text: &str) -> XmlResult {
    let mut start = BytesStart::new("fct:column");
    for (k, v) in attrs {
        start.push_attribute((*k, *v));
    }
    w.write_event(Event::Start(start))?;
    w.write_event(Event::Text(BytesText::new(text)))?;
    w.write_event(Event::End(BytesEnd::new("fct:column")))
}

fn element(w: &mut Writer<Vec<u8>>, name: &str, text: &str) -> XmlResult {
    w.write_event(Event::Start(BytesStart::new(name)))?;
    w.write_event(Event::Text(BytesText::new(text)))?;
    w.write_event(Event::End(BytesEnd::new(name)))
}

/// The value column of a term (`fct_lang`, `fct_dtp`, `fct_short_form`), with `sparql_ser`
/// when asked (the `list` view).
fn value_column(
    w: &mut Writer<Vec<u8>>,
    term: &Term,
    compact: Compact<'_>,
    sparql_ser: bool,
) -> XmlResult {
    let mut attrs: Vec<(&str, String)> = Vec::new();
    match term {
        Term::Literal(l) => match l.language() {
            Some(lang) => attrs.push(("xml:lang", lang.to_owned())),
            None if l.datatype() == xsd::STRING => attrs.push(("datatype", PLAIN_STRING.into())),
            None => attrs.push(("datatype", l.datatype().as_str().to_owned())),
        },
        _ => attrs.push(("datatype", "uri".into())),
    }
    if let Some(short) = shortform(term, compact) {
        attrs.push(("shortform", short));
    }
    if sparql_ser {
        // Virtuoso serializes only date and time values specially here.
        let ser = match term {
            Term::Literal(l) if l.datatype() == xsd::DATE_TIME || l.datatype() == xsd::DATE => {
                l.value().to_owned()
            }
            _ => String::new(),
        };
        attrs.push(("sparql_ser", ser));
    }
    let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    column(w, &attrs, &term_text(term))
}

/// A text row (`text` or `text-d`).
fn text_row(w: &mut Writer<Vec<u8>>, row: &Row, compact: Compact<'_>, detailed: bool) -> XmlResult {
    let (trank, erank, graph, excerpt) = match &row.text {
        Some(t) => (
            t.text_score.to_string(),
            t.entity_rank.to_string(),
            t.graph.as_ref().map(term_text).unwrap_or_default(),
            t.excerpt.as_str(),
        ),
        None => ("0".into(), "0".into(), String::new(), ""),
    };
    if detailed {
        column(w, &[("datatype", "trank")], &trank)?;
        column(w, &[("datatype", "erank")], &erank)?;
        let short = shortform(&row.value, compact).unwrap_or_default();
        column(
            w,
            &[("datatype", "url"), ("shortform", short.as_str())],
            &term_text(&row.value),
        )?;
        column(w, &[], &row.label)?;
        let graph_short = row
            .text
            .as_ref()
            .and_then(|t| t.graph.as_ref())
            .and_then(|g| shortform(g, compact))
            .unwrap_or_default();
        column(
            w,
            &[("datatype", "url"), ("shortform", graph_short.as_str())],
            &graph,
        )?;
    } else {
        column(w, &[("trank", "trank")], &trank)?;
        column(w, &[("erank", "erank")], &erank)?;
        column(w, &[("graph", "g")], &graph)?;
        value_column(w, &row.value, compact, false)?;
        column(w, &[], &row.label)?;
    }
    column(w, &[], excerpt)
}

/// The answer as Virtuoso's `fct:facets`, its rows in the shape of `view_type` (the type the
/// request asked for); `compact` writes the `shortform`s.
pub fn fct_xml(
    answer: &FacetAnswer,
    view_type: &str,
    compact: Compact<'_>,
) -> std::io::Result<Vec<u8>> {
    let mut w = Writer::new(Vec::new());
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = BytesStart::new("fct:facets");
    root.push_attribute(("xmlns:fct", FCT_NAMESPACE));
    w.write_event(Event::Start(root))?;
    element(&mut w, "fct:sparql", &answer.sparql)?;
    element(&mut w, "fct:time", &answer.time_ms.to_string())?;
    element(
        &mut w,
        "fct:complete",
        if answer.complete { "yes" } else { "no" },
    )?;
    element(&mut w, "fct:timeout", &answer.timeout_ms.to_string())?;
    element(
        &mut w,
        "fct:db-activity",
        &format!(
            "{} focus terms, {} rows in all, {} ms",
            answer.focus_size, answer.total, answer.time_ms
        ),
    )?;
    let mut result = BytesStart::new("fct:result");
    result.push_attribute(("type", view_type));
    let total = answer.total.to_string();
    result.push_attribute(("total", total.as_str()));
    w.write_event(Event::Start(result))?;
    for row in &answer.rows {
        w.write_event(Event::Start(BytesStart::new("fct:row")))?;
        match view_type {
            "text" => text_row(&mut w, row, compact, false)?,
            "text-d" => text_row(&mut w, row, compact, true)?,
            "list" | "entities-list" | "propval-list" => {
                value_column(&mut w, &row.value, compact, view_type == "list")?;
                column(&mut w, &[], &row.label)?;
            }
            _ => {
                value_column(&mut w, &row.value, compact, false)?;
                column(&mut w, &[], &row.label)?;
                // An entity listed by `list-count` away from a property is one solution.
                let count = row.count.unwrap_or(1).to_string();
                column(&mut w, &[], &count)?;
            }
        }
        w.write_event(Event::End(BytesEnd::new("fct:row")))?;
    }
    w.write_event(Event::End(BytesEnd::new("fct:result")))?;
    w.write_event(Event::End(BytesEnd::new("fct:facets")))?;
    Ok(w.into_inner())
}

/// Virtuoso's error document: `<error><code>…</code><message>…</message>
/// <diagnostics>…</diagnostics></error>` (its `fct_svc` handler), with an SQLSTATE-like code.
pub fn fct_error(code: &str, message: &str, diagnostics: &str) -> Vec<u8> {
    let mut w = Writer::new(Vec::new());
    let written: XmlResult = (|| {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        w.write_event(Event::Start(BytesStart::new("error")))?;
        element(&mut w, "code", code)?;
        element(&mut w, "message", message)?;
        element(&mut w, "diagnostics", diagnostics)?;
        w.write_event(Event::End(BytesEnd::new("error")))
    })();
    // Writing into a vector cannot fail; should it, the body is what was written.
    drop(written);
    w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::{Literal, NamedNode};

    fn compact(iri: &str) -> Option<String> {
        [
            ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
            ("dcterms", "http://purl.org/dc/terms/"),
        ]
        .iter()
        .find_map(|(p, ns)| iri.strip_prefix(ns).map(|l| format!("{p}:{l}")))
    }

    #[test]
    fn shortforms_are_curies_or_cut_iris() {
        let rdf_type = Term::from(NamedNode::new_unchecked(
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
        ));
        let dct_type = Term::from(NamedNode::new_unchecked("http://purl.org/dc/terms/type"));
        assert_eq!(shortform(&rdf_type, &compact).as_deref(), Some("rdf:type"));
        assert_eq!(
            shortform(&dct_type, &compact).as_deref(),
            Some("dcterms:type")
        );
        let long = Term::from(NamedNode::new_unchecked(
            "http://example.org/a/very/long/path/to/some/resource/type",
        ));
        let short = shortform(&long, &compact).expect("an IRI has one");
        assert_eq!(short.chars().count(), SHORTFORM_CHARS + 2);
        assert_eq!(short, "http://example.org/a.../some/resource/type");
        assert_eq!(
            shortform(&Term::from(Literal::from(3)), &compact),
            None,
            "numbers have none"
        );
    }

    #[test]
    fn errors_are_escaped() {
        let body = String::from_utf8(fct_error("22023", "bad <view>", "x & y")).expect("utf-8");
        assert!(body.contains("<code>22023</code>"), "{body}");
        assert!(
            body.contains("<message>bad &lt;view&gt;</message>"),
            "{body}"
        );
        assert!(
            body.contains("<diagnostics>x &amp; y</diagnostics>"),
            "{body}"
        );
    }
}
