//! Lodestone patch: for-loop joins that only test a constant property read its subjects at
//! once.
//!
//! `Lateral(left, ?s <p> <o>)`, where `left` binds `?s`, looks `?s <p> <o>` up once per row of
//! `left`: one index seek each, only to learn whether the row stays (BSBM's Q1, Q3 and Q4:
//! whether each product with feature F1 is of type T, or has feature F2; thousands of seeks
//! at 35 M quads). Here the join reads the quads of `<p> <o>` in order (a sequential scan of
//! a predicate-object order) alongside: for every row of `left` it may read
//! [`QUADS_PER_ROW`] of them, less than the seek it would replace costs; once it has read them
//! all, every later row is tested in memory. Rows before that are looked up as before, in
//! chunks whose size grows, so that a join that is never read to its end (a `LIMIT`
//! without an order) reads little of `left` ahead.
//!
//! A row is repeated once per quad of its subject (one per graph of the query's default
//! graph), as the look-up gives it, and rows keep their order.

use super::{
    InternalTuple, InternalTupleEvaluator, InternalTuplesIterator, QueryEvaluationError,
    encode_variable,
};
use crate::dataset::{InternalQuad, QueryableDataset};
use crate::eval::{EvalDataset, SimpleEvaluator};
use oxrdf::{Term, Variable};
use rustc_hash::FxHashMap;
use spargebra::term::{GroundTermPattern, NamedNodePattern};
use sparopt::algebra::GraphPattern;
use std::iter::once;
use std::rc::Rc;

/// Rows of the first chunk of `left`; each next chunk doubles, up to [`MAX_CHUNK_ROWS`].
const FIRST_CHUNK_ROWS: usize = 64;
/// The largest chunk of `left` read ahead.
const MAX_CHUNK_ROWS: usize = 16_384;
/// Quads of the property the join may read per row of `left`: a property of up to this many
/// subjects per row is read whole, and one too large to be (BSBM's 2 M `bsbm:Offer`s tested
/// for one vendor's 1,200 offers at 35 M quads) costs about what the look-ups alone cost:
/// 62–65 ms against 59–82 ms without the read, where 32 a row took 73–84 ms.
const QUADS_PER_ROW: usize = 8;

/// A `?s <p> <o>` pattern of the query's default graph whose subject is a variable.
pub(super) struct ProbeJoin {
    subject: Variable,
    predicate: Term,
    object: Term,
}

impl ProbeJoin {
    /// The test `right` is, if it has that shape.
    pub(super) fn recognize(right: &GraphPattern) -> Option<Self> {
        let GraphPattern::QuadPattern {
            subject: GroundTermPattern::Variable(subject),
            predicate: NamedNodePattern::NamedNode(predicate),
            object,
            graph_name: None,
        } = right
        else {
            return None;
        };
        let object = match object {
            GroundTermPattern::NamedNode(n) => Term::from(n.clone()),
            GroundTermPattern::Literal(l) => Term::from(l.clone()),
            _ => return None,
        };
        Some(Self {
            subject: subject.clone(),
            predicate: predicate.clone().into(),
            object,
        })
    }
}

impl<'a, D: QueryableDataset<'a>> SimpleEvaluator<'a, D> {
    /// The evaluator of `Lateral(left, join)`: `right` is the pattern's own evaluator, for
    /// the rows looked up one by one.
    pub(super) fn probe_join_evaluator(
        &self,
        left: InternalTupleEvaluator<'a, D::InternalTerm>,
        right: InternalTupleEvaluator<'a, D::InternalTerm>,
        join: ProbeJoin,
        encoded_variables: &mut Vec<Variable>,
    ) -> Result<InternalTupleEvaluator<'a, D::InternalTerm>, QueryEvaluationError> {
        let predicate = self.encode_term(join.predicate)?;
        let object = self.encode_term(join.object)?;
        let subject = encode_variable(encoded_variables, &join.subject);
        let dataset = self.dataset.clone();
        Ok(Rc::new(move |from| {
            if from.contains(subject) {
                // The input binds the subject: one look-up, as the pattern does.
                let right = Rc::clone(&right);
                return Box::new(left(from).flat_map(move |t| match t {
                    Ok(t) => right(t),
                    Err(e) => Box::new(once(Err(e))),
                }));
            }
            Box::new(ProbeJoinIterator {
                left: left(from),
                left_done: false,
                right: Rc::clone(&right),
                dataset: dataset.clone(),
                predicate: predicate.clone(),
                object: object.clone(),
                subject,
                probe: Probe::NotStarted,
                chunk_rows: FIRST_CHUNK_ROWS,
                current: Box::new(std::iter::empty()),
            })
        }))
    }
}

/// The quads of `<p> <o>` read so far, and the rest of the scan.
struct Scan<'a, T> {
    quads: Box<dyn Iterator<Item = Result<InternalQuad<T>, QueryEvaluationError>> + 'a>,
    /// Quads per subject read so far.
    counts: FxHashMap<T, usize>,
    /// Quads the join may still read before it has replaced as many look-ups.
    allowance: usize,
}

impl<'a, T: Clone + Eq + std::hash::Hash + 'a> Scan<'a, T> {
    fn new<D: QueryableDataset<'a, InternalTerm = T>>(
        dataset: &EvalDataset<'a, D>,
        predicate: &T,
        object: &T,
    ) -> Self {
        Self {
            quads: dataset.internal_quads_for_pattern(
                None,
                Some(predicate),
                Some(object),
                Some(None),
            ),
            counts: FxHashMap::default(),
            allowance: 0,
        }
    }

    /// Reads on for `rows` more rows; whether the scan has ended.
    fn advance(&mut self, rows: usize) -> Result<bool, QueryEvaluationError> {
        self.allowance = self
            .allowance
            .saturating_add(rows.saturating_mul(QUADS_PER_ROW));
        while self.allowance > 0 {
            let Some(quad) = self.quads.next() else {
                return Ok(true);
            };
            *self.counts.entry(quad?.subject).or_insert(0) += 1;
            self.allowance -= 1;
        }
        Ok(false)
    }
}

/// Where the join stands: not reading the property yet (a `left` of fewer rows than the first
/// chunk is only looked up), reading it alongside the look-ups, or done reading it.
enum Probe<'a, T> {
    NotStarted,
    Reading(Scan<'a, T>),
    /// Quads per subject of the whole property.
    Read(Rc<FxHashMap<T, usize>>),
}

/// The rows of the join, a chunk of left rows at a time.
struct ProbeJoinIterator<'a, D: QueryableDataset<'a>> {
    left: InternalTuplesIterator<'a, D::InternalTerm>,
    left_done: bool,
    right: InternalTupleEvaluator<'a, D::InternalTerm>,
    dataset: EvalDataset<'a, D>,
    predicate: D::InternalTerm,
    object: D::InternalTerm,
    subject: usize,
    probe: Probe<'a, D::InternalTerm>,
    chunk_rows: usize,
    current: InternalTuplesIterator<'a, D::InternalTerm>,
}

impl<'a, D: QueryableDataset<'a>> ProbeJoinIterator<'a, D> {
    /// The rows of the join for the next chunk of left rows.
    fn next_chunk(&mut self) -> InternalTuplesIterator<'a, D::InternalTerm> {
        let mut rows = Vec::with_capacity(self.chunk_rows);
        while rows.len() < self.chunk_rows {
            let Some(row) = self.left.next() else {
                self.left_done = true;
                break;
            };
            rows.push(row);
        }
        if matches!(self.probe, Probe::NotStarted) && rows.len() >= FIRST_CHUNK_ROWS {
            self.probe = Probe::Reading(Scan::new(&self.dataset, &self.predicate, &self.object));
        }
        if let Probe::Reading(scan) = &mut self.probe {
            match scan.advance(rows.len()) {
                Ok(true) => {
                    self.probe = Probe::Read(Rc::new(std::mem::take(&mut scan.counts)));
                }
                Ok(false) => {}
                Err(e) => {
                    self.left_done = true;
                    return Box::new(once(Err(e)));
                }
            }
        }
        let right = Rc::clone(&self.right);
        let Probe::Read(counts) = &self.probe else {
            // Grows only while look-ups are made: a join read to its end reads ahead.
            self.chunk_rows = (self.chunk_rows * 2).min(MAX_CHUNK_ROWS);
            return Box::new(rows.into_iter().flat_map(move |row| match row {
                Ok(row) => right(row),
                Err(e) => Box::new(once(Err(e))),
            }));
        };
        let counts = Rc::clone(counts);
        let subject = self.subject;
        Box::new(rows.into_iter().flat_map(
            move |row| -> InternalTuplesIterator<'a, D::InternalTerm> {
                match row {
                    Ok(row) => match row.get(subject) {
                        Some(s) => {
                            let count = counts.get(s).copied().unwrap_or(0);
                            Box::new(std::iter::repeat_n(row, count).map(Ok))
                        }
                        // The row leaves the subject free: the pattern binds it.
                        None => right(row),
                    },
                    Err(e) => Box::new(once(Err(e))),
                }
            },
        ))
    }
}

impl<'a, D: QueryableDataset<'a>> Iterator for ProbeJoinIterator<'a, D> {
    type Item = Result<InternalTuple<D::InternalTerm>, QueryEvaluationError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.current.next() {
                return Some(row);
            }
            if self.left_done {
                return None;
            }
            self.current = self.next_chunk();
        }
    }
}
