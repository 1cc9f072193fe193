//! Engine slots: how many operations run on blocking threads at once, and how many may wait.
//!
//! Queries take one of `--max-concurrent-queries` slots. When all are taken, up to
//! `--query-queue` requests wait for one, in arrival order, for at most their time budget;
//! past that, or with the queue full, they are answered `503 busy` with `Retry-After`. A
//! queue lets the slots stay near the core count without refusing bursts: more threads than
//! cores running queries would only share the same cores, and starve the writer, whose
//! commit competes with every running thread for CPU.
//!
//! Writes (updates and Graph Store writes) have a slot of their own (the store commits one
//! transaction at a time anyway) with the same queue bound, so a writer never queues behind
//! readers and readers never wait for a writer.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A fixed number of slots and a bounded queue of waiters.
pub struct Slots {
    semaphore: Arc<Semaphore>,
    size: usize,
    waiting: AtomicUsize,
    max_waiting: usize,
}

/// A slot taken, and what is left of the request's budget after waiting for it.
pub struct Taken {
    /// Held while the operation runs.
    pub permit: OwnedSemaphorePermit,
    /// The budget minus the time spent in the queue.
    pub budget: Duration,
}

/// Leaves the queue when dropped (also when the waiting request is cancelled).
struct InQueue<'a>(&'a AtomicUsize);

impl Drop for InQueue<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Slots {
    /// `size` slots (at least one) and at most `max_waiting` waiters.
    pub fn new(size: usize, max_waiting: usize) -> Self {
        let size = size.max(1);
        Self {
            semaphore: Arc::new(Semaphore::new(size)),
            size,
            waiting: AtomicUsize::new(0),
            max_waiting,
        }
    }

    /// A free slot now, if any.
    pub fn try_take(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.semaphore).try_acquire_owned().ok()
    }

    /// A slot, waiting in the queue for at most `budget`; `None` if the queue is full or the
    /// budget ran out first.
    pub async fn take(&self, budget: Duration) -> Option<Taken> {
        if let Some(permit) = self.try_take() {
            return Some(Taken { permit, budget });
        }
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        let _queued = InQueue(&self.waiting);
        let start = Instant::now();
        let acquire = Arc::clone(&self.semaphore).acquire_owned();
        let permit = tokio::time::timeout(budget, acquire).await.ok()?.ok()?;
        Some(Taken {
            permit,
            budget: budget.saturating_sub(start.elapsed()),
        })
    }

    /// Slots taken now.
    pub fn in_use(&self) -> usize {
        self.size.saturating_sub(self.semaphore.available_permits())
    }

    /// Requests waiting now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_waiter_gets_the_slot_released_within_its_budget() {
        let slots = Arc::new(Slots::new(1, 4));
        let first = slots.try_take().expect("a free slot");
        assert!(slots.try_take().is_none());
        let waiter = {
            let slots = Arc::clone(&slots);
            tokio::spawn(async move { slots.take(Duration::from_secs(5)).await.map(|t| t.budget) })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(slots.waiting(), 1);
        drop(first);
        let budget = waiter.await.expect("join").expect("the slot");
        assert!(budget < Duration::from_secs(5) && budget > Duration::from_secs(4));
        assert_eq!(slots.waiting(), 0);
    }

    #[tokio::test]
    async fn a_full_queue_or_a_spent_budget_refuses() {
        let slots = Arc::new(Slots::new(1, 1));
        let _held = slots.try_take().expect("a free slot");
        let waiter = {
            let slots = Arc::clone(&slots);
            tokio::spawn(async move { slots.take(Duration::from_millis(300)).await.is_some() })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        // The one place in the queue is taken.
        assert!(slots.take(Duration::from_secs(5)).await.is_none());
        // The waiter's budget runs out while the slot stays taken.
        assert!(!waiter.await.expect("join"));
        assert_eq!((slots.in_use(), slots.waiting()), (1, 0));
    }

    #[tokio::test]
    async fn no_queue_refuses_at_once() {
        let slots = Slots::new(1, 0);
        let _held = slots.try_take().expect("a free slot");
        let start = Instant::now();
        assert!(slots.take(Duration::from_secs(5)).await.is_none());
        assert!(start.elapsed() < Duration::from_secs(1));
    }
}
