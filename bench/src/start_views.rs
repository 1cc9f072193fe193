//! `start-views`: latency of the views a visitor opens first and of the SPARQL counts the
//! statistics answer, on a loaded store.
//!
//! Each start view (root `classes`, `properties`, `properties-in`, `graphs`: no constraint)
//! goes through the facet engine without its answer cache, labels included, as `/api/facets`
//! runs it; each SPARQL form goes through `evaluate_query` as `/sparql` runs it, results
//! consumed. Every request runs `runs` times, one at a time; the line gives p50, p99 and
//! whether the answer was complete (views) or answered from the statistics (SPARQL, with
//! the time of one full evaluation of the same query beside it when `--full` is given).
//!
//! `--views FILE` adds constrained views, one a line as `name<TAB>JSON facet query` (the
//! `/api/facets` syntax; `timeout_ms` in it is the budget, else the API's default), each
//! run `--view-runs` times, e.g. `bench/start_views_bsbm.tsv` for BSBM: each line adds the
//! answer's focus size.

use lodestone_facets::model::{FacetQuery, Node, View, ViewKind, DEFAULT_TIMEOUT};
use lodestone_facets::FacetEngine;
use lodestone_store::sparql::{
    answer_from_statistics, evaluate_query, DatasetOverride, QueryOptions, QueryResults,
    SparqlParser,
};
use lodestone_store::{Store, StoreOptions};
use std::path::Path;
use std::time::{Duration, Instant};

/// The SPARQL forms the statistics answer.
const QUERIES: &[(&str, &str)] = &[
    ("count all", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"),
    (
        "count in graphs",
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    ),
    (
        "count rdf:type",
        "SELECT (COUNT(*) AS ?n) WHERE { ?s a ?o }",
    ),
    (
        "per class",
        "SELECT ?c (COUNT(*) AS ?n) WHERE { ?s a ?c } GROUP BY ?c",
    ),
    (
        "per predicate",
        "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
    ),
    ("predicates", "SELECT DISTINCT ?p WHERE { ?s ?p ?o }"),
    (
        "per graph",
        "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g",
    ),
];

/// Runs the benchmark and prints one line per view and per query.
pub(crate) fn run(
    data: &Path,
    runs: usize,
    full: bool,
    union: bool,
    views: Option<(&Path, usize)>,
) -> anyhow::Result<()> {
    let store = Store::open(data, StoreOptions::default())?;
    let quads = store.reader().counts()?.quads;
    println!(
        "start views and statistics-answered SPARQL: {} ({quads} quads, {runs} runs each)",
        data.display()
    );
    println!(
        "{:<24} {:>9} {:>9} {:>8} {:>7} {:>12}",
        "request", "p50 ms", "p99 ms", "rows", "stats", "full eval ms"
    );
    let engine = FacetEngine::default();
    for kind in [
        ViewKind::Classes,
        ViewKind::Properties,
        ViewKind::PropertiesIn,
        ViewKind::Graphs,
    ] {
        let query = FacetQuery {
            root: Node {
                view: Some(View::new(kind)),
                ..Node::default()
            },
            timeout: None,
            graph: None,
        };
        let mut times = Vec::with_capacity(runs);
        let mut last = None;
        for _ in 0..runs {
            let start = Instant::now();
            let answer = engine.answer_uncached(&store, &query, Duration::from_secs(5))?;
            times.push(start.elapsed());
            last = Some(answer);
        }
        let (rows, complete) = last.map_or((0, false), |a| (a.rows.len(), a.complete));
        line(
            &format!("view {}", kind.name()),
            &mut times,
            rows,
            complete,
            None,
        );
    }
    if let Some((views, view_runs)) = views {
        constrained_views(&store, &engine, views, view_runs)?;
    }
    let options = QueryOptions::default().with_default_graph_as_union(union);
    let none = DatasetOverride::default();
    for (name, text) in QUERIES {
        let query = SparqlParser::new().parse_query(text)?;
        let mut times = Vec::with_capacity(runs);
        let mut rows = 0;
        for _ in 0..runs {
            let reader = store.reader();
            let start = Instant::now();
            rows = count(evaluate_query(&reader, &query, &none, &options)?)?;
            times.push(start.elapsed());
        }
        let reader = store.reader();
        let answered = answer_from_statistics(&reader, &query, &none, &options)?.is_some();
        let full_ms = if full {
            // A transaction's reader is never answered from the statistics.
            let transaction = store.transaction()?;
            let reader = transaction.reader();
            let start = Instant::now();
            count(evaluate_query(&reader, &query, &none, &options)?)?;
            Some(start.elapsed().as_secs_f64() * 1000.0)
        } else {
            None
        };
        line(
            &format!("sparql {name}"),
            &mut times,
            rows,
            answered,
            full_ms,
        );
    }
    Ok(())
}

/// Times each constrained view of the file (see the module's notes): p50, p99, rows and
/// completeness of the last answer, and its focus size.
fn constrained_views(
    store: &Store,
    engine: &FacetEngine,
    file: &Path,
    runs: usize,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)?;
    for entry in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let (name, json) = entry
            .split_once('\t')
            .ok_or_else(|| anyhow::anyhow!("{}: no tab in {entry:?}", file.display()))?;
        let query = lodestone_facets::json::parse_query(json)?;
        let budget = query.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let mut times = Vec::with_capacity(runs);
        let mut last = None;
        for _ in 0..runs {
            let start = Instant::now();
            let answer = engine.answer_uncached(store, &query, budget)?;
            times.push(start.elapsed());
            last = Some(answer);
        }
        let (rows, complete, focus, sample) = last.map_or((0, false, 0, None), |a| {
            (a.rows.len(), a.complete, a.focus_size, a.sample)
        });
        line(name, &mut times, rows, complete, None);
        let estimate =
            sample.map_or_else(String::new, |n| format!(", estimated from a sample of {n}"));
        println!(
            "{:<24} focus {focus}, budget {} ms{estimate}",
            "",
            budget.as_millis()
        );
    }
    Ok(())
}

/// Consumes the solutions; returns how many there were.
fn count(results: QueryResults<'_>) -> anyhow::Result<usize> {
    let QueryResults::Solutions(solutions) = results else {
        anyhow::bail!("not a SELECT");
    };
    let mut n = 0;
    for solution in solutions {
        solution?;
        n += 1;
    }
    Ok(n)
}

fn line(name: &str, times: &mut [Duration], rows: usize, flag: bool, full_ms: Option<f64>) {
    times.sort_unstable();
    let ms = |p: f64| {
        let last = times.len().saturating_sub(1);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let at = ((last as f64) * p).round() as usize;
        times
            .get(at.min(last))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let full = full_ms.map_or_else(|| "-".to_owned(), |f| format!("{f:.1}"));
    println!(
        "{name:<24} {:>9.3} {:>9.3} {rows:>8} {:>7} {full:>12}",
        ms(0.5),
        ms(0.99),
        if flag { "yes" } else { "no" }
    );
}
