//! `lodestone serve`: open the store, load the sample into a new one, listen, stop cleanly.
//!
//! The tokio runtime lives here and nowhere else in the crate's command paths. Accepted sockets
//! get `TCP_NODELAY` (small responses must not wait for Nagle's algorithm). Ctrl-C or SIGTERM
//! stops accepting, lets running requests finish — each is bounded by its time budget — and
//! flushes the store before the process exits.

use crate::config::Config;
use crate::routes::app;
use crate::sample::load_sample;
use crate::state::AppState;
use anyhow::Context;
use axum::serve::ListenerExt;
use lodestone_store::Store;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// Runs the server described by `config` until ctrl-c or SIGTERM.
pub fn run(config: Config) -> anyhow::Result<()> {
    init_logging();
    if let Some(file) = &config.config_file {
        tracing::info!("configuration read from {}", file.display());
    }
    let fresh = is_missing_or_empty(&config.data)?;
    let store = Store::open(&config.data, config.store.clone())
        .with_context(|| format!("cannot open the store at {}", config.data.display()))?;
    if fresh && config.load_sample {
        tracing::info!(
            "new store at {}: loading the sample dataset (--no-sample to skip)",
            config.data.display()
        );
        let report = load_sample(&store).context("loading the sample dataset failed")?;
        tracing::info!(
            "sample dataset loaded: {} quads in {:.1} s",
            report.quads_added,
            report.elapsed.as_secs_f64()
        );
        for error in &report.first_errors {
            tracing::warn!("sample statement skipped: {error}");
        }
    }
    let store = Arc::new(store);
    let state = AppState::new(Arc::clone(&store), config.server.clone());
    let (text_index, follower) =
        crate::text_index::start(&store, &config.data, config.text_index.clone())?;
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("lodestone-http")
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(async {
        let listener = TcpListener::bind(config.bind)
            .await
            .with_context(|| format!("cannot listen on {}", config.bind))?;
        tracing::info!("listening on http://{}", listener.local_addr()?);
        serve_listener(listener, state, shutdown_signal()).await?;
        anyhow::Ok(())
    });
    // Blocking work still running (a response being aborted) gets a moment to end.
    runtime.shutdown_timeout(Duration::from_secs(5));
    drop(follower);
    store.flush().context("flushing the store failed")?;
    tracing::info!("stopped");
    result
}

/// Serves the application on a bound listener until `shutdown` completes, then waits for the
/// open requests to finish. Tests use it with a listener on port 0.
pub async fn serve_listener(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = listener.tap_io(|socket| {
        if let Err(error) = socket.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
    });
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await
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

/// Logs to standard error; `RUST_LOG` sets the filter (default `info`).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
