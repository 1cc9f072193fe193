//! The state of a search page, all of it in its URL: parsing, writing back, and the facet
//! tree it stands for.
//!
//! The order of the parameters matters: `q` applies to the first set of entities; each `pivot`
//! starts a new set (the entities the property leads to from the one before), and the `class`
//! and `has` after it constrain that set. `values` names the property whose values are listed
//! for the last set (the focus); `page` and `timeout_ms` say which page and how long to try.

use crate::error::ApiError;
use lodestone_facets::model::{
    ClassConstraint, Direction, Edge, FacetQuery, Node, ValueCondition, View, ViewKind,
    DEFAULT_BUCKETS,
};
use lodestone_web::ui::links::with_query;
use oxrdf::{NamedNode, Term};
use std::str::FromStr;
use std::time::Duration;

/// The default time budget of each facet query.
pub(super) const DEFAULT_TIMEOUT_MS: u64 = 2_000;
/// The largest budget a retry link asks for.
pub(super) const MAX_TIMEOUT_MS: u64 = 30_000;
/// Deepest page.
pub(super) const MAX_PAGE: usize = 500;
/// Most properties followed one after the other (each a level of the facet tree).
pub(super) const MAX_PIVOTS: usize = 4;

/// One set of entities on the way from the matching set to the focus: the property followed
/// to reach it (none for the first) and its own constraints.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Level {
    pub(super) via: Option<NamedNode>,
    pub(super) classes: Vec<NamedNode>,
    pub(super) has: Vec<(NamedNode, Term)>,
}

impl Level {
    /// The facet node of this level's constraints.
    fn node(&self) -> Node {
        Node {
            classes: self
                .classes
                .iter()
                .map(|iri| ClassConstraint {
                    iri: iri.clone(),
                    exclude: false,
                })
                .collect(),
            edges: self
                .has
                .iter()
                .map(|(property, value)| Edge {
                    property: property.clone(),
                    direction: Direction::Forward,
                    exclude: false,
                    node: Node {
                        values: vec![ValueCondition::Eq(value.clone())],
                        ..Node::default()
                    },
                })
                .collect(),
            ..Node::default()
        }
    }
}

/// The state of a search, as its URL carries it. The order of the parameters matters: `q`
/// applies to the first set; each `pivot` starts a new set (the entities the property leads
/// to) and the `class` and `has` after it constrain that set.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SearchState {
    pub(super) text: String,
    /// Never empty; the last is the focus, whose entities are listed.
    pub(super) levels: Vec<Level>,
    pub(super) values: Option<NamedNode>,
    pub(super) page: usize,
    pub(super) timeout_ms: u64,
}

fn bad(name: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::BadRequest(format!("{name}: {message}"))
}

impl SearchState {
    pub(super) fn parse(raw: Option<&str>) -> Result<Self, ApiError> {
        let mut state = Self {
            text: String::new(),
            levels: vec![Level::default()],
            values: None,
            page: 1,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        };
        let iri = |name: &str, v: &str| NamedNode::new(v).map_err(|e| bad(name, e));
        for (key, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            match key.as_ref() {
                "q" => state.text = value.trim().to_owned(),
                "class" => state.focus_mut().classes.push(iri("class", &value)?),
                "values" => state.values = Some(iri("values", &value)?),
                "pivot" => {
                    if state.levels.len() > MAX_PIVOTS {
                        return Err(bad("pivot", format!("at most {MAX_PIVOTS} steps")));
                    }
                    state.levels.push(Level {
                        via: Some(iri("pivot", &value)?),
                        ..Level::default()
                    });
                }
                "has" => {
                    let has = parse_has(&value)?;
                    state.focus_mut().has.push(has);
                }
                "page" => {
                    state.page = value
                        .parse()
                        .ok()
                        .filter(|p| (1..=MAX_PAGE).contains(p))
                        .ok_or_else(|| bad("page", format!("a number from 1 to {MAX_PAGE}")))?;
                }
                "timeout_ms" => {
                    state.timeout_ms = value
                        .parse::<u64>()
                        .ok()
                        .filter(|t| (1..=MAX_TIMEOUT_MS).contains(t))
                        .ok_or_else(|| bad("timeout_ms", format!("1 to {MAX_TIMEOUT_MS}")))?;
                }
                _ => {}
            }
        }
        Ok(state)
    }

    /// The set whose entities are listed (the end of the pivots).
    pub(super) fn focus(&self) -> &Level {
        self.levels.last().unwrap_or(&EMPTY_LEVEL)
    }

    pub(super) fn focus_mut(&mut self) -> &mut Level {
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        let last = self.levels.len() - 1;
        &mut self.levels[last]
    }

    /// The constraints of every level, in URL order (`pivot`, then its `class` and `has`).
    pub(super) fn constraint_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        for level in &self.levels {
            if let Some(via) = &level.via {
                pairs.push(("pivot", via.as_str().to_owned()));
            }
            pairs.extend(
                level
                    .classes
                    .iter()
                    .map(|c| ("class", c.as_str().to_owned())),
            );
            pairs.extend(level.has.iter().map(|(p, v)| ("has", format!("{p} {v}"))));
        }
        pairs
    }

    /// The URL of this state.
    pub(super) fn href(&self) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if !self.text.is_empty() {
            pairs.push(("q", self.text.clone()));
        }
        pairs.extend(self.constraint_pairs());
        if let Some(p) = &self.values {
            pairs.push(("values", p.as_str().to_owned()));
        }
        if self.page > 1 {
            pairs.push(("page", self.page.to_string()));
        }
        if self.timeout_ms != DEFAULT_TIMEOUT_MS {
            pairs.push(("timeout_ms", self.timeout_ms.to_string()));
        }
        let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        with_query("/search", &borrowed)
    }

    /// A changed copy, back on the first page.
    pub(super) fn with(&self, change: impl FnOnce(&mut Self)) -> Self {
        let mut next = self.clone();
        next.page = 1;
        change(&mut next);
        next
    }

    /// The facet tree: the first level carries the words, each next level hangs from the one
    /// before by its property, and the last carries `view`.
    pub(super) fn query(&self, view: View) -> FacetQuery {
        let mut nodes: Vec<Node> = self.levels.iter().map(Level::node).collect();
        if let Some(first) = nodes.first_mut() {
            first.text = (!self.text.is_empty()).then(|| self.text.clone());
        }
        let mut focus = nodes.pop().unwrap_or_default();
        focus.view = Some(view);
        // The property of level i + 1 leads from node i to it.
        for (i, mut parent) in nodes.into_iter().enumerate().rev() {
            let Some(property) = self.levels.get(i + 1).and_then(|l| l.via.clone()) else {
                continue;
            };
            parent.edges.push(Edge {
                property,
                direction: Direction::Forward,
                exclude: false,
                node: focus,
            });
            focus = parent;
        }
        FacetQuery {
            root: focus,
            timeout: Some(Duration::from_millis(self.timeout_ms)),
            graph: None,
        }
    }
}

/// The focus of a state that somehow lost its levels (never built by `parse`).
static EMPTY_LEVEL: Level = Level {
    via: None,
    classes: Vec::new(),
    has: Vec::new(),
};

/// `<property> value`: an IRI in angle brackets, a space, an N-Triples term.
fn parse_has(text: &str) -> Result<(NamedNode, Term), ApiError> {
    let (property, value) = text
        .strip_prefix('<')
        .and_then(|rest| rest.split_once("> "))
        .ok_or_else(|| bad("has", "write `<property IRI> value`"))?;
    let property = NamedNode::new(property).map_err(|e| bad("has", e))?;
    let value = Term::from_str(value.trim()).map_err(|e| bad("has", e))?;
    Ok((property, value))
}

pub(super) fn view(
    kind: ViewKind,
    property: Option<NamedNode>,
    limit: usize,
    offset: usize,
) -> View {
    View {
        kind,
        property,
        limit,
        offset,
        buckets: DEFAULT_BUCKETS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "http%3A%2F%2Fex.org%2Fp";
    const Q: &str = "http%3A%2F%2Fex.org%2Fq";
    const ALBUM: &str = "http%3A%2F%2Fdbpedia.org%2Fontology%2FAlbum";

    fn round_trip(state: &SearchState) -> SearchState {
        SearchState::parse(state.href().split_once('?').map(|(_, q)| q)).expect("parses")
    }

    #[test]
    fn the_url_is_the_whole_state() {
        let raw = format!(
            "q=queen&class={ALBUM}&has=%3Chttp%3A%2F%2Fex.org%2Fp%3E+%221999%22&pivot={Q}&page=2"
        );
        let state = SearchState::parse(Some(&raw)).expect("parses");
        assert_eq!(state.text, "queen");
        assert_eq!(state.levels.len(), 2);
        assert_eq!(state.levels[0].has.len(), 1);
        assert_eq!(round_trip(&state), state);
    }

    #[test]
    fn constraints_after_a_pivot_belong_to_the_pivoted_set() {
        let raw = format!("class={ALBUM}&pivot={P}&class={ALBUM}&pivot={Q}&values={P}");
        let state = SearchState::parse(Some(&raw)).expect("parses");
        let classes: Vec<usize> = state.levels.iter().map(|l| l.classes.len()).collect();
        assert_eq!(classes, [1, 1, 0]);
        assert_eq!(round_trip(&state), state);
        // The tree: root -p-> node -q-> focus, the view at the end of the chain.
        let query = state.query(view(ViewKind::Entities, None, 10, 0));
        query.validate().expect("a valid tree");
        assert!(query.root.view.is_none());
        assert_eq!(query.root.edges.len(), 1);
        let second = &query.root.edges[0].node;
        assert_eq!(query.root.edges[0].property.as_str(), "http://ex.org/p");
        assert_eq!(second.classes.len(), 1);
        assert_eq!(second.edges[0].property.as_str(), "http://ex.org/q");
        assert!(second.edges[0].node.view.is_some());
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(SearchState::parse(Some("class=not%20an%20iri")).is_err());
        assert!(SearchState::parse(Some("has=%3Chttp%3A%2F%2Fex.org%2Fp%3E")).is_err());
        assert!(SearchState::parse(Some("page=0")).is_err());
        let too_deep = vec![format!("pivot={P}"); MAX_PIVOTS + 1].join("&");
        assert!(SearchState::parse(Some(&too_deep)).is_err());
        let deepest = vec![format!("pivot={P}"); MAX_PIVOTS].join("&");
        let state = SearchState::parse(Some(&deepest)).expect("parses");
        state
            .query(view(ViewKind::Classes, None, 10, 0))
            .validate()
            .expect("the deepest chain is a valid facet tree");
    }
}
