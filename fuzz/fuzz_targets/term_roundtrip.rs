//! Term encoding round trip: any RDF term written in a quad reads back identical (IRIs, blank
//! nodes, simple, language-tagged and typed literals, inlined integers and booleans).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lodestone_store::model::{BlankNode, GraphName, Literal, NamedNode, Quad, Term};
use lodestone_store::{Store, StoreOptions};
use std::sync::OnceLock;

fn store() -> &'static Store {
    static STORE: OnceLock<(tempfile::TempDir, Store)> = OnceLock::new();
    let (_, store) = STORE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path().join("s"), StoreOptions::default()).expect("store");
        (dir, store)
    });
    store
}

/// A term from fuzz bytes: the first byte picks the kind, the rest is its text.
fn term(data: &[u8]) -> Option<Term> {
    let (&kind, rest) = data.split_first()?;
    let text = std::str::from_utf8(rest).ok()?;
    let (head, tail) = text.split_once('\u{1}').unwrap_or((text, ""));
    Some(match kind % 7 {
        0 => NamedNode::new(format!("http://f.example/{text}")).ok()?.into(),
        1 => BlankNode::new(text).ok()?.into(),
        2 => Literal::new_simple_literal(text).into(),
        3 => Literal::new_language_tagged_literal(head, tail).ok()?.into(),
        4 => Literal::new_typed_literal(
            head,
            NamedNode::new(format!("http://www.w3.org/2001/XMLSchema#{tail}")).ok()?,
        )
        .into(),
        5 => Literal::new_typed_literal(
            text,
            NamedNode::new("http://www.w3.org/2001/XMLSchema#integer").ok()?,
        )
        .into(),
        _ => Literal::new_typed_literal(
            text,
            NamedNode::new("http://www.w3.org/2001/XMLSchema#boolean").ok()?,
        )
        .into(),
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(object) = term(data) else {
        return;
    };
    let store = store();
    let subject = NamedNode::new("http://f.example/s").expect("iri");
    let predicate = NamedNode::new("http://f.example/p").expect("iri");
    let graph = GraphName::from(NamedNode::new("http://f.example/g").expect("iri"));
    let quad = Quad::new(subject, predicate, object.clone(), graph.clone());
    let mut transaction = store.transaction().expect("transaction");
    let Some(graph_id) = transaction.graph_id_for_insert(graph.as_ref()).ok() else {
        return;
    };
    transaction.clear_graph(graph_id).expect("clear");
    transaction.insert(quad.as_ref()).expect("insert");
    transaction.commit().expect("commit");
    let reader = store.reader();
    let quads: Vec<Quad> = reader
        .quads_for_pattern(None, None, None, Some(graph_id))
        .map(|q| reader.decode_quad(&q.expect("quad")).expect("decode"))
        .collect();
    match (&object, quads.as_slice()) {
        // A blank node comes back as a blank node (labels are scoped to the document).
        (Term::BlankNode(_), [only]) => assert!(matches!(only.object, Term::BlankNode(_))),
        (_, [only]) => assert_eq!(only.object, object),
        _ => panic!("{} quads for {object}", quads.len()),
    }
});
