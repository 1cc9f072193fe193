//! Reading the W3C test manifests.
//!
//! The entry manifest's `mf:include` lists are followed depth first; every `mf:entries` item
//! becomes a [`Test`] with its files resolved to `file:` URLs. Nothing here decides whether a
//! test runs: that is the skip list's job.

use crate::fixtures::{read_graph, Context, Failure, Fixture};
use crate::vocab::{dawgt, mf, qt, sd, ut};
use oxrdf::vocab::{rdf, rdfs};
use oxrdf::{Graph, NamedNode, NamedNodeRef, NamedOrBlankNodeRef, TermRef};

/// What a test checks, from its `rdf:type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestKind {
    /// A query is run over data and its results compared.
    QueryEvaluation,
    /// An update is applied to data and the resulting dataset compared.
    UpdateEvaluation,
    /// A query whose results are compared in the lossy CSV format.
    CsvResultFormat,
    /// A query that must parse.
    PositiveSyntax,
    /// A query that must not parse.
    NegativeSyntax,
    /// An update that must parse.
    PositiveUpdateSyntax,
    /// An update that must not parse.
    NegativeUpdateSyntax,
    /// A test made of HTTP requests (protocol, graph store protocol, service description).
    Http,
    /// A type this harness does not know.
    Other(String),
}

impl TestKind {
    fn from_type(iri: &str) -> Option<Self> {
        let local = iri.strip_prefix(mf::TEST_TYPE_NAMESPACE)?;
        Some(match local {
            "QueryEvaluationTest" => Self::QueryEvaluation,
            "UpdateEvaluationTest" => Self::UpdateEvaluation,
            "CSVResultFormatTest" => Self::CsvResultFormat,
            "PositiveSyntaxTest11" | "PositiveSyntaxTest" => Self::PositiveSyntax,
            "NegativeSyntaxTest11" | "NegativeSyntaxTest" => Self::NegativeSyntax,
            "PositiveUpdateSyntaxTest11" | "PositiveUpdateSyntaxTest" => Self::PositiveUpdateSyntax,
            "NegativeUpdateSyntaxTest11" | "NegativeUpdateSyntaxTest" => Self::NegativeUpdateSyntax,
            "ProtocolTest" | "GraphStoreProtocolTest" | "ServiceDescriptionTest" => Self::Http,
            _ => return None,
        })
    }
}

/// One manifest entry.
#[derive(Debug, Clone)]
pub struct Test {
    /// The entry's IRI (the key of the skip list).
    pub id: String,
    /// `mf:name`.
    pub name: String,
    /// What the test checks.
    pub kind: TestKind,
    /// `dawgt:approval`, when given.
    pub approval: Option<NamedNode>,
    /// `mf:requires` values.
    pub requires: Vec<NamedNode>,
    /// The query or update file (`qt:query`, `ut:request`, or the action itself).
    pub action: Option<String>,
    /// Data loaded before the action runs.
    pub data: Fixture,
    /// `qt:serviceData`: endpoint IRI and data file of each federated service.
    pub service_data: Vec<(String, String)>,
    /// `sd:entailmentRegime` of the action.
    pub entailment_regimes: Vec<String>,
    /// The expected results file of a query test.
    pub result: Option<String>,
    /// The expected dataset of an update test.
    pub expected: Fixture,
}

impl Test {
    /// Why the test is not an approved one, if it is not.
    pub fn unapproved(&self) -> Option<&'static str> {
        let approval = self.approval.as_ref()?.as_ref();
        [
            (dawgt::NOT_CLASSIFIED, "not classified by the working group"),
            (dawgt::WITHDRAWN, "withdrawn by the working group"),
            (dawgt::DEPRECATED, "deprecated by the working group"),
            (dawgt::REJECTED, "rejected by the working group"),
        ]
        .into_iter()
        .find_map(|(status, why)| (status == approval).then_some(why))
    }

    /// Whether this is a query evaluation test (results compared in full or as CSV) of plain
    /// SPARQL: no entailment regime, no federated service (by its manifest too, as some such
    /// tests declare neither).
    pub fn is_plain_query_evaluation(&self) -> bool {
        matches!(
            self.kind,
            TestKind::QueryEvaluation | TestKind::CsvResultFormat
        ) && self.entailment_regimes.is_empty()
            && self.service_data.is_empty()
            && !self.id.contains("/entailment/")
            && !self.id.contains("/service/")
    }

    /// What the test depends on beyond plain SPARQL evaluation (services, entailment
    /// regimes, `mf:requires`), to explain its failures.
    pub fn needs(&self) -> Vec<String> {
        let services = self
            .service_data
            .iter()
            .map(|(endpoint, _)| format!("SERVICE <{endpoint}>"));
        let regimes = self
            .entailment_regimes
            .iter()
            .map(|r| format!("entailment {r}"));
        let requires = self.requires.iter().map(|r| format!("requires {r}"));
        services.chain(regimes).chain(requires).collect()
    }
}

/// Every test reachable from the manifest at `url`, in manifest order.
pub fn read_tests(url: &str) -> Result<Vec<Test>, Failure> {
    let mut tests = Vec::new();
    read_manifest(url, &mut tests)?;
    Ok(tests)
}

fn read_manifest(url: &str, tests: &mut Vec<Test>) -> Result<(), Failure> {
    let graph = read_graph(url)?;
    let manifest = NamedNodeRef::new(url).context("manifest URL")?;
    let manifest = Node::new(&graph, manifest.into());
    if let Some(list) = manifest.object(mf::INCLUDE) {
        for included in graph_list(&graph, list)? {
            let TermRef::NamedNode(included) = included else {
                return Err(format!("{url}: mf:include item {included} is not an IRI"));
            };
            read_manifest(included.as_str(), tests)?;
        }
    }
    if let Some(list) = manifest.object(mf::ENTRIES) {
        for entry in graph_list(&graph, list)? {
            let entry = Node::from_term(&graph, entry)
                .ok_or_else(|| format!("{url}: mf:entries item {entry} is a literal"))?;
            tests.push(read_test(entry).context(format!("{url}: entry {}", entry.id))?);
        }
    }
    Ok(())
}

fn read_test(entry: Node<'_>) -> Result<Test, Failure> {
    let types: Vec<String> = entry
        .iris(rdf::TYPE)
        .map(|t| t.as_str().to_owned())
        .collect();
    let kind = types
        .iter()
        .find_map(|t| TestKind::from_type(t))
        .unwrap_or_else(|| TestKind::Other(types.join(" ")));
    let mut test = Test {
        id: match entry.id {
            NamedOrBlankNodeRef::NamedNode(n) => n.as_str().to_owned(),
            other => other.to_string(),
        },
        name: entry.literal(mf::NAME).unwrap_or_default(),
        kind,
        approval: entry
            .iris(dawgt::APPROVAL)
            .next()
            .map(NamedNodeRef::into_owned),
        requires: entry
            .iris(mf::REQUIRES)
            .map(NamedNodeRef::into_owned)
            .collect(),
        action: None,
        data: Fixture::default(),
        service_data: Vec::new(),
        entailment_regimes: Vec::new(),
        result: None,
        expected: Fixture::default(),
    };
    if test.kind == TestKind::Http {
        // Their actions describe HTTP exchanges, not files.
        return Ok(test);
    }
    match entry.object(mf::ACTION) {
        Some(TermRef::NamedNode(file)) => test.action = Some(file.as_str().to_owned()),
        Some(action) => {
            let action = Node::from_term(entry.graph, action)
                .ok_or_else(|| "mf:action is a literal".to_owned())?;
            read_action(action, &mut test)?;
        }
        None => return Err("no mf:action".into()),
    }
    match entry.object(mf::RESULT) {
        Some(TermRef::NamedNode(file)) => test.result = Some(file.as_str().to_owned()),
        Some(TermRef::BlankNode(state)) => {
            test.expected = read_fixture(
                Node::new(entry.graph, state.into()),
                ut::DATA,
                ut::GRAPH_DATA,
            )?;
        }
        Some(TermRef::Literal(l)) => return Err(format!("mf:result {l} is a literal")),
        _ => {}
    }
    Ok(test)
}

fn read_action(action: Node<'_>, test: &mut Test) -> Result<(), Failure> {
    test.action = action
        .iris(qt::QUERY)
        .chain(action.iris(ut::REQUEST))
        .next()
        .map(|file| file.as_str().to_owned());
    test.data = if action.object(ut::REQUEST).is_some() {
        read_fixture(action, ut::DATA, ut::GRAPH_DATA)?
    } else {
        read_fixture(action, qt::DATA, qt::GRAPH_DATA)?
    };
    for service in action.nodes(qt::SERVICE_DATA) {
        let endpoint = service.iris(qt::ENDPOINT).next();
        let data = service.iris(qt::DATA).next();
        let (Some(endpoint), Some(data)) = (endpoint, data) else {
            return Err("qt:serviceData without qt:endpoint or qt:data".into());
        };
        test.service_data
            .push((endpoint.as_str().to_owned(), data.as_str().to_owned()));
    }
    // One regime, or a list of them.
    if let Some(regimes) = action.object(sd::ENTAILMENT_REGIME) {
        let regimes = match regimes {
            TermRef::BlankNode(_) => graph_list(action.graph, regimes)?,
            regime => vec![regime],
        };
        test.entailment_regimes = regimes.iter().map(ToString::to_string).collect();
    }
    Ok(())
}

/// Files for the default graph (`data`) and for named graphs (`graph_data`: the file itself,
/// named by its URL, or a node with `ut:graph`/`qt:graph` and the name in `rdfs:label`).
fn read_fixture(
    node: Node<'_>,
    data: NamedNodeRef<'static>,
    graph_data: NamedNodeRef<'static>,
) -> Result<Fixture, Failure> {
    let mut fixture = Fixture {
        default: node.iris(data).map(|f| f.as_str().to_owned()).collect(),
        named: Vec::new(),
    };
    for value in node
        .graph
        .objects_for_subject_predicate(node.id, graph_data)
    {
        match value {
            TermRef::NamedNode(file) => fixture
                .named
                .push((file.into_owned(), file.as_str().to_owned())),
            value => {
                let described = Node::from_term(node.graph, value)
                    .ok_or_else(|| format!("graph data {value} is a literal"))?;
                let file = described
                    .iris(ut::GRAPH)
                    .chain(described.iris(qt::GRAPH))
                    .next()
                    .ok_or_else(|| format!("graph data {value} names no file"))?;
                let name = match described.literal(rdfs::LABEL) {
                    Some(label) => NamedNode::new(label).context("graph name in rdfs:label")?,
                    None => file.into_owned(),
                };
                fixture.named.push((name, file.as_str().to_owned()));
            }
        }
    }
    Ok(fixture)
}

/// A subject of a manifest graph, with accessors for its properties.
#[derive(Clone, Copy)]
struct Node<'a> {
    graph: &'a Graph,
    id: NamedOrBlankNodeRef<'a>,
}

impl<'a> Node<'a> {
    fn new(graph: &'a Graph, id: NamedOrBlankNodeRef<'a>) -> Self {
        Self { graph, id }
    }

    fn from_term(graph: &'a Graph, term: TermRef<'a>) -> Option<Self> {
        match term {
            TermRef::NamedNode(n) => Some(Self::new(graph, n.into())),
            TermRef::BlankNode(b) => Some(Self::new(graph, b.into())),
            _ => None,
        }
    }

    fn object(&self, predicate: NamedNodeRef<'static>) -> Option<TermRef<'a>> {
        self.graph.object_for_subject_predicate(self.id, predicate)
    }

    fn iris(
        &self,
        predicate: NamedNodeRef<'static>,
    ) -> impl Iterator<Item = NamedNodeRef<'a>> + 'a {
        self.graph
            .objects_for_subject_predicate(self.id, predicate)
            .filter_map(|o| match o {
                TermRef::NamedNode(n) => Some(n),
                _ => None,
            })
    }

    fn nodes(&self, predicate: NamedNodeRef<'static>) -> impl Iterator<Item = Node<'a>> + 'a {
        let graph = self.graph;
        graph
            .objects_for_subject_predicate(self.id, predicate)
            .filter_map(move |o| Self::from_term(graph, o))
    }

    fn literal(&self, predicate: NamedNodeRef<'static>) -> Option<String> {
        match self.object(predicate)? {
            TermRef::Literal(l) => Some(l.value().to_owned()),
            _ => None,
        }
    }
}

/// The members of an RDF collection.
fn graph_list<'a>(graph: &'a Graph, mut head: TermRef<'a>) -> Result<Vec<TermRef<'a>>, Failure> {
    let mut items = Vec::new();
    while head != rdf::NIL.into() {
        let node =
            Node::from_term(graph, head).ok_or_else(|| format!("list node {head} is a literal"))?;
        items.push(
            node.object(rdf::FIRST)
                .ok_or_else(|| format!("list node {head} has no rdf:first"))?,
        );
        head = node
            .object(rdf::REST)
            .ok_or_else(|| format!("list node {head} has no rdf:rest"))?;
    }
    Ok(items)
}
