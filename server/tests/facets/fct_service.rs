//! `/fct/service` against Virtuoso's Facets Web Service, request form by request form, on a
//! small dataset in two named graphs (mints and coins).
//!
//! Sources the checks follow (Virtuoso open source, `binsrc/fct/`, read at commit
//! `af220da5`):
//! - request forms: `sql/facet.sql` — `fct_text` (`text@property`, `class`, `property`,
//!   `property-of`, `value`, `cond`, `cond-range`, `view`), `fct_value` (`value@op`),
//!   `fct_cond` and `fct_cond_in`/`fct_cond_contains`/`fct_cond_near` (`cond` types `in`,
//!   `not_in`, `contains`, `near`, `neg`), `fct_graph_clause` (`query@graph`), `fct_view`
//!   (view types `text`, `text-d`, `list`, `list-count`, `entities-list`, `propval-list`,
//!   `properties`, `properties-in`, `classes`, `text-properties`, `graphs`, `geo`).
//! - answer shape: `sql/facet_svc.sql` `fct_svc_exec` (`facets` with `sparql`, `time`,
//!   `complete`, `timeout`, `db-activity`, `result`), `sql/facet.sql` `fct_xml_wrap` (rows:
//!   `text` = `column@trank`, `column@erank`, `column@graph`, value, label, excerpt; `list` =
//!   value with `sparql_ser`, label; counting views = value, label, count), `sql/sum.sql`
//!   `sum_result` (`text-d` rows: `column@datatype` `trank`, `erank`, `url` entity, label,
//!   `url` graph, excerpt), `sql/facet.sql` `fct_short_form`/`fct_trunc_uri` (`shortform`:
//!   CURIE, or the IRI cut to 20 + `...` + 19 characters), `xslt/fct_resp.xsl` (every
//!   element in the facets namespace).
//! - errors: `sql/facet_svc.sql` `fct_svc` (`<error><code/><message/><diagnostics/>`).
//!
//! Every set and count is checked against the SPARQL that means the same, run at `/sparql`.

use crate::common::{client, header, TestServer};
use lodestone_server::settings::ServerSettings;
use quick_xml::events::Event;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

const EX: &str = "http://example.org/";
const G1: &str = "http://example.org/g1";
const G2: &str = "http://example.org/g2";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const SKOS_LABEL: &str = "http://www.w3.org/2004/02/skos/core#prefLabel";
const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";

const NAMES: [&str; 8] = [
    "Athens",
    "Rome",
    "Zeugma",
    "Corinth",
    "Zakynthos",
    "Syracuse",
    "Aegina",
    "Thasos",
];

/// 24 mints (`founded` 0, 50, 100 …; labels in English and some in German; half of them
/// in each graph) and 30 coins struck at them, with labels and some comments.
fn dataset() -> String {
    let mut g1 = String::new();
    let mut g2 = String::new();
    for i in 0..24 {
        let name = NAMES[i % NAMES.len()];
        let graph = if i % 2 == 0 { &mut g1 } else { &mut g2 };
        graph.push_str(&format!(
            "ex:m{i} a ex:Mint ; skos:prefLabel \"{name} {i}\"@en ; ex:founded {} ; dcterms:type ex:City .\n",
            i * 50
        ));
        if i % 3 == 0 {
            graph.push_str(&format!("ex:m{i} skos:prefLabel \"{name} {i}\"@de ; rdfs:comment \"mint of silver owls\" .\n"));
        }
    }
    for i in 0..30 {
        let graph = if i % 3 == 0 { &mut g1 } else { &mut g2 };
        let mint = i % 24;
        let label = if i % 4 == 0 {
            "Owl coin"
        } else {
            "Bronze coin"
        };
        graph.push_str(&format!(
            "ex:c{i} a ex:Coin ; rdfs:label \"{label} {i}\" ; ex:mint ex:m{mint} ; ex:weight {} .\n",
            (i * 7) % 20
        ));
        if i % 5 == 0 {
            graph.push_str(&format!(
                "ex:c{i} rdfs:comment \"an owl on the reverse\" .\n"
            ));
        }
    }
    // One mint also described in the second graph: the graph scope must tell them apart.
    g2.push_str("ex:m0 a ex:Mint ; ex:founded 0 .\n");
    format!(
        "@prefix ex: <{EX}> .\n@prefix rdfs: <{RDFS}> .\n@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n@prefix dcterms: <http://purl.org/dc/terms/> .\n<{G1}> {{\n{g1}}}\n<{G2}> {{\n{g2}}}\n"
    )
}

fn server() -> &'static TestServer {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    SERVER.get_or_init(|| TestServer::with_data(ServerSettings::default(), &dataset()))
}

fn post(body: &str) -> (u16, String, String) {
    let response = client()
        .post(server().url("/fct/service"))
        .header("Content-Type", "text/xml")
        .body(body.to_owned())
        .send()
        .expect("request");
    let status = response.status().as_u16();
    let content_type = header(&response, "content-type");
    (status, content_type, response.text().expect("body"))
}

/// POSTs and asserts a 200.
fn answer(body: &str) -> String {
    let (status, _, xml) = post(body);
    assert_eq!(status, 200, "{body}\n{xml}");
    xml
}

/// One `fct:column`: its attributes and text.
#[derive(Debug, Clone, Default)]
struct Column {
    attributes: BTreeMap<String, String>,
    text: String,
}

/// The answer read element by element: the top-level elements' text, the `result`'s
/// attributes, and the rows.
#[derive(Debug, Default)]
struct Facets {
    elements: Vec<(String, String)>,
    result: BTreeMap<String, String>,
    rows: Vec<Vec<Column>>,
}

fn attributes(e: &quick_xml::events::BytesStart<'_>) -> BTreeMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.expect("attribute");
            (
                String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                a.unescape_value().expect("value").into_owned(),
            )
        })
        .collect()
}

fn parse(xml: &str) -> Facets {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut facets = Facets::default();
    let mut path: Vec<String> = Vec::new();
    let mut text = String::new();
    loop {
        match reader.read_event().expect("well-formed answer") {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                match name.as_str() {
                    "fct:facets" => assert_eq!(
                        attributes(&e).get("xmlns:fct").map(String::as_str),
                        Some("http://openlinksw.com/services/facets/1.0/")
                    ),
                    "fct:result" => facets.result = attributes(&e),
                    "fct:row" => facets.rows.push(Vec::new()),
                    "fct:column" => facets.rows.last_mut().expect("row").push(Column {
                        attributes: attributes(&e),
                        text: String::new(),
                    }),
                    _ => {}
                }
                path.push(name);
                text.clear();
            }
            Event::Text(t) => {
                let t = t.unescape().expect("text");
                text.push_str(&t);
                if path.last().map(String::as_str) == Some("fct:column") {
                    if let Some(c) = facets.rows.last_mut().and_then(|r| r.last_mut()) {
                        c.text.push_str(&t);
                    }
                }
            }
            Event::End(_) => {
                let name = path.pop().expect("balanced");
                if path.len() == 1 && name != "fct:result" {
                    facets.elements.push((name, std::mem::take(&mut text)));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    facets
}

/// The distinct values of `?e` of a SPARQL query.
fn sparql_set(query: &str) -> BTreeSet<String> {
    server().select(query, "e").into_iter().collect()
}

/// The texts of column `n` of every row.
fn column_set(facets: &Facets, n: usize) -> BTreeSet<String> {
    facets
        .rows
        .iter()
        .map(|r| r.get(n).expect("column").text.clone())
        .collect()
}

/// `(value, count)` of a counting view's rows.
fn counts(facets: &Facets) -> BTreeMap<String, String> {
    facets
        .rows
        .iter()
        .map(|r| {
            assert_eq!(r.len(), 3, "value, label, count: {r:?}");
            (r[0].text.clone(), r[2].text.clone())
        })
        .collect()
}

/// `(key, count)` of a SPARQL `SELECT ?key (COUNT(DISTINCT ?e) AS ?n)` query.
fn sparql_counts(query: &str) -> BTreeMap<String, String> {
    let keys = server().select(query, "key");
    let ns = server().select(query, "n");
    keys.into_iter().zip(ns).collect()
}

const PREFIXES: &str = "PREFIX ex: <http://example.org/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX skos: <http://www.w3.org/2004/02/skos/core#> ";

#[test]
fn value_ops_filter_like_sparql() {
    for (op, escaped) in [
        ("=", "="),
        ("!=", "!="),
        ("<", "&lt;"),
        (">", "&gt;"),
        ("<=", "&lt;="),
        (">=", "&gt;="),
    ] {
        let xml = answer(&format!(
            r#"<query><class iri="{EX}Mint"/><property iri="{EX}founded"><value op="{escaped}" datatype="{XSD_INTEGER}">500</value></property><view type="list" limit="100"/></query>"#
        ));
        let expected = sparql_set(&format!(
            "{PREFIXES} SELECT DISTINCT ?e WHERE {{ ?e a ex:Mint ; ex:founded ?v FILTER(?v {op} 500) }}"
        ));
        assert!(!expected.is_empty(), "{op}");
        assert_eq!(column_set(&parse(&xml), 0), expected, "op {op}");
    }
    // Strings compare too (the issue's example used a language-tagged label, which SPARQL
    // cannot order: no rows either way).
    let xml = answer(&format!(
        r#"<query><class iri="{EX}Coin"/><property iri="{RDFS}label"><value op="&gt;">Owl</value></property><view type="list" limit="100"/></query>"#
    ));
    let expected = sparql_set(&format!(
        "{PREFIXES} SELECT DISTINCT ?e WHERE {{ ?e a ex:Coin ; rdfs:label ?v FILTER(?v > \"Owl\") }}"
    ));
    assert!(!expected.is_empty());
    assert_eq!(column_set(&parse(&xml), 0), expected);
}

#[test]
fn conditions_in_not_in_contains_and_negations_like_sparql() {
    let cases = [
        (
            format!(
                r#"<property iri="{EX}mint"><cond type="not_in"><cond-parm datatype="uri">{EX}m0</cond-parm><cond-parm datatype="uri">{EX}m1</cond-parm></cond></property>"#
            ),
            "?e ex:mint ?m FILTER(?m NOT IN (ex:m0, ex:m1))",
        ),
        (
            format!(
                r#"<property iri="{EX}mint"><cond type="in" neg="1"><cond-parm datatype="uri">{EX}m2</cond-parm></cond></property>"#
            ),
            "?e ex:mint ?m FILTER(?m != ex:m2)",
        ),
        (
            format!(r#"<property iri="{RDFS}label"><cond type="contains">OWL</cond></property>"#),
            "?e rdfs:label ?l FILTER(CONTAINS(LCASE(?l), \"owl\"))",
        ),
        (
            format!(
                r#"<property iri="{RDFS}label"><cond type="contains" neg="yes">owl</cond></property>"#
            ),
            "?e rdfs:label ?l FILTER(!CONTAINS(LCASE(?l), \"owl\"))",
        ),
        (
            format!(
                r#"<property iri="{EX}weight"><cond type="lt" neg="on" datatype="{XSD_INTEGER}">10</cond></property>"#
            ),
            "?e ex:weight ?w FILTER(?w >= 10)",
        ),
        (
            format!(r#"<property iri="{EX}weight"><cond-range lo="3" hi="10"/></property>"#),
            "?e ex:weight ?w FILTER(?w >= 3 && ?w <= 10)",
        ),
    ];
    for (condition, pattern) in cases {
        let xml = answer(&format!(
            r#"<query><class iri="{EX}Coin"/>{condition}<view type="list" limit="100"/></query>"#
        ));
        let expected = sparql_set(&format!(
            "{PREFIXES} SELECT DISTINCT ?e WHERE {{ ?e a ex:Coin . {pattern} }}"
        ));
        assert!(!expected.is_empty(), "{condition}");
        assert_eq!(column_set(&parse(&xml), 0), expected, "{condition}");
    }
}

#[test]
fn text_with_a_property_searches_only_that_property() {
    let xml = answer(&format!(
        r#"<query><text property="{RDFS}comment">owl</text><view type="text" limit="100"/></query>"#
    ));
    let expected = sparql_set(&format!(
        "{PREFIXES} SELECT DISTINCT ?e WHERE {{ ?e rdfs:comment ?o FILTER(CONTAINS(LCASE(STR(?o)), \"owl\")) }}"
    ));
    let everywhere = sparql_set(&format!(
        "{PREFIXES} SELECT DISTINCT ?e WHERE {{ ?e ?p ?o FILTER(isLiteral(?o) && CONTAINS(LCASE(STR(?o)), \"owl\")) }}"
    ));
    assert!(
        expected.len() < everywhere.len(),
        "the data must tell them apart"
    );
    // `text` rows: the entity is the fourth column.
    assert_eq!(column_set(&parse(&xml), 3), expected);
}

#[test]
fn graph_limits_every_constraint_and_view() {
    for graph in [G1, G2] {
        let xml = answer(&format!(
            r#"<query graph="{graph}"><class iri="{EX}Mint"/><view type="properties" limit="50"/></query>"#
        ));
        let expected = sparql_counts(&format!(
            "{PREFIXES} SELECT ?key (COUNT(DISTINCT ?e) AS ?n) FROM <{graph}> WHERE {{ ?e a ex:Mint ; ?key ?o }} GROUP BY ?key"
        ));
        assert!(!expected.is_empty());
        let facets = parse(&xml);
        assert_eq!(counts(&facets), expected, "graph {graph}");
        // The answer's own SPARQL reads the same graph (`FROM`) and counts the same.
        let sparql = &facets
            .elements
            .iter()
            .find(|(n, _)| n == "fct:sparql")
            .expect("fct:sparql")
            .1;
        assert!(sparql.contains(&format!("FROM <{graph}>")), "{sparql}");
        let own: BTreeMap<String, String> = server()
            .select(sparql, "property")
            .into_iter()
            .zip(server().select(sparql, "count"))
            .collect();
        assert_eq!(own, expected, "{sparql}");
        let xml = answer(&format!(
            r#"<query graph="{graph}"><text>owl</text><view type="list" limit="100"/></query>"#
        ));
        let expected = sparql_set(&format!(
            "SELECT DISTINCT ?e FROM <{graph}> WHERE {{ ?e ?p ?o FILTER(isLiteral(?o) && CONTAINS(LCASE(STR(?o)), \"owl\")) }}"
        ));
        assert_eq!(column_set(&parse(&xml), 0), expected, "text in {graph}");
    }
    let xml = answer(&format!(
        r#"<query graph="{G2}"><class iri="{EX}Mint"/><view type="graphs"/></query>"#
    ));
    assert_eq!(
        counts(&parse(&xml)).keys().cloned().collect::<Vec<_>>(),
        vec![G2.to_owned()]
    );
    // A graph the store does not have holds nothing.
    let xml = answer(&format!(
        r#"<query graph="{EX}nowhere"><class iri="{EX}Mint"/><view type="list"/></query>"#
    ));
    assert!(parse(&xml).rows.is_empty(), "{xml}");
}

#[test]
fn text_properties_and_list_count_count_like_sparql() {
    let xml = answer(r#"<query><text>owl</text><view type="text-properties" limit="20"/></query>"#);
    let facets = parse(&xml);
    assert_eq!(
        facets.result.get("type").map(String::as_str),
        Some("text-properties")
    );
    let expected = sparql_counts(
        "SELECT ?key (COUNT(DISTINCT ?e) AS ?n) WHERE { ?e ?key ?o FILTER(isLiteral(?o) && CONTAINS(LCASE(STR(?o)), \"owl\")) } GROUP BY ?key",
    );
    assert_eq!(expected.len(), 2, "label and comment");
    assert_eq!(counts(&facets), expected);
    let (status, _, body) = post(r#"<query><view type="text-properties"/></query>"#);
    assert_eq!(status, 400, "text-properties without text: {body}");

    let xml = answer(&format!(
        r#"<query><class iri="{EX}Coin"/><property iri="{EX}mint"><view type="list-count" limit="50"/></property></query>"#
    ));
    let expected = sparql_counts(&format!(
        "{PREFIXES} SELECT ?key (COUNT(DISTINCT ?e) AS ?n) WHERE {{ ?e a ex:Coin ; ex:mint ?key }} GROUP BY ?key"
    ));
    assert_eq!(counts(&parse(&xml)), expected);
    let xml = answer(&format!(
        r#"<query><class iri="{EX}Mint"/><view type="classes"/></query>"#
    ));
    assert_eq!(
        counts(&parse(&xml))
            .get(&format!("{EX}Mint"))
            .map(String::as_str),
        Some("24")
    );
}

#[test]
fn answers_have_virtuoso_shapes_view_by_view() {
    let top = |facets: &Facets| -> Vec<String> {
        facets.elements.iter().map(|(n, _)| n.clone()).collect()
    };
    // `text`: trank, erank, graph, the entity, its label, the excerpt.
    let facets = parse(&answer(
        r#"<query><text>owl</text><view type="text" limit="50"/></query>"#,
    ));
    assert_eq!(
        top(&facets),
        [
            "fct:sparql",
            "fct:time",
            "fct:complete",
            "fct:timeout",
            "fct:db-activity"
        ]
    );
    assert_eq!(facets.result.get("type").map(String::as_str), Some("text"));
    assert!(!facets.rows.is_empty());
    for row in &facets.rows {
        assert_eq!(row.len(), 6, "{row:?}");
        assert_eq!(
            row[0].attributes.get("trank").map(String::as_str),
            Some("trank")
        );
        assert!(row[0].text.parse::<f64>().expect("score") > 0.0, "{row:?}");
        assert_eq!(
            row[1].attributes.get("erank").map(String::as_str),
            Some("erank")
        );
        row[1].text.parse::<f64>().expect("rank");
        assert_eq!(
            row[2].attributes.get("graph").map(String::as_str),
            Some("g")
        );
        assert!([G1, G2].contains(&row[2].text.as_str()), "{row:?}");
        assert_eq!(
            row[3].attributes.get("datatype").map(String::as_str),
            Some("uri")
        );
        assert!(row[3].text.starts_with(EX), "{row:?}");
        assert!(!row[4].text.is_empty(), "label: {row:?}");
        assert!(
            row[5].text.to_lowercase().contains("<b>owl</b>"),
            "excerpt: {row:?}"
        );
    }
    // `text-d`: the same echoed, datatype-marked columns with the graph after the label.
    let facets = parse(&answer(
        r#"<query><text>owl</text><view type="text-d" limit="50"/></query>"#,
    ));
    assert_eq!(
        facets.result.get("type").map(String::as_str),
        Some("text-d")
    );
    for row in &facets.rows {
        let datatypes: Vec<&str> = row
            .iter()
            .map(|c| c.attributes.get("datatype").map_or("", String::as_str))
            .collect();
        assert_eq!(
            datatypes,
            ["trank", "erank", "url", "", "url", ""],
            "{row:?}"
        );
        assert!(row[2].attributes.contains_key("shortform"));
        assert!([G1, G2].contains(&row[4].text.as_str()), "{row:?}");
    }
    // `list`: the entity (with `sparql_ser`) and its label; `entities-list` without.
    for (view, columns) in [("list", 2), ("entities-list", 2), ("propval-list", 2)] {
        let facets = parse(&answer(&format!(
            r#"<query><class iri="{EX}Mint"/><view type="{view}" limit="5"/></query>"#
        )));
        assert_eq!(facets.result.get("type").map(String::as_str), Some(view));
        assert_eq!(facets.rows.len(), 5);
        for row in &facets.rows {
            assert_eq!(row.len(), columns, "{view}: {row:?}");
            assert_eq!(row[0].attributes.contains_key("sparql_ser"), view == "list");
            assert_eq!(
                row[0].attributes.get("shortform").map(String::as_str),
                row[0]
                    .text
                    .strip_prefix(EX)
                    .map(|local| format!("example:{local}"))
                    .as_deref(),
                "example.org, the namespace the data uses most, under a name made up from its host"
            );
            assert!(row[1].text.contains(' '), "label, not the IRI: {row:?}");
        }
    }
    // `properties`: shortforms are CURIEs, so rdf:type and dcterms:type differ.
    let facets = parse(&answer(&format!(
        r#"<query><class iri="{EX}Mint"/><view type="properties" limit="20"/></query>"#
    )));
    let shortforms: BTreeSet<&str> = facets
        .rows
        .iter()
        .filter_map(|r| r[0].attributes.get("shortform").map(String::as_str))
        .collect();
    for curie in ["rdf:type", "dcterms:type", "skos:prefLabel", "rdfs:comment"] {
        assert!(shortforms.contains(curie), "{curie} in {shortforms:?}");
    }
    // example.org, the namespace the data uses most, under a name made up from its host.
    assert!(shortforms.contains("example:founded"), "{shortforms:?}");
    // Literal values: language or Virtuoso's plain-string datatype.
    let facets = parse(&answer(&format!(
        r#"<query><class iri="{EX}Mint"/><property iri="{SKOS_LABEL}"><view type="list-count" limit="100"/></property></query>"#
    )));
    assert!(facets.rows.iter().all(|r| matches!(
        r[0].attributes.get("xml:lang").map(String::as_str),
        Some("en" | "de")
    )));
    let facets = parse(&answer(&format!(
        r#"<query><class iri="{EX}Coin"/><property iri="{RDFS}label"><view type="list-count" limit="3"/></property></query>"#
    )));
    assert_eq!(
        facets.rows[0][0]
            .attributes
            .get("datatype")
            .map(String::as_str),
        Some("http://www.openlinksw.com/schemas/facets/dtp/plainstring")
    );
}

#[test]
fn what_is_not_implemented_is_refused_as_virtuoso_errors() {
    for (request, needle) in [
        (
            r#"<query><property iri="http://example.org/loc"><cond type="near" lat="1" lon="2" d="10"/></property><view type="list"/></query>"#.to_owned(),
            "geometry",
        ),
        (r#"<query><view type="geo"/></query>"#.to_owned(), "geometry"),
        (
            format!(r#"<query graph="{G1}" graph1="{G2}"><view type="list"/></query>"#),
            "graph1",
        ),
        (
            r#"<query inference="facets"><view type="list"/></query>"#.to_owned(),
            "inference",
        ),
        (
            r#"<query><property iri="http://example.org/weight"><cond type="range" neg="on" lo="1" hi="2"/></property><view type="list"/></query>"#.to_owned(),
            "negated",
        ),
        (
            r#"<query><value op="~">x</value><view type="list"/></query>"#.to_owned(),
            "op",
        ),
        (r#"<query><view type="pie"/></query>"#.to_owned(), "pie"),
        ("<query><text>x</query>".to_owned(), "malformed XML"),
    ] {
        let (status, content_type, body) = post(&request);
        assert_eq!(status, 400, "{request}: {body}");
        assert!(content_type.contains("xml"), "{content_type}");
        assert!(body.contains("<error><code>22023</code><message>"), "{body}");
        assert!(body.contains(needle), "{needle} in {body}");
        assert!(body.contains("<diagnostics>bad_request</diagnostics>"), "{body}");
    }
}

/// Virtuoso's service also reads JSON requests and answers SPARQL results JSON to a client
/// that accepts only that; here both are refused in the error shape, never answered as XML.
#[test]
fn json_requests_and_json_only_clients_are_refused_as_virtuoso_errors() {
    let list = r#"<query><view type="list"/></query>"#;
    for (content_type, accept, status, diagnostics) in [
        ("application/json", "*/*", 415, "unsupported_media_type"),
        (
            "text/xml",
            "application/sparql-results+json",
            406,
            "not_acceptable",
        ),
        ("text/xml", "application/json", 406, "not_acceptable"),
    ] {
        let response = client()
            .post(server().url("/fct/service"))
            .header("Content-Type", content_type)
            .header("Accept", accept)
            .body(list)
            .send()
            .expect("request");
        assert_eq!(
            response.status().as_u16(),
            status,
            "{content_type} {accept}"
        );
        let body = response.text().expect("body");
        assert!(body.contains("<error><code>22023</code>"), "{body}");
        assert!(
            body.contains(&format!("<diagnostics>{diagnostics}</diagnostics>")),
            "{body}"
        );
    }
    // A client that accepts XML among others is answered.
    let response = client()
        .post(server().url("/fct/service"))
        .header("Content-Type", "text/xml")
        .header("Accept", "application/json;q=0.9, text/xml;q=0.5")
        .body(list)
        .send()
        .expect("request");
    assert_eq!(response.status().as_u16(), 200);
}

#[test]
fn browser_entry_points_lead_to_the_search_page() {
    for (path, target) in [
        ("/fct/", "/search"),
        ("/fct", "/search"),
        ("/fct/search?q=owl+coin", "/search?q=owl+coin"),
    ] {
        let response = reqwest::blocking::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
            .get(server().url(path))
            .send()
            .expect("request");
        assert!(
            response.status().is_redirection(),
            "{path}: {}",
            response.status()
        );
        assert_eq!(header(&response, "location"), target, "{path}");
    }
}
