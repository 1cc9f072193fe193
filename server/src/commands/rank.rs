//! `lodestone rank`, and the entity rank computed at the end of `lodestone load`: the
//! PageRank-style score of every linked IRI (see `lodestone_store::rank`), stored with the
//! statistics for the rankings of search, lookup and type-ahead.

use super::open_store;
use crate::cli::DataArgs;
use anyhow::Context;
use lodestone_store::{RankReport, Store};
use std::sync::atomic::AtomicBool;

/// `lodestone rank`: computes the entity rank of a store now.
pub(super) fn rank(data: &DataArgs) -> anyhow::Result<()> {
    let store = open_store(data, false)?;
    compute(&store)
}

/// Computes and stores the entity rank, and prints what it cost.
pub(super) fn compute(store: &Store) -> anyhow::Result<()> {
    let stop = AtomicBool::new(false);
    let report = store
        .compute_entity_rank(&stop)
        .context("computing the entity rank")?;
    if let Some(report) = report {
        println!("{}", describe(&report));
    }
    Ok(())
}

/// One line on a computation of the entity rank.
pub(crate) fn describe(report: &RankReport) -> String {
    let read = if report.links_shared {
        "read with the distinct counts".to_owned()
    } else {
        format!("read {:.2} s", ms_to_s(report.read_ms))
    };
    format!(
        "entity rank: {} entities, {} links from {} quads; {} iterations (residual {:.1e}); \
         {read}, iterate {:.2} s, write {:.2} s; {} MiB of memory; {} entities marked \
         for re-indexing",
        report.entities,
        report.links,
        report.quads,
        report.iterations,
        report.residual,
        ms_to_s(report.iterate_ms),
        ms_to_s(report.write_ms),
        report.memory_bytes.div_ceil(1 << 20),
        report.marked,
    )
}

#[allow(clippy::cast_precision_loss)] // milliseconds are far below 2^52
fn ms_to_s(ms: u64) -> f64 {
    ms as f64 / 1000.0
}
