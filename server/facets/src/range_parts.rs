//! The values of one long functional property read on two threads at once.
//!
//! A `ranges` view over millions of entities spends its time reading the property's quads in
//! `posg` and decoding its distinct values (5.7 M prices of BSBM's offers at 100 M quads: a
//! second on one thread). The property's objects are cut into 256 ranges of ids; two
//! threads, each with a reader of the same snapshot ([`Reader::sibling`]), take the next
//! part in turn, count the entities per value in it and decode its values. Ids are handed out
//! in the order terms were first seen, so the quads crowd in some parts (the prices an early
//! offer already had) and not others: many small parts taken in turn keep both threads busy
//! where two halves did not. Each part's counts are in value order and the parts are in id
//! order, so their concatenation is the one scan's [`Read::PerValue`].
//!
//! [`Read::PerValue`]: crate::range_values::Read::PerValue

use crate::budget::{Deadline, Ticker};
use crate::error::EngineError;
use crate::range_values::{decode_values, is_functional, Entities, ValueCounts, Values};
use crate::scan::{self, Members};
use lodestone_store::{Reader, TermId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Quads of a functional property from which it is read on two threads.
pub const QUADS_TO_SPLIT: u64 = 1 << 18;

/// Ranges of object ids the property's scan is cut into: each costs a seek (microseconds),
/// and enough of them keep both threads busy however the quads crowd.
const PARTS: u64 = 256;

/// Per distinct value the entities having it, the decoded values and whether all were read.
type Parts = (Vec<(TermId, u64)>, Values, bool);

/// The per-value counts of a functional property `property` with at least `split_from`
/// quads (every graph), for `entities` when they are not looked up one by one, read and
/// decoded on two threads; `None` when that does not apply, or the store committed since
/// `reader` was made (no reader of its state for the second thread).
pub fn read_in_parts(
    reader: &Reader<'_>,
    entities: Entities<'_>,
    property: TermId,
    deadline: Deadline,
    split_from: u64,
) -> Result<Option<Parts>, EngineError> {
    if reader.usage(property)?.as_predicate < split_from || !is_functional(reader, property)? {
        return Ok(None);
    }
    let members = match entities {
        Entities::Focus(focus) => Some(focus.members.as_slice()),
        Entities::EverySubject => None,
    };
    if let Some(members) = members {
        if !scan::scan_is_cheaper(reader, property, members.len())? {
            return Ok(None);
        }
    }
    let Some(span) = reader.object_span(property)? else {
        return Ok(None);
    };
    let Some(sibling) = reader.sibling()? else {
        return Ok(None);
    };
    let (first, last) = (span.start().as_u64(), span.end().as_u64());
    let width = u128::from(last - first) + 1;
    let parts = PARTS.min((last - first).saturating_add(1));
    // The first id of part `i`; `parts` gives one past the last id.
    let bound = |i: u64| {
        let offset = width * u128::from(i) / u128::from(parts);
        first + u64::try_from(offset).unwrap_or(u64::MAX - first)
    };
    let next = AtomicU64::new(0);
    let done: Mutex<Vec<(u64, Parts)>> = Mutex::default();
    let worker = |reader: &Reader<'_>| -> Result<(), EngineError> {
        let mut ticker = Ticker::new(deadline);
        let mut members = members.map(Members::new);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= parts {
                return Ok(());
            }
            let (from, until) = (bound(i), bound(i + 1));
            let mut counts = ValueCounts::default();
            let mut complete = true;
            for quad in reader.predicate_quads_from(property, TermId::from_u64(from)) {
                if scan::out_of_time(&mut ticker)? {
                    complete = false;
                    break;
                }
                let quad = quad?;
                if quad.object.as_u64() >= until {
                    break;
                }
                if members.as_mut().is_none_or(|m| m.contains(quad.subject)) {
                    counts.add(quad.object);
                }
            }
            let counts = counts.into_sorted();
            let (values, decoded) =
                decode_values(reader, counts.iter().map(|(v, _)| *v), deadline)?;
            let part = (counts, values, complete && decoded);
            done.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((i, part));
            if !complete || !decoded {
                return Ok(());
            }
        }
    };
    let worker = &worker;
    let (mine, theirs) = std::thread::scope(|scope| {
        let theirs = scope.spawn(move || worker(&sibling));
        let mine = worker(reader);
        let theirs = theirs
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (mine, theirs)
    });
    mine?;
    theirs?;
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_unstable_by_key(|(i, _)| *i);
    // Parts not read (the time ran out) leave a gap: the answer is then incomplete.
    let mut complete = u64::try_from(done.len()).is_ok_and(|n| n == parts);
    let mut counts = Vec::new();
    let mut values = Values::default();
    for (_, (part_counts, part_values, part_complete)) in done {
        counts.extend(part_counts);
        values.extend(part_values);
        complete &= part_complete;
    }
    Ok(Some((counts, values, complete)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range_values::{decode, read, Read};
    use oxrdf::vocab::xsd;
    use oxrdf::{Literal, Term};

    #[test]
    fn values_read_in_parts_are_those_read_in_one_scan() {
        use crate::executor::FocusSet;
        use oxrdf::{GraphName, NamedNode, Quad};
        let iri = |name: String| NamedNode::new_unchecked(format!("http://example.com/{name}"));
        let (_dir, store) = crate::testing::temp_store();
        let mut transaction = store.transaction().expect("transaction");
        for n in 0..300_i64 {
            // Inlined integers, decimals and dates in the dictionary, strings and IRIs.
            let value: Term = match n % 5 {
                0 => Literal::from(n * 7 % 101).into(),
                1 => Literal::new_typed_literal(format!("{}.5", n % 37), xsd::DECIMAL).into(),
                2 => Literal::new_typed_literal(format!("20{:02}-01-01", n % 30), xsd::DATE).into(),
                3 => Literal::from(format!("s{}", n % 11)).into(),
                _ => iri(format!("v{}", n % 13)).into(),
            };
            let quad = Quad::new(
                iri(format!("e{n}")),
                iri("p".into()),
                value,
                GraphName::DefaultGraph,
            );
            transaction.insert(quad.as_ref()).expect("insert");
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let property = reader
            .term_id(iri("p".into()).as_ref().into())
            .expect("id")
            .expect("known");
        let deadline = || Deadline::after(std::time::Duration::from_secs(60));
        let mut members: Vec<TermId> = (0..300)
            .step_by(3)
            .map(|n| {
                reader
                    .term_id(iri(format!("e{n}")).as_ref().into())
                    .expect("id")
                    .expect("known")
            })
            .collect();
        members.sort_unstable();
        let focus = FocusSet {
            members,
            scores: None,
            complete: true,
        };
        for entities in [Entities::EverySubject, Entities::Focus(&focus)] {
            let (split, values_split, all) =
                read_in_parts(&reader, entities, property, deadline(), 1)
                    .expect("read")
                    .expect("split");
            assert!(all);
            let mut ticker = Ticker::new(deadline());
            let (read_one, all) =
                read(&reader, entities, property, None, &mut ticker).expect("read");
            assert!(all);
            let (values_one, all) = decode(&reader, &read_one, deadline()).expect("decoded");
            assert!(all);
            let Read::PerValue(one) = &read_one else {
                panic!("a functional property is read per value");
            };
            assert_eq!(&split, one);
            assert!(!values_one.is_empty());
            assert_eq!(values_split, values_one);
        }
    }
}
