//! The entity page: everything the store says about one resource, as HTML with RDFa.
//!
//! The page states, in RDFa, exactly the quads of its [`EntityData`] (as triples), which are
//! exactly the quads of the RDF documents of the same page number, so a machine reading the
//! HTML learns what a machine reading the Turtle learns. Values beyond the first
//! [`VISIBLE_VALUES`] of a property sit in a `<details>` element: hidden until asked for, but
//! present, so nothing is stated in Turtle and missing from the HTML.

use crate::labels::{Labels, LanguageChain};
use crate::links::{self, Linker};
use crate::pages::layout::Layout;
use crate::values::{blank_anchor, is_type, Render, ValueView};
use crate::WebError;
use askama::Template;
use lodestone_vocab::Prefixes;
use oxrdf::vocab::rdf;
use oxrdf::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::collections::{HashMap, HashSet};

/// Values of one property shown before the rest are folded away.
pub const VISIBLE_VALUES: usize = 25;

const SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";
const IMAGE_PROPERTIES: [&str; 4] = [
    "http://xmlns.com/foaf/0.1/depiction",
    "http://schema.org/image",
    "http://xmlns.com/foaf/0.1/thumbnail",
    "http://www.wikidata.org/prop/direct/P18",
];
const DESCRIPTION_PROPERTIES: [&str; 6] = [
    "http://dbpedia.org/ontology/abstract",
    "http://www.w3.org/2004/02/skos/core#definition",
    "http://schema.org/description",
    "http://purl.org/dc/terms/description",
    "http://purl.org/dc/elements/1.1/description",
    "http://www.w3.org/2000/01/rdf-schema#comment",
];
const LATITUDES: [&str; 2] = [
    "http://www.w3.org/2003/01/geo/wgs84_pos#lat",
    "http://schema.org/latitude",
];
const LONGITUDES: [&str; 2] = [
    "http://www.w3.org/2003/01/geo/wgs84_pos#long",
    "http://schema.org/longitude",
];

/// Usage counters of the entity's IRI across the store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageCounts {
    /// Quads with it as subject.
    pub as_subject: u64,
    /// Quads with it as predicate.
    pub as_predicate: u64,
    /// Quads with it as object.
    pub as_object: u64,
    /// Graphs it appears in.
    pub graphs: u64,
}

/// Where this page sits among the pages of a large description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pagination {
    /// This page's number, from 1.
    pub page: u64,
    /// Link to the previous page.
    pub previous: Option<String>,
    /// Link to the next page.
    pub next: Option<String>,
}

/// What the server gathered about one entity for one page.
#[derive(Debug, Clone)]
pub struct EntityData {
    /// The entity.
    pub subject: NamedOrBlankNode,
    /// Its own statements on this page (every graph).
    pub own: Vec<Quad>,
    /// Statements of the blank nodes it reaches (its concise bounded description).
    pub blank: Vec<Quad>,
    /// Statements of others about it, on this page.
    pub incoming: Vec<Quad>,
    /// Incoming statements per predicate over all pages.
    pub incoming_counts: Vec<(NamedNode, u64)>,
    /// Whether `incoming_counts` covers every incoming statement (false if counting ran out
    /// of time).
    pub incoming_counts_complete: bool,
    /// Labels of the IRIs on the page (the entity's included).
    pub labels: HashMap<NamedNode, Labels>,
    /// IRIs on the page that the store describes (they link to local pages).
    pub described: HashSet<NamedNode>,
    /// Usage of the entity's IRI.
    pub usage: UsageCounts,
    /// Graphs the entity appears in, with how many positions it fills there.
    pub graphs: Vec<(GraphName, u64)>,
}

/// A property and its values.
#[derive(Debug, Clone)]
pub struct PropertyGroup {
    /// Text shown for the property.
    pub label: String,
    /// The property IRI.
    pub iri: String,
    /// Link to the property's page or IRI.
    pub href: String,
    /// Values shown at once.
    pub values: Vec<ValueView>,
    /// Values folded into "show all".
    pub more: Vec<ValueView>,
    /// Total over all pages (incoming groups), when known.
    pub total: Option<u64>,
}

/// A blank node reached from the entity, with its statements.
#[derive(Debug, Clone)]
pub struct BlankBlock {
    /// Element id (link target).
    pub anchor: String,
    /// Shown name (`_:id`).
    pub name: String,
    /// Its properties.
    pub groups: Vec<PropertyGroup>,
}

/// A link shown in a side panel.
#[derive(Debug, Clone)]
pub struct PanelLink {
    /// Text.
    pub text: String,
    /// Target.
    pub href: String,
    /// Full IRI (hover).
    pub title: String,
}

/// The entity page template.
#[derive(Template)]
#[template(path = "pages/entity.html")]
pub struct EntityPage {
    /// Shared layout.
    pub layout: Layout,
    /// The entity's IRI (or blank node name) as shown.
    pub iri: String,
    /// Heading: the best label, or the IRI.
    pub heading: String,
    /// Classes (`rdf:type`).
    pub classes: Vec<PanelLink>,
    /// Best description or abstract.
    pub description: Option<String>,
    /// Image URLs (`http` and `https` only).
    pub images: Vec<String>,
    /// OpenStreetMap link for the coordinates, with the coordinates as text.
    pub map: Option<(String, String)>,
    /// The entity's properties.
    pub groups: Vec<PropertyGroup>,
    /// Blank nodes it reaches.
    pub blanks: Vec<BlankBlock>,
    /// Incoming links by predicate.
    pub incoming: Vec<PropertyGroup>,
    /// Whether the incoming counts are exact.
    pub incoming_complete: bool,
    /// owl:sameAs links, both ways.
    pub same_as: Vec<PanelLink>,
    /// Graphs with counts.
    pub graphs: Vec<(String, u64)>,
    /// Usage counters.
    pub usage: UsageCounts,
    /// Paging.
    pub pagination: Pagination,
    /// Alternate formats (also in the layout's head).
    pub alternates: Vec<crate::pages::layout::Alternate>,
    /// Hash IRIs of which this IRI is the document (`{iri}#…`), listed with anchors.
    pub hash_resources: Vec<crate::pages::hash_document::HashEntry>,
}

impl EntityPage {
    /// Builds the page of `data` for a reader with `chain`'s languages, linking with `linker`
    /// and writing IRIs without a label with `prefixes` (the server's prefix table).
    pub fn build(
        data: &EntityData,
        layout: Layout,
        linker: &Linker,
        prefixes: &Prefixes,
        chain: &LanguageChain,
        pagination: Pagination,
    ) -> Self {
        let render = Render {
            labels: &data.labels,
            described: &data.described,
            linker,
            prefixes,
            chain,
        };
        let iri = match &data.subject {
            NamedOrBlankNode::NamedNode(n) => n.as_str().to_owned(),
            NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
        };
        let heading = match &data.subject {
            NamedOrBlankNode::NamedNode(n) => data
                .labels
                .get(n)
                .and_then(|l| l.best(chain))
                .map_or_else(|| iri.clone(), |l| l.value().to_owned()),
            NamedOrBlankNode::BlankNode(_) => iri.clone(),
        };
        let objects = |properties: &[&str]| -> Vec<&Term> {
            properties
                .iter()
                .flat_map(|p| {
                    data.own
                        .iter()
                        .filter(move |q| q.predicate.as_str() == *p)
                        .map(|q| &q.object)
                })
                .collect()
        };
        let classes = data
            .own
            .iter()
            .filter(|q| is_type(q.predicate.as_ref()))
            .filter_map(|q| match &q.object {
                Term::NamedNode(class) => Some(panel_link(&render, class)),
                _ => None,
            })
            .collect();
        let literals: Vec<&Literal> = objects(&DESCRIPTION_PROPERTIES)
            .into_iter()
            .filter_map(|t| match t {
                Term::Literal(l) => Some(l),
                _ => None,
            })
            .collect();
        let description = chain.pick(literals).map(|l| l.value().to_owned());
        let images = objects(&IMAGE_PROPERTIES)
            .into_iter()
            .filter_map(|t| match t {
                Term::NamedNode(n) if links::is_image_source(n.as_str()) => {
                    Some(links::encode_path(n.as_str()))
                }
                _ => None,
            })
            .take(4)
            .collect();
        let map = coordinate(&objects(&LATITUDES), -90.0..=90.0)
            .zip(coordinate(&objects(&LONGITUDES), -180.0..=180.0))
            .map(|(lat, lon)| {
                (
                    format!(
                        "https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map=10/{lat}/{lon}"
                    ),
                    format!("{lat}, {lon}"),
                )
            });
        let mut same_as: Vec<PanelLink> = data
            .own
            .iter()
            .filter(|q| q.predicate.as_str() == SAME_AS)
            .filter_map(|q| match &q.object {
                Term::NamedNode(n) => Some(panel_link(&render, n)),
                _ => None,
            })
            .collect();
        same_as.extend(
            data.incoming
                .iter()
                .filter(|q| q.predicate.as_str() == SAME_AS)
                .filter_map(|q| match &q.subject {
                    NamedOrBlankNode::NamedNode(n) => Some(panel_link(&render, n)),
                    NamedOrBlankNode::BlankNode(_) => None,
                }),
        );
        let groups = group(&render, data.own.iter(), Side::Outgoing, |_| None);
        let blanks = blank_blocks(&render, &data.blank);
        let totals: HashMap<&NamedNode, u64> =
            data.incoming_counts.iter().map(|(p, n)| (p, *n)).collect();
        let mut incoming = group(&render, data.incoming.iter(), Side::Incoming, |p| {
            totals.get(p).copied()
        });
        for (predicate, count) in &data.incoming_counts {
            if !incoming.iter().any(|g| g.iri == predicate.as_str()) {
                incoming.push(PropertyGroup {
                    label: render.iri_text(predicate.as_ref()),
                    iri: predicate.as_str().to_owned(),
                    href: render.iri_href(predicate.as_ref()),
                    values: Vec::new(),
                    more: Vec::new(),
                    total: Some(*count),
                });
            }
        }
        let graphs = data
            .graphs
            .iter()
            .map(|(g, n)| (graph_text(g), *n))
            .collect();
        let alternates = layout.alternates.clone();
        Self {
            layout,
            iri,
            heading,
            classes,
            description,
            images,
            map,
            groups,
            blanks,
            incoming,
            incoming_complete: data.incoming_counts_complete,
            same_as,
            graphs,
            usage: data.usage,
            pagination,
            alternates,
            hash_resources: Vec::new(),
        }
    }

    /// The HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}

fn panel_link(render: &Render<'_>, iri: &NamedNode) -> PanelLink {
    PanelLink {
        text: render.iri_text(iri.as_ref()),
        href: render.iri_href(iri.as_ref()),
        title: iri.as_str().to_owned(),
    }
}

/// A coordinate from the first literal that parses as a number within `range`.
fn coordinate(terms: &[&Term], range: std::ops::RangeInclusive<f64>) -> Option<f64> {
    terms.iter().find_map(|t| match t {
        Term::Literal(l) => l
            .value()
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| range.contains(v)),
        _ => None,
    })
}

fn graph_text(graph: &GraphName) -> String {
    match graph {
        GraphName::DefaultGraph => String::new(),
        GraphName::NamedNode(n) => n.as_str().to_owned(),
        GraphName::BlankNode(b) => format!("_:{}", b.as_str()),
    }
}

/// Which end of its statements a group shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The objects (the entity's own statements).
    Outgoing,
    /// The subjects (statements pointing at the entity).
    Incoming,
}

/// Groups quads by predicate: `rdf:type` first, then by the predicate's shown label.
fn group<'q>(
    render: &Render<'_>,
    quads: impl Iterator<Item = &'q Quad>,
    side: Side,
    total: impl Fn(&NamedNode) -> Option<u64>,
) -> Vec<PropertyGroup> {
    let mut order: Vec<&NamedNode> = Vec::new();
    let mut values: HashMap<&NamedNode, Vec<ValueView>> = HashMap::new();
    for quad in quads {
        let build = match side {
            Side::Outgoing => Render::value,
            Side::Incoming => Render::incoming_value,
        };
        let view = build(
            render,
            quad.subject.as_ref(),
            quad.predicate.as_ref(),
            quad.object.as_ref(),
            graph_text(&quad.graph_name),
        );
        values
            .entry(&quad.predicate)
            .or_insert_with(|| {
                order.push(&quad.predicate);
                Vec::new()
            })
            .push(view);
    }
    let mut groups: Vec<PropertyGroup> = order
        .into_iter()
        .map(|predicate| {
            let mut shown = values.remove(predicate).unwrap_or_default();
            let more = if shown.len() > VISIBLE_VALUES {
                shown.split_off(VISIBLE_VALUES)
            } else {
                Vec::new()
            };
            PropertyGroup {
                label: render.iri_text(predicate.as_ref()),
                iri: predicate.as_str().to_owned(),
                href: render.iri_href(predicate.as_ref()),
                values: shown,
                more,
                total: total(predicate),
            }
        })
        .collect();
    groups.sort_by(|a, b| {
        let a_type = a.iri == rdf::TYPE.as_str();
        let b_type = b.iri == rdf::TYPE.as_str();
        b_type
            .cmp(&a_type)
            .then_with(|| a.label.to_lowercase().cmp(&b.label.to_lowercase()))
            .then_with(|| a.iri.cmp(&b.iri))
    });
    groups
}

fn blank_blocks(render: &Render<'_>, quads: &[Quad]) -> Vec<BlankBlock> {
    let mut order: Vec<&NamedOrBlankNode> = Vec::new();
    for quad in quads {
        if !order.contains(&&quad.subject) {
            order.push(&quad.subject);
        }
    }
    order
        .into_iter()
        .filter_map(|subject| match subject {
            NamedOrBlankNode::BlankNode(node) => Some(BlankBlock {
                anchor: blank_anchor(node.as_ref()),
                name: format!("_:{}", node.as_str()),
                groups: group(
                    render,
                    quads.iter().filter(|q| &q.subject == subject),
                    Side::Outgoing,
                    |_| None,
                ),
            }),
            NamedOrBlankNode::NamedNode(_) => None,
        })
        .collect()
}
