//! Running one test: syntax tests parse, evaluation tests load their data into a fresh
//! store, run the query or update through the store's SPARQL API and compare.

use crate::csv::{from_csv, to_csv};
use crate::fixtures::{read_text, url_to_path, Context, Failure, Fixture, TempStore};
use crate::manifest::{Test, TestKind};
use crate::results::{compare, side_by_side, Results, RowOrder};
use lodestone_store::sparql::{
    evaluate_query, execute_update, DatasetOverride, Query, QueryOptions, QueryResults,
    SparqlParser, Update, UpdateOptions,
};
use oxrdf::dataset::CanonicalizationAlgorithm;
use oxrdf::Dataset;
use spargebra::algebra::{Expression, GraphPattern, OrderExpression};

/// Runs a test; `Err` says why it failed.
pub fn run(test: &Test) -> Result<(), Failure> {
    match &test.kind {
        TestKind::PositiveSyntax => syntax_test(action(test)?, Form::Query, true),
        TestKind::NegativeSyntax => syntax_test(action(test)?, Form::Query, false),
        TestKind::PositiveUpdateSyntax => syntax_test(action(test)?, Form::Update, true),
        TestKind::NegativeUpdateSyntax => syntax_test(action(test)?, Form::Update, false),
        TestKind::QueryEvaluation => query_test(test, Results::from_file, Results::from_engine),
        TestKind::CsvResultFormat => query_test(
            test,
            |url| from_csv(&read_text(url)?),
            |results| from_csv(&to_csv(results)?),
        ),
        TestKind::UpdateEvaluation => update_test(test),
        TestKind::Http => Err("HTTP tests have no evaluator here".into()),
        TestKind::Other(types) => Err(format!("unknown test type {types}")),
    }
}

fn action(test: &Test) -> Result<&str, Failure> {
    test.action
        .as_deref()
        .ok_or_else(|| "no query or update file".into())
}

/// Which grammar a syntax test exercises.
#[derive(Clone, Copy)]
enum Form {
    Query,
    Update,
}

fn parser(url: &str) -> Result<SparqlParser, Failure> {
    SparqlParser::new().with_base_iri(url).context("base IRI")
}

fn parse_query(url: &str) -> Result<Query, Failure> {
    parser(url)?
        .parse_query(&read_text(url)?)
        .context("parsing the query")
}

fn parse_update(url: &str) -> Result<Update, Failure> {
    parser(url)?
        .parse_update(&read_text(url)?)
        .context("parsing the update")
}

/// Checks that the file parses (`valid`) or is rejected by the parser; an unreadable file
/// fails either way.
fn syntax_test(url: &str, form: Form, valid: bool) -> Result<(), Failure> {
    let text = read_text(url)?;
    let parser = parser(url)?;
    let parsed = match form {
        Form::Query => parser.parse_query(&text).map(|q| q.to_string()),
        Form::Update => parser.parse_update(&text).map(|u| u.to_string()),
    };
    match (parsed, valid) {
        (Ok(_), true) | (Err(_), false) => Ok(()),
        (Err(e), true) => Err(format!("rejected although valid: {e}")),
        (Ok(parsed), false) => Err(format!("parsed although invalid: {parsed}")),
    }
}

/// Loads the data (and the files the query names in FROM / FROM NAMED), runs the query and
/// compares what `collect` makes of the results with what `expected` reads from the file.
fn query_test(
    test: &Test,
    expected: fn(&str) -> Result<Results, Failure>,
    collect: fn(QueryResults<'_>) -> Result<Results, Failure>,
) -> Result<(), Failure> {
    let query = parse_query(action(test)?)?;
    let result = test.result.as_deref().ok_or("no mf:result")?;
    let expected = expected(result).context("reading the expected results")?;
    let store = TempStore::with_fixture(&with_query_dataset(&test.data, &query))?;
    let reader = store.store.reader();
    let results = evaluate_query(
        &reader,
        &query,
        &DatasetOverride::default(),
        &QueryOptions::default(),
    )
    .context("evaluating the query")?;
    let actual = collect(results)?;
    compare(&expected, &actual, &row_order(&query))
}

/// The test data plus every suite file the query names as a graph, loaded as a named graph
/// called by its URL (that is where FROM and FROM NAMED look for it).
fn with_query_dataset(data: &Fixture, query: &Query) -> Fixture {
    let mut fixture = data.clone();
    let Some(dataset) = query.dataset() else {
        return fixture;
    };
    let named = dataset.named.iter().flatten();
    for graph in dataset.default.iter().chain(named) {
        let known = fixture.named.iter().any(|(name, _)| name == graph);
        let is_file = url_to_path(graph.as_str()).is_ok_and(|p| p.is_file());
        if !known && is_file {
            fixture
                .named
                .push((graph.clone(), graph.as_str().to_owned()));
        }
    }
    fixture
}

/// The leading plain-variable keys of the query's top-level ORDER BY: the order of the
/// results is checked on those (an expression key ends the checkable prefix).
fn row_order(query: &Query) -> RowOrder {
    let Query::Select { pattern, .. } = query else {
        return RowOrder::Any;
    };
    let mut pattern = pattern;
    loop {
        pattern = match pattern {
            GraphPattern::Slice { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Project { inner, .. } => inner,
            GraphPattern::OrderBy { expression, .. } => {
                let keys = expression
                    .iter()
                    .map_while(|key| match key {
                        OrderExpression::Asc(Expression::Variable(v))
                        | OrderExpression::Desc(Expression::Variable(v)) => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                return RowOrder::By(keys);
            }
            _ => return RowOrder::Any,
        }
    }
}

/// Loads the data, applies the update and compares the whole dataset with the expected one.
fn update_test(test: &Test) -> Result<(), Failure> {
    let update = parse_update(action(test)?)?;
    let mut expected = test
        .expected
        .to_dataset()
        .context("reading the expected dataset")?;
    let store = TempStore::with_fixture(&test.data)?;
    execute_update(&store.store, &update, &UpdateOptions::default())
        .context("applying the update")?;
    let mut actual = store.to_dataset()?;
    expected.canonicalize(CanonicalizationAlgorithm::Unstable);
    actual.canonicalize(CanonicalizationAlgorithm::Unstable);
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "datasets are not isomorphic ({} expected quads, {} actual)\n{}",
        expected.len(),
        actual.len(),
        side_by_side(quads(&expected), quads(&actual))
    ))
}

fn quads(dataset: &Dataset) -> Vec<String> {
    dataset.iter().map(|q| q.to_string()).collect()
}
