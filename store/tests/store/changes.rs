//! The change log: one entry per commit, in order, listing each subject whose statements
//! changed, through transactions and bulk loads alike; it survives a reopen and can be
//! trimmed.

use crate::support::{write_input, TempStore};
use lodestone_store::load::BulkLoader;
use lodestone_store::{ChangeBatch, Store, TermId};
use oxrdf::{GraphName, Literal, NamedNode, Quad};

fn iri(name: &str) -> NamedNode {
    NamedNode::new_unchecked(format!("http://example.com/{name}"))
}

fn quad(subject: &str, value: &str, graph: GraphName) -> Quad {
    Quad::new(
        iri(subject),
        iri("p"),
        Literal::new_simple_literal(value),
        graph,
    )
}

fn id(store: &Store, name: &str) -> TermId {
    store
        .reader()
        .term_id(iri(name).as_ref().into())
        .expect("lookup")
        .unwrap_or_else(|| panic!("{name} is not in the store"))
}

fn ids(store: &Store, names: &[&str]) -> Vec<TermId> {
    let mut ids: Vec<TermId> = names.iter().map(|n| id(store, n)).collect();
    ids.sort_unstable();
    ids
}

fn insert_and_commit(store: &Store, quads: &[Quad]) -> u64 {
    let mut transaction = store.transaction().expect("transaction");
    for q in quads {
        transaction.insert(q.as_ref()).expect("insert");
    }
    transaction.commit().expect("commit")
}

fn nt(quads: &[(&str, &str)]) -> String {
    quads
        .iter()
        .map(|(s, v)| format!("<http://example.com/{s}> <http://example.com/p> \"{v}\" .\n"))
        .collect()
}

#[test]
fn change_log_lists_the_subjects_of_every_commit_in_order() {
    let store = TempStore::new();
    let mut expected: Vec<Vec<TermId>> = Vec::new();
    let g = GraphName::from(iri("g"));

    // 1: two subjects inserted.
    insert_and_commit(
        &store,
        &[
            quad("s1", "a", g.clone()),
            quad("s2", "a", GraphName::DefaultGraph),
        ],
    );
    expected.push(ids(&store, &["s1", "s2"]));

    // 2: s1 loses its only statement (and leaves the dictionary), s3 gains one.
    let s1 = id(&store, "s1");
    let mut transaction = store.transaction().expect("transaction");
    transaction
        .remove(quad("s1", "a", g.clone()).as_ref())
        .expect("remove");
    transaction
        .insert(quad("s3", "a", g.clone()).as_ref())
        .expect("insert");
    assert_eq!(transaction.commit().expect("commit"), 2);
    let mut second = vec![s1, id(&store, "s3")];
    second.sort_unstable();
    expected.push(second);

    // A transaction that changes nothing is no commit.
    assert_eq!(
        insert_and_commit(&store, &[quad("s2", "a", GraphName::DefaultGraph)]),
        2
    );

    // 3: a bulk load; only the subjects of quads that were new count.
    let data = nt(&[("s2", "a"), ("s2", "b"), ("s4", "a")]);
    BulkLoader::new(&store)
        .load(&[write_input(store.scratch(), "one.nt", data.as_bytes())])
        .expect("load");
    expected.push(ids(&store, &["s2", "s4"]));

    // 4, 5, 6: a bulk load written in chunks (one parse batch per file, chunks of one).
    let files: Vec<_> = ["s5", "s6", "s7"]
        .iter()
        .map(|s| {
            write_input(
                store.scratch(),
                &format!("{s}.nt"),
                nt(&[(s, "a")]).as_bytes(),
            )
        })
        .collect();
    BulkLoader::new(&store)
        .with_chunk_quads(1)
        .load(&files)
        .expect("load");
    for s in ["s5", "s6", "s7"] {
        expected.push(ids(&store, &[s]));
    }

    // 7: creating an empty graph is a commit without subjects.
    let mut transaction = store.transaction().expect("transaction");
    let empty = transaction
        .term_id_for_insert(iri("empty").as_ref().into())
        .expect("id");
    assert!(transaction.create_graph(empty).expect("create"));
    transaction.commit().expect("commit");
    expected.push(Vec::new());

    // 8: dropping a graph changes the subjects it held.
    let mut before_drop = ids(&store, &["s3"]);
    let mut transaction = store.transaction().expect("transaction");
    let graph = transaction
        .term_id_for_insert(iri("g").as_ref().into())
        .expect("id");
    assert!(transaction.drop_graph(graph).expect("drop"));
    transaction.commit().expect("commit");
    before_drop.sort_unstable();
    expected.push(before_drop);

    let check = |store: &Store, after: u64| {
        let log = store.changes_since(after, 100).expect("change log");
        let sequences: Vec<u64> = log.iter().map(|b| b.sequence).collect();
        let wanted: Vec<u64> = (after + 1..=expected.len() as u64).collect();
        assert_eq!(sequences, wanted);
        for ChangeBatch { sequence, subjects } in &log {
            assert_eq!(
                subjects,
                &expected[usize::try_from(*sequence).unwrap() - 1],
                "subjects of commit {sequence}"
            );
        }
    };
    assert_eq!(store.sequence(), expected.len() as u64);
    check(&store, 0);
    check(&store, 5);
    assert_eq!(
        store.changes_since(2, 2).expect("log").len(),
        2,
        "at most `limit` entries"
    );

    let store = store.reopen();
    check(&store, 0);
    store.trim_changes(3).expect("trim");
    check(&store, 3);
    assert_eq!(
        store.changes_since(0, 100).expect("log")[0].sequence,
        4,
        "trimmed entries are gone"
    );
}
