//! CPU priority: small writes first, then reads, background work and large writes behind them.
//!
//! A publisher replaces graphs while readers query. On a machine with few cores they compete
//! for the same CPU. Three levels, each a thread nice value ([`Nice`]):
//! - **Small writes** (SPARQL updates and Graph Store writes under [`LARGE_WRITE_BYTES`]) and
//!   the async runtime's own work (accepting connections, parsing requests) run at normal
//!   priority. Writes go through one write slot, one at a time, so every moment a small write
//!   waits for a core is lost for every writer; its bursts are short.
//! - **Reads** (query evaluation, entity pages, search, facets, the status page) run on the
//!   runtime's blocking pool at the read nice value ([`spawn_read`], 10 by default). They yield
//!   to a small write for its few milliseconds and still take ~7 times the CPU of work below
//!   them. On two cores this raised 10,000 graph replacements from 529–533 to 549–587 graphs/s
//!   while a closed-loop reader ran, at a read p99 of 3.5–4.0 ms instead of 2.5 ms.
//! - **Work nobody waits for** (the text index's threads, RocksDB's flushes and compactions)
//!   and **large writes** (graph uploads, big updates) run at a raised nice value, 19 by
//!   default: their long CPU bursts are what reads would otherwise wait behind.
//!
//! Measured on two cores (`docs/benchmarks.md`, sessions 6 and 10).
//!
//! On Linux the nice value belongs to a thread and a new thread inherits its creator's. A
//! thread may raise its own value but, without privileges, never lower it again, which is why
//! lowered writes get threads of their own rather than borrowing the runtime's. The blocking
//! pool's threads only ever run reads, so each takes the read value at its first read job.
//! Elsewhere the value is not applied (other systems set it for the whole process).

use crate::error::ApiError;
use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A thread nice value, 0 (normal) to 19 (lowest priority).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nice(u8);

impl std::fmt::Display for Nice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Parses a command-line value, refusing numbers outside 0–19.
impl std::str::FromStr for Nice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<u8>()
            .ok()
            .and_then(Self::new)
            .ok_or_else(|| format!("{s:?} is not a nice value (0 to 19)"))
    }
}

impl Nice {
    /// The normal priority: no lowering.
    pub const NORMAL: Self = Self(0);
    /// The lowest priority.
    pub const LOWEST: Self = Self(19);
    /// The default of reads: below small writes, well above [`Nice::LOWEST`].
    pub const READ: Self = Self(10);

    /// The nice value `n`, if it is within 0–19.
    pub fn new(n: u8) -> Option<Self> {
        (n <= Self::LOWEST.0).then_some(Self(n))
    }

    /// The value.
    pub fn get(self) -> u8 {
        self.0
    }

    /// Whether background work at this value puts RocksDB's flushes and compactions at the
    /// lowest priority: RocksDB has a single lowered level, taken for any value above 0.
    pub fn lowers_store_background(self) -> bool {
        self != Self::NORMAL
    }

    /// Raises the calling thread's nice value to this one; threads it starts afterwards
    /// inherit it. A failure is logged, never fatal: the work then runs at its old priority.
    pub fn apply_to_current_thread(self) {
        if self == Self::NORMAL {
            return;
        }
        self.set_current_thread();
    }

    /// Sets the calling thread's nice value to this one, lowering it too where allowed.
    fn set_current_thread(self) {
        #[cfg(target_os = "linux")]
        {
            let tid = rustix::thread::gettid();
            if let Err(error) = rustix::process::setpriority_process(Some(tid), i32::from(self.0)) {
                tracing::warn!(%error, nice = self.0, "cannot set the thread's priority");
            }
        }
    }
}

/// The stack of every thread that handles requests: the runtime's workers and blocking pool
/// ([`runtime_builder`]) and the write threads. User-supplied SPARQL and RDF trees are parsed,
/// evaluated and dropped on them, recursing once per level; the request bounds
/// ([`crate::extract::nesting`], [`crate::extract::tree_depth`]) keep every tree they admit
/// within a small part of this. Only the pages a thread touches take memory.
pub const STACK_BYTES: usize = 64 << 20;

/// The async runtime of the server (and of tests that run it): threads named
/// `lodestone-http`, with stacks of [`STACK_BYTES`].
pub fn runtime_builder() -> tokio::runtime::Builder {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder
        .enable_all()
        .thread_name("lodestone-http")
        .thread_stack_size(STACK_BYTES);
    builder
}

thread_local! {
    /// The nice value [`spawn_read`] last gave this blocking-pool thread.
    static READ_NICE: Cell<Option<Nice>> = const { Cell::new(None) };
}

/// Runs read work on the runtime's blocking pool at the nice value `nice` (see the module
/// documentation). Every blocking task of the server is a read, so a pool thread keeps its
/// value between jobs and is set again only when a job asks for another.
pub fn spawn_read<T, F>(nice: Nice, work: F) -> JoinHandle<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(move || {
        READ_NICE.with(|current| {
            if current.get() != Some(nice) {
                nice.set_current_thread();
                current.set(Some(nice));
            }
        });
        work()
    })
}

/// Writes whose request body is at least this large (a graph upload, a big `INSERT DATA`) run
/// at the large-write nice value; smaller ones at normal priority. A small write holds a core
/// for a few milliseconds and is best done at once; a large one holds it for a hundred or more,
/// long enough to show in every reader's latency, and can take the CPU readers leave.
pub const LARGE_WRITE_BYTES: usize = 256 << 10;

/// Where writes run: one thread at normal priority for small writes, one at the large-write
/// nice value for large ones ([`LARGE_WRITE_BYTES`]). The store applies one write at a time
/// (one write slot), so at most one of them works at any moment, in arrival order.
pub struct WriteLanes {
    small: WriteThread,
    large: WriteThread,
}

impl WriteLanes {
    /// Starts both threads; they end when this is dropped.
    ///
    /// # Panics
    ///
    /// If the system cannot start a thread, as [`std::thread::spawn`] does.
    pub fn start(large_nice: Nice) -> Self {
        Self {
            small: WriteThread::start("lodestone-writer", Nice::NORMAL),
            large: WriteThread::start("lodestone-bulk-writer", large_nice),
        }
    }

    /// Runs `work`, a write made by a request of `request_bytes`, on its lane and waits for
    /// its result without blocking the runtime.
    pub async fn run<T, F>(&self, request_bytes: usize, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let lane = if request_bytes >= LARGE_WRITE_BYTES {
            &self.large
        } else {
            &self.small
        };
        lane.run(work).await
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A thread that runs jobs one after the other at its own nice value.
struct WriteThread {
    jobs: mpsc::Sender<Job>,
}

impl WriteThread {
    fn start(name: &str, nice: Nice) -> Self {
        let (jobs, queue) = mpsc::channel::<Job>();
        // At startup, like `std::thread::spawn`: no request can make it fail (`# Panics` above).
        #[allow(clippy::expect_used)]
        std::thread::Builder::new()
            .name(name.into())
            .stack_size(STACK_BYTES)
            .spawn(move || {
                nice.apply_to_current_thread();
                for job in queue {
                    // A panicking job has already dropped its answer channel, which its caller
                    // reports; the thread lives on for the next one.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                }
            })
            .expect("the system cannot start a write thread");
        Self { jobs }
    }

    async fn run<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = answer.send(work());
        });
        self.jobs
            .send(job)
            .map_err(|_| ApiError::Internal("the write thread has stopped".into()))?;
        answered
            .await
            .map_err(|_| ApiError::Internal("the write task failed".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_values_are_bounded() {
        assert_eq!(Nice::new(0), Some(Nice::NORMAL));
        assert_eq!(Nice::new(19), Some(Nice::LOWEST));
        assert_eq!(Nice::new(20), None);
    }

    #[test]
    fn command_line_values_are_bounded_and_print_back() {
        assert_eq!("19".parse::<Nice>(), Ok(Nice::LOWEST));
        assert!("20".parse::<Nice>().is_err());
        assert!("-1".parse::<Nice>().is_err());
        assert_eq!(Nice::READ.to_string(), "10");
    }

    #[cfg(target_os = "linux")]
    fn current_nice() -> i32 {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).expect("nice")
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn large_writes_run_lowered_and_a_panic_is_survived() {
        // Unprivileged, a thread can only raise its nice value: start from the test's own.
        let before = current_nice();
        let lowered = before.max(7);
        let lanes =
            WriteLanes::start(Nice::new(u8::try_from(lowered).expect("0–19")).expect("valid"));
        let small = lanes.run(LARGE_WRITE_BYTES - 1, current_nice).await;
        assert_eq!(small.expect("runs"), before);
        let large = lanes.run(LARGE_WRITE_BYTES, current_nice).await;
        assert_eq!(large.expect("runs"), lowered);
        assert!(lanes
            .run(LARGE_WRITE_BYTES, || panic!("boom"))
            .await
            .is_err());
        assert_eq!(
            lanes
                .run(LARGE_WRITE_BYTES, || 1 + 1)
                .await
                .expect("still runs"),
            2
        );
        // The caller's own thread keeps its priority.
        assert_eq!(current_nice(), before);
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn reads_run_at_the_read_value_and_the_caller_keeps_its_own() {
        let before = current_nice();
        let lowered = before.max(i32::from(Nice::READ.get()));
        let nice = Nice::new(u8::try_from(lowered).expect("0–19")).expect("valid");
        assert_eq!(spawn_read(nice, current_nice).await.expect("runs"), lowered);
        // The pool thread keeps the value for the next read.
        assert_eq!(spawn_read(nice, current_nice).await.expect("runs"), lowered);
        assert_eq!(current_nice(), before);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn threads_inherit_a_lowered_priority() {
        let target = current_nice().max(5);
        let inherited = std::thread::spawn(move || {
            Nice::new(u8::try_from(target).expect("0–19"))
                .expect("valid")
                .apply_to_current_thread();
            std::thread::spawn(current_nice).join().expect("joins")
        })
        .join()
        .expect("joins");
        assert_eq!(inherited, target);
    }
}
