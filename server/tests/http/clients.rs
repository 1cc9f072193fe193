//! Third-party clients against the real server: Python's SPARQLWrapper.
//!
//! CI installs it (`pip install SPARQLWrapper`). Elsewhere a missing module fails the test with
//! that instruction, unless `LODESTONE_SKIP_PY` is set outside CI.

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
    let python = ["python3", "python"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import SPARQLWrapper"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if python.is_none() {
        let skip =
            std::env::var_os("CI").is_none() && std::env::var_os("LODESTONE_SKIP_PY").is_some();
        assert!(
            skip,
            "Python's SPARQLWrapper is missing: `pip install SPARQLWrapper` (or set LODESTONE_SKIP_PY=1 outside CI to skip this test)"
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
        "SPARQLWrapper failed:\n{}\n{}",
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
