//! Load → dump round trips in every syntax, through the bulk loader (SST ingestion) and
//! through `parse_into` (transactions): the store must give back a dataset isomorphic to the
//! document, with its exact lexical forms, and statistics that agree with what it holds.

use crate::oracle::{check_store, Model};
use crate::support::{
    assert_isomorphic, bulk_load, dump, music, parse, serialize, transaction_load, write_input,
    TempStore, FORMATS,
};
use lodestone_store::load::RdfFormat;
use oxrdf::Dataset;

const TURTLE: &str = r#"
@base <http://example.com/base/> .
@prefix ex: <http://example.com/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:alice a ex:Person ;
    ex:name "Alice", "Alicia"@es, "Alice"@en-GB ;
    ex:age "01"^^xsd:integer, 42, "42"^^xsd:integer, 1.0, 1e3, true, "1"^^xsd:boolean ;
    ex:knows [ ex:name "Bob" ; ex:knows _:carol ] ;
    ex:list ( 1 "two" ex:three ) .
_:carol ex:name "Carol \"C\" line\nbreak, tab\t and é" ;
    ex:home <relative/path> .
<relative/path> ex:label """a
long literal"""@en .
"#;

const TRIG: &str = r#"
@prefix ex: <http://example.com/> .
ex:a ex:p ex:b .
ex:g1 { ex:a ex:p "in g1" ; ex:q _:b1 . _:b1 ex:r "blank in g1" . }
GRAPH ex:g2 { ex:a ex:p "in g2"@fr . _:b1 ex:r 5 . }
_:g3 { ex:x ex:y ex:z . }
"#;

const NQUADS: &str = r#"<http://example.com/s> <http://example.com/p> "o" .
<http://example.com/s> <http://example.com/p> "o" <http://example.com/g> .
_:b1 <http://example.com/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> <http://example.com/g> .
_:b1 <http://example.com/p> _:b2 .
_:b2 <http://example.com/p> "\u00E9t\u00E9\n"@fr _:g .
"#;

const NTRIPLES: &str = r#"<http://example.com/s> <http://example.com/p> "o" .
<http://example.com/s> <http://example.com/p> "1.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .
_:b1 <http://example.com/p> _:b2 .
_:b2 <http://example.com/p> "chat"@fr .
_:b2 <http://example.com/q> _:b1 .
"#;

const RDF_XML: &str = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.com/">
  <ex:Person rdf:about="http://example.com/alice">
    <ex:name xml:lang="en">Alice</ex:name>
    <ex:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">01</ex:age>
    <ex:knows><ex:Person><ex:name>Bob</ex:name></ex:Person></ex:knows>
    <ex:friend rdf:nodeID="carol"/>
  </ex:Person>
  <rdf:Description rdf:nodeID="carol"><ex:name>Carol</ex:name></rdf:Description>
</rdf:RDF>
"#;

const N3: &str = r#"
@prefix ex: <http://example.com/> .
ex:a ex:p ex:b ; ex:q [ ex:r "x" ] ; ex:list ( 1 2 ) .
{ ex:a ex:p ex:b } ex:implies { ex:a ex:q ex:c } .
"#;

const JSON_LD: &str = r#"{
  "@context": {
    "ex": "http://example.com/",
    "name": "http://example.com/name",
    "age": {"@id": "http://example.com/age", "@type": "http://www.w3.org/2001/XMLSchema#integer"}
  },
  "@graph": [
    {"@id": "ex:alice", "@type": "ex:Person", "name": {"@value": "Alice", "@language": "en"},
     "age": "01", "ex:knows": {"name": "Bob"}},
    {"@id": "_:carol", "name": "Carol"},
    {"@id": "ex:g", "@graph": [{"@id": "ex:alice", "name": "Alice in g"}]}
  ]
}"#;

fn file_name(format: RdfFormat) -> String {
    format!("document.{}", format.file_extension())
}

/// The handwritten documents, one per syntax.
fn documents() -> Vec<(RdfFormat, &'static str)> {
    vec![
        (RdfFormat::NTriples, NTRIPLES),
        (RdfFormat::NQuads, NQUADS),
        (RdfFormat::Turtle, TURTLE),
        (RdfFormat::TriG, TRIG),
        (RdfFormat::RdfXml, RDF_XML),
        (RdfFormat::N3, N3),
        (FORMATS[6], JSON_LD),
    ]
}

/// The store holds `expected` (up to blank node names), its statistics agree with its
/// content, and its dump written in `format` parses back to the same dataset.
fn check_loaded(store: &TempStore, expected: &Dataset, format: RdfFormat, context: &str) {
    let dumped = dump(store);
    assert_isomorphic(&dumped, expected, context);
    check_store(store, &Model::from_dataset(&dumped), &[]);
    if format.supports_datasets() || dumped.iter().all(|q| q.graph_name.is_default_graph()) {
        let written = serialize(&dumped, format);
        assert_isomorphic(
            &parse(&written, format),
            expected,
            &format!("{context}, dumped as {format}"),
        );
    }
}

fn bulk_round_trip(format: RdfFormat, data: &[u8], context: &str) {
    let expected = parse(data, format);
    assert!(!expected.is_empty(), "{context}: empty test document");
    let store = TempStore::new();
    let input = write_input(store.scratch(), &file_name(format), data);
    let report = bulk_load(&store, &[input]);
    assert_eq!(
        report.quads_added,
        expected.len() as u64,
        "{context}: quads added"
    );
    check_loaded(&store, &expected, format, context);
}

fn transaction_round_trip(format: RdfFormat, data: &[u8], context: &str) {
    let expected = parse(data, format);
    assert!(!expected.is_empty(), "{context}: empty test document");
    let store = TempStore::new();
    transaction_load(&store, &[(&file_name(format), data, format)]);
    check_loaded(&store, &expected, format, context);
}

#[test]
fn handwritten_documents_round_trip_through_the_bulk_loader() {
    for (format, document) in documents() {
        bulk_round_trip(format, document.as_bytes(), &format!("bulk {format}"));
    }
}

#[test]
fn handwritten_documents_round_trip_through_transactions() {
    for (format, document) in documents() {
        transaction_round_trip(
            format,
            document.as_bytes(),
            &format!("transaction {format}"),
        );
    }
}

/// The real slice rewritten in every syntax.
fn real_documents() -> Vec<(RdfFormat, Vec<u8>)> {
    let quads = parse(music(3000).as_bytes(), RdfFormat::NTriples);
    FORMATS
        .iter()
        .map(|format| (*format, serialize(&quads, *format)))
        .collect()
}

#[test]
fn real_data_round_trips_through_the_bulk_loader_in_every_syntax() {
    for (format, document) in real_documents() {
        bulk_round_trip(format, &document, &format!("music as {format}, bulk"));
    }
}

#[test]
fn real_data_round_trips_through_transactions_in_every_syntax() {
    for (format, document) in real_documents() {
        transaction_round_trip(
            format,
            &document,
            &format!("music as {format}, transaction"),
        );
    }
}

#[test]
fn lexical_forms_survive_exactly() {
    let store = TempStore::new();
    let data = r#"<http://example.com/s> <http://example.com/p> "01"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.com/s> <http://example.com/p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.com/s> <http://example.com/p> "+1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.com/s> <http://example.com/p> "1.0"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://example.com/s> <http://example.com/p> "1"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<http://example.com/s> <http://example.com/p> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
"#;
    bulk_load(
        &store,
        &[write_input(store.scratch(), "values.nt", data.as_bytes())],
    );
    let dumped = dump(&store);
    assert_eq!(
        dumped.len(),
        6,
        "six distinct literals, none merged by value"
    );
    assert_eq!(dumped, parse(data.as_bytes(), RdfFormat::NTriples));
}
