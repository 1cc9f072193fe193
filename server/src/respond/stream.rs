//! Streaming engine output: blocking work writes, the HTTP body reads, memory stays bounded.
//!
//! [`stream_blocking`] runs a closure on the blocking pool, at the read priority, with a
//! [`ChunkSink`] to write into.
//! The sink cuts the output into chunks (at [`CHUNK_BYTES`], or sooner once [`FLUSH_AFTER`] has
//! passed since the last one) and hands them to the response body over a bounded channel, so a
//! client that reads slowly slows the engine down instead of the server buffering the result.
//!
//! The response head waits until the work has its first result item ([`Releaser::release`])
//! and a chunk is ready, or until the work ends. That way an error before any result (bad
//! dataset, missing graph, time budget spent before the first row) is a proper error response
//! with its status code, and a result that fits in one chunk is sent with a `Content-Length`
//! and, when the row cap cut it, an `X-Lodestone-Truncated: true` header. Once the head is out,
//! an error can only abort the body, which the client sees as a broken chunked transfer; a cut
//! at the row cap then ends the document normally and adds the `X-Lodestone-Truncated: true`
//! trailer (sent to clients that announce `TE: trailers`).
//!
//! The time budget covers evaluation and sending, and the HTTP side enforces it on its own: a
//! timer cancels the work's [`CancellationToken`], the handler answers 503 if no head came
//! within the budget, the body fails once the deadline passes, and a send that cannot complete
//! before the deadline fails. The engine itself stops at its next cancellation check; `spareval`
//! checks when it reads from the store or converts terms, so work over data it has already
//! materialized (a COUNT over a large cross product) may run on past the answer, holding its
//! query slot until then. A client that goes away makes the next send fail, which cancels too.

use crate::error::ApiError;
use crate::state::AppState;
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::Frame;
use lodestone_store::sparql::CancellationToken;
use std::future::Future;
use std::io::{self, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};

/// A chunk is sent once this many bytes are buffered.
pub const CHUNK_BYTES: usize = 32 * 1024;
/// A partial chunk is sent at a write (the clock is read every few dozen writes) once this
/// long has passed since the last send, so that a slow query's first rows do not wait for a
/// full chunk.
pub const FLUSH_AFTER: Duration = Duration::from_millis(100);
/// Writes between two readings of the clock for [`FLUSH_AFTER`]. Serializers write each
/// token on its own (a JSON answer of 19 rows of 12 values: thousands of writes), and reading
/// the clock at every one took a third of the server's time for such an answer; a row is
/// tens of writes, so a slow query's rows still go out within a row or two of the interval.
const WRITES_PER_CLOCK_READ: u32 = 32;
/// Chunks buffered between the engine and the socket.
const CHANNEL_CHUNKS: usize = 4;
/// How long after its budget the work may take to report its own timeout before the handler
/// answers without it.
const DEADLINE_GRACE: Duration = Duration::from_millis(250);

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
    held: bool,
    released: Arc<AtomicBool>,
    last_send: Instant,
    /// Writes since the clock was last read (see [`WRITES_PER_CLOCK_READ`]).
    unclocked_writes: u32,
    deadline: Instant,
    budget: Duration,
    head: Option<oneshot::Sender<Result<Head, ApiError>>>,
    tx: mpsc::Sender<Message>,
    runtime: Handle,
    token: CancellationToken,
    failure: Option<ApiError>,
    client_gone: bool,
    /// Set once every byte of a streamed answer is in the channel: without it, the channel's
    /// end is an abort (see [`ChannelBody`]).
    complete: Arc<AtomicBool>,
    state: AppState,
}

impl ChunkSink {
    /// A handle that lets output flow to the client. Until it is used everything is kept, so
    /// that an error before the first result item still becomes an error response. Use it once
    /// the first item is in hand (it works while a serializer borrows the sink).
    pub fn releaser(&self) -> Releaser {
        Releaser(Arc::clone(&self.released))
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
                self.client_gone = true;
                self.failure = Some(ApiError::Internal("the client went away".into()));
                Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the client went away",
                ))
            }
            Err(_) => {
                self.token.cancel();
                self.failure = Some(ApiError::Timeout(self.budget));
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "time budget spent while sending",
                ))
            }
        }
    }

    fn send_buffer(&mut self) -> io::Result<()> {
        if let Some(head) = self.head.take() {
            // The handler may have given up (deadline, client gone); the send below then fails.
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
            let _ = head.send(Ok(Head::Complete {
                body,
                truncated: outcome.truncated,
            }));
            return;
        }
        if !self.buffer.is_empty() && self.send_buffer().is_err() {
            return;
        }
        if outcome.truncated {
            let mut trailers = HeaderMap::new();
            trailers.insert(TRUNCATED_HEADER, HeaderValue::from_static("true"));
            if self.send(Message::Trailers(trailers)).is_err() {
                return;
            }
        }
        self.complete.store(true, Ordering::Release);
    }

    fn fail(mut self, error: ApiError) {
        match self.head.take() {
            // Before the head: the handler answers with the error (and counts a timeout).
            Some(head) => {
                let _ = head.send(Err(error));
            }
            None if self.client_gone => {
                tracing::debug!("the client went away; its query was cancelled");
            }
            None => {
                if matches!(error, ApiError::Timeout(_)) {
                    self.state
                        .metrics()
                        .timeouts
                        .fetch_add(1, Ordering::Relaxed);
                }
                tracing::warn!(%error, "response aborted after its head was sent");
                let _ = self.send(Message::Abort(io::Error::other(error.to_string())));
            }
        }
    }
}

impl Write for ChunkSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(data);
        if self.held && self.released.load(Ordering::Relaxed) {
            self.held = false;
            self.last_send = Instant::now();
        }
        self.unclocked_writes += 1;
        let read_clock = self.unclocked_writes >= WRITES_PER_CLOCK_READ;
        if read_clock {
            self.unclocked_writes = 0;
        }
        let due = self.buffer.len() >= CHUNK_BYTES
            || (read_clock && self.last_send.elapsed() >= FLUSH_AFTER);
        if !self.held && due {
            self.send_buffer()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Chunks are cut by size and time; serializers' flushes must not make tiny chunks.
        Ok(())
    }
}

/// Lets a [`ChunkSink`]'s output flow (see [`ChunkSink::releaser`]).
pub struct Releaser(Arc<AtomicBool>);

impl Releaser {
    /// The first result item is in hand: output may go to the client from now on.
    pub fn release(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The HTTP body side of the channel; fails once the deadline has passed, and when the
/// channel ends before the work said the answer was complete: an abort that could not be sent
/// (the budget was spent while sending) or a task that died must never end the body cleanly,
/// which a client would take for the whole answer.
struct ChannelBody {
    rx: mpsc::Receiver<Message>,
    deadline: Pin<Box<tokio::time::Sleep>>,
    complete: Arc<AtomicBool>,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        if let Poll::Ready(message) = self.rx.poll_recv(cx) {
            return Poll::Ready(match message {
                Some(Message::Data(data)) => Some(Ok(Frame::data(data))),
                Some(Message::Trailers(trailers)) => Some(Ok(Frame::trailers(trailers))),
                Some(Message::Abort(error)) => Some(Err(error)),
                None if self.complete.load(Ordering::Acquire) => None,
                None => Some(Err(io::Error::other("the answer was cut before its end"))),
            });
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "time budget spent",
            )))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Cancels the token when the budget runs out, unless dropped first.
struct Timer(tokio::task::AbortHandle);

impl Drop for Timer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Cancels the token if dropped while armed: the handler's future is dropped when its client
/// disconnects, and a query that computes before it writes (a count, a sort) must then stop
/// at once instead of running on to its budget for nobody.
struct CancelOnDrop(Option<CancellationToken>);

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.cancel();
        }
    }
}

/// The error of a query stopped at its memory limit.
fn too_large(limit: usize) -> ApiError {
    ApiError::TooLarge(format!(
        "the query needed more than its {} MiB of memory for sorting, joining, grouping or deduplicating",
        limit >> 20
    ))
}

/// Starts the timer that cancels `token` after `budget`; it stops when the guard is dropped.
fn start_timer(token: &CancellationToken, budget: Duration) -> Timer {
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
    let query_memory = state.settings().query_memory_bytes;
    let token = CancellationToken::new().with_memory_limit(query_memory);
    let timer = start_timer(&token, budget);
    let mut client_left = CancelOnDrop(Some(token.clone()));
    let (head_tx, head_rx) = oneshot::channel();
    let (tx, rx) = mpsc::channel(CHANNEL_CHUNKS);
    let complete = Arc::new(AtomicBool::new(false));
    let start = tokio::time::Instant::now();
    let mut sink = ChunkSink {
        buffer: Vec::with_capacity(CHUNK_BYTES),
        held: true,
        released: Arc::new(AtomicBool::new(false)),
        last_send: Instant::now(),
        unclocked_writes: 0,
        deadline: Instant::now() + budget,
        budget,
        head: Some(head_tx),
        tx,
        runtime: Handle::current(),
        token: token.clone(),
        failure: None,
        client_gone: false,
        complete: Arc::clone(&complete),
        state: state.clone(),
    };
    state.spawn_read(move || {
        let _timer = timer;
        let result = work(&mut sink, &token);
        // The engine is done: its slot is free before the last bytes go out, so that a client
        // holding the whole answer never finds its query still counted in flight.
        drop(permit);
        // A write failure explains the error better than the serializer's io::Error.
        let result = match (result, sink.failure.take()) {
            // Past its memory limit the evaluation may end early without an error of its own
            // (a partial build side): whatever it wrote is not the answer.
            _ if token.memory_limit_exceeded() => Err(too_large(query_memory)),
            (Err(_), Some(failure)) => Err(failure),
            (Err(_), None) if token.is_cancelled() => Err(ApiError::Timeout(budget)),
            (result, _) => result,
        };
        match result {
            Ok(outcome) => {
                if outcome.truncated {
                    sink.state
                        .metrics()
                        .truncated
                        .fetch_add(1, Ordering::Relaxed);
                }
                sink.finish(outcome);
            }
            Err(error) => sink.fail(error),
        }
    });
    let head = match tokio::time::timeout(budget + DEADLINE_GRACE, head_rx).await {
        Ok(Ok(head)) => head,
        Ok(Err(_)) => Err(ApiError::Internal(
            "the engine task ended without an answer".into(),
        )),
        // The engine has not noticed its cancellation yet; answer without it.
        Err(_) => Err(ApiError::Timeout(budget)),
    };
    // From here the body's channel notices a client that leaves.
    client_left.disarm();
    let head = head.inspect_err(|error| {
        if matches!(error, ApiError::Timeout(_)) {
            state.metrics().timeouts.fetch_add(1, Ordering::Relaxed);
        }
    })?;
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
            let deadline = Box::pin(tokio::time::sleep_until(start + budget));
            let mut response = Body::new(ChannelBody {
                rx,
                deadline,
                complete,
            })
            .into_response();
            response.headers_mut().insert(
                header::TRAILER,
                HeaderValue::from_static("x-lodestone-truncated"),
            );
            response
        }
    };
    *response.status_mut() = StatusCode::OK;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    Ok(response)
}

/// Runs read work at the read priority without a query slot or budget: the status report reads
/// statistics and must answer while every slot is busy.
pub async fn run_unslotted<T, F>(state: &AppState, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
{
    state
        .spawn_read(work)
        .await
        .map_err(|e| ApiError::Internal(format!("read task failed: {e}")))?
}

/// Runs a browsing page's read work at the read priority in a page slot (apart from the query
/// slots, so pages answer while queries fill theirs; see [`AppState::page_slot`]).
pub async fn run_page<T, F>(state: &AppState, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
{
    let slot = state.page_slot().await?;
    run_unslotted(state, move || {
        let _slot = slot;
        work()
    })
    .await
}

/// Runs read work that produces no stream (facets, existence checks) at the read priority,
/// under the budget.
///
/// Unlike queries, it waits for the work's own outcome even past the budget, as
/// [`run_write`] does, where answering "timed out" while an update could still commit would
/// be a lie.
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
    let job = budgeted(permit, budget, state.settings().query_memory_bytes, work);
    let result = state
        .spawn_read(job)
        .await
        .map_err(|e| ApiError::Internal(format!("engine task failed: {e}")))?;
    count_timeout(state, result)
}

/// Runs a write (update, Graph Store write or delete) made by a request of `request_bytes`
/// under the budget on a write thread, large writes below the readers' CPU priority (see
/// [`crate::priority`]); otherwise as [`run_blocking`].
pub async fn run_write<T, F>(
    state: &AppState,
    permit: OwnedSemaphorePermit,
    budget: Duration,
    request_bytes: usize,
    work: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&CancellationToken) -> Result<T, ApiError> + Send + 'static,
{
    let job = budgeted(permit, budget, state.settings().query_memory_bytes, work);
    let result = state.write_lanes().run(request_bytes, job).await?;
    count_timeout(state, result)
}

/// `work` as a job that holds its slot and is cancelled when `budget` runs out or when the
/// query it evaluates holds more than `query_memory` bytes.
fn budgeted<T, F>(
    permit: OwnedSemaphorePermit,
    budget: Duration,
    query_memory: usize,
    work: F,
) -> impl FnOnce() -> Result<T, ApiError> + Send + 'static
where
    T: Send + 'static,
    F: FnOnce(&CancellationToken) -> Result<T, ApiError> + Send + 'static,
{
    let token = CancellationToken::new().with_memory_limit(query_memory);
    let timer = start_timer(&token, budget);
    move || {
        let _permit = permit;
        let _timer = timer;
        let result = work(&token);
        if token.memory_limit_exceeded() {
            return Err(too_large(query_memory));
        }
        result
    }
}

fn count_timeout<T>(state: &AppState, result: Result<T, ApiError>) -> Result<T, ApiError> {
    if let Err(ApiError::Timeout(_)) = &result {
        state.metrics().timeouts.fetch_add(1, Ordering::Relaxed);
    }
    result
}
