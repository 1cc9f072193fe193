//! The `/api/facets` answer in XML (Virtuoso's `fct:facets` answer is in
//! [`fct_xml`](crate::fct_xml)).

use crate::labels::local_name;
use crate::response::FacetAnswer;
use oxrdf::Term;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

/// The namespace of Virtuoso's Facets Web Service.
pub const FCT_NAMESPACE: &str = "http://openlinksw.com/services/facets/1.0/";

type XmlResult = Result<(), quick_xml::Error>;

fn text_element(
    w: &mut Writer<Vec<u8>>,
    name: &str,
    attrs: &[(&str, &str)],
    text: &str,
) -> XmlResult {
    let mut start = BytesStart::new(name);
    for (k, v) in attrs {
        start.push_attribute((*k, *v));
    }
    w.write_event(Event::Start(start))?;
    w.write_event(Event::Text(BytesText::new(text)))?;
    w.write_event(Event::End(BytesEnd::new(name)))?;
    Ok(())
}

fn term_attributes(term: &Term) -> Vec<(&'static str, String)> {
    match term {
        Term::NamedNode(n) => vec![
            ("type", "uri".into()),
            ("shortform", local_name(n.as_str()).into()),
        ],
        Term::BlankNode(_) => vec![("type", "bnode".into())],
        Term::Literal(l) => match l.language() {
            Some(lang) => vec![("type", "literal".into()), ("xml:lang", lang.into())],
            None => vec![
                ("type", "literal".into()),
                ("datatype", l.datatype().as_str().into()),
            ],
        },
        // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
        #[allow(unreachable_patterns)]
        _ => Vec::new(),
    }
}

fn term_text(term: &Term) -> String {
    match term {
        Term::NamedNode(n) => n.as_str().to_owned(),
        Term::BlankNode(b) => b.as_str().to_owned(),
        Term::Literal(l) => l.value().to_owned(),
        // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
        #[allow(unreachable_patterns)]
        _ => term.to_string(),
    }
}

/// The `/api/facets` answer as XML: `<facets view complete time_ms timeout_ms total
/// estimate? sample_size?>` with `<sparql>` and `<row count? exact? estimate? score?><value
/// type …>…</value><label>…</label></row>`;
/// a `ranges` row adds `<upper type datatype inclusive>…</upper>` (its `value` is the lower
/// bound).
pub fn answer_xml(answer: &FacetAnswer) -> Result<Vec<u8>, quick_xml::Error> {
    let mut w = Writer::new(Vec::new());
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let time = answer.time_ms.to_string();
    let timeout = answer.timeout_ms.to_string();
    let total = answer.total.to_string();
    let complete = answer.complete.to_string();
    let mut root = BytesStart::new("facets");
    root.push_attribute(("view", answer.view.name()));
    root.push_attribute(("complete", complete.as_str()));
    root.push_attribute(("time_ms", time.as_str()));
    root.push_attribute(("timeout_ms", timeout.as_str()));
    root.push_attribute(("total", total.as_str()));
    let sample = answer.sample.map(|n| n.to_string());
    if let Some(sample) = &sample {
        root.push_attribute(("estimate", "true"));
        root.push_attribute(("sample_size", sample.as_str()));
    }
    w.write_event(Event::Start(root))?;
    text_element(&mut w, "sparql", &[], &answer.sparql)?;
    for row in &answer.rows {
        let mut start = BytesStart::new("row");
        let count = row.count.map(|c| c.to_string());
        if let Some(count) = &count {
            start.push_attribute(("count", count.as_str()));
            start.push_attribute(("exact", complete.as_str()));
            if sample.is_some() {
                start.push_attribute(("estimate", "true"));
            }
        }
        let score = row.score.map(|s| s.to_string());
        if let Some(score) = &score {
            start.push_attribute(("score", score.as_str()));
        }
        w.write_event(Event::Start(start))?;
        let attrs = term_attributes(&row.value);
        let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        text_element(&mut w, "value", &attrs, &term_text(&row.value))?;
        text_element(&mut w, "label", &[], &row.label)?;
        if let Some(bucket) = &row.bucket {
            let upper = Term::from(bucket.upper.clone());
            let mut attrs = term_attributes(&upper);
            attrs.push(("inclusive", bucket.closed.to_string()));
            let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
            text_element(&mut w, "upper", &attrs, &term_text(&upper))?;
        }
        w.write_event(Event::End(BytesEnd::new("row")))?;
    }
    w.write_event(Event::End(BytesEnd::new("facets")))?;
    Ok(w.into_inner())
}
