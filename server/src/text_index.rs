//! The text index's place in the server: where it lives (`<data>/text-index`), opening it with
//! its follower thread for `serve`, and `lodestone reindex`.

use crate::cli::ReindexArgs;
use crate::priority::Nice;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lodestone_indexer::{Follower, IndexSettings, TextIndex};
use lodestone_store::{Store, StoreOptions};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How often the follower looks for new commits.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(20);

/// The index folder of a data folder.
pub fn index_path(data: &Path) -> PathBuf {
    data.join("text-index")
}

/// Opens (or creates) the index of a store and starts following the store. A missing or
/// unreadable index folder is rebuilt by the follower; searches wait for it briefly.
///
/// The index's threads (the follower, tantivy's indexing and merging threads) run at `nice`:
/// they are started from a thread lowered to it, whose value they inherit
/// ([`crate::priority`]). Searches run on the caller's threads and keep their priority.
pub fn start(
    store: &Arc<Store>,
    data: &Path,
    settings: IndexSettings,
    nice: Nice,
) -> anyhow::Result<(Arc<TextIndex>, Follower)> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                nice.apply_to_current_thread();
                open_and_follow(store, data, settings)
            })
            .join()
            .map_err(|_| anyhow::anyhow!("opening the text index panicked"))?
    })
}

fn open_and_follow(
    store: &Arc<Store>,
    data: &Path,
    settings: IndexSettings,
) -> anyhow::Result<(Arc<TextIndex>, Follower)> {
    let path = index_path(data);
    let index = Arc::new(
        TextIndex::open(&path, settings)
            .with_context(|| format!("cannot open the text index at {}", path.display()))?,
    );
    match index.applied() {
        Some(sequence) => tracing::info!(
            sequence,
            behind = store.sequence().saturating_sub(sequence),
            "text index opened"
        ),
        None => tracing::info!("text index missing: building it in the background"),
    }
    let follower = Follower::start(Arc::clone(store), Arc::clone(&index), FOLLOW_INTERVAL)
        .context("cannot start the text index follower")?;
    Ok((index, follower))
}

/// `lodestone reindex`: rebuilds the text index from scratch with a progress bar.
pub fn reindex(args: &ReindexArgs) -> anyhow::Result<()> {
    let settings = crate::config::search_settings(args.config.as_deref())?;
    let args = &args.data;
    let options = StoreOptions {
        create_if_missing: false,
        ..StoreOptions::default()
    };
    let store = Store::open(&args.data, options)
        .with_context(|| format!("cannot open the store at {}", args.data.display()))?;
    let total = store
        .reader()
        .counts()
        .context("cannot count the quads")?
        .quads;
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
    let report = index.rebuild(&store, |quads| {
        if let Some(bar) = &bar {
            bar.set_position(quads);
        }
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
    Ok(())
}

/// The `[search]` table of `lodestone.toml` (every key optional; see
/// `docs/configuration.md`).
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchFileConfig {
    /// Label properties, most preferred first (replaces the default list).
    pub label_predicates: Option<Vec<String>>,
    /// Description properties, most preferred first (replaces the default list).
    pub description_predicates: Option<Vec<String>>,
    /// Words never indexed nor searched.
    pub stop_words: Option<Vec<String>>,
    /// Longest query accepted, in characters.
    pub max_query_chars: Option<usize>,
    /// Multiplier of label matches.
    pub label_boost: Option<f32>,
    /// Added for a label equal to the query.
    pub exact_label_boost: Option<f32>,
    /// Added for a label word starting with the last query word.
    pub prefix_label_boost: Option<f32>,
    /// Multiplier of the match of all query words close together.
    pub proximity_boost: Option<f32>,
    /// Weight of the in-degree: `× (1 + rank_weight · ln(1 + in-degree))`.
    pub rank_weight: Option<f32>,
}

impl SearchFileConfig {
    /// The index settings: the defaults with every given key applied.
    pub fn settings(&self) -> IndexSettings {
        let mut settings = IndexSettings::default();
        if let Some(v) = &self.label_predicates {
            settings.label_predicates = v.clone();
        }
        if let Some(v) = &self.description_predicates {
            settings.description_predicates = v.clone();
        }
        if let Some(v) = &self.stop_words {
            settings.stop_words = v.clone();
        }
        if let Some(v) = self.max_query_chars {
            settings.max_query_chars = v.max(1);
        }
        let w = &mut settings.weights;
        for (value, slot) in [
            (self.label_boost, &mut w.label_boost),
            (self.exact_label_boost, &mut w.exact_label_boost),
            (self.prefix_label_boost, &mut w.prefix_label_boost),
            (self.proximity_boost, &mut w.proximity_boost),
            (self.rank_weight, &mut w.rank_weight),
        ] {
            if let Some(v) = value.filter(|v| v.is_finite() && *v >= 0.0) {
                *slot = v;
            }
        }
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::DataArgs;

    #[test]
    fn search_settings_from_the_file() {
        let file: SearchFileConfig = toml::from_str(
            "label_predicates = [\"http://example.org/name\"]\nrank_weight = 0.5\nstop_words = [\"the\"]\n",
        )
        .expect("parses");
        let settings = file.settings();
        assert_eq!(settings.label_predicates, ["http://example.org/name"]);
        assert_eq!(settings.weights.rank_weight, 0.5);
        assert_eq!(settings.stop_words, ["the"]);
        assert!(toml::from_str::<SearchFileConfig>("unknown = 1").is_err());
    }

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

    #[test]
    fn the_documented_search_example_is_valid() {
        let doc = include_str!("../../docs/configuration.md");
        let section = &doc[doc.find("## Search settings").expect("a search section")..];
        let start = section.find("```toml").expect("an example") + "```toml".len();
        let end = start + section[start..].find("```").expect("the example's end");
        let file: crate::config::FileConfig =
            toml::from_str(&section[start..end]).unwrap_or_else(|e| panic!("{e}"));
        let settings = file.search.expect("a [search] table").settings();
        assert_eq!(settings.stop_words, ["the", "of", "and"]);
        assert_eq!(settings.weights.rank_weight, 0.2);
    }
}
