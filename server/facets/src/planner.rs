//! Turns a [`FacetQuery`] into a plan over internal ids, rooted at the focus.
//!
//! The view may sit on any node; the engine always computes "the focus node's terms", so the
//! tree is re-hung from the focus: every edge on the path from the root to the focus is
//! followed backwards (a `property` edge becomes a `property-of` edge and vice versa), and the
//! original root keeps its rule that its terms are subjects. Terms are resolved to ids once;
//! a term the store does not know resolves to `None` and matches nothing.

use crate::model::{text_words, Comparison, Direction, FacetQuery, Node, ValueCondition};
use lodestone_store::{Reader, StoreError, TermId};
use oxrdf::vocab::rdf;
use oxrdf::{Literal, NamedNode, Term};

/// One node of the plan.
#[derive(Debug)]
pub struct PlanNode {
    /// A number unique within the plan (memo key).
    pub key: usize,
    /// Whether the node's terms must be subjects of some triple (the original root).
    pub subject_domain: bool,
    /// Full-text query, when it has words.
    pub text: Option<String>,
    /// Class constraints: the class id (`None`: unknown to the store) and whether excluded.
    pub classes: Vec<(Option<TermId>, bool)>,
    /// Conditions on the node's term.
    pub values: Vec<Condition>,
    /// Edges to other nodes.
    pub edges: Vec<PlanEdge>,
}

/// A value condition with its terms resolved.
#[derive(Debug)]
pub enum Condition {
    /// The term is this id (`None`: a term absent from the store, so nothing matches).
    Eq(Option<TermId>),
    /// The term is not this id.
    Neq(Option<TermId>),
    /// The term is one of these ids (unknown terms dropped).
    In(Vec<TermId>),
    /// An order comparison with a literal.
    Compare(Comparison, Literal),
    /// An inclusive range.
    Range(Literal, Literal),
    /// `langMatches(lang(term), range)`.
    Lang(String),
    /// The term is none of these ids (unknown terms dropped).
    NotIn(Vec<TermId>),
    /// The term is a literal containing every word (lowercase).
    Contains(Vec<String>),
    /// The term is not such a literal.
    NotContains(Vec<String>),
}

/// An edge of the plan.
#[derive(Debug)]
pub struct PlanEdge {
    /// The property (`None`: unknown to the store).
    pub property: Option<TermId>,
    /// Whether the node's term is the subject (`node property other`).
    pub outgoing: bool,
    /// Whether the neighbour must not exist.
    pub exclude: bool,
    /// The node at the other end.
    pub node: PlanNode,
}

impl PlanNode {
    /// Whether anything narrows the node (an unconstrained child only asks for an edge).
    pub fn is_constrained(&self) -> bool {
        self.subject_domain
            || self.text.is_some()
            || !self.classes.is_empty()
            || !self.values.is_empty()
            || !self.edges.is_empty()
    }
}

/// The resolved plan and the ids the engine needs.
#[derive(Debug)]
pub struct Plan {
    /// The focus node, root of the re-hung tree.
    pub focus: PlanNode,
    /// The id of `rdf:type`, when the store knows it.
    pub rdf_type: Option<TermId>,
    /// The id of the one graph read (`None`: every graph).
    pub graph: Option<TermId>,
    /// Whether the query names a graph the store does not know (then nothing matches).
    pub unknown_graph: bool,
}

/// Builds the plan of a validated query.
pub fn plan(reader: &Reader<'_>, query: &FacetQuery) -> Result<Plan, StoreError> {
    let mut builder = Builder {
        reader,
        next_key: 0,
    };
    let path = path_to_view(&query.root).unwrap_or_default();
    let mut current = builder.node(&query.root, true, path.first().copied())?;
    let mut node = &query.root;
    for (i, &edge_index) in path.iter().enumerate() {
        let Some(edge) = node.edges.get(edge_index) else {
            break;
        };
        let mut child = builder.node(&edge.node, false, path.get(i + 1).copied())?;
        child.edges.push(PlanEdge {
            property: builder.id(&edge.property.clone().into())?,
            // parent --p--> child: from the child, the parent is reached backwards.
            outgoing: edge.direction == Direction::Inverse,
            exclude: false,
            node: current,
        });
        current = child;
        node = &edge.node;
    }
    let graph = match &query.graph {
        Some(g) => builder.id(&g.clone().into())?,
        None => None,
    };
    Ok(Plan {
        focus: current,
        rdf_type: reader.term_id(rdf::TYPE.into())?,
        graph,
        unknown_graph: query.graph.is_some() && graph.is_none(),
    })
}

/// Edge indexes from the root to the node with the view (empty: the root has it).
fn path_to_view(node: &Node) -> Option<Vec<usize>> {
    if node.view.is_some() {
        return Some(Vec::new());
    }
    node.edges.iter().enumerate().find_map(|(i, edge)| {
        path_to_view(&edge.node).map(|mut rest| {
            rest.insert(0, i);
            rest
        })
    })
}

struct Builder<'r, 'db> {
    reader: &'r Reader<'db>,
    next_key: usize,
}

impl Builder<'_, '_> {
    fn id(&self, term: &Term) -> Result<Option<TermId>, StoreError> {
        self.reader.term_id(term.as_ref())
    }

    /// Converts a node and its subtree, leaving out the edge at `skip` (the path to the
    /// focus, added reversed by the caller).
    fn node(
        &mut self,
        node: &Node,
        subject_domain: bool,
        skip: Option<usize>,
    ) -> Result<PlanNode, StoreError> {
        let key = self.next_key;
        self.next_key += 1;
        let classes = node
            .classes
            .iter()
            .map(|c| Ok((self.id(&NamedNode::clone(&c.iri).into())?, c.exclude)))
            .collect::<Result<_, StoreError>>()?;
        let values = node
            .values
            .iter()
            .map(|v| self.condition(v))
            .collect::<Result<_, StoreError>>()?;
        let mut edges = Vec::new();
        for (i, edge) in node.edges.iter().enumerate() {
            if Some(i) == skip {
                continue;
            }
            edges.push(PlanEdge {
                property: self.id(&edge.property.clone().into())?,
                outgoing: edge.direction == Direction::Forward,
                exclude: edge.exclude,
                node: self.node(&edge.node, false, None)?,
            });
        }
        Ok(PlanNode {
            key,
            subject_domain,
            text: node.text.clone().filter(|t| !text_words(t).is_empty()),
            classes,
            values,
            edges,
        })
    }

    /// The sorted ids of the terms the store knows (the others match nothing).
    fn ids(&self, terms: &[Term]) -> Result<Vec<TermId>, StoreError> {
        let mut ids = Vec::new();
        for t in terms {
            if let Some(id) = self.id(t)? {
                ids.push(id);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Ok(ids)
    }

    fn condition(&self, condition: &ValueCondition) -> Result<Condition, StoreError> {
        Ok(match condition {
            ValueCondition::Eq(t) => Condition::Eq(self.id(t)?),
            ValueCondition::Neq(t) => Condition::Neq(self.id(t)?),
            ValueCondition::In(terms) => Condition::In(self.ids(terms)?),
            ValueCondition::NotIn(terms) => Condition::NotIn(self.ids(terms)?),
            ValueCondition::Contains(text) => Condition::Contains(text_words(text)),
            ValueCondition::NotContains(text) => Condition::NotContains(text_words(text)),
            ValueCondition::Compare(op, l) => Condition::Compare(*op, l.clone()),
            ValueCondition::Range(lo, hi) => Condition::Range(lo.clone(), hi.clone()),
            ValueCondition::Lang(range) => Condition::Lang(range.clone()),
        })
    }
}
