//! Look-ups of a subject's values for one predicate (`?o` of `<s> <p> ?o`) served from the
//! predicate's column of subjects (`database::columns`) once look-ups have paid for one:
//! they must read what the index reads, in the same order, in every graph and in the default
//! graph alone, before and after a commit that changes the predicate, for a reader of either
//! state, and a transaction's reader must see its own changes.

use crate::support::{graph_suffix, options, proptest_config, transaction_load, TempStore};
use lodestone_store::load::RdfFormat;
use lodestone_store::{Reader, StoreOptions, TermId};
use oxrdf::NamedNode;
use proptest::prelude::*;
use std::fmt::Write;

const E: &str = "http://e/";

/// Subjects, predicates and objects are drawn from few names, so that subjects have several
/// values and predicates many quads.
const SUBJECTS: u8 = 12;
const PREDICATES: u8 = 3;

#[derive(Debug, Clone)]
struct Statement {
    subject: u8,
    predicate: u8,
    /// An IRI below 100, a literal above.
    object: u8,
    /// `None`: the default graph, else one of three named graphs.
    graph: Option<u8>,
}

fn statement() -> impl Strategy<Value = Statement> {
    (
        0..SUBJECTS,
        0..PREDICATES,
        0u8..200,
        proptest::option::of(0u8..3),
    )
        .prop_map(|(subject, predicate, object, graph)| Statement {
            subject,
            predicate,
            object,
            graph,
        })
}

fn n_quads(statements: &[Statement]) -> String {
    let mut out = String::new();
    for s in statements {
        let object = if s.object < 100 {
            format!("<{E}o{}>", s.object)
        } else {
            format!("\"v{}\"", s.object)
        };
        let g = graph_suffix(s.graph);
        writeln!(
            out,
            "<{E}s{}> <{E}p{}> {object}{g} .",
            s.subject, s.predicate
        )
        .unwrap();
    }
    out
}

fn id(reader: &Reader<'_>, iri: String) -> Option<TermId> {
    reader
        .term_id(NamedNode::new_unchecked(iri).as_ref().into())
        .unwrap()
}

/// Every look-up of every subject and predicate, in every graph and in the default graph,
/// three times over (so that the look-ups pay for the columns and later ones read them), as
/// the quads read.
fn lookups(reader: &Reader<'_>) -> Vec<Vec<(TermId, TermId)>> {
    let mut out = Vec::new();
    for _ in 0..3 {
        for p in 0..PREDICATES {
            for s in 0..SUBJECTS {
                let (Some(subject), Some(predicate)) = (
                    id(reader, format!("{E}s{s}")),
                    id(reader, format!("{E}p{p}")),
                ) else {
                    out.push(Vec::new());
                    continue;
                };
                for graph in [None, Some(TermId::DEFAULT_GRAPH)] {
                    out.push(
                        reader
                            .quads_for_pattern(Some(subject), Some(predicate), None, graph)
                            .map(|q| {
                                let q = q.unwrap();
                                (q.object, q.graph)
                            })
                            .collect(),
                    );
                }
            }
        }
    }
    out
}

/// Removes every quad of subject `s` with predicate `p` in one commit.
fn remove_values(store: &TempStore, s: u8, p: u8) {
    let mut transaction = store.transaction().unwrap();
    let old = {
        let reader = transaction.reader();
        match (
            id(&reader, format!("{E}s{s}")),
            id(&reader, format!("{E}p{p}")),
        ) {
            (Some(subject), Some(predicate)) => reader
                .quads_for_pattern(Some(subject), Some(predicate), None, None)
                .map(Result::unwrap)
                .collect(),
            _ => Vec::new(),
        }
    };
    for quad in old {
        transaction.remove_encoded(quad).unwrap();
    }
    transaction.commit().unwrap();
}

fn without_columns() -> TempStore {
    TempStore::with_options(StoreOptions {
        subject_columns_bytes: 0,
        ..options()
    })
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn subject_columns_read_as_the_index(
        statements in proptest::collection::vec(statement(), 1..300),
        added in proptest::collection::vec(statement(), 1..20),
        removed in (0..SUBJECTS, 0..PREDICATES),
    ) {
        let with = TempStore::new();
        let without = without_columns();
        let data = n_quads(&statements);
        for store in [&with, &without] {
            transaction_load(store, &[("data.nq", data.as_bytes(), RdfFormat::NQuads)]);
        }
        let before = with.reader();
        let first = lookups(&before);
        prop_assert_eq!(&first, &lookups(&without.reader()));
        // A commit removes one subject's values of one predicate and adds others.
        let more = n_quads(&added);
        for store in [&with, &without] {
            remove_values(store, removed.0, removed.1);
            transaction_load(store, &[("more.nq", more.as_bytes(), RdfFormat::NQuads)]);
        }
        prop_assert_eq!(lookups(&with.reader()), lookups(&without.reader()));
        // A reader of the state before the commit still reads that state.
        prop_assert_eq!(first, lookups(&before));
        // A transaction's reader sees its own changes, not the columns of the committed state.
        let mut transaction = with.transaction().unwrap();
        let mut expected = without.transaction().unwrap();
        for t in [&mut transaction, &mut expected] {
            let reader = t.reader();
            let quads: Vec<_> = [(0, 0), (1, 1)]
                .into_iter()
                .filter_map(|(s, p)| {
                    let subject = id(&reader, format!("{E}s{s}"))?;
                    let predicate = id(&reader, format!("{E}p{p}"))?;
                    Some(reader.quads_for_pattern(Some(subject), Some(predicate), None, None))
                })
                .flatten()
                .map(Result::unwrap)
                .collect();
            drop(reader);
            for quad in quads {
                t.remove_encoded(quad).unwrap();
            }
        }
        prop_assert_eq!(lookups(&transaction.reader()), lookups(&expected.reader()));
    }
}

/// The columns are used: once a for-loop join's look-ups have paid for its column, a
/// subject's values are read without a block of the store (the data flushed to files first;
/// look-ups of subjects far apart read different blocks); a query's few look-ups do not
/// count.
#[test]
fn lookups_are_served_from_the_column_once_paid_for() {
    const SUBJECTS: usize = 2_000;
    const VALUES: usize = 10;
    let mut data = String::new();
    for s in 0..SUBJECTS {
        for v in 0..VALUES {
            writeln!(data, "<{E}s{s}> <{E}p> \"value {v} of {s}\" .").unwrap();
        }
    }
    let lookups = |store: &TempStore, reader: &Reader<'_>, subjects: &[usize]| {
        let predicate = id(reader, format!("{E}p")).unwrap();
        let subjects: Vec<TermId> = subjects
            .iter()
            .map(|s| id(reader, format!("{E}s{s}")).unwrap())
            .collect();
        let before = store.cache_stats().unwrap();
        for &subject in &subjects {
            let values = reader
                .quads_for_pattern(Some(subject), Some(predicate), None, None)
                .count();
            assert_eq!(values, VALUES);
        }
        let after = store.cache_stats().unwrap();
        (after.hits + after.misses) - (before.hits + before.misses)
    };
    let spread: Vec<usize> = (0..SUBJECTS).step_by(97).collect();
    for columns in [true, false] {
        let store = if columns {
            TempStore::new()
        } else {
            without_columns()
        };
        transaction_load(&store, &[("data.nq", data.as_bytes(), RdfFormat::NQuads)]);
        store.flush().unwrap();
        // Readers that look the predicate up once each (as pages do) never pay for a column.
        for s in 0..300 {
            lookups(&store, &store.reader(), &[s]);
        }
        let reader = store.reader();
        assert!(lookups(&store, &reader, &spread) >= spread.len() as u64 / 2);
        // 20,000 quads: 157 look-ups past a reader's 16th (a seek counts as 128 entries read)
        // pay for the column.
        let paying: Vec<usize> = (0..200).collect();
        lookups(&store, &reader, &paying);
        let reads = lookups(&store, &reader, &spread);
        if columns {
            assert_eq!(reads, 0, "the look-ups read the index");
        } else {
            assert!(reads >= spread.len() as u64 / 2);
        }
    }
}
