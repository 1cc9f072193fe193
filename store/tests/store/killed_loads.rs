//! A bulk load killed at any moment, however many chunks it is written in, is all or nothing:
//! the next open shows the store as it was before the load or with all of it, and rerunning
//! a load that left nothing gives exactly the right quads, blank nodes included.

use crate::oracle::{check_store, Model};
use crate::support::{
    assert_isomorphic, bulk_loaded_music, dump, load_folders, music, options, parse, write_input,
    TempStore,
};
use lodestone_store::load::{simulate_crash_after_next_ingest, BulkLoader, Input, RdfFormat};
use lodestone_store::Store;
use oxrdf::Dataset;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const LOADER_ENV: &str = "LODESTONE_TEST_LOADER";
/// Lines of the music data set already in the store before the load.
const BASE_LINES: usize = 300;

fn random_below(n: u64) -> u64 {
    RandomState::new().hash_one(0_u8) % n
}

/// The load's inputs: slices of the music data (the first overlapping what the store holds),
/// and two documents of chained blank nodes, one larger than a parse batch so that it is
/// split between chunks. With chunks of one quad every file ends a chunk: seven in all.
fn inputs(folder: &Path) -> Vec<Input> {
    let all = music(2_000);
    let lines: Vec<&str> = all.lines().collect();
    let mut inputs = Vec::new();
    for (i, slice) in lines.chunks(500).enumerate() {
        let text = slice.iter().map(|l| format!("{l}\n")).collect::<String>();
        inputs.push(write_input(
            folder,
            &format!("music-{i}.nt"),
            text.as_bytes(),
        ));
    }
    for (name, label, nodes) in [("small", "a", 300), ("large", "c", 9_000)] {
        let mut text = String::new();
        for i in 0..nodes {
            text.push_str(&format!(
                "_:{label}{i} <http://example.com/next> _:{label}{} .\n_:{label}{i} <http://example.com/n> \"{i}\" .\n",
                i + 1
            ));
        }
        inputs.push(write_input(folder, &format!("{name}.nt"), text.as_bytes()));
    }
    inputs
}

/// What the store holds after the whole load (the blank node labels of the two documents
/// differ, so one parse of all inputs scopes them right).
fn expected(inputs: &[Input]) -> Dataset {
    let mut all = parse(music(BASE_LINES).as_bytes(), RdfFormat::NTriples);
    for input in inputs {
        let Input::File(path) = input else {
            unreachable!("files only")
        };
        let text = std::fs::read(path).expect("input file");
        all.extend(parse(&text, RdfFormat::NTriples).iter());
    }
    all
}

/// The child side of `killed_multi_chunk_load_leaves_none_or_all_of_it`: loads the inputs in
/// chunks of one quad, printing `writing` before each chunk is written.
#[test]
#[ignore = "run as a child process by killed_multi_chunk_load_leaves_none_or_all_of_it"]
fn child_loader() {
    let setting =
        std::env::var(LOADER_ENV).expect("run by killed_multi_chunk_load_leaves_none_or_all_of_it");
    let (store_path, folder) = setting.split_once('|').expect("store|inputs");
    let store = Store::open(store_path, options()).expect("open");
    BulkLoader::new(&store)
        .with_chunk_quads(1)
        .on_progress(|progress| {
            if progress.phase == "writing" {
                println!("writing");
            }
        })
        .load(&inputs(Path::new(folder)))
        .expect("bulk load");
    println!("done");
}

/// Runs the child loader and kills it with SIGKILL a random moment after it began writing a
/// random chunk (or lets it finish); returns whether it finished.
fn run_and_kill_loader(store_path: &Path, folder: &Path) -> bool {
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "killed_loads::child_loader",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            LOADER_ENV,
            format!("{}|{}", store_path.display(), folder.display()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning the loader");
    let stdout = child.stdout.take().expect("child stdout");
    let mut lines = BufReader::new(stdout).lines();
    let chunk = 1 + random_below(8);
    let mut written = 0;
    let mut finished = false;
    while written < chunk {
        match lines.next() {
            Some(Ok(line)) if line == "writing" => written += 1,
            Some(Ok(line)) if line == "done" => {
                finished = true;
                break;
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => break,
        }
    }
    std::thread::sleep(Duration::from_micros(random_below(20_000)));
    child.kill().expect("kill -9");
    child.wait().expect("reaping the loader");
    finished || lines.map_while(Result::ok).any(|l| l == "done")
}

#[test]
fn killed_multi_chunk_load_leaves_none_or_all_of_it() {
    let scratch = tempfile::tempdir().expect("temporary folder");
    let inputs = inputs(scratch.path());
    let base = parse(music(BASE_LINES).as_bytes(), RdfFormat::NTriples);
    let whole = expected(&inputs);
    let (mut none, mut all) = (0, 0);
    for round in 0..8 {
        let store = bulk_loaded_music(BASE_LINES);
        let path = store.path();
        let dir = store.close();
        let finished = run_and_kill_loader(&path, scratch.path());

        let store = TempStore::from_parts(dir);
        let found = dump(&store);
        if found.len() == base.len() {
            assert!(!finished, "round {round}: a finished load left nothing");
            assert_eq!(found, base, "round {round}: the store changed");
            none += 1;
            BulkLoader::new(&store)
                .with_chunk_quads(1)
                .load(&inputs)
                .expect("rerunning the load");
            let rerun = dump(&store);
            assert_isomorphic(&rerun, &whole, &format!("round {round}: rerun"));
            // The statistics too, once per outcome (the model check is the slow part).
            if none == 1 {
                check_store(&store, &Model::from_dataset(&rerun), &[]);
            }
        } else {
            assert_isomorphic(&found, &whole, &format!("round {round}: after the kill"));
            all += 1;
            if all == 1 {
                check_store(&store, &Model::from_dataset(&found), &[]);
            }
        }
        assert_eq!(load_folders(&store.path()), 0, "round {round}: leftovers");
    }
    eprintln!("killed loads: {none} left nothing, {all} left everything");
}

#[test]
fn multi_chunk_load_interrupted_during_its_ingest_is_finished_at_the_next_open() {
    let store = bulk_loaded_music(BASE_LINES);
    let inputs = inputs(store.scratch());
    let sequence = store.sequence();
    simulate_crash_after_next_ingest(&store.path());
    BulkLoader::new(&store)
        .with_chunk_quads(1)
        .load(&inputs)
        .expect_err("the simulated crash");
    assert_eq!(
        store.sequence(),
        sequence,
        "nothing is published before the counters"
    );

    let store = store.reopen();
    let found = dump(&store);
    assert_isomorphic(&found, &expected(&inputs), "after the reopen");
    check_store(&store, &Model::from_dataset(&found), &[]);
    assert_eq!(
        store.sequence(),
        sequence + 7,
        "one commit per chunk, all finished"
    );
    assert_eq!(load_folders(&store.path()), 0, "the load folder is removed");
}
