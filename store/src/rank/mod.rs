//! Entity rank: a PageRank-style link-analysis score per entity, kept with the statistics.
//!
//! The graph is every IRI→IRI link of the store: a quad whose subject and object are both
//! IRIs (and differ) is a link from the subject to the object, whatever its predicate and
//! graph; the same subject, predicate and object in several graphs is one link. The nodes are
//! the IRIs at either end of a link. The score is the stationary distribution of a random
//! surfer who follows a link with probability [`DAMPING`] (0.85) and jumps to any node
//! otherwise; the mass of nodes without outgoing links (*dangling* nodes: most objects) is
//! spread over every node, so the scores always sum to one. Iteration stops after
//! [`MAX_ITERATIONS`] rounds or once the scores move by less than [`TOLERANCE`] in total.
//!
//! Stored scores are multiplied by the number of nodes, so that the mean is 1 whatever the
//! store's size: an entity with 20 is twenty times as central as the average linked entity.
//! IRIs without any link to another IRI have no entry (read as 0).
//!
//! The text index keeps each entity's score in its documents, so a computation marks the
//! entities whose score moved enough to change a ranking ([`is_visible_change`]: by more than
//! [`MARK_THRESHOLD`] of one plus the score) as changed in the change log, and only those:
//! the follower re-indexes them as after a commit. A refresh after a few changes marks few;
//! the first computation marks every linked entity.
//!
//! Cost: one scan of `spog` (every quad, in subject order, so each subject's links arrive
//! together), cut into parts at subjects that every core reads at once (`links`, with
//! `quads::parts`).
//! Memory is bounded by the link graph, not by the store: the linked IRIs are a bitmap over
//! the dictionary's numbers, which numbers them densely in term order (the order the scores
//! are stored in) with a popcount (`node_set`: 0.19 bytes per dictionary term), the links
//! are compressed sparse rows grouped by source (4 bytes per link, 8 bytes per source; the
//! parts' rows and the whole's both held while they are put together), and the iteration
//! keeps two `f64` score vectors and an out-degree (20 bytes per node), and a third vector
//! when two threads share each round (28). Each iteration reads every link once. The first
//! scores of a store go into the table as one file; later ones replace the old entry by entry.

mod links;
mod node_set;

use crate::changes::{ChangeBatch, SequenceNumber};
use crate::database::Database;
use crate::encoding::TermId;
use crate::error::{CorruptionError, StoreError};
use crate::kv::ingest_options;
use crate::kv::{meta_key, Table};
use crate::load::TMP_PREFIX;
use crate::quads::parts::part_count;
use crate::quads::reader::Reader;
use crate::stats::{decode_u64, encode_u64};
use crate::threads::at_once;
use links::{read_links, LinkGraph};
pub(crate) use links::{LinkReader, ReadLinks};
use rocksdb::{IngestExternalFileOptions, SstFileWriter, WriteBatch};
use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Probability that the surfer follows a link rather than jumping anywhere.
pub const DAMPING: f64 = 0.85;
/// The most rounds of the power iteration.
pub const MAX_ITERATIONS: u32 = 20;
/// Sum of the absolute score changes (scores summing to 1) below which the iteration stops.
pub const TOLERANCE: f64 = 1e-7;
/// Links from which each round of the iteration runs on two threads.
const TWO_THREADS_FROM_LINKS: usize = 1 << 16;
/// Entries written per batch when the scores are stored.
const WRITE_BATCH_ENTRIES: usize = 100_000;
/// How far an entity's score must move, relative to one plus the larger of its old and new
/// score, to mark the entity changed (see [`is_visible_change`]).
pub const MARK_THRESHOLD: f64 = 0.05;
/// Entities marked changed per change-log entry.
const MARKS_PER_ENTRY: usize = 100_000;

/// What one computation of the entity rank did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankReport {
    /// The commit the rank describes.
    pub sequence: SequenceNumber,
    /// Quads read.
    pub quads: u64,
    /// Distinct IRI→IRI links.
    pub links: u64,
    /// Linked IRIs: the entities given a score.
    pub entities: u64,
    /// Rounds of the power iteration.
    pub iterations: u32,
    /// Total score change in the last round (scores summing to 1).
    pub residual: f64,
    /// Bytes the link graph and scores took in memory (the estimate the module documents).
    pub memory_bytes: u64,
    /// Milliseconds reading the links (0 when another pass read them: `links_shared`).
    pub read_ms: u64,
    /// Whether the links were read by the distinct counts' pass over `spog` after a bulk load
    /// rather than by a scan of the rank's own.
    pub links_shared: bool,
    /// Milliseconds iterating.
    pub iterate_ms: u64,
    /// Milliseconds storing the scores.
    pub write_ms: u64,
    /// Entities whose score moved past [`MARK_THRESHOLD`], marked changed in the change log
    /// so that the text index re-indexes them with their new score.
    pub marked: u64,
}

/// Which state of the store the stored entity rank describes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RankState {
    /// The commit it was computed at; `None` if it never was.
    pub sequence: Option<SequenceNumber>,
    /// The number of quads then.
    pub quads: u64,
    /// The store's last commit now.
    pub store_sequence: SequenceNumber,
    /// The number of quads in the store now.
    pub store_quads: u64,
}

/// The power iteration: scores summing to 1, one per node. Each round spreads the sources'
/// scores over their targets; from [`TWO_THREADS_FROM_LINKS`] links the sources are cut in two
/// halves of about as many links, each spread by its own thread into its own vector, and the
/// two added.
fn iterate(
    graph: &LinkGraph,
    stop: &AtomicBool,
    report: &mut RankReport,
) -> Result<Option<Vec<f64>>, StoreError> {
    iterate_with(graph, TWO_THREADS_FROM_LINKS, stop, report)
}

/// [`iterate`], on two threads from `two_threads_from` links.
fn iterate_with(
    graph: &LinkGraph,
    two_threads_from: usize,
    stop: &AtomicBool,
    report: &mut RankReport,
) -> Result<Option<Vec<f64>>, StoreError> {
    let n = graph.nodes.len();
    if n == 0 {
        return Ok(Some(Vec::new()));
    }
    #[allow(clippy::cast_precision_loss)] // node counts are far below 2^52
    let nodes = n as f64;
    let mut out_degree = vec![0_u32; n];
    for (i, &source) in graph.sources.iter().enumerate() {
        out_degree[source as usize] = graph.starts[i + 1] - graph.starts[i];
    }
    let sources = graph.sources.len();
    let half = if graph.targets.len() >= two_threads_from.max(2) {
        let half_links = graph.targets.len() as u64 / 2;
        graph.starts.partition_point(|&s| u64::from(s) < half_links)
    } else {
        sources
    };
    let mut scores = vec![1.0 / nodes; n];
    let mut next = vec![0.0; n];
    let mut theirs = if half < sources {
        vec![0.0; n]
    } else {
        Vec::new()
    };
    for round in 1..=MAX_ITERATIONS {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let dangling: f64 = scores
            .iter()
            .zip(&out_degree)
            .filter(|(_, &d)| d == 0)
            .map(|(s, _)| s)
            .sum();
        let base = (1.0 - DAMPING) / nodes + DAMPING * dangling / nodes;
        next.fill(base);
        if half < sources {
            at_once(
                "entity-rank",
                || graph.spread(0..half, &scores, &mut next),
                || {
                    theirs.fill(0.0);
                    graph.spread(half..sources, &scores, &mut theirs);
                },
            )?;
            for (mine, other) in next.iter_mut().zip(&theirs) {
                *mine += other;
            }
        } else {
            graph.spread(0..sources, &scores, &mut next);
        }
        report.residual = scores.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut scores, &mut next);
        report.iterations = round;
        if report.residual < TOLERANCE {
            break;
        }
    }
    Ok(Some(scores))
}

/// Computes the entity rank of the committed store and stores it, replacing the previous one
/// entry by entry (readers see the old or the new score of an entity, never none). Returns
/// `None`, storing nothing, if `stop` was set meanwhile.
pub(crate) fn compute(
    database: &Database,
    stop: &AtomicBool,
) -> Result<Option<RankReport>, StoreError> {
    let started = Instant::now();
    let reader = Reader::new(database, None);
    let sequence = reader.sequence()?;
    let Some(links) = read_links(database, &reader, part_count(), stop)? else {
        return Ok(None);
    };
    drop(reader);
    let report = RankReport {
        sequence,
        read_ms: elapsed_ms(started),
        ..RankReport::default()
    };
    rank_links(database, &links, report, stop)
}

/// [`compute`] from the links of the store as of commit `sequence`, read by another scan of
/// `spog` (see [`LinkReader`]).
pub(crate) fn compute_from(
    database: &Database,
    links: &ReadLinks,
    sequence: SequenceNumber,
    stop: &AtomicBool,
) -> Result<Option<RankReport>, StoreError> {
    let report = RankReport {
        sequence,
        links_shared: true,
        ..RankReport::default()
    };
    rank_links(database, links, report, stop)
}

/// Iterates over the `links` and stores the scores; `report` has the commit they are of and
/// how they were read.
fn rank_links(
    database: &Database,
    links: &ReadLinks,
    mut report: RankReport,
    stop: &AtomicBool,
) -> Result<Option<RankReport>, StoreError> {
    let graph = &links.graph;
    report.quads = links.quads;
    report.links = graph.targets.len() as u64;
    report.entities = graph.nodes.len() as u64;
    report.memory_bytes = graph.memory_bytes();
    let iterating = Instant::now();
    let Some(scores) = iterate(graph, stop, &mut report)? else {
        return Ok(None);
    };
    report.iterate_ms = elapsed_ms(iterating);
    let writing = Instant::now();
    let changed = store_scores(database, graph.nodes.terms(), &scores)?;
    report.marked = changed.len() as u64;
    mark_changed(database, &changed, report.sequence, report.quads)?;
    report.write_ms = elapsed_ms(writing);
    Ok(Some(report))
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Whether a score moving from `old` to `new` (0 for none) can change a ranking: the rankings
/// see an entity's score through `ln(1 + w)` of a weight of use `w` that holds the score (see
/// `lodestone_indexer::popularity`), and `ln(1 + w)` moves by at most `|new − old| / (1 + w)`,
/// so a move under [`MARK_THRESHOLD`] × (1 + the larger score) shifts an entity's damped
/// popularity by less than 5 % of its weight factor `k` (0.5 % at `k = 0.1`): below what the
/// text scores tell apart, and under the tenth of a unit the text index keeps `w` in.
pub fn is_visible_change(old: f64, new: f64) -> bool {
    (new - old).abs() > MARK_THRESHOLD * (1.0 + old.max(new))
}

/// Writes the new scores and deletes the entries of entities no longer linked, in one pass
/// over the old entries in key order; returns the entities whose score moved visibly (see
/// [`is_visible_change`]), in key order.
fn store_scores(
    database: &Database,
    nodes: impl Iterator<Item = (TermId, u32)>,
    scores: &[f64],
) -> Result<Vec<TermId>, StoreError> {
    let cf = database.cf(Table::EntityRank);
    let mut old = database.db().raw_iterator_cf(cf);
    old.seek_to_first();
    if !old.valid() {
        old.status()?;
        drop(old);
        return store_first_scores(database, nodes, scores);
    }
    #[allow(clippy::cast_precision_loss)]
    let scale = scores.len() as f64;
    let options = database.write_options();
    let mut batch = WriteBatch::default();
    let mut changed = Vec::new();
    // In key order: sequential inserts into the memtable and one sorted run per flush.
    let mut new = nodes.peekable();
    loop {
        let old_entry = match (old.key(), old.value()) {
            (Some(key), Some(value)) => Some((
                <[u8; 8]>::try_from(key)
                    .map(TermId::from_be_bytes)
                    .map_err(|_| CorruptionError::msg("entity_rank key of the wrong length"))?,
                crate::stats::decode_score(Some(value))?,
            )),
            _ => None,
        };
        let next_new = new.peek().copied();
        let (term, before, after) = match (old_entry, next_new) {
            (None, None) => break,
            (Some((term, score)), Some((next, _))) if term.as_u64() < next.as_u64() => {
                old.next();
                (term, score, None)
            }
            (Some((term, score)), None) => {
                old.next();
                (term, score, None)
            }
            (Some((term, score)), Some((next, node))) if term == next => {
                old.next();
                new.next();
                (term, score, Some(scores[node as usize] * scale))
            }
            (_, Some((next, node))) => {
                new.next();
                (next, 0.0, Some(scores[node as usize] * scale))
            }
        };
        match after {
            Some(score) => batch.put_cf(cf, term.to_be_bytes(), score.to_le_bytes()),
            None => batch.delete_cf(cf, term.to_be_bytes()),
        }
        if is_visible_change(before, after.unwrap_or(0.0)) {
            changed.push(term);
        }
        if batch.len() >= WRITE_BATCH_ENTRIES {
            database.write(std::mem::take(&mut batch), &options)?;
        }
    }
    old.status()?;
    database.write(batch, &options)?;
    Ok(changed)
}

/// Writes the scores into a table without entries (the first computation, after a load into
/// an empty store) as one file that the table takes whole, in its last level: none of the
/// write-ahead log, memtable inserts and flush that write batches cost (5.2 M scores after a
/// load of 35 M quads took 3.1 s in batches, and their flush more at the load's end). Returns
/// every entity scored, all of them moved from none (see [`is_visible_change`]).
fn store_first_scores(
    database: &Database,
    nodes: impl Iterator<Item = (TermId, u32)>,
    scores: &[f64],
) -> Result<Vec<TermId>, StoreError> {
    if scores.is_empty() {
        return Ok(Vec::new());
    }
    #[allow(clippy::cast_precision_loss)]
    let scale = scores.len() as f64;
    let path = database
        .path()
        .join(format!("{TMP_PREFIX}rank-{}.sst", std::process::id()));
    let options = ingest_options(Table::EntityRank, database.options())?;
    let mut writer = SstFileWriter::create(&options);
    writer.open(&path)?;
    let mut changed = Vec::new();
    for (term, node) in nodes {
        let score = scores[node as usize] * scale;
        writer.put(term.to_be_bytes(), score.to_le_bytes())?;
        if is_visible_change(0.0, score) {
            changed.push(term);
        }
    }
    writer.finish()?;
    let mut ingest = IngestExternalFileOptions::default();
    ingest.set_move_files(true);
    let ingested = database.db().ingest_external_file_cf_opts(
        database.cf(Table::EntityRank),
        &ingest,
        vec![&path],
    );
    if ingested.is_err() {
        // Left in place, it would go at the next open (see `TMP_PREFIX`).
        let _ = fs::remove_file(&path);
    }
    ingested?;
    Ok(changed)
}

/// Records the commit the scores describe and marks the `changed` entities in the change log
/// (entries of [`MARKS_PER_ENTRY`], each a commit of no quads), so that the text index
/// re-indexes them. Under the writer lock; when no other commit came since the computation
/// began, the rank is recorded as describing the last of these entries, so that they do not
/// count as changes towards its next computation.
fn mark_changed(
    database: &Database,
    changed: &[TermId],
    sequence: SequenceNumber,
    quads: u64,
) -> Result<(), StoreError> {
    let mut state = database.lock_writer();
    let unchanged_since = state.sequence == sequence;
    let mut last = state.sequence;
    let meta = database.cf(Table::Meta);
    let mut batch = WriteBatch::default();
    for entities in changed.chunks(MARKS_PER_ENTRY) {
        last += 1;
        batch.put_cf(
            database.cf(Table::Changes),
            last.to_be_bytes(),
            ChangeBatch::encode_subjects(entities),
        );
    }
    batch.put_cf(meta, meta_key::SEQUENCE, encode_u64(last));
    let described = if unchanged_since { last } else { sequence };
    batch.put_cf(meta, meta_key::RANK_SEQUENCE, encode_u64(described));
    batch.put_cf(meta, meta_key::RANK_QUADS, encode_u64(quads));
    database.write(batch, &database.write_options())?;
    state.sequence = last;
    database.publish_sequence(last);
    Ok(())
}

/// Which commit the stored rank describes, and the store's state now.
pub(crate) fn state(database: &Database) -> Result<RankState, StoreError> {
    let meta = database.cf(Table::Meta);
    let read = |key: &[u8]| -> Result<Option<u64>, StoreError> {
        database
            .db()
            .get_cf(meta, key)?
            .map(|v| decode_u64(&v).map_err(StoreError::from))
            .transpose()
    };
    Ok(RankState {
        sequence: read(meta_key::RANK_SEQUENCE)?,
        quads: read(meta_key::RANK_QUADS)?.unwrap_or(0),
        store_sequence: read(meta_key::SEQUENCE)?.unwrap_or(0),
        store_quads: read(meta_key::QUAD_COUNT)?.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::links::tests::{many_links, rows_of};
    use super::*;

    fn graph_of(links: &[(u64, u64)]) -> LinkGraph {
        let mut graph = rows_of(links);
        graph.seal().unwrap();
        graph
    }

    #[test]
    fn two_threads_iterate_as_one() {
        let graph = graph_of(&many_links(20_000, 50_000));
        assert!(graph.targets.len() > 10_000);
        let stop = AtomicBool::new(false);
        let (mut one, mut two) = (RankReport::default(), RankReport::default());
        let alone = iterate_with(&graph, usize::MAX, &stop, &mut one)
            .unwrap()
            .unwrap();
        let split = iterate_with(&graph, 0, &stop, &mut two).unwrap().unwrap();
        assert_eq!(one.iterations, two.iterations);
        for (a, b) in alone.iter().zip(&split) {
            assert!((a - b).abs() <= 1e-12 * a, "{a} {b}");
        }
    }

    fn score(graph: &LinkGraph, scores: &[f64], term: u32) -> f64 {
        scores[graph.nodes.node(term).unwrap() as usize]
    }

    #[test]
    fn scores_sum_to_one_and_follow_the_links() {
        // 1, 2 and 3 link to 4; 4 links to 5; 5 is dangling.
        let graph = graph_of(&[(1, 4), (2, 4), (3, 4), (4, 5)]);
        let mut report = RankReport::default();
        let scores = iterate(&graph, &AtomicBool::new(false), &mut report)
            .unwrap()
            .unwrap();
        let total: f64 = scores.iter().sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!(score(&graph, &scores, 4) > score(&graph, &scores, 1));
        assert!(score(&graph, &scores, 5) > score(&graph, &scores, 4));
        assert!((score(&graph, &scores, 1) - score(&graph, &scores, 3)).abs() < 1e-12);
    }

    #[test]
    fn a_cycle_ranks_every_node_alike() {
        let graph = graph_of(&[(1, 2), (2, 3), (3, 1)]);
        let mut report = RankReport::default();
        let scores = iterate(&graph, &AtomicBool::new(false), &mut report)
            .unwrap()
            .unwrap();
        for s in &scores {
            assert!((s - 1.0 / 3.0).abs() < 1e-9, "{scores:?}");
        }
        assert!(report.residual < TOLERANCE);
    }

    #[test]
    fn matches_the_closed_form_of_a_star() {
        // n leaves all linking to one hub, which is dangling: with teleport t = (1-d)/N and
        // dangling mass spread evenly, leaf = t + d*hub/N and hub = leaf + d*n*leaf, so
        // leaf = t / (1 - d*(1 + d*n)/N). Twenty rounds leave an error of about d^20 ≈ 4% of
        // the first one: within 1e-3 here.
        let links: Vec<(u64, u64)> = (1..=4).map(|i| (i, 100)).collect();
        let graph = graph_of(&links);
        let mut report = RankReport::default();
        let scores = iterate(&graph, &AtomicBool::new(false), &mut report)
            .unwrap()
            .unwrap();
        let (n, d, nodes) = (4.0, DAMPING, 5.0);
        let exact_leaf = (1.0 - d) / nodes / (1.0 - d * (1.0 + d * n) / nodes);
        let exact_hub = exact_leaf * (1.0 + d * n);
        let leaf = score(&graph, &scores, 1);
        let hub = score(&graph, &scores, 100);
        assert!((leaf - exact_leaf).abs() < 1e-3, "{leaf} {exact_leaf}");
        assert!((hub - exact_hub).abs() < 1e-3, "{hub} {exact_hub}");
        assert!((n * leaf + hub - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_stop_leaves_the_iteration() {
        let graph = graph_of(&[(1, 2)]);
        let mut report = RankReport::default();
        assert!(iterate(&graph, &AtomicBool::new(true), &mut report)
            .unwrap()
            .is_none());
    }
}
