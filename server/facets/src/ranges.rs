//! The `ranges` view: the focus's numeric or date values of one property, bucketed.
//!
//! Values fall into *families* whose members SPARQL can order against each other: numbers
//! (every numeric datatype), `xsd:dateTime`, `xsd:date` and `xsd:gYear`. The family with the
//! most (entity, value) pairs is bucketed; values of other families and non-literals are left
//! out. The buckets split `[min, max]` of that family's values into at most N equal widths:
//! whole steps for integers, years and days, exact decimal steps for decimals and date-times,
//! floating point steps when a double is among the values. Every bucket is half-open
//! `[lower, upper)` except the last, which is closed `[lower, upper]` (its upper bound is the
//! maximum).
//!
//! A value belongs to a bucket exactly when SPARQL's `?v >= lower && ?v < upper` (`<=` for
//! the last) holds, since membership is decided with [`compare`], which follows SPARQL's
//! order: the equivalent query with the same bounds counts the same entities. Each count is
//! the number of distinct focus entities having at least one value in the bucket. The values
//! are read and decoded by [`crate::range_values`] (counted per value when the property has
//! one value per entity).

use crate::budget::{Deadline, Ticker};
use crate::compare::{compare, is_integer_type};
use crate::error::EngineError;
use crate::range_parts;
use crate::range_values::{self, Entities, Read, Values};
use lodestone_store::{Reader, TermId};
use oxrdf::vocab::xsd;
use oxrdf::{Literal, Term};
use oxsdatatypes::{Date, DateTime, DayTimeDuration, Decimal, Double, GYear};
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::str::FromStr;

pub use crate::range_values::Family;

/// One bucket's bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    /// The lowest value in the bucket (inclusive).
    pub lower: Literal,
    /// The upper bound: exclusive, or inclusive when `closed`.
    pub upper: Literal,
    /// Whether `upper` belongs to the bucket (the last bucket only).
    pub closed: bool,
}

impl Bucket {
    /// Whether a value falls in the bucket, as SPARQL's comparisons say.
    pub fn contains(&self, value: &Term) -> bool {
        let above = compare(value, &self.lower).is_some_and(Ordering::is_ge);
        let below = compare(value, &self.upper).is_some_and(|o| {
            if self.closed {
                o.is_le()
            } else {
                o.is_lt()
            }
        });
        above && below
    }

    /// `[lower, upper)` or `[lower, upper]`.
    pub fn label(&self) -> String {
        format!(
            "[{}, {}{}",
            self.lower.value(),
            self.upper.value(),
            if self.closed { "]" } else { ")" }
        )
    }
}

/// The values of `property` (in `graph` when given) for `entities`, read ([`range_values::read`])
/// and decoded ([`range_values::decode`]); the flag is false when the entities were not all known or the time
/// ran out (then the values read and decoded so far). A long scan of a functional property is
/// read and decoded on two threads ([`range_parts`]).
fn read_decoded(
    reader: &Reader<'_>,
    entities: Entities<'_>,
    property: TermId,
    graph: Option<TermId>,
    deadline: Deadline,
) -> Result<(Read, Values, bool), EngineError> {
    if graph.is_none() {
        let parts = range_parts::read_in_parts(
            reader,
            entities,
            property,
            deadline,
            range_parts::QUADS_TO_SPLIT,
        )?;
        if let Some((counts, values, all)) = parts {
            return Ok((Read::PerValue(counts), values, all && entities.complete()));
        }
    }
    let mut ticker = Ticker::new(deadline);
    let (read, read_all) = range_values::read(reader, entities, property, graph, &mut ticker)?;
    let (values, decoded_all) = range_values::decode(reader, &read, deadline)?;
    Ok((read, values, read_all && decoded_all))
}

/// The buckets of a `ranges` view with their counts.
#[derive(Debug, Default)]
pub struct RangeRows {
    /// Every bucket, lowest first, with the number of distinct focus entities in it.
    pub buckets: Vec<(Bucket, u64)>,
    /// Whether every focus entity's values were read.
    pub complete: bool,
}

/// Buckets the values of `property` of `entities` (in `graph` when given) into at most
/// `buckets` ranges.
pub fn compute(
    reader: &Reader<'_>,
    entities: Entities<'_>,
    property: Option<TermId>,
    buckets: usize,
    graph: Option<TermId>,
    deadline: Deadline,
) -> Result<RangeRows, EngineError> {
    let Some(property) = property else {
        return Ok(RangeRows {
            buckets: Vec::new(),
            complete: entities.complete(),
        });
    };
    let (read, values, complete) = read_decoded(reader, entities, property, graph, deadline)?;
    let Some(family) = dominant_family(&read, &values) else {
        return Ok(RangeRows {
            buckets: Vec::new(),
            complete,
        });
    };
    let members: Vec<&Literal> = values
        .values()
        .filter(|(f, _)| *f == family)
        .map(|(_, l)| l)
        .collect();
    let bounds = bucket_bounds(family, &members, buckets);
    let bucket = |value: &TermId| {
        values
            .get(value)
            .filter(|(f, _)| *f == family)
            .and_then(|(_, l)| bucket_of(&bounds, &Term::Literal(l.clone())))
    };
    let mut counts = vec![0u64; bounds.len()];
    match &read {
        // One value per entity: its entities fall in its bucket.
        Read::PerValue(per_value) => {
            for (value, n) in per_value {
                if let Some(count) = bucket(value).and_then(|i| counts.get_mut(i)) {
                    *count += n;
                }
            }
        }
        // An entity's pairs are adjacent: it counts once in each bucket it has values in.
        Read::Pairs(pairs) => {
            let mut slot: FxHashMap<TermId, Option<usize>> = FxHashMap::default();
            let mut last: Vec<Option<TermId>> = vec![None; bounds.len()];
            for (x, value) in pairs {
                let index = *slot.entry(*value).or_insert_with(|| bucket(value));
                if let Some(i) = index {
                    if last[i] != Some(*x) {
                        last[i] = Some(*x);
                        counts[i] += 1;
                    }
                }
            }
        }
    }
    Ok(RangeRows {
        buckets: bounds.into_iter().zip(counts).collect(),
        complete,
    })
}

/// The family with the most (entity, value) pairs (ties go to the first in declaration
/// order).
fn dominant_family(read: &Read, values: &Values) -> Option<Family> {
    let mut counts: FxHashMap<Family, u64> = FxHashMap::default();
    read.for_each(|value, n| {
        if let Some((family, _)) = values.get(&value) {
            *counts.entry(*family).or_default() += n;
        }
    });
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(f, _)| f)
}

/// The bucket holding a value, by binary search over the lower bounds.
fn bucket_of(bounds: &[Bucket], value: &Term) -> Option<usize> {
    let after = bounds.partition_point(|b| compare(value, &b.lower).is_some_and(Ordering::is_ge));
    let index = after.checked_sub(1)?;
    bounds.get(index)?.contains(value).then_some(index)
}

/// The buckets over a family's values: `[min, max]` cut into at most `n` equal steps.
pub fn bucket_bounds(family: Family, values: &[&Literal], n: usize) -> Vec<Bucket> {
    let n = n.max(1);
    let Some((min, max)) = extremes(values) else {
        return Vec::new();
    };
    let cuts = match family {
        Family::Numeric => numeric_cuts(values, min, max, n),
        Family::GYear => year_cuts(min, max, n),
        Family::Date => date_cuts(min, max, n),
        Family::DateTime => date_time_cuts(min, max, n),
    }
    .unwrap_or_else(|| vec![min.clone(), max.clone()]);
    buckets_from_cuts(cuts)
}

/// The smallest and largest values (values that cannot be ordered against the current
/// extremes are skipped).
fn extremes<'a>(values: &[&'a Literal]) -> Option<(&'a Literal, &'a Literal)> {
    let first = *values.first()?;
    let mut min = first;
    let mut max = first;
    for value in values {
        let term = Term::Literal((*value).clone());
        if compare(&term, min) == Some(Ordering::Less) {
            min = value;
        }
        if compare(&term, max) == Some(Ordering::Greater) {
            max = value;
        }
    }
    Some((min, max))
}

/// Buckets between consecutive cuts; a cut not above the previous one is dropped, except
/// that the last (closed) bucket may be a single value.
fn buckets_from_cuts(cuts: Vec<Literal>) -> Vec<Bucket> {
    let Some((last, inner)) = cuts.split_last() else {
        return Vec::new();
    };
    let mut lowers: Vec<&Literal> = Vec::new();
    for cut in inner {
        let above_previous = lowers.last().is_none_or(|previous| {
            compare(&Term::Literal(cut.clone()), previous) == Some(Ordering::Greater)
        });
        let below_last = lowers.is_empty()
            || compare(&Term::Literal(cut.clone()), last) != Some(Ordering::Greater);
        if above_previous && below_last {
            lowers.push(cut);
        }
    }
    let count = lowers.len();
    lowers
        .iter()
        .enumerate()
        .map(|(i, lower)| Bucket {
            lower: (*lower).clone(),
            upper: lowers
                .get(i + 1)
                .map_or_else(|| last.clone(), |u| (*u).clone()),
            closed: i + 1 == count,
        })
        .collect()
}

/// Offsets `0, step, 2·step, …, span` with a whole step such that at most `n` buckets cover
/// the `span + 1` whole values.
fn whole_offsets(span: i128, n: usize) -> Vec<i128> {
    if span <= 0 {
        return vec![0, 0];
    }
    let n = i128::try_from(n).unwrap_or(i128::MAX);
    // ceil((span + 1) / n), both positive.
    let step = ((span + n) / n).max(1);
    let mut offsets: Vec<i128> = (0..).map(|i| i * step).take_while(|o| *o <= span).collect();
    offsets.push(span);
    offsets
}

/// Offsets `0, step, …, (n-1)·step, span` with an exact decimal step of `span / n`.
fn decimal_offsets(span: Decimal, n: usize) -> Option<Vec<Decimal>> {
    let count = i64::try_from(n).ok()?;
    let step = span.checked_div(count)?;
    if step <= Decimal::from(0) {
        return Some(vec![Decimal::from(0), span]);
    }
    let mut offsets = (0..count)
        .map(|i| step.checked_mul(i))
        .collect::<Option<Vec<_>>>()?;
    offsets.push(span);
    Some(offsets)
}

fn numeric_cuts(
    values: &[&Literal],
    min: &Literal,
    max: &Literal,
    n: usize,
) -> Option<Vec<Literal>> {
    let datatypes = || values.iter().map(|l| l.datatype());
    if datatypes().any(|d| d == xsd::DOUBLE || d == xsd::FLOAT) {
        let (lo, hi) = (as_double(min)?, as_double(max)?);
        let span = hi - lo;
        if !span.is_finite() || span <= 0.0 {
            return None;
        }
        let step = span / n as f64;
        let mut cuts: Vec<Literal> = (0..n)
            .map(|i| double_literal(lo + step * i as f64))
            .collect();
        cuts.push(double_literal(hi));
        return Some(cuts);
    }
    if datatypes().all(is_integer_type) {
        let lo: i128 = min.value().parse().ok()?;
        let hi: i128 = max.value().parse().ok()?;
        let offsets = whole_offsets(hi.checked_sub(lo)?, n);
        return offsets
            .into_iter()
            .map(|o| {
                let v = lo.checked_add(o)?;
                Some(Literal::new_typed_literal(v.to_string(), xsd::INTEGER))
            })
            .collect();
    }
    let lo = Decimal::from_str(min.value()).ok()?;
    let hi = Decimal::from_str(max.value()).ok()?;
    decimal_offsets(hi.checked_sub(lo)?, n)?
        .into_iter()
        .map(|o| {
            let v = lo.checked_add(o)?;
            Some(Literal::new_typed_literal(v.to_string(), xsd::DECIMAL))
        })
        .collect()
}

fn as_double(literal: &Literal) -> Option<f64> {
    let d = literal.datatype();
    let double = if d == xsd::DOUBLE || d == xsd::FLOAT {
        Double::from_str(literal.value()).ok()?
    } else {
        Double::from(Decimal::from_str(literal.value()).ok()?)
    };
    Some(f64::from(double))
}

fn double_literal(value: f64) -> Literal {
    Literal::new_typed_literal(Double::from(value).to_string(), xsd::DOUBLE)
}

fn year_cuts(min: &Literal, max: &Literal, n: usize) -> Option<Vec<Literal>> {
    let lo = i128::from(GYear::from_str(min.value()).ok()?.year());
    let hi = i128::from(GYear::from_str(max.value()).ok()?.year());
    whole_offsets(hi - lo, n)
        .into_iter()
        .map(|o| {
            let year = lo + o;
            let sign = if year < 0 { "-" } else { "" };
            Some(Literal::new_typed_literal(
                format!("{sign}{:04}", year.abs()),
                xsd::G_YEAR,
            ))
        })
        .collect()
}

fn date_cuts(min: &Literal, max: &Literal, n: usize) -> Option<Vec<Literal>> {
    let lo = Date::from_str(min.value()).ok()?;
    let hi = Date::from_str(max.value()).ok()?;
    let days = i128::from(hi.checked_sub(lo)?.days());
    whole_offsets(days, n)
        .into_iter()
        .map(|o| {
            let seconds = Decimal::try_from(o.checked_mul(86_400)?).ok()?;
            let date = lo.checked_add_day_time_duration(DayTimeDuration::new(seconds))?;
            Some(Literal::new_typed_literal(date.to_string(), xsd::DATE))
        })
        .collect()
}

fn date_time_cuts(min: &Literal, max: &Literal, n: usize) -> Option<Vec<Literal>> {
    let lo = DateTime::from_str(min.value()).ok()?;
    let hi = DateTime::from_str(max.value()).ok()?;
    let span = hi.checked_sub(lo)?.as_seconds();
    let mut cuts = decimal_offsets(span, n)?
        .into_iter()
        .map(|o| {
            let at = lo.checked_add_day_time_duration(DayTimeDuration::new(o))?;
            Some(Literal::new_typed_literal(at.to_string(), xsd::DATE_TIME))
        })
        .collect::<Option<Vec<_>>>()?;
    // The maximum itself, not min + span, so that its exact form closes the last bucket.
    if let Some(last) = cuts.last_mut() {
        *last = max.clone();
    }
    Some(cuts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(v: &str, t: oxrdf::NamedNodeRef<'_>) -> Literal {
        Literal::new_typed_literal(v, t)
    }

    fn bounds(family: Family, values: &[Literal], n: usize) -> Vec<(String, String, bool)> {
        let refs: Vec<&Literal> = values.iter().collect();
        bucket_bounds(family, &refs, n)
            .into_iter()
            .map(|b| {
                (
                    b.lower.value().to_owned(),
                    b.upper.value().to_owned(),
                    b.closed,
                )
            })
            .collect()
    }

    #[test]
    fn integers_get_whole_steps_and_a_closed_last_bucket() {
        let values: Vec<Literal> = [1, 7, 20].iter().map(|v| Literal::from(*v)).collect();
        let b = bounds(Family::Numeric, &values, 4);
        assert_eq!(
            b,
            vec![
                ("1".into(), "6".into(), false),
                ("6".into(), "11".into(), false),
                ("11".into(), "16".into(), false),
                ("16".into(), "20".into(), true),
            ]
        );
        let one = bounds(Family::Numeric, &[Literal::from(5)], 10);
        assert_eq!(one, vec![("5".into(), "5".into(), true)]);
        // Fewer whole values than buckets: one bucket per value.
        let small: Vec<Literal> = [0, 2].iter().map(|v| Literal::from(*v)).collect();
        assert_eq!(bounds(Family::Numeric, &small, 10).len(), 3);
    }

    #[test]
    fn every_value_falls_in_exactly_one_bucket() {
        let values: Vec<Literal> = ["0.5", "1.25", "3", "9.75", "10"]
            .iter()
            .map(|v| typed(v, xsd::DECIMAL))
            .chain([typed("4", xsd::INTEGER)])
            .collect();
        let refs: Vec<&Literal> = values.iter().collect();
        let buckets = bucket_bounds(Family::Numeric, &refs, 3);
        assert_eq!(buckets.len(), 3);
        for value in &values {
            let term = Term::Literal(value.clone());
            let holding = buckets.iter().filter(|b| b.contains(&term)).count();
            assert_eq!(holding, 1, "{value}");
            assert!(bucket_of(&buckets, &term).is_some(), "{value}");
        }
        let outside = Term::Literal(typed("10.5", xsd::DECIMAL));
        assert_eq!(bucket_of(&buckets, &outside), None);
        let wrong_family = Term::Literal(typed("2008-01-01", xsd::DATE));
        assert_eq!(bucket_of(&buckets, &wrong_family), None);
    }

    #[test]
    fn doubles_round_trip_through_their_literals() {
        let values = [
            typed("0.1", xsd::DOUBLE),
            typed("1e3", xsd::DOUBLE),
            typed("7", xsd::INTEGER),
        ];
        let refs: Vec<&Literal> = values.iter().collect();
        let buckets = bucket_bounds(Family::Numeric, &refs, 7);
        assert_eq!(buckets.len(), 7);
        assert!(buckets.iter().all(|b| b.lower.datatype() == xsd::DOUBLE));
        for value in &values {
            assert!(
                bucket_of(&buckets, &Term::Literal(value.clone())).is_some(),
                "{value}"
            );
        }
    }

    #[test]
    fn dates_and_years() {
        let dates = [
            typed("2008-01-01", xsd::DATE),
            typed("2008-01-31", xsd::DATE),
        ];
        let b = bounds(Family::Date, &dates, 3);
        assert_eq!(b.first().map(|b| b.0.as_str()), Some("2008-01-01"));
        assert_eq!(b.get(1).map(|b| b.0.as_str()), Some("2008-01-12"));
        assert_eq!(
            b.last().map(|b| (b.1.as_str(), b.2)),
            Some(("2008-01-31", true))
        );
        let years = [typed("-0044", xsd::G_YEAR), typed("0014", xsd::G_YEAR)];
        let b = bounds(Family::GYear, &years, 2);
        assert_eq!(
            b,
            vec![
                ("-0044".into(), "-0014".into(), false),
                ("-0014".into(), "0014".into(), true)
            ]
        );
        let times = [
            typed("2008-01-01T00:00:00Z", xsd::DATE_TIME),
            typed("2008-01-02T00:00:00Z", xsd::DATE_TIME),
        ];
        let b = bounds(Family::DateTime, &times, 4);
        assert_eq!(b.get(1).map(|b| b.0.as_str()), Some("2008-01-01T06:00:00Z"));
        assert_eq!(b.len(), 4);
    }

    #[test]
    fn families() {
        assert_eq!(Family::of(&typed("1", xsd::INT)), Some(Family::Numeric));
        assert_eq!(Family::of(&typed("1", xsd::FLOAT)), Some(Family::Numeric));
        assert_eq!(Family::of(&Literal::from("1")), None);
        assert_eq!(Family::of(&typed("1999", xsd::G_YEAR)), Some(Family::GYear));
    }
}

#[cfg(test)]
mod value_tests {
    use super::*;
    use crate::executor::FocusSet;
    use crate::range_values::read;
    use lodestone_store::TermId;
    use oxrdf::{GraphName, NamedNode, Quad};
    use std::time::Duration;

    fn iri(name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("http://example.com/{name}"))
    }

    /// Per bucket, the entities of `members` with a value of `property` in it, by decoding
    /// every value: what the view must count.
    fn expected(
        reader: &Reader<'_>,
        rows: &RangeRows,
        members: &[TermId],
        property: TermId,
    ) -> Vec<u64> {
        rows.buckets
            .iter()
            .map(|(bucket, _)| {
                members
                    .iter()
                    .filter(|x| {
                        reader
                            .quads_for_pattern(Some(**x), Some(property), None, None)
                            .any(|q| {
                                let value = reader.term(q.expect("quad").object).expect("term");
                                bucket.contains(&value)
                            })
                    })
                    .count() as u64
            })
            .collect()
    }

    #[test]
    fn counts_per_value_and_per_pair_bucket_the_entities_once() {
        let (_dir, store) = crate::testing::temp_store();
        let mut transaction = store.transaction().expect("transaction");
        for n in 0..20_i64 {
            let e = iri(&format!("e{n}"));
            for (p, value) in [("v", n), ("w", n), ("w", n + 1)] {
                let quad = Quad::new(
                    e.clone(),
                    iri(p),
                    Literal::from(value),
                    GraphName::DefaultGraph,
                );
                transaction.insert(quad.as_ref()).expect("insert");
            }
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let id = |name: &str| {
            reader
                .term_id(iri(name).as_ref().into())
                .expect("id")
                .expect("known")
        };
        let mut all: Vec<TermId> = (0..20).map(|n| id(&format!("e{n}"))).collect();
        all.sort_unstable();
        let even: Vec<TermId> = (0..20).step_by(2).map(|n| id(&format!("e{n}"))).collect();
        let deadline = || Deadline::after(Duration::from_secs(60));
        for (name, functional) in [("v", true), ("w", false)] {
            let property = id(name);
            let mut ticker = Ticker::new(deadline());
            let (read, complete) =
                read(&reader, Entities::EverySubject, property, None, &mut ticker).expect("read");
            assert!(complete);
            assert_eq!(matches!(read, Read::PerValue(_)), functional, "{name}");
            let every = compute(
                &reader,
                Entities::EverySubject,
                Some(property),
                4,
                None,
                deadline(),
            )
            .expect("ranges");
            assert!(every.complete);
            assert_eq!(every.buckets.len(), 4);
            let counts =
                |rows: &RangeRows| rows.buckets.iter().map(|(_, n)| *n).collect::<Vec<_>>();
            assert_eq!(
                counts(&every),
                expected(&reader, &every, &all, property),
                "{name}"
            );
            for members in [&all, &even] {
                let mut sorted = members.clone();
                sorted.sort_unstable();
                let focus = FocusSet {
                    members: sorted.clone(),
                    scores: None,
                    complete: true,
                };
                let rows = compute(
                    &reader,
                    Entities::Focus(&focus),
                    Some(property),
                    4,
                    None,
                    deadline(),
                )
                .expect("ranges");
                assert!(rows.complete);
                assert_eq!(
                    counts(&rows),
                    expected(&reader, &rows, &sorted, property),
                    "{name}"
                );
            }
        }
    }
}
