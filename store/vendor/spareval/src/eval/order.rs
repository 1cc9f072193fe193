//! Lodestone patch: `ORDER BY` evaluates its keys once per row, and under a `LIMIT` keeps only
//! the rows the limit can take.
//!
//! Upstream sorts the rows with a comparison that evaluates both rows' key expressions each
//! time: `ORDER BY ?label` decodes two labels per comparison, about `2 n log n` dictionary
//! reads and string copies for `n` rows (BSBM's Q3 and Q5 sort hundreds to thousands of
//! candidates by label to keep ten). Here each row's keys are evaluated once, and when a
//! `LIMIT` (plus `OFFSET`) over the sort takes its first `k` rows, at most about `2k` rows are
//! held at a time: the buffer is cut back to its `k` first rows whenever it fills.
//!
//! The order is the keys', then the rows' arrival order: a stable sort of the rows (upstream's
//! sort is unstable, so rows with equal keys may come in another order than before).

use super::{ComparatorFunction, InternalTuple, cmp_terms};
use crate::CancellationToken;
use crate::dataset::ExpressionTerm;
use crate::error::QueryEvaluationError;
use std::cmp::Ordering;
use std::mem::size_of;

/// Rows held besides the `k` kept before the buffer is cut back (at least this many, so that
/// a small `k` does not cut at every row).
const MIN_SLACK: usize = 1_024;

/// A row with its evaluated keys and its arrival number.
struct Keyed<T> {
    keys: Box<[Option<ExpressionTerm>]>,
    seq: usize,
    row: InternalTuple<T>,
}

impl<T> Keyed<T> {
    /// The bytes this row and its keys hold.
    fn memory_bytes(&self) -> usize {
        size_of::<Self>()
            + self.row.memory_bytes()
            + self
                .keys
                .iter()
                .map(|k| size_of::<Option<ExpressionTerm>>() + k.as_ref().map_or(0, heap_bytes))
                .sum::<usize>()
    }
}

/// The bytes a key holds on the heap (its strings).
fn heap_bytes(term: &ExpressionTerm) -> usize {
    match term {
        ExpressionTerm::NamedNode(n) => n.as_str().len(),
        ExpressionTerm::BlankNode(b) => b.as_str().len(),
        ExpressionTerm::StringLiteral(value) => value.len(),
        ExpressionTerm::LangStringLiteral { value, language } => value.len() + language.len(),
        ExpressionTerm::OtherTypedLiteral { value, datatype } => {
            value.len() + datatype.as_str().len()
        }
        _ => 0,
    }
}

/// Sorts `rows` by `by`, keeping the first `keep` rows of the order when given.
///
/// Every row is charged to the token's memory budget as it is held; a refusal, a cancellation
/// or an error among the rows is returned first, as the errors of the rows are.
pub(super) fn sort_rows<'a, T>(
    rows: impl Iterator<Item = Result<InternalTuple<T>, QueryEvaluationError>>,
    by: &[ComparatorFunction<'a, T>],
    keep: Option<usize>,
    token: &CancellationToken,
) -> (Vec<QueryEvaluationError>, Vec<InternalTuple<T>>) {
    let mut errors = Vec::new();
    if keep == Some(0) {
        return (errors, Vec::new());
    }
    let capacity = keep.map(|k| k.saturating_mul(2).max(k.saturating_add(MIN_SLACK)));
    let mut held = Vec::new();
    // Bytes currently held, and the most charged so far: only growth past it is charged.
    let mut held_bytes = 0_usize;
    let mut charged_bytes = 0_usize;
    for (seq, row) in rows.enumerate() {
        let row = match row {
            Ok(row) => row,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        let keys = by
            .iter()
            .map(|comparator| match comparator {
                ComparatorFunction::Asc(expression) | ComparatorFunction::Desc(expression) => {
                    expression(&row)
                }
            })
            .collect();
        let keyed = Keyed { keys, seq, row };
        held_bytes += keyed.memory_bytes();
        if held_bytes > charged_bytes {
            if let Err(error) = token.charge(held_bytes - charged_bytes) {
                errors.push(error);
                return (errors, Vec::new());
            }
            charged_bytes = held_bytes;
        }
        held.push(keyed);
        if let (Some(k), Some(capacity)) = (keep, capacity) {
            if held.len() >= capacity {
                held.select_nth_unstable_by(k, |a, b| compare(by, a, b));
                held_bytes -= held.drain(k..).map(|r| r.memory_bytes()).sum::<usize>();
            }
        }
    }
    if token.is_cancelled() {
        // A sort cut short by cancellation is not an answer.
        errors.push(QueryEvaluationError::Cancelled);
        return (errors, Vec::new());
    }
    if let Some(k) = keep {
        if held.len() > k {
            held.select_nth_unstable_by(k, |a, b| compare(by, a, b));
            held.truncate(k);
        }
    }
    // Arrival numbers differ, so the order is total and an unstable sort gives one answer.
    held.sort_unstable_by(|a, b| compare(by, a, b));
    (errors, held.into_iter().map(|r| r.row).collect())
}

/// The order of two keyed rows: their keys in turn (each ascending or descending), then
/// their arrival.
fn compare<T>(by: &[ComparatorFunction<'_, T>], a: &Keyed<T>, b: &Keyed<T>) -> Ordering {
    for ((comparator, a_key), b_key) in by.iter().zip(&a.keys).zip(&b.keys) {
        let order = cmp_terms(a_key.as_ref(), b_key.as_ref());
        let order = match comparator {
            ComparatorFunction::Asc(_) => order,
            ComparatorFunction::Desc(_) => order.reverse(),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.seq.cmp(&b.seq)
}
