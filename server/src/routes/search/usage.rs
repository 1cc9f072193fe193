//! Usage statistics of one IRI for `/api/lookup?uri=` and the `/lookup` page: the store's
//! counters (exact, kept in the same batch as the quads) plus bounded scans for what no
//! counter holds — distinct subjects pointing at it, the predicates it is used with, its
//! `owl:sameAs` partners.
//! A scan cut at its bound says so (`complete: false`).

use lodestone_store::model::Term;
use lodestone_store::{Reader, StoreError, TermId, TermUsage};
use serde_json::{json, Value};
use std::collections::HashMap;

/// `owl:sameAs`.
const OWL_SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";

/// Most quads one statistics scan reads.
const SCAN_LIMIT: usize = 1_000_000;
/// Graphs, predicates and partners listed.
const TOP: usize = 10;

/// What a bounded scan found.
struct Scan {
    counts: HashMap<TermId, u64>,
    complete: bool,
}

/// Counts the values of one position over the quads of a pattern, at most [`SCAN_LIMIT`].
fn scan(
    reader: &Reader<'_>,
    pattern: [Option<TermId>; 3],
    pick: impl Fn(&lodestone_store::EncodedQuad) -> TermId,
) -> Result<Scan, StoreError> {
    let mut counts = HashMap::new();
    let mut complete = true;
    for (read, quad) in reader
        .quads_for_pattern(pattern[0], pattern[1], pattern[2], None)
        .enumerate()
    {
        if read >= SCAN_LIMIT {
            complete = false;
            break;
        }
        *counts.entry(pick(&quad?)).or_insert(0) += 1;
    }
    Ok(Scan { counts, complete })
}

/// Where a term is used in one graph.
#[derive(Debug, Clone)]
pub(crate) struct GraphUse {
    /// The graph; `None` for the default graph.
    pub graph: Option<Term>,
    /// Subject, predicate and object positions the term fills there.
    pub positions: u64,
}

/// A term with a count (a predicate and the quads using it).
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    /// The term.
    pub term: Term,
    /// How often.
    pub count: u64,
}

/// An `owl:sameAs` partner and its own usage.
#[derive(Debug, Clone)]
pub(crate) struct Partner {
    /// The partner.
    pub term: Term,
    /// Its usage counters.
    pub usage: TermUsage,
}

/// The usage statistics of one term, as `/api/lookup?uri=` and the `/lookup` page show them.
#[derive(Debug, Clone)]
pub(crate) struct UsageReport {
    /// The store's exact counters.
    pub usage: TermUsage,
    /// The graphs using the term most, at most [`TOP`].
    pub graphs: Vec<GraphUse>,
    /// Distinct subjects of quads with the term as object.
    pub distinct_subjects_pointing_at: usize,
    /// Predicates of the quads with the term as subject, most used first.
    pub predicates_as_subject: Vec<Counted>,
    /// Predicates of the quads with the term as object, most used first.
    pub predicates_as_object: Vec<Counted>,
    /// `owl:sameAs` partners in either direction, at most 100.
    pub same_as: Vec<Partner>,
    /// Instances, if the term is a class.
    pub class_instances: u64,
    /// Whether every scan read all it had to (otherwise the scanned figures are lower bounds).
    pub complete: bool,
}

fn term_of(reader: &Reader<'_>, id: TermId) -> Result<Option<Term>, StoreError> {
    if id.is_default_graph() {
        return Ok(None);
    }
    reader.term(id).map(Some)
}

fn term_json(term: Option<&Term>) -> Value {
    match term {
        None => Value::Null,
        Some(Term::NamedNode(n)) => Value::String(n.as_str().to_owned()),
        Some(other) => Value::String(other.to_string()),
    }
}

fn top_list(
    reader: &Reader<'_>,
    counts: &HashMap<TermId, u64>,
) -> Result<Vec<Counted>, StoreError> {
    let mut sorted: Vec<(&TermId, &u64)> = counts.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    sorted
        .into_iter()
        .take(TOP)
        .map(|(id, count)| {
            Ok(Counted {
                term: reader.term(*id)?,
                count: *count,
            })
        })
        .collect()
}

fn usage_json(usage: &TermUsage) -> Value {
    json!({
        "asSubject": usage.as_subject,
        "asPredicate": usage.as_predicate,
        "asObject": usage.as_object,
        "asGraph": usage.as_graph,
        "total": usage.total(),
    })
}

impl UsageReport {
    /// The statistics of a known term.
    pub(crate) fn read(reader: &Reader<'_>, id: TermId) -> Result<Self, StoreError> {
        let usage = reader.usage(id)?;
        let graphs = reader
            .term_graphs(id, TOP)?
            .into_iter()
            .map(|g| {
                Ok(GraphUse {
                    graph: term_of(reader, g.graph)?,
                    positions: g.positions,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let pointing = scan(reader, [None, None, Some(id)], |q| q.subject)?;
        let predicates_in = scan(reader, [None, None, Some(id)], |q| q.predicate)?;
        let predicates_out = scan(reader, [Some(id), None, None], |q| q.predicate)?;
        let mut partners: Vec<TermId> = Vec::new();
        if let Some(same_as) = reader
            .term_id(lodestone_store::model::NamedNodeRef::new_unchecked(OWL_SAME_AS).into())?
        {
            for quad in reader.quads_for_pattern(Some(id), Some(same_as), None, None) {
                partners.push(quad?.object);
            }
            for quad in reader.quads_for_pattern(None, Some(same_as), Some(id), None) {
                partners.push(quad?.subject);
            }
        }
        partners.sort_unstable();
        partners.dedup();
        let same_as = partners
            .iter()
            .take(100)
            .map(|p| {
                Ok(Partner {
                    term: reader.term(*p)?,
                    usage: reader.usage(*p)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Self {
            usage,
            graphs,
            distinct_subjects_pointing_at: pointing.counts.len(),
            predicates_as_subject: top_list(reader, &predicates_out.counts)?,
            predicates_as_object: top_list(reader, &predicates_in.counts)?,
            same_as,
            class_instances: reader.class_instances(id)?,
            complete: pointing.complete && predicates_out.complete,
        })
    }

    /// The JSON of `/api/lookup?uri=` (without the fields naming the term itself).
    pub(crate) fn to_json(&self) -> Value {
        let counted = |list: &[Counted]| -> Vec<Value> {
            list.iter()
                .map(|c| json!({ "predicate": term_json(Some(&c.term)), "count": c.count }))
                .collect()
        };
        json!({
            "usage": usage_json(&self.usage),
            "graphs": {
                "count": self.usage.graphs,
                "top": self.graphs.iter()
                    .map(|g| json!({ "graph": term_json(g.graph.as_ref()), "positions": g.positions }))
                    .collect::<Vec<_>>(),
            },
            "distinctSubjectsPointingAt": self.distinct_subjects_pointing_at,
            "topPredicates": {
                "asSubject": counted(&self.predicates_as_subject),
                "asObject": counted(&self.predicates_as_object),
            },
            "sameAs": self.same_as.iter()
                .map(|p| {
                    let mut entry = usage_json(&p.usage);
                    entry["uri"] = term_json(Some(&p.term));
                    entry
                })
                .collect::<Vec<_>>(),
            "classInstances": self.class_instances,
            "complete": self.complete,
        })
    }
}
