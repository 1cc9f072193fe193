//! Random facet trees against the equivalent SPARQL through `/sparql`.

use crate::data::{facets, fixture, vocab, Fixture, RDF_TYPE};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// What a random tree is made of: indexes into the fixture's values, chosen by proptest.
#[derive(Debug, Clone)]
struct Spec {
    text: Option<usize>,
    classes: Vec<(usize, bool)>,
    feature: Option<(Option<usize>, bool)>,
    producer: Option<ProducerSpec>,
    numeric: Option<(u8, usize, usize)>,
    view_at: u8,
    view: u8,
}

#[derive(Debug, Clone)]
struct ProducerSpec {
    text: Option<usize>,
    country: Option<usize>,
    /// Back from the producer to its other products, which have this feature.
    others_with_feature: Option<usize>,
    exclude: bool,
}

fn spec() -> impl Strategy<Value = Spec> {
    let producer = (
        prop::option::of(any::<usize>()),
        prop::option::of(any::<usize>()),
        prop::option::of(any::<usize>()),
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(text, country, others_with_feature, exclude)| ProducerSpec {
                text,
                country,
                others_with_feature,
                exclude,
            },
        );
    (
        prop::option::weighted(0.3, any::<usize>()),
        prop::collection::vec((any::<usize>(), prop::bool::weighted(0.3)), 0..3),
        prop::option::weighted(
            0.5,
            (prop::option::of(any::<usize>()), prop::bool::weighted(0.3)),
        ),
        prop::option::weighted(0.5, producer),
        prop::option::weighted(0.3, (0u8..5, any::<usize>(), any::<usize>())),
        any::<u8>(),
        any::<u8>(),
    )
        .prop_map(
            |(text, classes, feature, producer, numeric, view_at, view)| Spec {
                text,
                classes,
                feature,
                producer,
                numeric,
                view_at,
                view,
            },
        )
}

fn pick(list: &[String], i: usize) -> String {
    list[i % list.len()].clone()
}

const VIEWS: [&str; 7] = [
    "entities",
    "classes",
    "properties",
    "properties-in",
    "values",
    "graphs",
    "ranges",
];

/// The DC date property (`xsd:date` values of products and producers).
const DC_DATE: &str = "http://purl.org/dc/elements/1.1/date";

/// The view of a spec: `values` of `property`, `ranges` of `ranged` (numeric or date values)
/// in 1 to 12 buckets.
fn view(spec: &Spec, property: &str, ranged: &str) -> Value {
    let kind = VIEWS[usize::from(spec.view) % VIEWS.len()];
    let mut v = json!({"type": kind, "limit": 10000});
    if kind == "values" {
        v["property"] = property.into();
    }
    if kind == "ranges" {
        v["property"] = ranged.into();
        v["buckets"] = (1 + usize::from(spec.view) / VIEWS.len() % 12).into();
    }
    v
}

/// The JSON query of a spec; the view goes on the root, the producer node or the products
/// reached back from it, as `view_at` says (when they exist).
fn build(f: &Fixture, spec: &Spec) -> Value {
    let mut root = json!({});
    if let Some(t) = spec.text {
        root["text"] = pick(&f.words, t).into();
    }
    let classes: Vec<Value> = spec
        .classes
        .iter()
        .map(|(c, exclude)| json!({"iri": pick(&f.product_types, *c), "exclude": exclude}))
        .collect();
    root["class"] = classes.into();
    let mut properties = Vec::new();
    if let Some((feature, exclude)) = &spec.feature {
        let mut edge = json!({"iri": vocab("productFeature"), "exclude": exclude});
        if let Some(i) = feature {
            edge["node"] = json!({"value": [{"op": "eq", "iri": pick(&f.features, *i)}]});
        }
        properties.push(edge);
    }
    if let Some((op, a, b)) = spec.numeric {
        let n = |i: usize| f.numbers[i % f.numbers.len()];
        let condition = match op {
            0 => json!({"op": "gt", "value": n(a)}),
            1 => json!({"op": "lte", "value": n(a)}),
            2 => json!({"op": "range", "lo": n(a).min(n(b)), "hi": n(a).max(n(b))}),
            3 => json!({"op": "neq", "value": n(a)}),
            _ => json!({"op": "in", "in": [n(a), n(b)]}),
        };
        properties
            .push(json!({"iri": vocab("productPropertyNumeric1"), "node": {"value": [condition]}}));
    }
    let view_at = usize::from(spec.view_at) % 3;
    let mut view_placed = false;
    if let Some(p) = &spec.producer {
        let mut producer = json!({});
        if let Some(t) = p.text {
            producer["text"] = pick(&f.words, t).into();
        }
        if let Some(c) = p.country {
            producer["property"] = json!([{"iri": vocab("country"), "node": {"value": [{"op": "eq", "iri": pick(&f.countries, c)}]}}]);
        }
        if let Some(feature) = p.others_with_feature {
            let mut others = json!({"property": [{"iri": vocab("productFeature"), "node": {"value": [{"op": "eq", "iri": pick(&f.features, feature)}]}}]});
            if view_at == 2 && !p.exclude {
                others["view"] = view(spec, RDF_TYPE, &vocab("productPropertyNumeric2"));
                view_placed = true;
            }
            producer["property-of"] = json!([{"iri": vocab("producer"), "node": others}]);
        }
        if view_at == 1 && !p.exclude {
            producer["view"] = view(spec, &vocab("country"), DC_DATE);
            view_placed = true;
        }
        properties.push(json!({"iri": vocab("producer"), "exclude": p.exclude, "node": producer}));
    }
    root["property"] = properties.into();
    if !view_placed {
        let ranged = if spec.view_at.is_multiple_of(2) {
            vocab("productPropertyNumeric1")
        } else {
            DC_DATE.to_owned()
        };
        root["view"] = view(spec, &vocab("productFeature"), &ranged);
    }
    root
}

/// A term as (type, value, datatype, lang) from either a facet row or a SPARQL binding.
fn term_key(term: &Value) -> (String, String, String, String) {
    let text = |k: &str| term[k].as_str().unwrap_or("").to_owned();
    let kind = match text("type").as_str() {
        "typed-literal" => "literal".to_owned(),
        other => other.to_owned(),
    };
    let datatype = match text("datatype").as_str() {
        "http://www.w3.org/2001/XMLSchema#string" => String::new(),
        other => other.to_owned(),
    };
    (kind, text("value"), datatype, text("xml:lang"))
}

type Key = (String, String, String, String);

fn sparql_rows(f: &Fixture, sparql: &str, key: &str) -> BTreeMap<Key, Option<u64>> {
    let response = f.server.query(sparql, "application/sparql-results+json");
    assert_eq!(response.status(), 200, "{sparql}");
    let body: Value = response.json().expect("json");
    body["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| {
            let count = b["count"]["value"].as_str().and_then(|c| c.parse().ok());
            (term_key(&b[key]), count)
        })
        .collect()
}

fn check(f: &Fixture, query: &Value) -> Result<bool, TestCaseError> {
    let answer = facets(&f.server, query);
    let complete = answer["complete"].as_bool().unwrap_or(false);
    let rows = answer["rows"].as_array().cloned().unwrap_or_default();
    let total = answer["total"].as_u64().unwrap_or(0);
    prop_assert!(rows.len() as u64 <= total);
    for row in &rows {
        if let Some(exact) = row.get("exact") {
            prop_assert_eq!(
                exact.as_bool(),
                Some(complete),
                "exact flags follow completeness"
            );
        }
    }
    if !complete {
        return Ok(false);
    }
    prop_assert_eq!(
        rows.len() as u64,
        total,
        "a complete page under the limit holds every row"
    );
    let sparql = answer["sparql"].as_str().unwrap_or("");
    let kind = answer["view"].as_str().unwrap_or("");
    let key = match kind {
        "entities" => "e0",
        "classes" => "class",
        "properties" | "properties-in" => "property",
        "values" => "value",
        "ranges" => "lower",
        _ => "graph",
    };
    let ours: BTreeMap<Key, Option<u64>> = rows
        .iter()
        .map(|r| (term_key(&r["value"]), r["count"].as_u64()))
        .collect();
    let mut theirs = sparql_rows(
        f,
        sparql,
        if kind == "entities" {
            focus_var(sparql)
        } else {
            key
        },
    );
    if kind == "entities" {
        theirs.values_mut().for_each(|c| *c = None);
    }
    prop_assert_eq!(ours, theirs, "query {} sparql {}", query, sparql);
    Ok(true)
}

/// The projected variable of `SELECT DISTINCT ?eN`.
fn focus_var(sparql: &str) -> &str {
    sparql
        .split_whitespace()
        .find_map(|w| w.strip_prefix('?'))
        .unwrap_or("e0")
}

#[test]
/// 256 random trees (`FACET_CASES=n` for more or fewer).
fn random_facet_trees_agree_with_sparql() {
    let f = fixture();
    let mut runner = TestRunner::new(Config {
        cases: std::env::var("FACET_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        ..Config::default()
    });
    let complete = std::cell::Cell::new(0u32);
    runner
        .run(&spec(), |spec| {
            let query = build(f, &spec);
            if check(f, &query)? {
                complete.set(complete.get() + 1);
            }
            Ok(())
        })
        .expect("every complete answer agrees with SPARQL");
    // The comparison means something only if most answers were complete.
    assert!(
        complete.get() >= 240,
        "only {} complete answers",
        complete.get()
    );
}
