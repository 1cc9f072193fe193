//! A document with a syntax error leaves the store exactly as it was, through either loading
//! path and however the load is chunked; the error names the file, line and column. Lenient
//! loads skip bad statements and say how many and where.

use crate::support::{bulk_load, counts, dump, music, write_input, TempStore};
use lodestone_store::load::{parse_into, BulkLoader, Input, ParseOptions, RdfFormat};
use lodestone_store::{StoreCounts, StoreError};
use oxrdf::Dataset;

/// What must not change when a load fails.
#[derive(Debug, PartialEq)]
struct Snapshot {
    quads: Dataset,
    counts: StoreCounts,
    sequence: u64,
}

fn snapshot(store: &TempStore) -> Snapshot {
    Snapshot {
        quads: dump(store),
        counts: counts(store),
        sequence: store.sequence(),
    }
}

/// A store with some data already in it, committed by both paths.
fn populated_store() -> TempStore {
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(
            store.scratch(),
            "base.nt",
            music(100).as_bytes(),
        )],
    );
    let mut transaction = store.transaction().expect("transaction");
    let extra = "<http://example.com/s> <http://example.com/p> \"committed\" .\n";
    parse_into(&mut transaction, extra.as_bytes(), "extra.nt", &nt()).expect("parse");
    transaction.commit().expect("commit");
    store
}

fn nt() -> ParseOptions {
    ParseOptions {
        format: Some(RdfFormat::NTriples),
        ..ParseOptions::default()
    }
}

/// `lines` good statements followed by a broken one on line `lines + 1`.
fn bad_document(lines: usize) -> String {
    format!(
        "{}<http://example.com/s> <http://example.com/p> \"unterminated .\n",
        music(lines)
    )
}

#[track_caller]
fn assert_names_position(error: &StoreError, file: &str, line: usize) {
    assert!(
        matches!(error, StoreError::Syntax { .. }),
        "a syntax error: {error:?}"
    );
    let message = error.to_string();
    assert!(message.contains(file), "{message:?} names {file}");
    assert!(
        message.contains(&format!("line {line},")),
        "{message:?} names line {line}"
    );
    assert!(message.contains("column "), "{message:?} names the column");
}

fn assert_no_leftovers(store: &TempStore) {
    for entry in std::fs::read_dir(store.path()).expect("store folder") {
        let name = entry.expect("entry").file_name();
        assert!(
            !name.to_string_lossy().starts_with("load-tmp"),
            "{name:?} left behind"
        );
    }
}

fn failing_bulk_load(loader: BulkLoader<'_>, inputs: &[Input]) -> StoreError {
    loader.load(inputs).expect_err("the load must fail")
}

#[test]
fn syntax_error_at_the_end_of_a_file_leaves_the_store_unchanged_bulk() {
    let store = populated_store();
    let before = snapshot(&store);
    let input = write_input(store.scratch(), "bad.nt", bad_document(200).as_bytes());
    let error = failing_bulk_load(BulkLoader::new(&store), &[input]);
    assert_names_position(&error, "bad.nt", 201);
    assert_eq!(snapshot(&store), before);
    assert_no_leftovers(&store);
}

#[test]
fn bad_second_file_fails_the_whole_bulk_load() {
    let store = populated_store();
    let before = snapshot(&store);
    let good = write_input(store.scratch(), "good.nt", music(300).as_bytes());
    let bad = write_input(store.scratch(), "bad.nt", bad_document(10).as_bytes());
    let error = failing_bulk_load(BulkLoader::new(&store), &[good.clone(), bad.clone()]);
    assert_names_position(&error, "bad.nt", 11);
    assert_eq!(snapshot(&store), before);
    // Chunks smaller than the good file: the inputs are validated before the first write.
    let error = failing_bulk_load(BulkLoader::new(&store).with_chunk_quads(50), &[good, bad]);
    assert_names_position(&error, "bad.nt", 11);
    assert_eq!(snapshot(&store), before);
    assert_no_leftovers(&store);
}

#[test]
fn syntax_error_after_the_first_chunk_of_one_file_leaves_the_store_unchanged() {
    // More statements than one parse batch, so that a chunk is full before the error is met.
    let store = populated_store();
    let before = snapshot(&store);
    let input = write_input(store.scratch(), "big.nt", bad_document(20_000).as_bytes());
    let error = failing_bulk_load(BulkLoader::new(&store).with_chunk_quads(1_000), &[input]);
    assert_names_position(&error, "big.nt", 20_001);
    assert_eq!(snapshot(&store), before);
    assert_no_leftovers(&store);
}

#[test]
fn turtle_syntax_error_names_line_and_column_bulk() {
    let store = populated_store();
    let before = snapshot(&store);
    let data = "@prefix ex: <http://example.com/> .\nex:a ex:p ex:b .\nex:a ex:p ex:c ;; ] .\n";
    let input = write_input(store.scratch(), "bad.ttl", data.as_bytes());
    let error = failing_bulk_load(BulkLoader::new(&store), &[input]);
    assert_names_position(&error, "bad.ttl", 3);
    assert_eq!(snapshot(&store), before);
}

#[test]
fn syntax_error_leaves_the_store_unchanged_transaction() {
    let store = populated_store();
    let before = snapshot(&store);
    let mut transaction = store.transaction().expect("transaction");
    let error = parse_into(
        &mut transaction,
        bad_document(200).as_bytes(),
        "bad.nt",
        &nt(),
    )
    .expect_err("the parse must fail");
    assert_names_position(&error, "bad.nt", 201);
    drop(transaction);
    assert_eq!(snapshot(&store), before);
}

#[test]
fn bad_second_document_fails_the_whole_transaction() {
    let store = populated_store();
    let before = snapshot(&store);
    let mut transaction = store.transaction().expect("transaction");
    parse_into(&mut transaction, music(300).as_bytes(), "good.nt", &nt()).expect("good document");
    let error = parse_into(
        &mut transaction,
        bad_document(10).as_bytes(),
        "bad.nt",
        &nt(),
    )
    .expect_err("the parse must fail");
    assert_names_position(&error, "bad.nt", 11);
    drop(transaction);
    assert_eq!(snapshot(&store), before);
}

/// Two broken statements, on lines 3 (no object) and 6 (a space in an IRI), among eight.
const TWO_BAD_LINES: &str = "<http://example.com/s> <http://example.com/p> \"1\" .
<http://example.com/s> <http://example.com/p> \"2\" .
<http://example.com/s> <http://example.com/p> .
<http://example.com/s> <http://example.com/p> \"4\" .
<http://example.com/s> <http://example.com/p> \"5\" .
<http://example.com/s> <http://example.com/p> <http://example.com/a b> .
<http://example.com/s> <http://example.com/p> \"7\" .
<http://example.com/s> <http://example.com/p> \"8\" .
";

#[track_caller]
fn assert_skipped(skipped: u64, errors: &[String]) {
    assert_eq!(skipped, 2, "{errors:?}");
    assert_eq!(errors.len(), 2);
    assert!(
        errors[0].contains("lenient.nt") && errors[0].contains("line 3,"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("lenient.nt") && errors[1].contains("line 6,"),
        "{errors:?}"
    );
}

#[test]
fn lenient_bulk_load_skips_bad_statements_and_reports_them() {
    let store = TempStore::new();
    let input = write_input(store.scratch(), "lenient.nt", TWO_BAD_LINES.as_bytes());
    let options = ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    };
    let report = BulkLoader::new(&store)
        .with_parse_options(options)
        .load(&[input])
        .expect("a lenient load succeeds");
    assert_skipped(report.skipped, &report.first_errors);
    assert_eq!(report.quads_added, 6);
    assert_eq!(counts(&store).quads, 6);
}

#[test]
fn lenient_transaction_load_skips_bad_statements_and_reports_them() {
    let store = TempStore::new();
    let mut transaction = store.transaction().expect("transaction");
    let options = ParseOptions {
        lenient: true,
        ..nt()
    };
    let report = parse_into(
        &mut transaction,
        TWO_BAD_LINES.as_bytes(),
        "lenient.nt",
        &options,
    )
    .expect("a lenient parse succeeds");
    transaction.commit().expect("commit");
    assert_skipped(report.skipped, &report.first_errors);
    assert_eq!(report.quads, 6);
    assert_eq!(counts(&store).quads, 6);
}

#[test]
fn lenient_load_still_rejects_invalid_iris() {
    // Leniency skips statements with errors; it must not let broken terms into the store.
    let data = "<http://example.com/s> <http://example.com/p> <http://example.com/a b> .\n\
                <http://example.com/s> <http://example.com/p> \"ok\" .\n";
    let store = TempStore::new();
    let input = write_input(store.scratch(), "iri.nt", data.as_bytes());
    let options = ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    };
    let report = BulkLoader::new(&store)
        .with_parse_options(options)
        .load(&[input])
        .expect("a lenient load succeeds");
    assert_eq!(report.skipped, 1, "{:?}", report.first_errors);
    assert_eq!(dump(&store).len(), 1);
}
