//! Gathering the description of one entity from a store reader.
//!
//! The document of an entity is one ordered list of quads: its own statements (every graph,
//! index order), then the statements of the blank nodes it reaches, recursively (its concise
//! bounded description), then the statements of others that point at it. Page `n` is the
//! `n`-th slice of `page_size` quads of that list, so every representation of a page holds
//! the same quads, and paging through all pages yields the whole description exactly once.
//! Blank nodes reached from the entity are part of its description, so their statements never
//! count as incoming links.

use crate::error::ApiError;
use crate::page_cache::{PageCache, TermFacts};
use lodestone_store::{EncodedQuad, Reader, StoreError, TermId, TermKind};
use lodestone_web::{EntityData, Labels, UsageCounts};
use oxrdf::{GraphName, NamedNode, Quad, Term, TermRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Labels read per label property of one resource (enough for every language of a
/// well-labelled concept).
const LABELS_PER_PROPERTY: usize = 400;
/// Graphs listed in the usage panel.
const GRAPHS_LISTED: usize = 20;
/// How often (in quads) a scan looks at the clock.
const CLOCK_EVERY: usize = 4096;

/// The time budget of one description.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub(super) fn after(budget: Duration) -> Self {
        Self {
            at: Instant::now() + budget,
            budget,
        }
    }

    fn check(&self, count: usize) -> Result<(), ApiError> {
        if count.is_multiple_of(CLOCK_EVERY) && Instant::now() >= self.at {
            return Err(ApiError::Timeout(self.budget));
        }
        Ok(())
    }
}

/// One page of an entity's document.
pub(super) struct DescribedPage {
    /// The entity's own statements on this page.
    pub own: Vec<Quad>,
    /// Statements of its blank nodes on this page.
    pub blank: Vec<Quad>,
    /// Incoming statements on this page.
    pub incoming: Vec<Quad>,
    /// Whether a further page exists.
    pub has_next: bool,
    /// Incoming statements per predicate over all pages (gathered for HTML only).
    pub incoming_counts: Vec<(TermId, u64)>,
    /// The IRIs of the page's quads with their ids, each once.
    pub iris: Vec<(TermId, NamedNode)>,
}

impl DescribedPage {
    /// Every quad of the page, in document order.
    pub(super) fn quads(&self) -> impl Iterator<Item = &Quad> {
        self.own.iter().chain(&self.blank).chain(&self.incoming)
    }
}

/// A store failure while answering a page (no query budget applies).
pub(super) fn store_error(error: StoreError) -> ApiError {
    ApiError::from_store(error, Duration::ZERO)
}

fn is_blank(id: TermId) -> bool {
    matches!(id.kind(), TermKind::MintedBlank | TermKind::NamedBlank)
}

/// Reads page `page` (from 1) of the document of `entity`. With `count_incoming`, the whole
/// incoming range is scanned to count links per predicate; otherwise the scan stops at the
/// end of the page.
pub(super) fn describe(
    reader: &Reader<'_>,
    entity: TermId,
    page: u64,
    page_size: usize,
    count_incoming: bool,
    deadline: Deadline,
) -> Result<DescribedPage, ApiError> {
    // The entity's statements, then its blank nodes' (breadth first, each node once).
    let mut outgoing: Vec<EncodedQuad> = Vec::new();
    let mut own_len = 0;
    let mut reached: FxHashSet<TermId> = FxHashSet::default();
    let mut queue = std::collections::VecDeque::from([entity]);
    while let Some(node) = queue.pop_front() {
        for quad in reader.quads_for_pattern(Some(node), None, None, None) {
            let quad = quad.map_err(store_error)?;
            deadline.check(outgoing.len())?;
            if is_blank(quad.object) && quad.object != entity && reached.insert(quad.object) {
                queue.push_back(quad.object);
            }
            outgoing.push(quad);
        }
        if node == entity {
            own_len = outgoing.len();
        }
    }
    let size = u64::try_from(page_size).unwrap_or(u64::MAX);
    let offset = page.saturating_sub(1).saturating_mul(size);
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let end = start.saturating_add(page_size);
    let slice = |from: usize, to: usize| -> &[EncodedQuad] {
        let to = to.min(outgoing.len());
        outgoing.get(from.min(to)..to).unwrap_or_default()
    };
    let own_ids = slice(start, end.min(own_len)).to_vec();
    let blank_ids = slice(start.max(own_len), end).to_vec();
    let taken = own_ids.len() + blank_ids.len();
    // Incoming statements: skip what earlier pages held, keep this page's, look one further.
    let mut incoming_skip = start.saturating_sub(outgoing.len());
    let mut incoming_room = page_size - taken;
    let mut incoming_ids = Vec::new();
    let mut has_next = end < outgoing.len();
    let mut counts: FxHashMap<TermId, u64> = FxHashMap::default();
    for (seen, quad) in reader
        .quads_for_pattern(None, None, Some(entity), None)
        .enumerate()
    {
        let quad = quad.map_err(store_error)?;
        deadline.check(seen + 1)?;
        if quad.subject == entity || reached.contains(&quad.subject) {
            continue;
        }
        if count_incoming {
            *counts.entry(quad.predicate).or_default() += 1;
        }
        if incoming_skip > 0 {
            incoming_skip -= 1;
        } else if incoming_room > 0 {
            incoming_room -= 1;
            incoming_ids.push(quad);
        } else {
            has_next = true;
            if !count_incoming {
                break;
            }
        }
    }
    let mut iris = Vec::new();
    let mut seen: FxHashSet<TermId> = FxHashSet::default();
    let mut decode = |ids: &[EncodedQuad]| -> Result<Vec<Quad>, ApiError> {
        let mut quads = Vec::with_capacity(ids.len());
        for encoded in ids {
            let quad = reader.decode_quad(encoded).map_err(store_error)?;
            let named = [
                (encoded.subject, quad.subject.as_ref().into()),
                (encoded.predicate, quad.predicate.as_ref().into()),
                (encoded.object, quad.object.as_ref()),
            ];
            for (id, term) in named {
                if let TermRef::NamedNode(iri) = term {
                    if seen.insert(id) {
                        iris.push((id, iri.into_owned()));
                    }
                }
            }
            quads.push(quad);
        }
        Ok(quads)
    };
    let own = decode(&own_ids)?;
    let blank = decode(&blank_ids)?;
    let incoming = decode(&incoming_ids)?;
    let mut incoming_counts: Vec<(TermId, u64)> = counts.into_iter().collect();
    incoming_counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(DescribedPage {
        own,
        blank,
        incoming,
        has_next,
        incoming_counts,
        iris,
    })
}

/// What the HTML page needs beyond the quads: labels, which IRIs have pages, usage, graphs.
/// Labels and "has a page" come from the cache when this commit's are there.
pub(super) fn page_data(
    reader: &Reader<'_>,
    entity: (TermId, NamedNode),
    mut described: DescribedPage,
    label_properties: &[String],
    cache: &PageCache,
) -> Result<EntityData, ApiError> {
    let sequence = reader.sequence().map_err(store_error)?;
    let label_ids = label_property_ids(reader, label_properties, cache)?;
    let mut iris = std::mem::take(&mut described.iris);
    if !iris.iter().any(|(id, _)| *id == entity.0) {
        iris.push(entity.clone());
    }
    let mut incoming_counts = Vec::with_capacity(described.incoming_counts.len());
    for (predicate, count) in &described.incoming_counts {
        if let Term::NamedNode(n) = reader.term(*predicate).map_err(store_error)? {
            if !iris.iter().any(|(id, _)| id == predicate) {
                iris.push((*predicate, n.clone()));
            }
            incoming_counts.push((n, *count));
        }
    }
    let mut labels = HashMap::new();
    let mut described_iris = HashSet::new();
    for (id, iri) in iris {
        let facts = match cache.facts(sequence, id) {
            Some(facts) => facts,
            None => {
                let facts = Arc::new(TermFacts {
                    labels: labels_of(reader, id, &label_ids)?,
                    described: reader.usage(id).map_err(store_error)?.as_subject > 0,
                });
                cache.set_facts(sequence, id, Arc::clone(&facts));
                facts
            }
        };
        if facts.described {
            described_iris.insert(iri.clone());
        }
        if !facts.labels.by_property.is_empty() {
            labels.insert(iri, facts.labels.clone());
        }
    }
    let usage = reader.usage(entity.0).map_err(store_error)?;
    let graphs = reader
        .term_graphs(entity.0, GRAPHS_LISTED)
        .map_err(store_error)?
        .into_iter()
        .map(|g| {
            let name = if g.graph.is_default_graph() {
                GraphName::DefaultGraph
            } else {
                match reader.term(g.graph).map_err(store_error)? {
                    Term::NamedNode(n) => n.into(),
                    Term::BlankNode(b) => b.into(),
                    Term::Literal(_) => GraphName::DefaultGraph,
                }
            };
            Ok((name, g.positions))
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(EntityData {
        subject: entity.1.into(),
        own: described.own,
        blank: described.blank,
        incoming: described.incoming,
        incoming_counts,
        incoming_counts_complete: true,
        labels,
        described: described_iris,
        usage: UsageCounts {
            as_subject: usage.as_subject,
            as_predicate: usage.as_predicate,
            as_object: usage.as_object,
            graphs: usage.graphs,
        },
        graphs,
    })
}

/// The ids of the label properties the store knows, cached per commit.
pub(super) fn label_property_ids(
    reader: &Reader<'_>,
    label_properties: &[String],
    cache: &PageCache,
) -> Result<Arc<Vec<TermId>>, ApiError> {
    let sequence = reader.sequence().map_err(store_error)?;
    if let Some(ids) = cache.label_ids(sequence) {
        return Ok(ids);
    }
    let ids: Vec<TermId> = label_properties
        .iter()
        .filter_map(|p| NamedNode::new(p.as_str()).ok())
        .map(|p| reader.term_id(p.as_ref().into()).map_err(store_error))
        .filter_map(Result::transpose)
        .collect::<Result<_, _>>()?;
    let ids = Arc::new(ids);
    cache.set_label_ids(sequence, Arc::clone(&ids));
    Ok(ids)
}

/// The literal values of each label property of one resource, in property order.
pub(super) fn labels_of(
    reader: &Reader<'_>,
    id: TermId,
    properties: &[TermId],
) -> Result<Labels, ApiError> {
    let mut labels = Labels::default();
    for property in properties {
        let mut literals = Vec::new();
        for quad in reader
            .quads_for_pattern(Some(id), Some(*property), None, None)
            .take(LABELS_PER_PROPERTY)
        {
            let quad = quad.map_err(store_error)?;
            if let Term::Literal(literal) = reader.term(quad.object).map_err(store_error)? {
                if !literals.contains(&literal) {
                    literals.push(literal);
                }
            }
        }
        if !literals.is_empty() {
            labels.by_property.push(literals);
        }
    }
    Ok(labels)
}
