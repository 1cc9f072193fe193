//! Keeping the entity rank current while the server runs.
//!
//! The entity rank (`lodestone_store::rank`) is computed by `lodestone load` after a bulk
//! load. Commits made through the server then move it away from the data, so every
//! `RankUpkeep::check_interval` the server compares the store with the state the rank
//! describes and recomputes it in the background, on a thread of its own at the background
//! priority (`background_nice`, 19 by default), once the store has drifted past the
//! threshold: at least `RankUpkeep::min_changes` (1,000 by default), or 1% of the quads
//! ranked if that is more, counted as the change in the number of quads plus the number of
//! commits (each commit changes at least one quad; a commit that replaces a graph by one of
//! the same size counts once). A store never ranked (made by `serve` with the sample, or
//! upgraded from format 4) is ranked at the first check. One computation runs at a time;
//! scores are replaced entity by entity, so rankings keep working while it runs.

use crate::settings::RankUpkeep;
use crate::state::AppState;
use lodestone_store::Store;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Recomputes the entity rank whenever it is stale, until `stop` is set.
pub async fn watch(state: AppState, stop: Arc<AtomicBool>) {
    let upkeep = state.settings().rank_upkeep;
    if upkeep.min_changes == 0 {
        return;
    }
    let nice = state.settings().background_nice;
    let mut ticks = tokio::time::interval(upkeep.check_interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = stopped(&stop) => return,
        }
        let store = Arc::clone(state.store());
        let stale = match is_stale(&store, &upkeep) {
            Ok(stale) => stale,
            Err(error) => {
                tracing::warn!(%error, "cannot read the entity rank's state");
                continue;
            }
        };
        if !stale {
            continue;
        }
        let flag = Arc::clone(&stop);
        let (done, finished) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("lodestone-rank".into())
            .spawn(move || {
                nice.apply_to_current_thread();
                let _ = done.send(store.compute_entity_rank(&flag));
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the entity rank's thread");
            continue;
        }
        match finished.await {
            Ok(Ok(Some(report))) => tracing::info!(
                entities = report.entities,
                links = report.links,
                iterations = report.iterations,
                marked = report.marked,
                ms = report.read_ms + report.iterate_ms + report.write_ms,
                "entity rank recomputed"
            ),
            Ok(Ok(None)) => return,
            Ok(Err(error)) => tracing::warn!(%error, "cannot compute the entity rank"),
            Err(_) => tracing::warn!("the entity rank's thread ended without an answer"),
        }
    }
}

fn is_stale(store: &Store, upkeep: &RankUpkeep) -> Result<bool, lodestone_store::StoreError> {
    Ok(upkeep.is_stale(&store.entity_rank_state()?))
}

/// Returns once `stop` is set (looked at every 50 ms).
async fn stopped(stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
