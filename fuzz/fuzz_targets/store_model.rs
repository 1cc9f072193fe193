//! The store against an in-memory model: a sequence of transactions of inserts, removes and
//! graph clears over a small vocabulary; after each commit the store holds exactly the
//! model's quads, and a transaction dropped without commit changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lodestone_store::model::{GraphName, NamedNode, Quad};
use lodestone_store::{Store, StoreOptions};
use std::collections::BTreeSet;

fn iri(kind: &str, n: u8) -> NamedNode {
    NamedNode::new(format!("http://m.example/{kind}{}", n % 4)).expect("iri")
}

fn quad(bytes: &[u8]) -> Quad {
    let graph = match bytes[3] % 3 {
        0 => GraphName::DefaultGraph,
        _ => iri("g", bytes[3]).into(),
    };
    Quad::new(iri("s", bytes[0]), iri("p", bytes[1]), iri("o", bytes[2]), graph)
}

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path().join("s"), StoreOptions::default()).expect("store");
    let mut model: BTreeSet<String> = BTreeSet::new();
    for batch in data.chunks(25) {
        let (&control, ops) = match batch.split_first() {
            Some(split) => split,
            None => continue,
        };
        let mut pending = model.clone();
        let mut transaction = store.transaction().expect("transaction");
        for op in ops.chunks_exact(4) {
            let q = quad(op);
            match op[0] >> 6 {
                0 | 1 => {
                    transaction.insert(q.as_ref()).expect("insert");
                    pending.insert(q.to_string());
                }
                2 => {
                    transaction.remove(q.as_ref()).expect("remove");
                    pending.remove(&q.to_string());
                }
                _ => {
                    let graph = transaction
                        .graph_id_for_insert(q.graph_name.as_ref())
                        .expect("graph");
                    transaction.clear_graph(graph).expect("clear");
                    // A quad prints as `<s> <p> <o> <g>` (no final dot).
                    let suffix = format!(" {}", q.graph_name);
                    pending.retain(|line| match &q.graph_name {
                        GraphName::DefaultGraph => line.matches('<').count() != 3,
                        _ => !line.ends_with(&suffix),
                    });
                }
            }
        }
        if control % 5 == 0 {
            drop(transaction);
        } else {
            transaction.commit().expect("commit");
            model = pending;
        }
        let reader = store.reader();
        let stored: BTreeSet<String> = reader
            .all_quads()
            .map(|q| q.expect("quad").to_string())
            .collect();
        assert_eq!(stored, model);
        assert_eq!(reader.counts().expect("counts").quads, model.len() as u64);
    }
});
