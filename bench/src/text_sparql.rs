//! `lodestone-bench text-sparql`: full-text patterns inside SPARQL (issue 24), in-process.
//!
//! Loads a dump into a temporary store and builds its text index, or opens a store folder as
//! `lodestone load` leaves it (`--store`, the index in its `text-index`; read-only, but the
//! index folder is written to: give it a copy). Then it picks label words (from the index's
//! term dictionary, by document frequency) whose hit counts are nearest 10, 1,000 and 100,000
//! documents, among the words the index's analysis keeps as typed (lower-cased), so that each
//! is a query the index can answer and the brute-force `CONTAINS` looks for the same string;
//! and times (`--label`, `skos:prefLabel` by default, is the property searched),
//! per word, `--runs` evaluations (after one warm-up) of
//! - `SELECT ?p ?l WHERE { ?p <label> ?l . ?l bif:contains "WORD" } LIMIT 10`;
//! - the same joined with a selective pattern: `?p <property> ?x . ?x <label> "…"` with
//!   `--selective-property` (BSBM's `bsbm:producer`; the label is that of the first hit's
//!   value), else `?p a <class>` with the least used of the 50 most used classes;
//! - the same joined with a non-selective class (`--common-class`, else the most used);
//! - the brute-force `FILTER(CONTAINS(LCASE(STR(?l)), "word"))` form of the first;
//! - the first and the brute force without `LIMIT` (every match read: the ratio that a
//!   `LIMIT`'s early stop hides when the brute force finds ten rows quickly).
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
use lodestone_store::sparql::{
    evaluate_query, DatasetOverride, QueryOptions, QueryResults, QuerySolutionIter,
};
use lodestone_store::{Reader, Store, StoreOptions};
use spargebra::SparqlParser;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `lodestone-bench text-sparql`.
#[derive(Debug, Args)]
pub(crate) struct TextSparqlArgs {
    /// Dump to load into a temporary store.
    #[arg(long, default_value = "../shared/data/real/nomisma.nt.zst")]
    file: PathBuf,
    /// A store folder as `lodestone load` leaves it (with its `text-index`) to open instead of
    /// loading `--file`: a copy, since the index folder is opened for writing.
    #[arg(long)]
    store: Option<PathBuf>,
    /// The label property whose literals the queries search.
    #[arg(long, default_value = "http://www.w3.org/2004/02/skos/core#prefLabel")]
    label: String,
    /// The non-selective join's class (default: the most used class).
    #[arg(long)]
    common_class: Option<String>,
    /// The selective join's property: `?p <property> ?x . ?x <label> "…"` (default: a join
    /// with the least used of the 50 most used classes).
    #[arg(long)]
    selective_property: Option<String>,
    /// Evaluations of each query (after one warm-up).
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Words to time instead of those sampled for 10, 1,000 and 100,000 hits (repeatable).
    #[arg(long = "word")]
    words: Vec<String>,
    /// Words whose SPARQL hits are compared with `/api/search`'s.
    #[arg(long, default_value_t = 50)]
    agreement: usize,
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &TextSparqlArgs) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let (store, index) = match &args.store {
        Some(path) => open_store(path)?,
        None => load_file(&args.file, dir.path())?,
    };
    let reader = store.reader();
    let label = NamedNode::new(args.label.clone())?;
    let labels = sampled_labels(&reader, &label, 4_000)?;
    anyhow::ensure!(!labels.is_empty(), "no literals of {label}");
    let words = if args.words.is_empty() {
        words_by_hits(&index, &reader, &label)?
    } else {
        let searcher = index.searcher();
        args.words
            .iter()
            .map(|word| {
                let request = TextRequest {
                    branches: vec![searcher.parse(word)?],
                    langs: Vec::new(),
                    property: None,
                };
                Ok((word.clone(), searcher.count_text(&request)?))
            })
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let classes = reader.top_classes(50)?;
    let class_of = |i: Option<&(lodestone_store::TermId, u64)>| -> anyhow::Result<NamedNode> {
        match i.map(|(id, _)| reader.term(*id)).transpose()? {
            Some(Term::NamedNode(n)) => Ok(n),
            _ => anyhow::bail!("no class"),
        }
    };
    let common = match &args.common_class {
        Some(class) => NamedNode::new(class.clone())?,
        None => class_of(classes.first())?,
    };
    let selective_property = args
        .selective_property
        .clone()
        .map(NamedNode::new)
        .transpose()?;
    match &selective_property {
        Some(property) => println!("non-selective class {common}, selective property {property}"),
        None => println!(
            "non-selective class {common}, selective class {}",
            class_of(classes.last())?
        ),
    }
    for (word, hits) in &words {
        let w = Literal::new_simple_literal(word.as_str());
        let lowered = Literal::new_simple_literal(word.to_lowercase());
        let bif = "<http://www.openlinksw.com/schemas/bif#contains>";
        let text = format!("?p {label} ?l . ?l {bif} {w}");
        let selective = match &selective_property {
            Some(property) => {
                let first = format!(
                    "SELECT ?xl WHERE {{ {text} . ?p {property} ?x . ?x {label} ?xl }} LIMIT 1"
                );
                first_value(&index, &reader, &first, "xl")?
                    .map(|xl| format!("?p {property} ?x . ?x {label} {xl}"))
            }
            None => Some(format!("?p a {}", class_of(classes.last())?)),
        };
        let mut queries = vec![("text", format!("SELECT ?p ?l WHERE {{ {text} }} LIMIT 10"))];
        match selective {
            Some(join) => queries.push((
                "text + selective join",
                format!("SELECT ?p ?l WHERE {{ {join} . {text} }} LIMIT 10"),
            )),
            None => println!("  (no hit of {word:?} has the selective property)"),
        }
        queries.push((
            "text + non-selective class",
            format!("SELECT ?p ?l WHERE {{ ?p a {common} . {text} }} LIMIT 10"),
        ));
        let brute = format!("?p {label} ?l FILTER(CONTAINS(LCASE(STR(?l)), {lowered}))");
        queries.push((
            "brute force",
            format!("SELECT ?p ?l WHERE {{ {brute} }} LIMIT 10"),
        ));
        // Without LIMIT, both read every match: the ratio a LIMIT's early stop hides.
        queries.push(("text, no LIMIT", format!("SELECT ?p ?l WHERE {{ {text} }}")));
        queries.push((
            "brute force, no LIMIT",
            format!("SELECT ?p ?l WHERE {{ {brute} }}"),
        ));
        let in_labels = {
            let searcher = index.searcher();
            let request = TextRequest {
                branches: vec![searcher.parse(word)?],
                langs: Vec::new(),
                property: None,
            };
            searcher
                .label_search(&request, 1)?
                .map(|search| search.count())
        };
        match in_labels {
            Some(n) => println!("word {word:?}: {hits} documents match, {n} in their labels"),
            None => println!("word {word:?}: {hits} documents match"),
        }
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
        let ratio =
            |brute: Duration, text: Duration| brute.as_secs_f64() / text.as_secs_f64().max(1e-9);
        if let [text, .., brute, all_text, all_brute] = medians.as_slice() {
            println!(
                "  brute force / text: {:.1}× with LIMIT 10, {:.1}× without",
                ratio(*brute, *text),
                ratio(*all_brute, *all_text)
            );
        }
    }
    agreement(&index, &reader, &labels, args.agreement)
}

/// A temporary store in `dir` holding `file`, and its text index built.
fn load_file(file: &Path, dir: &Path) -> anyhow::Result<(Store, Arc<TextIndex>)> {
    let store = Store::open(dir.join("store"), StoreOptions::default())?;
    let started = Instant::now();
    let report_load = BulkLoader::new(&store)
        .with_parse_options(ParseOptions {
            lenient: true,
            ..ParseOptions::default()
        })
        .load(&[Input::File(file.to_path_buf())])
        .with_context(|| format!("loading {}", file.display()))?;
    println!(
        "loaded {} quads from {} in {:.1} s",
        report_load.quads_read,
        file.display(),
        started.elapsed().as_secs_f64()
    );
    let index = Arc::new(TextIndex::open(
        dir.join("text-index"),
        IndexSettings::default(),
    )?);
    let build = index.rebuild(&store, |_| {})?;
    index.wait_for_merge();
    println!(
        "index: {} entities in {:.1} s, {} segment(s)",
        build.entities,
        build.elapsed.as_secs_f64(),
        index.segment_count()
    );
    Ok((store, index))
}

/// A store folder opened read-only, with its text index brought up to date (built when the
/// folder has none, which takes long on a large store).
fn open_store(path: &Path) -> anyhow::Result<(Store, Arc<TextIndex>)> {
    let options = StoreOptions {
        read_only: true,
        create_if_missing: false,
        ..StoreOptions::default()
    };
    let store =
        Store::open(path, options).with_context(|| format!("opening {}", path.display()))?;
    let index = Arc::new(TextIndex::open(
        path.join("text-index"),
        IndexSettings::default(),
    )?);
    let started = Instant::now();
    let sequence = index.catch_up(&store)?;
    index.wait_for_merge();
    println!(
        "opened {} (sequence {sequence}): {} text documents in {} segment(s), index caught up in {:.1} s",
        path.display(),
        index.document_count(),
        index.segment_count(),
        started.elapsed().as_secs_f64()
    );
    Ok((store, index))
}

/// The value of `variable` in the first row of a query, as SPARQL writes it.
fn first_value(
    index: &Arc<TextIndex>,
    reader: &Reader<'_>,
    text: &str,
    variable: &str,
) -> anyhow::Result<Option<String>> {
    let mut solutions = solutions(index, reader, text)?;
    Ok(match solutions.next().transpose()? {
        Some(row) => row.get(variable).map(ToString::to_string),
        None => None,
    })
}

/// Rows of one query, evaluated as `/sparql` does after parsing.
fn evaluate(index: &Arc<TextIndex>, reader: &Reader<'_>, text: &str) -> anyhow::Result<usize> {
    let mut rows = 0;
    for solution in solutions(index, reader, text)? {
        solution?;
        rows += 1;
    }
    Ok(rows)
}

/// The solutions of a SELECT, prepared as `/sparql` prepares it (text patterns rewritten).
fn solutions<'a>(
    index: &Arc<TextIndex>,
    reader: &'a Reader<'_>,
    text: &str,
) -> anyhow::Result<QuerySolutionIter<'a>> {
    let query = SparqlParser::new().parse_query(text)?;
    let options = QueryOptions::default().with_default_graph_as_union(true);
    let (query, options) = text_sparql::prepare(Some(index), 10_000, reader, query, options)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    match evaluate_query(reader, &query, &DatasetOverride::default(), &options)? {
        QueryResults::Solutions(solutions) => Ok(solutions),
        _ => anyhow::bail!("not a SELECT"),
    }
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

/// For 10, 1,000 and 100,000 hits, the label word whose count is nearest (by ratio): the
/// index's label words with their document frequencies (in labels and in other text) give,
/// per target, the 150 words nearest it; the one whose whole count (typos and stems
/// included) is nearest is taken and, when it is in no literal of `label` (a word of other
/// label properties only, such as BSBM's review titles, gives no rows), also the nearest
/// that is. Sampling the words of some labels found only common words (on BSBM, none under
/// 1,552 documents).
fn words_by_hits(
    index: &Arc<TextIndex>,
    reader: &Reader<'_>,
    label: &NamedNode,
) -> anyhow::Result<Vec<(String, usize)>> {
    let searcher = index.searcher();
    // Only words the analysis keeps as typed: not a stop word, a word over the longest
    // indexed (a long run of CJK letters) or one folded to another spelling.
    let frequencies: Vec<(String, u64)> = searcher
        .label_word_frequencies()?
        .into_iter()
        .filter(|(word, _, _)| {
            word.chars().all(char::is_alphabetic) && searcher.analyze(word) == [word.as_str()]
        })
        .map(|(word, labels, text)| (word, labels + text))
        .collect();
    let most = frequencies.iter().map(|(_, n)| *n).max().unwrap_or(0);
    println!(
        "{} label words in the index, each in at most {most} documents (labels and text)",
        frequencies.len()
    );
    let mut out: Vec<(String, usize)> = Vec::new();
    for target in [10.0_f64, 1_000.0, 100_000.0] {
        let distance = |n: f64| (n.max(1.0) / target).ln().abs();
        let mut nearest: Vec<&(String, u64)> = frequencies.iter().collect();
        nearest.sort_by(|a, b| distance(a.1 as f64).total_cmp(&distance(b.1 as f64)));
        let mut counted = Vec::new();
        for (word, _) in nearest.into_iter().take(150) {
            let request = TextRequest {
                branches: vec![searcher.parse(word)?],
                langs: Vec::new(),
                property: None,
            };
            // A word of `label`'s literals (not only of other label properties'), if any.
            let first = format!(
                "SELECT ?p WHERE {{ ?p {label} ?l . ?l <{}> {} }} LIMIT 1",
                text_sparql::BIF_CONTAINS,
                Literal::new_simple_literal(word.as_str())
            );
            // A word Virtuoso's syntax reserves (`not`, `and`, `near`) is no query by itself.
            let Ok(rows) = evaluate(index, reader, &first) else {
                continue;
            };
            counted.push((rows > 0, word.clone(), searcher.count_text(&request)?));
        }
        let nearest = |with_rows: bool| {
            counted
                .iter()
                .filter(|c| c.0 || !with_rows)
                .min_by(|a, b| distance(a.2 as f64).total_cmp(&distance(b.2 as f64)))
        };
        for (rows, word, hits) in [nearest(false), nearest(true)].into_iter().flatten() {
            if !out.iter().any(|(w, _)| w == word) {
                out.push((word.clone(), *hits));
            }
            if *rows {
                break;
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
    let step = (labels.len() / words.max(1)).max(1);
    for start in (0..labels.len()).step_by(step).take(words) {
        // The first word the analysis keeps, from this label on (a label that is a lone
        // symbol, such as "☧", or one run of 21 CJK letters, has none).
        let Some(word) = labels[start..].iter().find_map(|label| {
            label_words(label)
                .into_iter()
                .find(|w| !searcher.analyze(w).is_empty())
        }) else {
            break;
        };
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
        let timer = Instant::now();
        let solutions = solutions(index, reader, &text)?;
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
