//! Synthetic datasets shaped like real publishers' data, for tests and benchmarks.
//!
//! [`broadcaster`] builds programme graphs the way a broadcaster's archive keeps them: one
//! named graph per programme, with a transmission (a `dateTime`), a timeline of music parts
//! and contributors with roles on blank nodes. The counts the two reference queries should
//! return are computed by the generator itself, so a test can check the engine against them.

use std::fmt::Write as _;

/// `http://purl.org/dc/terms/`
pub const DCT: &str = "http://purl.org/dc/terms/";
/// `http://www.ebu.ch/metadata/ontologies/ebuccdm#`
pub const EBUCCDM: &str = "http://www.ebu.ch/metadata/ontologies/ebuccdm#";
/// `http://id.nrk.no/2013/digas/class/`
pub const DIGAS: &str = "http://id.nrk.no/2013/digas/class/";
/// `http://gluon.nrk.no/dataordbok.xml#`
pub const NRK: &str = "http://gluon.nrk.no/dataordbok.xml#";
const XSD_DATETIME: &str = "http://www.w3.org/2001/XMLSchema#dateTime";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// The first reference query: music parts of programmes transmitted in January 2014.
pub const MUSIC_IN_JANUARY: &str = "PREFIX dct: <http://purl.org/dc/terms/>
PREFIX ebuccdm: <http://www.ebu.ch/metadata/ontologies/ebuccdm#>
PREFIX digas: <http://id.nrk.no/2013/digas/class/>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT * WHERE { GRAPH ?g { ?part a digas:Music . ?timeline ebuccdm:hasTimelineTrackPart ?part .
  ?prog ebuccdm:hasTimelineTrack ?timeline . ?trans ebuccdm:playsOut ?prog .
  ?part dct:title ?partTitle . ?prog dct:title ?progTitle .
  ?trans ebuccdm:publicationStartDateTime ?startTime .
  FILTER (?startTime >= \"2014-01-01T00:00:00+01:00\"^^xsd:dateTime)
  FILTER (?startTime < \"2014-02-01T00:00:00+01:00\"^^xsd:dateTime) } } ORDER BY ?startTime";

/// The second reference query: contributors of programmes with their roles.
pub const CONTRIBUTORS: &str = "PREFIX dct: <http://purl.org/dc/terms/>
PREFIX ebuccdm: <http://www.ebu.ch/metadata/ontologies/ebuccdm#>
PREFIX nrk: <http://gluon.nrk.no/dataordbok.xml#>
SELECT ?obj ?title ?contactName ?roleName WHERE { ?obj a nrk:programme ; dct:title ?title ;
  ebuccdm:hasContributor ?c . ?c ebuccdm:contactName ?contactName ; ebuccdm:hasRole ?r .
  ?r ebuccdm:roleName ?roleName } LIMIT 100000";

/// Shape of the generated archive.
#[derive(Debug, Clone, Copy)]
pub struct BroadcasterShape {
    /// Number of programmes (one named graph each).
    pub programmes: usize,
    /// Music parts per programme.
    pub parts: usize,
    /// Contributors (blank nodes, each with a role on another blank node) per programme.
    pub contributors: usize,
}

/// One programme graph.
#[derive(Debug, Clone)]
pub struct ProgrammeGraph {
    /// The graph name.
    pub graph: String,
    /// Its content as N-Triples.
    pub ntriples: String,
    /// Whether its transmission falls in January 2014 (Oslo time).
    pub in_january: bool,
}

/// Generates the archive: programme `i`'s transmission is spread over December 2013 to
/// March 2014 so that about a third falls in January.
pub fn broadcaster(shape: BroadcasterShape) -> Vec<ProgrammeGraph> {
    (0..shape.programmes).map(|i| programme(i, shape)).collect()
}

/// Rows [`MUSIC_IN_JANUARY`] and [`CONTRIBUTORS`] return on the generated archive.
pub fn expected_rows(graphs: &[ProgrammeGraph], shape: BroadcasterShape) -> (usize, usize) {
    let january = graphs.iter().filter(|g| g.in_january).count();
    (
        january * shape.parts,
        (graphs.len() * shape.contributors).min(100_000),
    )
}

fn programme(i: usize, shape: BroadcasterShape) -> ProgrammeGraph {
    // Day 0 is 2013-12-01; 120 days reach into March.
    let day = (i * 7919) % 120;
    let (month, dom) = match day {
        0..=30 => ("2013-12", day + 1),
        31..=61 => ("2014-01", day - 30),
        62..=89 => ("2014-02", day - 61),
        _ => ("2014-03", day - 89),
    };
    let hour = (i * 13) % 24;
    let start = format!("{month}-{dom:02}T{hour:02}:{:02}:00+01:00", i % 60);
    let base = format!("http://id.nrk.no/programme/{i}");
    let mut nt = String::with_capacity(200 * (shape.parts + shape.contributors + 4));
    let mut t = |s: &str, p: &str, o: &str| {
        let _ = writeln!(nt, "{s} <{p}> {o} .");
    };
    let prog = format!("<{base}>");
    let timeline = format!("<{base}/timeline>");
    let trans = format!("<{base}/transmission>");
    t(&prog, RDF_TYPE, &format!("<{NRK}programme>"));
    t(&prog, &format!("{DCT}title"), &format!("\"Programme {i}\""));
    t(&prog, &format!("{EBUCCDM}hasTimelineTrack"), &timeline);
    t(&trans, &format!("{EBUCCDM}playsOut"), &prog);
    t(
        &trans,
        &format!("{EBUCCDM}publicationStartDateTime"),
        &format!("\"{start}\"^^<{XSD_DATETIME}>"),
    );
    for k in 0..shape.parts {
        let part = format!("<{base}/part/{k}>");
        t(&timeline, &format!("{EBUCCDM}hasTimelineTrackPart"), &part);
        t(&part, RDF_TYPE, &format!("<{DIGAS}Music>"));
        t(
            &part,
            &format!("{DCT}title"),
            &format!("\"Track {k} of programme {i}\""),
        );
    }
    for c in 0..shape.contributors {
        t(
            &prog,
            &format!("{EBUCCDM}hasContributor"),
            &format!("_:c{c}"),
        );
        t(
            &format!("_:c{c}"),
            &format!("{EBUCCDM}contactName"),
            &format!("\"Contributor {}\"", (i + c) % 997),
        );
        t(
            &format!("_:c{c}"),
            &format!("{EBUCCDM}hasRole"),
            &format!("_:r{c}"),
        );
        t(
            &format!("_:r{c}"),
            &format!("{EBUCCDM}roleName"),
            &format!("\"{}\"", ["presenter", "producer", "performer"][c % 3]),
        );
    }
    ProgrammeGraph {
        graph: format!("{base}/graph"),
        ntriples: nt,
        in_january: month == "2014-01",
    }
}
