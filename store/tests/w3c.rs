//! W3C SPARQL 1.1 conformance, driven by the official manifests.
//!
//! Every test reachable from `manifest-all.ttl` runs against a fresh store, except those in
//! `w3c/skipped.tsv` (each with its reason). The run prints one line per failing test and a
//! summary, then fails if any test outside the skip list failed or the pass rate drops below
//! [`MIN_PASS_RATE`].
//!
//! The suite is read from `../shared/data/w3c-rdf-tests/sparql/sparql11` next to the
//! workspace, or from `LODESTONE_W3C_DIR`. `LODESTONE_W3C_FILTER=text` runs only the tests
//! whose IRI contains `text` and prints their full diagnostics; `LODESTONE_W3C_RUN_SKIPPED=1`
//! also runs the skipped tests that can run and reports which of them pass.

#[path = "w3c/csv.rs"]
mod csv;
#[path = "w3c/evaluate.rs"]
mod evaluate;
#[path = "w3c/fixtures.rs"]
mod fixtures;
#[path = "w3c/manifest.rs"]
mod manifest;
#[path = "w3c/results.rs"]
mod results;
#[path = "w3c/skips.rs"]
mod skips;
#[path = "w3c/vocab.rs"]
mod vocab;

use fixtures::path_to_url;
use manifest::{read_tests, Test};
use skips::{cannot_run, SkipList};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Instant;

/// Share of the tests that run which must pass.
const MIN_PASS_RATE: f64 = 0.98;

/// Where the suite lives; panics with directions when it is missing.
fn suite_dir() -> PathBuf {
    let dir = match std::env::var_os("LODESTONE_W3C_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/w3c-rdf-tests/sparql/sparql11"),
    };
    let entry = dir.join("manifest-all.ttl");
    assert!(
        entry.is_file(),
        "W3C SPARQL 1.1 test suite not found: {} does not exist. Put the w3c/rdf-tests \
         `sparql/sparql11` folder there or point LODESTONE_W3C_DIR at it.",
        entry.display()
    );
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("cannot resolve {}: {e}", dir.display()))
}

/// Writes a report line straight to stderr, so that it shows even when output is captured.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// What happened to one test.
enum Outcome {
    Passed,
    Failed(String),
    Skipped,
}

fn run_guarded(test: &Test) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| evaluate::run(test))) {
        Ok(Ok(())) => Outcome::Passed,
        Ok(Err(failure)) => Outcome::Failed(failure),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("non-string panic");
            Outcome::Failed(format!("panicked: {message}"))
        }
    }
}

#[test]
fn sparql11_w3c_testsuite() {
    let dir = suite_dir();
    let entry = path_to_url(&dir.join("manifest-all.ttl"));
    let tests = read_tests(&entry).unwrap_or_else(|e| panic!("reading the manifests: {e}"));
    let skips = SkipList::load();
    let stale = skips.unknown(&tests);
    assert!(stale.is_empty(), "skipped.tsv names tests that do not exist: {stale:?}");
    let filter = std::env::var("LODESTONE_W3C_FILTER").ok();
    let run_skipped = std::env::var_os("LODESTONE_W3C_RUN_SKIPPED").is_some();

    let started = Instant::now();
    let (mut passed, mut failed, mut skipped) = (Vec::new(), Vec::new(), 0_usize);
    for test in &tests {
        if filter.as_deref().is_some_and(|f| !test.id.contains(f)) {
            continue;
        }
        let outcome = match (skips.reason(&test.id), cannot_run(test)) {
            (Some(_), Some(_)) => Outcome::Skipped,
            (Some(_), None) if !run_skipped => Outcome::Skipped,
            (Some(reason), None) => {
                if let Outcome::Passed = run_guarded(test) {
                    say(&format!("SKIPPED BUT PASSES {} ({reason})", test.id));
                }
                Outcome::Skipped
            }
            (None, Some(reason)) => Outcome::Failed(format!("cannot run ({reason}): list it in skipped.tsv")),
            (None, None) => run_guarded(test),
        };
        match outcome {
            Outcome::Passed => passed.push(test),
            Outcome::Skipped => skipped += 1,
            Outcome::Failed(why) => {
                let shown = if filter.is_some() { why.as_str() } else { why.lines().next().unwrap_or("") };
                say(&format!("FAIL {} ({}): {shown}", test.id, test.name));
                failed.push(test);
            }
        }
    }
    say(&format!(
        "w3c sparql: {} passed, {} failed, {} skipped ({:.1}s)",
        passed.len(),
        failed.len(),
        skipped,
        started.elapsed().as_secs_f64()
    ));

    let ran = passed.len() + failed.len();
    let rate = if ran == 0 { 1.0 } else { passed.len() as f64 / ran as f64 };
    assert!(
        rate >= MIN_PASS_RATE,
        "pass rate {:.1}% is below {:.0}%",
        rate * 100.0,
        MIN_PASS_RATE * 100.0
    );
    let failed: Vec<&str> = failed.iter().map(|t| t.id.as_str()).collect();
    assert!(
        failed.is_empty(),
        "{} tests outside skipped.tsv failed: {failed:#?}",
        failed.len()
    );
}
