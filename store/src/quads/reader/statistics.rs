//! The counters a reader reads instead of counting: usage of terms, entity ranks, the graphs a
//! term is used in, class sizes and store-wide totals. All are committed state only: a
//! transaction's uncommitted changes (the overlay) do not move them.

use super::{decode_id_key, Reader};
use crate::changes::SequenceNumber;
use crate::encoding::TermId;
use crate::error::StoreError;
use crate::kv::{meta_key, Table};
use crate::stats::{
    decode_counts, decode_u64, term_graph_key, StoreCounts, TermGraphUsage, TermUsage,
};
use std::sync::atomic::{AtomicBool, Ordering};

/// Entries a counting scan reads between two looks at its stop flag.
const STOP_CHECK_ENTRIES: usize = 4_096;

impl Reader<'_> {
    /// Usage counters of a term (all zero for an unknown term). Committed state only.
    pub fn usage(&self, term: TermId) -> Result<TermUsage, StoreError> {
        Ok(match self.get(Table::TermStats, &term.to_be_bytes())? {
            Some(v) => TermUsage::decode(&v)?,
            None => TermUsage::default(),
        })
    }

    /// Usage counters of many terms at once, in the order given (one batched read: much
    /// cheaper than a [`Reader::usage`] per term for thousands of terms). Committed state only.
    pub fn usages(&self, terms: &[TermId]) -> Result<Vec<TermUsage>, StoreError> {
        self.db
            .batched_multi_get_cf_opt(
                self.cf(Table::TermStats),
                terms.iter().map(|t| t.to_be_bytes()),
                false,
                &self.read_options(None),
            )
            .into_iter()
            .map(|value| {
                Ok(match value? {
                    Some(v) => TermUsage::decode(&v)?,
                    None => TermUsage::default(),
                })
            })
            .collect()
    }

    /// The entity rank of many terms at once (see [`crate::rank`]), in the order given: 0 for
    /// a term without one (not an IRI, linked to no other IRI, or not ranked yet).
    pub fn entity_ranks(&self, terms: &[TermId]) -> Result<Vec<f64>, StoreError> {
        self.db
            .batched_multi_get_cf_opt(
                self.cf(Table::EntityRank),
                terms.iter().map(|t| t.to_be_bytes()),
                false,
                &self.read_options(None),
            )
            .into_iter()
            .map(|value| Ok(crate::stats::decode_score(value?.as_deref())?))
            .collect()
    }

    /// The graphs a term appears in with how many positions it fills there, most used
    /// first, at most `limit`. Committed state only.
    pub fn term_graphs(
        &self,
        term: TermId,
        limit: usize,
    ) -> Result<Vec<TermGraphUsage>, StoreError> {
        // One term's entries: within one bucket of the hashed memtable.
        let mut iter = self.prefix_iterator(Table::TermGraph, &term.to_be_bytes());
        let mut out = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            let graph = decode_id_key(key.get(8..).unwrap_or_default())?;
            out.push(TermGraphUsage {
                graph,
                positions: decode_u64(value)?,
            });
            iter.next();
        }
        iter.status()?;
        out.sort_by(|a, b| b.positions.cmp(&a.positions).then(a.graph.cmp(&b.graph)));
        out.truncate(limit);
        Ok(out)
    }

    /// How many positions a term fills in one graph. Committed state only.
    pub fn term_graph_positions(&self, term: TermId, graph: TermId) -> Result<u64, StoreError> {
        self.get(Table::TermGraph, &term_graph_key(term, graph))?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }

    /// Number of `rdf:type` quads with `class` as object. Committed state only.
    pub fn class_instances(&self, class: TermId) -> Result<u64, StoreError> {
        self.get(Table::ClassStats, &class.to_be_bytes())?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }

    /// Classes with their instance counts, most instances first, at most `limit`.
    pub fn top_classes(&self, limit: usize) -> Result<Vec<(TermId, u64)>, StoreError> {
        let mut iter = self
            .db
            .raw_iterator_cf_opt(self.cf(Table::ClassStats), self.read_options(None));
        iter.seek_to_first();
        let mut out = Vec::new();
        while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
            out.push((decode_id_key(key)?, decode_u64(value)?));
            iter.next();
        }
        iter.status()?;
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(limit);
        Ok(out)
    }

    /// Store-wide totals. Committed state only. Exact, and costly: `subjects` and
    /// `predicates` scan the statistics table and `dictionary_terms` the dictionary's index
    /// of terms (seconds at tens of millions of quads); the quad count alone is
    /// [`Reader::quad_count`], one counter.
    pub fn counts(&self) -> Result<StoreCounts, StoreError> {
        self.counts_until(&AtomicBool::new(false))
    }

    /// [`Reader::counts`], given up with [`StoreError::Cancelled`] soon after `stop` is set
    /// (a count on a thread of its own, which must end before the store closes).
    pub fn counts_until(&self, stop: &AtomicBool) -> Result<StoreCounts, StoreError> {
        let meta = |key: &[u8]| -> Result<u64, StoreError> {
            self.get(Table::Meta, key)?
                .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
        };
        let mut counts = StoreCounts {
            quads: meta(meta_key::QUAD_COUNT)?,
            sequence: meta(meta_key::SEQUENCE)?,
            ..StoreCounts::default()
        };
        self.scan(Table::TermStats, stop, |_, v| {
            let usage = TermUsage::decode(v)?;
            counts.subjects += u64::from(usage.as_subject > 0);
            counts.predicates += u64::from(usage.as_predicate > 0);
            Ok(())
        })?;
        self.scan(Table::ClassStats, stop, |_, _| {
            counts.classes += 1;
            Ok(())
        })?;
        self.scan(Table::Graphs, stop, |_, _| {
            counts.named_graphs += 1;
            Ok(())
        })?;
        // Every id is in `term2id` once, in the value of its term's key (a hashed key lists
        // the ids sharing its hash). That table holds the terms' keys, not their bytes: at
        // 100 M quads 526 MB against 2.28 GB for `id2term`, whose scan took most of a
        // server's first 20 s of CPU after a start.
        self.scan(Table::TermToId, stop, |_, ids| {
            counts.dictionary_terms += (ids.len() / size_of::<u64>()) as u64;
            Ok(())
        })?;
        Ok(counts)
    }

    /// The totals [`Reader::counts`] gave for this reader's commit, if they were remembered
    /// ([`crate::Store::remember_counts`]): no scan, three reads. `None` when none were, or
    /// when they describe another commit.
    pub fn remembered_counts(&self) -> Result<Option<StoreCounts>, StoreError> {
        let Some(bytes) = self.get(Table::Meta, meta_key::COUNTS)? else {
            return Ok(None);
        };
        let counts = decode_counts(&bytes, self.quad_count()?)?;
        Ok((counts.sequence == self.sequence()?).then_some(counts))
    }

    /// Calls `f` on every entry of a table, unless `stop` is set meanwhile. The scan reads
    /// ahead and leaves the block cache as it was: the term dictionary alone was most of a
    /// store's disk (838 MB of 1.6 GB at 35 M quads), and counting it through the cache
    /// evicted every block the queries use.
    fn scan(
        &self,
        table: Table,
        stop: &AtomicBool,
        mut f: impl FnMut(&[u8], &[u8]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut options = self.read_options(None);
        options.fill_cache(false);
        options.set_readahead_size(2 << 20);
        let mut iter = self.db.raw_iterator_cf_opt(self.cf(table), options);
        iter.seek_to_first();
        let mut entries = 0_usize;
        while let (Some(k), Some(v)) = (iter.key(), iter.value()) {
            f(k, v)?;
            entries += 1;
            if entries.is_multiple_of(STOP_CHECK_ENTRIES) && stop.load(Ordering::Relaxed) {
                return Err(StoreError::Cancelled);
            }
            iter.next();
        }
        iter.status()?;
        Ok(())
    }

    /// Quads in all graphs in this snapshot: one read of a counter, unlike
    /// [`Reader::counts`] (for progress reports that need the total cheaply).
    pub fn quad_count(&self) -> Result<u64, StoreError> {
        self.get(Table::Meta, meta_key::QUAD_COUNT)?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }

    /// Sequence number of the last commit visible to this reader.
    pub fn sequence(&self) -> Result<SequenceNumber, StoreError> {
        self.get(Table::Meta, meta_key::SEQUENCE)?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }

    /// Unix time in milliseconds of the last commit visible to this reader.
    pub fn last_commit_ms(&self) -> Result<u64, StoreError> {
        self.get(Table::Meta, meta_key::LAST_COMMIT_MS)?
            .map_or(Ok(0), |v| Ok(decode_u64(&v)?))
    }
}
