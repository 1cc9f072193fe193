//! The JSON syntax of `/api/facets` (body of `POST`, `q=` of `GET`) and the flattened `GET`
//! parameters, both read into the [`model`](crate::model).
//!
//! The body is the root node: `text`, `class` (`[{"iri", "exclude"?}]`), `value`
//! (`[{"op", "value" | "iri" | "lo","hi" | "in", "datatype"?, "lang"?}]`), `property` and
//! `property-of` (`[{"iri", "exclude"?, "node"?}]`; no `node` = the property exists, with
//! `exclude` = it does not), `view` (`{"type", "property"?, "limit"?, "offset"?, "buckets"?}`)
//! on exactly one node, and `timeout_ms` and `graph` (the one named graph every constraint
//! and view reads) at the root. Unknown fields are refused, naming the field.

use crate::model::{
    ClassConstraint, Comparison, Direction, Edge, FacetQuery, Node, ValueCondition, View, ViewKind,
    DEFAULT_BUCKETS, DEFAULT_LIMIT, MAX_BUCKETS, MAX_LIMIT,
};
use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNode, Term};
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// Why a JSON query is refused (the message names the culprit).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SyntaxError(pub String);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonNode {
    text: Option<String>,
    #[serde(default)]
    class: Vec<JsonClass>,
    #[serde(default)]
    value: Vec<JsonValue>,
    #[serde(default)]
    property: Vec<JsonEdge>,
    #[serde(default, rename = "property-of")]
    property_of: Vec<JsonEdge>,
    view: Option<JsonView>,
    timeout_ms: Option<u64>,
    graph: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonClass {
    iri: String,
    #[serde(default)]
    exclude: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonEdge {
    iri: String,
    #[serde(default)]
    exclude: bool,
    node: Option<Box<JsonNode>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonView {
    #[serde(rename = "type")]
    kind: String,
    property: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
    buckets: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonValue {
    op: String,
    value: Option<Value>,
    iri: Option<String>,
    lo: Option<Value>,
    hi: Option<Value>,
    #[serde(rename = "in")]
    in_: Option<Vec<Value>>,
    datatype: Option<String>,
    lang: Option<String>,
}

/// Parses a JSON query (body or `q=`).
pub fn parse_query(text: &str) -> Result<FacetQuery, SyntaxError> {
    let root: JsonNode = serde_json::from_str(text)
        .map_err(|e| SyntaxError(format!("malformed facet query JSON: {e}")))?;
    let timeout = root.timeout_ms.map(Duration::from_millis);
    let graph = root.graph.as_deref().map(iri).transpose()?;
    Ok(FacetQuery {
        root: node(JsonNode {
            graph: None,
            ..root
        })?,
        timeout,
        graph,
    })
}

/// Parses the flattened `GET` parameters (a root node only): `text`, `class` and
/// `not-class` (repeatable), `view`, `view-property`, `limit`, `offset`, `timeout_ms`,
/// `graph`.
pub fn parse_flat(params: &[(String, String)]) -> Result<FacetQuery, SyntaxError> {
    let mut root = Node::default();
    let mut view = JsonView {
        kind: "entities".into(),
        property: None,
        limit: None,
        offset: None,
        buckets: None,
    };
    let mut timeout = None;
    let mut graph = None;
    let number = |name: &str, v: &str| {
        v.parse::<u64>()
            .map_err(|_| SyntaxError(format!("`{name}` must be a whole number, not {v:?}")))
    };
    for (name, v) in params {
        match name.as_str() {
            "text" => root.text = Some(v.clone()),
            "class" | "not-class" => root.classes.push(ClassConstraint {
                iri: iri(v)?,
                exclude: name == "not-class",
            }),
            "view" => view.kind = v.clone(),
            "view-property" => view.property = Some(v.clone()),
            "limit" => view.limit = Some(usize::try_from(number(name, v)?).unwrap_or(usize::MAX)),
            "offset" => view.offset = Some(usize::try_from(number(name, v)?).unwrap_or(usize::MAX)),
            "buckets" => view.buckets = Some(usize::try_from(number(name, v)?).unwrap_or(usize::MAX)),
            "timeout_ms" => timeout = Some(Duration::from_millis(number(name, v)?)),
            "graph" => graph = Some(iri(v)?),
            "format" => {}
            other => {
                return Err(SyntaxError(format!(
                    "unknown parameter `{other}`; use q= (the JSON query) or text, class, not-class, view, view-property, limit, offset, buckets, timeout_ms, graph, format"
                )))
            }
        }
    }
    root.view = Some(view_of(view)?);
    Ok(FacetQuery {
        root,
        timeout,
        graph,
    })
}

fn iri(text: &str) -> Result<NamedNode, SyntaxError> {
    NamedNode::new(text).map_err(|e| SyntaxError(format!("{text:?} is not an IRI: {e}")))
}

fn node(json: JsonNode) -> Result<Node, SyntaxError> {
    if json.graph.is_some() {
        return Err(SyntaxError(
            "`graph` belongs on the root node (one graph is read for the whole query)".into(),
        ));
    }
    let mut edges = Vec::new();
    for (list, direction) in [
        (json.property, Direction::Forward),
        (json.property_of, Direction::Inverse),
    ] {
        for edge in list {
            edges.push(Edge {
                property: iri(&edge.iri)?,
                direction,
                exclude: edge.exclude,
                node: match edge.node {
                    Some(n) => node(*n)?,
                    None => Node::default(),
                },
            });
        }
    }
    Ok(Node {
        text: json.text.filter(|t| !t.trim().is_empty()),
        classes: json
            .class
            .into_iter()
            .map(|c| {
                Ok(ClassConstraint {
                    iri: iri(&c.iri)?,
                    exclude: c.exclude,
                })
            })
            .collect::<Result<_, SyntaxError>>()?,
        values: json
            .value
            .into_iter()
            .map(condition)
            .collect::<Result<_, _>>()?,
        edges,
        view: json.view.map(view_of).transpose()?,
    })
}

fn view_of(view: JsonView) -> Result<View, SyntaxError> {
    let kind = ViewKind::from_name(&view.kind).ok_or_else(|| {
        let names: Vec<&str> = ViewKind::ALL.iter().map(|v| v.name()).collect();
        SyntaxError(format!(
            "unknown view {:?}; use one of: {}",
            view.kind,
            names.join(", ")
        ))
    })?;
    let limit = view.limit.unwrap_or(DEFAULT_LIMIT);
    if limit > MAX_LIMIT {
        return Err(SyntaxError(format!(
            "view limit {limit} is over the maximum of {MAX_LIMIT}"
        )));
    }
    Ok(View {
        kind,
        property: view.property.as_deref().map(iri).transpose()?,
        limit,
        offset: view.offset.unwrap_or(0),
        buckets: view
            .buckets
            .unwrap_or(DEFAULT_BUCKETS)
            .clamp(1, MAX_BUCKETS),
    })
}

/// A literal from a JSON scalar, typed by `datatype` or tagged by `lang` when given.
pub fn literal(
    value: &Value,
    datatype: Option<&str>,
    lang: Option<&str>,
) -> Result<Literal, SyntaxError> {
    let lexical = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => {
            return Err(SyntaxError(format!(
                "a value must be a string, number or boolean, not {other}"
            )))
        }
    };
    if let Some(lang) = lang {
        return Literal::new_language_tagged_literal(lexical, lang)
            .map_err(|e| SyntaxError(format!("{lang:?} is not a language tag: {e}")));
    }
    Ok(match (datatype, value) {
        (Some(dt), _) => Literal::new_typed_literal(lexical, iri(dt)?),
        (None, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            Literal::new_typed_literal(lexical, xsd::INTEGER)
        }
        (None, Value::Number(_)) => Literal::new_typed_literal(lexical, xsd::DECIMAL),
        (None, Value::Bool(_)) => Literal::new_typed_literal(lexical, xsd::BOOLEAN),
        (None, _) => Literal::new_simple_literal(lexical),
    })
}

fn term_of(
    value: Option<&Value>,
    iri_text: Option<&str>,
    datatype: Option<&str>,
    lang: Option<&str>,
) -> Result<Term, SyntaxError> {
    match (iri_text, value) {
        (Some(i), _) => Ok(iri(i)?.into()),
        (None, Some(Value::Object(o))) => {
            let get = |k: &str| o.get(k).and_then(Value::as_str);
            term_of(o.get("value"), get("iri"), get("datatype"), get("lang"))
        }
        (None, Some(v)) => Ok(literal(v, datatype, lang)?.into()),
        (None, None) => Err(SyntaxError(
            "a value condition needs `value` or `iri`".into(),
        )),
    }
}

fn condition(json: JsonValue) -> Result<ValueCondition, SyntaxError> {
    let dt = json.datatype.as_deref();
    let lang = json.lang.as_deref();
    let single = || term_of(json.value.as_ref(), json.iri.as_deref(), dt, lang);
    let compare_literal = || match single()? {
        Term::Literal(l) => Ok(l),
        _ => Err(SyntaxError(format!(
            "`{}` compares with a literal `value`, not an IRI",
            json.op
        ))),
    };
    let bound = |v: &Option<Value>, name: &str| match v {
        Some(v) => literal(v, dt, lang),
        None => Err(SyntaxError(format!("`range` needs `{name}`"))),
    };
    Ok(match json.op.as_str() {
        "eq" => ValueCondition::Eq(single()?),
        "neq" => ValueCondition::Neq(single()?),
        "lt" => ValueCondition::Compare(Comparison::Lt, compare_literal()?),
        "lte" => ValueCondition::Compare(Comparison::Lte, compare_literal()?),
        "gt" => ValueCondition::Compare(Comparison::Gt, compare_literal()?),
        "gte" => ValueCondition::Compare(Comparison::Gte, compare_literal()?),
        "range" => ValueCondition::Range(bound(&json.lo, "lo")?, bound(&json.hi, "hi")?),
        "in" => ValueCondition::In(
            json.in_
                .as_ref()
                .ok_or_else(|| SyntaxError("`in` needs a list `in`".into()))?
                .iter()
                .map(|v| term_of(Some(v), None, dt, lang))
                .collect::<Result<_, _>>()?,
        ),
        "lang" => match &json.value {
            Some(Value::String(range)) => ValueCondition::Lang(range.clone()),
            _ => {
                return Err(SyntaxError(
                    "`lang` needs a language range as `value`".into(),
                ))
            }
        },
        other => {
            return Err(SyntaxError(format!(
                "unknown value op {other:?}; use one of: eq, neq, lt, lte, gt, gte, range, in, lang"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_example_parses() {
        let query = parse_query(
            r#"{"text": "berlin", "class": [{"iri": "http://schema.org/Place"}],
                "property": [{"iri": "http://schema.org/containedInPlace",
                              "node": {"value": [{"op": "eq", "iri": "http://example.org/Germany"}]}}],
                "view": {"type": "classes", "limit": 20}}"#,
        )
        .expect("parses");
        assert_eq!(query.root.text.as_deref(), Some("berlin"));
        assert_eq!(query.root.edges.len(), 1);
        assert_eq!(
            query.view().map(|v| (v.kind, v.limit)),
            Some((ViewKind::Classes, 20))
        );
    }

    #[test]
    fn errors_name_the_culprit() {
        let bad_view = parse_query(r#"{"view": {"type": "pie"}}"#).unwrap_err();
        assert!(bad_view.0.contains("pie"), "{bad_view}");
        let bad_iri =
            parse_query(r#"{"class": [{"iri": "not an iri"}], "view": {"type": "classes"}}"#)
                .unwrap_err();
        assert!(bad_iri.0.contains("not an iri"), "{bad_iri}");
        let unknown = parse_query(r#"{"colour": 1}"#).unwrap_err();
        assert!(unknown.0.contains("colour"), "{unknown}");
    }

    #[test]
    fn graph_is_read_on_the_root_only() {
        let query =
            parse_query(r#"{"graph": "http://e/g", "view": {"type": "classes"}}"#).expect("parses");
        assert_eq!(
            query.graph.map(|g| g.into_string()).as_deref(),
            Some("http://e/g")
        );
        let nested = parse_query(
            r#"{"property": [{"iri": "http://e/p", "node": {"graph": "http://e/g"}}], "view": {"type": "classes"}}"#,
        )
        .unwrap_err();
        assert!(nested.0.contains("graph"), "{nested}");
        let flat = parse_flat(&[("graph".into(), "http://e/g".into())]).expect("parses");
        assert!(flat.graph.is_some());
        assert!(parse_flat(&[("graph".into(), "not an iri".into())]).is_err());
    }

    #[test]
    fn numbers_become_typed_literals() {
        let query = parse_query(
            r#"{"value": [{"op": "range", "lo": 1, "hi": 2.5}, {"op": "eq", "value": "x", "lang": "en"}], "view": {"type": "entities"}}"#,
        )
        .expect("parses");
        assert_eq!(
            query.root.values[0],
            ValueCondition::Range(
                Literal::new_typed_literal("1", xsd::INTEGER),
                Literal::new_typed_literal("2.5", xsd::DECIMAL)
            )
        );
        assert!(
            matches!(&query.root.values[1], ValueCondition::Eq(Term::Literal(l)) if l.language() == Some("en"))
        );
    }
}
