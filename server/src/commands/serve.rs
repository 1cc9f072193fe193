//! `lodestone serve`: open the store, load the sample into a new one, listen, stop cleanly.
//!
//! The tokio runtime lives here and nowhere else in the crate's command paths; the connections
//! are served by [`crate::listener`]. Ctrl-C or SIGTERM stops accepting, lets running requests
//! finish — each is bounded by its time budget — and flushes the store before the process
//! exits.

use crate::cli::ServeArgs;
use crate::config::Config;
use crate::connections::raise_descriptor_limit;
use crate::listener::serve_listener;
use crate::sample::load_sample as load_sample_into;
use crate::state::AppState;
use anyhow::Context;
use lodestone_store::{Store, StoreOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// `lodestone serve`: resolves the configuration, tunes the allocator, and runs the server
/// until it is stopped (ctrl-c or SIGTERM).
pub(super) fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let config = Config::resolve(&args)?;
    let mut settings = crate::allocator::LONG_RUNNING.to_vec();
    if config.store.block_cache_bytes < SMALL_FOOTPRINT_CACHE_BYTES {
        settings.extend(crate::allocator::SMALL_FOOTPRINT);
    }
    crate::allocator::restart_with(&settings)?;
    run(config)
}

/// Below this block cache (a memory budget under 256 MB) the process returns freed memory to
/// the system at once.
const SMALL_FOOTPRINT_CACHE_BYTES: usize = 128 << 20;

/// Runs the server described by `config` until ctrl-c or SIGTERM.
pub(super) fn run(config: Config) -> anyhow::Result<()> {
    init_logging();
    if let Some(file) = &config.config_file {
        tracing::info!("configuration read from {}", file.display());
    }
    raise_descriptor_limit();
    if needs_creation(&config.data)? {
        create_store(&config.data, &config.store, config.load_sample)?;
    }
    let store = Store::open(&config.data, config.store.clone())
        .with_context(|| format!("cannot open the store at {}", config.data.display()))?;
    let store = Arc::new(store);
    let state = AppState::new(Arc::clone(&store), config.server.clone());
    let (text_index, follower) = crate::text_index::start(
        &store,
        &config.data,
        config.text_index.clone(),
        config.server.background_nice,
    )?;
    state.attach_text_index(text_index);
    tracing::info!(
        "updates: {:?}; default graph: {}; query budget {:.1} s; {} query slots",
        config.server.updates,
        if config.server.union_default_graph {
            "union of all graphs"
        } else {
            "strict"
        },
        config.server.query_timeout.as_secs_f64(),
        config.server.max_concurrent_queries
    );
    let runtime = crate::priority::runtime_builder()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(async {
        let listener = TcpListener::bind(config.bind)
            .await
            .with_context(|| format!("cannot listen on {}", config.bind))?;
        tracing::info!("listening on http://{}", listener.local_addr()?);
        serve_listener(listener, state.clone(), shutdown_signal()).await?;
        anyhow::Ok(())
    });
    // Blocking work still running (a response being aborted) gets a moment to end.
    runtime.shutdown_timeout(Duration::from_secs(5));
    state.stop_background_reads();
    drop(follower);
    store.flush().context("flushing the store failed")?;
    tracing::info!("stopped");
    result
}

/// Creates a new store at `data` whole or not at all: it is made, and given the sample, in a
/// staging folder beside `data`, then renamed into place. A process killed meanwhile leaves no
/// store (the next start begins again and removes the leftover), never a half-made one.
fn create_store(data: &Path, options: &StoreOptions, load_sample: bool) -> anyhow::Result<()> {
    let name = data
        .file_name()
        .with_context(|| format!("{} does not name a folder", data.display()))?
        .to_string_lossy()
        .into_owned();
    let parent = match data.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let prefix = format!(".{name}.staging-");
    for entry in std::fs::read_dir(&parent)?.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            tracing::info!(
                "removing {}, left by a start that did not finish",
                entry.path().display()
            );
            std::fs::remove_dir_all(entry.path())
                .with_context(|| format!("cannot remove {}", entry.path().display()))?;
        }
    }
    let staging = parent.join(format!("{prefix}{}", std::process::id()));
    {
        let store = Store::open(&staging, options.clone())
            .with_context(|| format!("cannot create a store at {}", staging.display()))?;
        if load_sample {
            tracing::info!(
                "new store at {}: loading the sample dataset (--no-sample to skip)",
                data.display()
            );
            let report = load_sample_into(&store).context("loading the sample dataset failed")?;
            tracing::info!(
                "sample dataset loaded: {} quads in {:.1} s",
                report.quads_added,
                report.elapsed.as_secs_f64()
            );
            for error in &report.first_errors {
                tracing::warn!("sample statement skipped: {error}");
            }
        }
        store.flush().context("flushing the new store failed")?;
    }
    if data.exists() {
        // An empty folder made for the store, perhaps a mount point that cannot be replaced:
        // its files move in one by one under a marker, RocksDB's `CURRENT` last.
        move_into(&staging, data)?;
    } else {
        std::fs::rename(&staging, data)
            .with_context(|| format!("cannot move the new store to {}", data.display()))?;
    }
    std::fs::File::open(&parent).and_then(|dir| dir.sync_all())?;
    Ok(())
}

/// Marks a store folder whose files are still being moved in; a start that finds it empties
/// the folder and creates the store again.
const CREATING_MARKER: &str = ".lodestone-creating";

fn move_into(staging: &Path, data: &Path) -> anyhow::Result<()> {
    let marker = data.join(CREATING_MARKER);
    std::fs::File::create(&marker)?.sync_all()?;
    let mut entries: Vec<_> = std::fs::read_dir(staging)?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(|name| name == "CURRENT");
    for name in entries {
        std::fs::rename(staging.join(&name), data.join(&name))
            .with_context(|| format!("cannot move the new store to {}", data.display()))?;
    }
    std::fs::File::open(data).and_then(|dir| dir.sync_all())?;
    std::fs::remove_file(&marker)?;
    std::fs::remove_dir(staging)?;
    Ok(())
}

/// Whether `data` needs a new store: missing, empty, or left half-filled by a start that was
/// stopped while moving a new store in (then it is emptied here).
fn needs_creation(data: &Path) -> anyhow::Result<bool> {
    if data.join(CREATING_MARKER).exists() {
        tracing::info!(
            "{} holds a store whose creation did not finish: creating it again",
            data.display()
        );
        for entry in std::fs::read_dir(data)? {
            let path = entry?.path();
            if path.is_dir() {
                std::fs::remove_dir_all(&path)?;
            } else {
                std::fs::remove_file(&path)?;
            }
        }
        return Ok(true);
    }
    is_missing_or_empty(data)
}

fn is_missing_or_empty(path: &std::path::Path) -> anyhow::Result<bool> {
    match std::fs::read_dir(path) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Completes on ctrl-c or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    tracing::info!("shutting down: finishing the requests in progress");
}

/// Logs to standard error; `RUST_LOG` sets the filter (default `info`). Colours only on a
/// terminal: a log file or journal gets plain text.
fn init_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}
