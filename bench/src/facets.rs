//! `facets`: latency of the facet engine per view and depth, from random starting classes
//! and words drawn from a loaded store.
//!
//! A query starts at a class (one of the 30 largest) or a word (from the `rdfs:label` of an
//! instance of one), then follows 0, 1 or 2 IRI-valued properties taken from a real instance
//! (depth 1, 2, 3 = the focus is the start node, its neighbour, or the neighbour's
//! neighbour), and asks one view there (`values` of `rdf:type`; `ranges` of a property with
//! numeric or date values of the instance reached, when it has one). Words are matched through
//! the store's text index (`<data>/text-index`, built first when missing or behind), as the
//! server does. Engine calls run in-process without the answer cache, one at a time, with the
//! default budget of 5 s.

use crate::rng::Rng;
use lodestone_facets::model::{
    ClassConstraint, Direction, Edge, FacetQuery, Node, View, ViewKind, DEFAULT_BUCKETS,
    DEFAULT_TIMEOUT,
};
use lodestone_facets::ranges::Family;
use lodestone_facets::FacetEngine;
use lodestone_indexer::{IndexSettings, TextIndex};
use lodestone_server::text_index::index_path;
use lodestone_server::text_match::IndexTextMatcher;
use lodestone_store::{Reader, Store, StoreOptions, TermId, TermKind};
use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{NamedNode, Term};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a query starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Class,
    Word,
}

/// A start node and the path of properties to the focus.
struct Draw {
    root: Node,
    hops: Vec<NamedNode>,
    /// A property with numeric or date values of the instance reached (for `ranges`).
    ranged: Option<NamedNode>,
}

/// Runs the benchmark and prints one line per (start, depth, view).
pub(crate) fn run(
    data: &Path,
    class_queries: usize,
    word_queries: usize,
    seed: u64,
) -> anyhow::Result<()> {
    let store = Store::open(data, StoreOptions::default())?;
    let engine = FacetEngine::new(Arc::new(IndexTextMatcher::new(text_index(&store, data)?)));
    let mut rng = Rng::new(seed);
    let reader = store.reader();
    let classes: Vec<(TermId, NamedNode)> = reader
        .top_classes(30)?
        .into_iter()
        .filter_map(|(id, _)| match reader.term(id) {
            Ok(Term::NamedNode(n)) => Some((id, n)),
            _ => None,
        })
        .collect();
    anyhow::ensure!(!classes.is_empty(), "the store has no classes");
    let rdf_type = reader
        .term_id(rdf::TYPE.into())?
        .ok_or_else(|| anyhow::anyhow!("no rdf:type"))?;
    println!(
        "facets benchmark: {} (budget {} ms, answer cache off)",
        data.display(),
        DEFAULT_TIMEOUT.as_millis()
    );
    println!(
        "{:<6} {:>5} {:<14} {:>4} {:>9} {:>9} {:>9} {:>9}",
        "start", "depth", "view", "n", "p50 ms", "p99 ms", "max ms", "complete"
    );
    let mut all = 0usize;
    let mut all_complete = 0usize;
    for (start, n) in [(Start::Class, class_queries), (Start::Word, word_queries)] {
        if n == 0 {
            continue;
        }
        for depth in 1..=3 {
            for kind in ViewKind::ALL {
                let mut times = Vec::with_capacity(n);
                let mut complete = 0;
                for _ in 0..n {
                    let draw = draw(&reader, &mut rng, &classes, rdf_type, start, depth - 1)?;
                    let query = build(draw, kind);
                    let began = Instant::now();
                    let answer = engine.answer_uncached(&store, &query, DEFAULT_TIMEOUT)?;
                    times.push(began.elapsed());
                    complete += usize::from(answer.complete);
                }
                times.sort();
                let ms = |d: Duration| d.as_secs_f64() * 1000.0;
                // `q` is in 0..=1, so the rounded rank is at most the last index.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
                println!(
                    "{:<6} {:>5} {:<14} {:>4} {:>9.1} {:>9.1} {:>9.1} {:>8.0}%",
                    format!("{start:?}").to_lowercase(),
                    depth,
                    kind.name(),
                    n,
                    ms(at(0.5)),
                    ms(at(0.99)),
                    ms(times[times.len() - 1]),
                    100.0 * complete as f64 / n as f64
                );
                all += n;
                all_complete += complete;
            }
        }
    }
    println!(
        "complete: {all_complete}/{all} ({:.1}%)",
        100.0 * all_complete as f64 / all.max(1) as f64
    );
    Ok(())
}

/// The store's text index, built now when it is missing or behind the store.
fn text_index(store: &Store, data: &Path) -> anyhow::Result<Arc<TextIndex>> {
    let index = TextIndex::open(index_path(data), IndexSettings::default())?;
    if index.applied() != Some(store.sequence()) {
        let report = index.rebuild(store, |_| {})?;
        index.wait_for_merge();
        println!(
            "text index built: {} entities in {:.1} s",
            report.entities,
            report.elapsed.as_secs_f64()
        );
    }
    Ok(Arc::new(index))
}

fn build(draw: Draw, kind: ViewKind) -> FacetQuery {
    let property = match kind {
        ViewKind::Values => Some(rdf::TYPE.into_owned()),
        ViewKind::Ranges => Some(draw.ranged.unwrap_or_else(|| rdf::TYPE.into_owned())),
        _ => None,
    };
    let view = View {
        kind,
        property,
        limit: 20,
        offset: 0,
        buckets: DEFAULT_BUCKETS,
    };
    let mut focus = Node {
        view: Some(view),
        ..Node::default()
    };
    for (i, hop) in draw.hops.iter().enumerate().rev() {
        let mut parent = if i == 0 {
            draw.root.clone()
        } else {
            Node::default()
        };
        parent.edges.push(Edge {
            property: hop.clone(),
            direction: Direction::Forward,
            exclude: false,
            node: focus,
        });
        focus = parent;
    }
    if draw.hops.is_empty() {
        let view = focus.view.take();
        focus = Node { view, ..draw.root };
    }
    FacetQuery {
        root: focus,
        timeout: None,
        graph: None,
    }
}

/// A random start and `hops` IRI-valued properties followed from a random instance.
fn draw(
    reader: &Reader<'_>,
    rng: &mut Rng,
    classes: &[(TermId, NamedNode)],
    rdf_type: TermId,
    start: Start,
    hops: usize,
) -> anyhow::Result<Draw> {
    loop {
        let (class_id, class) = rng.pick(classes).clone();
        let instances: Vec<TermId> = reader
            .quads_for_pattern(None, Some(rdf_type), Some(class_id), None)
            .take(500)
            .map(|q| q.map(|q| q.subject))
            .collect::<Result<_, _>>()?;
        let Some(&x) = instances.get(rng.below(instances.len())) else {
            continue;
        };
        let root = match start {
            Start::Class => Node {
                classes: vec![ClassConstraint {
                    iri: class,
                    exclude: false,
                }],
                ..Node::default()
            },
            Start::Word => match label_word(reader, rng, x)? {
                Some(word) => Node {
                    text: Some(word),
                    ..Node::default()
                },
                None => continue,
            },
        };
        let mut path = Vec::new();
        let mut at = x;
        for _ in 0..hops {
            let edges: Vec<(TermId, TermId)> = reader
                .quads_for_pattern(Some(at), None, None, None)
                .take(200)
                .filter_map(Result::ok)
                .filter(|q| q.predicate != rdf_type && q.object.kind() == TermKind::Iri)
                .map(|q| (q.predicate, q.object))
                .collect();
            let Some(&(p, y)) = edges.get(rng.below(edges.len())) else {
                break;
            };
            if let Term::NamedNode(p) = reader.term(p)? {
                path.push(p);
            }
            at = y;
        }
        if path.len() == hops {
            let ranged = ranged_property(reader, rng, at)?;
            return Ok(Draw {
                root,
                hops: path,
                ranged,
            });
        }
    }
}

/// A random property of `x` with a numeric or date value.
fn ranged_property(
    reader: &Reader<'_>,
    rng: &mut Rng,
    x: TermId,
) -> anyhow::Result<Option<NamedNode>> {
    let mut candidates = Vec::new();
    for quad in reader
        .quads_for_pattern(Some(x), None, None, None)
        .take(200)
    {
        let quad = quad?;
        let ranged = match quad.object.kind() {
            TermKind::Integer => true,
            TermKind::Literal => {
                matches!(reader.term(quad.object)?, Term::Literal(l) if Family::of(&l).is_some())
            }
            _ => false,
        };
        if ranged && !candidates.contains(&quad.predicate) {
            candidates.push(quad.predicate);
        }
    }
    let Some(&p) = candidates.get(rng.below(candidates.len())) else {
        return Ok(None);
    };
    Ok(match reader.term(p)? {
        Term::NamedNode(n) => Some(n),
        _ => None,
    })
}

/// A word of four letters or more from the entity's `rdfs:label`.
fn label_word(reader: &Reader<'_>, rng: &mut Rng, x: TermId) -> anyhow::Result<Option<String>> {
    let Some(label) = reader.term_id(rdfs::LABEL.into())? else {
        return Ok(None);
    };
    let Some(quad) = reader
        .quads_for_pattern(Some(x), Some(label), None, None)
        .next()
    else {
        return Ok(None);
    };
    let Term::Literal(text) = reader.term(quad?.object)? else {
        return Ok(None);
    };
    let words: Vec<String> = text
        .value()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect();
    Ok(words.get(rng.below(words.len())).cloned())
}
