//! The text index built (or extended) at the end of `lodestone load`, in the same process, so
//! that the first `serve` answers searches at once instead of building it in the background.
//!
//! A store the index already reflects is extended from the change log (the loaded subjects'
//! documents made again) unless the load changed more subjects than a rebuild costs; a store
//! without an index gets one built from scratch. Progress is the load's: a bar on a terminal,
//! a line every few seconds elsewhere, phase `index`.

use crate::text_index::index_path;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lodestone_indexer::{BuildProgress, IndexSettings, TextIndex};
use lodestone_store::Store;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the progress is read from the running build.
const POLL: Duration = Duration::from_millis(200);

/// Seconds between two progress lines when standard error is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// Builds or extends the text index of the store in `data` up to the store's last commit.
pub(super) fn build(store: &Store, data: &Path, settings: IndexSettings) -> anyhow::Result<()> {
    let path = index_path(data);
    let started = Instant::now();
    let index = TextIndex::open(&path, settings)
        .with_context(|| format!("cannot open the text index at {}", path.display()))?;
    let before = index.document_count();
    let done = AtomicBool::new(false);
    let sequence = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| watch(&index, &done));
        let outcome = index.catch_up(store);
        done.store(true, Ordering::Release);
        let _ = watcher.join();
        outcome
    })
    .with_context(|| format!("cannot build the text index at {}", path.display()))?;
    let seconds = started.elapsed().as_secs_f64().max(1e-9);
    let documents = index.document_count();
    println!(
        "text index: {documents} entities ({} before) at store sequence {sequence}, in {seconds:.2} s: {:.0} entities/s",
        before,
        documents.saturating_sub(before) as f64 / seconds
    );
    wait_for_merge(&index);
    Ok(())
}

/// Waits for the merge a new index runs in the background, saying so before and after (at
/// 100 M quads it takes six minutes).
pub(super) fn wait_for_merge(index: &TextIndex) {
    let merging = Instant::now();
    let segments = index.segment_count();
    if segments > 1 {
        println!("text index: merging {segments} segments");
    }
    index.wait_for_merge();
    println!(
        "text index: {} segment(s) after {:.2} s of merging",
        index.segment_count(),
        merging.elapsed().as_secs_f64()
    );
}

/// Shows the running build's progress until `done`.
fn watch(index: &TextIndex, done: &AtomicBool) {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let mut last_line = Instant::now();
    while !done.load(Ordering::Acquire) {
        std::thread::sleep(POLL);
        let Some(progress) = index.building() else {
            continue;
        };
        match &bar {
            Some(bar) => {
                bar.set_length(progress.total);
                bar.set_position(progress.done);
                bar.set_message(line(&progress));
            }
            None if last_line.elapsed() >= LINE_EVERY => {
                last_line = Instant::now();
                eprintln!("{}", line(&progress));
            }
            None => {}
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

/// `[  12.0s] index: 1200000 of 3400000 quads read (35 %), 40000 entities indexed, 100000 quads/s, 22 s left`.
fn line(progress: &BuildProgress) -> String {
    let left = progress
        .remaining()
        .map_or_else(String::new, |d| format!(", {} s left", d.as_secs()));
    format!(
        "[{:>6.1}s] index ({}): {}, {:.0} {}/s{left}",
        progress.elapsed.as_secs_f64(),
        progress.kind.name(),
        progress.describe(),
        progress.rate(),
        progress.kind.unit()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::load::{BulkLoader, Input};
    use lodestone_store::StoreOptions;

    fn load(store: &Store, dir: &Path, name: &str, label: &str) {
        let file = dir.join(format!("{name}.nt"));
        let triple = format!(
            "<http://example.org/{name}> <http://www.w3.org/2000/01/rdf-schema#label> \"{label}\" .\n"
        );
        std::fs::write(&file, triple).expect("written");
        BulkLoader::new(store)
            .load(&[Input::File(file)])
            .expect("loaded");
    }

    #[test]
    fn a_load_leaves_an_index_that_reflects_the_store_then_extends_it() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let data = dir.path().join("store");
        let store = Store::open(&data, StoreOptions::default()).expect("a new store");
        load(&store, dir.path(), "ada", "Ada Lovelace");
        build(&store, &data, IndexSettings::default()).expect("built");
        load(&store, dir.path(), "alan", "Alan Turing");
        build(&store, &data, IndexSettings::default()).expect("extended");
        let index = TextIndex::open(index_path(&data), IndexSettings::default()).expect("opened");
        assert_eq!(index.applied(), Some(store.sequence()));
        assert_eq!(index.document_count(), 2);
    }
}
