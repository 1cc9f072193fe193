//! The crash benchmark's text index check: after a restart, once the text index has caught
//! up with the store, the words that mark one graph version are found exactly where that
//! version is current.
//!
//! Every triple of version `v` of graph `g` has the label `"g<g> v<v> k<k>"`, and version
//! numbers are never reused, so the phrase `"g<g> v<v>"` names one version of one graph. The
//! current version's phrase must match only entities of graph `g`, and at least one (none
//! for graphs of blank nodes, which the index leaves out); the
//! phrase of a version that was acknowledged or in flight but is not current must match
//! nothing (it was either replaced, and its entities left the index, or lost with the
//! process, and never indexed).

use anyhow::bail;
use reqwest::blocking::Client;
use std::time::{Duration, Instant};

/// Waits until `/status` reports no commit left for the text index to apply.
pub(crate) fn wait_for_catch_up(
    client: &Client,
    base: &str,
    within: Duration,
) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        let status: serde_json::Value = client.get(format!("{base}/status")).send()?.json()?;
        if status["text_index_lag_commits"].as_u64() == Some(0) {
            return Ok(());
        }
        if start.elapsed() > within {
            bail!(
                "the text index is still {} commits behind after {within:?}",
                status["text_index_lag_commits"]
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Entities matching the phrase of version `version` of graph `graph`, in all graphs and in
/// that graph only.
fn matches(
    client: &Client,
    base: &str,
    graph: usize,
    graph_iri: &str,
    version: u64,
) -> anyhow::Result<(u64, u64)> {
    let phrase = format!("\"g{graph} v{version}\"");
    let total = |filter: Option<&str>| -> anyhow::Result<u64> {
        let mut request = client
            .get(format!("{base}/api/search"))
            .query(&[("q", phrase.as_str()), ("limit", "1")]);
        if let Some(graph) = filter {
            request = request.query(&[("graph", graph)]);
        }
        let response = request.header("Accept", "application/json").send()?;
        if !response.status().is_success() {
            bail!("search {phrase}: {}", response.status());
        }
        let json: serde_json::Value = response.json()?;
        json["total"]
            .as_u64()
            .ok_or_else(|| anyhow::anyhow!("search {phrase}: no total"))
    };
    Ok((total(None)?, total(Some(graph_iri))?))
}

/// Checks one graph: `current` is the version the store holds (if any), `stale` the
/// versions that must have left the index (or never entered it). Graphs of blank nodes
/// (`indexed` false) are never in the index, which keeps documents for IRIs only: their
/// current version must match nothing either.
pub(crate) fn check_graph(
    client: &Client,
    base: &str,
    (graph, graph_iri, indexed): (usize, &str, bool),
    current: Option<u64>,
    stale: impl IntoIterator<Item = u64>,
) -> anyhow::Result<()> {
    if let Some(version) = current {
        let (everywhere, in_graph) = matches(client, base, graph, graph_iri, version)?;
        let agrees = if indexed {
            everywhere > 0 && everywhere == in_graph
        } else {
            everywhere == 0
        };
        if !agrees {
            bail!(
                "text index: graph {graph} version {version} matches {everywhere} entities, {in_graph} of them in the graph"
            );
        }
    }
    for version in stale {
        let (everywhere, _) = matches(client, base, graph, graph_iri, version)?;
        if everywhere != 0 {
            bail!("text index: graph {graph} stale version {version} still matches {everywhere} entities");
        }
    }
    Ok(())
}
