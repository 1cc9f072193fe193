//! The search API over a real server and real data: DBpedia-derived music data
//! (`real/music.nt.zst`) and Nomisma (`real/nomisma.nt.zst`) for languages; small stores for
//! what changes (graph replacement, a deleted index folder, a killed process).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)] // test code: a panic is the failure report

#[allow(dead_code)]
#[path = "http/common.rs"]
mod common;
#[path = "http/indexed.rs"]
mod indexed;

use indexed::IndexedServer;
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use reqwest::blocking::{Client, Response};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TUTORIAL: &str = "http://stardog.com/tutorial/";

fn data_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(name)
}

fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

/// A server over a store with its text index and follower, on 127.0.0.1:0.
struct SearchServer {
    base: String,
    _server: IndexedServer,
}

impl SearchServer {
    /// Bulk-loads `file` (from the shared data) and serves it with open updates.
    fn with_file(file: Option<&str>) -> Self {
        let settings = ServerSettings::default().with_open_updates();
        let server = IndexedServer::start(settings, Duration::from_secs(300), |store| {
            if let Some(file) = file {
                // Nomisma has a few IRIs that do not parse: skip those statements.
                let options = ParseOptions {
                    lenient: true,
                    ..ParseOptions::default()
                };
                BulkLoader::new(store)
                    .with_parse_options(options)
                    .load(&[Input::File(data_file(file))])
                    .expect("load");
            }
        });
        Self {
            base: server.base.clone(),
            _server: server,
        }
    }

    fn get(&self, path: &str, params: &[(&str, &str)]) -> Response {
        client()
            .get(format!("{}{path}", self.base))
            .query(params)
            .send()
            .expect("request")
    }

    fn json(&self, path: &str, params: &[(&str, &str)]) -> Value {
        let response = self.get(path, params);
        assert_eq!(response.status(), 200, "{path} {params:?}");
        response.json().expect("json")
    }

    fn uris(&self, path: &str, params: &[(&str, &str)]) -> Vec<String> {
        uris(&self.json(path, params))
    }

    fn update(&self, update: &str) {
        let response = client()
            .post(format!("{}/sparql", self.base))
            .form(&[("update", update)])
            .send()
            .expect("update");
        assert!(response.status().is_success(), "{update}");
    }

    fn count(&self, query: &str) -> u64 {
        let response = client()
            .get(format!("{}/sparql", self.base))
            .query(&[("query", query)])
            .header("Accept", "application/sparql-results+json")
            .send()
            .expect("query");
        assert_eq!(response.status(), 200, "{query}");
        let json: Value = response.json().expect("json");
        json["results"]["bindings"][0]["c"]["value"]
            .as_str()
            .and_then(|v| v.parse().ok())
            .expect("a count")
    }
}

fn uris(json: &Value) -> Vec<String> {
    json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["uri"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn tutorial(name: &str) -> String {
    format!("{TUTORIAL}{name}")
}

#[test]
fn music_entities_are_found_by_label_description_prefix_and_typo() {
    let server = SearchServer::with_file(Some("real/music.nt.zst"));
    let bowie = tutorial("David_Bowie");
    let heroes = tutorial("%22Heroes%22_(David_Bowie_album)");

    let by_label = server.json("/api/search", &[("q", "David Bowie")]);
    assert_eq!(uris(&by_label)[0], bowie, "{by_label}");
    assert_eq!(by_label["results"][0]["label"], "David Bowie");
    assert!(by_label["results"][0]["inDegree"].as_u64() > Some(10));

    let by_description = server.json("/api/search", &[("q", "\"Berlin Trilogy\" Visconti")]);
    assert!(uris(&by_description).contains(&heroes), "{by_description}");
    let hit = &by_description["results"][0];
    let snippet = hit["snippet"].as_str().unwrap_or_default();
    assert!(snippet.contains("<b>Berlin</b> <b>Trilogy</b>"), "{hit}");
    assert!(snippet.contains("<b>Visconti</b>"), "{hit}");
    assert_eq!(hit["matchedProperty"], tutorial("description"));

    assert!(server
        .uris("/api/search", &[("q", "bowi*")])
        .contains(&bowie));
    assert_eq!(
        server.uris("/api/search", &[("q", "David Bowei")])[0],
        bowie,
        "typo"
    );
    assert_eq!(
        server.uris("/api/search", &[("q", "dávid BOWIE")])[0],
        bowie,
        "accents"
    );

    let typed = server.uris("/api/autocomplete", &[("q", "david bo")]);
    assert!(typed.iter().take(3).any(|u| *u == bowie), "{typed:?}");
    let single = server.uris("/api/autocomplete", &[("q", "Bowi"), ("limit", "50")]);
    assert!(
        single.contains(&bowie) && single.contains(&heroes),
        "{single:?}"
    );
}

#[test]
fn music_class_filter_follows_subclasses_and_paging_is_consistent() {
    let server = SearchServer::with_file(Some("real/music.nt.zst"));
    let albums = server.json(
        "/api/search",
        &[("q", "Bowie"), ("class", &tutorial("Album"))],
    );
    assert!(albums["total"].as_u64() > Some(3), "{albums}");
    for hit in albums["results"].as_array().expect("hits") {
        assert!(hit["classes"]
            .as_array()
            .expect("classes")
            .contains(&Value::from(tutorial("Album"))));
    }
    // No work class yet: nothing. Then Album becomes a subclass of Work, and Work finds albums.
    let work = "http://example.org/Work";
    let none = server.json("/api/search", &[("q", "Bowie"), ("class", work)]);
    assert_eq!(none["total"], 0);
    server.update(&format!(
        "INSERT DATA {{ <{TUTORIAL}Album> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{work}> }}"
    ));
    let works = server.json("/api/search", &[("q", "Bowie"), ("class", work)]);
    assert_eq!(works["total"], albums["total"]);

    let all = server.json("/api/search", &[("q", "album"), ("limit", "30")]);
    let mut paged = Vec::new();
    for page in 0..3 {
        let offset = (page * 10).to_string();
        let json = server.json(
            "/api/search",
            &[("q", "album"), ("limit", "10"), ("offset", &offset)],
        );
        assert_eq!(json["total"], all["total"]);
        paged.extend(uris(&json));
    }
    assert_eq!(paged, uris(&all));
    let mut distinct = paged.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 30);
}

/// Equal scores come out in entity order whatever documents the index holds them in: a
/// commit that re-indexes one of them (a statement deleted, then inserted again) leaves the
/// order, and so the pages, as they were. Tantivy orders ties by document address, and the
/// re-indexed entity's new document came after the others.
#[test]
fn equal_scores_keep_their_order_when_an_entity_is_reindexed() {
    let server = SearchServer::with_file(None);
    let label = "http://www.w3.org/2000/01/rdf-schema#label";
    let note = "http://example.org/note";
    let twins: String = (0..6)
        .map(|i| {
            format!(
                "<http://example.org/twin{i}> <{label}> \"Zorblax twin\" ; <{note}> \"kept\" . "
            )
        })
        .collect();
    server.update(&format!("INSERT DATA {{ {twins} }}"));
    let all = [("q", "zorblax"), ("limit", "10")];
    let before = server.json("/api/search", &all);
    let order = uris(&before);
    assert_eq!(order.len(), 6, "{before}");
    let scores: Vec<f64> = before["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["score"].as_f64())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] == w[1]), "ties: {scores:?}");
    let first = &order[0];
    server.update(&format!("DELETE DATA {{ <{first}> <{note}> \"kept\" }}"));
    server.update(&format!("INSERT DATA {{ <{first}> <{note}> \"kept\" }}"));
    assert_eq!(server.uris("/api/search", &all), order);
    let mut paged = Vec::new();
    for page in 0..3 {
        let offset = (page * 2).to_string();
        paged.extend(server.uris(
            "/api/search",
            &[("q", "zorblax"), ("limit", "2"), ("offset", &offset)],
        ));
    }
    assert_eq!(paged, order);
    let typed = server.uris("/api/autocomplete", &[("q", "zorb"), ("limit", "10")]);
    assert_eq!(typed, order);
}

#[test]
fn usage_counts_equal_sparql_counts_for_100_iris() {
    let server = SearchServer::with_file(Some("real/music.nt.zst"));
    let response = client()
        .get(format!("{}/sparql", server.base))
        .query(&[(
            "query",
            "SELECT DISTINCT ?x WHERE { { ?x ?p ?o } UNION { ?s ?p ?x } FILTER(isIRI(?x)) }",
        )])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("query");
    let json: Value = response.json().expect("json");
    let mut iris: Vec<String> = json["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .filter_map(|b| b["x"]["value"].as_str().map(str::to_owned))
        .collect();
    iris.sort();
    assert!(iris.len() > 1000);
    // A fixed stride through the sorted IRIs: 100 of them, spread over the whole set.
    let stride = iris.len() / 100;
    for iri in iris.iter().step_by(stride).take(100) {
        let report = server.json("/api/lookup", &[("uri", iri)]);
        let as_subject = server.count(&format!(
            "SELECT (COUNT(*) AS ?c) WHERE {{ <{iri}> ?p ?o }}"
        ));
        let as_object = server.count(&format!(
            "SELECT (COUNT(*) AS ?c) WHERE {{ ?s ?p <{iri}> }}"
        ));
        let pointing = server.count(&format!(
            "SELECT (COUNT(DISTINCT ?s) AS ?c) WHERE {{ ?s ?p <{iri}> }}"
        ));
        assert_eq!(report["usage"]["asSubject"], as_subject, "{iri}");
        assert_eq!(report["usage"]["asObject"], as_object, "{iri}");
        assert_eq!(report["distinctSubjectsPointingAt"], pointing, "{iri}");
        assert_eq!(report["complete"], true);
    }
    let type_report = server.json(
        "/api/lookup",
        &[("uri", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type")],
    );
    assert_eq!(type_report["usage"]["asPredicate"], 7674);

    let unknown = server.get("/api/lookup", &[("uri", "http://example.org/never-used")]);
    assert_eq!(unknown.status(), 404);
    let by_fragment = server.uris("/api/lookup", &[("q", "stardog.com/tutorial/David_Bo")]);
    assert_eq!(by_fragment[0], tutorial("David_Bowie"), "{by_fragment:?}");
    let by_words = server.json("/api/lookup", &[("q", "Bowie")]);
    assert_eq!(by_words["matchedBy"], "label");
    let scores: Vec<f64> = by_words["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["score"].as_f64().unwrap_or(0.0))
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "ranked by score: {scores:?}"
    );
}

/// Issue 25: `q=` finds every IRI (predicates, IRIs used only as objects, by CURIE, CURIE
/// prefix, full IRI, IRI prefix, local name and words), and what a person means comes first.
#[test]
fn lookup_finds_every_reused_iri_and_ranks_what_a_person_means_first() {
    let server = SearchServer::with_file(Some("real/nomisma.nt.zst"));
    let first = |q: &str| {
        let json = server.json("/api/lookup", &[("q", q), ("limit", "5")]);
        uris(&json).first().cloned().unwrap_or_default()
    };
    let pref_label = "http://www.w3.org/2004/02/skos/core#prefLabel";
    // A predicate, by CURIE prefix, by full IRI (exactly) and by local name.
    assert_eq!(first("skos:pref"), pref_label);
    assert_eq!(first("skos:prefLabel"), pref_label);
    let exact = server.json("/api/lookup", &[("q", pref_label)]);
    assert_eq!(exact["results"][0]["uri"], pref_label, "{exact}");
    assert_eq!(exact["results"][0]["match"], "exactIri");
    assert!(exact["results"][0]["usage"].as_u64() > Some(100_000));
    assert_eq!(first("prefLabel"), pref_label);
    // A predicate of a prefix the code never named (the well-known list has `org:`).
    assert_eq!(first("org:organi"), "http://www.w3.org/ns/org#organization");
    // IRIs used only as objects.
    assert_eq!(
        first("http://dbpedia.org/resource/Athamanians"),
        "http://dbpedia.org/resource/Athamanians"
    );
    let objects = server.uris(
        "/api/lookup",
        &[("q", "http://dbpedia.org/resource/Ath"), ("limit", "50")],
    );
    assert!(objects.len() > 3, "{objects:?}");
    assert!(objects
        .iter()
        .all(|o| o.starts_with("http://dbpedia.org/resource/Ath")));
    // A class, by local name.
    assert_eq!(first("nmo:Mint"), "http://nomisma.org/ontology#Mint");
    // Words: the mint, not a catalogue that mentions it; a prefix: the mint, not fragments.
    assert_eq!(first("athens"), "http://nomisma.org/id/athens");
    assert_eq!(first("athe"), "http://nomisma.org/id/athens");
    // Type-ahead: Athens (448 references) above the one-use monogram fragments `Athe…`.
    let typed = server.json("/api/autocomplete", &[("q", "athe"), ("limit", "5")]);
    assert_eq!(uris(&typed)[0], "http://nomisma.org/id/athens", "{typed}");
    // Polytonic Greek matches its base letters (`Αθήνα` in the text of Athens).
    for greek in ["ἀθ", "Ἀθήνα", "αθηνα"] {
        let typed = server.uris("/api/autocomplete", &[("q", greek), ("limit", "10")]);
        assert!(
            typed
                .iter()
                .any(|u| u.starts_with("http://nomisma.org/id/athens")),
            "{greek}: {typed:?}"
        );
    }
}

#[test]
fn formats_errors_dbpedia_compatibility_and_openapi() {
    let server = SearchServer::with_file(Some("real/music.nt.zst"));
    let xml = server.get("/api/search", &[("q", "Bowie"), ("format", "xml")]);
    assert_eq!(xml.status(), 200);
    assert!(xml.headers()["content-type"]
        .to_str()
        .is_ok_and(|t| t.starts_with("application/xml")));
    let body = xml.text().expect("text");
    assert!(
        body.contains("<search>") && body.contains("<result><"),
        "{body}"
    );
    let by_accept = client()
        .get(format!("{}/api/search", server.base))
        .query(&[("q", "Bowie")])
        .header("Accept", "application/xml")
        .send()
        .expect("request");
    assert!(by_accept.text().expect("text").contains("<total>"));

    for (params, name) in [
        (vec![("q", "x"), ("limit", "0")], "limit"),
        (vec![("q", "x"), ("offset", "-1")], "offset"),
        (vec![("limit", "5")], "q"),
        (vec![("q", "x"), ("class", "not an iri")], "class"),
        (vec![("q", "x"), ("format", "yaml")], "format"),
    ] {
        let response = server.get("/api/search", &params);
        assert_eq!(response.status(), 400, "{params:?}");
        let json: Value = response.json().expect("json");
        assert_eq!(json["parameter"], name, "{json}");
    }
    let long = "word ".repeat(200);
    let refused = server.get("/api/search", &[("q", long.as_str())]);
    assert_eq!(refused.status(), 400);
    let xml_error = server.get(
        "/api/search",
        &[("q", "x"), ("limit", "0"), ("format", "xml")],
    );
    assert_eq!(xml_error.status(), 400);
    assert!(xml_error
        .text()
        .expect("text")
        .contains("<parameter>limit</parameter>"));

    let keyword = server.get(
        "/api/search/KeywordSearch",
        &[("QueryString", "David Bowie"), ("MaxHits", "3")],
    );
    let body = keyword.text().expect("text");
    assert!(body.contains("<ArrayOfResult"), "{body}");
    assert!(
        body.contains(&format!("<URI>{TUTORIAL}David_Bowie</URI>")),
        "{body}"
    );
    let json: Value = client()
        .get(format!("{}/api/search/PrefixSearch", server.base))
        .query(&[
            ("QueryString", "David Bo"),
            ("QueryClass", &tutorial("SoloArtist")),
        ])
        .header("Accept", "application/json")
        .send()
        .expect("request")
        .json()
        .expect("json");
    let first = &json["results"][0];
    assert_eq!(first["uri"], tutorial("David_Bowie"), "{json}");
    assert!(first["refCount"].as_u64() > Some(0));
    assert!(first["classes"].as_array().is_some_and(|c| !c.is_empty()));

    let openapi = server.json("/api/openapi.json", &[]);
    assert_eq!(openapi["openapi"], "3.0.3");
    assert!(openapi["paths"]["/api/search"]["get"]["parameters"].is_array());
}

#[test]
fn nomisma_labels_follow_the_requested_language() {
    let server = SearchServer::with_file(Some("real/nomisma.nt.zst"));
    let athens = "http://nomisma.org/id/athens";
    let label_in = |lang: &str| {
        let json = server.json(
            "/api/search",
            &[
                ("q", "athens"),
                ("lang", lang),
                ("class", "http://nomisma.org/ontology#Mint"),
            ],
        );
        assert_eq!(uris(&json)[0], athens, "{json}");
        json["results"][0]["label"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(label_in("de"), "Athen");
    assert_eq!(label_in("it"), "Atene");
    assert_eq!(label_in("en"), "Athens");
    let response = client()
        .get(format!("{}/api/search", server.base))
        .query(&[("q", "Atene")])
        .header("Accept-Language", "it, en;q=0.5")
        .send()
        .expect("request");
    let json: Value = response.json().expect("json");
    assert_eq!(json["results"][0]["uri"], athens);
    assert_eq!(json["results"][0]["label"], "Atene");
}

#[test]
fn a_graph_replacement_is_reflected_by_the_next_search() {
    let server = SearchServer::with_file(None);
    let graph = "http://example.org/g";
    let put = |body: &str| {
        let response = client()
            .put(format!("{}/store", server.base))
            .query(&[("graph", graph)])
            .header("Content-Type", "text/turtle")
            .body(body.to_owned())
            .send()
            .expect("put");
        assert!(response.status().is_success());
    };
    put(
        r#"<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "Quetzalcoatl feather" ."#,
    );
    assert_eq!(
        server.uris("/api/search", &[("q", "quetzalcoatl")]),
        ["http://example.org/a"]
    );
    put(
        r#"<http://example.org/b> <http://www.w3.org/2000/01/rdf-schema#label> "Xiuhcoatl serpent" ."#,
    );
    assert!(server
        .uris("/api/search", &[("q", "quetzalcoatl")])
        .is_empty());
    assert_eq!(
        server.uris("/api/search", &[("q", "xiuhcoatl")]),
        ["http://example.org/b"]
    );
    let in_graph = server.uris("/api/search", &[("q", "serpent"), ("graph", graph)]);
    assert_eq!(in_graph, ["http://example.org/b"]);
    assert!(server
        .uris(
            "/api/search",
            &[("q", "serpent"), ("graph", "http://example.org/other")]
        )
        .is_empty());
}

/// A `lodestone serve` process over a data folder that outlives it.
struct Process {
    child: Child,
    base: String,
}

impl Process {
    fn serve(data: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lodestone"))
            .arg("serve")
            .arg("--data")
            .arg(data)
            .args(["--bind", "127.0.0.1:0", "--open-updates", "--no-sample"])
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start lodestone");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let _ = tx.send(line[at + "listening on ".len()..].trim().to_owned());
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("lodestone serve started");
        Self { child, base }
    }

    /// The hits for `q`, asking again while the index is being built (`503 index_building`,
    /// as a client told `Retry-After` would, but sooner).
    fn search(&self, q: &str) -> Vec<String> {
        let started = Instant::now();
        loop {
            let response = client()
                .get(format!("{}/api/search", self.base))
                .query(&[("q", q)])
                .send()
                .expect("search");
            if response.status() == 503 && started.elapsed() < Duration::from_secs(60) {
                let body: Value = response.json().expect("json");
                assert_eq!(body["code"], "index_building", "{body}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            assert_eq!(response.status(), 200);
            return uris(&response.json().expect("json"));
        }
    }

    fn insert_label(&self, subject: &str, label: &str) {
        let update = format!(
            "INSERT DATA {{ <{subject}> <http://www.w3.org/2000/01/rdf-schema#label> \"{label}\" }}"
        );
        let response = client()
            .post(format!("{}/sparql", self.base))
            .form(&[("update", update.as_str())])
            .send()
            .expect("update");
        assert!(response.status().is_success());
    }

    fn kill(mut self) {
        self.child.kill().expect("kill");
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_killed_server_catches_up_and_a_deleted_index_is_rebuilt() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    let server = Process::serve(&data);
    server.insert_label("http://example.org/first", "Ozymandias");
    assert_eq!(server.search("ozymandias"), ["http://example.org/first"]);
    // Killed right after a commit: the index may not have applied it yet.
    server.insert_label("http://example.org/second", "Bucephalus");
    server.kill();
    let server = Process::serve(&data);
    assert_eq!(server.search("bucephalus"), ["http://example.org/second"]);
    server.kill();

    std::fs::remove_dir_all(data.join("text-index")).expect("delete the index");
    let started = Instant::now();
    let server = Process::serve(&data);
    assert_eq!(server.search("ozymandias"), ["http://example.org/first"]);
    assert_eq!(server.search("bucephalus"), ["http://example.org/second"]);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(data.join("text-index").join("meta.json").exists());
}

/// The rows of a SPARQL SELECT as (key term, count) pairs, terms as (type, value, lang).
fn sparql_rows(server: &SearchServer, sparql: &str, key: &str) -> Vec<(String, String, u64)> {
    let response = client()
        .get(format!("{}/sparql", server.base))
        .query(&[("query", sparql)])
        .header("Accept", "application/sparql-results+json")
        .send()
        .expect("query");
    assert_eq!(response.status(), 200, "{sparql}");
    let json: Value = response.json().expect("json");
    let mut rows: Vec<(String, String, u64)> = json["results"]["bindings"]
        .as_array()
        .expect("bindings")
        .iter()
        .map(|b| {
            (
                b[key]["type"].as_str().unwrap_or("").to_owned(),
                b[key]["value"].as_str().unwrap_or("").to_owned(),
                b["count"]["value"]
                    .as_str()
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn facet_text_constraints_use_the_index_and_agree_with_their_sparql() {
    let server = SearchServer::with_file(Some("real/music.nt.zst"));
    // The first search waits for the index build.
    assert!(!uris(&server.json("/api/search", &[("q", "Bowie")])).is_empty());
    let mut compared = 0;
    for words in ["bowie", "rock band", "\"Berlin Trilogy\"", "guitar*"] {
        for (view, key) in [("classes", "class"), ("properties", "property")] {
            let body = serde_json::json!({"text": words, "view": {"type": view, "limit": 1000}});
            let response = client()
                .post(format!("{}/api/facets", server.base))
                .json(&body)
                .send()
                .expect("facets");
            assert_eq!(response.status(), 200, "{body}");
            let answer: Value = response.json().expect("json");
            assert_eq!(answer["complete"], true, "{answer}");
            let sparql = answer["sparql"].as_str().expect("sparql");
            assert!(sparql.contains("urn:lodestone:fn:textMatch"), "{sparql}");
            let mut ours: Vec<(String, String, u64)> = answer["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .map(|r| {
                    (
                        r["value"]["type"].as_str().unwrap_or("").to_owned(),
                        r["value"]["value"].as_str().unwrap_or("").to_owned(),
                        r["count"].as_u64().unwrap_or(0),
                    )
                })
                .collect();
            ours.sort();
            assert!(!ours.is_empty(), "{words}: {answer}");
            assert_eq!(ours, sparql_rows(&server, sparql, key), "{words} {view}");
            compared += 1;
        }
    }
    assert_eq!(compared, 8);
}

/// Issue 25: lookup reads CURIEs with the prefixes declared in the data (recorded by
/// `Store::record_prefixes`, as loads and updates do), and shows each candidate's entity rank.
#[test]
fn lookup_reads_declared_prefixes_and_shows_the_entity_rank() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("zoo.nt");
    std::fs::write(
        &file,
        "<http://example.org/zoo/giraffe> <http://www.w3.org/2000/01/rdf-schema#label> \"Giraffe\" .\n\
         <http://example.org/zoo/giraffe> <http://example.org/zoo/livesIn> <http://example.org/zoo/africa> .\n\
         <http://example.org/zoo/zebra> <http://example.org/zoo/livesIn> <http://example.org/zoo/africa> .\n",
    )
    .expect("write");
    let server = IndexedServer::start(
        ServerSettings::default(),
        Duration::from_secs(60),
        |store| {
            BulkLoader::new(store)
                .load(&[Input::File(file.clone())])
                .expect("load");
            let declared = [("zoo".to_owned(), "http://example.org/zoo/".to_owned())];
            assert_eq!(store.record_prefixes(&declared).expect("record"), 1);
            // Not recorded: no name, or no IRI.
            let junk = [
                (String::new(), "http://example.org/".to_owned()),
                ("x".to_owned(), "not an IRI".to_owned()),
            ];
            assert_eq!(store.record_prefixes(&junk).expect("record"), 0);
        },
    );
    let json: Value = client()
        .get(format!("{}/api/lookup", server.base))
        .query(&[("q", "zoo:gir")])
        .send()
        .expect("request")
        .json()
        .expect("json");
    assert_eq!(json["matchedBy"], "iri", "{json}");
    let results = json["results"].as_array().expect("results");
    assert_eq!(
        results.first().and_then(|r| r["uri"].as_str()),
        Some("http://example.org/zoo/giraffe"),
        "{json}"
    );
    let africa: Value = client()
        .get(format!("{}/api/lookup", server.base))
        .query(&[("q", "zoo:africa")])
        .send()
        .expect("request")
        .json()
        .expect("json");
    let first = &africa["results"][0];
    assert_eq!(first["uri"], "http://example.org/zoo/africa", "{africa}");
    let (africa_rank, giraffe_rank) = (
        first["entityRank"].as_f64().expect("entityRank"),
        results[0]["entityRank"].as_f64().expect("entityRank"),
    );
    assert!(africa_rank > giraffe_rank, "{africa_rank} {giraffe_rank}");
}
