//! Bulk loads into stores that already hold data, and bulk loads mixed with transactions:
//! duplicates are stored and counted once, the dictionary is shared, statistics stay exact.

use crate::model::{apply, op, quad, Op, Probe};
use crate::oracle::{check_store, Model};
use crate::support::{
    bulk_load, counts, dump, music, parse, proptest_config, serialize, write_input, TempStore,
};
use lodestone_store::load::{BulkLoader, ParseOptions, RdfFormat};
use oxrdf::{Dataset, GraphName, NamedNode, Quad, Term};
use proptest::prelude::*;

fn lines(text: &str, skip: usize, take: usize) -> String {
    text.lines()
        .skip(skip)
        .take(take)
        .flat_map(|l| [l, "\n"])
        .collect()
}

#[test]
fn bulk_load_into_a_non_empty_store_counts_duplicates_once() {
    let all = music(3_000);
    let (first, second) = (lines(&all, 0, 2_000), lines(&all, 1_000, 2_000));
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(store.scratch(), "first.nt", first.as_bytes())],
    );
    let first_dataset = parse(first.as_bytes(), RdfFormat::NTriples);
    check_store(&store, &Model::from_dataset(&first_dataset), &[]);
    let probe = first_dataset
        .iter()
        .next()
        .expect("a quad")
        .subject
        .into_owned();
    let probe_id = store
        .reader()
        .term_id(probe.as_ref().into())
        .expect("lookup");

    let report = bulk_load(
        &store,
        &[write_input(store.scratch(), "second.nt", second.as_bytes())],
    );
    let expected = parse(lines(&all, 0, 3_000).as_bytes(), RdfFormat::NTriples);
    let new = expected.len() - first_dataset.len();
    assert_eq!(
        report.quads_added, new as u64,
        "only the quads not yet stored are added"
    );
    assert_eq!(dump(&store), expected);
    check_store(&store, &Model::from_dataset(&expected), &[]);
    let reader = store.reader();
    assert_eq!(
        reader.term_id(probe.as_ref().into()).expect("lookup"),
        probe_id,
        "ids are stable"
    );
}

#[test]
fn loading_the_same_file_again_changes_nothing() {
    let store = TempStore::new();
    let input = write_input(store.scratch(), "music.nt", music(500).as_bytes());
    bulk_load(&store, std::slice::from_ref(&input));
    let (before, sequence) = (counts(&store), store.sequence());
    let report = bulk_load(&store, &[input]);
    assert_eq!(report.quads_added, 0);
    assert_eq!(counts(&store), before);
    assert_eq!(store.sequence(), sequence, "nothing to commit");
}

#[test]
fn bulk_load_into_a_named_graph() {
    let store = TempStore::new();
    let graph = NamedNode::new_unchecked("http://example.com/graph");
    let input = write_input(store.scratch(), "music.nt", music(300).as_bytes());
    let options = ParseOptions {
        graph: Some(graph.clone().into()),
        ..ParseOptions::default()
    };
    BulkLoader::new(&store)
        .with_parse_options(options)
        .load(&[input])
        .expect("load");
    let expected: Dataset = parse(music(300).as_bytes(), RdfFormat::NTriples)
        .iter()
        .map(|q| {
            Quad::new(
                q.subject.into_owned(),
                q.predicate.into_owned(),
                q.object.into_owned(),
                graph.clone(),
            )
        })
        .collect();
    assert_eq!(dump(&store), expected);
    check_store(&store, &Model::from_dataset(&expected), &[]);
}

/// One step of a mixed workload.
#[derive(Clone)]
enum Step {
    Transaction(Vec<Op>, bool),
    /// Bulk loads these quads as an N-Quads file, in chunks of the given size.
    Bulk(Vec<Quad>, usize),
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Transaction(ops, commit) => write!(f, "Transaction({ops:?}, commit: {commit})"),
            Self::Bulk(quads, chunk) => {
                let quads: Vec<String> = quads.iter().map(ToString::to_string).collect();
                write!(f, "Bulk({quads:?}, chunk: {chunk})")
            }
        }
    }
}

fn has_blank_node(quad: &Quad) -> bool {
    quad.subject.is_blank_node()
        || matches!(quad.object, Term::BlankNode(_))
        || matches!(quad.graph_name, GraphName::BlankNode(_))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (prop::collection::vec(op(), 1..8), prop::bool::weighted(0.8))
            .prop_map(|(ops, commit)| Step::Transaction(ops, commit)),
        // Blank nodes in files are scoped to the file, so the model could not name them.
        (prop::collection::vec(quad(), 0..20), 1..30_usize).prop_map(|(quads, chunk)| {
            Step::Bulk(
                quads.into_iter().filter(|q| !has_blank_node(q)).collect(),
                chunk,
            )
        }),
    ]
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn bulk_loads_and_transactions_mixed_agree_with_the_model(
        steps in prop::collection::vec(step(), 1..6),
        probes in prop::collection::vec(quad().prop_map(Probe), 4),
    ) {
        let probes: Vec<Quad> = probes.into_iter().map(|p| p.0).collect();
        let store = TempStore::new();
        let mut model = Model::default();
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::Transaction(ops, commit) => {
                    let mut pending = model.clone();
                    let mut transaction = store.transaction().expect("transaction");
                    for op in ops {
                        apply(&mut transaction, &mut pending, op);
                    }
                    if *commit {
                        transaction.commit().expect("commit");
                        model = pending;
                    }
                }
                Step::Bulk(quads, chunk) => {
                    let data = serialize(quads.iter().map(Quad::as_ref), RdfFormat::NQuads);
                    let input = write_input(store.scratch(), &format!("step{i}.nq"), &data);
                    let report = BulkLoader::new(&store)
                        .with_chunk_quads(*chunk)
                        .load(&[input])
                        .expect("bulk load");
                    let added = quads.iter().filter(|q| model.insert(q)).count();
                    prop_assert_eq!(report.quads_added, added as u64);
                }
            }
            check_store(&store, &model, &probes);
        }
    }
}
