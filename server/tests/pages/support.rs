//! The data and the HTTP client of the page tests.

use crate::common::TestServer;
use lodestone_server::settings::ServerSettings;
use reqwest::blocking::{Client, Response};
use std::time::Duration;

/// Entity IRIs of the test data start here.
pub const BASE: &str = "http://example.org/resource/";

/// Alice has labels in two languages, a class, a link, a number, a two-level blank node, a
/// statement in a named graph, and four incoming links (one from a non-ASCII IRI, one from
/// an IRI outside the base).
pub const DATA: &str = r#"
@prefix ex: <http://example.org/resource/> .
@prefix v: <http://example.org/vocab/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:alice a v:Person ; rdfs:label "Alice"@en, "Alicia"@es ; v:knows ex:bob ; v:age 42 ;
    v:address [ v:street "Main St" ; v:geo [ v:lat "1.5"^^<http://www.w3.org/2001/XMLSchema#decimal> ] ] .
GRAPH <http://example.org/g1> { ex:alice v:nick "Al" . ex:bob v:knows ex:alice . }
ex:carol v:knows ex:alice .
<http://other.org/x> v:knows ex:alice ; rdfs:label "Other" .
ex:Zürich rdfs:label "Zürich"@de ; v:near ex:alice .
ex:xss rdfs:label "<script>alert(1)</script>" ;
    v:note "a \"quoted\" & 'apos' </textarea><img src=x onerror=alert(2)>" ;
    v:knows ex:alice .
"#;

/// Statements in Alice's document: 7 of her own, 3 of her blank nodes, 5 incoming.
pub const ALICE_STATEMENTS: usize = 15;

/// A server over `DATA` with entity IRIs under [`BASE`].
pub fn server() -> TestServer {
    TestServer::with_data(ServerSettings::default().with_base_iri(BASE), DATA)
}

/// A client that does not follow redirects.
pub fn client() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client")
}

/// GET `path` with an `Accept` header (none if empty).
pub fn get(server: &TestServer, path: &str, accept: &str) -> Response {
    let mut request = client().get(server.url(path));
    if !accept.is_empty() {
        request = request.header("Accept", accept);
    }
    request.send().expect("request")
}
