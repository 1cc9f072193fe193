//! Files of the suite: `file:` URLs to paths and back, reading documents into `oxrdf`
//! graphs and datasets, and loading test data into a fresh store.
//!
//! Every document is parsed with its own `file:` URL as base IRI, so relative IRIs in data,
//! queries and expected results resolve the same way.

use lodestone_store::load::{format_from_path, parse_into, ParseOptions};
use lodestone_store::{Store, StoreOptions};
use oxrdf::{Dataset, Graph, GraphName, NamedNode};
use oxrdfio::RdfParser;
use std::fmt::Display;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Why a test failed, in one or a few lines.
pub type Failure = String;

/// Adds what was being done to an error.
pub trait Context<T> {
    /// Prefixes the error with `what`.
    fn context(self, what: impl Display) -> Result<T, Failure>;
}

impl<T, E: Display> Context<T> for Result<T, E> {
    fn context(self, what: impl Display) -> Result<T, Failure> {
        self.map_err(|e| format!("{what}: {e}"))
    }
}

/// The `file:` URL of an absolute path. Only spaces are escaped: a suite path with `%`, `#`
/// or `?` in it is refused rather than turned into a wrong URL.
pub fn path_to_url(path: &Path) -> String {
    let path = path
        .to_str()
        .unwrap_or_else(|| panic!("the W3C suite path {} is not UTF-8", path.display()));
    assert!(
        !path.contains(['%', '#', '?']),
        "the W3C suite path {path} needs URL escaping; move the suite or set LODESTONE_W3C_DIR"
    );
    format!("file://{}", path.replace(' ', "%20"))
}

/// The path a `file:` URL points to.
pub fn url_to_path(url: &str) -> Result<PathBuf, Failure> {
    url.strip_prefix("file://")
        .map(|path| PathBuf::from(path.replace("%20", " ")))
        .ok_or_else(|| format!("{url} is not a file: URL of the suite"))
}

/// The whole text of a suite file.
pub fn read_text(url: &str) -> Result<String, Failure> {
    std::fs::read_to_string(url_to_path(url)?).context(format!("reading {url}"))
}

/// An open suite file.
pub fn open(url: &str) -> Result<BufReader<File>, Failure> {
    Ok(BufReader::new(
        File::open(url_to_path(url)?).context(format!("opening {url}"))?,
    ))
}

/// The RDF syntax of a file, from its extension.
fn parser_for(url: &str) -> Result<RdfParser, Failure> {
    let format =
        format_from_path(&url_to_path(url)?).ok_or_else(|| format!("{url}: unknown RDF syntax"))?;
    RdfParser::from_format(format)
        .with_base_iri(url)
        .context(format!("base IRI {url}"))
}

/// Parses an RDF document into a graph (its default graph).
pub fn read_graph(url: &str) -> Result<Graph, Failure> {
    let mut graph = Graph::new();
    for quad in parser_for(url)?.for_reader(open(url)?) {
        graph.insert(&quad.context(format!("parsing {url}"))?.into());
    }
    Ok(graph)
}

/// Parses an RDF document into `dataset`, its triples in `graph`; blank nodes are renamed
/// so that two documents never share one.
pub fn read_into_dataset(
    url: &str,
    graph: GraphName,
    dataset: &mut Dataset,
) -> Result<(), Failure> {
    let parser = parser_for(url)?
        .with_default_graph(graph)
        .rename_blank_nodes();
    for quad in parser.for_reader(open(url)?) {
        dataset.insert(&quad.context(format!("parsing {url}"))?);
    }
    Ok(())
}

/// Data files of a test: some for the default graph, some for named graphs.
#[derive(Debug, Clone, Default)]
pub struct Fixture {
    /// Files whose triples go to the default graph.
    pub default: Vec<String>,
    /// Files with the name of the graph their triples go to.
    pub named: Vec<(NamedNode, String)>,
}

impl Fixture {
    fn graphs(&self) -> impl Iterator<Item = (GraphName, &str)> {
        let default = self
            .default
            .iter()
            .map(|url| (GraphName::DefaultGraph, url.as_str()));
        let named = self
            .named
            .iter()
            .map(|(name, url)| (name.clone().into(), url.as_str()));
        default.chain(named)
    }

    /// The fixture as an in-memory dataset (the expected state of an update test).
    pub fn to_dataset(&self) -> Result<Dataset, Failure> {
        let mut dataset = Dataset::new();
        for (graph, url) in self.graphs() {
            read_into_dataset(url, graph, &mut dataset)?;
        }
        Ok(dataset)
    }
}

/// A store in a temporary folder, deleted when dropped.
pub struct TempStore {
    /// The open store (dropped before its folder).
    pub store: Store,
    _dir: TempDir,
}

impl TempStore {
    /// A new store holding the fixture's data, committed in one transaction.
    pub fn with_fixture(fixture: &Fixture) -> Result<Self, Failure> {
        let dir = tempfile::tempdir().context("creating a temporary folder")?;
        // The tests hold a few hundred quads: a small memory budget keeps opening cheap.
        let options = StoreOptions::default().with_memory_budget(8 << 20);
        let store = Store::open(dir.path(), options).context("opening a store")?;
        let mut transaction = store.transaction().context("starting a transaction")?;
        for (graph, url) in fixture.graphs() {
            let path = url_to_path(url)?;
            let options = ParseOptions {
                format: format_from_path(&path),
                graph: Some(graph),
                base_iri: Some(url.to_owned()),
                lenient: false,
            };
            parse_into(&mut transaction, open(url)?, url, &options)
                .context(format!("loading {url}"))?;
        }
        transaction.commit().context("committing the test data")?;
        Ok(Self { store, _dir: dir })
    }

    /// Everything the store holds, as a dataset.
    pub fn to_dataset(&self) -> Result<Dataset, Failure> {
        let reader = self.store.reader();
        let mut dataset = Dataset::new();
        for quad in reader.all_quads() {
            dataset.insert(&quad.context("reading the store back")?);
        }
        Ok(dataset)
    }
}
