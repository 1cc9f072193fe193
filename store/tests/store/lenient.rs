//! Lenient loads skip exactly the bad statements and keep every good one (issue 23, §1): in
//! N-Triples and N-Quads a bad statement costs its own line, even when it is an unterminated
//! literal that the parser would otherwise read on to the next quote; both loading paths
//! count and place each skip the same way, and a limit on skips fails the load whole. In
//! Turtle and TriG a bad statement costs that statement, whole, and reading goes on after its
//! final dot (inside its TriG graph block when it is in one).

use crate::support::{counts, dump, write_input, TempStore};
use lodestone_store::load::{
    parse_into, BulkLoader, LoadReport, ParseOptions, ParseReport, RdfFormat, REPORTED_ERRORS,
};
use lodestone_store::StoreError;
use oxrdf::{Dataset, NamedNodeRef};
use std::collections::BTreeSet;
use std::io::BufRead;

/// The example: line 2 has an unterminated literal; s3–s5 were lost with it.
const FIVE_LINES: &str = "<http://ex.org/s1> <http://ex.org/p> \"good 1\" .
<http://ex.org/s2> <http://ex.org/p> \"broken literal .
<http://ex.org/s3> <http://ex.org/p> \"good 3\" .
<http://ex.org/s4> <http://ex.org/p> \"good 4\" .
<http://ex.org/s5> <http://ex.org/p> \"good 5\" .
";

fn lenient(format: Option<RdfFormat>) -> ParseOptions {
    ParseOptions {
        format,
        lenient: true,
        ..ParseOptions::default()
    }
}

/// The subjects of a store's quads, as `sN` local names, sorted.
fn subjects(dataset: &Dataset) -> Vec<String> {
    let mut names: Vec<String> = dataset
        .iter()
        .map(|q| {
            q.subject
                .to_string()
                .replace("<http://ex.org/", "")
                .replace('>', "")
        })
        .collect();
    names.sort();
    names
}

/// A bulk load of one document, lenient; the store and the load's report.
fn bulk_lenient(name: &str, data: &str) -> (TempStore, LoadReport) {
    let store = TempStore::new();
    let input = write_input(store.scratch(), name, data.as_bytes());
    let report = BulkLoader::new(&store)
        .with_parse_options(lenient(None))
        .load(&[input])
        .expect("a lenient load succeeds");
    (store, report)
}

/// A lenient parse of one document into a transaction, committed.
fn trickle_lenient(name: &str, data: &str, format: RdfFormat) -> (TempStore, ParseReport) {
    let store = TempStore::new();
    let mut transaction = store.transaction().expect("transaction");
    let report = parse_into(
        &mut transaction,
        data.as_bytes(),
        name,
        &lenient(Some(format)),
    )
    .expect("a lenient parse succeeds");
    transaction.commit().expect("commit");
    (store, report)
}

#[track_caller]
fn assert_one_skip_on_line_2(skipped: u64, errors: &[String], file: &str) {
    assert_eq!(skipped, 1, "{errors:?}");
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].contains(&format!("{file}: line 2, column ")),
        "{errors:?}"
    );
}

#[test]
fn unterminated_literal_does_not_swallow_the_next_lines_bulk() {
    let (store, report) = bulk_lenient("bad.nt", FIVE_LINES);
    assert_one_skip_on_line_2(report.skipped, &report.first_errors, "bad.nt");
    assert_eq!(report.quads_read, 4);
    assert_eq!(subjects(&dump(&store)), ["s1", "s3", "s4", "s5"]);
}

#[test]
fn unterminated_literal_does_not_swallow_the_next_lines_transaction() {
    let (store, report) = trickle_lenient("bad.nt", FIVE_LINES, RdfFormat::NTriples);
    assert_one_skip_on_line_2(report.skipped, &report.first_errors, "bad.nt");
    assert_eq!(report.quads, 4);
    assert_eq!(subjects(&dump(&store)), ["s1", "s3", "s4", "s5"]);
}

#[test]
fn unterminated_literal_does_not_swallow_the_next_lines_nquads() {
    let data = FIVE_LINES.replace(" .\n", " <http://ex.org/g> .\n");
    let (store, report) = bulk_lenient("bad.nq", &data);
    assert_one_skip_on_line_2(report.skipped, &report.first_errors, "bad.nq");
    let loaded = dump(&store);
    assert_eq!(subjects(&loaded), ["s1", "s3", "s4", "s5"]);
    let graph = NamedNodeRef::new_unchecked("http://ex.org/g");
    assert!(loaded.iter().all(|q| q.graph_name == graph.into()));

    let (store, report) = trickle_lenient("bad.nq", &data, RdfFormat::NQuads);
    assert_one_skip_on_line_2(report.skipped, &report.first_errors, "bad.nq");
    assert_eq!(subjects(&dump(&store)), ["s1", "s3", "s4", "s5"]);
}

#[test]
fn an_unterminated_iri_ends_with_its_line() {
    let data = FIVE_LINES.replace("\"broken literal .", "<http://ex.org/broken .");
    let (store, report) = bulk_lenient("iri.nt", &data);
    assert_one_skip_on_line_2(report.skipped, &report.first_errors, "iri.nt");
    assert_eq!(subjects(&dump(&store)), ["s1", "s3", "s4", "s5"]);
}

#[test]
fn max_errors_fails_the_load_past_the_limit_and_leaves_the_store_unchanged() {
    let two_bad = format!("{FIVE_LINES}<http://ex.org/s6> <http://ex.org/p> .\n");
    let store = TempStore::new();
    let input = write_input(store.scratch(), "two.nt", two_bad.as_bytes());
    let error = BulkLoader::new(&store)
        .with_parse_options(lenient(None))
        .with_max_errors(1)
        .load(std::slice::from_ref(&input))
        .expect_err("two skips are more than one");
    assert!(matches!(error, StoreError::Syntax { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("two.nt") && message.contains("line 6,"),
        "{message}"
    );
    assert_eq!(counts(&store).quads, 0);
    assert!(dump(&store).is_empty());
    let report = BulkLoader::new(&store)
        .with_parse_options(lenient(None))
        .with_max_errors(2)
        .load(&[input])
        .expect("two skips are within two");
    assert_eq!(report.skipped, 2);
    assert_eq!(counts(&store).quads, 4);
}

/// Lines of the real Nomisma dump in the fault-injection test.
const NOMISMA_LINES: usize = 100_000;
/// Lines broken in it.
const FAULTS: usize = 50;

fn nomisma_lines(count: usize) -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/real/nomisma.nt.zst"
    );
    let file = std::fs::File::open(path).expect("nomisma.nt.zst in ../shared/data/real");
    std::io::BufReader::new(zstd::stream::read::Decoder::new(file).expect("zstd stream"))
        .lines()
        .take(count)
        .collect::<Result<_, _>>()
        .expect("decompressing Nomisma")
}

/// A small deterministic generator (xorshift), so that the faults are the same every run.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).unwrap()
    }
}

/// Breaks one N-Triples line in one of five ways; `None` when the way does not apply to it.
fn break_line(line: &str, kind: usize) -> Option<String> {
    let (subject, rest) = line.split_once(' ')?;
    let (predicate, _) = rest.split_once(' ')?;
    match kind {
        // An unterminated literal: the literal's closing quote removed.
        0 => {
            let close = line.rfind('"')?;
            (line.find('"')? < close).then(|| format!("{}{}", &line[..close], &line[close + 1..]))
        }
        // An IRI with a space in it.
        1 => Some(line.replacen("<http", "<http ", 1)),
        // No final dot.
        2 => Some(line.strip_suffix('.')?.to_owned()),
        // A language tag with a subtag longer than BCP 47 allows.
        3 => Some(format!("{subject} {predicate} \"x\"@en-abcdefghijk .")),
        // A raw control character in an IRI.
        _ => Some(line.replacen("<http", "<ht\u{7}tp", 1)),
    }
}

#[test]
fn lenient_load_of_a_faulty_real_dump_keeps_every_untouched_statement() {
    let clean = nomisma_lines(NOMISMA_LINES);
    // The dump has bad lines of its own; a line is bad when oxttl refuses it on its own.
    let bad: BTreeSet<usize> = (0..clean.len())
        .filter(|i| {
            oxttl::NTriplesParser::new()
                .for_slice(&clean[*i])
                .any(|t| t.is_err())
        })
        .collect();
    let mut faulty = clean.clone();
    let mut touched = BTreeSet::new();
    let mut random = Seeded(0x2023_0001);
    while touched.len() < FAULTS {
        let index = random.below(clean.len());
        let kind = touched.len() % 5;
        if touched.contains(&index) || bad.contains(&index) {
            continue;
        }
        if let Some(broken) = break_line(&clean[index], kind) {
            faulty[index] = broken;
            touched.insert(index);
        }
    }
    let join = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let untouched: Vec<String> = clean
        .iter()
        .enumerate()
        .filter(|(i, _)| !touched.contains(i) && !bad.contains(i))
        .map(|(_, l)| l.clone())
        .collect();
    let skipped: Vec<usize> = touched.union(&bad).copied().collect();

    let (store, report) = bulk_lenient("faulty.nt", &join(&faulty));
    let reported: Vec<usize> = report
        .first_errors
        .iter()
        .map(|e| {
            let line = e
                .split_once("faulty.nt: line ")
                .and_then(|(_, rest)| rest.split_once(','))
                .unwrap_or_else(|| panic!("a position in {e:?}"))
                .0;
            line.parse::<usize>().expect("a line number") - 1
        })
        .collect();
    assert!(skipped.len() <= REPORTED_ERRORS, "every skip is listed");
    assert_eq!(reported, skipped, "{:#?}", report.first_errors);
    assert_eq!(report.skipped, skipped.len() as u64);
    assert_eq!(report.quads_read, (NOMISMA_LINES - skipped.len()) as u64);

    // The same statements in the same order, loaded strictly: blank nodes are numbered alike.
    let expected = TempStore::new();
    let input = write_input(expected.scratch(), "clean.nt", join(&untouched).as_bytes());
    BulkLoader::new(&expected)
        .load(&[input])
        .expect("the untouched lines load strictly");
    assert_eq!(dump(&store), dump(&expected));

    // The trickle path, on a slice of the same lines.
    let slice = 20_000;
    let faulty_slice = join(&faulty[..slice]);
    let untouched_slice: Vec<String> = (0..slice)
        .filter(|i| !touched.contains(i) && !bad.contains(i))
        .map(|i| clean[i].clone())
        .collect();
    let (trickled, report) = trickle_lenient("faulty.nt", &faulty_slice, RdfFormat::NTriples);
    let (expected, _) = trickle_lenient("clean.nt", &join(&untouched_slice), RdfFormat::NTriples);
    assert_eq!(
        report.skipped,
        skipped.iter().filter(|i| **i < slice).count() as u64
    );
    assert_eq!(dump(&trickled), dump(&expected));
}

/// Turtle: statements over several lines, both kinds of prefix declaration, a literal that
/// lost its closing quote and with it the statement's final dot, a bad IRI inside a statement,
/// a bad language tag. Each bad statement is skipped whole; the others load.
const TURTLE: &str = "@prefix ex: <http://ex.org/> .
ex:s1 ex:p \"good 1\" ;
    ex:q ex:o1 .
ex:s2 ex:p \"broken literal .
ex:s3 ex:p \"good 3\" ;
    ex:q ex:o3 .
ex:s4 ex:p ex:o4 ;
    ex:q <http://ex.org/bad iri> ;
    ex:r ex:o4 .
PREFIX ey: <http://ex.org/>
ey:s5 ex:p \"good 5\", \"good 5b\" .
ex:s6 ex:p \"x\"@en-abcdefghijk .
ex:s7 ex:p [ ex:q \"good 7\" ] .
";

/// The subjects that are IRIs, as `sN` local names, with their quad counts.
fn subject_counts(dataset: &Dataset) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for name in subjects(dataset) {
        if !name.starts_with("_:") {
            *counts.entry(name).or_insert(0) += 1;
        }
    }
    counts.into_iter().collect()
}

/// The line numbers of a report's skipped statements.
fn skipped_lines(errors: &[String], file: &str) -> Vec<usize> {
    errors
        .iter()
        .map(|e| {
            e.split_once(&format!("{file}: line "))
                .and_then(|(_, rest)| rest.split_once(','))
                .unwrap_or_else(|| panic!("a position in {e:?}"))
                .0
                .parse()
                .expect("a line number")
        })
        .collect()
}

#[test]
fn turtle_skips_each_bad_statement_whole_and_reads_on() {
    let expected = [("s1", 2), ("s3", 2), ("s5", 2), ("s7", 1)]
        .map(|(s, n)| (s.to_owned(), n))
        .to_vec();
    let (store, report) = bulk_lenient("bad.ttl", TURTLE);
    assert_eq!(subject_counts(&dump(&store)), expected);
    assert_eq!(report.skipped, 3, "{:?}", report.first_errors);
    assert_eq!(skipped_lines(&report.first_errors, "bad.ttl"), [4, 8, 12]);
    assert_eq!(report.quads_read, 8);

    let (store, report) = trickle_lenient("bad.ttl", TURTLE, RdfFormat::Turtle);
    assert_eq!(subject_counts(&dump(&store)), expected);
    assert_eq!(skipped_lines(&report.first_errors, "bad.ttl"), [4, 8, 12]);
    assert_eq!(report.quads, 8);
}

#[test]
fn trig_reads_on_inside_the_graph_block_of_a_bad_statement() {
    let data = "@prefix ex: <http://ex.org/> .
ex:g1 {
  ex:s1 ex:p \"good 1\" .
  ex:s2 ex:p \"broken .
  ex:s3 ex:p \"good 3\" .
}
ex:s4 ex:p \"default 4\" .
GRAPH ex:g2 { ex:s5 ex:p <http://ex.org/bad iri> . ex:s6 ex:p \"good 6\" }
ex:s7 ex:p \"default 7\" .
";
    let (store, report) = bulk_lenient("bad.trig", data);
    assert_eq!(
        skipped_lines(&report.first_errors, "bad.trig"),
        [4, 8],
        "{:?}",
        report.first_errors
    );
    let graph_of = |subject: &str| -> Vec<String> {
        dump(&store)
            .iter()
            .filter(|q| q.subject.to_string() == format!("<http://ex.org/{subject}>"))
            .map(|q| q.graph_name.to_string())
            .collect()
    };
    for (subject, graph) in [
        ("s1", "<http://ex.org/g1>"),
        ("s3", "<http://ex.org/g1>"),
        ("s4", "DEFAULT"),
        ("s6", "<http://ex.org/g2>"),
        ("s7", "DEFAULT"),
    ] {
        assert_eq!(graph_of(subject), [graph], "{subject}");
    }
    assert!(graph_of("s2").is_empty() && graph_of("s5").is_empty());
    assert_eq!(report.quads_read, 5);
}

/// Nomisma's lines as Turtle: one statement per run of lines with the same subject, its
/// predicates and objects on lines of their own (`S P O ;` then `    P O ;` … `    P O .`).
/// Each statement is a list of lines.
fn turtle_statements(lines: &[String]) -> Vec<Vec<String>> {
    let mut statements: Vec<(String, Vec<String>)> = Vec::new();
    for line in lines {
        let (subject, rest) = line.split_once(' ').expect("a subject");
        let rest = rest
            .trim_end()
            .strip_suffix('.')
            .expect("a final dot")
            .trim_end();
        match statements.last_mut() {
            Some((last, objects)) if last == subject => objects.push(rest.to_owned()),
            _ => statements.push((subject.to_owned(), vec![rest.to_owned()])),
        }
    }
    statements
        .into_iter()
        .map(|(subject, objects)| {
            let last = objects.len() - 1;
            objects
                .iter()
                .enumerate()
                .map(|(i, po)| {
                    let head = if i == 0 {
                        format!("{subject} ")
                    } else {
                        "    ".to_owned()
                    };
                    format!("{head}{po} {}", if i == last { '.' } else { ';' })
                })
                .collect()
        })
        .collect()
}

/// Breaks one line of a Turtle statement; `None` when the way does not apply to it. Kind 2
/// (no final dot) applies to a statement's last line only, and joins it to the next statement.
fn break_turtle_line(line: &str, kind: usize) -> Option<String> {
    match kind {
        0 => {
            let close = line.rfind('"')?;
            (line.find('"')? < close).then(|| format!("{}{}", &line[..close], &line[close + 1..]))
        }
        1 => line
            .contains("<http")
            .then(|| line.replacen("<http", "<http ", 1)),
        2 => Some(line.strip_suffix(" .")?.to_owned()),
        3 => {
            let end = line.chars().last()?;
            let (head, _) = line.trim_start().split_once(' ')?;
            let indent = &line[..line.len() - line.trim_start().len()];
            let predicate = if indent.is_empty() {
                line.split(' ').take(2).collect::<Vec<_>>().join(" ")
            } else {
                format!("{indent}{head}")
            };
            Some(format!("{predicate} \"x\"@en-abcdefghijk {end}"))
        }
        _ => line
            .contains("<http")
            .then(|| line.replacen("<http", "<ht\u{7}tp", 1)),
    }
}

#[test]
fn lenient_load_of_a_faulty_turtle_dump_keeps_every_untouched_statement() {
    let clean = nomisma_lines(NOMISMA_LINES);
    let good: Vec<String> = clean
        .into_iter()
        .filter(|l| oxttl::NTriplesParser::new().for_slice(l).all(|t| t.is_ok()))
        .collect();
    let statements = turtle_statements(&good);
    let mut faulty = statements.clone();
    // Statement index → (line of the error, counted from 1 in the faulty document).
    let mut touched = std::collections::BTreeMap::new();
    let mut lost = BTreeSet::new();
    let mut random = Seeded(0x2023_0002);
    while touched.len() < FAULTS {
        let index = random.below(statements.len() - 1);
        let kind = touched.len() % 5;
        let near = |i: usize| touched.contains_key(&i) || lost.contains(&i);
        if index == 0 || near(index - 1) || near(index) || near(index + 1) {
            continue;
        }
        let lines = &statements[index];
        let which = if kind == 2 {
            lines.len() - 1
        } else {
            random.below(lines.len())
        };
        let Some(broken) = break_turtle_line(&lines[which], kind) else {
            continue;
        };
        faulty[index][which] = broken;
        let first_line: usize = statements[..index].iter().map(Vec::len).sum::<usize>() + 1;
        let error_line = if kind == 2 {
            lost.insert(index + 1);
            first_line + lines.len()
        } else {
            first_line + which
        };
        touched.insert(index, error_line);
        lost.insert(index);
    }
    let join = |statements: &[Vec<String>]| {
        statements
            .iter()
            .flatten()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    let kept: Vec<Vec<String>> = statements
        .iter()
        .enumerate()
        .filter(|(i, _)| !lost.contains(i))
        .map(|(_, s)| s.clone())
        .collect();

    let (store, report) = bulk_lenient("faulty.ttl", &join(&faulty));
    assert_eq!(
        skipped_lines(&report.first_errors, "faulty.ttl"),
        touched.values().copied().collect::<Vec<_>>(),
        "{:#?}",
        report.first_errors
    );
    assert_eq!(report.skipped, FAULTS as u64);
    assert_eq!(
        report.quads_read,
        kept.iter().map(Vec::len).sum::<usize>() as u64
    );

    let expected = TempStore::new();
    let input = write_input(expected.scratch(), "clean.ttl", join(&kept).as_bytes());
    BulkLoader::new(&expected)
        .load(&[input])
        .expect("the untouched statements load strictly");
    assert_eq!(dump(&store), dump(&expected));
}

#[test]
fn trig_graph_blocks_longer_than_a_read_keep_their_graph_after_a_bad_statement() {
    let mut data = String::from("@prefix ex: <http://ex.org/> .\nex:g {\n");
    for i in 0..4000 {
        if i == 3500 {
            data.push_str("  ex:bad ex:p \"broken .\n");
        }
        data.push_str(&format!(
            "  ex:s{i} ex:p \"a statement long enough to fill blocks\" .\n"
        ));
    }
    data.push_str("}\nex:after ex:p \"default\" .\n");
    let (store, report) = bulk_lenient("long.trig", &data);
    assert_eq!(skipped_lines(&report.first_errors, "long.trig"), [3503]);
    let loaded = dump(&store);
    assert_eq!(loaded.len(), 4001);
    let graph = NamedNodeRef::new_unchecked("http://ex.org/g");
    assert_eq!(
        loaded
            .iter()
            .filter(|q| q.graph_name == graph.into())
            .count(),
        4000
    );
}
