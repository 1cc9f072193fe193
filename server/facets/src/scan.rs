//! Look-ups or one scan: reading a predicate's quads for many terms at once.
//!
//! Asking the index for one term's quads of a predicate is a seek, which costs about as much
//! as reading [`SEEK_COST`] quads in sequence. When a set of terms is large compared with the
//! predicate's quads (the instances of a large class, their neighbours), one scan of every quad
//! of the predicate with a membership test on the sorted set is cheaper than a seek per term;
//! the store's statistics (the predicate's quad count) decide.

use crate::budget::Ticker;
use crate::error::EngineError;
use lodestone_store::{EncodedQuad, Reader, TermId};

/// Quads read in sequence for the cost of one seek (measured on BSBM 10k, see
/// docs/benchmarks.md: a seek into the permutation indexes costs some microseconds, a step
/// to the next key a fraction of one).
pub const SEEK_COST: u64 = 16;

/// Which end of the predicate's quads the terms are at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The terms are subjects; the pairs give their objects.
    Subject,
    /// The terms are objects; the pairs give their subjects.
    Object,
}

impl End {
    /// The quad's `(term at this end, term at the other end)`.
    fn pair(self, quad: &EncodedQuad) -> (TermId, TermId) {
        match self {
            End::Subject => (quad.subject, quad.object),
            End::Object => (quad.object, quad.subject),
        }
    }
}

/// Whether one scan of `predicate`'s quads is cheaper than `lookups` seeks.
pub fn scan_is_cheaper(
    reader: &Reader<'_>,
    predicate: TermId,
    lookups: usize,
) -> Result<bool, EngineError> {
    let quads = reader.usage(predicate)?.as_predicate;
    let seeks = u64::try_from(lookups).unwrap_or(u64::MAX);
    Ok(seeks.saturating_mul(SEEK_COST) > quads)
}

/// The pairs `(term, other end)` of `predicate` for the terms of `sorted` (ascending ids) at
/// `end`, by one scan of the predicate (in `graph` when given, else in every graph); sorted
/// and without duplicates (quads in several graphs count once). The flag is false when the
/// ticker ran out (then the pairs are those read so far).
pub fn pairs_by_scan(
    reader: &Reader<'_>,
    predicate: TermId,
    sorted: &[TermId],
    end: End,
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, TermId)>, bool), EngineError> {
    let mut members = Members::new(sorted);
    scan_pairs(reader, predicate, end, graph, ticker, |term| {
        members.contains(term)
    })
}

/// The pairs `(term, other end)` of every quad of `predicate` (in `graph` when given), sorted
/// and without duplicates; the flag is false when the ticker ran out (then the pairs read so
/// far).
pub fn pairs_by_scan_of_all(
    reader: &Reader<'_>,
    predicate: TermId,
    end: End,
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, TermId)>, bool), EngineError> {
    scan_pairs(reader, predicate, end, graph, ticker, |_| true)
}

/// The pairs of one scan of `predicate` whose term at `end` is kept by `keep`.
fn scan_pairs(
    reader: &Reader<'_>,
    predicate: TermId,
    end: End,
    graph: Option<TermId>,
    ticker: &mut Ticker,
    mut keep: impl FnMut(TermId) -> bool,
) -> Result<(Vec<(TermId, TermId)>, bool), EngineError> {
    let mut pairs = Vec::new();
    let mut complete = true;
    for quad in reader.quads_for_pattern(None, Some(predicate), None, graph) {
        if out_of_time(ticker)? {
            complete = false;
            break;
        }
        let (term, other) = end.pair(&quad?);
        if keep(term) {
            pairs.push((term, other));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    Ok((pairs, complete))
}

/// The same pairs by one seek per term (for sets that are small next to the predicate).
pub fn pairs_by_lookup(
    reader: &Reader<'_>,
    predicate: TermId,
    sorted: &[TermId],
    end: End,
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, TermId)>, bool), EngineError> {
    let mut pairs = Vec::new();
    let mut complete = true;
    'terms: for term in sorted {
        let quads = match end {
            End::Subject => reader.quads_for_pattern(Some(*term), Some(predicate), None, graph),
            End::Object => reader.quads_for_pattern(None, Some(predicate), Some(*term), graph),
        };
        for quad in quads {
            if out_of_time(ticker)? {
                complete = false;
                break 'terms;
            }
            pairs.push(end.pair(&quad?));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    Ok((pairs, complete))
}

/// The pairs of `predicate` for the terms of `sorted`, by whichever of a scan or look-ups
/// the statistics say is cheaper.
pub fn pairs(
    reader: &Reader<'_>,
    predicate: TermId,
    sorted: &[TermId],
    end: End,
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, TermId)>, bool), EngineError> {
    if scan_is_cheaper(reader, predicate, sorted.len())? {
        pairs_by_scan(reader, predicate, sorted, end, graph, ticker)
    } else {
        pairs_by_lookup(reader, predicate, sorted, end, graph, ticker)
    }
}

/// Membership tests on a sorted set of ids, whatever order the ids asked about come in: a
/// bitmap over the set's span when it is dense (no larger than the set itself: each member
/// costs a bit, each gap between members a bit, so the span may be 64 times the members),
/// else a [`Probe`].
///
/// The subjects of a predicate's quads come in runs of one per distinct object (`posg`): few
/// long runs for a property of few values (`deliveryDays`), a million runs of two for one of
/// many (the price of 2,000,000 offers). A probe restarts its gallop from the beginning of
/// the set at each run, about forty cache misses in a 16 MB set; a bit of a bitmap of about a
/// megabyte is one read. (BSBM 100k: the price scan spent the whole 5 s budget in the probe.)
#[derive(Debug)]
pub enum Members<'s> {
    /// One bit per id in `base ..= base + 64 · words.len() - 1`.
    Dense {
        /// The smallest member's id.
        base: u64,
        /// The bits, the member `base + i` at bit `i % 64` of word `i / 64`.
        words: Vec<u64>,
    },
    /// A galloping search of the sorted set.
    Sparse(Probe<'s>),
}

impl<'s> Members<'s> {
    /// The set of `sorted` (ascending ids).
    pub fn new(sorted: &'s [TermId]) -> Self {
        let (Some(first), Some(last)) = (sorted.first(), sorted.last()) else {
            return Self::Sparse(Probe::new(sorted));
        };
        let base = first.as_u64();
        let span = last.as_u64().saturating_sub(base);
        let words = usize::try_from(span / 64 + 1).unwrap_or(usize::MAX);
        if words > sorted.len() {
            return Self::Sparse(Probe::new(sorted));
        }
        let mut bits = vec![0u64; words];
        for id in sorted {
            let offset = id.as_u64().saturating_sub(base);
            if let Some(word) = usize::try_from(offset / 64)
                .ok()
                .and_then(|w| bits.get_mut(w))
            {
                *word |= 1 << (offset % 64);
            }
        }
        Self::Dense { base, words: bits }
    }

    /// Whether `id` is in the set.
    pub fn contains(&mut self, id: TermId) -> bool {
        match self {
            Self::Dense { base, words } => {
                let Some(offset) = id.as_u64().checked_sub(*base) else {
                    return false;
                };
                usize::try_from(offset / 64)
                    .ok()
                    .and_then(|w| words.get(w))
                    .is_some_and(|word| word & (1 << (offset % 64)) != 0)
            }
            Self::Sparse(probe) => probe.contains(id),
        }
    }
}

/// Membership tests on a sorted set for ids that mostly come in ascending runs, as a scan of
/// a predicate gives them (the subjects of each object in `posg`, every object in turn): the
/// search starts from the previous answer and gallops forward, so a run costs about one
/// pass over the set instead of a binary search per id. An id below the previous one starts
/// a new run from the beginning.
#[derive(Debug)]
pub struct Probe<'s> {
    sorted: &'s [TermId],
    /// Every member before this index is below the last id asked about.
    at: usize,
    last: Option<TermId>,
}

impl<'s> Probe<'s> {
    /// A probe over `sorted` (ascending ids).
    pub fn new(sorted: &'s [TermId]) -> Self {
        Self {
            sorted,
            at: 0,
            last: None,
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&mut self, id: TermId) -> bool {
        if self.last.is_some_and(|last| id < last) {
            self.at = 0;
        }
        self.last = Some(id);
        let rest = self.sorted.get(self.at..).unwrap_or_default();
        // Gallop: the first window whose last member is not below `id`, then a binary
        // search within it.
        let mut width = 1;
        while width < rest.len() && rest.get(width - 1).is_some_and(|m| *m < id) {
            width *= 2;
        }
        let window = rest.get(..width.min(rest.len())).unwrap_or_default();
        let found = window.binary_search(&id);
        self.at += match found {
            Ok(i) | Err(i) => i,
        };
        found.is_ok()
    }
}

/// Whether the ticker says the time is up (other errors pass through).
pub fn out_of_time(ticker: &mut Ticker) -> Result<bool, EngineError> {
    match ticker.tick() {
        Ok(()) => Ok(false),
        Err(EngineError::OutOfTime) => Ok(true),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::{Members, Probe};
    use lodestone_store::{TermId, TermKind};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn probes_answer_as_a_binary_search(
            set in prop::collection::btree_set(0..500u64, 0..200),
            asked in prop::collection::vec(0..520u64, 0..400),
        ) {
            let id = |n: u64| TermId::new(TermKind::Iri, n);
            let sorted: Vec<TermId> = set.iter().map(|n| id(*n)).collect();
            let mut probe = Probe::new(&sorted);
            // Runs in ascending order, as scans give them, and ids in any order.
            let mut runs = asked.clone();
            for chunk in runs.chunks_mut(17) {
                chunk.sort_unstable();
            }
            for n in runs.into_iter().chain(asked) {
                prop_assert_eq!(probe.contains(id(n)), sorted.binary_search(&id(n)).is_ok());
            }
        }

        #[test]
        fn members_answer_as_a_binary_search(
            set in prop::collection::btree_set(0..2_000u64, 0..300),
            asked in prop::collection::vec(0..2_100u64, 0..400),
            spread in prop::sample::select(vec![1u64, 7, 64, 1 << 20]),
        ) {
            // Dense sets and sparse ones (`spread` pulls members apart), ids of another kind.
            let id = |n: u64| TermId::new(TermKind::Iri, n * spread);
            let sorted: Vec<TermId> = set.iter().map(|n| id(*n)).collect();
            let mut members = Members::new(&sorted);
            let others = asked.iter().map(|n| TermId::new(TermKind::Literal, *n));
            for probe in asked.iter().map(|n| id(*n)).chain(others) {
                prop_assert_eq!(members.contains(probe), sorted.binary_search(&probe).is_ok());
            }
        }
    }
}
