//! The fixture the indexer's integration tests share: a store of a few literals and its built
//! text index.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub, dead_code)] // test code

use lodestone_indexer::{IndexSettings, TextIndex};
use lodestone_store::model::{GraphNameRef, LiteralRef, NamedNodeRef, QuadRef};
use lodestone_store::{Store, StoreOptions};

/// `rdfs:label`.
pub const LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

pub fn iri(s: &str) -> NamedNodeRef<'_> {
    NamedNodeRef::new(s).expect("valid IRI")
}

/// A store of (subject, property, text, language) literals and its built index; a subject is
/// a local name under `http://example.org/`, an empty language a simple literal.
pub fn indexed(literals: &[(&str, &str, &str, &str)]) -> (tempfile::TempDir, Store, TextIndex) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path().join("store"), StoreOptions::default()).expect("store");
    let mut tx = store.transaction().expect("transaction");
    for (subject, property, text, lang) in literals {
        let literal = match *lang {
            "" => LiteralRef::new_simple_literal(text),
            lang => LiteralRef::new_language_tagged_literal_unchecked(text, lang),
        };
        let subject = format!("http://example.org/{subject}");
        tx.insert(QuadRef::new(
            iri(&subject),
            iri(property),
            literal,
            GraphNameRef::DefaultGraph,
        ))
        .expect("insert");
    }
    tx.commit().expect("commit");
    let index =
        TextIndex::open(dir.path().join("text-index"), IndexSettings::default()).expect("open");
    index.catch_up(&store).expect("build");
    (dir, store, index)
}
