//! `lodestone-bench text-sparql`: full-text patterns inside SPARQL (issue 24), in-process.
//!
//! Loads a dump into a temporary store, builds its text index, then picks words from the
//! labels (`--label`, `rdfs:label` by default) whose hit counts are nearest 10, 1,000 and
//! 100,000 documents, and times, per word, `--runs` evaluations (after one warm-up) of
//! - `SELECT ?p ?l WHERE { ?p <label> ?l . ?l bif:contains "WORD" } LIMIT 10`;
//! - the same joined with a selective class (the least used of the 50 most used) and with a
//!   non-selective one (the most used);
//! - the brute-force `FILTER(CONTAINS(LCASE(STR(?l)), "word"))` form of the first.
//!
//! Each time covers what `/sparql` does after parsing: the rewrite (which asks the index),
//! the evaluation and reading every row. Last, for `--agreement` words sampled from the
//! labels, it checks that `?e lodestone:text "WORD"` gives the entities `/api/search` gives.

use crate::search::{label_words, report};
use anyhow::Context;
use clap::Args;
use lodestone_indexer::{IndexSettings, SearchRequest, TextIndex, TextRequest};
use lodestone_server::text_sparql;
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use lodestone_store::model::{Literal, NamedNode, Term};
use lodestone_store::sparql::{evaluate_query, DatasetOverride, QueryOptions, QueryResults};
use lodestone_store::{Reader, Store, StoreOptions};
use spargebra::SparqlParser;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `lodestone-bench text-sparql`.
#[derive(Debug, Args)]
pub(crate) struct TextSparqlArgs {
    /// Dump to load into a temporary store.
    #[arg(long, default_value = "../shared/data/real/nomisma.nt.zst")]
    file: PathBuf,
    /// The label property whose literals the queries search.
    #[arg(long, default_value = "http://www.w3.org/2004/02/skos/core#prefLabel")]
    label: String,
    /// Evaluations of each query (after one warm-up).
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Words whose SPARQL hits are compared with `/api/search`'s.
    #[arg(long, default_value_t = 50)]
    agreement: usize,
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &TextSparqlArgs) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path().join("store"), StoreOptions::default())?;
    let started = Instant::now();
    let report_load = BulkLoader::new(&store)
        .with_parse_options(ParseOptions {
            lenient: true,
            ..ParseOptions::default()
        })
        .load(&[Input::File(args.file.clone())])
        .with_context(|| format!("loading {}", args.file.display()))?;
    println!(
        "loaded {} quads from {} in {:.1} s",
        report_load.quads_read,
        args.file.display(),
        started.elapsed().as_secs_f64()
    );
    let index = Arc::new(TextIndex::open(
        dir.path().join("text-index"),
        IndexSettings::default(),
    )?);
    let build = index.rebuild(&store, |_| {})?;
    println!(
        "index: {} entities in {:.1} s",
        build.entities,
        build.elapsed.as_secs_f64()
    );
    let reader = store.reader();
    let label = NamedNode::new(args.label.clone())?;
    let labels = sampled_labels(&reader, &label, 4_000)?;
    anyhow::ensure!(!labels.is_empty(), "no literals of {label}");
    let words = words_by_hits(&index, &labels)?;
    let classes = reader.top_classes(50)?;
    let class_of = |i: Option<&(lodestone_store::TermId, u64)>| -> anyhow::Result<NamedNode> {
        match i.map(|(id, _)| reader.term(*id)).transpose()? {
            Some(Term::NamedNode(n)) => Ok(n),
            _ => anyhow::bail!("no class"),
        }
    };
    let common = class_of(classes.first())?;
    let rare = class_of(classes.last())?;
    println!("non-selective class {common}, selective class {rare}");
    for (word, hits) in &words {
        let w = Literal::new_simple_literal(word.as_str());
        let lowered = Literal::new_simple_literal(word.to_lowercase());
        let bif = "<http://www.openlinksw.com/schemas/bif#contains>";
        let queries = [
            ("text", format!("SELECT ?p ?l WHERE {{ ?p {label} ?l . ?l {bif} {w} }} LIMIT 10")),
            (
                "text + selective class",
                format!("SELECT ?p ?l WHERE {{ ?p a {rare} . ?p {label} ?l . ?l {bif} {w} }} LIMIT 10"),
            ),
            (
                "text + non-selective class",
                format!("SELECT ?p ?l WHERE {{ ?p a {common} . ?p {label} ?l . ?l {bif} {w} }} LIMIT 10"),
            ),
            (
                "brute force",
                format!("SELECT ?p ?l WHERE {{ ?p {label} ?l FILTER(CONTAINS(LCASE(STR(?l)), {lowered})) }} LIMIT 10"),
            ),
        ];
        println!("word {word:?}: {hits} documents match");
        let mut medians = Vec::new();
        for (name, text) in &queries {
            let mut times = Vec::with_capacity(args.runs);
            let mut rows = 0;
            for run in 0..=args.runs {
                let timer = Instant::now();
                rows = evaluate(&index, &reader, text)?;
                if run > 0 {
                    times.push(timer.elapsed());
                }
            }
            times.sort_unstable();
            medians.push(times.get(times.len() / 2).copied().unwrap_or_default());
            report(&format!("  {name} ({rows} rows)"), &mut times);
        }
        if let (Some(text), Some(brute)) = (medians.first(), medians.last()) {
            println!(
                "  brute force / text: {:.1}×",
                brute.as_secs_f64() / text.as_secs_f64().max(1e-9)
            );
        }
    }
    agreement(&index, &reader, &labels, args.agreement)
}

/// Rows of one query, evaluated as `/sparql` does after parsing.
fn evaluate(index: &Arc<TextIndex>, reader: &Reader<'_>, text: &str) -> anyhow::Result<usize> {
    let query = SparqlParser::new().parse_query(text)?;
    let options = QueryOptions::default().with_default_graph_as_union(true);
    let (query, options) = text_sparql::prepare(Some(index), 10_000, reader, query, options)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let QueryResults::Solutions(solutions) =
        evaluate_query(reader, &query, &DatasetOverride::default(), &options)?
    else {
        anyhow::bail!("not a SELECT");
    };
    let mut rows = 0;
    for solution in solutions {
        solution?;
        rows += 1;
    }
    Ok(rows)
}

/// Literals of `label`, spread over the store.
fn sampled_labels(reader: &Reader<'_>, label: &NamedNode, n: usize) -> anyhow::Result<Vec<String>> {
    let Some(id) = reader.term_id(label.as_ref().into())? else {
        return Ok(Vec::new());
    };
    let total = usize::try_from(reader.usage(id)?.as_predicate).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    for quad in reader
        .quads_for_pattern(None, Some(id), None, None)
        .step_by((total / n.max(1)).max(1))
    {
        if let Term::Literal(literal) = reader.term(quad?.object)? {
            out.push(literal.value().to_owned());
        }
    }
    Ok(out)
}

/// For 10, 1,000 and 100,000 hits, the label word whose count is nearest (by ratio).
fn words_by_hits(index: &TextIndex, labels: &[String]) -> anyhow::Result<Vec<(String, usize)>> {
    let searcher = index.searcher();
    let mut counted = Vec::new();
    let mut seen = BTreeSet::new();
    for label in labels.iter().step_by((labels.len() / 800).max(1)) {
        for word in label_words(label) {
            if !word.chars().all(char::is_alphabetic) || !seen.insert(word.to_lowercase()) {
                continue;
            }
            // A stop word parses to nothing to search for.
            let Ok(branch) = searcher.parse(&word) else {
                continue;
            };
            let request = TextRequest {
                branches: vec![branch],
                langs: Vec::new(),
                property: None,
            };
            counted.push((word, searcher.count_text(&request)?));
        }
    }
    let mut out: Vec<(String, usize)> = Vec::new();
    for target in [10.0_f64, 1_000.0, 100_000.0] {
        let distance = |n: usize| ((n.max(1) as f64) / target).ln().abs();
        if let Some(best) = counted
            .iter()
            .min_by(|a, b| distance(a.1).total_cmp(&distance(b.1)))
        {
            if !out.iter().any(|(w, _)| *w == best.0) {
                out.push(best.clone());
            }
        }
    }
    Ok(out)
}

/// Whether `?e lodestone:text "WORD"` gives `/api/search`'s entities for sampled words.
fn agreement(
    index: &Arc<TextIndex>,
    reader: &Reader<'_>,
    labels: &[String],
    words: usize,
) -> anyhow::Result<()> {
    let searcher = index.searcher();
    let mut equal = 0;
    let mut compared = 0;
    let mut elapsed = Duration::ZERO;
    for label in labels.iter().step_by((labels.len() / words.max(1)).max(1)) {
        let Some(word) = label_words(label).into_iter().next() else {
            continue;
        };
        if compared == words {
            break;
        }
        let request = SearchRequest {
            query: searcher.parse(&word)?,
            classes: Vec::new(),
            graph: None,
            langs: Vec::new(),
            limit: 10_000,
            offset: 0,
        };
        let api: BTreeSet<String> = searcher
            .search(reader, &request)?
            .hits
            .into_iter()
            .map(|h| h.iri)
            .collect();
        let text = format!(
            "SELECT ?e WHERE {{ ?e <urn:lodestone:text> {} }}",
            Literal::new_simple_literal(word.as_str())
        );
        let query = SparqlParser::new().parse_query(&text)?;
        let timer = Instant::now();
        let (query, options) = text_sparql::prepare(
            Some(index),
            10_000,
            reader,
            query,
            QueryOptions::default().with_default_graph_as_union(true),
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let QueryResults::Solutions(solutions) =
            evaluate_query(reader, &query, &DatasetOverride::default(), &options)?
        else {
            anyhow::bail!("not a SELECT");
        };
        let mut ours = BTreeSet::new();
        for solution in solutions {
            if let Some(Term::NamedNode(e)) = solution?.get("e") {
                ours.insert(e.as_str().to_owned());
            }
        }
        elapsed += timer.elapsed();
        compared += 1;
        if ours == api {
            equal += 1;
        } else {
            println!(
                "  {word:?}: SPARQL {} entities, /api/search {}",
                ours.len(),
                api.len()
            );
        }
    }
    println!(
        "agreement: {equal} of {compared} sampled words give /api/search's entities exactly ({:.1} ms per word)",
        elapsed.as_secs_f64() * 1000.0 / compared.max(1) as f64
    );
    Ok(())
}
