//! `/sparql` queries: protocol shapes, result formats, content negotiation, datasets, the
//! service description, CORS.

use crate::common::{
    bindings, client, content_type, error_code, header, parse_rdf, TestServer, EX,
};
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::RdfFormat;

const DATA: &str = r#"
@prefix ex: <http://example.org/> .
ex:alice ex:name "Alice" ; ex:knows ex:bob .
ex:bob ex:name "Bob" .
ex:g1 { ex:carol ex:name "Carol" . }
ex:g2 { ex:dave ex:name "Dave" . }
"#;

const NAMES: &str = "SELECT ?n WHERE { ?s <http://example.org/name> ?n } ORDER BY ?n";

fn server() -> TestServer {
    TestServer::with_data(ServerSettings::default(), DATA)
}

#[test]
fn select_defaults_to_json_over_the_union_of_all_graphs() {
    let server = server();
    let response = server.query(NAMES, "*/*");
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/sparql-results+json");
    assert!(header(&response, "vary")
        .to_ascii_lowercase()
        .contains("accept"));
    let json: serde_json::Value = response.json().expect("json");
    assert_eq!(bindings(&json, "n"), ["Alice", "Bob", "Carol", "Dave"]);
}

#[test]
fn no_accept_header_gets_json() {
    let server = server();
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES)])
        .header("Accept", "")
        .send()
        .expect("request");
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/sparql-results+json");
}

#[test]
fn select_formats_follow_accept_with_q_values() {
    let server = server();
    let cases = [
        (
            "application/sparql-results+xml",
            "application/sparql-results+xml",
        ),
        ("text/csv", "text/csv"),
        ("text/tab-separated-values", "text/tab-separated-values"),
        (
            "application/sparql-results+json;q=0.5, application/sparql-results+xml",
            "application/sparql-results+xml",
        ),
        (
            "text/csv;q=0.9, text/tab-separated-values",
            "text/tab-separated-values",
        ),
        ("*/*;q=0.1, text/csv", "text/csv"),
        ("text/*;q=0.5, text/csv;q=0", "text/tab-separated-values"),
        ("application/json", "application/sparql-results+json"),
    ];
    for (accept, expected) in cases {
        let response = server.query(NAMES, accept);
        assert_eq!(response.status(), 200, "{accept}");
        assert_eq!(content_type(&response), expected, "{accept}");
    }
    let csv = server.query(NAMES, "text/csv").text().expect("text");
    assert_eq!(csv.replace("\r\n", "\n"), "n\nAlice\nBob\nCarol\nDave\n");
    let tsv = server
        .query(NAMES, "text/tab-separated-values")
        .text()
        .expect("text");
    assert!(
        tsv.starts_with("?n\n") && tsv.contains("\"Carol\""),
        "{tsv}"
    );
    let xml = server
        .query(NAMES, "application/sparql-results+xml")
        .text()
        .expect("text");
    assert!(xml.contains("<literal>Dave</literal>"), "{xml}");
}

#[test]
fn format_parameter_overrides_accept() {
    let server = server();
    for (format, expected) in [
        ("csv", "text/csv"),
        ("tsv", "text/tab-separated-values"),
        ("xml", "application/sparql-results+xml"),
        ("json", "application/sparql-results+json"),
    ] {
        let response = client()
            .get(server.url("/sparql"))
            .query(&[("query", NAMES), ("format", format)])
            .header("Accept", "application/sparql-results+json")
            .send()
            .expect("request");
        assert_eq!(content_type(&response), expected);
    }
    // A name the server does not have leaves the choice to `Accept`.
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES), ("format", "yaml")])
        .header("Accept", "text/csv")
        .send()
        .expect("request");
    assert!(content_type(&response).starts_with("text/csv"));
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES), ("format", "yaml")])
        .header("Accept", "image/png")
        .send()
        .expect("request");
    assert_eq!(response.status(), 406);
}

/// What SPARQLWrapper and other clients send: `format` and `output` (repeated), a repeated
/// identical `query`; the first name the server has for the query's form wins.
#[test]
fn repeated_and_foreign_format_parameters_do_not_fail_a_query() {
    let server = server();
    let construct = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 3";
    for (pairs, expected) in [
        (
            vec![
                ("query", construct),
                ("format", "xml"),
                ("output", "xml"),
                ("results", "xml"),
            ],
            "application/rdf+xml",
        ),
        (
            vec![
                ("query", construct),
                ("format", "rdf+xml"),
                ("format", "rdf+xml"),
            ],
            "application/rdf+xml",
        ),
        (
            vec![("query", NAMES), ("query", NAMES), ("output", "json")],
            "application/sparql-results+json",
        ),
        (
            vec![("query", NAMES), ("format", "yaml"), ("results", "csv")],
            "text/csv",
        ),
    ] {
        let response = client()
            .get(server.url("/sparql"))
            .query(&pairs)
            .send()
            .expect("request");
        assert_eq!(response.status(), 200, "{pairs:?}");
        assert!(
            content_type(&response).starts_with(expected),
            "{pairs:?}: {}",
            content_type(&response)
        );
    }
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES), ("query", "ASK {}")])
        .send()
        .expect("request");
    assert_eq!(response.status(), 400);
}

#[test]
fn unacceptable_types_get_406_listing_what_is_available() {
    let server = server();
    let response = server.query(NAMES, "image/png");
    assert_eq!(response.status(), 406);
    assert!(header(&response, "vary")
        .to_ascii_lowercase()
        .contains("accept"));
    let body: serde_json::Value = response.json().expect("json");
    assert_eq!(body["code"], "not_acceptable");
    let available = body["available"].as_array().expect("available").clone();
    assert!(available
        .iter()
        .any(|t| t == "application/sparql-results+json"));
    assert!(available.iter().any(|t| t == "text/csv"));
    assert!(body["message"]
        .as_str()
        .unwrap_or("")
        .contains("text/tab-separated-values"));
    let construct = server.query("CONSTRUCT WHERE { ?s ?p ?o }", "text/csv");
    assert_eq!(construct.status(), 406);
    let body: serde_json::Value = construct.json().expect("json");
    assert!(body["available"]
        .as_array()
        .expect("list")
        .iter()
        .any(|t| t == "text/turtle"));
}

#[test]
fn ask_answers_in_every_results_format() {
    let server = server();
    let ask = format!("ASK {{ <{EX}alice> <{EX}knows> <{EX}bob> }}");
    let json: serde_json::Value = server
        .query(&ask, "application/sparql-results+json")
        .json()
        .expect("json");
    assert_eq!(json["boolean"], true);
    let xml = server
        .query(&ask, "application/sparql-results+xml")
        .text()
        .expect("text");
    assert!(xml.contains("<boolean>true</boolean>"), "{xml}");
    let csv = server.query(&ask, "text/csv");
    assert_eq!(csv.status(), 200);
    assert!(csv.text().expect("text").contains("true"));
}

#[test]
fn construct_in_every_rdf_syntax() {
    let server = server();
    let construct = format!("CONSTRUCT {{ ?s <{EX}label> ?n }} WHERE {{ ?s <{EX}name> ?n }}");
    let expected = parse_rdf(
        server
            .query(&construct, "application/n-triples")
            .bytes()
            .expect("body")
            .as_ref(),
        RdfFormat::NTriples,
    );
    assert_eq!(expected.len(), 4);
    let syntaxes = [
        ("text/turtle", RdfFormat::Turtle),
        ("application/rdf+xml", RdfFormat::RdfXml),
        (
            "application/ld+json",
            RdfFormat::JsonLd {
                profile: oxrdfio::JsonLdProfileSet::empty(),
            },
        ),
        ("application/n-quads", RdfFormat::NQuads),
        ("application/trig", RdfFormat::TriG),
        ("text/n3", RdfFormat::N3),
    ];
    for (media_type, format) in syntaxes {
        let response = server.query(&construct, media_type);
        assert_eq!(response.status(), 200, "{media_type}");
        assert_eq!(content_type(&response), media_type);
        let body = response.bytes().expect("body");
        assert_eq!(parse_rdf(&body, format), expected, "{media_type}");
    }
    // Turtle for */* (and for a browser, which accepts anything at a lower quality).
    let any = server.query(&construct, "*/*");
    assert_eq!(content_type(&any), "text/turtle");
    let describe = server.query(&format!("DESCRIBE <{EX}alice>"), "application/n-triples");
    assert_eq!(describe.status(), 200);
    assert_eq!(
        parse_rdf(&describe.bytes().expect("body"), RdfFormat::NTriples).len(),
        2
    );
}

#[test]
fn post_form_and_direct_queries() {
    let server = server();
    let form = client()
        .post(server.url("/sparql"))
        .form(&[("query", NAMES)])
        .send()
        .expect("request");
    assert_eq!(form.status(), 200);
    assert_eq!(bindings(&form.json().expect("json"), "n").len(), 4);
    let direct = client()
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-query; charset=utf-8")
        .header("Accept", "text/csv")
        .body(NAMES)
        .send()
        .expect("request");
    assert_eq!(direct.status(), 200);
    assert_eq!(content_type(&direct), "text/csv");
}

#[test]
fn a_bad_query_is_400_with_the_parsers_position() {
    let server = server();
    let response = server.query("SELECT ?x WHERE { ?x ?y }", "*/*");
    assert_eq!(response.status(), 400);
    let body: serde_json::Value = response.json().expect("json");
    assert_eq!(body["code"], "query_syntax");
    let message = body["message"].as_str().unwrap_or("");
    assert!(message.contains("1:"), "the message tells where: {message}");
}

#[test]
fn protocol_errors_are_400_and_unknown_parameters_are_ignored() {
    let server = server();
    let twice = client()
        .get(format!(
            "{}?query=ASK%7B%7D&query=ASK%7B%20%7D",
            server.url("/sparql")
        ))
        .send()
        .expect("request");
    assert_eq!(twice.status(), 400);
    let bad_iri = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES), ("default-graph-uri", "not an iri")])
        .send()
        .expect("request");
    assert_eq!(bad_iri.status(), 400);
    let bad_timeout = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES), ("timeout", "soon")])
        .send()
        .expect("request");
    assert_eq!(bad_timeout.status(), 400);
    let unknown = client()
        .get(server.url("/sparql"))
        .query(&[
            ("query", NAMES),
            ("output", "json"),
            ("debug", "on"),
            ("timeout", "5"),
        ])
        .send()
        .expect("request");
    assert_eq!(unknown.status(), 200);
    let empty_post = client()
        .post(server.url("/sparql"))
        .form(&[("nothing", "here")])
        .send()
        .expect("request");
    assert_eq!(empty_post.status(), 400);
}

#[test]
fn unknown_content_types_are_415() {
    let server = server();
    for content_type in ["text/plain", "application/json", ""] {
        let mut request = client().post(server.url("/sparql")).body(NAMES);
        if !content_type.is_empty() {
            request = request.header("Content-Type", content_type);
        }
        let response = request.send().expect("request");
        assert_eq!(response.status(), 415, "{content_type:?}");
        let body: serde_json::Value = response.json().expect("json");
        assert!(body["supported"]
            .as_array()
            .expect("list")
            .iter()
            .any(|t| t == "application/sparql-query"));
    }
}

#[test]
fn default_graph_uri_and_named_graph_uri_set_the_dataset() {
    let server = server();
    let names = |params: &[(&str, &str)], query: &str| -> Vec<String> {
        let mut all = vec![("query", query)];
        all.extend_from_slice(params);
        let response = client()
            .get(server.url("/sparql"))
            .query(&all)
            .header("Accept", "application/sparql-results+json")
            .send()
            .expect("request");
        assert_eq!(response.status(), 200);
        bindings(&response.json().expect("json"), "n")
    };
    let g1 = "http://example.org/g1";
    let g2 = "http://example.org/g2";
    assert_eq!(names(&[("default-graph-uri", g1)], NAMES), ["Carol"]);
    assert_eq!(
        names(
            &[("default-graph-uri", g1), ("default-graph-uri", g2)],
            NAMES
        ),
        ["Carol", "Dave"]
    );
    let in_graphs = "SELECT ?n WHERE { GRAPH ?g { ?s <http://example.org/name> ?n } } ORDER BY ?n";
    assert_eq!(names(&[("named-graph-uri", g2)], in_graphs), ["Dave"]);
    // Only named graphs given: the default graph is empty.
    assert!(names(&[("named-graph-uri", g2)], NAMES).is_empty());
    // The protocol's dataset overrides the query's FROM.
    let from = format!("SELECT ?n FROM <{g2}> WHERE {{ ?s <http://example.org/name> ?n }}");
    assert_eq!(names(&[], &from), ["Dave"]);
    assert_eq!(names(&[("default-graph-uri", g1)], &from), ["Carol"]);
    // POSTed forms carry them in the body.
    let form = client()
        .post(server.url("/sparql"))
        .form(&[("query", NAMES), ("default-graph-uri", g2)])
        .send()
        .expect("request");
    assert_eq!(bindings(&form.json().expect("json"), "n"), ["Dave"]);
}

#[test]
fn strict_default_graph_sees_only_the_default_graph() {
    let server = TestServer::with_data(
        ServerSettings::default().with_union_default_graph(false),
        DATA,
    );
    assert_eq!(server.select(NAMES, "n"), ["Alice", "Bob"]);
}

#[test]
fn service_description_for_rdf_clients_and_browsers() {
    let server = server();
    let response = client()
        .get(server.url("/sparql"))
        .header("Accept", "text/turtle")
        .send()
        .expect("request");
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "text/turtle");
    let lines = parse_rdf(&response.bytes().expect("body"), RdfFormat::Turtle);
    let sd = "http://www.w3.org/ns/sparql-service-description#";
    let has = |p: &str, o: &str| lines.iter().any(|l| l.contains(&format!("<{sd}{p}> {o}")));
    assert!(lines
        .iter()
        .any(|l| l.ends_with(&format!("<{sd}Service> ."))));
    assert!(has("endpoint", &format!("<{}/sparql>", server.base)));
    assert!(has("supportedLanguage", &format!("<{sd}SPARQL11Query>")));
    assert!(
        !has("supportedLanguage", &format!("<{sd}SPARQL11Update>")),
        "updates are off"
    );
    assert!(has("feature", &format!("<{sd}UnionDefaultGraph>")));
    assert!(has(
        "resultFormat",
        "<http://www.w3.org/ns/formats/SPARQL_Results_JSON>"
    ));

    let browser = client()
        .get(server.url("/sparql"))
        .header("Accept", "text/html,application/xhtml+xml")
        .send()
        .expect("request");
    // A browser gets the SPARQL editor page (the web UI), every RDF client the description.
    assert_eq!(browser.status(), 200);
    assert_eq!(content_type(&browser), "text/html");
    let page = browser.text().expect("page");
    assert!(page.contains("<textarea"), "{page}");

    let ntriples = client()
        .get(server.url("/sparql"))
        .header("Accept", "application/n-triples")
        .send()
        .expect("request");
    assert_eq!(content_type(&ntriples), "application/n-triples");

    let strict = TestServer::start(
        ServerSettings::default()
            .with_union_default_graph(false)
            .with_open_updates(),
    );
    let body = client()
        .get(strict.url("/sparql"))
        .header("Accept", "text/turtle")
        .send()
        .expect("request")
        .bytes()
        .expect("body");
    let lines = parse_rdf(&body, RdfFormat::Turtle);
    assert!(!lines.iter().any(|l| l.contains("UnionDefaultGraph")));
    assert!(lines.iter().any(|l| l.contains("SPARQL11Update")));
}

#[test]
fn cors_is_offered_for_queries() {
    let server = server();
    let response = client()
        .get(server.url("/sparql"))
        .query(&[("query", NAMES)])
        .header("Origin", "http://yasgui.example")
        .send()
        .expect("request");
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "access-control-allow-origin"), "*");
    let preflight = client()
        .request(reqwest::Method::OPTIONS, server.url("/sparql"))
        .header("Origin", "http://yasgui.example")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type")
        .send()
        .expect("request");
    assert!(preflight.status().is_success());
    let allowed = header(&preflight, "access-control-allow-headers").to_ascii_lowercase();
    assert!(allowed.contains("content-type"));
    assert!(
        !allowed.contains("authorization"),
        "no credentials cross-site: {allowed}"
    );
}

#[test]
fn errors_are_json_with_a_stable_code() {
    let server = server();
    let response = server.query("SELEC", "*/*");
    assert_eq!(content_type(&response), "application/json");
    assert_eq!(error_code(response), "query_syntax");
}

/// A call of a function the server does not know is valid SPARQL: it raises an expression error
/// per solution (a BIND leaves its variable unbound, a FILTER drops the row), not a 400.
#[test]
fn unknown_functions_are_expression_errors_not_refusals() {
    let server = server();
    let json: serde_json::Value = client()
        .get(server.url("/sparql"))
        .query(&[(
            "query",
            "SELECT ?x ?y WHERE { BIND(1 AS ?x) BIND(<http://example.org/f>(?x) AS ?y) }",
        )])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("request")
        .json()
        .expect("json");
    let rows = json["results"]["bindings"]
        .as_array()
        .expect("rows")
        .clone();
    assert_eq!(rows.len(), 1, "{json}");
    assert_eq!(rows[0]["x"]["value"], "1");
    assert!(rows[0].get("y").is_none(), "{json}");
    let filtered: serde_json::Value = client()
        .get(server.url("/sparql"))
        .query(&[(
            "query",
            "SELECT * WHERE { BIND(1 AS ?x) FILTER(<http://example.org/f>(?x)) }",
        )])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("request")
        .json()
        .expect("json");
    assert_eq!(
        filtered["results"]["bindings"].as_array().map(Vec::len),
        Some(0)
    );
}
