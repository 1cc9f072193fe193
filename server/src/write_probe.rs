//! Noticing when writes reach the disk again. After a write fails (a full disk), RocksDB
//! refuses every write until space returns, then resumes by itself; while the store reports
//! the failure, a tiny probe write every [`PROBE_INTERVAL`] tells when that happened, so that
//! `/health` says `ok` again without waiting for a client's next write.

use crate::state::AppState;
use std::sync::Arc;
use std::time::Duration;

/// How often a store whose writes fail is probed.
pub const PROBE_INTERVAL: Duration = Duration::from_secs(2);

/// Probes the store's writes while they fail, for as long as the task runs.
pub async fn watch(state: AppState) {
    let mut ticks = tokio::time::interval(PROBE_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if state.store().write_failure().is_none() {
            continue;
        }
        let store = Arc::clone(state.store());
        match tokio::task::spawn_blocking(move || store.probe_writes()).await {
            Ok(Ok(())) => tracing::info!("writes reach the disk again"),
            Ok(Err(error)) => tracing::debug!(%error, "writes still fail"),
            Err(error) => tracing::warn!(%error, "the write probe did not finish"),
        }
    }
}
