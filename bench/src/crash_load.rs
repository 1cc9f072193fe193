//! `crash-load`: `lodestone load` killed with SIGKILL at random moments of a load written in
//! several chunks; the next open must show none or all of the load, and rerunning a load that
//! left nothing must give exactly the quads of one whole load, blank nodes included.
//!
//! A reference run first loads a base (the first lines of the data set, so that the load
//! deduplicates against the store) and then the whole data set into a fresh store, and
//! records both stores' counts and the load's time. Each cycle then loads the base into a
//! fresh store, starts the load again, kills it after a random delay within the reference
//! load's time, opens the store in this process and compares its counts — the counters and a
//! scan of the `spog` index — with the reference ones. A store showing the base only is loaded
//! again, to the end, and must then show the reference counts exactly.

use crate::crash::print_violations;
use crate::process::lodestone_binary;
use crate::rng::Rng;
use anyhow::{bail, Context};
use lodestone_store::load::Input;
use lodestone_store::{Store, StoreCounts, StoreOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Options of `lodestone-bench crash-load`.
#[derive(Debug, clap::Args)]
pub(crate) struct CrashLoadArgs {
    /// Loads killed.
    #[arg(long, default_value_t = 50)]
    pub kills: usize,
    /// The data set loaded (any syntax `lodestone load` reads; it is loaded `--lenient`).
    #[arg(long, default_value = "../shared/data/real/nomisma.nt.zst")]
    pub dataset: PathBuf,
    /// Quads per chunk: the load must be written in several.
    #[arg(long, default_value_t = 100_000)]
    pub chunk_quads: usize,
    /// Lines of the data set loaded before each load (N-Triples or N-Quads data sets only).
    #[arg(long, default_value_t = 1_000)]
    pub base_lines: usize,
    /// Working folder (a temporary one by default).
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Seed of the delays.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
}

/// What a store shows after an open: its counters and the keys of its `spog` index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shown {
    counts: StoreCounts,
    scanned: u64,
}

/// Opens the store as the next `lodestone` command would, and reads what it holds.
fn open_and_count(data: &Path) -> anyhow::Result<(Shown, usize)> {
    let options = StoreOptions {
        create_if_missing: false,
        ..StoreOptions::default()
    };
    let store = Store::open(data, options).context("opening the store after the kill")?;
    let reader = store.reader();
    let counts = reader.counts()?;
    let mut scanned = 0;
    for quad in reader.quads_for_pattern(None, None, None, None) {
        quad?;
        scanned += 1;
    }
    drop(reader);
    drop(store);
    let leftovers = std::fs::read_dir(data)?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("load-tmp"))
        .count();
    Ok((Shown { counts, scanned }, leftovers))
}

/// `lodestone load --data DATA --lenient --chunk-quads N FILE`, to the end.
fn load(binary: &Path, data: &Path, chunk_quads: usize, file: &Path) -> anyhow::Result<()> {
    let output = loader(binary, data, chunk_quads, file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()?;
    if !output.status.success() {
        bail!(
            "lodestone load {} failed: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

fn loader(binary: &Path, data: &Path, chunk_quads: usize, file: &Path) -> Command {
    let mut command = Command::new(binary);
    command
        .arg("load")
        .arg("--data")
        .arg(data)
        .args(["--lenient", "--chunk-quads", &chunk_quads.to_string()])
        .arg(file)
        .stdin(Stdio::null());
    command
}

/// Whether a killed load had begun its final ingest: its folder holds the manifest, written
/// just before the folder is recorded in the store.
fn final_ingest_begun(data: &Path) -> anyhow::Result<bool> {
    Ok(std::fs::read_dir(data)?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("load-tmp"))
        .any(|e| e.path().join("manifest").exists()))
}

/// Writes the first `lines` lines of the data set to `path`.
fn write_base(dataset: &Path, lines: usize, path: &Path) -> anyhow::Result<()> {
    let reader = BufReader::new(Input::File(dataset.to_path_buf()).open(None)?);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for line in reader.lines().take(lines) {
        writeln!(out, "{}", line?)?;
    }
    out.flush()?;
    Ok(())
}

/// Runs the benchmark and prints its figures; fails if any open showed part of a load.
pub(crate) fn run(args: &CrashLoadArgs) -> anyhow::Result<()> {
    let binary = lodestone_binary()?;
    let temp = tempfile::tempdir()?;
    let work = args
        .work
        .clone()
        .unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&work)?;
    let base_file = work.join("base.nt");
    write_base(&args.dataset, args.base_lines, &base_file)?;
    let data = work.join("data");
    let fresh_base = || -> anyhow::Result<()> {
        if data.exists() {
            std::fs::remove_dir_all(&data)?;
        }
        load(&binary, &data, args.chunk_quads, &base_file)
    };

    fresh_base()?;
    let (before, _) = open_and_count(&data)?;
    let start = Instant::now();
    load(&binary, &data, args.chunk_quads, &args.dataset)?;
    let load_time = start.elapsed();
    let (after, _) = open_and_count(&data)?;
    if before.counts.quads != before.scanned || after.counts.quads != after.scanned {
        bail!("the reference stores' counters disagree with their indexes: {before:?} {after:?}");
    }
    println!(
        "crash-load: {} kills of `lodestone load --lenient --chunk-quads {}` of {} ({} quads \
         added to a store of {}, {:.1} s, about {} chunks)",
        args.kills,
        args.chunk_quads,
        args.dataset.display(),
        after.counts.quads - before.counts.quads,
        before.counts.quads,
        load_time.as_secs_f64(),
        after.counts.quads.div_ceil(args.chunk_quads as u64)
    );

    let mut rng = Rng::new(args.seed);
    let (mut none, mut all, mut finished, mut reruns_exact) = (0, 0, 0, 0);
    let mut in_final_ingest = 0;
    let mut violations = Vec::new();
    let window = u64::try_from(load_time.as_millis()).unwrap_or(u64::MAX) * 11 / 10;
    for kill in 0..args.kills {
        fresh_base()?;
        let delay = Duration::from_millis(rng.next_u64() % window.max(1));
        let mut child = loader(&binary, &data, args.chunk_quads, &args.dataset)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start lodestone load")?;
        std::thread::sleep(delay);
        let exited = child.try_wait()?.is_some();
        child.kill().ok();
        child.wait()?;
        if exited {
            finished += 1;
        }
        if final_ingest_begun(&data)? {
            in_final_ingest += 1;
        }
        let (shown, leftovers) = open_and_count(&data)?;
        if leftovers > 0 {
            violations.push(format!(
                "kill {kill}: {leftovers} load folders left after the open"
            ));
        }
        if shown == before {
            none += 1;
            load(&binary, &data, args.chunk_quads, &args.dataset)?;
            let (rerun, _) = open_and_count(&data)?;
            if rerun == after {
                reruns_exact += 1;
            } else {
                violations.push(format!(
                    "kill {kill} at {delay:?}: the rerun shows {} quads ({} in spog), \
                     expected {}",
                    rerun.counts.quads, rerun.scanned, after.counts.quads
                ));
            }
        } else if shown == after {
            all += 1;
        } else {
            violations.push(format!(
                "kill {kill} at {delay:?}: the store shows {} quads ({} in spog), expected {} \
                 or {}",
                shown.counts.quads, shown.scanned, before.counts.quads, after.counts.quads
            ));
        }
        if (kill + 1) % 10 == 0 {
            println!(
                "  after {} kills: {none} none, {all} all, {} violations",
                kill + 1,
                violations.len()
            );
        }
    }
    println!(
        "kills:                    {} ({finished} of them after the load had exited)",
        args.kills
    );
    println!(
        "next open showed none:    {none} (rerun to the end: {reruns_exact} exactly {} quads)",
        after.counts.quads
    );
    println!(
        "next open showed all:     {all} ({} quads)",
        after.counts.quads
    );
    println!(
        "killed during the commit: {in_final_ingest} (manifest written: the open finished the \
         ingest, or found it not yet recorded)"
    );
    print_violations(&violations)
}
