//! Query results in a comparable shape, read from the engine or from an expected-results
//! file (`.srx`, `.srj`, `.tsv`, or an RDF graph: an `rs:ResultSet` or a CONSTRUCT result).
//!
//! Solutions compare as multisets under one blank node bijection for the whole result;
//! numeric literals compare by value within their datatype (`"3.21E4"^^xsd:double` equals
//! `"32100"^^xsd:double`): the lexical form of a number the engine *computes* is its own choice,
//! while stored literals keep theirs exactly (the store's tests check that separately);
//! rows are checked in order when the expected file numbers them (`rs:index`) or when the
//! query sorts on projected variables. Graphs compare by isomorphism (canonical blank nodes).

use crate::fixtures::{open, read_graph, Context, Failure};
use crate::vocab::rs;
use lodestone_store::sparql::QueryResults;
use oxrdf::dataset::CanonicalizationAlgorithm;
use oxrdf::vocab::rdf;
use oxrdf::{BlankNode, Graph, Literal, NamedOrBlankNodeRef, Term, TermRef, Variable};
use sparesults::{QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput};
use std::collections::HashMap;
use std::fmt::Write;

/// One solution: the values of [`Solutions::variables`], in that order.
pub type Row = Vec<Option<Term>>;

/// A sequence of solutions.
#[derive(Debug)]
pub struct Solutions {
    /// The variables, sorted by name.
    pub variables: Vec<Variable>,
    /// The solutions, in the order they were given.
    pub rows: Vec<Row>,
    /// Whether the order of `rows` is part of the expected result (`rs:index`).
    pub indexed: bool,
}

impl Solutions {
    /// Solutions over `variables` (any order) from rows given as (variable, value) pairs.
    pub fn new<'a>(
        variables: &[Variable],
        rows: impl IntoIterator<Item = Vec<(&'a Variable, &'a Term)>>,
        indexed: bool,
    ) -> Self {
        let mut variables = variables.to_vec();
        variables.sort();
        let rows = rows
            .into_iter()
            .map(|bindings| {
                let mut row = vec![None; variables.len()];
                for (variable, value) in bindings {
                    if let Ok(i) = variables.binary_search(variable) {
                        row[i] = Some(comparable(value));
                    }
                }
                row
            })
            .collect();
        Self {
            variables,
            rows,
            indexed,
        }
    }
}

/// The term with a numeric literal's lexical form made canonical within its datatype, so
/// that numbers compare by value.
fn comparable(term: &Term) -> Term {
    let Term::Literal(literal) = term else {
        return term.clone();
    };
    let datatype = literal.datatype().as_str();
    let Some(local) = datatype.strip_prefix("http://www.w3.org/2001/XMLSchema#") else {
        return term.clone();
    };
    let value = literal.value().trim();
    let canonical = match local {
        "double" | "float" => value
            .replace("INF", "inf")
            .parse::<f64>()
            .ok()
            .map(|v| format!("{v:e}")),
        "decimal" => canonical_decimal(value),
        "integer" | "int" | "long" | "short" | "byte" | "nonNegativeInteger"
        | "positiveInteger" | "negativeInteger" | "nonPositiveInteger" | "unsignedLong"
        | "unsignedInt" | "unsignedShort" | "unsignedByte" => {
            value.parse::<i128>().ok().map(|v| v.to_string())
        }
        _ => None,
    };
    match canonical {
        Some(canonical) => Literal::new_typed_literal(canonical, literal.datatype()).into(),
        None => term.clone(),
    }
}

/// `+01.50` → `1.5`, `3` → `3`, `-0.0` → `0`; `None` if not a decimal.
fn canonical_decimal(value: &str) -> Option<String> {
    let (negative, digits) = match value.as_bytes().first()? {
        b'-' => (true, &value[1..]),
        b'+' => (false, &value[1..]),
        _ => (false, value),
    };
    let (integer, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if !integer
        .bytes()
        .chain(fraction.bytes())
        .all(|b| b.is_ascii_digit())
        || integer.len() + fraction.len() == 0
    {
        return None;
    }
    let integer = integer.trim_start_matches('0');
    let fraction = fraction.trim_end_matches('0');
    let mut out = String::new();
    if negative && !(integer.is_empty() && fraction.is_empty()) {
        out.push('-');
    }
    out.push_str(if integer.is_empty() { "0" } else { integer });
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(fraction);
    }
    Some(out)
}

/// Results of any query form.
#[derive(Debug)]
pub enum Results {
    /// ASK.
    Boolean(bool),
    /// SELECT.
    Solutions(Solutions),
    /// CONSTRUCT or DESCRIBE, canonicalized.
    Graph(Graph),
}

/// In which order the actual solutions must come.
#[derive(Debug, Clone)]
pub enum RowOrder {
    /// Any order (no ORDER BY, or one this harness cannot check).
    Any,
    /// Sorted like the expected rows on these projected variables.
    By(Vec<Variable>),
}

impl Results {
    /// Collects what the engine returned.
    pub fn from_engine(results: QueryResults<'_>) -> Result<Self, Failure> {
        Ok(match results {
            QueryResults::Boolean(value) => Self::Boolean(value),
            QueryResults::Solutions(solutions) => {
                let variables = solutions.variables().to_vec();
                let solutions = solutions
                    .collect::<Result<Vec<_>, _>>()
                    .context("evaluating the query")?;
                Self::Solutions(Solutions::new(
                    &variables,
                    solutions.iter().map(|s| s.iter().collect()),
                    false,
                ))
            }
            QueryResults::Graph(triples) => {
                let mut graph = Graph::new();
                for triple in triples {
                    graph.insert(&triple.context("evaluating the query")?);
                }
                graph.canonicalize(CanonicalizationAlgorithm::Unstable);
                Self::Graph(graph)
            }
        })
    }

    /// Reads an expected-results file.
    pub fn from_file(url: &str) -> Result<Self, Failure> {
        let extension = url.rsplit_once('.').map_or("", |(_, e)| e);
        let format = match extension {
            "srx" => QueryResultsFormat::Xml,
            "srj" => QueryResultsFormat::Json,
            "tsv" => QueryResultsFormat::Tsv,
            _ => return Self::from_graph(read_graph(url)?),
        };
        let parsed = QueryResultsParser::from_format(format)
            .for_reader(open(url)?)
            .context(format!("parsing {url}"))?;
        Ok(match parsed {
            ReaderQueryResultsParserOutput::Boolean(value) => Self::Boolean(value),
            ReaderQueryResultsParserOutput::Solutions(parser) => {
                let variables = parser.variables().to_vec();
                let solutions = parser
                    .collect::<Result<Vec<_>, _>>()
                    .context(format!("parsing {url}"))?;
                Self::Solutions(Solutions::new(
                    &variables,
                    solutions.iter().map(|s| s.iter().collect()),
                    false,
                ))
            }
        })
    }

    /// Reads results written as an RDF graph: an `rs:ResultSet`, or else a CONSTRUCT result.
    fn from_graph(mut graph: Graph) -> Result<Self, Failure> {
        let Some(set) = graph.subject_for_predicate_object(rdf::TYPE, rs::RESULT_SET) else {
            graph.canonicalize(CanonicalizationAlgorithm::Unstable);
            return Ok(Self::Graph(graph));
        };
        if let Some(value) = graph.object_for_subject_predicate(set, rs::BOOLEAN) {
            return Ok(Self::Boolean(value == Literal::from(true).as_ref().into()));
        }
        let variables = graph
            .objects_for_subject_predicate(set, rs::RESULT_VARIABLE)
            .map(|v| literal_value(v).map(Variable::new_unchecked))
            .collect::<Result<Vec<_>, _>>()?;
        let mut rows = Vec::new();
        for solution in graph.objects_for_subject_predicate(set, rs::SOLUTION) {
            let solution = subject(solution)?;
            let mut bindings = Vec::new();
            for binding in graph.objects_for_subject_predicate(solution, rs::BINDING) {
                let binding = subject(binding)?;
                let variable = graph.object_for_subject_predicate(binding, rs::VARIABLE);
                let value = graph.object_for_subject_predicate(binding, rs::VALUE);
                let (Some(variable), Some(value)) = (variable, value) else {
                    return Err(format!("rs:binding {binding} lacks a variable or a value"));
                };
                bindings.push((
                    Variable::new_unchecked(literal_value(variable)?),
                    value.into_owned(),
                ));
            }
            let index = match graph.object_for_subject_predicate(solution, rs::INDEX) {
                Some(index) => Some(
                    literal_value(index)?
                        .parse::<u64>()
                        .context(format!("rs:index {index}"))?,
                ),
                None => None,
            };
            rows.push((index, bindings));
        }
        let indexed = !rows.is_empty() && rows.iter().all(|(index, _)| index.is_some());
        rows.sort_by_key(|(index, _)| *index);
        Ok(Self::Solutions(Solutions::new(
            &variables,
            rows.iter()
                .map(|(_, b)| b.iter().map(|(v, t)| (v, t)).collect()),
            indexed,
        )))
    }
}

fn literal_value(term: TermRef<'_>) -> Result<&str, Failure> {
    match term {
        TermRef::Literal(l) => Ok(l.value()),
        other => Err(format!("{other} should be a literal")),
    }
}

fn subject(term: TermRef<'_>) -> Result<NamedOrBlankNodeRef<'_>, Failure> {
    match term {
        TermRef::NamedNode(n) => Ok(n.into()),
        TermRef::BlankNode(b) => Ok(b.into()),
        other => Err(format!("{other} should be a node")),
    }
}

/// Checks that `actual` is what `expected` describes.
pub fn compare(expected: &Results, actual: &Results, order: &RowOrder) -> Result<(), Failure> {
    match (expected, actual) {
        (Results::Boolean(e), Results::Boolean(a)) if e == a => Ok(()),
        (Results::Boolean(e), Results::Boolean(a)) => Err(format!("expected {e}, got {a}")),
        (Results::Graph(e), Results::Graph(a)) if e == a => Ok(()),
        (Results::Graph(e), Results::Graph(a)) => Err(format!(
            "graphs are not isomorphic ({} expected triples, {} actual)\n{}",
            e.len(),
            a.len(),
            graph_diff(e, a)
        )),
        (Results::Solutions(e), Results::Solutions(a)) => compare_solutions(e, a, order),
        (e, a) => Err(format!("expected {}, got {}", form(e), form(a))),
    }
}

fn form(results: &Results) -> &'static str {
    match results {
        Results::Boolean(_) => "a boolean",
        Results::Solutions(_) => "solutions",
        Results::Graph(_) => "a graph",
    }
}

fn compare_solutions(
    expected: &Solutions,
    actual: &Solutions,
    order: &RowOrder,
) -> Result<(), Failure> {
    if expected.variables != actual.variables {
        return Err(format!(
            "variables differ: expected {}, got {}",
            names(&expected.variables),
            names(&actual.variables)
        ));
    }
    let differ = |what: &str| {
        format!(
            "{what} ({} expected rows, {} actual)\n{}",
            expected.rows.len(),
            actual.rows.len(),
            rows_diff(expected, actual)
        )
    };
    if expected.rows.len() != actual.rows.len() {
        return Err(differ("solutions differ"));
    }
    if expected.indexed {
        let mut map = BlankMap::default();
        let same = expected
            .rows
            .iter()
            .zip(&actual.rows)
            .all(|(e, a)| map.unify_row(e, a));
        return if same {
            Ok(())
        } else {
            Err(differ("ordered solutions differ"))
        };
    }
    if !same_multiset(&expected.rows, &actual.rows) {
        return Err(differ("solutions differ"));
    }
    if let RowOrder::By(keys) = order {
        // Only a leading run of projected keys can be checked: rows sorted on (k1, k2, k3)
        // are sorted on (k1, k2), not on (k1, k3).
        let columns: Vec<usize> = keys
            .iter()
            .map_while(|k| expected.variables.binary_search(k).ok())
            .collect();
        if sort_keys(&expected.rows, &columns) != sort_keys(&actual.rows, &columns) {
            return Err(differ(&format!(
                "solutions are not in ORDER BY {} order",
                names(keys)
            )));
        }
    }
    Ok(())
}

/// The ORDER BY key of every row; blank nodes are all alike (their order is unspecified).
fn sort_keys(rows: &[Row], columns: &[usize]) -> Vec<Vec<Option<Term>>> {
    let blank = Term::from(BlankNode::new_unchecked("any"));
    rows.iter()
        .map(|row| {
            columns
                .iter()
                .map(|&c| match &row[c] {
                    Some(Term::BlankNode(_)) => Some(blank.clone()),
                    value => value.clone(),
                })
                .collect()
        })
        .collect()
}

/// How many candidate pairings the blank node matcher may try before giving up.
const MATCH_BUDGET: usize = 1_000_000;

/// Whether the rows are equal as multisets under one blank node bijection.
fn same_multiset(expected: &[Row], actual: &[Row]) -> bool {
    let has_blank = |row: &&Row| row.iter().flatten().any(Term::is_blank_node);
    // Rows without blank nodes must match exactly, which a count settles.
    let mut ground: HashMap<&Row, isize> = HashMap::new();
    for row in expected.iter().filter(|r| !has_blank(r)) {
        *ground.entry(row).or_default() += 1;
    }
    for row in actual.iter().filter(|r| !has_blank(r)) {
        *ground.entry(row).or_default() -= 1;
    }
    if ground.values().any(|&count| count != 0) {
        return false;
    }
    let expected: Vec<&Row> = expected.iter().filter(has_blank).collect();
    let mut actual: Vec<Option<&Row>> = actual.iter().filter(has_blank).map(Some).collect();
    let mut budget = MATCH_BUDGET;
    match_rows(&expected, &mut actual, &BlankMap::default(), &mut budget)
}

/// Pairs every expected row with a distinct actual row, extending the blank node mapping;
/// backtracks when a choice leads nowhere.
fn match_rows(
    expected: &[&Row],
    actual: &mut [Option<&Row>],
    map: &BlankMap,
    budget: &mut usize,
) -> bool {
    let Some((first, rest)) = expected.split_first() else {
        return true;
    };
    for i in 0..actual.len() {
        let Some(candidate) = actual[i] else { continue };
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut extended = map.clone();
        if extended.unify_row(first, candidate) {
            actual[i] = None;
            if match_rows(rest, actual, &extended, budget) {
                return true;
            }
            actual[i] = Some(candidate);
        }
    }
    false
}

/// A partial bijection between expected and actual blank nodes.
#[derive(Clone, Default)]
struct BlankMap {
    forward: HashMap<BlankNode, BlankNode>,
    backward: HashMap<BlankNode, BlankNode>,
}

impl BlankMap {
    fn unify_row(&mut self, expected: &Row, actual: &Row) -> bool {
        expected.iter().zip(actual).all(|(e, a)| match (e, a) {
            (Some(e), Some(a)) => self.unify(e, a),
            (None, None) => true,
            _ => false,
        })
    }

    fn unify(&mut self, expected: &Term, actual: &Term) -> bool {
        let (Term::BlankNode(e), Term::BlankNode(a)) = (expected, actual) else {
            return expected == actual;
        };
        match (self.forward.get(e), self.backward.get(a)) {
            (Some(mapped), _) => mapped == a,
            (None, Some(_)) => false,
            (None, None) => {
                self.forward.insert(e.clone(), a.clone());
                self.backward.insert(a.clone(), e.clone());
                true
            }
        }
    }
}

fn names(variables: &[Variable]) -> String {
    let names: Vec<String> = variables.iter().map(ToString::to_string).collect();
    format!("[{}]", names.join(" "))
}

/// At most this many lines of each side of a diff.
const DIFF_LINES: usize = 12;

fn rows_diff(expected: &Solutions, actual: &Solutions) -> String {
    let render = |solutions: &Solutions| -> Vec<String> {
        solutions
            .rows
            .iter()
            .map(|row| {
                let mut line = String::new();
                for (variable, value) in solutions.variables.iter().zip(row) {
                    if let Some(value) = value {
                        let _ = write!(line, "{variable}={value} ");
                    }
                }
                line
            })
            .collect()
    };
    side_by_side(render(expected), render(actual))
}

fn graph_diff(expected: &Graph, actual: &Graph) -> String {
    let render = |graph: &Graph| -> Vec<String> { graph.iter().map(|t| t.to_string()).collect() };
    side_by_side(render(expected), render(actual))
}

/// Lines only in the expected side (`-`) and only in the actual side (`+`).
pub fn side_by_side(mut expected: Vec<String>, mut actual: Vec<String>) -> String {
    expected.sort();
    actual.sort();
    let mut out = String::new();
    let mut shown = |sign: char, lines: &[String], others: &[String]| {
        let only: Vec<&String> = lines
            .iter()
            .filter(|l| others.binary_search(l).is_err())
            .collect();
        for line in only.iter().take(DIFF_LINES) {
            let _ = writeln!(out, "  {sign} {line}");
        }
        if only.len() > DIFF_LINES {
            let _ = writeln!(out, "  {sign} … {} more", only.len() - DIFF_LINES);
        }
    };
    shown('-', &expected, &actual);
    shown('+', &actual, &expected);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::vocab::xsd;

    fn blank(label: &str) -> Term {
        BlankNode::new_unchecked(label).into()
    }

    fn number(value: i64) -> Term {
        Literal::from(value).into()
    }

    /// Solutions over `?a ?b`.
    fn solutions(rows: &[[&Term; 2]]) -> Results {
        let variables = [Variable::new_unchecked("a"), Variable::new_unchecked("b")];
        Results::Solutions(Solutions::new(
            &variables,
            rows.iter()
                .map(|row| variables.iter().zip(row.iter().copied()).collect()),
            false,
        ))
    }

    #[test]
    fn blank_nodes_map_consistently_across_rows() {
        let (x, y, z) = (blank("x"), blank("y"), blank("z"));
        let (one, two) = (number(1), number(2));
        let expected = solutions(&[[&x, &one], [&x, &two]]);
        let same_node = solutions(&[[&y, &two], [&y, &one]]);
        let two_nodes = solutions(&[[&y, &one], [&z, &two]]);
        assert!(compare(&expected, &same_node, &RowOrder::Any).is_ok());
        assert!(compare(&expected, &two_nodes, &RowOrder::Any).is_err());
    }

    #[test]
    fn numbers_compare_by_value_within_their_datatype() {
        let typed = |value: &str, datatype| Term::from(Literal::new_typed_literal(value, datatype));
        assert_eq!(
            comparable(&typed("3.21E4", xsd::DOUBLE)),
            comparable(&typed("32100", xsd::DOUBLE))
        );
        assert_eq!(
            comparable(&typed("+01.50", xsd::DECIMAL)),
            typed("1.5", xsd::DECIMAL)
        );
        assert_eq!(
            comparable(&typed("007", xsd::INTEGER)),
            typed("7", xsd::INTEGER)
        );
        assert_ne!(
            comparable(&typed("1", xsd::INTEGER)),
            comparable(&typed("1", xsd::DECIMAL))
        );
        assert_eq!(
            comparable(&typed("abc", xsd::DECIMAL)),
            typed("abc", xsd::DECIMAL)
        );
    }

    #[test]
    fn duplicate_solutions_count() {
        let (one, two) = (number(1), number(2));
        let expected = solutions(&[[&one, &one], [&one, &one], [&two, &two]]);
        let actual = solutions(&[[&one, &one], [&two, &two], [&two, &two]]);
        assert!(compare(&expected, &actual, &RowOrder::Any).is_err());
    }

    #[test]
    fn order_is_checked_on_the_sort_keys_only() {
        let (one, two, three) = (number(1), number(2), number(3));
        let expected = solutions(&[[&one, &one], [&one, &two], [&two, &three]]);
        let ties_swapped = solutions(&[[&one, &two], [&one, &one], [&two, &three]]);
        let unsorted = solutions(&[[&two, &three], [&one, &one], [&one, &two]]);
        let by_a = RowOrder::By(vec![Variable::new_unchecked("a")]);
        assert!(compare(&expected, &ties_swapped, &by_a).is_ok());
        assert!(compare(&expected, &unsorted, &by_a).is_err());
        assert!(compare(&expected, &unsorted, &RowOrder::Any).is_ok());
    }
}
