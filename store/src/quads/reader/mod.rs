//! Read views: a RocksDB snapshot, optionally with a transaction's uncommitted changes on top.
//!
//! This module holds the reader and its pattern scans; what a reader answers besides quads is
//! in its children: `terms` (ids and terms, transient terms, quads encoded and decoded),
//! `statistics` (the committed counters: term usage, ranks, classes, totals), `iris` (IRIs
//! by prefix, local name or document) and `subject_column` (a subject's values from a column).
//! Whole-store passes are in `quads::batch`.

use crate::changes::SequenceNumber;
use crate::database::{Database, DecodedTerms};
use crate::encoding::{EncodedQuad, Permutation, TermId};
use crate::error::{CorruptionError, StoreError};
use crate::kv::{multi_get, permutation_table, Table, QUAD_PREFIX_LEN};
use crate::quads::layout::GraphLayout;
use crate::quads::overlay::Overlay;
use oxrdf::{Quad, Term};
use rocksdb::{ColumnFamily, DBRawIterator, ReadOptions, Snapshot, DB};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;
use subject_column::SubjectLookup;

mod iris;
mod object_span;
mod statistics;
mod subject_column;
mod terms;

/// Quads of compact graphs kept per reader; cleared when they grow past this many.
const COMPACT_GRAPH_CACHE_QUADS: usize = 1 << 16;

/// A consistent view of the store.
///
/// Readers never block the writer and never see a commit that happened after they were
/// created. Terms met only during a query (computed values, constants absent from the store)
/// get transient ids that live as long as the reader.
pub struct Reader<'a> {
    database: &'a Database,
    db: &'a DB,
    /// Idle iterators of each index order, reused by later scans: creating a RocksDB iterator
    /// costs more than a short scan. Declared before the snapshot, which they read, so that
    /// they are dropped first.
    idle: RefCell<IdleIterators<'a>>,
    snapshot: Snapshot<'a>,
    overlay: Option<&'a Overlay>,
    cache: RefCell<ReaderCache>,
    /// Terms decoded by any reader of the store.
    decoded: &'a DecodedTerms,
    /// Whether the store keeps the distinct counts per class and predicate.
    class_predicates: bool,
}

/// Idle iterators per index order: prefix-mode ones (for scans with a bound first id) and
/// total-order ones (for full scans).
type IdleIterators<'a> = [Vec<DBRawIterator<'a>>; 12];

#[derive(Default)]
struct ReaderCache {
    decoded: FxHashMap<TermId, Term>,
    /// Ids of stored terms the caller already knows (`Reader::remember_ids`), by their
    /// encoded bytes: looked up before the dictionary.
    known_ids: FxHashMap<Vec<u8>, TermId>,
    transient_ids: FxHashMap<Term, TermId>,
    transient_terms: Vec<Term>,
    /// Bytes of the strings in `transient_terms`.
    transient_bytes: usize,
    layouts: FxHashMap<TermId, GraphLayout>,
    compact_graphs: FxHashMap<TermId, Arc<[EncodedQuad]>>,
    /// Quads held in `compact_graphs`.
    compact_graph_quads: usize,
    /// The commit sequence of the snapshot, once read.
    sequence: Option<SequenceNumber>,
    /// What is known of the columns of subjects of the predicates looked up so far.
    subject_lookups: FxHashMap<TermId, SubjectLookup>,
}

impl<'a> Reader<'a> {
    /// A view of `database` as of now, with `overlay` (a transaction's changes) on top.
    pub(crate) fn new(database: &'a Database, overlay: Option<&'a Overlay>) -> Self {
        crate::kv::quiet_perf_counters();
        let db = database.db();
        Self {
            database,
            db,
            idle: RefCell::default(),
            snapshot: db.snapshot(),
            overlay,
            cache: RefCell::default(),
            decoded: database.decoded_terms(),
            class_predicates: database.keeps_class_predicates(),
        }
    }

    /// A second reader of the same committed state, for work split among threads; `None`
    /// when the store committed since this reader was made (its sequence moved on) or this
    /// reader sees a transaction's changes.
    pub fn sibling(&self) -> Result<Option<Reader<'a>>, StoreError> {
        if self.overlay.is_some() {
            return Ok(None);
        }
        let sibling = Reader::new(self.database, None);
        Ok((sibling.sequence()? == self.sequence()?).then_some(sibling))
    }

    fn cf(&self, table: Table) -> &'a ColumnFamily {
        // Every table is created at open, so a missing handle is a programming error.
        #[allow(clippy::expect_used)]
        self.db
            .cf_handle(table.name())
            .expect("every table is opened with the store")
    }

    pub(crate) fn get(&self, table: Table, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.snapshot.get_cf(self.cf(table), key)?)
    }

    /// A raw iterator over one table of the snapshot, up to `upper_bound` (excluded).
    pub(crate) fn raw_iterator(
        &self,
        table: Table,
        upper_bound: Option<Vec<u8>>,
    ) -> DBRawIterator<'a> {
        self.db
            .raw_iterator_cf_opt(self.cf(table), self.read_options(upper_bound))
    }

    /// Whether the store keeps the distinct counts per class and predicate (an older store
    /// opened read-only does not).
    pub(crate) fn keeps_class_predicates(&self) -> bool {
        self.class_predicates
    }

    /// Whether the reader sees a transaction's uncommitted changes (then the statistics,
    /// which are committed state only, do not describe what it reads).
    pub fn has_overlay(&self) -> bool {
        self.overlay.is_some()
    }

    fn read_options(&self, upper_bound: Option<Vec<u8>>) -> ReadOptions {
        let mut options = ReadOptions::default();
        options.set_snapshot(&self.snapshot);
        options.set_total_order_seek(true);
        if let Some(bound) = upper_bound {
            options.set_iterate_upper_bound(bound);
        }
        options
    }

    /// Every quad, one subject at a time (in subject id order): what a rebuild of anything
    /// kept per subject reads. The SPOG order of a full scan keeps a subject's quads together.
    pub fn quads_by_subject(
        &self,
    ) -> impl Iterator<Item = Result<(TermId, Vec<EncodedQuad>), StoreError>> + use<'_, 'a> {
        group_by_subject(self.quads_for_pattern(None, None, None, None))
    }

    /// Quads matching a pattern of ids; `None` is a wildcard. For the graph, `None` means every
    /// graph including the default one, `Some(TermId::DEFAULT_GRAPH)` the default graph only.
    pub fn quads_for_pattern(
        &self,
        subject: Option<TermId>,
        predicate: Option<TermId>,
        object: Option<TermId>,
        graph: Option<TermId>,
    ) -> QuadIter<'_, 'a> {
        // The default graph's quads are in the union orders only (see `quads::layout`): a
        // pattern bound to it scans one of those as if the graph were unbound, keeping the
        // default graph's quads. Its id sorts first, so they come in the same order as a
        // graph-first scan would give them.
        let default_graph = graph.filter(|g| g.is_default_graph());
        let (permutation, _) = Permutation::for_pattern(
            subject.is_some(),
            predicate.is_some(),
            object.is_some(),
            graph.is_some() && default_graph.is_none(),
        );
        let pattern = [subject, predicate, object, graph];
        let mut error = None;
        if let Some(graph) = graph.filter(|_| !permutation.holds_compact_graphs()) {
            match self.graph_layout(graph) {
                Ok(GraphLayout::Indexed) => {}
                Ok(GraphLayout::Compact) => return self.compact_graph_matches(graph, pattern),
                Err(e) => error = Some(e),
            }
        }
        if let (Some(s), Some(p), None) = (subject, predicate, object) {
            match self.subject_column_matches(s, p, graph) {
                Ok(Some(quads)) => return self.quads_in_memory(permutation, quads, error),
                Ok(None) => {}
                Err(e) => error = error.or(Some(e)),
            }
        }
        let prefix = permutation.prefix(pattern);
        // Scans with a bound first id stay within one hash bucket of the memtable (prefix
        // mode); a full scan needs total order.
        let total_order = prefix.len() < QUAD_PREFIX_LEN;
        let mut quads = self.scan_order(permutation, total_order, &prefix, pattern);
        quads.prefix = prefix;
        quads.only_graph = default_graph;
        quads.error = error;
        quads
    }

    /// A scan of one index order from the first key at or after `start`, with the overlay's
    /// added quads that match `pattern` merged in; no prefix bounds it yet.
    fn scan_order(
        &self,
        permutation: Permutation,
        total_order: bool,
        start: &[u8],
        pattern: [Option<TermId>; 4],
    ) -> QuadIter<'_, 'a> {
        let (slot, mut iter) = self.take_iterator(permutation, total_order);
        iter.seek(start);
        let (extra, removed) = match self.overlay {
            Some(overlay) => (overlay.added_matching(permutation, pattern), Some(overlay)),
            None => (Vec::new(), None),
        };
        QuadIter {
            permutation,
            slot,
            base: Some(iter),
            idle: &self.idle,
            prefix: Vec::new(),
            only_graph: None,
            extra: extra.into_iter().peekable(),
            removed,
            error: None,
            failed: false,
        }
    }

    /// How a named graph is laid out in the graph-first indexes, in this reader's snapshot.
    fn graph_layout(&self, graph: TermId) -> Result<GraphLayout, StoreError> {
        if let Some(layout) = self.cache.borrow().layouts.get(&graph) {
            return Ok(*layout);
        }
        // No entry: no committed quads, which an indexed graph's scan finds as well.
        let layout = match self.get(Table::Graphs, &graph.to_be_bytes())? {
            Some(value) => GraphLayout::decode(&value)?,
            None => GraphLayout::Indexed,
        };
        self.cache.borrow_mut().layouts.insert(graph, layout);
        Ok(layout)
    }

    /// The quads of a compact graph matching a pattern, in GSPO order. The graph's committed
    /// quads are read once per reader: a query joining on the graph probes it once per row.
    fn compact_graph_matches(
        &self,
        graph: TermId,
        pattern: [Option<TermId>; 4],
    ) -> QuadIter<'_, 'a> {
        let permutation = Permutation::Gspo;
        let (mut matching, error) = match self.compact_graph(graph) {
            Ok(quads) => {
                let removed = |q: &EncodedQuad| self.overlay.is_some_and(|o| o.is_removed(q));
                let matching = quads
                    .iter()
                    .filter(|q| q.matches(&pattern) && !removed(q))
                    .copied()
                    .collect::<Vec<_>>();
                (matching, None)
            }
            Err(e) => (Vec::new(), Some(e)),
        };
        if let Some(overlay) = self.overlay {
            matching.extend(overlay.added_matching(permutation, pattern));
            matching.sort_unstable_by_key(|q| permutation.key(q));
        }
        self.quads_in_memory(permutation, matching, error)
    }

    /// A scan's answer already read: `quads` in the order of `permutation`, after `error` if
    /// there is one.
    fn quads_in_memory(
        &self,
        permutation: Permutation,
        quads: Vec<EncodedQuad>,
        error: Option<StoreError>,
    ) -> QuadIter<'_, 'a> {
        QuadIter {
            permutation,
            slot: 0,
            base: None,
            idle: &self.idle,
            prefix: Vec::new(),
            only_graph: None,
            extra: quads.into_iter().peekable(),
            removed: None,
            error,
            failed: false,
        }
    }

    /// The commit sequence of the snapshot (read once per reader).
    pub(super) fn cached_sequence(&self) -> Result<SequenceNumber, StoreError> {
        if let Some(sequence) = self.cache.borrow().sequence {
            return Ok(sequence);
        }
        let sequence = self.sequence()?;
        self.cache.borrow_mut().sequence = Some(sequence);
        Ok(sequence)
    }

    /// The committed quads of a compact graph, in GSPO order.
    fn compact_graph(&self, graph: TermId) -> Result<Arc<[EncodedQuad]>, StoreError> {
        if let Some(quads) = self.cache.borrow().compact_graphs.get(&graph) {
            return Ok(Arc::clone(quads));
        }
        let permutation = Permutation::Gspo;
        let prefix = graph.to_be_bytes();
        let (slot, mut iter) = self.take_iterator(permutation, false);
        iter.seek(prefix);
        let mut quads = Vec::new();
        while let Some(key) = iter.key().filter(|k| k.starts_with(&prefix)) {
            quads.push(
                permutation
                    .decode(key)
                    .ok_or_else(|| CorruptionError::msg("malformed quad key"))?,
            );
            iter.next();
        }
        iter.status()?;
        self.give_back(slot, iter);
        let quads: Arc<[EncodedQuad]> = quads.into();
        let mut cache = self.cache.borrow_mut();
        cache.compact_graph_quads += quads.len();
        if cache.compact_graph_quads > COMPACT_GRAPH_CACHE_QUADS {
            cache.compact_graphs.clear();
            cache.compact_graph_quads = quads.len();
        }
        cache.compact_graphs.insert(graph, Arc::clone(&quads));
        Ok(quads)
    }

    /// An idle iterator over one index order (or a new one) and the slot it goes back to.
    /// Iterators have no upper bound, so that they can be reused for any prefix: scans stop
    /// at the first key outside their range.
    pub(super) fn take_iterator(
        &self,
        permutation: Permutation,
        total_order: bool,
    ) -> (usize, DBRawIterator<'a>) {
        let slot = permutation.index() * 2 + usize::from(total_order);
        let idle = self.idle.borrow_mut()[slot].pop();
        let iter = idle.unwrap_or_else(|| {
            let mut options = self.read_options(None);
            options.set_total_order_seek(total_order);
            if total_order {
                // Only a scan of a whole index is in total order (every other pattern binds
                // the first id): it reads each block once, so it reads ahead and leaves the
                // block cache to the blocks that are read again. Filling the cache with
                // them, a rank computation over 35 M quads grew by the whole cache (a
                // quarter of a gigabyte).
                options.fill_cache(false);
                options.set_readahead_size(2 << 20);
            }
            self.db
                .raw_iterator_cf_opt(self.cf(permutation_table(permutation)), options)
        });
        (slot, iter)
    }

    /// Returns an iterator taken by [`Reader::take_iterator`] for reuse (a failed one is
    /// dropped).
    pub(super) fn give_back(&self, slot: usize, iter: DBRawIterator<'a>) {
        if iter.status().is_ok() {
            if let Ok(mut idle) = self.idle.try_borrow_mut() {
                if let Some(list) = idle.get_mut(slot) {
                    list.push(iter);
                }
            }
        }
    }

    /// Every quad of `permutation` from the first key at or after `start`, in key order, with
    /// the overlay's added quads merged in (all of them: the caller skips those before
    /// `start`). A scan in total order, reading ahead without filling the block cache.
    pub(super) fn scan_from(&self, permutation: Permutation, start: &[u8]) -> QuadIter<'_, 'a> {
        self.scan_order(permutation, true, start, [None; 4])
    }

    /// The last key of `table` at or before `key` in this snapshot (committed state only).
    pub(super) fn last_key_at_or_before(
        &self,
        table: Table,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let mut iter = self.raw_iterator(table, None);
        iter.seek_for_prev(key);
        iter.status()?;
        Ok(iter.key().map(<[u8]>::to_vec))
    }

    /// The values of many keys of `table` at once, in the order given; `sorted` says the keys
    /// are in ascending order (RocksDB then skips sorting them). Committed state only.
    pub(super) fn multi_get<K: AsRef<[u8]>>(
        &self,
        table: Table,
        keys: impl IntoIterator<Item = K>,
        sorted: bool,
    ) -> Vec<Result<Option<rocksdb::DBPinnableSlice<'a>>, rocksdb::Error>> {
        multi_get(
            self.db,
            self.cf(table),
            keys,
            sorted,
            &self.read_options(None),
        )
    }

    /// The database this reader reads, for the state its readers share.
    pub(super) fn database(&self) -> &'a Database {
        self.database
    }

    /// Uncommitted changes this reader sees on top of its snapshot, if any.
    pub(super) fn overlay(&self) -> Option<&'a Overlay> {
        self.overlay
    }

    /// Whether the store holds this exact quad.
    pub fn contains(&self, quad: &EncodedQuad) -> Result<bool, StoreError> {
        if let Some(overlay) = self.overlay {
            if let Some(present) = overlay.contains(quad) {
                return Ok(present);
            }
        }
        self.contains_in_base(quad)
    }

    pub(crate) fn contains_in_base(&self, quad: &EncodedQuad) -> Result<bool, StoreError> {
        Ok(self
            .get(Table::Spog, &Permutation::Spog.key(quad))?
            .is_some())
    }

    /// Every quad of the store, decoded, in graph order.
    pub fn all_quads(&self) -> impl Iterator<Item = Result<Quad, StoreError>> + use<'_, 'a> {
        self.quads_for_pattern(None, None, None, None)
            .map(move |q| self.decode_quad(&q?))
    }

    /// The named graphs that exist (created, or holding quads).
    pub fn named_graphs(&self) -> Result<Vec<TermId>, StoreError> {
        let mut iter = self
            .db
            .raw_iterator_cf_opt(self.cf(Table::Graphs), self.read_options(None));
        iter.seek_to_first();
        let mut graphs = Vec::new();
        while let Some(key) = iter.key() {
            let id = decode_id_key(key)?;
            if self.overlay.is_none_or(|o| !o.is_dropped_graph(id)) {
                graphs.push(id);
            }
            iter.next();
        }
        iter.status()?;
        if let Some(overlay) = self.overlay {
            for id in overlay.created_graphs() {
                if let Err(pos) = graphs.binary_search(&id) {
                    graphs.insert(pos, id);
                }
            }
        }
        Ok(graphs)
    }

    /// Whether a named graph exists.
    pub fn contains_named_graph(&self, graph: TermId) -> Result<bool, StoreError> {
        if let Some(overlay) = self.overlay {
            if overlay.is_dropped_graph(graph) {
                return Ok(false);
            }
            if overlay.is_created_graph(graph) {
                return Ok(true);
            }
        }
        Ok(self.get(Table::Graphs, &graph.to_be_bytes())?.is_some())
    }

    /// An iterator over the entries of `table` under `prefix` (the table's prefix-extractor
    /// length), in prefix mode so that prefix bloom filters skip files without it; positioned
    /// on the first entry.
    fn prefix_iterator(&self, table: Table, prefix: &[u8]) -> DBRawIterator<'a> {
        let mut options = self.read_options(prefix_upper_bound(prefix));
        options.set_total_order_seek(false);
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(table), options);
        iter.seek(prefix);
        iter
    }
}

/// Quads of one pattern, in the order of the index that serves it.
///
/// `'r` is the borrow of the [`Reader`], `'db` the store's.
pub struct QuadIter<'r, 'db> {
    permutation: Permutation,
    slot: usize,
    /// Always `Some` until dropped, when it goes back to the reader's idle iterators.
    base: Option<DBRawIterator<'db>>,
    idle: &'r RefCell<IdleIterators<'db>>,
    prefix: Vec<u8>,
    /// The graph whose quads the scan keeps, when the order's keys do not start with it.
    only_graph: Option<TermId>,
    extra: std::iter::Peekable<std::vec::IntoIter<EncodedQuad>>,
    removed: Option<&'db Overlay>,
    /// An error met before the scan, returned first.
    error: Option<StoreError>,
    failed: bool,
}

impl Drop for QuadIter<'_, '_> {
    fn drop(&mut self) {
        if let Some(iter) = self.base.take() {
            if iter.status().is_ok() {
                if let Ok(mut idle) = self.idle.try_borrow_mut() {
                    idle[self.slot].push(iter);
                }
            }
        }
    }
}

impl QuadIter<'_, '_> {
    fn next_base(&mut self) -> Option<Result<EncodedQuad, StoreError>> {
        let base = self.base.as_mut()?;
        loop {
            let key = base.key()?;
            if !has_prefix(key, &self.prefix) {
                return None;
            }
            let quad = match self.permutation.decode(key) {
                Some(q) => q,
                None => return Some(Err(CorruptionError::msg("malformed quad key").into())),
            };
            if self.only_graph.is_some_and(|g| g != quad.graph)
                || self.removed.is_some_and(|o| o.is_removed(&quad))
            {
                base.next();
                continue;
            }
            return Some(Ok(quad));
        }
    }
}

impl Iterator for QuadIter<'_, '_> {
    type Item = Result<EncodedQuad, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if let Some(error) = self.error.take() {
            self.failed = true;
            return Some(Err(error));
        }
        let base = match self.next_base() {
            Some(Ok(q)) => Some(q),
            Some(Err(e)) => {
                self.failed = true;
                return Some(Err(e));
            }
            None => {
                if let Some(Err(e)) = self.base.as_ref().map(DBRawIterator::status) {
                    self.failed = true;
                    return Some(Err(e.into()));
                }
                None
            }
        };
        let take_extra = match (base, self.extra.peek()) {
            (Some(b), Some(e)) => self.permutation.key(e) < self.permutation.key(&b),
            (None, Some(_)) => true,
            _ => false,
        };
        if take_extra {
            return self.extra.next().map(Ok);
        }
        let quad = base?;
        if let Some(iter) = self.base.as_mut() {
            iter.next();
        }
        Some(Ok(quad))
    }
}

/// Whether `key` starts with `prefix`. An empty prefix is not compared at all: glibc's
/// AVX-512 `memcmp` loads through an all-zero mask from the slice's address even for zero
/// bytes, and an empty `Vec`'s address is a dangling one, so the load takes the processor's
/// slow fault-suppression path — about 70 ns a call on this project's AMD EPYC machine, paid
/// by every row of a scan started from a key (`scan_from`: half the CPU of the distinct
/// counts after a load, and the text index's read of the store).
fn has_prefix(key: &[u8], prefix: &[u8]) -> bool {
    prefix.is_empty() || key.starts_with(prefix)
}

/// The smallest key greater than every key starting with `prefix` (`None`: no bound).
pub(crate) fn prefix_upper_bound(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut bound = prefix.to_vec();
    while let Some(last) = bound.pop() {
        if last < u8::MAX {
            bound.push(last + 1);
            return Some(bound);
        }
    }
    None
}

fn decode_id_key(key: &[u8]) -> Result<TermId, StoreError> {
    let bytes: [u8; 8] = key
        .try_into()
        .map_err(|_| CorruptionError::msg("id key of the wrong length"))?;
    Ok(TermId::from_be_bytes(bytes))
}

/// Groups a subject-ordered stream of quads by subject.
pub(crate) fn group_by_subject<'i>(
    mut quads: impl Iterator<Item = Result<EncodedQuad, StoreError>> + 'i,
) -> impl Iterator<Item = Result<(TermId, Vec<EncodedQuad>), StoreError>> + 'i {
    let mut pending: Option<EncodedQuad> = None;
    std::iter::from_fn(move || {
        let mut group = Vec::new();
        if let Some(first) = pending.take() {
            group.push(first);
        }
        for quad in quads.by_ref() {
            let quad = match quad {
                Ok(quad) => quad,
                Err(error) => return Some(Err(error)),
            };
            match group.first() {
                Some(first) if first.subject != quad.subject => {
                    pending = Some(quad);
                    break;
                }
                _ => group.push(quad),
            }
        }
        let subject = group.first()?.subject;
        Some(Ok((subject, group)))
    })
}
