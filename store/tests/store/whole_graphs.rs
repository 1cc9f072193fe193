//! Graphs cleared whole (clear, drop, replace) become one range deletion in the graph-first
//! indexes and point deletions in the others: every index, the statistics and the counts must
//! still agree with the model, including for quads put back after the clear in the same
//! transaction, quads of other graphs next to the cleared one, and readers opened before.

use crate::model::{apply, Op};
use crate::oracle::{check_patterns, check_store, Model};
use crate::support::TempStore;
use lodestone_store::{Store, StoreOptions};
use oxrdf::{GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Triple};

fn iri(name: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("http://example.com/{name}"))
}

fn graph(name: &str) -> GraphName {
    iri(name).into()
}

fn triple(s: &str, p: &str, o: i64) -> Triple {
    Triple::new(iri(s), iri(p), Literal::from(o))
}

fn quad(s: &str, p: &str, o: i64, g: &str) -> Quad {
    triple(s, p, o).in_graph(graph(g))
}

/// Commits each list of operations as one transaction, checking the store after each.
fn run(transactions: &[Vec<Op>]) -> (TempStore, Model) {
    let store = TempStore::new();
    let mut model = Model::default();
    let probes = [quad("a", "p", 1, "g"), quad("x", "p", 9, "h")];
    for ops in transactions {
        let mut transaction = store.transaction().expect("transaction");
        for op in ops {
            apply(&mut transaction, &mut model, op);
        }
        transaction.commit().expect("commit");
        check_store(&store, &model, &probes);
    }
    (store, model)
}

/// Graph `g` with three quads, and graphs on both sides of it (by id) sharing its subjects.
fn setup() -> Vec<Op> {
    vec![
        Op::Insert(quad("a", "p", 0, "f")),
        Op::Insert(quad("a", "p", 1, "g")),
        Op::Insert(quad("b", "p", 1, "g")),
        Op::Insert(quad("c", "q", 1, "g")),
        Op::Insert(quad("a", "p", 1, "h")),
        Op::Insert(
            Triple::new(iri("a"), iri("p"), Literal::from(1)).in_graph(GraphName::DefaultGraph),
        ),
    ]
}

#[test]
fn a_replacement_keeps_unchanged_quads_and_the_neighbouring_graphs() {
    // `a p 1` and `b p 1` stay; `c q 1` goes; `d p 2` comes.
    let next = Op::Replace(
        graph("g"),
        vec![
            triple("a", "p", 1),
            triple("b", "p", 1),
            triple("d", "p", 2),
        ],
    );
    // The same content again: nothing changes, yet the graph is cleared and put back.
    let (store, model) = run(&[setup(), vec![next.clone()], vec![next]]);
    assert_eq!(model.quads.len(), 6);
    let store = store.reopen();
    check_store(&store, &model, &[]);
}

#[test]
fn clear_then_put_back_then_remove_again_in_one_transaction() {
    let (_, model) = run(&[
        setup(),
        vec![
            Op::Clear(graph("g")),
            Op::Insert(quad("a", "p", 1, "g")), // put back
            Op::Insert(quad("a", "p", 1, "g")), // already there
            Op::Remove(quad("a", "p", 1, "g")),
            Op::Insert(quad("a", "p", 1, "g")),
            Op::Insert(quad("e", "p", 5, "g")),
            Op::Clear(graph("g")), // a second clear of the same graph
            Op::Insert(quad("b", "p", 1, "g")),
        ],
    ]);
    let in_g: Vec<_> = model
        .quads
        .iter()
        .filter(|q| q.graph_name == graph("g").as_ref())
        .collect();
    assert_eq!(in_g.len(), 1);
}

#[test]
fn clearing_and_dropping_leave_other_graphs_whole() {
    let g: NamedOrBlankNode = iri("g").into();
    run(&[
        setup(),
        vec![Op::Clear(GraphName::DefaultGraph), Op::Drop(g.clone())],
        vec![Op::Insert(quad("a", "p", 3, "g")), Op::Clear(graph("f"))],
        vec![Op::Drop(g), Op::Drop(iri("h").into())],
    ]);
}

#[test]
fn clearing_a_graph_named_in_the_same_transaction_removes_only_its_new_quads() {
    // `n` and `m` are new terms, so their clears take the transaction's own quads instead of
    // scanning the store; `m` is replaced twice, so the second clear removes the first's quad.
    // `a`, `p` and 1 are committed terms of other graphs, whose counts must come out right.
    run(&[
        setup(),
        vec![
            Op::Insert(quad("a", "p", 1, "n")),
            Op::Insert(quad("e", "p", 5, "n")),
            Op::Clear(graph("n")),
            Op::Insert(quad("e", "p", 6, "n")),
            Op::Replace(graph("m"), vec![triple("a", "p", 1)]),
            Op::Replace(graph("m"), vec![triple("a", "p", 2)]),
        ],
    ]);
}

#[test]
fn a_reader_opened_before_a_replacement_keeps_the_old_version() {
    let (store, before_model) = run(&[setup()]);
    let before = store.reader();
    let mut model = before_model.clone();
    let mut transaction = store.transaction().expect("transaction");
    apply(
        &mut transaction,
        &mut model,
        &Op::Replace(graph("g"), vec![triple("z", "p", 7)]),
    );
    transaction.commit().expect("commit");
    check_patterns(&before, &before_model, &[]);
    check_store(&store, &model, &[]);
}

/// With the default threshold: a large graph replaced (range deletion), a small one cleared
/// (point deletions), both in one transaction, then the large one replaced by a small one.
#[test]
fn the_default_threshold_range_deletes_large_graphs_only() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let store = Store::open(
        dir.path().join("store"),
        StoreOptions::default().with_memory_budget(128 << 20),
    )
    .expect("store");
    let large = 1_500;
    let version = |v: i64| -> Vec<Triple> {
        (0..large)
            .map(|k| triple(&format!("s{k}"), "p", if k % 2 == 0 { 0 } else { v }))
            .collect()
    };
    let mut model = Model::default();
    let steps = [
        vec![
            Op::Replace(graph("big"), version(0)),
            Op::Insert(quad("a", "p", 1, "small")),
            Op::Insert(quad("s1", "p", 1, "small")),
        ],
        // Half the quads stay (put back after the clear), half change.
        vec![
            Op::Replace(graph("big"), version(1)),
            Op::Clear(graph("small")),
            Op::Insert(quad("b", "p", 2, "small")),
        ],
        vec![Op::Replace(graph("big"), vec![triple("s1", "p", 3)])],
    ];
    for ops in &steps {
        let mut transaction = store.transaction().expect("transaction");
        for op in ops {
            apply(&mut transaction, &mut model, op);
        }
        transaction.commit().expect("commit");
        check_store(&store, &model, &[]);
    }
    assert_eq!(model.quads.len(), 2);
}
