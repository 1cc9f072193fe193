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
    let mut pairs = Vec::new();
    let mut complete = true;
    for quad in reader.quads_for_pattern(None, Some(predicate), None, graph) {
        if out_of_time(ticker)? {
            complete = false;
            break;
        }
        let (term, other) = end.pair(&quad?);
        if sorted.binary_search(&term).is_ok() {
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

/// Whether the ticker says the time is up (other errors pass through).
fn out_of_time(ticker: &mut Ticker) -> Result<bool, EngineError> {
    match ticker.tick() {
        Ok(()) => Ok(false),
        Err(EngineError::OutOfTime) => Ok(true),
        Err(e) => Err(e),
    }
}
