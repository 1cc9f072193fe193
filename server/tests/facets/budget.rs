//! Views on large sets within a small budget: start views in one graph read from the
//! statistics where they suffice, and foci generated through a constrained neighbour set
//! answered with what was listed by the deadline.

use crate::common::TestServer;
use crate::data::{facets, RDF_TYPE};
use lodestone_server::settings::ServerSettings;
use serde_json::{json, Value};

/// A server whose store holds `text` (N-Quads), bulk loaded.
fn server_with(text: &str) -> TestServer {
    TestServer::with_store(ServerSettings::default(), |store| {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("data.nq");
        std::fs::write(&path, text).expect("write");
        lodestone_store::load::BulkLoader::new(store)
            .load(&[lodestone_store::load::Input::File(path)])
            .expect("bulk load");
    })
}

/// The rows of an answer as (IRI, count, exact).
fn rows(answer: &Value) -> Vec<(String, u64, bool)> {
    answer["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["value"]["value"].as_str().expect("iri").to_owned(),
                r["count"].as_u64().expect("count"),
                r["exact"].as_bool().expect("exact"),
            )
        })
        .collect()
}

/// Entities in a graph holding every quad of the store (a store loaded into one named
/// graph): the start views in that graph are the store's, read from the statistics —
/// complete and exact within 1 ms, which a walk over 100,000 subjects cannot meet.
#[test]
fn start_views_in_a_graph_holding_every_quad_are_exact_in_one_millisecond() {
    const ENTITIES: u64 = 100_000;
    let mut text = String::new();
    for i in 0..ENTITIES {
        text.push_str(&format!(
            "<http://e/x{i}> <{RDF_TYPE}> <http://e/C> <http://e/g> .\n\
             <http://e/x{i}> <http://e/p> <http://e/x{}> <http://e/g> .\n",
            (i + 1) % ENTITIES
        ));
    }
    let server = server_with(&text);
    let cases = [
        ("classes", "http://e/C", ENTITIES),
        ("properties", "http://e/p", ENTITIES),
        ("properties-in", "http://e/p", ENTITIES),
        ("graphs", "http://e/g", ENTITIES),
    ];
    for (view, key, count) in cases {
        let answer = facets(
            &server,
            &json!({"graph": "http://e/g", "timeout_ms": 1, "view": {"type": view}}),
        );
        assert_eq!(answer["complete"], true, "{view}: {answer}");
        let rows = rows(&answer);
        assert!(
            rows.contains(&(key.to_owned(), count, true)),
            "{view}: {rows:?}"
        );
        assert!(
            answer["sparql"]
                .as_str()
                .is_some_and(|s| s.contains("FROM <http://e/g>")),
            "{view}: {answer}"
        );
    }
}

/// With several graphs, the `graphs` view in one of them is that graph's entry of the
/// statistics (exact in 1 ms); the others in it walk its subjects and equal SPARQL's counts.
#[test]
fn the_graphs_view_in_one_of_several_graphs_is_read_from_the_statistics() {
    const ENTITIES: u64 = 100_000;
    let mut text = String::new();
    for i in 0..ENTITIES {
        let graph = if i % 4 == 0 { "g1" } else { "g2" };
        text.push_str(&format!(
            "<http://e/x{i}> <{RDF_TYPE}> <http://e/C> <http://e/{graph}> .\n"
        ));
    }
    text.push_str("<http://e/x1> <http://e/p> \"in g1 too\" <http://e/g1> .\n");
    let server = server_with(&text);
    let answer = facets(
        &server,
        &json!({"graph": "http://e/g1", "timeout_ms": 1, "view": {"type": "graphs"}}),
    );
    assert_eq!(answer["complete"], true, "{answer}");
    assert_eq!(
        rows(&answer),
        vec![("http://e/g1".to_owned(), ENTITIES / 4 + 1, true)]
    );
    let answer = facets(
        &server,
        &json!({"graph": "http://e/g1", "timeout_ms": 30000, "view": {"type": "properties"}}),
    );
    assert_eq!(answer["complete"], true, "{answer}");
    let mut got = rows(&answer);
    got.sort();
    assert_eq!(
        got,
        vec![
            ("http://e/p".to_owned(), 1, true),
            (RDF_TYPE.to_owned(), ENTITIES / 4, true),
        ]
    );
}

/// A focus generated through a constrained neighbour set ("the things linked by `p` to
/// instances of `D`") over 200,000 of each, with a budget far too small to list them: the
/// generator keeps the neighbours it listed and the terms linked to them, so the answer has
/// rows with lower-bound counts (`exact: false`, `complete: false`). Before, running out of
/// time in the neighbour set gave no rows at all.
#[test]
fn a_focus_through_a_constrained_neighbour_set_answers_what_it_listed_in_time() {
    const ENTITIES: u64 = 200_000;
    let mut text = String::new();
    for i in 0..ENTITIES {
        text.push_str(&format!(
            "<http://e/x{i}> <{RDF_TYPE}> <http://e/C> .\n\
             <http://e/x{i}> <http://e/p> <http://e/y{i}> .\n\
             <http://e/y{i}> <{RDF_TYPE}> <http://e/D> .\n"
        ));
    }
    let server = server_with(&text);
    for view in ["classes", "properties"] {
        let answer = facets(
            &server,
            &json!({"property": [{"iri": "http://e/p", "node": {"class": [{"iri": "http://e/D"}]}}],
                    "timeout_ms": 5, "view": {"type": view}}),
        );
        let rows = rows(&answer);
        assert!(!rows.is_empty(), "{view}: {answer}");
        let complete = answer["complete"].as_bool().expect("complete");
        for (key, count, exact) in &rows {
            assert_eq!(*exact, complete, "{view}: {answer}");
            assert!(*count > 0 && *count <= ENTITIES, "{view}: {key} {count}");
            if complete {
                assert_eq!(*count, ENTITIES, "{view}: {key}");
            }
        }
        let expected = if view == "classes" {
            "http://e/C"
        } else {
            "http://e/p"
        };
        assert!(rows.iter().any(|r| r.0 == expected), "{view}: {rows:?}");
    }
}
