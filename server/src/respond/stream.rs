//! Streaming engine output: blocking work writes, the HTTP body reads, memory stays bounded.
//!
//! [`stream_blocking`] runs a closure in `spawn_blocking` with a [`ChunkSink`] to write into.
//! The sink cuts the output into chunks (at [`CHUNK_BYTES`], or sooner once [`FLUSH_AFTER`] has
//! passed since the last one) and hands them to the response body over a bounded channel, so a
//! client that reads slowly slows the engine down instead of the server buffering the result.
//!
//! The response head waits for the first chunk. That way an error before any output (bad
//! dataset, missing graph, time budget spent before the first row) is still a proper error
//! response with its status code, and a result that fits in one chunk is sent with a
//! `Content-Length` and, when the row cap cut it, an `X-Lodestone-Truncated: true` header.
//! Once the head is out, an error can only abort the body, which the client sees as a broken
//! chunked transfer; a cut at the row cap then ends the document normally and adds the
//! `X-Lodestone-Truncated: true` trailer (sent to clients that announce `TE: trailers`).
//!
//! The time budget covers evaluation and sending: a timer cancels the work's
//! [`CancellationToken`] when it runs out, and a send that cannot complete before the deadline
//! fails. A client that goes away makes the next send fail, which cancels the token too.

use crate::error::ApiError;
use crate::state::AppState;
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::Frame;
use lodestone_store::sparql::CancellationToken;
use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};

/// A chunk is sent once this many bytes are buffered.
pub const CHUNK_BYTES: usize = 32 * 1024;
/// A partial chunk is sent at the next write once this long has passed since the last send,
/// so that a slow query's first rows do not wait for a full chunk.
pub const FLUSH_AFTER: Duration = Duration::from_millis(100);
/// Chunks buffered between the engine and the socket.
const CHANNEL_CHUNKS: usize = 4;

/// The header (or trailer) that flags a result cut at the row cap.
pub const TRUNCATED_HEADER: HeaderName = HeaderName::from_static("x-lodestone-truncated");

/// What the blocking work reports when it ends without error.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outcome {
    /// The result was cut at the row cap.
    pub truncated: bool,
}

enum Head {
    /// Output is flowing through the channel.
    Streaming,
    /// The work finished before the first chunk was sent: here is all of it.
    Complete { body: Bytes, truncated: bool },
}

enum Message {
    Data(Bytes),
    Trailers(HeaderMap),
    Abort(io::Error),
}

/// Where blocking work writes its output. Implements [`Write`].
pub struct ChunkSink {
    buffer: Vec<u8>,
    last_send: Instant,
    deadline: Instant,
    budget: Duration,
    head: Option<oneshot::Sender<Result<Head, ApiError>>>,
    tx: mpsc::Sender<Message>,
    runtime: Handle,
    token: CancellationToken,
    failure: Option<ApiError>,
}

impl ChunkSink {
    /// Whether the response head has been sent (errors can no longer change the status).
    pub fn head_sent(&self) -> bool {
        self.head.is_none()
    }

    /// Why writing failed, if it did: the budget ran out, or the client went away.
    pub fn take_failure(&mut self) -> Option<ApiError> {
        self.failure.take()
    }

    fn send(&mut self, message: Message) -> io::Result<()> {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let sent = self
            .runtime
            .block_on(tokio::time::timeout(remaining, self.tx.send(message)));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => {
                self.token.cancel();
                self.failure = Some(ApiError::Internal("the client went away".into()));
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
            }
            Err(_) => {
                self.token.cancel();
                self.failure = Some(ApiError::Timeout(self.budget));
                Err(io::Error::new(io::ErrorKind::TimedOut, "time budget spent while sending"))
            }
        }
    }

    fn send_buffer(&mut self) -> io::Result<()> {
        if let Some(head) = self.head.take() {
            // The handler may have given up (client gone); then the send below fails too.
            let _ = head.send(Ok(Head::Streaming));
        }
        let data = Bytes::from(std::mem::take(&mut self.buffer));
        self.last_send = Instant::now();
        self.buffer.reserve(CHUNK_BYTES);
        self.send(Message::Data(data))
    }

    fn finish(mut self, outcome: Outcome) {
        if let Some(head) = self.head.take() {
            let body = Bytes::from(std::mem::take(&mut self.buffer));
            let _ = head.send(Ok(Head::Complete { body, truncated: outcome.truncated }));
            return;
        }
        if !self.buffer.is_empty() && self.send_buffer().is_err() {
            return;
        }
        if outcome.truncated {
            let mut trailers = HeaderMap::new();
            trailers.insert(TRUNCATED_HEADER, HeaderValue::from_static("true"));
            let _ = self.send(Message::Trailers(trailers));
        }
    }

    fn fail(mut self, error: ApiError) {
        match self.head.take() {
            Some(head) => {
                let _ = head.send(Err(error));
            }
            None => {
                tracing::warn!(%error, "response aborted after its head was sent");
                let _ = self.send(Message::Abort(io::Error::other(error.to_string())));
            }
        }
    }
}

impl Write for ChunkSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(data);
        if self.buffer.len() >= CHUNK_BYTES || self.last_send.elapsed() >= FLUSH_AFTER {
            self.send_buffer()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Chunks are cut by size and time; serializers' flushes must not make tiny chunks.
        Ok(())
    }
}

/// The HTTP body side of the channel.
struct ChannelBody {
    rx: mpsc::Receiver<Message>,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.rx.poll_recv(cx).map(|message| match message? {
            Message::Data(data) => Some(Ok(Frame::data(data))),
            Message::Trailers(trailers) => Some(Ok(Frame::trailers(trailers))),
            Message::Abort(error) => Some(Err(error)),
        })
    }
}

/// Cancels the token when the budget runs out, unless dropped first.
struct Timer(tokio::task::AbortHandle);

impl Drop for Timer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the timer that cancels `token` after `budget`; stopping when the guard is dropped.
pub fn start_timer(token: &CancellationToken, budget: Duration) -> impl Drop + Send {
    let token = token.clone();
    let task = tokio::spawn(async move {
        tokio::time::sleep(budget).await;
        token.cancel();
    });
    Timer(task.abort_handle())
}

/// Runs `work` on a blocking thread and streams what it writes as the response body.
///
/// `content_type` is the response's media type; the permit is held until the work ends.
pub async fn stream_blocking<F>(
    state: &AppState,
    permit: OwnedSemaphorePermit,
    budget: Duration,
    content_type: &'static str,
    work: F,
) -> Result<Response, ApiError>
where
    F: FnOnce(&mut ChunkSink, &CancellationToken) -> Result<Outcome, ApiError> + Send + 'static,
{
    let token = CancellationToken::new();
    let timer = start_timer(&token, budget);
    let (head_tx, head_rx) = oneshot::channel();
    let (tx, rx) = mpsc::channel(CHANNEL_CHUNKS);
    let metrics_state = state.clone();
    let mut sink = ChunkSink {
        buffer: Vec::with_capacity(CHUNK_BYTES),
        last_send: Instant::now(),
        deadline: Instant::now() + budget,
        budget,
        head: Some(head_tx),
        tx,
        runtime: Handle::current(),
        token: token.clone(),
        failure: None,
    };
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let _timer = timer;
        let result = work(&mut sink, &token);
        // A write failure explains the error better than the serializer's io::Error.
        let result = match (result, sink.take_failure()) {
            (Err(_), Some(failure)) => Err(failure),
            (Err(_), None) if token.is_cancelled() => Err(ApiError::Timeout(budget)),
            (result, _) => result,
        };
        metrics_state.metrics().record_outcome(result.as_ref().err());
        match result {
            Ok(outcome) => {
                if outcome.truncated {
                    metrics_state
                        .metrics()
                        .truncated
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                sink.finish(outcome);
            }
            Err(error) => sink.fail(error),
        }
    });
    let head = head_rx
        .await
        .map_err(|_| ApiError::Internal("the engine task ended without an answer".into()))??;
    let mut response = match head {
        Head::Complete { body, truncated } => {
            let mut response = Body::from(body).into_response();
            if truncated {
                response
                    .headers_mut()
                    .insert(TRUNCATED_HEADER, HeaderValue::from_static("true"));
            }
            response
        }
        Head::Streaming => {
            let mut response = Body::new(ChannelBody { rx }).into_response();
            response
                .headers_mut()
                .insert(header::TRAILER, HeaderValue::from_static("x-lodestone-truncated"));
            response
        }
    };
    *response.status_mut() = StatusCode::OK;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    Ok(response)
}

/// Runs blocking work that produces no stream (updates, writes, checks) under the budget.
pub async fn run_blocking<T, F>(
    state: &AppState,
    permit: OwnedSemaphorePermit,
    budget: Duration,
    work: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&CancellationToken) -> Result<T, ApiError> + Send + 'static,
{
    let token = CancellationToken::new();
    let timer = start_timer(&token, budget);
    let result = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let _timer = timer;
        work(&token)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("engine task failed: {e}")))?;
    state.metrics().record_outcome(result.as_ref().err());
    result
}
