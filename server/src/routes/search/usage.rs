//! Usage statistics of one IRI for `/api/lookup?uri=`: the store's counters (exact, kept in
//! the same batch as the quads) plus bounded scans for what no counter holds — distinct
//! subjects pointing at it, the predicates it is used with, its `owl:sameAs` partners.
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

fn term_json(reader: &Reader<'_>, id: TermId) -> Result<Value, StoreError> {
    if id.is_default_graph() {
        return Ok(Value::Null);
    }
    Ok(match reader.term(id)? {
        Term::NamedNode(n) => Value::String(n.into_string()),
        other => Value::String(other.to_string()),
    })
}

fn top_list(
    reader: &Reader<'_>,
    counts: &HashMap<TermId, u64>,
    key: &str,
) -> Result<Vec<Value>, StoreError> {
    let mut sorted: Vec<(&TermId, &u64)> = counts.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    sorted
        .into_iter()
        .take(TOP)
        .map(|(id, count)| Ok(json!({ key: term_json(reader, *id)?, "count": count })))
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

/// The statistics of a known term.
pub fn statistics(reader: &Reader<'_>, id: TermId) -> Result<Value, StoreError> {
    let usage = reader.usage(id)?;
    let graphs = reader
        .term_graphs(id, TOP)?
        .into_iter()
        .map(|g| Ok(json!({ "graph": term_json(reader, g.graph)?, "positions": g.positions })))
        .collect::<Result<Vec<_>, StoreError>>()?;
    let pointing = scan(reader, [None, None, Some(id)], |q| q.subject)?;
    let predicates_in = scan(reader, [None, None, Some(id)], |q| q.predicate)?;
    let predicates_out = scan(reader, [Some(id), None, None], |q| q.predicate)?;
    let mut partners: Vec<TermId> = Vec::new();
    if let Some(same_as) =
        reader.term_id(lodestone_store::model::NamedNodeRef::new_unchecked(OWL_SAME_AS).into())?
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
            let mut entry = usage_json(&reader.usage(*p)?);
            entry["uri"] = term_json(reader, *p)?;
            Ok(entry)
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    Ok(json!({
        "usage": usage_json(&usage),
        "graphs": { "count": usage.graphs, "top": graphs },
        "distinctSubjectsPointingAt": pointing.counts.len(),
        "topPredicates": {
            "asSubject": top_list(reader, &predicates_out.counts, "predicate")?,
            "asObject": top_list(reader, &predicates_in.counts, "predicate")?,
        },
        "sameAs": same_as,
        "classInstances": reader.class_instances(id)?,
        "complete": pointing.complete && predicates_out.complete,
    }))
}
