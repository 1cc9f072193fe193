//! A facet answer, independent of the syntax it is written in.

use crate::model::ViewKind;
use crate::ranges::Bucket;
use oxrdf::Term;
use serde_json::{json, Value};

/// One row of a view.
#[derive(Debug, Clone)]
pub struct Row {
    /// The key: an entity, class, property, value or graph.
    pub value: Term,
    /// Its display label.
    pub label: String,
    /// The number of distinct focus terms with this key (counting views).
    pub count: Option<u64>,
    /// The ranking score (entities view).
    pub score: Option<f64>,
    /// The bucket's bounds (`ranges` view; `value` is then its lower bound).
    pub bucket: Option<Bucket>,
    /// The scores behind an entity row (entities view), and its text match when the focus
    /// node has text.
    pub text: Option<TextMatch>,
}

/// Why an entity matched the text (the Facets Web Service's `text` and `text-d` rows).
#[derive(Debug, Clone)]
pub struct TextMatch {
    /// The text score the matcher gave.
    pub text_score: f64,
    /// The entity's rank from its incoming links: `ln(1 + in-degree)`.
    pub entity_rank: f64,
    /// The graph of the first literal found to contain every word (none found: `None`).
    pub graph: Option<Term>,
    /// That literal with the words marked `<b>…</b>` (shortened around the first one).
    pub excerpt: String,
}

/// A whole answer.
#[derive(Debug, Clone)]
pub struct FacetAnswer {
    /// The view shown.
    pub view: ViewKind,
    /// Whether the focus set and the view were computed in full within the budget: then
    /// every count and the total are exact; otherwise they are lower bounds.
    pub complete: bool,
    /// Milliseconds taken.
    pub time_ms: u64,
    /// Number of keys (entities for the entities view) in all.
    pub total: u64,
    /// The time budget in milliseconds.
    pub timeout_ms: u64,
    /// The equivalent SPARQL query.
    pub sparql: String,
    /// The page of rows.
    pub rows: Vec<Row>,
    /// The number of focus terms the view was computed over.
    pub focus_size: u64,
    /// When the counts are sampled estimates (a large focus set whose walk could not finish
    /// in the budget): the number of focus terms sampled. The answer is then not complete.
    pub sample: Option<u64>,
}

/// A term in the SPARQL 1.1 JSON results shape.
pub fn term_json(term: &Term) -> Value {
    match term {
        Term::NamedNode(n) => json!({"type": "uri", "value": n.as_str()}),
        Term::BlankNode(b) => json!({"type": "bnode", "value": b.as_str()}),
        Term::Literal(l) => {
            let mut v = json!({"type": "literal", "value": l.value()});
            if let Some(lang) = l.language() {
                v["xml:lang"] = lang.into();
            } else if l.datatype() != oxrdf::vocab::xsd::STRING {
                v["datatype"] = l.datatype().as_str().into();
            }
            v
        }
        // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
        #[allow(unreachable_patterns)]
        _ => json!({"type": "unknown", "value": term.to_string()}),
    }
}

impl FacetAnswer {
    /// The JSON body of `/api/facets` (the contract in docs/api.md).
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|row| {
                let mut v = json!({"value": term_json(&row.value), "label": row.label});
                if let Some(count) = row.count {
                    v["count"] = count.into();
                    v["exact"] = self.complete.into();
                    if self.sample.is_some() {
                        v["estimate"] = true.into();
                    }
                }
                if let Some(score) = row.score {
                    v["score"] = score.into();
                }
                if let Some(bucket) = &row.bucket {
                    v["lower"] = term_json(&bucket.lower.clone().into());
                    v["upper"] = term_json(&bucket.upper.clone().into());
                    v["upper_inclusive"] = bucket.closed.into();
                }
                v
            })
            .collect();
        let mut answer = json!({
            "view": self.view.name(),
            "complete": self.complete,
            "time_ms": self.time_ms,
            "timeout_ms": self.timeout_ms,
            "total": self.total,
            "total_exact": self.complete,
            "sparql": self.sparql,
            "rows": rows,
        });
        if let Some(sample) = self.sample {
            answer["estimate"] = true.into();
            answer["sample_size"] = sample.into();
        }
        answer
    }
}
