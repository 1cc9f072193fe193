//! The skip list, `skipped.tsv`: the one place that says which tests do not run and why.
//!
//! Each line is a test IRI, a tab, and the reason; `#` starts a comment line. Entries must
//! name tests that exist, and tests that cannot run here (HTTP tests, unknown test types,
//! tests the working group did not approve) must have an entry.

use crate::manifest::{Test, TestKind};
use std::collections::BTreeMap;

/// Skipped test IRIs with their reasons.
pub struct SkipList {
    reasons: BTreeMap<String, String>,
}

impl SkipList {
    /// Reads `skipped.tsv`; a malformed or duplicate line is a bug in the list and panics.
    pub fn load() -> Self {
        let mut reasons = BTreeMap::new();
        let text = include_str!("skipped.tsv");
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((iri, reason)) = line.split_once('\t') else {
                panic!("skipped.tsv line {}: expected `IRI<TAB>reason`", number + 1);
            };
            let (iri, reason) = (iri.trim(), reason.trim());
            assert!(
                !reason.is_empty(),
                "skipped.tsv line {}: empty reason",
                number + 1
            );
            let previous = reasons.insert(iri.to_owned(), reason.to_owned());
            assert!(
                previous.is_none(),
                "skipped.tsv line {}: {iri} listed twice",
                number + 1
            );
        }
        Self { reasons }
    }

    /// Why a test is skipped, if it is.
    pub fn reason(&self, id: &str) -> Option<&str> {
        self.reasons.get(id).map(String::as_str)
    }

    /// Entries that name no test of the suite (stale or mistyped).
    pub fn unknown<'a>(&'a self, tests: &[Test]) -> Vec<&'a str> {
        self.reasons
            .keys()
            .filter(|iri| !tests.iter().any(|t| &t.id == *iri))
            .map(String::as_str)
            .collect()
    }
}

/// Why a test cannot run in this harness at all, if so: such a test needs a skip entry.
pub fn cannot_run(test: &Test) -> Option<String> {
    match &test.kind {
        TestKind::Http => Some("HTTP protocol test, covered by server tests".into()),
        TestKind::Other(types) => Some(format!("unknown test type {types}")),
        _ => test.unapproved().map(str::to_owned),
    }
}
