//! Serving the HTTP application on a bound socket: HTTP/1.1 connections with the settings'
//! limits, the connection caps, and a bounded graceful shutdown.

use crate::connections::{ConnectionLimits, TimedWrites, REFUSAL};
use crate::routes::app;
use crate::settings::MIN_HEADER_BYTES;
use crate::state::AppState;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// How long a stopping server waits for open requests before it drops them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves the application on a bound listener until `shutdown` completes, then waits for the
/// open requests to finish. Tests use it with a listener on port 0.
///
/// Each connection is HTTP/1.1 with the settings' limits: a request head larger than
/// `max_header_bytes` is answered 431; a client that takes longer than `read_timeout` to send
/// its headers, or to send its next request on a kept-alive connection, is disconnected, as is
/// one that reads nothing of a response for `write_timeout`; connections past the caps
/// ([`ConnectionLimits`]) get a short 503 and are closed. At shutdown, idle connections are
/// closed at once and busy ones after their current response, for at most [`SHUTDOWN_GRACE`].
/// While it serves, a store whose writes fail is probed ([`crate::write_probe`]).
pub async fn serve_listener(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let settings = state.settings().clone();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(settings.read_timeout)
        .max_buf_size(settings.max_header_bytes.max(MIN_HEADER_BYTES));
    let write_timeout = settings.write_timeout;
    let limits = ConnectionLimits::new(settings.max_connections, settings.max_connections_per_peer);
    let probe = tokio::spawn(crate::write_probe::watch(state.clone()));
    let rank_stop = Arc::new(AtomicBool::new(false));
    let rank = tokio::spawn(crate::rank_keeper::watch(
        state.clone(),
        Arc::clone(&rank_stop),
    ));
    let service = TowerToHyperService::new(app(state));
    let connections = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (socket, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
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
        let Some(admission) = limits.admit(peer.ip()) else {
            // Told why, without waiting for the client, then closed.
            let _ = socket.try_write(REFUSAL);
            tracing::debug!(%peer, "connection refused: at the connection cap");
            continue;
        };
        if let Err(error) = socket.set_nodelay(true) {
            tracing::debug!(%error, "cannot set TCP_NODELAY");
        }
        let io = TokioIo::new(TimedWrites::new(socket, write_timeout));
        let connection = connections.watch(http.serve_connection(io, service.clone()));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
            drop(admission);
        });
    }
    drop(listener);
    probe.abort();
    // A rank being computed stops at its next round; it is waited for, so that the process
    // does not exit (and tear the store down) under its thread.
    rank_stop.store(true, Ordering::Relaxed);
    if tokio::time::timeout(Duration::from_secs(5), rank)
        .await
        .is_err()
    {
        tracing::warn!("stopping while the entity rank is still being computed");
    }
    if tokio::time::timeout(SHUTDOWN_GRACE, connections.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "stopping with requests still open after {} s",
            SHUTDOWN_GRACE.as_secs()
        );
    }
    Ok(())
}
