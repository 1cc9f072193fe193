//! Full-text search inside SPARQL (issue 24) over a real server and real data: Virtuoso's
//! `bif:contains`, Jena's `text:query` and Lodestone's `lodestone:text` give the hits of
//! `/api/search` for the same words, on DBpedia-derived music data and on Nomisma.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;
#[path = "http/indexed.rs"]
mod indexed;

use indexed::IndexedServer;
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use oxrdf::Literal;
use reqwest::blocking::{Client, Response};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

const TOKEN: &str = "text-sparql-token";

fn data_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(name)
}

fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .expect("client")
}

struct Server {
    base: String,
    _server: IndexedServer,
}

impl Server {
    fn with_file(file: &str, settings: ServerSettings) -> Self {
        let server = IndexedServer::start(settings, Duration::from_secs(600), |store| {
            let options = ParseOptions {
                lenient: true,
                ..ParseOptions::default()
            };
            BulkLoader::new(store)
                .with_parse_options(options)
                .load(&[Input::File(data_file(file))])
                .expect("load");
        });
        Self {
            base: server.base.clone(),
            _server: server,
        }
    }

    /// A server over the N-Quads `quads`, writable with [`TOKEN`].
    fn with_quads(quads: &str) -> Self {
        Self::with_quads_and(quads, ServerSettings::default())
    }

    fn with_quads_and(quads: &str, settings: ServerSettings) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("data.nq");
        std::fs::write(&file, quads).expect("write quads");
        let settings = settings.with_update_token(TOKEN);
        let server = IndexedServer::start(settings, Duration::from_secs(60), |store| {
            BulkLoader::new(store)
                .load(&[Input::File(file)])
                .expect("load");
        });
        Self {
            base: server.base.clone(),
            _server: server,
        }
    }

    /// Runs an update; its status and body.
    fn update(&self, text: &str) -> (u16, String) {
        let response = client()
            .post(format!("{}/sparql", self.base))
            .form(&[("update", text)])
            .bearer_auth(TOKEN)
            .send()
            .expect("update");
        (response.status().as_u16(), response.text().expect("body"))
    }

    /// The query is a 400 whose message names `problem`.
    fn refuses(&self, query: &str, problem: &str) {
        let response = self.sparql(query);
        assert_eq!(response.status(), 400, "{query}");
        let body = response.text().expect("body");
        assert!(body.contains(problem), "{query}: {body}");
    }

    fn sparql(&self, query: &str) -> Response {
        client()
            .get(format!("{}/sparql", self.base))
            .query(&[("query", query)])
            .header("Accept", "application/sparql-results+json")
            .send()
            .expect("query")
    }

    /// The rows of a query: for each, the value of each variable (empty when unbound).
    fn rows(&self, query: &str, variables: &[&str]) -> Vec<Vec<String>> {
        let response = self.sparql(query);
        let status = response.status();
        let body = response.text().expect("body");
        assert_eq!(status, 200, "{query}\n{body}");
        let json: Value = serde_json::from_str(&body).expect("json");
        json["results"]["bindings"]
            .as_array()
            .expect("bindings")
            .iter()
            .map(|b| {
                variables
                    .iter()
                    .map(|v| b[*v]["value"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .collect()
    }

    /// Every hit of `/api/search` for the words: (uri, score), best first.
    fn api_hits(&self, words: &str) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        loop {
            let offset = out.len().to_string();
            let response = client()
                .get(format!("{}/api/search", self.base))
                .query(&[("q", words), ("limit", "1000"), ("offset", offset.as_str())])
                .send()
                .expect("search");
            assert_eq!(response.status(), 200, "{words}");
            let json: Value = response.json().expect("json");
            let page = json["results"].as_array().expect("results").clone();
            if page.is_empty() {
                return out;
            }
            for hit in page {
                out.push((
                    hit["uri"].as_str().expect("uri").to_owned(),
                    hit["score"].as_f64().expect("score"),
                ));
            }
        }
    }
}

/// A string as a SPARQL literal, escaped.
fn string(text: &str) -> String {
    Literal::new_simple_literal(text).to_string()
}

/// The text patterns give `/api/search`'s hits with its scores in its order (up to ties), and
/// `bif:contains` binds only literals of those entities that contain the words.
fn agrees_with_api_search(server: &Server, words: &[&str], contained: &[&str]) {
    for (word, needle) in words.iter().zip(contained) {
        let api = server.api_hits(word);
        assert!(!api.is_empty(), "no hits for {word}");
        let native = server.rows(
            &format!(
                "SELECT ?e ?sc WHERE {{ ?e lodestone:text [ lodestone:query {}; lodestone:score ?sc ] }} ORDER BY DESC(?sc)",
                string(word)
            ),
            &["e", "sc"],
        );
        let ours: BTreeSet<&str> = native.iter().map(|r| r[0].as_str()).collect();
        let theirs: BTreeSet<&str> = api.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(ours, theirs, "{word}");
        assert_eq!(native.len(), api.len(), "{word}");
        for (row, (uri, score)) in native.iter().zip(&api) {
            let sc: f64 = row[1].parse().expect("a score");
            assert!(
                (sc - score).abs() <= 1e-3 * score.abs().max(1.0),
                "{word}: {row:?} vs {uri} {score}"
            );
        }
        let jena = server.rows(
            &format!("SELECT ?s WHERE {{ ?s text:query {} }}", string(word)),
            &["s"],
        );
        let jena: BTreeSet<&str> = jena.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(jena, theirs, "{word}");

        let literals = server.rows(
            &format!(
                "SELECT DISTINCT ?s ?o WHERE {{ ?s ?p ?o . ?o bif:contains {} }}",
                string(&format!("'{}'", word.trim_matches('"')))
            ),
            &["s", "o"],
        );
        assert!(!literals.is_empty(), "{word}: no literal contains it");
        for row in &literals {
            assert!(
                theirs.contains(row[0].as_str()),
                "{word}: {row:?} is not a hit"
            );
            let folded = row[1].to_lowercase();
            assert!(
                folded.contains(needle),
                "{word}: {:?} lacks {needle}",
                row[1]
            );
        }
    }
}

#[test]
fn text_patterns_give_the_hits_of_api_search_on_music_and_nomisma() {
    let music = Server::with_file("real/music.nt.zst", ServerSettings::default());
    agrees_with_api_search(
        &music,
        &["bowie", "\"rock band\"", "london", "\"Berlin Trilogy\""],
        &["bowie", "rock band", "london", "berlin trilogy"],
    );
    drop(music);
    let nomisma = Server::with_file("real/nomisma.nt.zst", ServerSettings::default());
    agrees_with_api_search(
        &nomisma,
        &["athens", "denarius", "\"gold coin\""],
        &["athen", "narius", "gold coin"],
    );
}

#[test]
fn every_syntax_runs_index_first_or_as_a_filter_with_the_same_rows() {
    // A cap of 50 hits: frequent words take the filter path, rare ones the table.
    let capped = Server::with_file(
        "real/music.nt.zst",
        ServerSettings::default().with_max_text_hits(50),
    );
    let open = Server::with_file("real/music.nt.zst", ServerSettings::default());
    let label_query = |expr: &str| {
        format!(
            "PREFIX tutorial: <http://stardog.com/tutorial/>
             SELECT ?p ?l WHERE {{ ?p tutorial:name ?l . ?l bif:contains {} }} ORDER BY ?p ?l",
            string(expr)
        )
    };
    for expr in [
        "love",
        "'rock band'",
        "love AND song",
        "bowie OR jagger",
        "lov*",
        "(heart OR love) AND song",
    ] {
        let query = label_query(expr);
        let table = open.rows(&query, &["p", "l"]);
        assert!(!table.is_empty(), "{expr}");
        assert_eq!(capped.rows(&query, &["p", "l"]), table, "{expr}");
    }
    // Jena's forms, with a property, a limit and the score and literal bound.
    let jena = open.rows(
        "PREFIX tutorial: <http://stardog.com/tutorial/>
         SELECT ?s ?score ?lit WHERE { (?s ?score ?lit) text:query (tutorial:name \"love\" 5) }",
        &["s", "score", "lit"],
    );
    assert!(!jena.is_empty() && jena.len() <= 5, "{jena:?}");
    for row in &jena {
        assert!(row[2].to_lowercase().contains("love"), "{row:?}");
        assert!(row[1].parse::<f64>().is_ok(), "{row:?}");
    }
    // The native form's snippet and literal; the Virtuoso form's score.
    let native = open.rows(
        "SELECT ?e ?lit ?sn WHERE { ?e lodestone:text [ lodestone:query \"bowie\"; lodestone:literal ?lit; lodestone:snippet ?sn ] } LIMIT 5",
        &["e", "lit", "sn"],
    );
    assert!(!native.is_empty());
    assert!(
        native.iter().all(|r| r[2].to_lowercase().contains("bowie")),
        "{native:?}"
    );
    let scored = open.rows(
        "SELECT ?o ?sc WHERE { (?o ?sc) bif:contains \"bowie\" } ORDER BY DESC(?sc) LIMIT 3",
        &["o", "sc"],
    );
    assert_eq!(scored.len(), 3);
    // The function of before keeps working.
    let matched = open.rows(
        "SELECT (COUNT(DISTINCT ?e) AS ?n) WHERE { ?e ?p ?o FILTER(<urn:lodestone:fn:textMatch>(?e, \"bowie\")) }",
        &["n"],
    );
    assert_ne!(matched[0][0], "0");
}

#[test]
fn malformed_text_expressions_are_400_naming_the_problem() {
    let server = Server::with_file("real/music.nt.zst", ServerSettings::default());
    for (query, problem) in [
        (
            "SELECT * WHERE { ?o bif:contains \"love AND\" }",
            "ends where a word",
        ),
        (
            "SELECT * WHERE { ?o bif:contains \"(love OR hate\" }",
            "not closed",
        ),
        (
            "SELECT * WHERE { ?o bif:contains \"love NEAR hate\" }",
            "NEAR is not supported",
        ),
        ("SELECT * WHERE { ?o bif:contains 42 }", "must be a string"),
        (
            "SELECT * WHERE { ?e lodestone:text [ lodestone:colour ?c ] }",
            "lodestone:colour",
        ),
    ] {
        server.refuses(query, problem);
    }
}

#[test]
fn the_browser_sparql_page_runs_text_patterns_and_the_text_function() {
    let server = Server::with_file("real/music.nt.zst", ServerSettings::default());
    for query in [
        "SELECT ?e WHERE { ?e ?p ?o FILTER(<urn:lodestone:fn:textMatch>(?e, \"bowie\")) } LIMIT 3",
        "SELECT ?e WHERE { ?e lodestone:text \"bowie\" } LIMIT 3",
    ] {
        let response = client()
            .get(format!("{}/sparql", server.base))
            .query(&[("query", query)])
            .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            .send()
            .expect("page");
        assert_eq!(response.status(), 200, "{query}");
        let body = response.text().expect("html");
        assert!(body.contains("David_Bowie"), "{query}: {body}");
    }
}

#[test]
fn the_sparql_of_a_ranked_list_gives_its_rows_in_its_order() {
    let server = Server::with_file("real/music.nt.zst", ServerSettings::default());
    for words in ["love", "bowie", "rock band"] {
        for offset in [0, 20] {
            let body = serde_json::json!({
                "text": words,
                "view": {"type": "entities", "limit": 20, "offset": offset}
            });
            let response = client()
                .post(format!("{}/api/facets", server.base))
                .json(&body)
                .send()
                .expect("facets");
            assert_eq!(response.status(), 200, "{body}");
            let answer: Value = response.json().expect("json");
            let listed: Vec<String> = answer["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .map(|r| r["value"]["value"].as_str().unwrap_or("").to_owned())
                .collect();
            assert!(!listed.is_empty(), "{words}: {answer}");
            let sparql = answer["sparql"].as_str().expect("sparql");
            let variable = sparql
                .split_whitespace()
                .find_map(|w| w.strip_prefix('?'))
                .expect("a projected variable");
            let shown: Vec<String> = server
                .rows(sparql, &[variable])
                .into_iter()
                .map(|mut r| r.remove(0))
                .collect();
            assert_eq!(shown, listed, "{words} at {offset}: {sparql}");
        }
    }
}

/// Labels in named graphs: "zebra crossing" is the label of `a` in `g1` and of `b` in `g2`.
const GRAPHS: &str = r#"
<http://ex/a> <http://www.w3.org/2000/01/rdf-schema#label> "zebra crossing" <http://ex/g1> .
<http://ex/b> <http://www.w3.org/2000/01/rdf-schema#label> "zebra crossing" <http://ex/g2> .
<http://ex/c> <http://www.w3.org/2000/01/rdf-schema#label> "lion" <http://ex/g3> .
<http://ex/d> <http://www.w3.org/2000/01/rdf-schema#label> "zebra" <http://ex/g3> .
<http://ex/e> <http://www.w3.org/2000/01/rdf-schema#label> "zebra herd on the plain" .
<http://ex/e> <http://www.w3.org/2000/01/rdf-schema#comment> "a lion watches" .
"#;

fn sorted(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.sort();
    rows
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

#[test]
fn virtuoso_option_score_binds_the_score_and_score_limit_keeps_the_best() {
    let server = Server::with_quads(GRAPHS);
    let listed = server.rows(
        "SELECT ?o ?sc WHERE { (?o ?sc) bif:contains \"zebra\" } ORDER BY DESC(?sc) ?o",
        &["o", "sc"],
    );
    assert_eq!(listed.len(), 3, "{listed:?}");
    for query in [
        "SELECT ?o ?sc WHERE { ?o bif:contains \"zebra\" OPTION (score ?sc) } ORDER BY DESC(?sc) ?o",
        "SELECT DISTINCT ?o ?sc WHERE { ?s ?p ?o . ?o bif:contains 'zebra' option ( SCORE ?sc ) . } ORDER BY DESC(?sc) ?o",
    ] {
        assert_eq!(server.rows(query, &["o", "sc"]), listed, "{query}");
    }
    // score_limit: only hits scoring at least the limit.
    let best: f64 = listed[0][1].parse().expect("score");
    let worst: f64 = listed[2][1].parse().expect("score");
    assert!(best > worst, "{listed:?}");
    let limited = server.rows(
        &format!(
            "SELECT ?o ?sc WHERE {{ ?o bif:contains 'zebra' OPTION (score ?sc, score_limit {best}) }}"
        ),
        &["o", "sc"],
    );
    assert!(
        !limited.is_empty() && limited.len() < listed.len(),
        "{limited:?}"
    );
    assert!(limited
        .iter()
        .all(|r| r[1].parse::<f64>().expect("score") >= best));
    for (query, problem) in [
        (
            "SELECT * WHERE { ?o bif:contains 'zebra' OPTION (offband ?x) }",
            "offband",
        ),
        (
            "SELECT * WHERE { ?o bif:contains 'zebra' OPTION (score 3) }",
            "takes a variable",
        ),
        (
            "SELECT * WHERE { ?o <http://ex/p> 'zebra' OPTION (score ?x) }",
            "follows a bif:contains",
        ),
    ] {
        server.refuses(query, problem);
    }
}

#[test]
fn a_text_pattern_inside_graph_matches_in_the_graph_of_its_literal() {
    let server = Server::with_quads(GRAPHS);
    // The literal is in g1 and g2, not in g3 (which has other zebras) nor in the default graph.
    let literal = sorted(server.rows(
        "SELECT ?g ?o WHERE { GRAPH ?g { ?o bif:contains \"crossing\" } }",
        &["g", "o"],
    ));
    assert_eq!(
        literal,
        [
            row(&["http://ex/g1", "zebra crossing"]),
            row(&["http://ex/g2", "zebra crossing"])
        ]
    );
    let scored = sorted(server.rows(
        "SELECT ?g ?s WHERE { GRAPH ?g { ?s ?p ?o . ?o bif:contains 'crossing' OPTION (score ?sc) } }",
        &["g", "s"],
    ));
    assert_eq!(
        scored,
        [
            row(&["http://ex/g1", "http://ex/a"]),
            row(&["http://ex/g2", "http://ex/b"])
        ]
    );
    let entities = sorted(server.rows(
        "SELECT ?g ?s ?lit WHERE { GRAPH ?g { (?s ?sc ?lit) text:query \"zebra\" } }",
        &["g", "s", "lit"],
    ));
    assert_eq!(
        entities,
        [
            row(&["http://ex/g1", "http://ex/a", "zebra crossing"]),
            row(&["http://ex/g2", "http://ex/b", "zebra crossing"]),
            row(&["http://ex/g3", "http://ex/d", "zebra"]),
        ]
    );
    // A named graph: only what is in it.
    assert!(server
        .rows(
            "SELECT ?o WHERE { GRAPH <http://ex/g3> { ?o bif:contains 'crossing' } }",
            &["o"]
        )
        .is_empty());
    assert_eq!(
        server.rows(
            "SELECT ?s WHERE { GRAPH <http://ex/g2> { ?s lodestone:text 'zebra' } }",
            &["s"]
        ),
        [row(&["http://ex/b"])]
    );
    // Inside OPTIONAL in the graph (the table stays inside GRAPH): the same scoping.
    let optional = sorted(server.rows(
        "SELECT ?g ?o WHERE { GRAPH ?g { ?x ?p ?y OPTIONAL { ?o bif:contains 'crossing' FILTER(?o = ?y) } } }",
        &["g", "o"],
    ));
    assert_eq!(
        optional,
        [
            row(&["http://ex/g1", "zebra crossing"]),
            row(&["http://ex/g2", "zebra crossing"]),
            row(&["http://ex/g3", ""]),
            row(&["http://ex/g3", ""]),
        ]
    );
}

#[test]
fn updates_use_text_patterns_in_their_where_against_the_store_as_they_start() {
    let server = Server::with_quads(GRAPHS);
    let labels = |server: &Server| {
        sorted(server.rows(
            "SELECT ?s ?o WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?o }",
            &["s", "o"],
        ))
    };
    // A literal pattern with its score, into the default graph.
    let (status, body) = server.update(
        "INSERT { ?s <http://ex/score> ?sc } WHERE { ?s ?p ?o . ?o bif:contains 'lion' OPTION (score ?sc) }",
    );
    assert_eq!(status, 204, "{body}");
    let scored = sorted(server.rows("SELECT ?s WHERE { ?s <http://ex/score> ?sc }", &["s"]));
    // The default graph is the union of the graphs: c's label (in g3) counts too.
    assert_eq!(scored, [row(&["http://ex/c"]), row(&["http://ex/e"])]);
    // Inside GRAPH: only the graph of the literal loses its triple.
    let (status, body) = server.update(
        "DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o . ?o bif:contains 'crossing' } }",
    );
    assert_eq!(status, 204, "{body}");
    let left: Vec<String> = labels(&server).into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(left, ["http://ex/c", "http://ex/d", "http://ex/e"]);
    // Written by one request, matched by the text pattern of the next.
    let (status, body) = server.update(
        "INSERT DATA { <http://ex/f> <http://www.w3.org/2000/01/rdf-schema#label> \"giraffe\" }",
    );
    assert_eq!(status, 204, "{body}");
    let (status, body) =
        server.update("DELETE { ?s ?p ?o } WHERE { ?s text:query 'giraffe' . ?s ?p ?o }");
    assert_eq!(status, 204, "{body}");
    assert!(!labels(&server).iter().any(|r| r[0] == "http://ex/f"));
    let (status, body) = server.update("DELETE WHERE { ?o bif:contains 'lion AND' }");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("ends where a word"), "{body}");
}

#[test]
fn the_rest_of_the_pattern_starts_from_each_hit_not_from_a_join_of_its_own() {
    // 2,000 labels with "needle" (a table of hits) on products of Small; 30,000 products of
    // Big. `?x rdfs:label "Big"` is estimated as selective as `?p rdfs:label ?l` with `?l`
    // bound, and comes first: evaluated per matching label, it read Big's 30,000 products.
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    let made = "<http://ex/producer>";
    let mut quads =
        format!("<http://ex/big> {label} \"Big\" .\n<http://ex/small> {label} \"Small\" .\n");
    for (n, producer, word) in (0..30_000)
        .map(|n| (n, "big", "item"))
        .chain((0..2_000).map(|n| (n, "small", "needle")))
    {
        quads.push_str(&format!(
            "<http://ex/{word}{n}> {made} <http://ex/{producer}> .\n<http://ex/{word}{n}> {label} \"{word} {n}\" .\n"
        ));
    }
    let server = Server::with_quads_and(
        &quads,
        ServerSettings::default().with_query_timeout(Duration::from_secs(5)),
    );
    let query = |producer: &str| {
        format!("SELECT ?p ?l WHERE {{ ?p {made} ?x . ?x {label} '{producer}' . ?p {label} ?l . ?l bif:contains 'needle' }} LIMIT 10")
    };
    // Every hit read, no row: 2,000 × 30,000 look-ups before (over the 5 s budget).
    let started = std::time::Instant::now();
    assert!(server.rows(&query("Big"), &["p", "l"]).is_empty());
    assert!(started.elapsed() < Duration::from_secs(5));
    let found = server.rows(&query("Small"), &["p", "l"]);
    assert_eq!(found.len(), 10);
    assert!(
        found.iter().all(|r| r[1].starts_with("needle ")),
        "{found:?}"
    );
}

#[test]
fn a_literal_held_by_a_label_property_is_searched_in_labels_with_the_rows_of_the_filter() {
    // Words in labels (tagged and not) and in comments: the label-only search must give the
    // rows of the filter path (a cap of one hit sends every word there).
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    let comment = "<http://www.w3.org/2000/01/rdf-schema#comment>";
    let a = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Product>";
    let mut quads = format!(
        "<http://ex/a> {label} \"Running shoes\"@en .\n<http://ex/a> {a} .\n\
         <http://ex/b> {label} \"Blue box\" .\n<http://ex/b> {comment} \"running late\"@en .\n<http://ex/b> {a} .\n\
         <http://ex/c> {label} \"runs\" .\n<http://ex/d> {label} \"Dying star\"@en .\n\
         <http://ex/e> {label} \"Gardenn party\" .\n<http://ex/e> {a} .\n"
    );
    for n in 0..30 {
        quads.push_str(&format!(
            "<http://ex/t{n}> {label} \"thing {n}\" .\n<http://ex/t{n}> {comment} \"run fast, shoes\"@en .\n"
        ));
    }
    let open = Server::with_quads(&quads);
    let capped = Server::with_quads_and(&quads, ServerSettings::default().with_max_text_hits(1));
    let expected: [(&str, &[&str]); 8] = [
        ("run", &["http://ex/a"]),
        ("die", &["http://ex/d"]),
        ("garden", &["http://ex/e"]),
        ("sho*", &["http://ex/a"]),
        ("'running shoes'", &["http://ex/a"]),
        ("late", &[]),
        ("fast", &[]),
        ("thing", &["http://ex/t0"]),
    ];
    for (words, entities) in expected {
        for class in ["", "?p a <http://ex/Product> ."] {
            let query = format!(
                "SELECT ?p ?l WHERE {{ {class} ?p {label} ?l . ?l bif:contains {} }} ORDER BY ?p LIMIT 1",
                string(words)
            );
            let rows = open.rows(&query, &["p", "l"]);
            assert_eq!(rows, capped.rows(&query, &["p", "l"]), "{query}");
            let found: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
            let want: Vec<&str> = entities
                .iter()
                .copied()
                .filter(|e| class.is_empty() || ["http://ex/a", "http://ex/e"].contains(e))
                .collect();
            assert_eq!(found, want, "{query}");
        }
    }
    // An update's WHERE is evaluated on its transaction's reader, which knows no stand-ins.
    let (status, body) = open.update(&format!(
        "DELETE {{ ?p {label} ?l }} WHERE {{ ?p {label} ?l . ?l bif:contains 'garden' }}"
    ));
    assert_eq!(status, 204, "{body}");
    let left = open.rows(
        &format!("SELECT ?l WHERE {{ <http://ex/e> {label} ?l }}"),
        &["l"],
    );
    assert!(left.is_empty(), "{left:?}");
}
