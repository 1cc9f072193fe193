//! Third-party clients against the real server: Python's SPARQLWrapper and rdflib's
//! `SPARQLStore`/`SPARQLUpdateStore`.
//!
//! CI installs them (`make deps-python`: `pip install SPARQLWrapper rdflib`). Elsewhere a missing
//! module fails the test with that instruction, unless `LODESTONE_SKIP_PY` is set outside CI.
//!
//! Jena is not among them: Debian's `libapache-jena-java` (4.5.0) installs in about 10 s but
//! ships no `rsparql`/`riot` commands, and `arq.rsparql` from its `jena-cmds.jar`, on the
//! classpath of the package and its dependencies, fails at start (an `ExceptionInInitializerError`
//! in its relocated Xerces, `XSSimpleTypeDecl.applyFacets1`: "internal error") on OpenJDK 17.

use crate::common::{TestServer, EX};
use lodestone_server::settings::ServerSettings;
use std::process::Command;

const SCRIPT: &str = r#"
import sys
from SPARQLWrapper import SPARQLWrapper, JSON, POST, BASIC

endpoint, token, subject = sys.argv[1], sys.argv[2], sys.argv[3]

update = SPARQLWrapper(endpoint, updateEndpoint=endpoint)
update.setMethod(POST)
update.addCustomHttpHeader("Authorization", "Bearer " + token)
update.setQuery('INSERT DATA { <%s> <http://example.org/name> "from python" }' % subject)
result = update.query()
assert result.response.status in (200, 204), result.response.status

select = SPARQLWrapper(endpoint)
select.setReturnFormat(JSON)
select.setQuery('SELECT ?n WHERE { <%s> <http://example.org/name> ?n }' % subject)
rows = select.query().convert()["results"]["bindings"]
assert [r["n"]["value"] for r in rows] == ["from python"], rows

ask = SPARQLWrapper(endpoint)
ask.setReturnFormat(JSON)
ask.setQuery('ASK { <%s> ?p ?o }' % subject)
assert ask.query().convert()["boolean"] is True

denied = SPARQLWrapper(endpoint, updateEndpoint=endpoint)
denied.setMethod(POST)
denied.setQuery('CLEAR ALL')
try:
    denied.query()
    raise SystemExit("an update without the token was accepted")
except Exception as error:
    assert "401" in str(error) or "Unauthorized" in str(error), error
print("ok")
"#;

fn python_with_sparqlwrapper() -> Option<String> {
    python_with("SPARQLWrapper")
}

/// A Python that can import `module`; `None` (skip) only outside CI with `LODESTONE_SKIP_PY`.
fn python_with(module: &str) -> Option<String> {
    let python = ["python3", "python"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if python.is_none() {
        let skip =
            std::env::var_os("CI").is_none() && std::env::var_os("LODESTONE_SKIP_PY").is_some();
        assert!(
            skip,
            "Python's {module} is missing: `pip install {module}` (or set LODESTONE_SKIP_PY=1 outside CI to skip this test)"
        );
    }
    python.map(str::to_owned)
}

#[test]
fn sparqlwrapper_selects_and_updates_with_a_token() {
    let Some(python) = python_with_sparqlwrapper() else {
        return;
    };
    let server = TestServer::start(ServerSettings::default().with_update_token("py-token"));
    run_script(
        &python,
        SCRIPT,
        &[&server.url("/sparql"), "py-token", &format!("{EX}python")],
    );
}

/// Runs a Python script with arguments; it must exit 0 and print `ok`.
fn run_script(python: &str, script: &str, args: &[&str]) {
    let output = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python");
    assert!(
        output.status.success(),
        "the Python client failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "ok");
}

/// SPARQLWrapper's every return format on each query form: each request succeeds and converts.
const FORMATS_SCRIPT: &str = r#"
import sys
from SPARQLWrapper import SPARQLWrapper, JSON, XML, CSV, TSV, TURTLE, N3, RDF, RDFXML, JSONLD

endpoint, subject = sys.argv[1], sys.argv[2]
forms = {
    "SELECT": ("SELECT ?p ?o WHERE { <%s> ?p ?o }" % subject, [JSON, XML, CSV, TSV]),
    "ASK": ("ASK { <%s> ?p ?o }" % subject, [JSON, XML]),
    "CONSTRUCT": ("CONSTRUCT { <%s> ?p ?o } WHERE { <%s> ?p ?o }" % (subject, subject),
                  [XML, RDFXML, RDF, TURTLE, N3, JSONLD]),
    "DESCRIBE": ("DESCRIBE <%s>" % subject, [XML, RDFXML, RDF, TURTLE, N3, JSONLD]),
}
failures = []
for form, (query, formats) in forms.items():
    for fmt in formats:
        client = SPARQLWrapper(endpoint)
        client.setReturnFormat(fmt)
        client.setQuery(query)
        try:
            result = client.query().convert()
            if result is None or (hasattr(result, "__len__") and len(result) == 0):
                failures.append("%s %s: empty %r" % (form, fmt, result))
        except Exception as error:
            failures.append("%s %s: %s" % (form, fmt, error))
if failures:
    raise SystemExit("\n".join(failures))
print("ok")
"#;

#[test]
fn sparqlwrapper_every_return_format_on_every_query_form() {
    let Some(python) = python_with_sparqlwrapper() else {
        return;
    };
    let subject = format!("{EX}s");
    let server = TestServer::with_data(
        ServerSettings::default(),
        &format!("<{subject}> <{EX}name> \"a name\" . <{subject}> <{EX}knows> <{EX}o> ."),
    );
    run_script(&python, FORMATS_SCRIPT, &[&server.url("/sparql"), &subject]);
}

/// rdflib's SPARQL stores as a program uses them: writes through `SPARQLUpdateStore` (a named
/// graph's `add`, `INSERT DATA`, `DELETE DATA`) with the bearer token, refused without it;
/// SELECT, ASK, CONSTRUCT and DESCRIBE through `SPARQLStore`, the triples of a named graph and
/// the list of named graphs (rdflib's own queries).
const RDFLIB_SCRIPT: &str = r#"
import sys
from rdflib import Graph, URIRef, Literal, Namespace
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore

endpoint, token, base = sys.argv[1], sys.argv[2], sys.argv[3]
EX = Namespace(base)
graph_iri = URIRef(base + "rdflib-graph")
name = Literal("from rdflib", lang="en")

writer = SPARQLUpdateStore(query_endpoint=endpoint, update_endpoint=endpoint,
                           headers={"Authorization": "Bearer " + token})
named = Graph(writer, identifier=graph_iri)
named.add((EX.coin, EX.name, name))
named.add((EX.coin, EX.mint, EX.athens))
writer.update('INSERT DATA { <%s> <%s> "default" }' % (EX.coin, EX.note))
writer.update('DELETE DATA { GRAPH <%s> { <%s> <%s> <%s> } }' % (graph_iri, EX.coin, EX.mint, EX.athens))

anonymous = SPARQLUpdateStore(query_endpoint=endpoint, update_endpoint=endpoint)
try:
    anonymous.update('CLEAR ALL')
    raise SystemExit("an update without the token was accepted")
except Exception as error:
    assert "401" in str(error) or "Unauthorized" in str(error), error

reader = SPARQLStore(endpoint)
g = Graph(reader)
rows = list(g.query('SELECT ?n WHERE { GRAPH ?g { <%s> <%s> ?n } }' % (EX.coin, EX.name)))
assert [(str(r.n), r.n.language) for r in rows] == [("from rdflib", "en")], rows
assert g.query('ASK { <%s> <%s> "default" }' % (EX.coin, EX.note)).askAnswer is True
assert g.query('ASK { GRAPH ?g { <%s> <%s> ?m } }' % (EX.coin, EX.mint)).askAnswer is False
constructed = g.query('CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <%s> { ?s ?p ?o } }' % graph_iri).graph
assert set(constructed) == {(EX.coin, EX.name, name)}, set(constructed)
described = g.query('DESCRIBE <%s>' % EX.coin).graph
assert (EX.coin, EX.note, Literal("default")) in described, set(described)

in_graph = Graph(reader, identifier=graph_iri)
assert set(in_graph.triples((EX.coin, None, None))) == {(EX.coin, EX.name, name)}
names = {getattr(c, "identifier", c) for c in reader.contexts()}
assert graph_iri in names, names
print("ok")
"#;

#[test]
fn rdflib_sparql_store_reads_and_writes_with_a_token() {
    let Some(python) = python_with("rdflib") else {
        return;
    };
    let server = TestServer::start(ServerSettings::default().with_update_token("rdflib-token"));
    run_script(
        &python,
        RDFLIB_SCRIPT,
        &[&server.url("/sparql"), "rdflib-token", EX],
    );
}
