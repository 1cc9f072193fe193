//! Virtuoso's Facets Web Service request syntax (`POST /fct/service`), read into the
//! [`model`](crate::model).
//!
//! ```xml
//! <query xmlns="http://openlinksw.com/services/facets/1.0/" timeout="5000" graph="http://example.org/g">
//!   <text property="http://www.w3.org/2000/01/rdf-schema#label">coin</text>
//!   <class iri="http://example.org/Coin" exclude="yes"/>
//!   <property iri="http://example.org/mint">
//!     <value datatype="uri">http://example.org/Rome</value>
//!   </property>
//!   <property iri="http://example.org/year"><value op="&gt;=" datatype="http://www.w3.org/2001/XMLSchema#integer">3</value></property>
//!   <view type="classes" limit="20" offset="0"/>
//! </query>
//! ```
//! Elements are matched by local name, so the namespace may be absent or prefixed. What
//! Virtuoso's service reads (its `fct_query` in `binsrc/fct/sql/facet.sql`) is read here
//! with the same meaning, and what this engine cannot do is refused, never ignored:
//! - `query`: `timeout` (milliseconds), `graph` (one graph read instead of all); `graph1`…
//!   (several default graphs), a non-empty `inference` or `same-as` are refused.
//! - `text` (`property`: only that property's literals), `class` (`exclude`), `property`
//!   and `property-of` (`exclude`).
//! - `value`: `op` one of `=` (the default), `!=`, `<`, `>`, `<=`, `>=`; `datatype="uri"`
//!   marks an IRI, `xml:lang`/`lang` a language; the value is the text or `val`.
//! - `cond`: `type` `eq neq lt lte gt gte range in not_in contains lang`; `neg` (`yes`, `on`,
//!   `true` or `1`) negates `eq`, `in`, `contains`, `lt`, `lte`, `gt`, `gte`; `range`
//!   (also the `cond-range` element) takes `lo`/`hi`, `in`/`not_in` take `cond-parm`
//!   children. `near` is refused: the store has no geometry support.
//! - `view type`: `text`, `text-d`, `list`, `entities-list`, `propval-list` list entities;
//!   `list-count` under a `property` whose node has no other constraint lists that
//!   property's values with counts (elsewhere it lists entities); `classes`, `properties`,
//!   `properties-in`, `graphs`, `text-properties`. `geo` and `geo-list` are refused.
//!
//! Documents are bounded in nesting depth (the body is bounded in size by the route).

use crate::fct_values::{cond, iri, refused, required, value, yes, Frame};
use crate::json::SyntaxError;
use crate::model::{
    ClassConstraint, Direction, Edge, FacetQuery, Node, ValueCondition, View, ViewKind,
    DEFAULT_BUCKETS, DEFAULT_LIMIT, MAX_LIMIT,
};
use oxrdf::NamedNode;
use quick_xml::events::{BytesStart, Event};
use std::time::Duration;

/// The deepest element nesting accepted.
pub const MAX_XML_DEPTH: usize = 32;

/// A Facets Web Service request: the query, and the view type its answer echoes.
#[derive(Debug, Clone, PartialEq)]
pub struct FctRequest {
    /// The facet query.
    pub query: FacetQuery,
    /// The `type` of the `<view>` as written (`text-d`, `list-count`, …).
    pub view_type: String,
}

/// What has been read of a document so far.
#[derive(Default)]
struct Parsed {
    query: Option<FacetQuery>,
    view_type: Option<String>,
}

/// Parses a Facets Web Service request into its facet query.
pub fn parse_request(body: &[u8]) -> Result<FacetQuery, SyntaxError> {
    parse_service_request(body).map(|r| r.query)
}

/// Parses a Facets Web Service request, keeping the view type it asked for.
pub fn parse_service_request(body: &[u8]) -> Result<FctRequest, SyntaxError> {
    let mut reader = quick_xml::Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut stack: Vec<Frame> = Vec::new();
    let mut query = Parsed::default();
    let mut buffer = Vec::new();
    loop {
        let event = reader.read_event_into(&mut buffer).map_err(|e| {
            SyntaxError(format!(
                "malformed XML at byte {}: {e}",
                reader.buffer_position()
            ))
        })?;
        match event {
            Event::Start(start) => {
                stack.push(open(&start)?);
                if stack.len() > MAX_XML_DEPTH {
                    return Err(SyntaxError(format!(
                        "the XML is nested deeper than {MAX_XML_DEPTH} elements"
                    )));
                }
            }
            Event::Empty(start) => {
                let frame = open(&start)?;
                close(frame, &mut stack, &mut query)?;
            }
            Event::Text(text) => {
                if let Some(frame) = stack.last_mut() {
                    let text = text
                        .unescape()
                        .map_err(|e| SyntaxError(format!("malformed XML text: {e}")))?;
                    frame.text.push_str(&text);
                }
            }
            Event::CData(data) => {
                if let Some(frame) = stack.last_mut() {
                    frame.text.push_str(&String::from_utf8_lossy(&data));
                }
            }
            Event::End(_) => {
                let frame = stack
                    .pop()
                    .ok_or_else(|| SyntaxError("malformed XML: unbalanced end tag".into()))?;
                close(frame, &mut stack, &mut query)?;
            }
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    if !stack.is_empty() {
        return Err(SyntaxError(
            "malformed XML: the document ends inside an element".into(),
        ));
    }
    let mut parsed = query
        .query
        .ok_or_else(|| SyntaxError("the document has no <query> element".into()))?;
    list_count_as_values(&mut parsed.root);
    Ok(FctRequest {
        query: parsed,
        view_type: query.view_type.unwrap_or_default(),
    })
}

fn local_name(name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    name.rsplit(':').next().unwrap_or_default().to_owned()
}

fn open(start: &BytesStart<'_>) -> Result<Frame, SyntaxError> {
    let name = local_name(start.name().as_ref());
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute
            .map_err(|e| SyntaxError(format!("malformed XML attribute in <{name}>: {e}")))?;
        let key = String::from_utf8_lossy(attribute.key.as_ref()).into_owned();
        let value = attribute
            .unescape_value()
            .map_err(|e| SyntaxError(format!("malformed XML attribute in <{name}>: {e}")))?
            .into_owned();
        attributes.push((key, value));
    }
    let node = matches!(name.as_str(), "query" | "property" | "property-of").then(Node::default);
    Ok(Frame {
        name,
        attributes,
        text: String::new(),
        node,
        params: Vec::new(),
    })
}

fn parent_node<'a>(stack: &'a mut [Frame], child: &str) -> Result<&'a mut Node, SyntaxError> {
    stack
        .last_mut()
        .and_then(|f| f.node.as_mut())
        .ok_or_else(|| {
            SyntaxError(format!(
                "<{child}> must be inside <query>, <property> or <property-of>"
            ))
        })
}

fn close(frame: Frame, stack: &mut [Frame], parsed: &mut Parsed) -> Result<(), SyntaxError> {
    match frame.name.as_str() {
        "query" => {
            parsed.query = Some(query_of(frame)?);
        }
        "text" => {
            let text = frame.text.trim().to_owned();
            let node = parent_node(stack, "text")?;
            if let Some(property) = frame.attribute("property").filter(|p| !p.is_empty()) {
                // Virtuoso's `?s <property> ?o . ?o bif:contains "…"`: a literal of that
                // property holds the words (the text stays, for scores and excerpts).
                node.edges.push(Edge {
                    property: iri(property)?,
                    direction: Direction::Forward,
                    exclude: false,
                    node: Node {
                        values: vec![ValueCondition::Contains(text.clone())],
                        ..Node::default()
                    },
                });
            }
            node.text = Some(text).filter(|t| !t.is_empty());
        }
        "class" => {
            let class = ClassConstraint {
                iri: iri(required(&frame, "iri")?)?,
                exclude: yes(frame.attribute("exclude")) || yes(frame.attribute("neg")),
            };
            parent_node(stack, "class")?.classes.push(class);
        }
        "property" | "property-of" => {
            let edge = Edge {
                property: iri(required(&frame, "iri")?)?,
                direction: if frame.name == "property" {
                    Direction::Forward
                } else {
                    Direction::Inverse
                },
                exclude: yes(frame.attribute("exclude")) || yes(frame.attribute("neg")),
                node: frame.node.unwrap_or_default(),
            };
            parent_node(stack, &frame.name)?.edges.push(edge);
        }
        "value" => {
            let condition = value(&frame)?;
            parent_node(stack, "value")?.values.push(condition);
        }
        "cond-parm" => {
            if let Some(parent) = stack.last_mut() {
                parent.params.push(frame);
            }
        }
        "cond" | "cond-range" => {
            let condition = cond(&frame)?;
            parent_node(stack, &frame.name)?.values.push(condition);
        }
        "view" => {
            let view = view(&frame)?;
            parsed.view_type = frame.attribute("type").map(str::to_owned);
            parent_node(stack, "view")?.view = Some(view);
        }
        other => {
            return Err(SyntaxError(format!(
                "unknown element <{other}> in a facets query"
            )))
        }
    }
    Ok(())
}

/// The query's own attributes and its root node.
fn query_of(frame: Frame) -> Result<FacetQuery, SyntaxError> {
    let timeout = frame
        .attribute("timeout")
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|_| SyntaxError(format!("timeout must be milliseconds, not {t:?}")))
        })
        .transpose()?;
    for (name, value) in &frame.attributes {
        let several_graphs = name
            .strip_prefix("graph")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if several_graphs {
            return Err(refused(&format!(
                "reading several graphs (`{name}`); give one `graph`"
            )));
        }
        if matches!(name.as_str(), "inference" | "same-as") && !value.trim().is_empty() {
            return Err(refused(&format!("`{name}=\"{value}\"`")));
        }
    }
    let graph = frame
        .attribute("graph")
        .filter(|g| !g.trim().is_empty())
        .map(iri)
        .transpose()?;
    Ok(FacetQuery {
        root: frame.node.unwrap_or_default(),
        timeout,
        graph,
    })
}

/// Reads `<view>`; `list-count` is kept as entities here and rewritten afterwards.
fn view(frame: &Frame) -> Result<View, SyntaxError> {
    let kind_name = required(frame, "type")?;
    let kind = match kind_name {
        "text" | "text-d" | "list" | "list-count" | "entities-list" | "propval-list" => {
            ViewKind::Entities
        }
        "classes" => ViewKind::Classes,
        "properties" => ViewKind::Properties,
        "properties-in" => ViewKind::PropertiesIn,
        "graphs" => ViewKind::Graphs,
        "text-properties" => ViewKind::TextProperties,
        "geo" | "geo-list" => {
            return Err(refused(&format!(
                "the `{kind_name}` view (this store has no geometry support)"
            )))
        }
        other => {
            return Err(SyntaxError(format!(
                "unknown view type {other:?}; use one of: text, text-d, list, list-count, entities-list, propval-list, classes, properties, properties-in, graphs, text-properties"
            )))
        }
    };
    let number = |name: &str| -> Result<Option<usize>, SyntaxError> {
        match frame.attribute(name).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| SyntaxError(format!("view {name} must be a whole number, not {v:?}"))),
        }
    };
    Ok(View {
        kind,
        // `list-count` is marked by the property slot until rewritten.
        property: (kind_name == "list-count").then(|| NamedNode::new_unchecked(LIST_COUNT_MARK)),
        limit: number("limit")?.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT),
        offset: number("offset")?.unwrap_or(0),
        buckets: DEFAULT_BUCKETS,
    })
}

/// Placeholder IRI marking a `list-count` view between parsing and rewriting; never leaves
/// this module.
const LIST_COUNT_MARK: &str = "urn:lodestone:fct:list-count";

/// Turns `<property iri="p"><view type="list-count"/></property>` into the parent's `values`
/// view of `p`; any other `list-count` lists entities.
fn list_count_as_values(node: &mut Node) {
    let mut moved = None;
    for (i, edge) in node.edges.iter_mut().enumerate() {
        let child = &mut edge.node;
        let marked = child.view.as_ref().is_some_and(|v| {
            v.property
                .as_ref()
                .is_some_and(|p| p.as_str() == LIST_COUNT_MARK)
        });
        let bare = child.constrained_by_classes_only() && child.classes.is_empty();
        if marked && bare && !edge.exclude && edge.direction == Direction::Forward {
            moved = Some(i);
        }
        list_count_as_values(child);
    }
    if let Some(i) = moved {
        let edge = node.edges.remove(i);
        if let Some(mut view) = edge.node.view {
            view.kind = ViewKind::Values;
            view.property = Some(edge.property);
            node.view = Some(view);
        }
    }
    if let Some(view) = &mut node.view {
        if view
            .property
            .as_ref()
            .is_some_and(|p| p.as_str() == LIST_COUNT_MARK)
        {
            view.property = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::vocab::xsd;
    use oxrdf::Term;

    #[test]
    fn namespaced_and_plain_documents_read_alike() {
        let plain = r#"<query><text>coin</text><view type="classes" limit="5"/></query>"#;
        let namespaced = r#"<fct:query xmlns:fct="http://openlinksw.com/services/facets/1.0/"><fct:text>coin</fct:text><fct:view type="classes" limit="5"/></fct:query>"#;
        assert_eq!(
            parse_request(plain.as_bytes()),
            parse_request(namespaced.as_bytes())
        );
    }

    #[test]
    fn bare_numbers_are_numbers_as_in_virtuoso() {
        let q = parse_request(
            br#"<query><value>12</value><value>-1.5</value><value>2e3</value><value>12a</value><value xml:lang="en">7</value><view type="list"/></query>"#,
        )
        .expect("parses");
        let datatypes: Vec<String> = q
            .root
            .values
            .iter()
            .map(|v| match v {
                ValueCondition::Eq(Term::Literal(l)) => l.datatype().as_str().to_owned(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            datatypes,
            [
                xsd::INTEGER.as_str(),
                xsd::DECIMAL.as_str(),
                xsd::DOUBLE.as_str(),
                xsd::STRING.as_str(),
                "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
            ]
        );
    }

    #[test]
    fn list_count_under_a_property_is_its_values() {
        let q = parse_request(
            br#"<query><class iri="http://e.org/C"/><property iri="http://e.org/p"><view type="list-count"/></property></query>"#,
        )
        .expect("parses");
        let view = q.root.view.expect("moved to the root");
        assert_eq!(view.kind, ViewKind::Values);
        assert_eq!(
            view.property.map(|p| p.into_string()),
            Some("http://e.org/p".into())
        );
        assert!(q.root.edges.is_empty());
    }

    #[test]
    fn malformed_and_deep_documents_are_refused() {
        assert!(parse_request(b"<query><text>x</query>").is_err());
        let deep = format!(
            "<query>{}{}</query>",
            "<property iri=\"http://e.org/p\">".repeat(40),
            "</property>".repeat(40)
        );
        let error = parse_request(deep.as_bytes()).unwrap_err();
        assert!(error.0.contains("nested"), "{error}");
        assert!(parse_request(br#"<query><view type="pie"/></query>"#)
            .unwrap_err()
            .0
            .contains("pie"));
    }
}
