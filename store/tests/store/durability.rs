//! What survives a close, a killed process and an interrupted bulk load, and what `open`
//! refuses: a folder that holds something else, or a store of another format version.

use crate::oracle::{check_store, Model};
use crate::support::{
    bulk_load, bulk_loaded_music, counts, dump, load_folders, music, options, parse,
    read_only_options, transaction_load, with_raw_meta, write_input, TempStore,
};
use lodestone_store::load::{simulate_crash_after_next_ingest, BulkLoader, Input, RdfFormat};
use lodestone_store::{Store, StoreError, StoreOptions, FORMAT_VERSION};
use oxrdf::{Literal, NamedNode, Quad};
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn random_below(n: u64) -> u64 {
    RandomState::new().hash_one(0_u8) % n
}

#[test]
fn reopening_after_a_clean_close_keeps_every_commit() {
    let store = bulk_loaded_music(500);
    let blanks = "_:a <http://example.com/p> _:b .\n_:b <http://example.com/p> \"x\" .\n";
    transaction_load(
        &store,
        &[("blanks.nt", blanks.as_bytes(), RdfFormat::NTriples)],
    );
    let (before, before_counts, sequence) = (dump(&store), counts(&store), store.sequence());

    let store = store.reopen();
    assert_eq!(dump(&store), before);
    assert_eq!(counts(&store), before_counts);
    assert_eq!(store.sequence(), sequence);
    // The counters carried over: new terms and blank nodes do not reuse old ids.
    transaction_load(
        &store,
        &[("blanks.nt", blanks.as_bytes(), RdfFormat::NTriples)],
    );
    bulk_load(
        &store,
        &[write_input(store.scratch(), "blanks.nt", blanks.as_bytes())],
    );
    let after = dump(&store);
    assert_eq!(
        after.len(),
        before.len() + 4,
        "two more copies of the blank node document"
    );
    check_store(&store, &Model::from_dataset(&after), &[]);
}

const WRITER_ENV: &str = "LODESTONE_TEST_WRITER";

fn writer_quads(i: u64) -> Vec<Quad> {
    (0..5)
        .map(|j| {
            Quad::new(
                NamedNode::new_unchecked(format!("http://example.com/commit/{i}")),
                NamedNode::new_unchecked(format!("http://example.com/p{j}")),
                Literal::new_simple_literal(format!("{i}-{j}")),
                oxrdf::GraphName::DefaultGraph,
            )
        })
        .collect()
}

/// The child side of `killed_writer_loses_no_acknowledged_commit`: commits forever (every
/// seventh commit a bulk load), printing `ack <i> <sequence>` after each one returns.
#[test]
#[ignore = "run as a child process by killed_writer_loses_no_acknowledged_commit"]
fn child_writer() {
    let setting =
        std::env::var(WRITER_ENV).expect("run by killed_writer_loses_no_acknowledged_commit");
    let (path, first) = setting.split_once('|').expect("path|first");
    let first: u64 = first.parse().expect("first commit number");
    let store = Store::open(path, options()).expect("open");
    let mut out = std::io::stdout().lock();
    for i in first.. {
        let sequence = if i.is_multiple_of(7) {
            let data = crate::support::serialize(
                writer_quads(i).iter().map(Quad::as_ref),
                RdfFormat::NTriples,
            );
            let file = Path::new(path).with_extension(format!("{i}.nt"));
            std::fs::write(&file, data).expect("input file");
            BulkLoader::new(&store)
                .load(&[Input::File(file)])
                .expect("bulk load");
            store.sequence()
        } else {
            let mut transaction = store.transaction().expect("transaction");
            for quad in writer_quads(i) {
                transaction.insert(quad.as_ref()).expect("insert");
            }
            transaction.commit().expect("commit")
        };
        writeln!(out, "ack {i} {sequence}").expect("stdout");
        out.flush().expect("stdout");
    }
}

/// Runs the child writer until it has acknowledged a random number of commits, kills it
/// with SIGKILL after a random short delay, and returns every acknowledgement it printed.
fn run_and_kill_writer(path: &Path, first: u64) -> Vec<(u64, u64)> {
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "durability::child_writer",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, format!("{}|{first}", path.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning the writer");
    let stdout = child.stdout.take().expect("child stdout");
    let mut lines = BufReader::new(stdout).lines();
    let target = 20 + random_below(150);
    let mut acks = Vec::new();
    let ack = |line: &str| -> Option<(u64, u64)> {
        let mut parts = line.strip_prefix("ack ")?.split(' ');
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    };
    while (acks.len() as u64) < target {
        let line = lines
            .next()
            .expect("the writer stopped early")
            .expect("reading");
        acks.extend(ack(&line));
    }
    std::thread::sleep(Duration::from_micros(random_below(3_000)));
    child.kill().expect("kill -9");
    child.wait().expect("reaping the writer");
    // Lines already in the pipe were printed after their commit returned: acknowledged too.
    acks.extend(lines.map_while(Result::ok).filter_map(|l| ack(&l)));
    acks
}

#[test]
fn killed_writer_loses_no_acknowledged_commit() {
    let store = TempStore::new();
    let path = store.path();
    let dir = store.close();
    for round in 0..3 {
        let acks = run_and_kill_writer(&path, round * 1_000_000);
        assert!(!acks.is_empty());
        let store = Store::open(&path, options()).expect("reopening after the kill");
        let reader = store.reader();
        for (i, sequence) in &acks {
            for quad in writer_quads(*i) {
                let encoded = reader.encode_quad(quad.as_ref()).expect("encode");
                let present = encoded.is_some_and(|q| reader.contains(&q).expect("lookup"));
                assert!(
                    present,
                    "acknowledged commit {i} (sequence {sequence}) lost {quad}"
                );
            }
        }
        let last = acks.iter().map(|(_, s)| *s).max().unwrap_or(0);
        assert!(
            store.sequence() >= last,
            "sequence {} < acknowledged {last}",
            store.sequence()
        );
        // Counters and statistics agree with what survived.
        let dumped = dump(&store);
        check_store(&store, &Model::from_dataset(&dumped), &[]);
    }
    drop(dir);
}

#[test]
fn interrupted_bulk_ingest_is_finished_at_the_next_open() {
    let store = TempStore::new();
    bulk_load(
        &store,
        &[write_input(
            store.scratch(),
            "first.nt",
            music(300).as_bytes(),
        )],
    );
    let input = write_input(store.scratch(), "second.nt", music(600).as_bytes());
    simulate_crash_after_next_ingest(&store.path());
    BulkLoader::new(&store)
        .load(&[input])
        .expect_err("the simulated crash");
    let sequence = store.sequence();

    let store = store.reopen();
    let expected = parse(music(600).as_bytes(), RdfFormat::NTriples);
    assert_eq!(dump(&store), expected);
    check_store(&store, &Model::from_dataset(&expected), &[]);
    assert_eq!(
        store.sequence(),
        sequence + 1,
        "the interrupted load's commit is finished"
    );
    assert_eq!(load_folders(&store.path()), 0, "the load folder is removed");
    // And the store goes on normally.
    transaction_load(
        &store,
        &[("more.nt", music(700).as_bytes(), RdfFormat::NTriples)],
    );
    check_store(
        &store,
        &Model::from_dataset(&parse(music(700).as_bytes(), RdfFormat::NTriples)),
        &[],
    );
}

#[test]
fn declared_prefixes_go_in_with_the_load_that_declares_them() {
    let store = TempStore::new();
    let turtle = "@prefix ex: <http://example.com/ns#> .\nex:a ex:p ex:b .\n";
    // A load that fails records nothing.
    let broken = write_input(
        store.scratch(),
        "broken.ttl",
        format!("{turtle}ex:c ex:p .\n").as_bytes(),
    );
    BulkLoader::new(&store)
        .load(&[broken])
        .expect_err("a syntax error");
    assert_eq!(store.declared_prefixes().expect("prefixes"), []);
    // A load killed after its ingest began has its prefixes once the next open finishes it.
    let input = write_input(store.scratch(), "data.ttl", turtle.as_bytes());
    simulate_crash_after_next_ingest(&store.path());
    BulkLoader::new(&store)
        .load(&[input])
        .expect_err("the simulated crash");
    let store = store.reopen();
    assert_eq!(counts(&store).quads, 1);
    assert_eq!(
        store.declared_prefixes().expect("prefixes"),
        [("ex".to_owned(), "http://example.com/ns#".to_owned())]
    );
}

#[test]
fn a_load_of_known_quads_declaring_a_prefix_is_a_commit() {
    let store = TempStore::new();
    let quads = "<http://example.com/ns#a> <http://example.com/ns#p> <http://example.com/ns#b> .\n";
    bulk_load(
        &store,
        &[write_input(store.scratch(), "a.nt", quads.as_bytes())],
    );
    let sequence = store.sequence();
    let turtle = format!("@prefix ex: <http://example.com/ns#> .\n{quads}");
    let input = write_input(store.scratch(), "again.ttl", turtle.as_bytes());
    let report = BulkLoader::new(&store).load(&[input]).expect("load");
    assert_eq!(report.quads_added, 0);
    assert_eq!(
        store.declared_prefixes().expect("prefixes"),
        [("ex".to_owned(), "http://example.com/ns#".to_owned())]
    );
    // Readers that cache the prefix table by commit sequence must see the change.
    assert_eq!(store.sequence(), sequence + 1);
}

#[test]
fn leftover_stdin_spool_file_does_not_stop_the_store_from_opening() {
    // `lodestone load -` copies standard input into the store folder; a crash leaves the copy.
    let store = bulk_loaded_music(50);
    let spool = store.path().join("load-tmp-stdin-4242");
    std::fs::write(&spool, "partial input").expect("spool file");
    let store = store.reopen();
    assert_eq!(counts(&store).quads, 50);
    assert!(!spool.exists(), "the stale copy is removed");
}

#[test]
fn read_only_open_reads_and_refuses_writes() {
    let store = bulk_loaded_music(50);
    let before = dump(&store);
    let path = store.path();
    let dir = store.close();
    let options = read_only_options();
    let read_only = Store::open(&path, options).expect("read-only open");
    assert_eq!(dump(&read_only), before);
    let quad = writer_quads(0).remove(0);
    let mut transaction = read_only.transaction().expect("transaction");
    transaction
        .insert(quad.as_ref())
        .expect("insert into the overlay");
    assert!(
        transaction.commit().is_err(),
        "a read-only store took a commit"
    );
    drop(read_only);
    assert_eq!(dump(&TempStore::from_parts(dir)), before);
}

#[test]
fn open_refuses_a_non_empty_folder_that_is_not_a_store() {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::write(dir.path().join("notes.txt"), "keep me").expect("file");
    let error = Store::open(dir.path(), options())
        .err()
        .expect("must refuse");
    assert!(error.to_string().contains("not empty"), "{error}");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("folder")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["notes.txt"], "nothing was added");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).expect("file"),
        "keep me"
    );
}

#[test]
fn open_refuses_a_missing_store_unless_asked_to_create_it() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("missing");
    let options = StoreOptions {
        create_if_missing: false,
        ..options()
    };
    assert!(matches!(
        Store::open(&path, options),
        Err(StoreError::NotFound(_))
    ));
    assert!(!path.exists());
}

#[test]
fn open_refuses_a_rocksdb_database_that_is_not_a_store() {
    let dir = tempfile::tempdir().expect("temporary folder");
    {
        let db = rocksdb::DB::open_default(dir.path()).expect("foreign database");
        db.put(b"their key", b"their value").expect("put");
    }
    let error = Store::open(dir.path(), options())
        .err()
        .expect("must refuse");
    assert!(error.to_string().contains("Lodestone"), "{error}");
    let families =
        rocksdb::DB::list_cf(&rocksdb::Options::default(), dir.path()).expect("families");
    assert_eq!(
        families,
        ["default"],
        "no tables were added to the foreign database"
    );
    let db = rocksdb::DB::open_default(dir.path()).expect("reopening the foreign database");
    assert_eq!(
        db.get(b"their key").expect("get").as_deref(),
        Some(&b"their value"[..])
    );
}

/// Sets the format version recorded in a closed store.
fn set_format_version(path: &Path, version: u64) {
    with_raw_meta(path, |db, meta| {
        db.put_cf(meta, b"version", version.to_le_bytes())
            .expect("put")
    });
}

#[test]
fn open_refuses_another_format_version_and_keeps_the_data() {
    let store = bulk_loaded_music(100);
    let before = dump(&store);
    let path = store.path();
    let dir = store.close();
    set_format_version(&path, FORMAT_VERSION + 1);
    match Store::open(&path, options()) {
        Err(
            error @ StoreError::VersionMismatch {
                found, expected, ..
            },
        ) => {
            assert_eq!((found, expected), (FORMAT_VERSION + 1, FORMAT_VERSION));
            assert!(error.to_string().contains("format version"), "{error}");
            assert!(error.to_string().contains("newer Lodestone"), "{error}");
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a store of another version was opened"),
    }
    set_format_version(&path, FORMAT_VERSION);
    let store = TempStore::from_parts(dir);
    assert_eq!(dump(&store), before, "the refused open changed nothing");
}

#[test]
fn a_store_open_elsewhere_is_reported_as_in_use() {
    let store = TempStore::new();
    let error = Store::open(store.path(), StoreOptions::default())
        .err()
        .expect("a second open of the same store must fail");
    assert!(
        matches!(error, StoreError::Locked(_)),
        "expected Locked, got {error:?}"
    );
    assert!(error.to_string().contains("in use by another process"));
}

#[test]
fn a_format_2_store_is_read_as_it_is_and_marked_format_3_by_a_read_write_open() {
    let store = bulk_loaded_music(100);
    let before = dump(&store);
    let path = store.path();
    let dir = store.close();
    set_format_version(&path, 2);
    let read_only = read_only_options();
    let store = Store::open(&path, read_only.clone()).expect("read-only open of format 2");
    assert_eq!(dump(&store), before);
    drop(store);
    let store = TempStore::from_parts(dir);
    assert_eq!(dump(&store), before);
    let _dir = store.close();
    // Now format 3: a build of format 2 refuses it.
    assert_eq!(format_version(&path), FORMAT_VERSION);
}

fn format_version(path: &Path) -> u64 {
    with_raw_meta(path, |db, meta| {
        let value = db
            .get_cf(meta, b"version")
            .expect("get")
            .expect("a version");
        u64::from_le_bytes(value.as_slice().try_into().expect("eight bytes"))
    })
}
