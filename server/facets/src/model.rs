//! The facet query model shared by both syntaxes (JSON for `/api/facets`, Virtuoso's XML for
//! `/fct/service`).
//!
//! A query is a tree of [`Node`]s. Each node stands for a set of RDF terms and carries
//! constraints; edges lead to child nodes through a property, forwards (`property`: the
//! parent's value of the property is in the child's set) or backwards (`property-of`: the
//! child's value of the property is the parent). Exactly one node carries the [`View`]: the
//! focus whose entities, classes, properties… are listed. The root's terms are always
//! subjects of some triple. Terms in the model are already parsed RDF terms, so that nothing
//! downstream ever handles raw strings as IRIs.

use oxrdf::{Literal, NamedNode, Term};
use std::time::Duration;

/// The default time budget of one facet request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// The default number of rows of a view.
pub const DEFAULT_LIMIT: usize = 20;
/// The largest number of rows a view returns.
pub const MAX_LIMIT: usize = 10_000;
/// The deepest tree accepted (edges from the root to the deepest node).
pub const MAX_DEPTH: usize = 8;
/// The most constraints (classes, values, edges) one query may carry in all.
pub const MAX_CONSTRAINTS: usize = 64;
/// The default number of buckets of the `ranges` view.
pub const DEFAULT_BUCKETS: usize = 10;
/// The most buckets the `ranges` view makes.
pub const MAX_BUCKETS: usize = 100;

/// A whole facet request: the tree and its time budget.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FacetQuery {
    /// The root node.
    pub root: Node,
    /// The requested time budget (the server's limit still applies).
    pub timeout: Option<Duration>,
    /// The one graph every constraint and view reads (`None`: the union of all graphs, as
    /// `/sparql`'s default graph).
    pub graph: Option<NamedNode>,
}

/// One node of the tree: a set of terms narrowed by its constraints.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Node {
    /// Full-text words the node's entities must match.
    pub text: Option<String>,
    /// Class constraints (`rdf:type`).
    pub classes: Vec<ClassConstraint>,
    /// Conditions on the node's term itself.
    pub values: Vec<ValueCondition>,
    /// Edges to child nodes.
    pub edges: Vec<Edge>,
    /// The view, on exactly one node of the tree.
    pub view: Option<View>,
}

impl Node {
    /// Whether the node's only constraints, if any, are classes: no words, no value
    /// conditions, no edges. Such a node is every term, or every instance of its classes,
    /// which the statistics may answer for.
    pub fn constrained_by_classes_only(&self) -> bool {
        self.text.is_none() && self.values.is_empty() && self.edges.is_empty()
    }
}

/// `rdf:type` constraint, optionally negated.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClassConstraint {
    /// The class.
    pub iri: NamedNode,
    /// Whether entities of the class are excluded instead of required.
    pub exclude: bool,
}

/// Which way an edge follows its property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `property`: parent → property → child.
    Forward,
    /// `property-of`: child → property → parent.
    Inverse,
}

/// An edge to a child node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edge {
    /// The property followed.
    pub property: NamedNode,
    /// Forwards or backwards.
    pub direction: Direction,
    /// Whether the parent must have *no* such neighbour (`not exists` when the child is
    /// unconstrained).
    pub exclude: bool,
    /// The child node.
    pub node: Node,
}

/// A condition on a node's term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ValueCondition {
    /// The term is exactly this one.
    Eq(Term),
    /// The term is not this one.
    Neq(Term),
    /// The term is one of these.
    In(Vec<Term>),
    /// The literal compares (as SPARQL `<`, `<=`, `>`, `>=` do) with a constant.
    Compare(Comparison, Literal),
    /// `lo <= term <= hi`.
    Range(Literal, Literal),
    /// The literal's language tag matches a range (`langMatches`).
    Lang(String),
    /// The term is none of these.
    NotIn(Vec<Term>),
    /// The term is a literal containing every word of the text, ignoring case (the text
    /// constraint's rule, applied to the node's own value).
    Contains(String),
    /// The term is not such a literal.
    NotContains(String),
}

/// An order comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `<`
    Lt,
    /// `<=`
    Lte,
    /// `>`
    Gt,
    /// `>=`
    Gte,
}

impl Comparison {
    /// Whether an ordering of `term` against the constant satisfies the comparison.
    pub fn accepts(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Greater, Less};
        match self {
            Self::Lt => ordering == Less,
            Self::Lte => ordering != Greater,
            Self::Gt => ordering == Greater,
            Self::Gte => ordering != Less,
        }
    }
}

/// What the focus node shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewKind {
    /// The entities themselves, ranked.
    Entities,
    /// Classes of the entities with counts.
    Classes,
    /// Properties the entities have (as subject) with counts.
    Properties,
    /// Properties pointing at the entities (entity as object) with counts.
    PropertiesIn,
    /// Values of one property of the entities with counts.
    Values,
    /// Named graphs holding triples about the entities with counts.
    Graphs,
    /// Numeric or date values of one property of the entities, bucketed, with counts.
    Ranges,
    /// The properties whose literal values match the focus node's text, with the number of
    /// entities matching through each.
    TextProperties,
}

impl ViewKind {
    /// Every view, for error messages and documentation.
    pub const ALL: [Self; 8] = [
        Self::Entities,
        Self::Classes,
        Self::Properties,
        Self::PropertiesIn,
        Self::Values,
        Self::Graphs,
        Self::Ranges,
        Self::TextProperties,
    ];

    /// The name used in both syntaxes' responses and in the JSON syntax.
    pub fn name(self) -> &'static str {
        match self {
            Self::Entities => "entities",
            Self::Classes => "classes",
            Self::Properties => "properties",
            Self::PropertiesIn => "properties-in",
            Self::Values => "values",
            Self::Graphs => "graphs",
            Self::Ranges => "ranges",
            Self::TextProperties => "text-properties",
        }
    }

    /// Parses a JSON view name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// The view of the focus node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    /// What is shown.
    pub kind: ViewKind,
    /// The property whose values are shown (`values` and `ranges`).
    pub property: Option<NamedNode>,
    /// Rows to return.
    pub limit: usize,
    /// Rows to skip.
    pub offset: usize,
    /// Number of buckets (`ranges` only; at most [`MAX_BUCKETS`]).
    pub buckets: usize,
}

impl View {
    /// A view of `kind` with the defaults: no property, the first [`DEFAULT_LIMIT`] rows,
    /// [`DEFAULT_BUCKETS`] buckets.
    pub fn new(kind: ViewKind) -> Self {
        Self {
            kind,
            property: None,
            limit: DEFAULT_LIMIT,
            offset: 0,
            buckets: DEFAULT_BUCKETS,
        }
    }
}

/// Why a tree is not a valid query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// No node has a view.
    #[error("no node has a `view`: put one on the node whose entities you want to see")]
    NoView,
    /// More than one node has a view.
    #[error("{0} nodes have a `view`; exactly one may")]
    SeveralViews(usize),
    /// The view sits below an excluded edge (its entities would be those that do not exist).
    #[error("the `view` is below an excluded edge; move it or drop the exclusion")]
    ViewUnderExclusion,
    /// `values` without a property.
    #[error("the `values` view needs a `property`")]
    ValuesWithoutProperty,
    /// `ranges` without a property.
    #[error("the `ranges` view needs a `property` (whose numeric or date values are bucketed)")]
    RangesWithoutProperty,
    /// `text-properties` on a node without text.
    #[error("the `text-properties` view needs text on the node that carries it")]
    TextPropertiesWithoutText,
    /// The tree is too deep.
    #[error("the query is deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// Too many constraints.
    #[error("the query has more than {MAX_CONSTRAINTS} constraints")]
    TooLarge,
}

impl FacetQuery {
    /// Checks the structural rules: one view, not below an exclusion, bounded size.
    pub fn validate(&self) -> Result<(), ModelError> {
        let mut views = 0;
        let mut constraints = 0;
        check_node(&self.root, 0, false, &mut views, &mut constraints)?;
        match views {
            0 => Err(ModelError::NoView),
            1 => Ok(()),
            n => Err(ModelError::SeveralViews(n)),
        }
    }

    /// The view of the focus node.
    pub fn view(&self) -> Option<&View> {
        fn find(node: &Node) -> Option<&View> {
            node.view
                .as_ref()
                .or_else(|| node.edges.iter().find_map(|e| find(&e.node)))
        }
        find(&self.root)
    }
}

fn check_node(
    node: &Node,
    depth: usize,
    excluded: bool,
    views: &mut usize,
    constraints: &mut usize,
) -> Result<(), ModelError> {
    if depth > MAX_DEPTH {
        return Err(ModelError::TooDeep);
    }
    *constraints += node.classes.len() + node.values.len() + node.edges.len();
    if *constraints > MAX_CONSTRAINTS {
        return Err(ModelError::TooLarge);
    }
    if let Some(view) = &node.view {
        *views += 1;
        if excluded {
            return Err(ModelError::ViewUnderExclusion);
        }
        if view.kind == ViewKind::TextProperties
            && node
                .text
                .as_deref()
                .is_none_or(|t| text_words(t).is_empty())
        {
            return Err(ModelError::TextPropertiesWithoutText);
        }
        if view.property.is_none() {
            match view.kind {
                ViewKind::Values => return Err(ModelError::ValuesWithoutProperty),
                ViewKind::Ranges => return Err(ModelError::RangesWithoutProperty),
                _ => {}
            }
        }
    }
    for edge in &node.edges {
        check_node(
            &edge.node,
            depth + 1,
            excluded || edge.exclude,
            views,
            constraints,
        )?;
    }
    Ok(())
}

/// Splits full-text input into lowercase words (the scan matcher's and the SPARQL's unit).
pub fn text_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(kind: ViewKind) -> Option<View> {
        Some(View::new(kind))
    }

    fn edge(node: Node, exclude: bool) -> Edge {
        Edge {
            property: NamedNode::new_unchecked("http://example.org/p"),
            direction: Direction::Forward,
            exclude,
            node,
        }
    }

    #[test]
    fn exactly_one_view_not_under_exclusion() {
        let mut query = FacetQuery {
            root: Node::default(),
            timeout: None,
            graph: None,
        };
        assert_eq!(query.validate(), Err(ModelError::NoView));
        query.root.view = view(ViewKind::Classes);
        assert_eq!(query.validate(), Ok(()));
        let child = Node {
            view: view(ViewKind::Entities),
            ..Node::default()
        };
        query.root.edges.push(edge(child.clone(), false));
        assert_eq!(query.validate(), Err(ModelError::SeveralViews(2)));
        query.root.view = None;
        assert_eq!(query.validate(), Ok(()));
        query.root.edges = vec![edge(child, true)];
        assert_eq!(query.validate(), Err(ModelError::ViewUnderExclusion));
    }

    #[test]
    fn values_view_needs_a_property() {
        let query = FacetQuery {
            root: Node {
                view: view(ViewKind::Values),
                ..Node::default()
            },
            timeout: None,
            graph: None,
        };
        assert_eq!(query.validate(), Err(ModelError::ValuesWithoutProperty));
        let query = FacetQuery {
            root: Node {
                view: view(ViewKind::Ranges),
                ..Node::default()
            },
            timeout: None,
            graph: None,
        };
        assert_eq!(query.validate(), Err(ModelError::RangesWithoutProperty));
    }

    #[test]
    fn words_are_lowercased() {
        assert_eq!(text_words("  Berlin  WALL "), vec!["berlin", "wall"]);
    }
}
