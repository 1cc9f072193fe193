//! Hash IRIs: `…/vocab` answers, in place, for `…/vocab#Person` and `…/vocab#knows`.

use crate::common::{header, parse_rdf, TestServer};
use crate::support::{get, BASE};
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::RdfFormat;

const DATA: &str = r#"
@prefix v: <http://example.org/resource/vocab#> .
@prefix ex: <http://example.org/resource/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
v:Person a rdfs:Class ; rdfs:label "Person"@en, "Personne"@fr .
v:knows rdfs:label "knows" ; rdfs:domain v:Person .
ex:alice a v:Person ; rdfs:label "Alice" .
<http://example.org/resource/vocabulary#other> rdfs:label "Not in the vocab" .
ex:onto a <http://www.w3.org/2002/07/owl#Ontology> ; rdfs:label "The ontology" .
<http://example.org/resource/onto#Term> rdfs:label "Term" .
"#;

fn server() -> TestServer {
    TestServer::with_data(ServerSettings::default().with_base_iri(BASE), DATA)
}

#[test]
fn a_hash_document_answers_in_place_with_its_resources() {
    let server = server();
    let turtle = get(&server, "/resource/vocab", "text/turtle");
    assert_eq!(turtle.status(), 200, "no redirect for a hash document");
    assert_eq!(header(&turtle, "content-location"), "/data/vocab.ttl");
    let triples = parse_rdf(&turtle.bytes().expect("body"), RdfFormat::Turtle);
    // Person: 3 own + `knows` points at it + alice's type; knows: 2 own. The link from
    // `knows` to `Person` is said once.
    assert_eq!(triples.len(), 6, "{triples:#?}");
    assert!(triples.iter().any(|t| t.contains("\"Personne\"@fr")));
    assert!(triples
        .iter()
        .any(|t| t.starts_with("<http://example.org/resource/alice>")));
    assert!(!triples.iter().any(|t| t.contains("Not in the vocab")));
    // The same document at its data and page URLs.
    let data = get(&server, "/data/vocab.nt", "");
    assert_eq!(data.status(), 200);
    assert_eq!(
        parse_rdf(&data.bytes().expect("body"), RdfFormat::NTriples).len(),
        6
    );
    let html = get(&server, "/resource/vocab", "text/html");
    assert_eq!(html.status(), 200);
    assert_eq!(header(&html, "content-location"), "/page/vocab");
    let html = html.text().expect("html");
    assert!(html.contains("<li id=\"Person\">"), "{html}");
    assert!(html.contains("<li id=\"knows\">"), "{html}");
    assert!(html.contains("/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fvocab%23Person"));
    assert!(html.contains(">Person</a>"), "the English label: {html}");
    let page = get(&server, "/page/vocab", "");
    assert_eq!(page.status(), 200);
    // Each resource keeps its own page.
    let person = get(
        &server,
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fvocab%23Person&format=nt",
        "",
    );
    assert_eq!(person.status(), 200);
    // Pages of entities link to a hash IRI's own page.
    let alice = get(&server, "/page/alice", "").text().expect("html");
    assert!(
        alice.contains(
            "href=\"/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fvocab%23Person\""
        ),
        "{alice}"
    );
}

#[test]
fn documents_without_hash_iris_are_not_found() {
    let server = server();
    for path in [
        "/resource/vocabx",
        "/resource/voc",
        "/page/vocab%23",
        "/data/nothing.ttl",
    ] {
        assert_eq!(get(&server, path, "text/turtle").status(), 404, "{path}");
    }
}

#[test]
fn a_described_document_also_covers_its_hash_iris() {
    let server = server();
    let turtle = get(&server, "/data/onto.ttl", "");
    assert_eq!(turtle.status(), 200);
    let triples = parse_rdf(&turtle.bytes().expect("body"), RdfFormat::Turtle);
    assert_eq!(
        triples.len(),
        3,
        "the ontology's two and its term's one: {triples:#?}"
    );
    // `/describe` answers for the one IRI asked about.
    let describe = get(
        &server,
        "/describe?uri=http%3A%2F%2Fexample.org%2Fresource%2Fonto&format=nt",
        "",
    );
    assert_eq!(
        parse_rdf(&describe.bytes().expect("body"), RdfFormat::NTriples).len(),
        2
    );
    // The page is the ontology's, with its terms listed and anchored.
    let html = get(&server, "/page/onto", "").text().expect("html");
    assert!(html.contains("<h1>The ontology</h1>"), "{html}");
    assert!(
        html.contains("<li id=\"Term\"><a href=\"/describe?uri="),
        "{html}"
    );
    // Pages of IRIs without hash IRIs list nothing.
    let alice = get(&server, "/page/alice", "").text().expect("html");
    assert!(!alice.contains("hash-entries"));
}

/// Nomisma's shape: every concept `…/id/athens` has a node `…/id/athens#provenance`. The
/// concept is an entity of its own and is redirected like any other (it answered 200 in
/// place, as if it were only the document of its hash IRIs).
#[test]
fn a_used_iri_with_hash_iris_is_redirected() {
    let data = r#"
@prefix ex: <http://example.org/resource/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
ex:athens a skos:Concept ; skos:prefLabel "Athens"@en ;
    dcterms:provenance <http://example.org/resource/athens#provenance> .
<http://example.org/resource/athens#provenance> dcterms:created "2012-01-01" .
ex:coin ex:mint ex:sparta .
<http://example.org/resource/sparta#provenance> dcterms:created "2013-01-01" .
"#;
    let server = TestServer::with_data(ServerSettings::default().with_base_iri(BASE), data);
    for (accept, location) in [
        ("text/turtle", "/data/athens.ttl"),
        ("application/n-triples", "/data/athens.nt"),
        ("text/html", "/page/athens"),
        // Used only as an object, the IRI is still used.
        ("text/turtle", "/data/sparta.ttl"),
    ] {
        let path = if location.contains("sparta") {
            "/resource/sparta"
        } else {
            "/resource/athens"
        };
        let response = get(&server, path, accept);
        assert_eq!(response.status(), 303, "{path} {accept}");
        assert_eq!(header(&response, "location"), location, "{path} {accept}");
    }
    // The document still covers the hash IRI's statements.
    let triples = parse_rdf(
        &get(&server, "/data/athens.nt", "").bytes().expect("body"),
        RdfFormat::NTriples,
    );
    assert_eq!(triples.len(), 4, "{triples:#?}");
    // An IRI that is only the document of hash IRIs still answers in place.
    let vocab = TestServer::with_data(ServerSettings::default().with_base_iri(BASE), DATA);
    assert_eq!(get(&vocab, "/resource/vocab", "text/turtle").status(), 200);
}
