//! Snapshot isolation: readers running while the writer commits always see one whole
//! commit, the same in every index and in the counters.

use crate::support::TempStore;
use lodestone_store::Store;
use oxrdf::{GraphName, Literal, NamedNode, Quad};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const QUADS: usize = 20;
const COMMITS: usize = 300;

fn p() -> NamedNode {
    NamedNode::new_unchecked("http://example.com/p")
}

fn quad(n: usize) -> Quad {
    Quad::new(
        NamedNode::new_unchecked(format!("http://example.com/s{n}")),
        p(),
        Literal::from(n as i64),
        GraphName::from(NamedNode::new_unchecked(format!(
            "http://example.com/g{}",
            n % 3
        ))),
    )
}

/// Each commit removes the oldest quad and adds a new one: every snapshot holds exactly
/// `QUADS` quads, whichever index it is read through. The writer goes on past `COMMITS`
/// until the readers have checked a snapshot (on a busy machine they may start late).
fn writer(store: &Store, done: &AtomicBool, checked: &AtomicUsize) {
    let mut transaction = store.transaction().expect("transaction");
    for n in 0..QUADS {
        transaction.insert(quad(n).as_ref()).expect("insert");
    }
    transaction.commit().expect("commit");
    let started = Instant::now();
    for n in QUADS.. {
        let enough = n >= QUADS + COMMITS && checked.load(Ordering::Acquire) > 0;
        if enough || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        let mut transaction = store.transaction().expect("transaction");
        assert!(transaction
            .remove(quad(n - QUADS).as_ref())
            .expect("remove"));
        assert!(transaction.insert(quad(n).as_ref()).expect("insert"));
        transaction.commit().expect("commit");
    }
    done.store(true, Ordering::Release);
}

/// Checks snapshots until the writer is done, counting the non-empty ones in `checked`.
fn reader(store: &Store, done: &AtomicBool, checked: &AtomicUsize) {
    while !done.load(Ordering::Acquire) {
        let reader = store.reader();
        let counts = reader.counts().expect("counts");
        if counts.quads == 0 {
            continue; // before the first commit
        }
        let by_subject = reader.quads_for_pattern(None, None, None, None).count();
        let p = reader
            .term_id(p().as_ref().into())
            .expect("lookup")
            .expect("p is stored");
        let by_predicate = reader.quads_for_pattern(None, Some(p), None, None).count();
        let by_graph: usize = reader
            .named_graphs()
            .expect("graphs")
            .into_iter()
            .map(|g| reader.quads_for_pattern(None, None, None, Some(g)).count())
            .sum();
        let seen = [
            usize::try_from(counts.quads).unwrap(),
            by_subject,
            by_predicate,
            by_graph,
        ];
        assert_eq!(
            seen, [QUADS; 4],
            "counter, SPOG, POSG and GSPO views of one snapshot"
        );
        assert_eq!(reader.usage(p).expect("usage").as_predicate, QUADS as u64);
        checked.fetch_add(1, Ordering::AcqRel);
    }
}

#[test]
fn readers_see_whole_commits_while_the_writer_commits() {
    let store = TempStore::new();
    let done = AtomicBool::new(false);
    let checked = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| reader(&store, &done, &checked));
        }
        writer(&store, &done, &checked);
    });
    assert!(
        checked.load(Ordering::Acquire) > 0,
        "no snapshot was checked while the writer ran"
    );
}
