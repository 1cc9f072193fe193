//! `lodestone serve`: open the store, load the sample into a new one, listen, stop cleanly.
//!
//! The tokio runtime lives here and nowhere else in the crate's command paths. Accepted sockets
//! get `TCP_NODELAY` (small responses must not wait for Nagle's algorithm). Ctrl-C or SIGTERM
//! stops accepting, lets running requests finish — each is bounded by its time budget — and
//! flushes the store before the process exits.

use crate::config::Config;
use crate::config::MIN_HEADER_BYTES;
use crate::routes::app;
use crate::sample::load_sample;
use crate::state::AppState;
use anyhow::Context;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
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
///
/// Each connection is HTTP/1.1 with the settings' limits: a request head larger than
/// `max_header_bytes` is answered 431, and a client that takes longer than `read_timeout` to
/// send its headers is disconnected. At shutdown, idle connections are closed at once and busy
/// ones after their current response.
pub async fn serve_listener(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.settings().read_timeout)
        .max_buf_size(state.settings().max_header_bytes.max(MIN_HEADER_BYTES));
    let service = TowerToHyperService::new(app(state));
    let connections = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let socket = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) => socket,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before it was accepted:
                    // wait a moment instead of spinning.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(error) = socket.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let connection =
            connections.watch(http.serve_connection(TokioIo::new(socket), service.clone()));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.shutdown().await;
    Ok(())
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
