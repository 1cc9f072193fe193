//! `lodestone reindex`: the text index rebuilt from scratch, with a progress bar.

use super::open_store;
use crate::cli::ReindexArgs;
use crate::text_index::index_path;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lodestone_indexer::TextIndex;
use std::io::IsTerminal;

/// Seconds between two progress lines when standard error is not a terminal.
const LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Rebuilds the text index from scratch with a progress bar (progress lines without a
/// terminal).
pub(super) fn reindex(args: &ReindexArgs) -> anyhow::Result<()> {
    crate::allocator::restart_with(&crate::allocator::LONG_RUNNING)?;
    let settings = crate::config::search_settings(args.config.as_deref())?
        .within_budget(super::budget_bytes(args.memory_budget));
    let args = &args.data;
    let store = open_store(args, false)?;
    let total = store
        .reader()
        .quad_count()
        .context("cannot count the quads")?;
    let path = index_path(&args.data);
    let index = TextIndex::open(&path, settings)
        .with_context(|| format!("cannot open the text index at {}", path.display()))?;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "[{elapsed_precise}] {bar:30} {pos}/{len} quads ({per_sec}, ETA {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    // Without a terminal, a line every few seconds (logs of a long rebuild).
    let started = std::time::Instant::now();
    let mut last_line = started;
    let report = index.rebuild(&store, |quads| match &bar {
        Some(bar) => bar.set_position(quads),
        None if last_line.elapsed() >= LINE_EVERY => {
            last_line = std::time::Instant::now();
            let seconds = started.elapsed().as_secs_f64().max(1e-9);
            let entities = index.building().map_or(0, |p| p.entities);
            eprintln!(
                "[{seconds:>6.1}s] reindex: {quads} of {total} quads read, {entities} entities indexed, {:.0} entities/s",
                entities as f64 / seconds
            );
        }
        None => {}
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let seconds = report.elapsed.as_secs_f64().max(1e-9);
    println!(
        "indexed {} entities from {} quads in {:.2} s: {:.0} entities/s (store sequence {})",
        report.entities,
        report.quads,
        seconds,
        report.entities as f64 / seconds,
        report.sequence
    );
    super::load_index::wait_for_merge(&index);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::DataArgs;
    use lodestone_indexer::IndexSettings;
    use lodestone_store::{Store, StoreOptions};

    #[test]
    fn reindex_builds_with_the_config_files_settings() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let data = dir.path().join("store");
        {
            let store = Store::open(&data, StoreOptions::default()).expect("a new store");
            let mut transaction = store.transaction().expect("the writer");
            let quad = lodestone_store::model::QuadRef::new(
                lodestone_store::model::NamedNodeRef::new_unchecked("http://example.org/a"),
                lodestone_store::model::NamedNodeRef::new_unchecked("http://example.org/name"),
                lodestone_store::model::LiteralRef::new_simple_literal("Ada"),
                lodestone_store::model::GraphNameRef::DefaultGraph,
            );
            transaction.insert(quad).expect("inserted");
            transaction.commit().expect("committed");
        }
        let config = dir.path().join("lodestone.toml");
        std::fs::write(
            &config,
            "[search]\nlabel_predicates = [\"http://example.org/name\"]\n",
        )
        .expect("written");
        let args = ReindexArgs {
            data: DataArgs { data: data.clone() },
            config: Some(config.clone()),
            memory_budget: 2048,
        };
        reindex(&args).expect("reindexed");
        // Opened with the same settings, the index is current; with others it would be rebuilt.
        let settings = crate::config::search_settings(Some(&config)).expect("settings");
        let index = TextIndex::open(index_path(&data), settings).expect("opens");
        assert!(index.applied().is_some());
        drop(index);
        let index = TextIndex::open(index_path(&data), IndexSettings::default()).expect("opens");
        assert_eq!(index.applied(), None);
    }
}
