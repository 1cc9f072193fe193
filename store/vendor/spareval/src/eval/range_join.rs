//! Lodestone patch: for-loop joins under a range filter read the range at once.
//!
//! `FILTER(?o > lower && ?o < upper)` over `Lateral(left, ?s <p> ?o)`, where `left` binds
//! `?s` and the bounds are arithmetic over other variables, looks `?s <p> ?o` up once per row
//! of `left`: one index seek each (BSBM's Q5: the numeric properties of every product that
//! shares a feature with the given one, ten thousand seeks at 35 M quads). When `left` has
//! many rows, the join asks the dataset instead for the quads of `<p>` whose object lies in
//! the range, read at once (a sequential scan of a predicate-object order), and gives each
//! row the objects of its subject among them. The filter still runs over every row, so the
//! range only narrows the read; rows and their order are those of the look-ups (a subject's
//! objects come in the dataset's order either way). The dataset may decline (no such
//! order, or a range wider than the look-ups it would replace): then the rows are looked up
//! one by one as before. A read much larger than the rows that join with it keeps only the
//! quads of their subjects before it is grouped.
//!
//! The bounds' variables are bound by the input (the given resource's values read before the
//! join: one range for every row) or by `left` itself (the given resource bound by `VALUES`
//! or `BIND`, its values read inside the join): each row then has its own range, and a
//! chunk's read covers the smallest range holding all of them (rows mostly share one). The
//! filter keeps each row to its own range.
//!
//! When the input gives the range and `left` ends in a for-loop join with a pattern binding
//! `?s` (Q5: the products sharing one of the given product's features), a subject without an
//! object in the range can join with nothing: once a first chunk of `left` has paid for the
//! range read, that pattern keeps only the quads of the read's subjects
//! ([`SubjectFilter`]), so most of `left`'s rows are never made (at 100 M quads, four in
//! five of Q5's 35,000). Range joins nested in one another (Q5's second numeric property
//! over its first) filter the same innermost pattern, each with its own read.

use super::{
    EvalNodeWithStats, InternalTuple, InternalTupleEvaluator, InternalTuplesIterator,
    QueryEvaluationError, SimpleEvaluator, encode_variable,
};
use crate::dataset::{ExpressionTerm, InternalQuad, NumericRange, QueryableDataset};
use crate::eval::EvalDataset;
use crate::expression::ExpressionEvaluator;
use oxrdf::{NamedNode, Variable};
use oxsdatatypes::Double;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use spargebra::term::{GroundTermPattern, NamedNodePattern};
use sparopt::algebra::{Expression, GraphPattern};
use std::hash::Hash;
use std::collections::hash_map::Entry;
use std::iter::{Zip, once};
use std::vec::IntoIter;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Rows of the left side gathered before choosing between look-ups and one range read. A
/// chunk is dropped before the next; the range read, once made, serves every later chunk
/// too (its range is the input's, the same for all of them). Both are bounded (the read at
/// most [`MAX_RANGE_QUADS`] quads), so they are not charged to the memory budget, which
/// counts what an evaluation keeps.
const CHUNK_ROWS: usize = 16_384;
/// Below this many rows to look up in a chunk, they are looked up one by one.
const MIN_ROWS: usize = 64;
/// Rows of a chunk when the join can filter the rest of `left` by its range read
/// ([`SubjectFilter`]): enough to tell a left side worth a range read, few enough that most
/// rows of a large one come filtered.
const FILTERED_CHUNK_ROWS: usize = 1_024;
/// Quads the range read may visit per row it replaces: a seek costs about as much as
/// reading this many index entries in order (at 35 M quads, 8 µs for a seek whose blocks are
/// cached, 70 ns per entry read in order; a seek that misses the block cache costs several
/// times more, a read in order seldom misses).
const QUADS_PER_ROW: usize = 128;
/// Most quads one range read may visit (16 MB of quads), whatever the rows it replaces.
const MAX_RANGE_QUADS: usize = 1 << 19;
/// A read of the last chunk with more than this many quads per row to join keeps only the
/// quads of the rows' subjects: a set of the few subjects probed in cache for each quad costs
/// less than a map of every quad's subject, which misses the cache at each insertion (BSBM's
/// Q5 at 35 M quads: a thousand products in a range of seventeen thousand).
const QUADS_PER_ROW_TO_FILTER: usize = 2;

/// A `FILTER` over `Lateral(left, ?s <p> ?o)` whose conjuncts bound `?o` by expressions of
/// the input alone.
pub(super) struct RangeJoin<'p> {
    /// Borrowed from the plan, so that a pattern found in it is the one later evaluated
    /// (the [`SubjectFilter`] hook matches patterns by address).
    left: &'p GraphPattern,
    right: &'p GraphPattern,
    subject: Variable,
    predicate: NamedNode,
    object: Variable,
    /// Expressions `?o` is at least (or above).
    lower: Vec<Expression>,
    /// Expressions `?o` is at most (or below).
    upper: Vec<Expression>,
}

impl<'p> RangeJoin<'p> {
    /// The join `inner` is, if it has that shape and `filter` bounds its object.
    pub(super) fn recognize(inner: &'p GraphPattern, filter: &Expression) -> Option<Self> {
        let GraphPattern::Lateral { left, right } = inner else {
            return None;
        };
        let GraphPattern::QuadPattern {
            subject: GroundTermPattern::Variable(subject),
            predicate: NamedNodePattern::NamedNode(predicate),
            object: GroundTermPattern::Variable(object),
            graph_name: None,
        } = right.as_ref()
        else {
            return None;
        };
        if subject == object {
            return None;
        }
        let mut conjuncts = Vec::new();
        collect_conjuncts(filter, &mut conjuncts);
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        let is_bound = |e: &Expression| is_input_arithmetic(e, subject, object);
        for conjunct in conjuncts {
            let (smaller, larger) = match conjunct {
                Expression::Less(a, b) | Expression::LessOrEqual(a, b) => (a, b),
                Expression::Greater(a, b) | Expression::GreaterOrEqual(a, b) => (b, a),
                _ => continue,
            };
            match (smaller.as_ref(), larger.as_ref()) {
                (Expression::Variable(v), bound) if v == object && is_bound(bound) => {
                    upper.push(bound.clone());
                }
                (bound, Expression::Variable(v)) if v == object && is_bound(bound) => {
                    lower.push(bound.clone());
                }
                _ => {}
            }
        }
        if lower.is_empty() && upper.is_empty() {
            return None;
        }
        Some(Self {
            left: left.as_ref(),
            right: right.as_ref(),
            subject: subject.clone(),
            predicate: predicate.clone(),
            object: object.clone(),
            lower,
            upper,
        })
    }
}

fn collect_conjuncts<'e>(expression: &'e Expression, conjuncts: &mut Vec<&'e Expression>) {
    if let Expression::And(inner) = expression {
        for e in inner {
            collect_conjuncts(e, conjuncts);
        }
    } else {
        conjuncts.push(expression);
    }
}

/// Whether `e` is arithmetic over literals and variables other than the pattern's: the same
/// value for every row of the join when the input binds its variables.
fn is_input_arithmetic(e: &Expression, subject: &Variable, object: &Variable) -> bool {
    let recurse = |e: &Expression| is_input_arithmetic(e, subject, object);
    match e {
        Expression::Literal(_) => true,
        Expression::Variable(v) => v != subject && v != object,
        Expression::Add(a, b)
        | Expression::Subtract(a, b)
        | Expression::Multiply(a, b)
        | Expression::Divide(a, b) => recurse(a) && recurse(b),
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) => recurse(a),
        _ => false,
    }
}

/// The value of a numeric term as a double, if it is a number (not NaN).
fn numeric_value(term: ExpressionTerm) -> Option<f64> {
    let value = match term {
        ExpressionTerm::IntegerLiteral(v) => f64::from(Double::from(v)),
        ExpressionTerm::DecimalLiteral(v) => f64::from(Double::from(v)),
        ExpressionTerm::FloatLiteral(v) => f64::from(Double::from(v)),
        ExpressionTerm::DoubleLiteral(v) => f64::from(v),
        _ => return None,
    };
    (!value.is_nan()).then_some(value)
}

/// The bounds' values for one input, their tightest range: `None` when one is not a number
/// (a filter comparing with a string or a date, which this join leaves to the look-ups).
struct Bounds<'a, T> {
    variables: Vec<usize>,
    lower: Vec<ExpressionEvaluator<'a, InternalTuple<T>, ExpressionTerm>>,
    upper: Vec<ExpressionEvaluator<'a, InternalTuple<T>, ExpressionTerm>>,
}

impl<T: Eq> Bounds<'_, T> {
    /// The range `input` gives, if it binds every variable of the bounds and they are numbers.
    fn range(&self, input: &InternalTuple<T>) -> Option<NumericRange> {
        if !self.variables.iter().all(|v| input.contains(*v)) {
            return None;
        }
        let mut range = NumericRange {
            lower: None,
            upper: None,
        };
        for bound in &self.lower {
            let value = numeric_value(bound(input)?)?;
            range.lower = Some(range.lower.map_or(value, |l| l.max(value)));
        }
        for bound in &self.upper {
            let value = numeric_value(bound(input)?)?;
            range.upper = Some(range.upper.map_or(value, |u| u.min(value)));
        }
        Some(range)
    }

    /// Whether `a` and `b` give the same range: they bind the bounds' variables alike.
    fn same_range(&self, a: &InternalTuple<T>, b: &InternalTuple<T>) -> bool {
        self.variables.iter().all(|v| a.get(*v) == b.get(*v))
    }
}

/// The smallest range holding both.
fn hull(a: NumericRange, b: NumericRange) -> NumericRange {
    let wider = |x: Option<f64>, y: Option<f64>, pick: fn(f64, f64) -> f64| Some(pick(x?, y?));
    NumericRange {
        lower: wider(a.lower, b.lower, f64::min),
        upper: wider(a.upper, b.upper, f64::max),
    }
}

/// Whether every value within `inner` is within `outer`.
fn contains(outer: NumericRange, inner: NumericRange) -> bool {
    let lower = match (outer.lower, inner.lower) {
        (None, _) => true,
        (Some(o), Some(i)) => o <= i,
        (Some(_), None) => false,
    };
    let upper = match (outer.upper, inner.upper) {
        (None, _) => true,
        (Some(o), Some(i)) => o >= i,
        (Some(_), None) => false,
    };
    lower && upper
}

/// The subjects a pattern of `left` keeps, shared by a range join and that pattern's
/// evaluator: every subject until the join installs its range read, then the read's.
pub(super) struct SubjectFilter<T> {
    read: RefCell<Option<Rc<RangeObjects<T>>>>,
    /// Joins iterating now: a filter is installed only while one is, for its own rows.
    iterating: Cell<usize>,
}

impl<T: Clone + Eq + Hash> SubjectFilter<T> {
    fn new() -> Self {
        Self {
            read: RefCell::new(None),
            iterating: Cell::new(0),
        }
    }

    /// Whether the pattern keeps the quads of `subject` now.
    pub(super) fn allows(&self, subject: &T) -> bool {
        self.read
            .borrow()
            .as_ref()
            .is_none_or(|read| read.has_subject(subject))
    }

    fn install(&self, read: Option<Rc<RangeObjects<T>>>) {
        *self.read.borrow_mut() = read;
    }

    fn start(&self) {
        self.iterating.set(self.iterating.get() + 1);
        self.install(None);
    }

    fn end(&self) {
        self.iterating.set(self.iterating.get().saturating_sub(1));
        self.install(None);
    }
}

/// The pattern of `left` whose quads may be filtered by the join's subjects: `left` is
/// filters over for-loop joins, and that pattern is the innermost with `subject` as its
/// subject, the first left side or a right side. Each of `left`'s rows comes from one of its
/// quads and keeps that quad's subject (the joins and filters above it only add bindings or
/// drop rows), so dropping the quad drops only rows the range join would drop. The innermost
/// pattern, so that the range joins nested in `left` (Q5's second numeric property over its
/// first) filter the same one, before any row is made.
fn filtered_pattern<'p>(left: &'p GraphPattern, subject: &Variable) -> Option<&'p GraphPattern> {
    match left {
        GraphPattern::Filter { inner, .. } => filtered_pattern(inner, subject),
        GraphPattern::Lateral { left, right } => {
            filtered_pattern(left, subject).or_else(|| binds_subject(right, subject))
        }
        pattern => binds_subject(pattern, subject),
    }
}

/// `pattern`, if it is a quad pattern with `subject` as its subject.
fn binds_subject<'p>(pattern: &'p GraphPattern, subject: &Variable) -> Option<&'p GraphPattern> {
    match pattern {
        GraphPattern::QuadPattern {
            subject: GroundTermPattern::Variable(s),
            ..
        } if s == subject => Some(pattern),
        _ => None,
    }
}

impl<'a, D: QueryableDataset<'a>> SimpleEvaluator<'a, D> {
    /// The evaluator of `lateral` (the join `join` was recognized in), with its statistics.
    pub(super) fn range_join_evaluator(
        &self,
        lateral: &GraphPattern,
        join: RangeJoin<'_>,
        encoded_variables: &mut Vec<Variable>,
    ) -> (
        Result<InternalTupleEvaluator<'a, D::InternalTerm>, QueryEvaluationError>,
        Rc<EvalNodeWithStats>,
    ) {
        self.evaluator_with_stats(lateral, |stat_children| {
            // The pattern of `left` takes the filter as its evaluator is built (see
            // `SimpleEvaluator::take_subject_filters`), beside those of range joins around
            // this one; a filter no pattern took is dropped.
            let subject_filter = Rc::new(SubjectFilter::new());
            let target = filtered_pattern(join.left, &join.subject);
            if let Some(pattern) = target {
                self.subject_filters
                    .borrow_mut()
                    .push((std::ptr::from_ref(pattern), Rc::clone(&subject_filter)));
            }
            let (left, left_stats) = self.graph_pattern_evaluator(join.left, encoded_variables);
            let taken = target.is_some() && {
                let mut hooks = self.subject_filters.borrow_mut();
                let offers = hooks.len();
                hooks.retain(|(_, filter)| !Rc::ptr_eq(filter, &subject_filter));
                hooks.len() == offers
            };
            let subject_filter = taken.then_some(subject_filter);
            stat_children.push(left_stats);
            let (right, right_stats) = self.graph_pattern_evaluator(join.right, encoded_variables);
            stat_children.push(right_stats);
            let (left, right) = (left?, right?);
            let mut variables = FxHashSet::default();
            for bound in join.lower.iter().chain(&join.upper) {
                variables.extend(bound.used_variables().into_iter().cloned());
            }
            let mut evaluators = |bounds: &[Expression]| {
                bounds
                    .iter()
                    .map(|e| self.expression_evaluator(e, encoded_variables, stat_children))
                    .collect::<Result<Vec<_>, _>>()
            };
            let lower = evaluators(&join.lower)?;
            let upper = evaluators(&join.upper)?;
            let bounds = Rc::new(Bounds {
                variables: variables
                    .iter()
                    .map(|v| encode_variable(encoded_variables, v))
                    .collect(),
                lower,
                upper,
            });
            let read = Rc::new(RangeRead {
                dataset: self.dataset.clone(),
                predicate: self.encode_term(join.predicate.clone())?,
                subject: encode_variable(encoded_variables, &join.subject),
                object: encode_variable(encoded_variables, &join.object),
            });
            let evaluator: InternalTupleEvaluator<'a, D::InternalTerm> = Rc::new(move |from| {
                // `None`: the bounds' variables come from `left`, a range per row.
                let input_range = bounds.range(&from);
                // Only a range the input gives holds for every later row of `left`.
                let subject_filter = subject_filter.clone().filter(|_| input_range.is_some());
                if let Some(filter) = &subject_filter {
                    filter.start();
                }
                Box::new(RangeJoinIterator {
                    left: left(from),
                    left_done: false,
                    subject_filter,
                    right: Rc::clone(&right),
                    read: Rc::clone(&read),
                    bounds: Rc::clone(&bounds),
                    input_range,
                    range_objects: None,
                    current: Box::new(std::iter::empty()),
                })
            });
            Ok(evaluator)
        })
    }
}

/// What the join reads: the pattern's predicate, and where its subject and object go.
struct RangeRead<'a, D: QueryableDataset<'a>> {
    dataset: EvalDataset<'a, D>,
    predicate: D::InternalTerm,
    subject: usize,
    object: usize,
}

impl<'a, D: QueryableDataset<'a>> RangeRead<'a, D> {
    /// Whether the pattern is looked up for this row with its subject bound and its object
    /// free (else the row goes to the pattern's own evaluator).
    fn joins(&self, row: &InternalTuple<D::InternalTerm>) -> bool {
        row.contains(self.subject) && !row.contains(self.object)
    }

    /// The range read holding `range`, grouped by subject, or `None` when the chunk's rows to
    /// join (`rows` where `joined`) are better looked up one by one. `read` holds the range
    /// read of an earlier chunk, kept if its range holds this one, or gets this chunk's. The
    /// `last` chunk's read may keep only the quads of its rows' subjects (then it serves this
    /// chunk alone and `read` is left as it was).
    fn range_objects(
        &self,
        rows: &[Result<InternalTuple<D::InternalTerm>, QueryEvaluationError>],
        joined: &[bool],
        last: bool,
        range: NumericRange,
        read: &mut Option<Rc<RangeObjects<D::InternalTerm>>>,
    ) -> Result<Option<Rc<RangeObjects<D::InternalTerm>>>, QueryEvaluationError> {
        if let Some(read) = read.as_ref().filter(|read| contains(read.range, range)) {
            return Ok(Some(Rc::clone(read)));
        }
        let subjects = joined.iter().filter(|joined| **joined).count();
        if subjects < MIN_ROWS {
            return Ok(None);
        }
        let Some(mut quads) = self.dataset.default_graph_quads_for_numeric_range(
            &self.predicate,
            range,
            subjects.saturating_mul(QUADS_PER_ROW).min(MAX_RANGE_QUADS),
        )?
        else {
            return Ok(None);
        };
        if last && quads.len() > subjects.saturating_mul(QUADS_PER_ROW_TO_FILTER) {
            let wanted: FxHashSet<&D::InternalTerm> = rows
                .iter()
                .zip(joined)
                .filter(|(_, joined)| **joined)
                .filter_map(|(row, _)| row.as_ref().ok()?.get(self.subject))
                .collect();
            quads.retain(|quad| wanted.contains(&quad.subject));
            return Ok(Some(Rc::new(RangeObjects::new(range, quads))));
        }
        let objects = Rc::new(RangeObjects::new(range, quads));
        *read = Some(Rc::clone(&objects));
        Ok(Some(objects))
    }
}

/// A range read, its objects chained by subject, and the range it covers.
struct RangeObjects<T> {
    range: NumericRange,
    /// The objects of the read, in the read's order.
    objects: Vec<T>,
    /// For each object, where the next object of its subject is in `objects` ([`NO_OBJECT`]:
    /// none), so a subject's objects are met in the read's order.
    next: Vec<u32>,
    /// Where each subject's first and last objects are in `objects`.
    ends: FxHashMap<T, (u32, u32)>,
}

/// The end of a subject's chain of objects.
const NO_OBJECT: u32 = u32::MAX;

impl<T: Clone + Eq + Hash> RangeObjects<T> {
    /// The read's quads chained by subject: one hash look-up per quad, no allocation per
    /// subject (a product has one value of a numeric property: most chains are one long).
    fn new(range: NumericRange, quads: Vec<InternalQuad<T>>) -> Self {
        let mut ends: FxHashMap<T, (u32, u32)> =
            FxHashMap::with_capacity_and_hasher(quads.len(), FxBuildHasher);
        let mut objects = Vec::with_capacity(quads.len());
        let mut next = vec![NO_OBJECT; quads.len()];
        for (i, quad) in (0_u32..).zip(quads) {
            objects.push(quad.object);
            match ends.entry(quad.subject) {
                Entry::Occupied(mut entry) => {
                    let (_, last) = entry.get_mut();
                    next[*last as usize] = i;
                    *last = i;
                }
                Entry::Vacant(entry) => {
                    entry.insert((i, i));
                }
            }
        }
        Self {
            range,
            objects,
            next,
            ends,
        }
    }

    /// Whether `subject` has an object in the read.
    fn has_subject(&self, subject: &T) -> bool {
        self.ends.contains_key(subject)
    }

    /// Where the first object of `subject` is in `objects` ([`NO_OBJECT`]: it has none).
    fn first_of(&self, subject: &T) -> u32 {
        self.ends.get(subject).map_or(NO_OBJECT, |&(first, _)| first)
    }
}

/// The rows of the join, a chunk of left rows at a time.
struct RangeJoinIterator<'a, D: QueryableDataset<'a>> {
    left: InternalTuplesIterator<'a, D::InternalTerm>,
    left_done: bool,
    /// The filter of `left`'s pattern, when the input gives the range.
    subject_filter: Option<Rc<SubjectFilter<D::InternalTerm>>>,
    right: InternalTupleEvaluator<'a, D::InternalTerm>,
    read: Rc<RangeRead<'a, D>>,
    bounds: Rc<Bounds<'a, D::InternalTerm>>,
    /// The range of every row when the input binds the bounds, else each row has its own.
    input_range: Option<NumericRange>,
    /// The last range read, which later chunks join with while it holds their range.
    range_objects: Option<Rc<RangeObjects<D::InternalTerm>>>,
    current: InternalTuplesIterator<'a, D::InternalTerm>,
}

impl<'a, D: QueryableDataset<'a>> RangeJoinIterator<'a, D> {
    /// Which of `rows` join with a range read (the others are looked up: no subject, a bound
    /// object, or bounds that are no numbers), and the smallest range holding theirs.
    fn joined_rows(
        &self,
        rows: &[Result<InternalTuple<D::InternalTerm>, QueryEvaluationError>],
    ) -> (Vec<bool>, Option<NumericRange>) {
        let mut range = None;
        // Rows mostly share their bounds' values: the last row's range is reused.
        let mut last: Option<(&InternalTuple<D::InternalTerm>, Option<NumericRange>)> = None;
        let joined = rows
            .iter()
            .map(|row| {
                let Ok(row) = row else { return false };
                if !self.read.joins(row) {
                    return false;
                }
                let row_range = match (self.input_range, last) {
                    (Some(input), _) => Some(input),
                    (None, Some((previous, r))) if self.bounds.same_range(previous, row) => r,
                    (None, _) => self.bounds.range(row),
                };
                last = Some((row, row_range));
                let Some(row_range) = row_range else {
                    return false;
                };
                range = Some(range.map_or(row_range, |r| hull(r, row_range)));
                true
            })
            .collect();
        (joined, range)
    }

    /// Has `left`'s pattern keep only the subjects of `read` from now on, when more rows are
    /// to come, `read` holds the input's whole range and no other iteration of this join is
    /// under way (each sets the filter for its own rows).
    fn filter_left(&self, read: &Rc<RangeObjects<D::InternalTerm>>) {
        let (Some(filter), Some(range)) = (&self.subject_filter, self.input_range) else {
            return;
        };
        if !self.left_done && filter.iterating.get() == 1 && contains(read.range, range) {
            filter.install(Some(Rc::clone(read)));
        }
    }

    /// The rows of the join for the next chunk of left rows.
    fn next_chunk(&mut self) -> InternalTuplesIterator<'a, D::InternalTerm> {
        let mut rows = Vec::new();
        // With a filter, every chunk is small: `left` is read little ahead of this join, so
        // the filter of a range join around it, installed later, still finds quads to drop.
        let chunk_rows = if self.subject_filter.is_some() {
            FILTERED_CHUNK_ROWS
        } else {
            CHUNK_ROWS
        };
        while rows.len() < chunk_rows {
            let Some(row) = self.left.next() else {
                self.left_done = true;
                break;
            };
            rows.push(row);
        }
        let right = Rc::clone(&self.right);
        let (joined, range) = self.joined_rows(&rows);
        let last = self.left_done;
        let range_objects = match range.map_or(Ok(None), |range| {
            self.read
                .range_objects(&rows, &joined, last, range, &mut self.range_objects)
        }) {
            Ok(Some(range_objects)) => {
                self.filter_left(&range_objects);
                range_objects
            }
            Ok(None) => {
                return Box::new(rows.into_iter().flat_map(move |row| match row {
                    Ok(row) => right(row),
                    Err(e) => Box::new(once(Err(e))),
                }));
            }
            Err(e) => {
                self.left_done = true;
                return Box::new(once(Err(e)));
            }
        };
        Box::new(ChunkJoin {
            rows: rows.into_iter().zip(joined),
            right,
            subject: self.read.subject,
            object: self.read.object,
            read: range_objects,
            current: RowJoin::Done,
        })
    }
}

/// The rows a chunk of left rows joins into, row after row.
struct ChunkJoin<'a, T> {
    rows: Zip<IntoIter<Result<InternalTuple<T>, QueryEvaluationError>>, IntoIter<bool>>,
    right: InternalTupleEvaluator<'a, T>,
    /// Where the join's subject and object are in a row.
    subject: usize,
    object: usize,
    read: Rc<RangeObjects<T>>,
    /// What the row being joined still gives.
    current: RowJoin<'a, T>,
}

/// The rows one left row joins into: its subject's objects from the range read, or the
/// pattern's own look-up.
enum RowJoin<'a, T> {
    Objects {
        /// The row, cloned for each object but the last.
        row: InternalTuple<T>,
        /// Where the next object to join is in the read.
        next: u32,
    },
    LookedUp(InternalTuplesIterator<'a, T>),
    /// Nothing left: the next left row is taken.
    Done,
}

impl<T: Clone + Eq + Hash> ChunkJoin<'_, T> {
    /// The row joined with the object at `at` in the read, and a copy of the row when its
    /// subject has another object to join.
    fn join(&self, row: InternalTuple<T>, at: u32) -> (InternalTuple<T>, Option<InternalTuple<T>>) {
        let value = self.read.objects[at as usize].clone();
        let rest = (self.read.next[at as usize] != NO_OBJECT).then(|| row.clone());
        let mut joined = row;
        joined.set(self.object, value);
        (joined, rest)
    }
}

impl<T: Clone + Eq + Hash> Iterator for ChunkJoin<'_, T> {
    type Item = Result<InternalTuple<T>, QueryEvaluationError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match std::mem::replace(&mut self.current, RowJoin::Done) {
                RowJoin::Objects { row, next } => {
                    let (joined, rest) = self.join(row, next);
                    if let Some(row) = rest {
                        let next = self.read.next[next as usize];
                        self.current = RowJoin::Objects { row, next };
                    }
                    return Some(Ok(joined));
                }
                RowJoin::LookedUp(mut rows) => {
                    if let Some(row) = rows.next() {
                        self.current = RowJoin::LookedUp(rows);
                        return Some(row);
                    }
                }
                RowJoin::Done => {}
            }
            // Most rows have no object in the range: they end here.
            match self.rows.next()? {
                (Ok(row), true) => {
                    let first = row
                        .get(self.subject)
                        .map_or(NO_OBJECT, |s| self.read.first_of(s));
                    if first != NO_OBJECT {
                        self.current = RowJoin::Objects { row, next: first };
                    }
                }
                (Ok(row), false) => self.current = RowJoin::LookedUp((self.right)(row)),
                (Err(e), _) => return Some(Err(e)),
            }
        }
    }
}

impl<'a, D: QueryableDataset<'a>> Drop for RangeJoinIterator<'a, D> {
    fn drop(&mut self) {
        if let Some(filter) = &self.subject_filter {
            filter.end();
        }
    }
}

impl<'a, D: QueryableDataset<'a>> Iterator for RangeJoinIterator<'a, D> {
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
