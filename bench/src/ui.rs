//! `ui`: server time per browsing page on a real dataset.
//!
//! Loads the dataset (leniently: real dumps have a few bad lines) into a store folder once
//! (kept for later runs), draws inputs from the data with a fixed seed — words from English
//! labels, classes with instances, labelled entities — then starts the real `lodestone serve`
//! on that folder, waits for its text index, and requests each page type in turn as a browser
//! would (`Accept: text/html`, one client on 127.0.0.1), timing each response to its last byte.
//! Inputs repeat once the drawn ones run out, so later requests of a type may hit the facet
//! cache; the number of distinct inputs is printed with each figure.

use crate::bsbm::select;
use crate::process::{lodestone_binary, ServerProcess};
use crate::rng::Rng;
use anyhow::{bail, Context};
use lodestone_store::load::{BulkLoader, Input, ParseOptions};
use lodestone_store::model::Term;
use lodestone_store::{Store, StoreOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Options of `lodestone-bench ui`.
#[derive(Debug, clap::Args)]
pub(crate) struct UiArgs {
    /// Store folder; filled from --dataset when empty.
    #[arg(long, default_value = "target/bench-ui-store")]
    data: PathBuf,
    /// Dataset loaded into an empty store.
    #[arg(long, default_value = "../shared/data/real/nomisma.nt.zst")]
    dataset: PathBuf,
    /// Requests per page type.
    #[arg(long, default_value_t = 300)]
    requests: usize,
    /// Seed of the draws.
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

/// Entities with an English or untagged `skos:prefLabel` or `rdfs:label` (a word of the label,
/// 4+ letters, is a search input).
const LABELLED: &str = "SELECT ?s ?label WHERE { \
    VALUES ?p { <http://www.w3.org/2004/02/skos/core#prefLabel> \
                <http://www.w3.org/2000/01/rdf-schema#label> } \
    ?s ?p ?label . \
    FILTER(lang(?label) = \"\" || langMatches(lang(?label), \"en\")) } LIMIT 20000";

/// The inputs drawn from the data.
struct Draws {
    words: Vec<String>,
    classes: Vec<String>,
    entities: Vec<String>,
}

fn draw(store: &Store, args: &UiArgs) -> anyhow::Result<Draws> {
    let reader = store.reader();
    let mut labelled: Vec<(String, String)> = Vec::new();
    for row in select(&reader, LABELLED)? {
        if let [Some(Term::NamedNode(s)), Some(Term::Literal(label))] = row.as_slice() {
            labelled.push((s.as_str().to_owned(), label.value().to_owned()));
        }
    }
    if labelled.is_empty() {
        bail!("no entity has an English or untagged skos:prefLabel or rdfs:label");
    }
    let mut rng = Rng::new(args.seed);
    let mut words = Vec::new();
    let mut entities = Vec::new();
    for _ in 0..args.requests {
        let (entity, label) = rng.pick(&labelled);
        entities.push(entity.clone());
        let candidates: Vec<&str> = label
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
            .collect();
        if !candidates.is_empty() {
            words.push(rng.pick(&candidates).to_lowercase());
        }
    }
    words.sort();
    words.dedup();
    entities.sort();
    entities.dedup();
    let mut classes = Vec::new();
    for (class, _) in reader.top_classes(usize::MAX)? {
        if let Term::NamedNode(class) = reader.term(class)? {
            classes.push(class.into_string());
        }
    }
    Ok(Draws {
        words,
        classes,
        entities,
    })
}

fn query(pairs: &[(&str, &str)]) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        query.append_pair(key, value);
    }
    query.finish()
}

/// Times `requests` GETs cycling over `paths`; every answer must be 200.
fn time_pages(
    client: &reqwest::blocking::Client,
    server: &ServerProcess,
    paths: &[String],
    requests: usize,
) -> anyhow::Result<Vec<f64>> {
    let mut times = Vec::with_capacity(requests);
    for i in 0..requests {
        let path = &paths[i % paths.len()];
        let start = Instant::now();
        let response = client
            .get(server.url(path))
            .header("Accept", "text/html")
            .send()?;
        let status = response.status();
        response.bytes()?;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        if !status.is_success() {
            bail!("{path}: {status}");
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let last = sorted.len().saturating_sub(1);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let at = ((last as f64) * p).round() as usize;
    sorted.get(at.min(last)).copied().unwrap_or(0.0)
}

/// Waits until the server's text index answers searches.
fn wait_for_index(
    client: &reqwest::blocking::Client,
    server: &ServerProcess,
    word: &str,
) -> anyhow::Result<Duration> {
    let start = Instant::now();
    let url = server.url(&format!("/api/search?{}", query(&[("q", word)])));
    loop {
        let ready = client
            .get(&url)
            .send()
            .is_ok_and(|r| r.status().is_success());
        if ready {
            return Ok(start.elapsed());
        }
        if start.elapsed() > Duration::from_secs(600) {
            bail!("the text index did not come up within 10 minutes");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Runs the benchmark and prints its figures.
pub(crate) fn run(args: &UiArgs) -> anyhow::Result<()> {
    let draws = {
        let store = Store::open(&args.data, StoreOptions::default())
            .with_context(|| format!("cannot open {}", args.data.display()))?;
        if store.reader().counts()?.quads == 0 {
            let start = Instant::now();
            let input = Input::from_arg(&args.dataset.to_string_lossy());
            let options = ParseOptions {
                lenient: true,
                ..ParseOptions::default()
            };
            let report = BulkLoader::new(&store)
                .with_parse_options(options)
                .load(&[input])?;
            println!(
                "loaded {} quads from {} in {:.1} s",
                report.quads_added,
                args.dataset.display(),
                start.elapsed().as_secs_f64()
            );
        }
        println!(
            "store: {} quads ({})",
            store.reader().counts()?.quads,
            args.data.display()
        );
        draw(&store, args)?
    };
    let (Some(word), Some(class), Some(entity)) = (
        draws.words.first(),
        draws.classes.first(),
        draws.entities.first(),
    ) else {
        bail!("nothing to draw pages from");
    };
    let server = ServerProcess::start(&lodestone_binary()?, &args.data, &["--no-sample"])?;
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()?;
    let waited = wait_for_index(&client, &server, word)?;
    println!(
        "server {} up in {:.1} s, text index ready {:.1} s later",
        server.base,
        server.startup.as_secs_f64(),
        waited.as_secs_f64()
    );
    let paths = |make: &dyn Fn(&str) -> String, inputs: &[String]| -> Vec<String> {
        inputs.iter().map(|i| make(i)).collect()
    };
    let pages: Vec<(&str, Vec<String>)> = vec![
        ("home /", vec!["/".to_owned()]),
        (
            "search with words",
            paths(&|w| format!("/search?{}", query(&[("q", w)])), &draws.words),
        ),
        (
            "search narrowed by class",
            paths(
                &|c| format!("/search?{}", query(&[("class", c)])),
                &draws.classes,
            ),
        ),
        (
            "lookup of an IRI",
            paths(
                &|e| format!("/lookup?{}", query(&[("uri", e)])),
                &draws.entities,
            ),
        ),
        (
            "lookup by words",
            paths(&|w| format!("/lookup?{}", query(&[("q", w)])), &draws.words),
        ),
        (
            "entity page",
            paths(
                &|e| format!("/describe?{}", query(&[("uri", e)])),
                &draws.entities,
            ),
        ),
        ("sparql page (editor)", vec!["/sparql".to_owned()]),
        (
            "sparql page with a query",
            vec![format!(
                "/sparql?{}",
                query(&[(
                    "query",
                    &format!("SELECT ?s WHERE {{ ?s a <{class}> }} LIMIT 10")
                )])
            )],
        ),
        ("status", vec!["/status".to_owned()]),
    ];
    println!(
        "{:<26} {:>9} {:>9} {:>9} {:>9}  distinct",
        "page", "requests", "p50 ms", "p99 ms", "max ms"
    );
    let mut over = Vec::new();
    for (name, list) in &pages {
        let times = time_pages(&client, &server, list, args.requests)?;
        let p50 = percentile(&times, 0.5);
        println!(
            "{:<26} {:>9} {:>9.1} {:>9.1} {:>9.1}  {}",
            name,
            times.len(),
            p50,
            percentile(&times, 0.99),
            percentile(&times, 1.0),
            list.len()
        );
        if p50 > 50.0 {
            over.push(*name);
        }
    }
    println!("example inputs: word {word:?}, class <{class}>, entity <{entity}>");
    if over.is_empty() {
        println!("every page type meets p50 <= 50 ms");
    } else {
        println!("p50 over 50 ms: {}", over.join(", "));
    }
    server.terminate()
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn percentiles_of_sorted_times() {
        let times: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&times, 0.5), 51.0);
        assert_eq!(percentile(&times, 0.99), 99.0);
        assert_eq!(percentile(&times, 1.0), 100.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
