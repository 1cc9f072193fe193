//! A broadcaster's archive over HTTP: programme graphs written with SPARQL Update
//! (`DROP SILENT GRAPH ; INSERT DATA`, one request per graph, blank nodes included), the two
//! reference queries read back as SPARQL XML results and checked against the generator's own
//! counts, and one graph replaced again and again while a reader checks that it never sees a
//! mix of two versions.

use crate::common::{bindings, client, TestServer};
use lodestone_server::settings::ServerSettings;
use lodestone_server::testdata::{
    broadcaster, expected_rows, BroadcasterShape, CONTRIBUTORS, EBUCCDM, MUSIC_IN_JANUARY,
};
use oxrdf::dataset::CanonicalizationAlgorithm;
use oxrdf::{Graph, NamedNode, Term};
use oxrdfio::{RdfFormat, RdfParser};
use reqwest::blocking::Client;
use sparesults::SliceQueryResultsParserOutput;
use sparesults::{QueryResultsFormat, QueryResultsParser, QuerySolution};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const TOKEN: &str = "broadcaster-token";
const XSD_DATETIME: &str = "http://www.w3.org/2001/XMLSchema#dateTime";

fn server() -> TestServer {
    TestServer::start(ServerSettings::default().with_update_token(TOKEN))
}

/// The update that replaces `graph` with `ntriples`. Both come from the generator: the graph
/// name is still checked as an IRI, and N-Triples lines are valid triples in `INSERT DATA`.
fn replacement(graph: &str, ntriples: &str) -> String {
    let name = NamedNode::new(graph).expect("generated graph names are IRIs");
    format!("DROP SILENT GRAPH {name} ;\nINSERT DATA {{ GRAPH {name} {{\n{ntriples}}} }}")
}

/// Replaces `graph` in one SPARQL Update request and checks it was applied.
fn replace(client: &Client, server: &TestServer, graph: &str, ntriples: &str) {
    let response = client
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-update")
        .bearer_auth(TOKEN)
        .body(replacement(graph, ntriples))
        .send()
        .expect("update request");
    let status = response.status();
    assert_eq!(
        status,
        204,
        "replacing {graph}: {}",
        response.text().unwrap_or_default()
    );
}

/// Runs a SELECT asking for SPARQL XML results and parses them with `sparesults`.
fn select_xml(client: &Client, server: &TestServer, query: &str) -> Vec<QuerySolution> {
    let response = client
        .get(server.url("/sparql"))
        .query(&[("query", query)])
        .header("Accept", "application/sparql-results+xml")
        .send()
        .expect("query request");
    assert_eq!(response.status(), 200, "{query}");
    assert!(
        crate::common::content_type(&response) == "application/sparql-results+xml",
        "{}",
        crate::common::header(&response, "content-type")
    );
    assert!(
        crate::common::header(&response, "x-lodestone-truncated").is_empty(),
        "the result was cut"
    );
    let body = response.bytes().expect("body");
    match QueryResultsParser::from_format(QueryResultsFormat::Xml).for_slice(&body) {
        Ok(SliceQueryResultsParserOutput::Solutions(solutions)) => solutions
            .collect::<Result<Vec<_>, _>>()
            .expect("valid SPARQL XML results"),
        Ok(SliceQueryResultsParserOutput::Boolean(_)) => panic!("a boolean answer to a SELECT"),
        Err(e) => panic!("invalid SPARQL XML results: {e}"),
    }
}

/// The lexical form of a `xsd:dateTime` binding.
fn date_time(solution: &QuerySolution, var: &str) -> String {
    match solution.get(var) {
        Some(Term::Literal(literal)) if literal.datatype().as_str() == XSD_DATETIME => {
            literal.value().to_owned()
        }
        other => panic!("?{var} is not an xsd:dateTime: {other:?}"),
    }
}

#[test]
fn programme_graphs_loaded_with_sparql_update_answer_the_reference_queries_in_xml() {
    let shape = BroadcasterShape {
        programmes: 300,
        parts: 6,
        contributors: 3,
    };
    let archive = broadcaster(shape);
    let (music_rows, contributor_rows) = expected_rows(&archive, shape);
    assert!(music_rows > 0 && contributor_rows > 0);

    let server = server();
    let client = client();
    for programme in &archive {
        replace(&client, &server, &programme.graph, &programme.ntriples);
    }

    let music = select_xml(&client, &server, MUSIC_IN_JANUARY);
    assert_eq!(music.len(), music_rows, "MUSIC_IN_JANUARY rows");
    let mut previous = String::new();
    for solution in &music {
        // Every generated time has the same shape and offset (`YYYY-MM-DDThh:mm:ss+01:00`),
        // so the lexical order is the time order and the prefix names the month.
        let start = date_time(solution, "startTime");
        assert!(
            start.starts_with("2014-01-") && start.ends_with("+01:00") && start.len() == 25,
            "{start} is not in January 2014"
        );
        assert!(previous <= start, "{previous} comes before {start}");
        previous = start;
    }
    let graphs: BTreeSet<String> = music
        .iter()
        .map(|s| match s.get("g") {
            Some(Term::NamedNode(g)) => g.as_str().to_owned(),
            other => panic!("?g is not an IRI: {other:?}"),
        })
        .collect();
    let january: BTreeSet<String> = archive
        .iter()
        .filter(|p| p.in_january)
        .map(|p| p.graph.clone())
        .collect();
    assert_eq!(graphs, january, "the graphs of January's programmes");

    let contributors = select_xml(&client, &server, CONTRIBUTORS);
    assert_eq!(contributors.len(), contributor_rows, "CONTRIBUTORS rows");
    for solution in &contributors {
        for var in ["obj", "title", "contactName", "roleName"] {
            assert!(
                solution.get(var).is_some(),
                "?{var} unbound in {solution:?}"
            );
        }
    }
}

/// Version `v` of the one programme the replacement test rewrites: the number of parts, the
/// title and the contributors' names all change with `v`, so a reader can tell versions apart.
fn version(v: usize, contributors: usize) -> (String, usize) {
    let parts = 1 + v % 6;
    let shape = BroadcasterShape {
        programmes: 1,
        parts,
        contributors,
    };
    let programme = broadcaster(shape).remove(0);
    let ntriples = programme
        .ntriples
        .replace("\"Programme 0\"", &format!("\"Programme 0 version {v}\""))
        .replace("\"Contributor ", &format!("\"Contributor v{v} "));
    (ntriples, parts)
}

fn canonical_graph(ntriples: &[u8]) -> Graph {
    let mut graph = Graph::new();
    for quad in RdfParser::from_format(RdfFormat::NTriples).for_slice(ntriples) {
        let quad = quad.expect("valid N-Triples");
        graph.insert(quad.as_ref());
    }
    graph.canonicalize(CanonicalizationAlgorithm::Unstable);
    graph
}

/// What one read of the programme saw: its titles, contributor names and parts.
fn look(
    client: &Client,
    server: &TestServer,
    graph: &NamedNode,
) -> (Vec<String>, Vec<String>, usize) {
    let query = format!(
        "SELECT ?title ?name ?part WHERE {{ GRAPH {graph} {{
           {{ <http://id.nrk.no/programme/0> <http://purl.org/dc/terms/title> ?title }}
           UNION {{ ?c <{EBUCCDM}contactName> ?name }}
           UNION {{ ?timeline <{EBUCCDM}hasTimelineTrackPart> ?part }} }} }}"
    );
    let response = client
        .get(server.url("/sparql"))
        .query(&[("query", query.as_str())])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("query request");
    assert_eq!(response.status(), 200);
    let json: serde_json::Value = response.json().expect("json");
    let present = |var: &str| -> Vec<String> {
        bindings(&json, var)
            .into_iter()
            .filter(|v| !v.is_empty())
            .collect()
    };
    let parts = present("part").len();
    (present("title"), present("name"), parts)
}

/// Checks that one read saw exactly one whole version; returns it.
fn whole_version(seen: &(Vec<String>, Vec<String>, usize), contributors: usize) -> usize {
    let (titles, names, parts) = seen;
    assert_eq!(titles.len(), 1, "one title, not {titles:?}");
    let v: usize = titles[0]
        .strip_prefix("Programme 0 version ")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("unexpected title {:?}", titles[0]));
    assert_eq!(*parts, 1 + v % 6, "parts of version {v}");
    assert_eq!(
        names.len(),
        contributors,
        "contributors of version {v}: {names:?}"
    );
    let prefix = format!("Contributor v{v} ");
    assert!(
        names.iter().all(|n| n.starts_with(&prefix)),
        "names of another version next to version {v}: {names:?}"
    );
    v
}

#[test]
fn a_programme_replaced_fifty_times_over_sparql_update_never_mixes_versions() {
    const CONTRIBUTORS_PER_PROGRAMME: usize = 3;
    let server = Arc::new(server());
    let graph = NamedNode::new("http://id.nrk.no/programme/0/graph").expect("IRI");
    let client = client();
    let (first, _) = version(0, CONTRIBUTORS_PER_PROGRAMME);
    replace(&client, &server, graph.as_str(), &first);

    // A reader looks at the graph the whole time the writer replaces it.
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (server, graph, done) = (Arc::clone(&server), graph.clone(), Arc::clone(&done));
        std::thread::spawn(move || {
            let client = crate::common::client();
            let mut reads = 0usize;
            let mut last = 0;
            while !done.load(Ordering::Acquire) {
                let v = whole_version(&look(&client, &server, &graph), CONTRIBUTORS_PER_PROGRAMME);
                assert!(v >= last, "version {v} seen after version {last}");
                last = v;
                reads += 1;
            }
            reads
        })
    };

    let count_contributors = format!(
        "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE {{ GRAPH {graph} {{ ?p <{EBUCCDM}hasContributor> ?c }} }}"
    );
    for v in 1..=50 {
        let (ntriples, _) = version(v, CONTRIBUTORS_PER_PROGRAMME);
        replace(&client, &server, graph.as_str(), &ntriples);

        let stored = client
            .get(server.url("/store"))
            .query(&[("graph", graph.as_str())])
            .header("Accept", "application/n-triples")
            .send()
            .expect("graph store request");
        assert_eq!(stored.status(), 200);
        let stored = canonical_graph(&stored.bytes().expect("body"));
        assert_eq!(
            stored,
            canonical_graph(ntriples.as_bytes()),
            "version {v} as stored"
        );
        assert_eq!(
            whole_version(&look(&client, &server, &graph), CONTRIBUTORS_PER_PROGRAMME),
            v
        );
        assert_eq!(
            server.select(&count_contributors, "n"),
            [CONTRIBUTORS_PER_PROGRAMME.to_string()],
            "blank-node contributors after version {v}"
        );
    }
    done.store(true, Ordering::Release);
    let reads = match reader.join() {
        Ok(reads) => reads,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    assert!(reads > 0, "the reader never read");
}
