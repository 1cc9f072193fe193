//! Gathering the description of one entity from a store reader.
//!
//! The document of an entity is one ordered list of quads: its own statements (every graph,
//! index order), then the statements of the blank nodes it reaches, recursively (its concise
//! bounded description), then the statements of others that point at it. [`walk`] visits that
//! list without holding it (a complete document is streamed from it); page `n` is the `n`-th
//! slice of `page_size` quads of it ([`describe`]), so every representation of a page holds
//! the same quads, and paging through all pages yields the whole description exactly once.
//! Blank nodes reached from the entity are part of its description, so their statements never
//! count as incoming links.

use crate::error::ApiError;
use crate::page_cache::{PageCache, TermFacts};
use lodestone_store::{EncodedQuad, Reader, StoreError, TermId, TermKind};
use lodestone_vocab::labels::{fallback_rank, LABEL_LOCAL_NAMES};
use lodestone_web::{EntityData, Labels, UsageCounts};
use oxrdf::{GraphName, NamedNode, Quad, Term, TermRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Labels read per label property of one resource (enough for every language of a
/// well-labelled concept).
const LABELS_PER_PROPERTY: usize = 400;
/// Most IRIs read per fallback label name (`name`, `label`, …) from the IRI index.
const FALLBACK_SCAN: usize = 1_000;
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

    /// The budget the deadline was set from.
    pub(super) fn budget(&self) -> Duration {
        self.budget
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
    /// The statements of the whole document, when the walk went to its end.
    pub total: Option<u64>,
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

    /// Whether the page holds no statement (a page past the end of its document).
    pub(super) fn is_empty(&self) -> bool {
        self.quads().next().is_none()
    }
}

/// A store failure while answering a page (no query budget applies).
pub(super) fn store_error(error: StoreError) -> ApiError {
    ApiError::from_store(error, Duration::ZERO)
}

fn is_blank(id: TermId) -> bool {
    matches!(id.kind(), TermKind::MintedBlank | TermKind::NamedBlank)
}

/// Where a statement of a document comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// The resource is its subject.
    Own,
    /// A blank node the resource reaches is its subject.
    Blank,
    /// Another subject points at the resource.
    Incoming,
}

/// Visits the statements of the document of `resources` in document order: for each resource,
/// its own statements (every graph, index order), those of the blank nodes it reaches
/// (breadth first, each node once), then those of others that point at it. A document of
/// several resources (a hash document) holds each statement once: the first time the walk
/// meets it. `visit` returns `false` to stop the walk.
///
/// Nothing but the blank nodes reached (and, for several resources, the statements seen) is
/// kept, so a description of any size is walked in bounded memory.
pub(super) fn walk(
    reader: &Reader<'_>,
    resources: &[TermId],
    deadline: Deadline,
    mut visit: impl FnMut(Part, &EncodedQuad) -> Result<bool, ApiError>,
) -> Result<(), ApiError> {
    let several = resources.len() > 1;
    let mut seen: FxHashSet<EncodedQuad> = FxHashSet::default();
    let mut scanned = 0;
    for &entity in resources {
        let mut reached: FxHashSet<TermId> = FxHashSet::default();
        let mut queue = VecDeque::from([entity]);
        while let Some(node) = queue.pop_front() {
            let part = if node == entity {
                Part::Own
            } else {
                Part::Blank
            };
            for quad in reader.quads_for_pattern(Some(node), None, None, None) {
                let quad = quad.map_err(store_error)?;
                scanned += 1;
                deadline.check(scanned)?;
                if is_blank(quad.object) && quad.object != entity && reached.insert(quad.object) {
                    queue.push_back(quad.object);
                }
                if (!several || seen.insert(quad)) && !visit(part, &quad)? {
                    return Ok(());
                }
            }
        }
        // Blank nodes reached from the resource are part of its description, so their
        // statements are never incoming links.
        for quad in reader.quads_for_pattern(None, None, Some(entity), None) {
            let quad = quad.map_err(store_error)?;
            scanned += 1;
            deadline.check(scanned)?;
            if quad.subject == entity || reached.contains(&quad.subject) {
                continue;
            }
            if (!several || seen.insert(quad)) && !visit(Part::Incoming, &quad)? {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// What a [`describe`] walk gathers besides the page.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Gather {
    /// Count incoming statements per predicate over the whole document (the HTML page).
    pub incoming_counts: bool,
    /// Count the statements of the whole document (a paged RDF document states its total).
    pub total: bool,
}

/// Reads page `page` (from 1) of the document of `resources` (see [`walk`]). Without
/// anything to [`Gather`], the walk stops one statement past the end of the page.
pub(super) fn describe(
    reader: &Reader<'_>,
    resources: &[TermId],
    page: u64,
    page_size: usize,
    gather: Gather,
    deadline: Deadline,
) -> Result<DescribedPage, ApiError> {
    let size = u64::try_from(page_size).unwrap_or(u64::MAX);
    let start = page.saturating_sub(1).saturating_mul(size);
    let end = start.saturating_add(size);
    let walk_all = gather.incoming_counts || gather.total;
    let (mut own_ids, mut blank_ids, mut incoming_ids) = (Vec::new(), Vec::new(), Vec::new());
    let mut counts: FxHashMap<TermId, u64> = FxHashMap::default();
    let mut index: u64 = 0;
    walk(reader, resources, deadline, |part, quad| {
        if gather.incoming_counts && part == Part::Incoming {
            *counts.entry(quad.predicate).or_default() += 1;
        }
        if (start..end).contains(&index) {
            match part {
                Part::Own => own_ids.push(*quad),
                Part::Blank => blank_ids.push(*quad),
                Part::Incoming => incoming_ids.push(*quad),
            }
        }
        index += 1;
        Ok(index <= end || walk_all)
    })?;
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
        has_next: index > end,
        total: walk_all.then_some(index),
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
    let mut ids: Vec<TermId> = label_properties
        .iter()
        .filter_map(|p| NamedNode::new(p.as_str()).ok())
        .map(|p| reader.term_id(p.as_ref().into()).map_err(store_error))
        .filter_map(Result::transpose)
        .collect::<Result<_, _>>()?;
    // The label rule's fallback (lodestone_vocab::labels): after the configured properties,
    // the predicates of the store named `name`, `label`, `title` or `prefLabel` in any
    // namespace, each found by one bounded scan of the IRI index.
    for (rank, local) in LABEL_LOCAL_NAMES.iter().enumerate() {
        let named: Vec<TermId> = reader
            .iris_with_local_name_starting(local, FALLBACK_SCAN)
            .map_err(store_error)?
            .into_iter()
            .filter(|(id, iri)| fallback_rank(iri.as_str()) == Some(rank) && !ids.contains(id))
            .map(|(id, _)| id)
            .collect();
        let usages = reader.usages(&named).map_err(store_error)?;
        ids.extend(
            named
                .into_iter()
                .zip(usages)
                .filter(|(_, usage)| usage.as_predicate > 0)
                .map(|(id, _)| id),
        );
    }
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
