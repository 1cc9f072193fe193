//! Whether the store's writes reach the disk. A write that fails for lack of space marks the
//! store as full until a write succeeds again: RocksDB then refuses every write, and resumes
//! by itself once space is freed (its SST file manager polls the free space), so the mark is
//! what tells an operator, through `/health`, that writes are failing and why.

use crate::error::StoreError;
use std::sync::Mutex;
use std::time::SystemTime;

/// A write that did not reach the disk, kept until one does.
#[derive(Debug, Clone)]
pub struct WriteFailure {
    /// When the first of the failing writes failed.
    pub since: SystemTime,
    /// When the last one failed.
    pub last: SystemTime,
    /// Whether the disk was full (the writes resume once space is freed).
    pub storage_full: bool,
    /// The last failure's message.
    pub message: String,
}

/// The last write failure, if no write succeeded after it.
#[derive(Debug, Default)]
pub(crate) struct WriteHealth(Mutex<Option<WriteFailure>>);

impl WriteHealth {
    /// Notes the outcome of a write to the database.
    pub(crate) fn record<T>(&self, outcome: &Result<T, StoreError>) {
        let mut failure = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match outcome {
            Ok(_) => *failure = None,
            Err(
                error @ (StoreError::StorageFull(_) | StoreError::Engine(_) | StoreError::Io(_)),
            ) => {
                let now = SystemTime::now();
                let since = failure.as_ref().map_or(now, |f| f.since);
                *failure = Some(WriteFailure {
                    since,
                    last: now,
                    storage_full: matches!(error, StoreError::StorageFull(_)),
                    message: error.to_string(),
                });
            }
            // Refused input or a cancelled write says nothing about the disk.
            Err(_) => {}
        }
    }

    /// The failure of the last write, unless a later one succeeded.
    pub(crate) fn failure(&self) -> Option<WriteFailure> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_success_clears_the_failure_and_input_errors_leave_it() {
        let health = WriteHealth::default();
        health.record::<()>(&Err(StoreError::StorageFull("no space".into())));
        let first = health.failure().map(|f| (f.since, f.storage_full));
        assert!(matches!(first, Some((_, true))));
        health.record::<()>(&Err(StoreError::Cancelled));
        health.record::<()>(&Err(StoreError::Io(std::io::Error::other("bad sector"))));
        let failure = health.failure();
        assert_eq!(failure.as_ref().map(|f| f.since), first.map(|f| f.0));
        assert_eq!(failure.map(|f| f.storage_full), Some(false));
        health.record(&Ok(()));
        assert!(health.failure().is_none());
    }
}
