//! `/fct/service` with request bodies written after the examples of Virtuoso's Facets Web
//! Service documentation (a `<query>` in the facets namespace with `text`, `class`,
//! `property`, `value` and a `view`), answered as `fct:facets`.

use crate::common::client;
use crate::data::{facets, fixture, vocab};
use serde_json::json;

const NS: &str = "http://openlinksw.com/services/facets/1.0/";

fn post(body: &str) -> (u16, String) {
    let response = client()
        .post(fixture().server.url("/fct/service"))
        .header("Content-Type", "text/xml")
        .body(body.to_owned())
        .send()
        .expect("request");
    let status = response.status().as_u16();
    (status, response.text().expect("body"))
}

/// The text of every `fct:column` number `n` (0-based) of each row, in order.
fn column(xml: &str, n: usize) -> Vec<String> {
    let document = roxmltree_like::rows(xml);
    document
        .into_iter()
        .filter_map(|row| row.get(n).cloned())
        .collect()
}

/// A tiny reader for the answer's rows (enough for these tests, using quick-xml).
mod roxmltree_like {
    use quick_xml::events::Event;

    pub fn rows(xml: &str) -> Vec<Vec<String>> {
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut rows = Vec::new();
        let mut in_column = false;
        loop {
            match reader.read_event().expect("well-formed answer") {
                Event::Start(e) if e.name().as_ref() == b"fct:row" => rows.push(Vec::new()),
                Event::Start(e) if e.name().as_ref() == b"fct:column" => {
                    in_column = true;
                    if let Some(row) = rows.last_mut() {
                        row.push(String::new());
                    }
                }
                Event::Text(t) if in_column => {
                    if let Some(cell) = rows.last_mut().and_then(|r| r.last_mut()) {
                        cell.push_str(&t.unescape().expect("text"));
                    }
                }
                Event::End(e) if e.name().as_ref() == b"fct:column" => in_column = false,
                Event::Eof => break,
                _ => {}
            }
        }
        rows
    }
}

#[test]
fn text_view_lists_the_entities_json_lists() {
    let f = fixture();
    let word = &f.words[0];
    let (status, xml) = post(&format!(
        r#"<query xmlns="{NS}" inference="" same-as=""><text>{word}</text><view type="text" limit="20" offset=""/></query>"#
    ));
    assert_eq!(status, 200, "{xml}");
    for part in [
        "<fct:facets",
        "<fct:sparql>",
        "<fct:time>",
        "<fct:complete>yes</fct:complete>",
        "<fct:timeout>",
        r#"<fct:result type="text""#,
    ] {
        assert!(xml.contains(part), "{part} missing in {xml}");
    }
    let json = facets(
        &f.server,
        &json!({"text": word, "view": {"type": "entities", "limit": 20}}),
    );
    let mut from_json: Vec<String> = json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["value"]["value"].as_str().unwrap_or("").to_owned())
        .collect();
    // A `text` row is trank, erank, graph, the entity, its label, the excerpt.
    let mut from_xml = column(&xml, 3);
    assert!(!from_xml.is_empty());
    from_json.sort();
    from_xml.sort();
    assert_eq!(from_xml, from_json);
}

#[test]
fn class_with_properties_view_counts_like_json() {
    let f = fixture();
    let class = &f.product_types[0];
    let (status, xml) = post(&format!(
        r#"<query xmlns="{NS}"><class iri="{class}"/><view type="properties" limit="50"/></query>"#
    ));
    assert_eq!(status, 200, "{xml}");
    assert!(
        xml.contains(r#"datatype="uri""#) && xml.contains("shortform="),
        "{xml}"
    );
    let json = facets(
        &f.server,
        &json!({"class": [{"iri": class}], "view": {"type": "properties", "limit": 50}}),
    );
    let counts: Vec<String> = json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["count"].to_string())
        .collect();
    assert_eq!(column(&xml, 2), counts);
}

#[test]
fn list_count_under_a_property_gives_its_values() {
    let f = fixture();
    let class = &f.product_types[0];
    let feature = vocab("productFeature");
    // Virtuoso's documentation nests the view inside the property whose values it lists.
    let (status, xml) = post(&format!(
        r#"<query><class iri="{class}"/><property iri="{feature}"><view type="list-count" limit="5"/></property></query>"#
    ));
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains(r#"<fct:result type="list-count""#), "{xml}");
    let json = facets(
        &f.server,
        &json!({"class": [{"iri": class}], "view": {"type": "values", "property": feature, "limit": 5}}),
    );
    let values: Vec<String> = json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["value"]["value"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(column(&xml, 0), values);
    assert_eq!(values.len(), 5);
}

#[test]
fn property_with_value_narrows_like_json() {
    let f = fixture();
    let producer = &f.producers[0];
    let (status, xml) = post(&format!(
        r#"<fct:query xmlns:fct="{NS}"><fct:property iri="{}"><fct:value datatype="uri">{producer}</fct:value></fct:property><fct:view type="list" limit="100"/></fct:query>"#,
        vocab("producer")
    ));
    assert_eq!(status, 200, "{xml}");
    let json = facets(
        &f.server,
        &json!({"property": [{"iri": vocab("producer"), "node": {"value": [{"op": "eq", "iri": producer}]}}], "view": {"type": "entities", "limit": 100}}),
    );
    assert_eq!(
        column(&xml, 0).len() as u64,
        json["total"].as_u64().expect("total")
    );
    assert!(!column(&xml, 0).is_empty());
}

#[test]
fn bad_requests_name_what_is_wrong() {
    let (status, body) = post("<query><text>x</query>");
    assert_eq!(status, 400);
    assert!(body.contains("malformed XML"), "{body}");
    let (status, body) = post(r#"<query><view type="pie"/></query>"#);
    assert_eq!(status, 400);
    assert!(body.contains("pie"), "{body}");
    let (status, body) = post(r#"<query><class iri="not an iri"/><view type="classes"/></query>"#);
    assert_eq!(status, 400);
    assert!(body.contains("not an iri"), "{body}");
}
