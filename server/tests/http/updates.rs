//! `/sparql` updates: the token, the update policy, the same-site rule, USING parameters, LOAD.

use crate::common::{
    client, counted_status, error_code, header, load, temp_store, Running, TestServer, EX,
};
use lodestone_server::settings::ServerSettings;
use lodestone_server::AppState;
use lodestone_store::Store;
use reqwest::blocking::Response;
use std::sync::Arc;

const TOKEN: &str = "s3cret-token";

fn update(server: &TestServer, text: &str, token: Option<&str>) -> Response {
    let mut request = client()
        .post(server.url("/sparql"))
        .form(&[("update", text)]);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().expect("request")
}

fn count(server: &TestServer) -> usize {
    server.select("SELECT ?s WHERE { ?s ?p ?o }", "s").len()
}

#[test]
fn updates_need_the_bearer_token() {
    let server = TestServer::start(ServerSettings::default().with_update_token(TOKEN));
    let insert = format!("INSERT DATA {{ <{EX}a> <{EX}p> 1 }}");

    let missing = update(&server, &insert, None);
    assert_eq!(missing.status(), 401);
    assert!(header(&missing, "www-authenticate").starts_with("Bearer"));
    assert_eq!(error_code(missing), "unauthorized");
    let wrong = update(&server, &insert, Some("guess"));
    assert_eq!(wrong.status(), 401);
    assert_eq!(count(&server), 0, "refused updates change nothing");

    let ok = update(&server, &insert, Some(TOKEN));
    assert_eq!(ok.status(), 204);
    assert_eq!(count(&server), 1);

    let direct = client()
        .post(server.url("/sparql"))
        .header("Content-Type", "application/sparql-update")
        .bearer_auth(TOKEN)
        .body(format!("INSERT DATA {{ <{EX}b> <{EX}p> 2 }}"))
        .send()
        .expect("request");
    assert_eq!(direct.status(), 204);
    assert_eq!(count(&server), 2);
}

#[test]
fn without_a_token_or_open_updates_writes_are_403_with_help() {
    let server = TestServer::start(ServerSettings::default());
    let response = update(
        &server,
        &format!("INSERT DATA {{ <{EX}a> <{EX}p> 1 }}"),
        Some("anything"),
    );
    assert_eq!(response.status(), 403);
    let body: serde_json::Value = response.json().expect("json");
    assert_eq!(body["code"], "updates_disabled");
    let message = body["message"].as_str().unwrap_or("");
    assert!(
        message.contains("--update-token") && message.contains("--open-updates"),
        "{message}"
    );
}

#[test]
fn open_updates_need_no_token() {
    let server = TestServer::start(ServerSettings::default().with_open_updates());
    let response = update(
        &server,
        &format!("INSERT DATA {{ <{EX}a> <{EX}p> 1 }}"),
        None,
    );
    assert_eq!(response.status(), 204);
    assert_eq!(count(&server), 1);
}

#[test]
fn cross_site_updates_are_refused() {
    let server = TestServer::start(ServerSettings::default().with_open_updates());
    let insert = format!("INSERT DATA {{ <{EX}a> <{EX}p> 1 }}");
    let cross = client()
        .post(server.url("/sparql"))
        .header("Origin", "http://evil.example")
        .form(&[("update", insert.as_str())])
        .send()
        .expect("request");
    assert_eq!(cross.status(), 403);
    assert_eq!(error_code(cross), "cross_site_write");
    let null_origin = client()
        .post(server.url("/sparql"))
        .header("Origin", "null")
        .header("Content-Type", "application/sparql-update")
        .body(insert.clone())
        .send()
        .expect("request");
    assert_eq!(null_origin.status(), 403);
    assert_eq!(count(&server), 0);
    let same = client()
        .post(server.url("/sparql"))
        .header("Origin", server.base.as_str())
        .form(&[("update", insert.as_str())])
        .send()
        .expect("request");
    assert_eq!(same.status(), 204);
    assert_eq!(count(&server), 1);
}

#[test]
fn updates_must_be_posted_and_must_parse() {
    let server = TestServer::start(ServerSettings::default().with_open_updates());
    let get = client()
        .get(server.url("/sparql"))
        .query(&[("update", "CLEAR ALL")])
        .send()
        .expect("request");
    assert_eq!(get.status(), 400);
    let bad = update(&server, "INSERT DATA { <a> }", None);
    assert_eq!(bad.status(), 400);
    let body: serde_json::Value = bad.json().expect("json");
    assert_eq!(body["code"], "update_syntax");
    assert!(body["message"].as_str().unwrap_or("").contains("1:"));
    let missing_graph = update(&server, "DROP GRAPH <http://example.org/none>", None);
    assert_eq!(missing_graph.status(), 404);
    assert_eq!(
        update(&server, "DROP SILENT GRAPH <http://example.org/none>", None).status(),
        204
    );
}

#[test]
fn a_failing_update_changes_nothing() {
    let server = TestServer::start(ServerSettings::default().with_open_updates());
    let text = format!("INSERT DATA {{ <{EX}a> <{EX}p> 1 }} ; DROP GRAPH <{EX}missing>");
    assert_eq!(update(&server, &text, None).status(), 404);
    assert_eq!(count(&server), 0);
}

#[test]
fn using_graph_uri_sets_the_where_dataset() {
    let data = format!(
        "<{EX}g1> {{ <{EX}a> <{EX}p> \"in g1\" }}\n<{EX}g2> {{ <{EX}b> <{EX}p> \"in g2\" }}\n"
    );
    let server = TestServer::with_data(ServerSettings::default().with_open_updates(), &data);
    let copy =
        format!("INSERT {{ GRAPH <{EX}out> {{ ?s <{EX}copied> ?o }} }} WHERE {{ ?s <{EX}p> ?o }}");
    let response = client()
        .post(server.url("/sparql"))
        .form(&[
            ("update", copy.as_str()),
            ("using-graph-uri", &format!("{EX}g1")),
        ])
        .send()
        .expect("request");
    assert_eq!(response.status(), 204);
    let copied = server.select(
        &format!("SELECT ?o WHERE {{ GRAPH <{EX}out> {{ ?s <{EX}copied> ?o }} }}"),
        "o",
    );
    assert_eq!(copied, ["in g1"]);

    // using-named-graph-uri: only g2 is visible to GRAPH ?g.
    let named = format!("INSERT {{ GRAPH <{EX}out2> {{ ?s <{EX}from> ?g }} }} WHERE {{ GRAPH ?g {{ ?s <{EX}p> ?o }} }}");
    let direct = client()
        .post(server.url("/sparql"))
        .query(&[("using-named-graph-uri", format!("{EX}g2"))])
        .header("Content-Type", "application/sparql-update")
        .body(named)
        .send()
        .expect("request");
    assert_eq!(direct.status(), 204);
    let graphs = server.select(
        &format!("SELECT ?g WHERE {{ GRAPH <{EX}out2> {{ ?s <{EX}from> ?g }} }}"),
        "g",
    );
    assert_eq!(graphs, [format!("{EX}g2")]);

    // Combined with USING or WITH in the update itself: 400, per the protocol.
    let with = format!("WITH <{EX}g2> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}");
    let conflict = client()
        .post(server.url("/sparql"))
        .form(&[
            ("update", with.as_str()),
            ("using-graph-uri", &format!("{EX}g1")),
        ])
        .send()
        .expect("request");
    assert_eq!(conflict.status(), 400);
}

#[test]
fn load_reads_files_only_from_the_allowed_folder() {
    let folder = tempfile::tempdir().expect("dir");
    let file = folder.path().join("data.nt");
    std::fs::write(&file, format!("<{EX}x> <{EX}p> <{EX}y> .\n")).expect("write");
    let outside = tempfile::NamedTempFile::new().expect("file");
    let source = |path: &std::path::Path| format!("file://{}", path.display());

    let refused = TestServer::start(ServerSettings::default().with_open_updates());
    let response = update(&refused, &format!("LOAD <{}>", source(&file)), None);
    assert_eq!(response.status(), 403);

    let allowed = TestServer::start(
        ServerSettings::default()
            .with_open_updates()
            .with_load_folder(folder.path()),
    );
    let response = update(
        &allowed,
        &format!("LOAD <{}> INTO GRAPH <{EX}loaded>", source(&file)),
        None,
    );
    assert_eq!(response.status(), 204);
    assert_eq!(
        allowed.select(
            &format!("SELECT ?o WHERE {{ GRAPH <{EX}loaded> {{ ?s ?p ?o }} }}"),
            "o"
        ),
        [format!("{EX}y")]
    );
    let response = update(
        &allowed,
        &format!("LOAD <{}>", source(outside.path())),
        None,
    );
    assert_eq!(response.status(), 403);
    let response = update(&allowed, "LOAD <http://example.org/remote.ttl>", None);
    assert_eq!(response.status(), 403);
}

#[test]
fn base_iri_resolves_relative_iris() {
    let server = TestServer::start(
        ServerSettings::default()
            .with_open_updates()
            .with_base_iri("http://example.org/resource/"),
    );
    assert_eq!(
        update(&server, "INSERT DATA { <Q42> <name> \"Douglas\" }", None).status(),
        204
    );
    let names = server.select(
        "SELECT ?n WHERE { <http://example.org/resource/Q42> <name> ?n }",
        "n",
    );
    assert_eq!(names, ["Douglas"]);
}

/// `/status` answers its counted totals without waiting for a count: the quad count and the
/// last commit at once, the terms and subjects as of `totals_commit`, which follows the
/// commits (a count of this small store takes milliseconds). The totals are checked once
/// counted at or after the commit `/status` showed after the insert: a later commit may
/// land before they are counted (CI once saw `totals_commit` 2 where the insert showed 1).
#[test]
fn status_totals_follow_the_commits() {
    let server = TestServer::start(ServerSettings::default().with_update_token(TOKEN));
    let status = || -> serde_json::Value {
        client()
            .get(server.url("/status"))
            .send()
            .and_then(Response::json)
            .expect("status")
    };
    let insert = format!("INSERT DATA {{ <{EX}a> <{EX}p> <{EX}b> . <{EX}b> <{EX}p> 2 }}");
    assert_eq!(update(&server, &insert, Some(TOKEN)).status(), 204);
    let now = status();
    assert_eq!(now["quads"], 2, "{now}");
    let last_commit = now["last_commit"].as_u64().expect("last_commit");
    let (counted, _) = counted_status(&server.base, last_commit);
    assert_eq!(counted["subjects"], 2, "{counted}");
    // a, b, p and the graph-less literal 2 is inlined: three dictionary terms.
    assert_eq!(counted["terms"], 3, "{counted}");
    assert_eq!(counted["named_graphs"], 0, "{counted}");
}

/// Ranks the entities of `store` as a bulk load does, so that a server started on it makes
/// no commit of its own (it ranks a store never ranked, which moves the last commit).
fn rank(store: &Store) {
    let stop = std::sync::atomic::AtomicBool::new(false);
    store.compute_entity_rank(&stop).expect("rank");
}

/// Totals the store remembers for its last commit are `/status`'s after a start, without a
/// count. Here they are not the store's own (a count gives one subject), so the answer tells
/// which the server took.
#[test]
fn status_totals_remembered_for_the_last_commit_need_no_count() {
    let server = TestServer::with_store(ServerSettings::default(), |store| {
        load(store, &format!("<{EX}a> <{EX}p> <{EX}b> ."));
        rank(store);
        let mut counts = store.reader().counts().expect("counts");
        assert_eq!(counts.subjects, 1);
        counts.subjects = 42;
        assert!(store.remember_counts(&counts).expect("remember"));
    });
    let status = counted_status(&server.base, 0).0;
    assert_eq!(status["subjects"], 42, "{status}");
    assert_eq!(status["terms"], 3, "{status}");
}

/// A server remembers its count of the totals for the next start: once `/status` shows
/// them, the store holds them for its last commit.
#[test]
fn a_servers_count_of_its_totals_is_remembered_for_the_next_start() {
    let (_dir, store) = temp_store();
    load(
        &store,
        &format!("<{EX}a> <{EX}p> <{EX}b> . <{EX}b> <{EX}p> <{EX}c> ."),
    );
    rank(&store);
    assert_eq!(store.reader().remembered_counts().expect("read"), None);
    let server = Running::start(AppState::new(Arc::clone(&store), ServerSettings::default()));
    let status = counted_status(&server.base, 0).0;
    let remembered = store
        .reader()
        .remembered_counts()
        .expect("read")
        .expect("remembered counts");
    assert_eq!(remembered.subjects, 2);
    assert_eq!(remembered.dictionary_terms, 4);
    assert_eq!(status["subjects"], 2, "{status}");
    assert_eq!(status["terms"], 4, "{status}");
    assert_eq!(status["totals_commit"], remembered.sequence, "{status}");
}
