//! The in-memory model the store is compared with, and the checks that compare them.
//!
//! The model is an `oxrdf::Dataset` plus the set of named graphs that exist: inserting into a
//! named graph or creating it makes it exist, dropping it ends it, clearing or emptying it
//! does not. Everything a reader reports (pattern scans, named graphs, usage counters,
//! per-graph positions, class counts, store totals, dictionary size) is derived from it here
//! independently of the store's code.

use lodestone_store::{Reader, Store, TermId, TermUsage};
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{Dataset, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term, Triple};
use std::collections::{HashMap, HashSet};

/// What the store should hold.
#[derive(Debug, Clone, Default)]
pub struct Model {
    pub quads: Dataset,
    pub graphs: HashSet<NamedOrBlankNode>,
}

/// What the store should report about one term.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expected {
    pub usage: TermUsage,
    /// Subject, predicate and object positions the term fills, per graph.
    pub positions: HashMap<GraphName, u64>,
    /// `rdf:type` quads with the term as object.
    pub instances: u64,
}

/// A quad pattern; `None` is a wildcard.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pattern {
    pub subject: Option<Term>,
    pub predicate: Option<Term>,
    pub object: Option<Term>,
    pub graph: Option<GraphName>,
}

impl Pattern {
    /// The pattern binding the positions of `mask` (bit 0 subject … bit 3 graph) to `quad`'s.
    pub fn from_quad(quad: &Quad, mask: u8) -> Self {
        let bound = |bit: u8| mask & (1 << bit) != 0;
        Self {
            subject: bound(0).then(|| quad.subject.clone().into()),
            predicate: bound(1).then(|| quad.predicate.clone().into()),
            object: bound(2).then(|| quad.object.clone()),
            graph: bound(3).then(|| quad.graph_name.clone()),
        }
    }
}

fn graph_term(graph: &GraphName) -> Option<Term> {
    match graph {
        GraphName::NamedNode(n) => Some(n.clone().into()),
        GraphName::BlankNode(b) => Some(b.clone().into()),
        GraphName::DefaultGraph => None,
    }
}

fn named_graph(graph: &GraphName) -> Option<NamedOrBlankNode> {
    match graph {
        GraphName::NamedNode(n) => Some(n.clone().into()),
        GraphName::BlankNode(b) => Some(b.clone().into()),
        GraphName::DefaultGraph => None,
    }
}

impl Model {
    /// A model holding exactly the quads of `quads` and the graphs they use.
    pub fn from_dataset(quads: &Dataset) -> Self {
        let mut model = Self::default();
        for quad in quads {
            model.insert(&quad.into_owned());
        }
        model
    }

    pub fn insert(&mut self, quad: &Quad) -> bool {
        if let Some(graph) = named_graph(&quad.graph_name) {
            self.graphs.insert(graph);
        }
        self.quads.insert(quad)
    }

    pub fn remove(&mut self, quad: &Quad) -> bool {
        self.quads.remove(quad)
    }

    pub fn clear_graph(&mut self, graph: &GraphName) -> usize {
        let doomed: Vec<Quad> = self
            .quads
            .iter()
            .filter(|q| q.graph_name == graph.as_ref())
            .map(|q| q.into_owned())
            .collect();
        for quad in &doomed {
            self.quads.remove(quad);
        }
        doomed.len()
    }

    pub fn create_graph(&mut self, graph: &NamedOrBlankNode) -> bool {
        self.graphs.insert(graph.clone())
    }

    pub fn drop_graph(&mut self, graph: &NamedOrBlankNode) -> bool {
        self.clear_graph(&graph.clone().into());
        self.graphs.remove(graph)
    }

    pub fn replace_graph(&mut self, graph: &GraphName, triples: &[Triple]) {
        self.clear_graph(graph);
        if let Some(named) = named_graph(graph) {
            self.graphs.insert(named);
        }
        for triple in triples {
            self.insert(&triple.clone().in_graph(graph.clone()));
        }
    }

    pub fn matching(&self, pattern: &Pattern) -> HashSet<Quad> {
        // A literal subject or a non-IRI predicate matches nothing.
        let subject = match &pattern.subject {
            None => None,
            Some(Term::NamedNode(n)) => Some(n.as_ref().into()),
            Some(Term::BlankNode(b)) => Some(b.as_ref().into()),
            Some(Term::Literal(_)) => return HashSet::new(),
        };
        let predicate = match &pattern.predicate {
            None => None,
            Some(Term::NamedNode(n)) => Some(n.as_ref()),
            Some(_) => return HashSet::new(),
        };
        let object = pattern.object.as_ref().map(Term::as_ref);
        let graph = pattern.graph.as_ref().map(GraphName::as_ref);
        self.quads
            .quads_for_pattern(subject, predicate, object, graph)
            .map(|q| q.into_owned())
            .collect()
    }

    /// Every term in a quad position or naming an existing graph.
    pub fn terms(&self) -> HashSet<Term> {
        let mut terms: HashSet<Term> = self.graphs.iter().map(|g| g.clone().into()).collect();
        for quad in &self.quads {
            let quad = quad.into_owned();
            terms.insert(quad.subject.into());
            terms.insert(quad.predicate.into());
            terms.insert(quad.object);
            terms.extend(graph_term(&quad.graph_name));
        }
        terms
    }

    /// Per term: what the store should report about it.
    pub fn statistics(&self) -> HashMap<Term, Expected> {
        let mut stats: HashMap<Term, Expected> = HashMap::new();
        for quad in &self.quads {
            let quad = quad.into_owned();
            let graph = &quad.graph_name;
            fn entry<'s>(
                stats: &'s mut HashMap<Term, Expected>,
                term: Term,
                graph: &GraphName,
            ) -> &'s mut Expected {
                let expected = stats.entry(term).or_default();
                *expected.positions.entry(graph.clone()).or_default() += 1;
                expected
            }
            entry(&mut stats, quad.subject.clone().into(), graph)
                .usage
                .as_subject += 1;
            entry(&mut stats, quad.predicate.clone().into(), graph)
                .usage
                .as_predicate += 1;
            entry(&mut stats, quad.object.clone(), graph)
                .usage
                .as_object += 1;
            if let Some(name) = graph_term(graph) {
                stats.entry(name).or_default().usage.as_graph += 1;
            }
            if quad.predicate == rdf::TYPE {
                stats.entry(quad.object.clone()).or_default().instances += 1;
            }
        }
        for expected in stats.values_mut() {
            expected.usage.graphs = expected.positions.len() as u64;
        }
        stats
    }

    /// Terms that need a dictionary entry: everything used or naming an existing graph,
    /// except the values the store keeps inside ids.
    pub fn dictionary_terms(&self) -> u64 {
        self.terms().iter().filter(|t| in_dictionary(t)).count() as u64
    }
}

/// Whether the store must keep `term` in its dictionary (rather than inside its id): only
/// blank nodes labelled like the ones the store mints (`a` and fifteen lowercase hex digits)
/// and canonical integers and booleans are inlined.
pub fn in_dictionary(term: &Term) -> bool {
    match term {
        Term::NamedNode(_) => true,
        Term::BlankNode(b) => {
            let label = b.as_str();
            let minted = label.len() == 16
                && label.starts_with('a')
                && label
                    .bytes()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
            !minted
        }
        Term::Literal(l) => !is_inlined_literal(l),
    }
}

fn is_inlined_literal(literal: &Literal) -> bool {
    if literal.datatype() == xsd::INTEGER {
        literal
            .value()
            .parse::<i64>()
            .is_ok_and(|v| v.to_string() == literal.value() && (-(1 << 59)..(1 << 59)).contains(&v))
    } else if literal.datatype() == xsd::BOOLEAN {
        matches!(literal.value(), "true" | "false")
    } else {
        false
    }
}

/// The store's answer to a pattern, checking it has no duplicates.
pub fn store_matching(reader: &Reader<'_>, pattern: &Pattern) -> HashSet<Quad> {
    let id = |term: &Option<Term>| -> Option<Option<TermId>> {
        match term {
            None => Some(None),
            Some(t) => reader.term_id(t.as_ref()).expect("term lookup").map(Some),
        }
    };
    let graph = match &pattern.graph {
        None => Some(None),
        Some(g) => reader.graph_id(g.as_ref()).expect("graph lookup").map(Some),
    };
    let (Some(s), Some(p), Some(o), Some(g)) = (
        id(&pattern.subject),
        id(&pattern.predicate),
        id(&pattern.object),
        graph,
    ) else {
        return HashSet::new(); // A bound term the store does not know matches nothing.
    };
    let found: Vec<Quad> = reader
        .quads_for_pattern(s, p, o, g)
        .map(|q| reader.decode_quad(&q.expect("scan")).expect("decode"))
        .collect();
    let set: HashSet<Quad> = found.iter().cloned().collect();
    assert_eq!(
        set.len(),
        found.len(),
        "{pattern:?} returned a quad twice: {found:#?}"
    );
    set
}

/// Every one of the 16 pattern shapes, bound from every model quad and every probe quad,
/// returns exactly the model's quads.
pub fn check_patterns(reader: &Reader<'_>, model: &Model, probes: &[Quad]) {
    let mut sources: Vec<Quad> = model.quads.iter().map(|q| q.into_owned()).collect();
    sources.extend(probes.iter().cloned());
    let mut seen = HashSet::new();
    for mask in 0..16_u8 {
        for quad in &sources {
            let pattern = Pattern::from_quad(quad, mask);
            if seen.insert(pattern.clone()) {
                let expected = model.matching(&pattern);
                let actual = store_matching(reader, &pattern);
                assert_eq!(actual, expected, "pattern {pattern:?}");
            }
        }
    }
}

/// The reader's named graphs are the model's.
pub fn check_graphs(reader: &Reader<'_>, model: &Model, probes: &[NamedOrBlankNode]) {
    let graphs: HashSet<NamedOrBlankNode> = reader
        .named_graphs()
        .expect("named graphs")
        .into_iter()
        .map(|id| match reader.term(id).expect("graph name") {
            Term::NamedNode(n) => n.into(),
            Term::BlankNode(b) => b.into(),
            Term::Literal(l) => panic!("literal graph name {l}"),
        })
        .collect();
    assert_eq!(graphs, model.graphs, "named graphs");
    for graph in probes.iter().chain(&model.graphs) {
        let exists = match reader
            .graph_id(GraphName::from(graph.clone()).as_ref())
            .expect("id")
        {
            Some(id) => reader.contains_named_graph(id).expect("graph lookup"),
            None => false,
        };
        assert_eq!(exists, model.graphs.contains(graph), "does {graph} exist?");
    }
}

/// Usage counters, per-graph positions and class counts of `terms` and of every term the
/// model uses are the model's; the batched read of usage counters agrees with the single one.
pub fn check_statistics(reader: &Reader<'_>, model: &Model, terms: &[Term]) {
    let statistics = model.statistics();
    let used = model.terms();
    let mut all = used.clone();
    all.extend(terms.iter().cloned());
    let mut read_one_by_one = Vec::new();
    for term in &all {
        let expected = statistics.get(term).cloned().unwrap_or_default();
        let Some(id) = reader.term_id(term.as_ref()).expect("term lookup") else {
            assert_eq!(
                expected,
                Expected::default(),
                "{term} is used but unknown to the store"
            );
            assert!(!used.contains(term), "{term} names a graph but is unknown");
            continue;
        };
        let positions: HashMap<GraphName, u64> = reader
            .term_graphs(id, usize::MAX)
            .expect("term graphs")
            .into_iter()
            .map(|u| {
                let graph = if u.graph.is_default_graph() {
                    GraphName::DefaultGraph
                } else {
                    match reader.term(u.graph).expect("graph name") {
                        Term::NamedNode(n) => n.into(),
                        Term::BlankNode(b) => b.into(),
                        Term::Literal(l) => panic!("literal graph name {l}"),
                    }
                };
                (graph, u.positions)
            })
            .collect();
        read_one_by_one.push((id, reader.usage(id).expect("usage")));
        let actual = Expected {
            usage: reader.usage(id).expect("usage"),
            positions,
            instances: reader.class_instances(id).expect("class count"),
        };
        assert_eq!(actual, expected, "statistics of {term}");
    }
    let (ids, one_by_one): (Vec<_>, Vec<_>) = read_one_by_one.into_iter().unzip();
    assert_eq!(
        reader.usages(&ids).expect("batched usage"),
        one_by_one,
        "batched usage counters"
    );
}

/// Store totals: quads, named graphs, subjects, predicates, classes and dictionary entries
/// (which proves that terms nothing uses any more were reclaimed).
pub fn check_counts(reader: &Reader<'_>, model: &Model) {
    let counts = reader.counts().expect("counts");
    let distinct = |f: &dyn Fn(&Quad) -> Option<Term>| {
        model
            .quads
            .iter()
            .filter_map(|q| f(&q.into_owned()))
            .collect::<HashSet<_>>()
            .len() as u64
    };
    assert_eq!(counts.quads, model.quads.len() as u64, "quad count");
    assert_eq!(
        counts.named_graphs,
        model.graphs.len() as u64,
        "named graph count"
    );
    assert_eq!(
        counts.subjects,
        distinct(&|q| Some(q.subject.clone().into())),
        "subjects"
    );
    assert_eq!(
        counts.predicates,
        distinct(&|q| Some(q.predicate.clone().into())),
        "predicates"
    );
    assert_eq!(
        counts.classes,
        distinct(&|q| (q.predicate == rdf::TYPE).then(|| q.object.clone())),
        "classes"
    );
    assert_eq!(
        counts.dictionary_terms,
        model.dictionary_terms(),
        "dictionary entries"
    );
}

/// Everything a committed reader reports agrees with the model.
pub fn check_store(store: &Store, model: &Model, probes: &[Quad]) {
    let reader = store.reader();
    check_patterns(&reader, model, probes);
    let graph_probes: Vec<NamedOrBlankNode> = probes
        .iter()
        .filter_map(|q| named_graph(&q.graph_name))
        .collect();
    check_graphs(&reader, model, &graph_probes);
    let term_probes: Vec<Term> = probes
        .iter()
        .flat_map(|q| {
            [
                q.subject.clone().into(),
                q.predicate.clone().into(),
                q.object.clone(),
            ]
        })
        .collect();
    check_statistics(&reader, model, &term_probes);
    check_counts(&reader, model);
    check_hash_iris(&reader, model);
}

/// The hash IRIs of every document the model's IRIs name (and of one it never uses) are the
/// IRIs in use with that document part.
pub fn check_hash_iris(reader: &Reader<'_>, model: &Model) {
    let hash_iris: Vec<NamedNode> = model
        .terms()
        .into_iter()
        .filter_map(|t| match t {
            Term::NamedNode(n) if n.as_str().contains('#') => Some(n),
            _ => None,
        })
        .collect();
    let mut documents: HashSet<String> = hash_iris
        .iter()
        .filter_map(|n| n.as_str().split_once('#').map(|(d, _)| d.to_owned()))
        .collect();
    documents.insert("http://example.com/never".to_owned());
    for document in documents {
        let mut expected: Vec<&NamedNode> = hash_iris
            .iter()
            .filter(|n| {
                n.as_str()
                    .split_once('#')
                    .is_some_and(|(d, _)| d == document)
            })
            .collect();
        expected.sort();
        let found = reader.hash_iris(&document, usize::MAX).expect("hash IRIs");
        let found: Vec<&NamedNode> = found.iter().map(|(_, n)| n).collect();
        assert_eq!(found, expected, "hash IRIs of {document}");
    }
}
