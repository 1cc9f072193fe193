//! The BSBM explore query mix: parameters drawn from the loaded data with a fixed seed, and
//! a runner that times every query through the store API.
//!
//! The query file holds one query per block, each block opening with a line `#### N` naming
//! its BSBM template, so that `bench/bsbm.sh` can run the very same queries on pyoxigraph.

use crate::rng::Rng;
use anyhow::{bail, Context};
use lodestone_store::model::Term;
use lodestone_store::sparql::{
    evaluate_query, explain_query, DatasetOverride, Query, QueryOptions, QueryResults, SparqlParser,
};
use lodestone_store::{Reader, Store, StoreOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

const BSBM: &str = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

fn open(data: &Path) -> anyhow::Result<Store> {
    open_within(data, StoreOptions::default())
}

fn open_within(data: &Path, options: StoreOptions) -> anyhow::Result<Store> {
    let options = StoreOptions {
        create_if_missing: false,
        ..options
    };
    Store::open(data, options).with_context(|| format!("cannot open {}", data.display()))
}

/// Runs a SELECT and returns its rows as terms.
pub(crate) fn select(reader: &Reader<'_>, query: &str) -> anyhow::Result<Vec<Vec<Option<Term>>>> {
    let query = SparqlParser::new().parse_query(query)?;
    let QueryResults::Solutions(solutions) = evaluate_query(
        reader,
        &query,
        &DatasetOverride::default(),
        &QueryOptions::default(),
    )?
    else {
        bail!("not a SELECT query");
    };
    let variables = solutions.variables().to_vec();
    let mut rows = Vec::new();
    for solution in solutions {
        let solution = solution?;
        rows.push(variables.iter().map(|v| solution.get(v).cloned()).collect());
    }
    Ok(rows)
}

/// Parameter pools read from the data.
struct Pools {
    products: Vec<String>,
    reviews: Vec<String>,
    offers: Vec<String>,
    dates: Vec<String>,
}

fn iri(term: &Option<Term>) -> Option<String> {
    match term {
        Some(Term::NamedNode(n)) => Some(n.to_string()),
        _ => None,
    }
}

fn value(term: &Option<Term>) -> Option<String> {
    match term {
        Some(Term::Literal(l)) => Some(l.value().to_owned()),
        _ => None,
    }
}

fn pools(reader: &Reader<'_>) -> anyhow::Result<Pools> {
    let column = |query: &str| -> anyhow::Result<Vec<String>> {
        Ok(select(reader, query)?
            .iter()
            .filter_map(|r| iri(&r[0]))
            .collect())
    };
    let products = column(&format!(
        "SELECT ?p WHERE {{ ?p <{RDF_TYPE}> <{BSBM}Product> }}"
    ))?;
    let reviews = column(&format!("SELECT ?r WHERE {{ ?r <{BSBM}reviewFor> ?p }}"))?;
    let offers = column(&format!("SELECT ?o WHERE {{ ?o <{BSBM}product> ?p }}"))?;
    let dates = select(
        reader,
        &format!("SELECT ?d WHERE {{ ?o <{BSBM}validTo> ?d }} LIMIT 2000"),
    )?
    .iter()
    .filter_map(|r| match &r[0] {
        Some(Term::Literal(l)) => Some(l.to_string()),
        _ => None,
    })
    .collect();
    if products.is_empty() || reviews.is_empty() || offers.is_empty() {
        bail!("the store holds no BSBM data");
    }
    Ok(Pools {
        products,
        reviews,
        offers,
        dates,
    })
}

/// Parameters for one query, drawn around one product so that the queries have answers.
fn parameters(
    reader: &Reader<'_>,
    pools: &Pools,
    rng: &mut Rng,
) -> anyhow::Result<BTreeMap<&'static str, String>> {
    let product = rng.pick(&pools.products).clone();
    let types: Vec<String> = select(
        reader,
        &format!("SELECT ?t WHERE {{ {product} <{RDF_TYPE}> ?t FILTER(?t != <{BSBM}Product>) }}"),
    )?
    .iter()
    .filter_map(|r| iri(&r[0]))
    .collect();
    let features: Vec<String> = select(
        reader,
        &format!("SELECT ?f WHERE {{ {product} <{BSBM}productFeature> ?f }}"),
    )?
    .iter()
    .filter_map(|r| iri(&r[0]))
    .collect();
    let numbers = select(
        reader,
        &format!("SELECT ?a ?b WHERE {{ {product} <{BSBM}productPropertyNumeric1> ?a ; <{BSBM}productPropertyNumeric3> ?b }}"),
    )?;
    let number = |i: usize| -> i64 {
        numbers
            .first()
            .and_then(|r| value(&r[i]))
            .and_then(|v| v.parse().ok())
            .unwrap_or(500)
    };
    let mut params = BTreeMap::new();
    params.insert("%ProductXYZ%", product.clone());
    params.insert(
        "%ProductType%",
        types
            .first()
            .cloned()
            .unwrap_or_else(|| format!("<{BSBM}Product>")),
    );
    let feature = |rng: &mut Rng| rng.pick(&features).clone();
    if features.is_empty() {
        bail!("product {product} has no features");
    }
    params.insert("%ProductFeature1%", feature(rng));
    params.insert("%ProductFeature2%", feature(rng));
    params.insert("%ProductFeature3%", feature(rng));
    params.insert("%x%", (number(0) - 1 - rng.below(100) as i64).to_string());
    params.insert("%y%", (number(1) + 1 + rng.below(100) as i64).to_string());
    params.insert("%ReviewXYZ%", rng.pick(&pools.reviews).clone());
    params.insert("%OfferXYZ%", rng.pick(&pools.offers).clone());
    params.insert(
        "%currentDate%",
        pools
            .dates
            .get(rng.below(pools.dates.len().max(1)))
            .cloned()
            .unwrap_or_else(|| {
                "\"2008-06-20T00:00:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>".to_owned()
            }),
    );
    Ok(params)
}

/// Writes `mixes` query mixes to `out`.
pub(crate) fn write_queries(
    data: &Path,
    templates: &Path,
    mixes: usize,
    seed: u64,
    out: &Path,
) -> anyhow::Result<()> {
    let store = open(data)?;
    let reader = store.reader();
    let pools = pools(&reader)?;
    let mix_path = templates.join("querymix.txt");
    let mix: Vec<usize> = std::fs::read_to_string(&mix_path)
        .with_context(|| format!("cannot read {}", mix_path.display()))?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let mut rng = Rng::new(seed);
    let mut text = String::new();
    for _ in 0..mixes {
        for &number in &mix {
            let path = templates.join(format!("query{number}.txt"));
            let mut query = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            for (name, value) in parameters(&reader, &pools, &mut rng)? {
                query = query.replace(name, &value);
            }
            text.push_str(&format!("#### {number}\n{query}\n"));
        }
    }
    std::fs::write(out, text)?;
    println!(
        "wrote {mixes} mixes of {} queries to {}",
        mix.len(),
        out.display()
    );
    Ok(())
}

/// Reads a query file: (template number, query text) pairs.
pub(crate) fn read_queries(path: &Path) -> anyhow::Result<Vec<(usize, String)>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for block in text.split("#### ").filter(|b| !b.trim().is_empty()) {
        let (number, query) = block.split_once('\n').context("malformed query file")?;
        out.push((number.trim().parse()?, query.to_owned()));
    }
    Ok(out)
}

/// Runs every query on a store sized to `budget` bytes, consuming all results, and prints
/// per-template means and mixes per hour.
pub(crate) fn run(data: &Path, queries: &Path, warmup: usize, budget: usize) -> anyhow::Result<()> {
    let store = open_within(data, StoreOptions::default().with_memory_budget(budget))?;
    let queries = read_queries(queries)?;
    let mix_len = queries
        .iter()
        .position(|(n, _)| *n == 12)
        .map_or(25, |p| p + 1);
    let parsed: Vec<(usize, Query)> = queries
        .iter()
        .map(|(n, q)| Ok((*n, SparqlParser::new().parse_query(q)?)))
        .collect::<anyhow::Result<_>>()?;
    for (_, query) in parsed.iter().take(warmup * mix_len) {
        execute(&store, query)?;
    }
    let mut per_template: BTreeMap<usize, (Duration, usize, usize)> = BTreeMap::new();
    let start = Instant::now();
    for (number, query) in &parsed {
        let begin = Instant::now();
        let rows = execute(&store, query)?;
        let entry = per_template.entry(*number).or_default();
        entry.0 += begin.elapsed();
        entry.1 += 1;
        entry.2 += rows;
    }
    let total = start.elapsed();
    let mixes = parsed.len() as f64 / mix_len as f64;
    for (number, (time, count, rows)) in &per_template {
        println!(
            "query {number:>2}: mean {:>8.3} ms over {count} runs, {:.1} results on average",
            time.as_secs_f64() * 1000.0 / *count as f64,
            *rows as f64 / *count as f64
        );
    }
    println!(
        "lodestone: {:.0} query mixes per hour ({mixes:.0} mixes in {:.2} s)",
        mixes * 3600.0 / total.as_secs_f64(),
        total.as_secs_f64()
    );
    Ok(())
}

/// Prints the evaluated plan (JSON, with the rows and time of every step) of the first
/// `count` queries of `template` in a query file.
pub(crate) fn explain(
    data: &Path,
    queries: &Path,
    template: usize,
    count: usize,
) -> anyhow::Result<()> {
    let store = open(data)?;
    let chosen: Vec<String> = read_queries(queries)?
        .into_iter()
        .filter(|(n, _)| *n == template)
        .map(|(_, q)| q)
        .take(count)
        .collect();
    if chosen.is_empty() {
        bail!("no query of template {template} in {}", queries.display());
    }
    for text in chosen {
        let query = SparqlParser::new().parse_query(&text)?;
        let reader = store.reader();
        let begin = Instant::now();
        let (rows, plan) = explain_query(&reader, &query, &QueryOptions::default())?;
        println!(
            "# {rows} results in {:.3} ms (with statistics)\n{plan}",
            begin.elapsed().as_secs_f64() * 1000.0
        );
    }
    Ok(())
}

/// Evaluates one query on a fresh snapshot and consumes every result; returns the count.
fn execute(store: &Store, query: &Query) -> anyhow::Result<usize> {
    let reader = store.reader();
    let results = evaluate_query(
        &reader,
        query,
        &DatasetOverride::default(),
        &QueryOptions::default(),
    )?;
    Ok(match results {
        QueryResults::Solutions(solutions) => {
            let mut n = 0;
            for solution in solutions {
                solution?;
                n += 1;
            }
            n
        }
        QueryResults::Boolean(_) => 1,
        QueryResults::Graph(triples) => {
            let mut n = 0;
            for triple in triples {
                triple?;
                n += 1;
            }
            n
        }
    })
}
