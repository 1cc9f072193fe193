//! The RDFa of entity pages, read by pyRdfa (an RDFa processor written elsewhere), states
//! exactly the triples of the Turtle document of the same page, for entities of real data.

use crate::common::TestServer;
use crate::support::get;
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use std::path::Path;
use std::process::Command;

const DATASETS: [&str; 2] = ["real/music.nt.zst", "real/wikidata_samples.nt.zst"];

fn shared_data() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"))
}

/// Fails (never skips) when python3 or pyRdfa is missing: `make deps-python` installs them.
fn require_pyrdfa() {
    let probe = Command::new("python3")
        .args(["-c", "import pyRdfa, rdflib"])
        .output();
    match probe {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "pyRdfa is not installed for python3 ({}): run `make deps-python`",
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(error) => panic!(
            "python3 is needed for the RDFa check ({error}): install it, then `make deps-python`"
        ),
    }
}

fn values(server: &TestServer, query: &str) -> Vec<String> {
    server.select(query, "s")
}

#[test]
fn rdfa_states_the_triples_of_the_turtle_document() {
    require_pyrdfa();
    let server = TestServer::with_store(ServerSettings::default(), |store| {
        let inputs: Vec<Input> = DATASETS
            .iter()
            .map(|d| Input::from_arg(&shared_data().join(d).to_string_lossy()))
            .collect();
        // Lenient: one Wikidata language tag is longer than BCP 47 allows.
        let options = ParseOptions {
            lenient: true,
            ..ParseOptions::default()
        };
        BulkLoader::new(store)
            .with_parse_options(options)
            .load(&inputs)
            .expect("load the real datasets");
    });
    let mut entities = values(
        &server,
        "SELECT ?s WHERE { ?s ?p ?o FILTER(isIRI(?s)) } GROUP BY ?s ORDER BY DESC(COUNT(*)) LIMIT 8",
    );
    entities.extend(values(
        &server,
        "SELECT ?s WHERE { ?x ?p ?s FILTER(isIRI(?s)) } GROUP BY ?s ORDER BY DESC(COUNT(*)) LIMIT 4",
    ));
    entities.extend(values(
        &server,
        "SELECT DISTINCT ?s WHERE { ?s a ?c FILTER(isIRI(?s)) } ORDER BY ?s LIMIT 8",
    ));
    entities.extend(values(
        &server,
        "SELECT DISTINCT ?s WHERE { ?s <http://schema.org/about> ?x } LIMIT 4",
    ));
    entities.sort();
    entities.dedup();
    assert!(entities.len() >= 12, "{entities:?}");
    check(&server, &entities);
}

/// The test data's entities: blank nodes two levels deep, languages, typed literals, a
/// non-ASCII IRI, markup in literals.
#[test]
fn rdfa_of_blank_nodes_languages_and_markup() {
    require_pyrdfa();
    let server = crate::support::server();
    let entities: Vec<String> = ["alice", "xss", "Zürich", "bob"]
        .iter()
        .map(|name| format!("{}{name}", crate::support::BASE))
        .collect();
    check(&server, &entities);
}

/// Fetches each entity's HTML and Turtle and has `rdfa_check.py` compare them.
fn check(server: &TestServer, entities: &[String]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut args =
        vec![concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pages/rdfa_check.py").to_owned()];
    for (i, iri) in entities.iter().enumerate() {
        let query = lodestone_web::links::query(&[("uri", iri.as_str())]);
        // The HTML is the first page; its triples are those of the first page of the
        // N-Triples document (a Turtle file too) without the paging statements.
        let html = get(server, &format!("/describe?{query}&format=html"), "");
        assert_eq!(html.status(), 200, "{iri} html");
        let html_path = dir.path().join(format!("{i}.html"));
        std::fs::write(&html_path, html.bytes().expect("body")).expect("write");
        let nt = get(server, &format!("/describe?{query}&format=nt&page=1"), "");
        assert_eq!(nt.status(), 200, "{iri} nt");
        let nt = nt.text().expect("body");
        let described: String = nt
            .lines()
            .filter(|l| {
                !l.contains("<http://www.w3.org/ns/hydra/core#")
                    && !l.contains("<http://rdfs.org/ns/void#")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let ttl_path = dir.path().join(format!("{i}.ttl"));
        std::fs::write(&ttl_path, described).expect("write");
        args.push(html_path.to_string_lossy().into_owned());
        args.push(ttl_path.to_string_lossy().into_owned());
    }
    let output = Command::new("python3")
        .args(&args)
        .output()
        .expect("run python3");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "RDFa differs from Turtle:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        report.contains(&format!("{} passed, 0 failed", entities.len())),
        "{report}"
    );
}
