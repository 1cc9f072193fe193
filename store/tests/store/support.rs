//! Helpers shared by the test modules: stores in temporary folders, dumps, parsing and
//! serializing documents, isomorphism checks, and a slice of real data.

use lodestone_store::load::{parse_into, BulkLoader, Input, LoadReport, ParseOptions, RdfFormat};
use lodestone_store::{Reader, Store, StoreCounts, StoreOptions};
use oxrdf::dataset::CanonicalizationAlgorithm;
use oxrdf::{Dataset, QuadRef};
use oxrdfio::{RdfParser, RdfSerializer};
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tempfile::TempDir;

/// Every syntax the loaders accept.
pub const FORMATS: [RdfFormat; 7] = [
    RdfFormat::NTriples,
    RdfFormat::NQuads,
    RdfFormat::Turtle,
    RdfFormat::TriG,
    RdfFormat::RdfXml,
    RdfFormat::N3,
    RdfFormat::JsonLd {
        profile: oxrdfio::JsonLdProfileSet::empty(),
    },
];

/// Options small enough that many stores can be open at once in one test process. Not
/// smaller: under a 128 MB budget the memtables of the 14 tables share 32 MB or less and are
/// flushed every few commits, and RocksDB's MANIFEST (its log of file changes, rotated only at
/// `max_manifest_file_size`) then outgrows the data that the reclamation test measures.
///
/// Every graph cleared whole is range-deleted, however small, so that the model tests cover
/// that path; `whole_graphs` also checks the default threshold. Graphs stay compact up to
/// three quads only, so that the model tests see graphs of both layouts and graphs passing
/// from one to the other.
pub fn options() -> StoreOptions {
    StoreOptions::default()
        .with_memory_budget(128 << 20)
        .with_range_deletion_min_quads(1)
        .with_compact_graph_max_quads(3)
}

/// [`options`] for a read-only open.
pub fn read_only_options() -> StoreOptions {
    StoreOptions {
        read_only: true,
        ..options()
    }
}

/// Opens (or creates) a store in `path`, panicking on error.
pub fn open(path: &Path) -> Store {
    Store::open(path, options()).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()))
}

/// A store in a temporary folder that is deleted after the store is closed.
pub struct TempStore {
    // Field order matters: the store closes before its folder is removed.
    store: Store,
    dir: TempDir,
}

impl TempStore {
    /// A new empty store.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary folder");
        let store = open(&dir.path().join("store"));
        Self { store, dir }
    }

    /// A new empty store opened with `options` instead of [`options`].
    pub fn with_options(options: StoreOptions) -> Self {
        let dir = tempfile::tempdir().expect("temporary folder");
        let store = Store::open(dir.path().join("store"), options).expect("store opens");
        Self { store, dir }
    }

    /// The store folder.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    /// A scratch folder next to the store, for input files and backups.
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// Closes the store and opens it again.
    pub fn reopen(self) -> Self {
        let Self { store, dir } = self;
        drop(store);
        let store = open(&dir.path().join("store"));
        Self { store, dir }
    }

    /// Closes the store, keeping the folder; reopen it with [`TempStore::from_parts`].
    pub fn close(self) -> TempDir {
        let Self { store, dir } = self;
        drop(store);
        dir
    }

    /// Opens the store of a folder left by [`TempStore::close`].
    pub fn from_parts(dir: TempDir) -> Self {
        let store = open(&dir.path().join("store"));
        Self { store, dir }
    }
}

impl Deref for TempStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

/// Every quad a reader sees.
pub fn dump_reader(reader: &Reader<'_>) -> Dataset {
    reader
        .all_quads()
        .collect::<Result<Dataset, _>>()
        .expect("reading every quad")
}

/// Every committed quad of a store.
pub fn dump(store: &Store) -> Dataset {
    dump_reader(&store.reader())
}

/// Counters of a store.
pub fn counts(store: &Store) -> StoreCounts {
    store.reader().counts().expect("counts")
}

/// Parses a document into a dataset.
pub fn parse(data: &[u8], format: RdfFormat) -> Dataset {
    RdfParser::from_format(format)
        .for_slice(data)
        .collect::<Result<Dataset, _>>()
        .unwrap_or_else(|e| panic!("parsing a {format} document: {e}"))
}

/// Writes quads in a syntax (triple syntaxes get the default graph only).
pub fn serialize<'a>(quads: impl IntoIterator<Item = QuadRef<'a>>, format: RdfFormat) -> Vec<u8> {
    let mut serializer = RdfSerializer::from_format(format).for_writer(Vec::new());
    for quad in quads {
        if format.supports_datasets() || quad.graph_name.is_default_graph() {
            serializer.serialize_quad(quad).expect("serializing");
        }
    }
    serializer.finish().expect("finishing the document")
}

/// The canonical form of a dataset: isomorphic datasets have equal canonical forms.
pub fn canonical(dataset: &Dataset) -> Dataset {
    let mut dataset = dataset.clone();
    dataset.canonicalize(CanonicalizationAlgorithm::Unstable);
    dataset
}

/// Fails unless the two datasets are equal up to blank node renaming.
#[track_caller]
pub fn assert_isomorphic(actual: &Dataset, expected: &Dataset, context: &str) {
    assert_eq!(actual.len(), expected.len(), "{context}: number of quads");
    let (actual, expected) = (canonical(actual), canonical(expected));
    if actual != expected {
        let missing: Vec<_> = expected
            .iter()
            .filter(|q| !actual.contains(*q))
            .take(5)
            .collect();
        let extra: Vec<_> = actual
            .iter()
            .filter(|q| !expected.contains(*q))
            .take(5)
            .collect();
        panic!("{context}: datasets differ\nmissing: {missing:#?}\nunexpected: {extra:#?}");
    }
}

/// Writes a file into `folder` and returns it as a loader input.
pub fn write_input(folder: &Path, name: &str, content: &[u8]) -> Input {
    let path = folder.join(name);
    std::fs::write(&path, content).expect("writing an input file");
    Input::File(path)
}

/// Bulk loads files with default options.
pub fn bulk_load(store: &Store, inputs: &[Input]) -> LoadReport {
    BulkLoader::new(store).load(inputs).expect("bulk load")
}

/// Loads documents through one transaction (the trickle path), each with its own blank node
/// scope, and commits.
pub fn transaction_load(store: &Store, documents: &[(&str, &[u8], RdfFormat)]) {
    let mut transaction = store.transaction().expect("transaction");
    for (name, data, format) in documents {
        let options = ParseOptions {
            format: Some(*format),
            ..ParseOptions::default()
        };
        parse_into(&mut transaction, *data, name, &options).expect("parse into a transaction");
    }
    transaction.commit().expect("commit");
}

/// A new store holding the first `lines` lines of the music data set, bulk-loaded.
pub fn bulk_loaded_music(lines: usize) -> TempStore {
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(
            store.scratch(),
            "music.nt",
            music(lines).as_bytes(),
        )],
    );
    store
}

/// The temporary folders (and standard input copies) of bulk loads left in a store folder.
pub fn load_folders(store_path: &Path) -> usize {
    std::fs::read_dir(store_path)
        .expect("store folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("load-tmp"))
        })
        .count()
}

/// Runs `f` on the `meta` table of a closed store, opened with RocksDB alone: tests turn a
/// store into what an older format wrote.
pub fn with_raw_meta<R>(
    path: &Path,
    f: impl FnOnce(&rocksdb::DB, &rocksdb::ColumnFamily) -> R,
) -> R {
    let families = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).expect("families");
    let db = rocksdb::DB::open_cf(&rocksdb::Options::default(), path, &families).expect("raw open");
    let meta = db.cf_handle("meta").expect("meta table");
    f(&db, meta)
}

/// The first `lines` lines of the real music data set (N-Triples, no blank nodes).
pub fn music(lines: usize) -> String {
    static ALL: OnceLock<String> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let file = std::fs::File::open("/work/shared/data/real/music.nt.zst").expect("music data");
        let mut text = String::new();
        zstd::stream::read::Decoder::new(file)
            .expect("zstd stream")
            .read_to_string(&mut text)
            .expect("decompressing the music data");
        text
    });
    let end = all
        .match_indices('\n')
        .nth(lines - 1)
        .map_or(all.len(), |(i, _)| i + 1);
    all[..end].to_owned()
}

/// The end of an N-Quads line in named graph `http://e/graph{n}`, or of a default graph
/// line for `None` (the generated products of the SPARQL property tests).
pub fn graph_suffix(graph: Option<u8>) -> String {
    graph
        .map(|g| format!(" <http://e/graph{g}>"))
        .unwrap_or_default()
}

/// Property test settings: 64 cases unless `PROPTEST_CASES` says otherwise, no regression
/// files written into the source tree (a failure prints its shrunk input).
pub fn proptest_config() -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// The solutions of `query` evaluated on the store's current state with `options`, as lines
/// (see [`solution_lines`]).
pub fn query_lines(
    store: &Store,
    query: &str,
    options: &lodestone_store::sparql::QueryOptions,
) -> Vec<String> {
    use lodestone_store::sparql::{evaluate_query, DatasetOverride, SparqlParser};
    let parsed = SparqlParser::new().parse_query(query).expect("query");
    let reader = store.reader();
    solution_lines(
        evaluate_query(&reader, &parsed, &DatasetOverride::default(), options).expect("evaluate"),
    )
}

/// The solutions of a query as lines `?v=term ?w=-`, in their order.
pub fn solution_lines(results: lodestone_store::sparql::QueryResults<'_>) -> Vec<String> {
    let lodestone_store::sparql::QueryResults::Solutions(solutions) = results else {
        panic!("not solutions");
    };
    let variables = solutions.variables().to_vec();
    solutions
        .map(|s| {
            let s = s.expect("solution");
            variables
                .iter()
                .map(|v| format!("{v}={}", s.get(v).map_or("-".into(), ToString::to_string)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The rows each quad pattern of `query`'s evaluated plan gave, for the patterns whose name
/// (`QuadPattern(?s <p> ?o)`) contains `pattern`, in the plan's order: how often the
/// optimizer made the store look a pattern up.
pub fn pattern_rows(
    store: &Store,
    query: &str,
    options: &lodestone_store::sparql::QueryOptions,
    pattern: &str,
) -> Vec<u64> {
    use lodestone_store::sparql::{explain_query, SparqlParser};
    fn walk(node: &serde_json::Value, pattern: &str, rows: &mut Vec<u64>) {
        let name = node["name"].as_str().unwrap_or_default();
        if name.starts_with("QuadPattern") && name.contains(pattern) {
            rows.push(node["number of results"].as_u64().unwrap_or_default());
        }
        for child in node["children"].as_array().into_iter().flatten() {
            walk(child, pattern, rows);
        }
    }
    let parsed = SparqlParser::new().parse_query(query).expect("query");
    let reader = store.reader();
    let (_, plan) = explain_query(&reader, &parsed, options).expect("explain");
    let plan: serde_json::Value = serde_json::from_str(&plan).expect("plan");
    let mut rows = Vec::new();
    walk(&plan["plan"], pattern, &mut rows);
    rows
}

/// Checks that `text` answers with the optimizer as without it (rows in any order), and
/// returns how many rows it gave.
pub fn answers_as_written(store: &Store, text: &str) -> usize {
    let options = lodestone_store::sparql::QueryOptions::default();
    let mut optimized = query_lines(store, text, &options);
    let mut as_written = query_lines(store, text, &options.clone().without_optimizations());
    optimized.sort();
    as_written.sort();
    assert_eq!(optimized, as_written, "{text}");
    optimized.len()
}
