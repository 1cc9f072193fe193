//! Bulk loads into stores that already hold data, and bulk loads mixed with transactions:
//! duplicates are stored and counted once, the dictionary is shared, statistics stay exact.

use crate::model::{apply, op, quad, Op, Probe};
use crate::oracle::{check_store, Model};
use crate::support::{
    assert_isomorphic, bulk_load, counts, dump, music, parse, proptest_config, serialize,
    write_input, TempStore,
};
use lodestone_store::load::{BulkLoader, LoadReport, ParseOptions, RdfFormat};
use oxrdf::{Dataset, GraphName, NamedNode, Quad, Term};
use proptest::prelude::*;

fn lines(text: &str, skip: usize, take: usize) -> String {
    text.lines()
        .skip(skip)
        .take(take)
        .flat_map(|l| [l, "\n"])
        .collect()
}

#[test]
fn bulk_load_into_a_non_empty_store_counts_duplicates_once() {
    let all = music(3_000);
    let (first, second) = (lines(&all, 0, 2_000), lines(&all, 1_000, 2_000));
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(store.scratch(), "first.nt", first.as_bytes())],
    );
    let first_dataset = parse(first.as_bytes(), RdfFormat::NTriples);
    check_store(&store, &Model::from_dataset(&first_dataset), &[]);
    let probe = first_dataset
        .iter()
        .next()
        .expect("a quad")
        .subject
        .into_owned();
    let probe_id = store
        .reader()
        .term_id(probe.as_ref().into())
        .expect("lookup");

    let report = bulk_load(
        &store,
        &[write_input(store.scratch(), "second.nt", second.as_bytes())],
    );
    let expected = parse(lines(&all, 0, 3_000).as_bytes(), RdfFormat::NTriples);
    let new = expected.len() - first_dataset.len();
    assert_eq!(
        report.quads_added, new as u64,
        "only the quads not yet stored are added"
    );
    assert_eq!(dump(&store), expected);
    check_store(&store, &Model::from_dataset(&expected), &[]);
    let reader = store.reader();
    assert_eq!(
        reader.term_id(probe.as_ref().into()).expect("lookup"),
        probe_id,
        "ids are stable"
    );
}

#[test]
fn loading_the_same_file_again_changes_nothing() {
    let store = TempStore::new();
    let input = write_input(store.scratch(), "music.nt", music(500).as_bytes());
    bulk_load(&store, std::slice::from_ref(&input));
    let (before, sequence) = (counts(&store), store.sequence());
    let report = bulk_load(&store, &[input]);
    assert_eq!(report.quads_added, 0);
    assert_eq!(counts(&store), before);
    assert_eq!(store.sequence(), sequence, "nothing to commit");
}

#[test]
fn bulk_load_into_a_named_graph() {
    let store = TempStore::new();
    let graph = NamedNode::new_unchecked("http://example.com/graph");
    let input = write_input(store.scratch(), "music.nt", music(300).as_bytes());
    let options = ParseOptions {
        graph: Some(graph.clone().into()),
        ..ParseOptions::default()
    };
    BulkLoader::new(&store)
        .with_parse_options(options)
        .load(&[input])
        .expect("load");
    let expected: Dataset = parse(music(300).as_bytes(), RdfFormat::NTriples)
        .iter()
        .map(|q| {
            Quad::new(
                q.subject.into_owned(),
                q.predicate.into_owned(),
                q.object.into_owned(),
                graph.clone(),
            )
        })
        .collect();
    assert_eq!(dump(&store), expected);
    check_store(&store, &Model::from_dataset(&expected), &[]);
}

/// One step of a mixed workload.
#[derive(Clone)]
pub enum Step {
    Transaction(Vec<Op>, bool),
    /// Bulk loads these quads as an N-Quads file, in chunks of the given size.
    Bulk(Vec<Quad>, usize),
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Transaction(ops, commit) => write!(f, "Transaction({ops:?}, commit: {commit})"),
            Self::Bulk(quads, chunk) => {
                let quads: Vec<String> = quads.iter().map(ToString::to_string).collect();
                write!(f, "Bulk({quads:?}, chunk: {chunk})")
            }
        }
    }
}

fn has_blank_node(quad: &Quad) -> bool {
    quad.subject.is_blank_node()
        || matches!(quad.object, Term::BlankNode(_))
        || matches!(quad.graph_name, GraphName::BlankNode(_))
}

impl Step {
    /// Runs the step on `store` and on `model`; for a bulk load, returns the quads the load
    /// reported new and the quads new to the model.
    pub fn run(&self, store: &TempStore, model: &mut Model, index: usize) -> Option<(u64, u64)> {
        match self {
            Step::Transaction(ops, commit) => {
                let mut pending = model.clone();
                let mut transaction = store.transaction().expect("transaction");
                for op in ops {
                    apply(&mut transaction, &mut pending, op);
                }
                if *commit {
                    transaction.commit().expect("commit");
                    *model = pending;
                }
                None
            }
            Step::Bulk(quads, chunk) => {
                let data = serialize(quads.iter().map(Quad::as_ref), RdfFormat::NQuads);
                let input = write_input(store.scratch(), &format!("step{index}.nq"), &data);
                let report = BulkLoader::new(store)
                    .with_chunk_quads(*chunk)
                    .load(&[input])
                    .expect("bulk load");
                let added = quads.iter().filter(|q| model.insert(q)).count();
                Some((report.quads_added, added as u64))
            }
        }
    }
}

pub fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (prop::collection::vec(op(), 1..8), prop::bool::weighted(0.8))
            .prop_map(|(ops, commit)| Step::Transaction(ops, commit)),
        // Blank nodes in files are scoped to the file, so the model could not name them.
        (prop::collection::vec(quad(), 0..20), 1..30_usize).prop_map(|(quads, chunk)| {
            Step::Bulk(
                quads.into_iter().filter(|q| !has_blank_node(q)).collect(),
                chunk,
            )
        }),
    ]
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn bulk_loads_and_transactions_mixed_agree_with_the_model(
        steps in prop::collection::vec(step(), 1..6),
        probes in prop::collection::vec(quad().prop_map(Probe), 4),
    ) {
        let probes: Vec<Quad> = probes.into_iter().map(|p| p.0).collect();
        let store = TempStore::new();
        let mut model = Model::default();
        for (i, step) in steps.iter().enumerate() {
            if let Some((reported, added)) = step.run(&store, &mut model, i) {
                prop_assert_eq!(reported, added);
            }
            check_store(&store, &model, &probes);
        }
    }
}

#[test]
fn compressed_inputs_load_like_plain_ones() {
    let data = music(200);
    let expected = parse(data.as_bytes(), RdfFormat::NTriples);
    let gzip = {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, data.as_bytes()).expect("gzip");
        encoder.finish().expect("gzip")
    };
    let bzip2 = {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        std::io::Write::write_all(&mut encoder, data.as_bytes()).expect("bzip2");
        encoder.finish().expect("bzip2")
    };
    let zstd = zstd::encode_all(data.as_bytes(), 3).expect("zstd");
    for (name, bytes) in [
        ("music.nt.gz", gzip),
        ("music.nt.bz2", bzip2),
        ("music.nt.zst", zstd),
    ] {
        let store = TempStore::new();
        let report = bulk_load(&store, &[write_input(store.scratch(), name, &bytes)]);
        assert_eq!(report.quads_added, expected.len() as u64, "{name}");
        assert_eq!(dump(&store), expected, "{name}");
    }
}

const STDIN_STORE_ENV: &str = "LODESTONE_TEST_STDIN_STORE";

/// The child side of `bulk_load_reads_standard_input`: loads its standard input.
#[test]
#[ignore = "run as a child process by bulk_load_reads_standard_input"]
fn child_stdin_loader() {
    let path = std::env::var(STDIN_STORE_ENV).expect("run by bulk_load_reads_standard_input");
    let store = lodestone_store::Store::open(path, crate::support::options()).expect("open");
    let options = ParseOptions {
        format: Some(RdfFormat::NTriples),
        ..ParseOptions::default()
    };
    BulkLoader::new(&store)
        .with_parse_options(options)
        .with_chunk_quads(5_000) // several chunks: standard input is validated, then read again
        .load(&[lodestone_store::load::Input::Stdin])
        .expect("load");
}

#[test]
fn bulk_load_reads_standard_input() {
    use std::process::{Command, Stdio};
    let store = TempStore::new();
    let path = store.path();
    let dir = store.close();
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "loading::child_stdin_loader",
            "--ignored",
            "--test-threads=1",
        ])
        .env(STDIN_STORE_ENV, &path)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning the loader");
    let mut stdin = child.stdin.take().expect("child stdin");
    // More statements than one parse batch, so that the load is written in chunks.
    let data = music(20_000);
    std::io::Write::write_all(&mut stdin, data.as_bytes()).expect("writing stdin");
    drop(stdin);
    assert!(
        child.wait().expect("loader").success(),
        "the stdin load failed"
    );
    let store = TempStore::from_parts(dir);
    assert_eq!(dump(&store), parse(data.as_bytes(), RdfFormat::NTriples));
    assert!(store.sequence() > 1, "written in several chunks");
    for entry in std::fs::read_dir(store.path()).expect("store folder") {
        let name = entry.expect("entry").file_name();
        assert!(
            !name.to_string_lossy().starts_with("load-tmp"),
            "{name:?} left behind"
        );
    }
}

/// Loads `data` as N-Triples in chunks of about `chunk_quads` quads (a parse batch at least),
/// with a budget of 1 MB, so that the cache of known terms is far too small for the input.
fn load_in_small_chunks(
    store: &TempStore,
    name: &str,
    data: &str,
    chunk_quads: usize,
) -> LoadReport {
    let input = write_input(store.scratch(), name, data.as_bytes());
    BulkLoader::new(store)
        .with_memory_budget(1 << 20)
        .with_chunk_quads(chunk_quads)
        .load(&[input])
        .expect("bulk load")
}

/// A load in many chunks with a term cache far too small for the input: terms that recur in
/// later chunks after the cache dropped them (IRIs, and literals long enough to be keyed by
/// hash) are found in the chunks staged before, so each term keeps one id and one entry.
#[test]
fn terms_recurring_across_chunks_keep_one_id_when_the_term_cache_is_full() {
    let long = "a literal long enough for its dictionary key to be a hash ".repeat(3);
    let mut data = String::new();
    for i in 0..3_000 {
        // Unique long literals fill the cache; the shared ones recur in every chunk.
        data.push_str(&format!(
            "<http://example.com/s{i}> <http://example.com/p> \"{long}{i}\" .\n\
             <http://example.com/s{i}> <http://example.com/shared> \"{long}\" .\n\
             <http://example.com/s{i}> <http://example.com/link> <http://example.com/hub{}> .\n",
            i % 7
        ));
    }
    let expected = parse(data.as_bytes(), RdfFormat::NTriples);
    let store = TempStore::new();
    let report = load_in_small_chunks(&store, "recurring.nt", &data, 500);
    assert!(report.chunks >= 2, "{} chunks", report.chunks);
    assert_eq!(report.quads_added, expected.len() as u64);
    assert_eq!(dump(&store), expected);
    // s0…s2999, three predicates, 3,000 unique literals, the shared literal, seven hubs.
    assert_eq!(counts(&store).dictionary_terms, 3_000 + 3 + 3_000 + 1 + 7);
}

#[test]
fn quads_repeated_in_a_later_chunk_of_a_new_load_count_once() {
    // 20,000 quads among known terms, then all of them again: the repeats fall in later
    // chunks, where every term is an earlier chunk's, and must be found there.
    let mut block = String::new();
    for i in 0..20_000 {
        block.push_str(&format!(
            "<http://example.com/s{}> <http://example.com/p> <http://example.com/o{}> .\n",
            i / 200,
            i % 200
        ));
    }
    let data = format!("{block}{block}");
    let store = TempStore::new();
    let report = load_in_small_chunks(&store, "repeated.nt", &data, 500);
    assert!(report.chunks >= 3, "{} chunks", report.chunks);
    assert_eq!(report.quads_added, 20_000);
    let counts = counts(&store);
    assert_eq!(counts.quads, 20_000);
    assert_eq!(counts.subjects, 100);
    assert_eq!(dump(&store), parse(block.as_bytes(), RdfFormat::NTriples));
}

/// A load of more chunks than the staged `id2term` and `spog` gather before their first merge
/// (see `load::staging`): a long literal (keyed by hash, never cached) and every quad recur in
/// every chunk, so the later chunks find them in files both before and after that merge.
#[test]
fn a_load_of_more_chunks_than_the_staged_tables_merge_keeps_one_id_and_counts_once() {
    let literal = "a literal too long for the cache of known terms, keyed by a hash ".repeat(3);
    let mut block = String::new();
    for s in 0..1_000 {
        let subject =
            format!("<http://example.com/a-subject-long-enough-to-be-keyed-by-a-hash/{s}>");
        for o in 0..19 {
            block.push_str(&format!(
                "{subject} <http://example.com/p> <http://example.com/o{o}> .\n"
            ));
        }
        block.push_str(&format!(
            "{subject} <http://example.com/label> \"{literal}{}\" .\n",
            s % 10
        ));
    }
    let data = block.repeat(110);
    let store = TempStore::new();
    let report = load_in_small_chunks(&store, "many-chunks.nt", &data, 1);
    assert!(report.chunks > 128, "{} chunks", report.chunks);
    assert_eq!(report.quads_added, 20_000);
    let counts = counts(&store);
    assert_eq!(counts.quads, 20_000);
    // 1,000 subjects, two predicates, 19 objects, ten literals.
    assert_eq!(counts.dictionary_terms, 1_000 + 2 + 19 + 10);
    assert_eq!(dump(&store), parse(block.as_bytes(), RdfFormat::NTriples));
}

/// Four rounds of N-Quads, each longer than a parse batch (so a chunk of its own at least):
/// the subjects, literals, graphs and (with `blank_nodes`) blank nodes of each round, and
/// every 50th of the round before used again as subject, object or graph.
fn rounds_reaching_back(blank_nodes: bool) -> String {
    let e = "http://example.com";
    let mut data = String::new();
    for round in 0..4 {
        for i in 0..8_200 {
            let graph = format!("<{e}/g{round}-{}>", i / 1_000);
            let node = |r: i32| {
                if blank_nodes {
                    format!("_:b{r}-{i}")
                } else {
                    format!("<{e}/n{r}-{i}>")
                }
            };
            data.push_str(&format!(
                "<{e}/s{round}-{i}> <{e}/label> \"label {round} {i}\" {graph} .\n\
                 {} <{e}/about> <{e}/s{round}-{i}> {graph} .\n",
                node(round)
            ));
            if round > 0 && i % 50 == 0 {
                let before = round - 1;
                data.push_str(&format!(
                    "<{e}/s{before}-{i}> <{e}/next> <{e}/s{round}-{i}> .\n\
                     <{e}/s{round}-{i}> <{e}/label> \"label {before} {i}\" <{e}/g{before}-0> .\n\
                     {} <{e}/again> \"{round}\" .\n",
                    node(before)
                ));
            }
        }
    }
    data
}

/// A store with `data` loaded in chunks of one quad (four at least), and the quads of `data`.
fn load_rounds(data: &str) -> (TempStore, Dataset) {
    let store = TempStore::new();
    let input = write_input(store.scratch(), "reaching.nq", data.as_bytes());
    let report = BulkLoader::new(&store)
        .with_memory_budget(1 << 20)
        .with_chunk_quads(1)
        .load(&[input])
        .expect("bulk load");
    assert!(report.chunks >= 4, "{} chunks", report.chunks);
    let expected = parse(data.as_bytes(), RdfFormat::NQuads);
    assert_eq!(report.quads_added, expected.len() as u64);
    (store, expected)
}

/// Later chunks add quads, counters and graph positions keyed by terms an earlier chunk
/// minted (its subjects, literals and graphs): the files that chunk wrote of its own terms'
/// entries, which the load otherwise takes as they are, are merged with the later ones,
/// whose counters win. Subjects, literals and graphs only one chunk uses stay in its files.
#[test]
fn entries_keyed_by_an_earlier_chunks_terms_merge_with_its_files() {
    let (store, expected) = load_rounds(&rounds_reaching_back(false));
    check_store(&store, &Model::from_dataset(&expected), &[]);
}

/// The same with blank nodes, which the store numbers from their own counter: the store
/// reads back the same graph, and the counters of the nodes an earlier chunk minted hold
/// every later use.
#[test]
fn blank_nodes_an_earlier_chunk_minted_merge_with_its_files() {
    let (store, expected) = load_rounds(&rounds_reaching_back(true));
    assert_isomorphic(&dump(&store), &expected, "blank-node rounds");
    let counts = counts(&store);
    // Each round's nodes are subjects of `about`; every 50th of the first three of `again`.
    assert_eq!(counts.subjects, 4 * 8_200 * 2);
    assert_eq!(counts.quads, expected.len() as u64);
    let reader = store.reader();
    let again = reader
        .term_id(
            NamedNode::new_unchecked("http://example.com/again")
                .as_ref()
                .into(),
        )
        .expect("look-up")
        .expect("known");
    assert_eq!(reader.usage(again).expect("usage").as_predicate, 3 * 164);
    // The nodes used again: subjects of `about` in their round's graph and of `again` in
    // the default graph, the last counted by a later chunk.
    let mut reused = 0;
    for quad in reader.quads_for_pattern(None, Some(again), None, None) {
        let usage = reader.usage(quad.expect("quad").subject).expect("usage");
        assert_eq!((usage.as_subject, usage.graphs), (2, 2));
        reused += 1;
    }
    assert_eq!(reused, 3 * 164);
}

/// Every term's counters as `reader` has them: its uses, and its positions per graph by the
/// graph's name.
fn term_counters(reader: &lodestone_store::Reader<'_>, terms: &[Term]) -> Vec<String> {
    terms
        .iter()
        .map(|term| {
            let id = reader
                .term_id(term.as_ref())
                .expect("look-up")
                .expect("a loaded term");
            let mut graphs: Vec<String> = reader
                .term_graphs(id, usize::MAX)
                .expect("term graphs")
                .into_iter()
                .map(|u| {
                    let name = if u.graph.is_default_graph() {
                        "default".to_owned()
                    } else {
                        reader.term(u.graph).expect("graph name").to_string()
                    };
                    format!("{name}={}", u.positions)
                })
                .collect();
            graphs.sort();
            let usage = reader.usage(id).expect("usage");
            format!("{term}: {usage:?} in {graphs:?}")
        })
        .collect()
}

/// In a load of many chunks into an empty store each chunk writes its own counts of use and
/// of terms in graphs, and the load's merge sums them (`counter_run`): a term used in many
/// chunks and graphs, a graph named by a term used in its quads too, quads repeated in later
/// chunks; every counter is the one a load in one chunk writes.
#[test]
fn counters_summed_over_many_chunks_are_those_of_one_chunk() {
    let mut data = String::new();
    for i in 0..160_000 {
        let graph = match i % 4 {
            0 => String::new(),
            g => format!(" <http://example.com/g{g}>"),
        };
        let object = match i % 3 {
            0 => format!("<http://example.com/s{}>", i % 50),
            1 => format!("\"{}\"", i % 7),
            _ => "<http://example.com/g2>".to_owned(),
        };
        data.push_str(&format!(
            "<http://example.com/s{}> <http://example.com/p{}> {object}{graph} .\n",
            i % 400,
            i % 5
        ));
        if i % 10 == 0 {
            // A quad of an early chunk again.
            data.push_str(&format!(
                "<http://example.com/s{}> <http://example.com/p0> \"again\" .\n",
                i % 13
            ));
        }
    }
    let loaded = parse(data.as_bytes(), RdfFormat::NQuads);
    let mut terms: Vec<Term> = Vec::new();
    for quad in &loaded {
        terms.push(quad.subject.into_owned().into());
        terms.push(quad.predicate.into_owned().into());
        terms.push(quad.object.into_owned());
        if let oxrdf::GraphNameRef::NamedNode(graph) = quad.graph_name {
            terms.push(graph.into_owned().into());
        }
    }
    terms.sort_by_key(ToString::to_string);
    terms.dedup();

    let chunked = TempStore::new();
    let report = load_in_small_chunks(&chunked, "data.nq", &data, 1);
    assert!(report.chunks >= 8, "{} chunks", report.chunks);
    let whole = TempStore::new();
    let report = bulk_load(
        &whole,
        &[write_input(whole.scratch(), "data.nq", data.as_bytes())],
    );
    assert_eq!(report.chunks, 1);
    let expected = term_counters(&whole.reader(), &terms);
    assert_eq!(term_counters(&chunked.reader(), &terms), expected);
    // The graph also used as an object has both counts.
    let graph = expected
        .iter()
        .find(|t| t.starts_with("<http://example.com/g2>:"))
        .expect("the graph's counters");
    assert!(
        !graph.contains("as_graph: 0,") && !graph.contains("as_object: 0,"),
        "{graph}"
    );
    assert_eq!(counts(&chunked), counts(&whole));
}
