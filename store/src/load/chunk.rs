//! Chunks of a bulk load, once their terms are ids (see `encoder`): the quads sorted in each
//! index order and written as SST files with the dictionary entries and
//! the statistics computed from the same sorted runs. A chunk is written against the store as
//! it was before the load plus the chunks before it (see `staging`); the store itself takes
//! every chunk at the load's end (see `ingest`).

use super::counters::{Counters, OrderStats};
use super::ingest::IngestBatch;
use super::key_sort::sort_keys;
use super::resolution::EncodedChunk;
use super::staging::{current_values, spread};
use crate::changes::ChangeBatch;
use crate::database::{Database, WriterState};
use crate::dictionary::{encode_ids, lookup_key};
use crate::encoding::{EncodedQuad, Permutation, TermId};
use crate::error::StoreError;
use crate::hash_iris;
use crate::iri_index;
use crate::kv::permutation_table;
use crate::kv::Table;
use crate::quads::layout::GraphLayout;
use crate::quads::reader::Reader;
use crate::stats::UsageDelta;
use crate::threads::with_helpers;
use rustc_hash::FxHashSet;
use std::sync::Mutex;

/// Writes encoded chunks of one load into its ingest batch.
#[derive(Clone, Copy)]
pub(super) struct ChunkWriter<'a> {
    database: &'a Database,
    /// Whether the store held quads before the load; it does not change until the load
    /// commits, so only then are its tables worth a look-up.
    store_had_quads: bool,
}

impl<'a> ChunkWriter<'a> {
    pub(super) fn new(database: &'a Database, state: &WriterState) -> Self {
        Self {
            database,
            store_had_quads: state.quad_count > 0,
        }
    }

    /// Writes one chunk into `batch`, moving `state` (the counters as the load has left them
    /// so far) on; returns how many quads were new. With `stage`, the chunk is made readable
    /// to the chunks still to come. The chunk's quads are left sorted, deduplicated and
    /// without those the store or an earlier chunk had; its new terms are taken.
    pub(super) fn write(
        &self,
        chunk: &mut EncodedChunk,
        batch: &mut IngestBatch,
        state: &mut WriterState,
        stage: bool,
    ) -> Result<u64, StoreError> {
        let database = self.database;
        if stage {
            batch.expect_several_chunks();
        }
        chunk.settle();
        let new_terms = std::mem::take(&mut chunk.new_terms);
        let shared_keys = std::mem::take(&mut chunk.shared_keys);
        let EncodedChunk {
            ref mut quads,
            rdf_type,
            next_dictionary_id,
            next_blank_id,
            ..
        } = *chunk;
        // The subject the chunk ends in, whose statements likely go on in the next chunk.
        let last_subject = quads.last().map(|quad| quad.subject);
        quads.sort_unstable();
        quads.dedup();
        if !quads.is_empty() {
            // A quad with a term minted for this chunk is in neither the store nor an earlier
            // chunk: only the others are looked up (in a data dump, most quads have a new
            // subject).
            let minted = minted_since(state, database);
            let known = |quad: &EncodedQuad| !quad.terms().into_iter().any(minted);
            let present = current_values(
                database,
                batch.staging(),
                Table::Spog,
                self.store_had_quads,
                || {
                    quads
                        .iter()
                        .filter(|quad| known(quad))
                        .map(|quad| Permutation::Spog.key(quad))
                },
                |_| Ok(()),
            )?;
            let present = present.iter().map(Option::is_some).collect();
            let mut flags = spread(quads, known, present, false).into_iter();
            quads.retain(|_| !flags.next().unwrap_or(false));
        }
        batch.note_added(quads, rdf_type);
        if quads.is_empty() && new_terms.is_empty() && next_blank_id == state.next_blank_id {
            return Ok(0);
        }

        let compact = if self.store_had_quads {
            self.compact_graph_quads(batch, quads)?
        } else {
            Vec::new()
        };
        let dictionary = NewTerms {
            terms: new_terms,
            shared_keys,
        };
        let singled_out = SingledOut {
            rdf_type,
            last_subject,
        };
        let mut new_state =
            self.write_chunk(batch, quads, &compact, dictionary, singled_out, state)?;
        new_state.next_dictionary_id = next_dictionary_id;
        new_state.next_blank_id = next_blank_id;
        let added = quads.len() as u64;
        new_state.quad_count = state.quad_count + added;
        *state = new_state;
        if stage {
            batch.stage()?;
        }
        Ok(added)
    }

    /// The committed quads of the compact graphs the chunk adds to, sorted. The loader writes
    /// every graph it touches indexed (see `quads::layout`), so these quads get their `gpos`
    /// and `gosp` entries in the same ingestion.
    fn compact_graph_quads(
        &self,
        batch: &IngestBatch,
        quads: &[EncodedQuad],
    ) -> Result<Vec<EncodedQuad>, StoreError> {
        let database = self.database;
        let mut graphs: Vec<TermId> = quads
            .iter()
            .map(|q| q.graph)
            .filter(|g| !g.is_default_graph())
            .collect::<FxHashSet<_>>()
            .into_iter()
            .collect();
        graphs.sort_unstable();
        // A graph an earlier chunk wrote is indexed already; only the store's may be compact.
        let layouts = current_values(
            database,
            batch.staging(),
            Table::Graphs,
            true,
            || graphs.iter().map(|g| g.to_be_bytes()),
            |v| Ok(GraphLayout::decode(v)?),
        )?;
        let reader = Reader::new(database, None);
        let mut found = Vec::new();
        for (graph, layout) in graphs.into_iter().zip(layouts) {
            if layout == Some(GraphLayout::Compact) {
                for quad in reader.quads_for_pattern(None, None, None, Some(graph)) {
                    found.push(quad?);
                }
            }
        }
        found.sort_unstable();
        Ok(found)
    }

    fn write_chunk(
        &self,
        batch: &IngestBatch,
        quads: &[EncodedQuad],
        compact: &[EncodedQuad],
        new_terms: NewTerms,
        singled_out: SingledOut,
        state: &WriterState,
    ) -> Result<WriterState, StoreError> {
        let SingledOut {
            rdf_type,
            last_subject,
        } = singled_out;
        let database = self.database;
        let minted = minted_since(state, database);
        // The subjects of `spog` files the merge can take as they are: the chunk's own, but
        // for the one it ends in, which the next chunk most likely adds to.
        let own_subject = move |id: TermId| minted(id) && Some(id) != last_subject;
        // The six index orders are sorted and written by every core at once; this thread
        // writes the dictionary first, then joins in.
        let queue = Mutex::new(Permutation::ALL.to_vec());
        let next_order = || queue.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let work = || -> Result<Vec<OrderStats>, StoreError> {
            let mut done = Vec::new();
            let mut buffer = Vec::new();
            while let Some(permutation) = next_order() {
                done.push(write_order(
                    batch,
                    quads,
                    compact,
                    &mut buffer,
                    permutation,
                    rdf_type,
                    own_subject,
                )?);
            }
            Ok(done)
        };
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .max(2)
            - 1;
        let (mut orders, helped) = with_helpers("load-sorter", (0..workers).map(|_| work), || {
            self.write_dictionary(batch, new_terms)?;
            work()
        })?;
        orders.extend(helped.into_iter().flatten());
        let counters = Counters {
            database,
            batch,
            store_had_quads: self.store_had_quads,
        };
        let (graphs, subjects) = counters.write(orders, minted)?;
        batch.write(Table::Graphs, graphs.iter().map(|g| (g.to_be_bytes(), [])))?;

        // Change log.
        let sequence = state.sequence + 1;
        batch.write(
            Table::Changes,
            [(
                sequence.to_be_bytes(),
                ChangeBatch::encode_subjects(&subjects),
            )],
        )?;

        Ok(WriterState {
            next_dictionary_id: state.next_dictionary_id,
            next_blank_id: state.next_blank_id,
            sequence,
            quad_count: state.quad_count,
            term_cache: state.term_cache.clone(),
        })
    }

    fn write_dictionary(&self, batch: &IngestBatch, new_terms: NewTerms) -> Result<(), StoreError> {
        let NewTerms {
            terms: mut new_terms,
            shared_keys,
        } = new_terms;
        // The resolution left the new terms in dictionary key order, `term2id`'s: their keys
        // are made one at a time as the entries are written (the file refuses a key out of
        // order), rather than all at once beside the terms.
        let by_key = new_terms.iter().map(|(id, bytes)| (lookup_key(bytes), *id));
        batch.write(Table::TermToId, term2id_entries(by_key, shared_keys))?;
        new_terms.sort_unstable_by_key(|(id, _)| *id);
        // A file per kind of term: each kind's ids grow from chunk to chunk, so no two of the
        // load's `id2term` files overlap and the store takes them unmerged (see `merge`).
        for same_kind in new_terms.chunk_by(|(a, _), (b, _)| a.kind() == b.kind()) {
            batch.write(
                Table::IdToTerm,
                same_kind
                    .iter()
                    .map(|(id, bytes)| (id.to_be_bytes(), bytes.as_ref())),
            )?;
        }
        let mut hash_keys: Vec<_> = new_terms
            .iter()
            .filter_map(|(id, bytes)| hash_iris::key_of(bytes, *id))
            .collect();
        hash_keys.sort_unstable();
        batch.write(Table::HashIris, hash_keys.iter().map(|k| (k, [])))?;
        drop(hash_keys);
        let mut iri_keys: Vec<Vec<u8>> = new_terms
            .iter()
            .flat_map(|(id, bytes)| iri_index::keys_of(bytes, *id))
            .collect();
        drop(new_terms);
        sort_keys(&mut iri_keys);
        batch.write(Table::IriIndex, iri_keys.iter().map(|k| (k, [])))
    }
}

/// Whether a term (a dictionary term or a blank node) was minted for the chunk written
/// against `state` (the counters as the load left them before it) in `database`: such a
/// term is in neither the store nor an earlier chunk, nor is any quad, counter or statistic
/// of it.
fn minted_since(state: &WriterState, database: &Database) -> impl Fn(TermId) -> bool + Copy {
    let mark = state.id_mark();
    let numbering = database.blank_numbering();
    move |id: TermId| mark.is_newer(numbering, id)
}

/// The `term2id` entries of a chunk's new terms, from their keys and ids in key order and the
/// ids that other terms already list under some of those keys (also in key order): one
/// entry per key, listing the earlier ids first, then the chunk's.
fn term2id_entries(
    by_key: impl Iterator<Item = (Vec<u8>, TermId)>,
    shared_keys: Vec<(Vec<u8>, Vec<TermId>)>,
) -> impl Iterator<Item = (Vec<u8>, Vec<u8>)> {
    let mut shared = shared_keys.into_iter().peekable();
    let mut by_key = by_key.peekable();
    std::iter::from_fn(move || {
        let (key, id) = by_key.next()?;
        while shared.next_if(|(k, _)| *k < key).is_some() {}
        let mut ids = match shared.next_if(|(k, _)| *k == key) {
            Some((_, earlier)) => encode_ids(&earlier),
            None => Vec::new(),
        };
        ids.extend_from_slice(&id.to_be_bytes());
        while let Some((_, id)) = by_key.next_if(|(k, _)| *k == key) {
            ids.extend_from_slice(&id.to_be_bytes());
        }
        Some((key, ids))
    })
}

/// Terms a chunk's writing treats apart.
#[derive(Clone, Copy)]
struct SingledOut {
    /// `rdf:type`, whose objects are counted as classes (if the load has met it).
    rdf_type: Option<TermId>,
    /// The subject of the chunk's last quad as read, whose statements likely go on in the
    /// next chunk.
    last_subject: Option<TermId>,
}

/// The dictionary entries a chunk adds: its new terms, and the ids its new terms' hashed keys
/// already listed (see `EncodedChunk::shared_keys`).
struct NewTerms {
    terms: Vec<(TermId, Box<[u8]>)>,
    shared_keys: Vec<(Vec<u8>, Vec<TermId>)>,
}

/// Sorts the quads in one index order (in `buffer`, reused between orders to spare page
/// faults), writes its SST files (in `spog`, the quads of the subjects `own_subject` says
/// no other chunk adds to apart, see `IngestBatch::write_by_age`) and counts its runs.
/// `quads` is already in SPOG order; `compact` are committed quads (none of them in
/// `quads`) that the orders leaving out compact graphs get as well, without counting them.
fn write_order(
    batch: &IngestBatch,
    quads: &[EncodedQuad],
    compact: &[EncodedQuad],
    buffer: &mut Vec<EncodedQuad>,
    permutation: Permutation,
    rdf_type: Option<TermId>,
    own_subject: impl Fn(TermId) -> bool,
) -> Result<OrderStats, StoreError> {
    let order = permutation.order();
    let sort_key = |q: &EncodedQuad| {
        let t = q.terms();
        (t[order[0]], t[order[1]], t[order[2]], t[order[3]])
    };
    let sorted: &[EncodedQuad] = if permutation == Permutation::Spog {
        quads
    } else {
        buffer.clear();
        if permutation.is_graph_first() {
            // No default graph quad in the graph-first orders (see `quads::layout`).
            buffer.extend(quads.iter().filter(|q| !q.graph.is_default_graph()));
        } else {
            buffer.extend_from_slice(quads);
        }
        buffer.sort_unstable_by_key(sort_key);
        buffer
    };
    let mut all;
    let written = if permutation.holds_compact_graphs() || compact.is_empty() {
        sorted
    } else {
        all = [sorted, compact].concat();
        all.sort_unstable_by_key(sort_key);
        &all
    };
    let table = permutation_table(permutation);
    let keys = written.iter().map(|q| permutation.key(q));
    if permutation == Permutation::Spog {
        // A dump describes most subjects in one place: only the subject a chunk ends in and
        // the few used again later reach into an earlier chunk's files.
        batch.write_by_age(table, keys.map(|key| (key, [])), own_subject)?;
    } else {
        batch.write_quad_keys(table, keys)?;
    }
    let mut stats = OrderStats::default();
    match permutation {
        Permutation::Spog => {
            stats
                .pairs
                .extend(default_graph_pairs(sorted, |q| q.subject));
            for (term, n) in runs(sorted, |q| q.subject) {
                stats.subjects.push(term);
                stats.deltas.push((
                    term,
                    UsageDelta {
                        as_subject: n,
                        ..UsageDelta::default()
                    },
                ));
            }
        }
        Permutation::Posg => {
            stats
                .pairs
                .extend(default_graph_pairs(sorted, |q| q.predicate));
            for (term, n) in runs(sorted, |q| q.predicate) {
                stats.deltas.push((
                    term,
                    UsageDelta {
                        as_predicate: n,
                        ..UsageDelta::default()
                    },
                ));
            }
            if let Some(rdf_type) = rdf_type {
                let start = sorted.partition_point(|q| q.predicate < rdf_type);
                let end = sorted.partition_point(|q| q.predicate <= rdf_type);
                for (class, n) in runs(&sorted[start..end], |q| q.object) {
                    stats.classes.push((class, n.unsigned_abs()));
                }
            }
        }
        Permutation::Ospg => {
            stats
                .pairs
                .extend(default_graph_pairs(sorted, |q| q.object));
            for (term, n) in runs(sorted, |q| q.object) {
                stats.deltas.push((
                    term,
                    UsageDelta {
                        as_object: n,
                        ..UsageDelta::default()
                    },
                ));
            }
        }
        Permutation::Gspo => {
            for (graph, n) in runs(sorted, |q| q.graph) {
                stats.graphs.push(graph);
                stats.deltas.push((
                    graph,
                    UsageDelta {
                        as_graph: n,
                        ..UsageDelta::default()
                    },
                ));
            }
            for ((g, s), n) in runs(sorted, |q| (q.graph, q.subject)) {
                stats.pairs.push((s, g, n.unsigned_abs()));
            }
        }
        Permutation::Gpos => {
            for ((g, p), n) in runs(sorted, |q| (q.graph, q.predicate)) {
                stats.pairs.push((p, g, n.unsigned_abs()));
            }
        }
        Permutation::Gosp => {
            for ((g, o), n) in runs(sorted, |q| (q.graph, q.object)) {
                stats.pairs.push((o, g, n.unsigned_abs()));
            }
        }
    }
    Ok(stats)
}

/// The default graph's (term, graph, count) pairs of one position, from a union order sorted
/// by that position first: the graph-first orders, which give the named graphs' pairs, leave
/// the default graph out.
fn default_graph_pairs<'q>(
    sorted: &'q [EncodedQuad],
    term: impl Fn(&EncodedQuad) -> TermId + 'q,
) -> impl Iterator<Item = (TermId, TermId, u64)> + 'q {
    let mut i = 0;
    std::iter::from_fn(move || {
        while let Some(first) = sorted.get(i) {
            let t = term(first);
            let mut n = 0;
            while let Some(q) = sorted.get(i).filter(|q| term(q) == t) {
                n += u64::from(q.graph.is_default_graph());
                i += 1;
            }
            if n > 0 {
                return Some((t, TermId::DEFAULT_GRAPH, n));
            }
        }
        None
    })
}

/// Runs of equal keys in a sorted slice, with their lengths.
fn runs<'q, K: PartialEq + Copy>(
    quads: &'q [EncodedQuad],
    key: impl Fn(&EncodedQuad) -> K + 'q,
) -> impl Iterator<Item = (K, i64)> + 'q {
    let mut i = 0;
    std::iter::from_fn(move || {
        let first = quads.get(i)?;
        let k = key(first);
        let start = i;
        while i < quads.len() && key(&quads[i]) == k {
            i += 1;
        }
        Some((k, (i - start) as i64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;

    fn iri(n: u64) -> TermId {
        TermId::new(TermKind::Iri, n)
    }

    #[test]
    fn term2id_entries_keep_the_ids_earlier_terms_listed_under_a_key() {
        let key = |b: u8| vec![0xFF, b];
        // Two new terms share key 2 with an earlier term (listed once for each of them).
        let by_key = vec![
            (key(1), iri(10)),
            (key(2), iri(11)),
            (key(2), iri(12)),
            (key(4), iri(13)),
        ];
        let shared = vec![
            (key(2), vec![iri(5)]),
            (key(2), vec![iri(5)]),
            (key(3), vec![iri(6)]),
            (key(4), vec![iri(7), iri(8)]),
        ];
        let entries: Vec<_> = term2id_entries(by_key.into_iter(), shared).collect();
        let expected = vec![
            (key(1), encode_ids(&[iri(10)])),
            (key(2), encode_ids(&[iri(5), iri(11), iri(12)])),
            (key(4), encode_ids(&[iri(7), iri(8), iri(13)])),
        ];
        assert_eq!(entries, expected);
    }
}
