//! Limits on connections: how many are open, per peer and in all, and how long a client may
//! leave a response unread.
//!
//! Every connection costs a file descriptor and buffers, and a response a client does not read
//! keeps its query's memory. Without limits, a thousand idle sockets use up the descriptors the
//! store needs, and clients that never read hold gigabytes. So [`ConnectionLimits`] admits a
//! connection only while the server and the peer are under their caps (a refused one gets a
//! short `503` and is closed), and [`TimedWrites`] fails a connection whose writes make no
//! progress for the write timeout. Idle keep-alive connections are closed by hyper's header
//! read timeout, which also runs while a connection waits for its next request.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// What a refused connection is told before it is closed.
pub const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 42\r\n\r\ntoo many connections; retry in a moment.\r\n";

/// Descriptors kept for the store, the text index and the process itself when the connection
/// cap is derived from the descriptor limit (the store opens at most 512 files).
const RESERVED_DESCRIPTORS: u64 = 768;

/// The caps on open connections, shared by the accept loop.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    total: usize,
    per_peer: usize,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_peer: HashMap<IpAddr, usize>,
}

/// An admitted connection's place; the counts go down when it is dropped.
#[derive(Debug)]
pub struct Admission {
    limits: ConnectionLimits,
    peer: IpAddr,
}

impl ConnectionLimits {
    /// At most `total` connections (lowered to what the process's descriptor limit leaves) and
    /// `per_peer` from one address.
    pub fn new(total: usize, per_peer: usize) -> Self {
        let total = total.min(descriptor_room()).max(1);
        Self {
            inner: Arc::new(Inner {
                total,
                per_peer: per_peer.clamp(1, total),
                open: Mutex::new(Open::default()),
            }),
        }
    }

    /// The cap on all connections in force.
    pub fn total(&self) -> usize {
        self.inner.total
    }

    /// Admits a connection from `peer`, or `None` when the server or the peer is at its cap.
    pub fn admit(&self, peer: IpAddr) -> Option<Admission> {
        let mut open = self.lock();
        let from_peer = open.by_peer.get(&peer).copied().unwrap_or(0);
        if open.total >= self.inner.total || from_peer >= self.inner.per_peer {
            return None;
        }
        open.total += 1;
        open.by_peer.insert(peer, from_peer + 1);
        Some(Admission {
            limits: self.clone(),
            peer,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.inner
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut open = self.limits.lock();
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_peer.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                open.by_peer.remove(&self.peer);
            }
        }
    }
}

/// Connections the descriptor limit leaves room for, after the store's share.
fn descriptor_room() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX);
    usize::try_from(limit.saturating_sub(RESERVED_DESCRIPTORS).max(16)).unwrap_or(usize::MAX)
}

/// Raises the soft descriptor limit to the hard one, as servers do, so that the connection cap
/// is not lower than it needs to be. Failure is harmless: the cap follows the limit in force.
pub fn raise_descriptor_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        if let Err(error) = setrlimit(Resource::Nofile, limit) {
            tracing::debug!(%error, "cannot raise the descriptor limit");
        }
    }
}

/// A socket whose writes fail with `TimedOut` once they have made no progress for the
/// timeout: a client that stops reading its response is cut off, and its query's memory with
/// it.
pub struct TimedWrites<S> {
    socket: S,
    timeout: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> TimedWrites<S> {
    /// Wraps `socket`.
    pub fn new(socket: S, timeout: Duration) -> Self {
        Self {
            socket,
            timeout,
            stalled: None,
        }
    }
}

/// Maps a pending write to `TimedOut` once it has been pending for the timeout.
fn watch<T>(
    result: Poll<io::Result<T>>,
    stalled: &mut Option<Pin<Box<Sleep>>>,
    timeout: Duration,
    cx: &mut Context<'_>,
) -> Poll<io::Result<T>> {
    if result.is_ready() {
        *stalled = None;
        return result;
    }
    let sleep =
        stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + timeout)));
    match sleep.as_mut().poll(cx) {
        Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client read nothing of the response within the write timeout",
        ))),
        Poll::Pending => Poll::Pending,
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for TimedWrites<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for TimedWrites<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.socket).poll_write(cx, buf);
        watch(result, &mut this.stalled, this.timeout, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.socket).poll_write_vectored(cx, bufs);
        watch(result, &mut this.stalled, this.timeout, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.socket.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.socket).poll_flush(cx);
        watch(result, &mut this.stalled, this.timeout, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn peers_and_the_server_have_caps() {
        let limits = ConnectionLimits::new(3, 2);
        let a = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
        let b = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
        let first = limits.admit(a);
        let second = limits.admit(a);
        assert!(first.is_some() && second.is_some());
        assert!(limits.admit(a).is_none(), "a third from the same peer");
        let third = limits.admit(b);
        assert!(third.is_some());
        assert!(limits.admit(b).is_none(), "the server is full");
        drop(first);
        assert!(limits.admit(a).is_some(), "a place came back");
    }
}
