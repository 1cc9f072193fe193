//! Issue 25: one prefix table for every surface. The prefixes a loaded Turtle file, a Graph
//! Store upload or a SPARQL update declares are recorded once their data is in, and then read
//! by URI lookup (`q=foo:bar`) and written by the entity pages, the SPARQL editor and fct's
//! `shortform`; an operator's prefix file overrides them; a failed request records nothing.

use crate::common::client;
use crate::indexed::IndexedServer;
use lodestone_server::settings::ServerSettings;
use lodestone_store::load::{BulkLoader, Input};
use lodestone_vocab::{PrefixSource, Prefixes};
use serde_json::Value;
use std::time::Duration;

const FOO: &str = "http://example.org/foo#";

/// `foo:bar`, described with a link to `foo:baz` (which has no label) by a Turtle file that
/// declares `foo:`.
const TURTLE: &str = "@prefix foo: <http://example.org/foo#> .\n\
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
    foo:bar a foo:Thing ; rdfs:label \"Bar\" ; foo:rel foo:baz .\n\
    foo:baz foo:size 3 .\n";

fn server_with_turtle(settings: ServerSettings) -> (IndexedServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("foo.ttl");
    std::fs::write(&file, TURTLE).expect("write");
    let server = IndexedServer::start(settings, Duration::from_secs(60), |store| {
        let report = BulkLoader::new(store)
            .load(&[Input::File(file.clone())])
            .expect("load");
        assert_eq!(report.prefixes_recorded, 2);
    });
    (server, dir)
}

/// The first `uri` of `/api/lookup?q=…`.
fn lookup_first(base: &str, q: &str) -> Option<String> {
    let json: Value = client()
        .get(format!("{base}/api/lookup"))
        .query(&[("q", q)])
        .send()
        .expect("request")
        .json()
        .expect("json");
    json["results"][0]["uri"].as_str().map(str::to_owned)
}

fn html(base: &str, path: &str, query: &[(&str, &str)]) -> String {
    let response = client()
        .get(format!("{base}{path}"))
        .query(query)
        .header("Accept", "text/html")
        .send()
        .expect("request");
    assert_eq!(response.status().as_u16(), 200, "{path}");
    response.text().expect("body")
}

#[test]
fn prefixes_declared_by_a_loaded_file_serve_lookup_pages_the_editor_and_fct() {
    let (server, _dir) = server_with_turtle(ServerSettings::default());
    let base = &server.base;
    assert_eq!(
        lookup_first(base, "foo:bar").as_deref(),
        Some("http://example.org/foo#bar")
    );
    // The entity page writes the unlabelled IRIs it links to with the declared prefix.
    let page = html(base, "/describe", &[("uri", &format!("{FOO}bar"))]);
    assert!(page.contains(">foo:baz<"), "{page}");
    assert!(page.contains(">foo:rel<"), "{page}");
    // The SPARQL editor declares it.
    let editor = html(base, "/sparql", &[]);
    assert!(
        editor.contains("<dt>foo:</dt><dd><code>http://example.org/foo#</code></dd>"),
        "{editor}"
    );
    // fct's shortform.
    let xml = client()
        .post(format!("{base}/fct/service"))
        .header("Content-Type", "text/xml")
        .body(format!(
            r#"<query><class iri="{FOO}Thing"/><view type="properties" limit="10"/></query>"#
        ))
        .send()
        .expect("request")
        .text()
        .expect("body");
    assert!(xml.contains("shortform=\"foo:rel\""), "{xml}");
}

#[test]
fn an_operator_prefix_file_overrides_a_declared_prefix() {
    let operator = Prefixes::new().with("foo", "http://example.org/other#", PrefixSource::Operator);
    let (server, _dir) = server_with_turtle(ServerSettings::default().with_prefixes(operator));
    assert_eq!(lookup_first(&server.base, "foo:bar"), None);
    let page = html(&server.base, "/describe", &[("uri", &format!("{FOO}bar"))]);
    assert!(!page.contains(">foo:baz<"), "{page}");
}

fn update(base: &str, text: &str) -> u16 {
    client()
        .post(format!("{base}/sparql"))
        .form(&[("update", text)])
        .send()
        .expect("request")
        .status()
        .as_u16()
}

#[test]
fn updates_and_uploads_record_their_prefixes_once_committed() {
    let server = IndexedServer::start(
        ServerSettings::default().with_open_updates(),
        Duration::from_secs(60),
        |_| {},
    );
    let base = &server.base;
    let label = "<http://www.w3.org/2000/01/rdf-schema#label>";
    assert_eq!(
        update(
            base,
            &format!(
                "PREFIX upd: <http://example.org/upd/>\nINSERT DATA {{ upd:x {label} \"Ex\" }}"
            ),
        ),
        204
    );
    assert_eq!(
        lookup_first(base, "upd:x").as_deref(),
        Some("http://example.org/upd/x")
    );
    // Data under a namespace, then a failed update declaring a name for it: not recorded.
    assert_eq!(
        update(
            base,
            &format!("INSERT DATA {{ <http://example.org/bad/y> {label} \"Why\" }}")
        ),
        204
    );
    assert_eq!(
        update(
            base,
            "PREFIX bad: <http://example.org/bad/>\nLOAD <file:///no/such/file.ttl>"
        ),
        403
    );
    assert_eq!(lookup_first(base, "bad:y"), None);
    // A Graph Store upload of Turtle: recorded once the graph is written, not when refused.
    let put = |body: &str| {
        client()
            .put(format!("{base}/store?graph=http://example.org/g"))
            .header("Content-Type", "text/turtle")
            .body(body.to_owned())
            .send()
            .expect("request")
            .status()
            .as_u16()
    };
    assert_eq!(
        put(&format!(
            "@prefix bad: <http://example.org/bad/> .\nbad:z {label} ."
        )),
        400
    );
    assert_eq!(lookup_first(base, "bad:y"), None);
    assert_eq!(
        put(&format!(
            "@prefix gs: <http://example.org/gs/> .\ngs:w {label} \"Double-u\" ."
        )),
        201
    );
    assert_eq!(
        lookup_first(base, "gs:w").as_deref(),
        Some("http://example.org/gs/w")
    );
}

#[test]
fn load_in_an_update_records_the_loaded_files_prefixes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("loaded.ttl");
    // A name no other source gives the namespace (a made-up one would be `zq:`).
    std::fs::write(
        &file,
        "@prefix ldd: <http://example.org/zq/> .\n\
         ldd:x <http://www.w3.org/2000/01/rdf-schema#label> \"Ex\" ; ldd:size 3 .\n",
    )
    .expect("write");
    let server = IndexedServer::start(
        ServerSettings::default()
            .with_open_updates()
            .with_load_folder(dir.path()),
        Duration::from_secs(60),
        |_| {},
    );
    let base = &server.base;
    assert_eq!(lookup_first(base, "ldd:x"), None);
    assert_eq!(
        update(base, &format!("LOAD <file://{}>", file.display())),
        204
    );
    assert_eq!(
        lookup_first(base, "ldd:x").as_deref(),
        Some("http://example.org/zq/x")
    );
    let editor = html(base, "/sparql", &[]);
    assert!(
        editor.contains("<dt>ldd:</dt><dd><code>http://example.org/zq/</code></dd>"),
        "{editor}"
    );
}
