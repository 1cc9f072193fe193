//! Reads for whole-store passes: subject ranges that cover the scan once, and terms decoded
//! in batches equal to those decoded one by one.

use crate::support::{proptest_config, TempStore};
use lodestone_store::{EncodedQuad, TermId, TermKind};
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, Quad, Term};
use proptest::prelude::*;

fn iri(n: usize) -> NamedNode {
    NamedNode::new_unchecked(format!("http://example.com/t{n}"))
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn a_predicates_scan_cut_by_object_is_its_whole_scan(
        quads in prop::collection::vec((0..30usize, 0..3usize, 0..60usize, 0..3usize), 0..300),
        cuts in prop::collection::vec(any::<u64>(), 0..5),
    ) {
        let store = TempStore::new();
        let mut transaction = store.transaction().expect("transaction");
        for (s, p, o, kind) in &quads {
            let object: Term = match kind {
                0 => iri(*o).into(),
                1 => Literal::from(*o as i64).into(),
                _ => Literal::new_simple_literal(format!("v{o}")).into(),
            };
            let graph = if s % 2 == 0 { GraphName::DefaultGraph } else { iri(200).into() };
            let quad = Quad::new(iri(*s), iri(100 + p), object, graph);
            transaction.insert(quad.as_ref()).expect("insert");
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let sibling = reader.sibling().expect("sequence").expect("nothing committed since");
        for p in 0..3 {
            let Some(predicate) = reader.term_id(iri(100 + p).as_ref().into()).expect("id") else {
                continue;
            };
            let expected: Vec<EncodedQuad> = reader
                .quads_for_pattern(None, Some(predicate), None, None)
                .collect::<Result<_, _>>()
                .expect("scan");
            let span = reader.object_span(predicate).expect("span").expect("quads");
            prop_assert_eq!(Some(*span.start()), expected.first().map(|q| q.object));
            prop_assert_eq!(Some(*span.end()), expected.last().map(|q| q.object));
            let (first, last) = (span.start().as_u64(), span.end().as_u64());
            let mut bounds: Vec<u64> =
                cuts.iter().map(|c| first + c % (last - first + 1)).collect();
            bounds.push(first);
            bounds.sort_unstable();
            let mut got = Vec::new();
            for (i, from) in bounds.iter().enumerate() {
                let until = bounds.get(i + 1).copied();
                // The parts alternate between the two readers of one state.
                let part = if i % 2 == 0 { &reader } else { &sibling };
                for quad in part.predicate_quads_from(predicate, TermId::from_u64(*from)) {
                    let quad = quad.expect("quad");
                    if until.is_some_and(|u| quad.object.as_u64() >= u) {
                        break;
                    }
                    got.push(quad);
                }
            }
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_sibling_reads_what_its_reader_reads_and_none_is_made_after_a_commit(
        values in prop::collection::vec(0..50usize, 1..40),
    ) {
        let store = TempStore::new();
        let insert = |n: usize| {
            let mut transaction = store.transaction().expect("transaction");
            let quad = Quad::new(iri(n), iri(100), iri(n + 1), GraphName::DefaultGraph);
            transaction.insert(quad.as_ref()).expect("insert");
            transaction.commit().expect("commit");
        };
        for v in &values {
            insert(*v);
        }
        let reader = store.reader();
        let sibling = reader.sibling().expect("sequence").expect("same state");
        let all = |r: &lodestone_store::Reader<'_>| {
            r.quads_for_pattern(None, None, None, None)
                .collect::<Result<Vec<_>, _>>()
                .expect("scan")
        };
        prop_assert_eq!(all(&reader), all(&sibling));
        insert(1_000);
        prop_assert!(reader.sibling().expect("sequence").is_none());
    }

    #[test]
    fn subject_ranges_cover_the_iri_subjects_once(
        quads in prop::collection::vec((0..40usize, 0..4usize, 0..40usize, any::<bool>()), 0..300),
        cuts in prop::collection::vec(any::<u64>(), 0..6),
    ) {
        let store = TempStore::new();
        let mut transaction = store.transaction().expect("transaction");
        for (s, p, o, blank) in &quads {
            let subject: oxrdf::NamedOrBlankNode = if *blank {
                BlankNode::new_unchecked(format!("b{s}")).into()
            } else {
                iri(*s).into()
            };
            let quad = Quad::new(subject, iri(100 + p), iri(*o), GraphName::DefaultGraph);
            transaction.insert(quad.as_ref()).expect("insert");
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let expected: Vec<(TermId, Vec<EncodedQuad>)> = reader
            .quads_by_subject()
            .filter(|g| g.as_ref().map_or(true, |(s, _)| s.kind() == TermKind::Iri))
            .collect::<Result<_, _>>()
            .expect("groups");
        let span = reader.subject_span(TermKind::Iri).expect("span");
        let Some(span) = span else {
            prop_assert!(expected.is_empty());
            return Ok(());
        };
        prop_assert_eq!(Some(*span.start()), expected.first().map(|g| g.0));
        prop_assert_eq!(Some(*span.end()), expected.last().map(|g| g.0));
        // Cut the span at arbitrary points; the ranges' groups are the scan's.
        let (first, last) = (span.start().as_u64(), span.end().as_u64());
        let mut bounds: Vec<u64> = cuts.iter().map(|c| first + c % (last - first + 1)).collect();
        bounds.push(first);
        bounds.push(last + 1);
        bounds.sort_unstable();
        let mut got = Vec::new();
        for pair in bounds.windows(2) {
            let range = TermId::from_u64(pair[0])..TermId::from_u64(pair[1]);
            for group in reader.quads_by_subject_in(range) {
                got.push(group.expect("group"));
            }
        }
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn batched_terms_equal_terms_read_one_by_one() {
    let store = TempStore::new();
    let values: Vec<Term> = vec![
        Literal::new_simple_literal("plain words").into(),
        Literal::new_language_tagged_literal_unchecked("mots", "fr").into(),
        Literal::new_typed_literal("2.5", oxrdf::vocab::xsd::DECIMAL).into(),
        Literal::new_typed_literal("2020-01-01", oxrdf::vocab::xsd::DATE).into(),
        Literal::new_typed_literal("9.99", iri(8)).into(),
        Literal::from(12_i64).into(),
        iri(7).into(),
    ];
    let mut transaction = store.transaction().expect("transaction");
    for value in &values {
        let quad = Quad::new(iri(1), iri(2), value.clone(), GraphName::DefaultGraph);
        transaction.insert(quad.as_ref()).expect("insert");
    }
    transaction.commit().expect("commit");
    let reader = store.reader();
    let mut ids: Vec<TermId> = values
        .iter()
        .map(|v| reader.term_id(v.as_ref()).expect("read").expect("stored"))
        .collect();
    // Repeated and unsorted ids come back in the order asked.
    ids.reverse();
    ids.push(ids[0]);
    let one_by_one: Vec<Term> = ids
        .iter()
        .map(|id| reader.term(*id).expect("term"))
        .collect();
    assert_eq!(reader.terms(&ids).expect("terms"), one_by_one);
    let strings: Vec<Option<Literal>> = one_by_one
        .iter()
        .map(|t| match t {
            Term::Literal(l)
                if l.language().is_some() || l.datatype() == oxrdf::vocab::xsd::STRING =>
            {
                Some(l.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(strings.iter().flatten().count(), 2);
    assert_eq!(reader.string_literals(&ids).expect("literals"), strings);
    // Typed literals of the datatypes asked for; the inlined integer is not in the dictionary.
    let usd = iri(8);
    let wanted = [oxrdf::vocab::xsd::DECIMAL.as_str(), usd.as_str()];
    let typed: Vec<Option<Literal>> = one_by_one
        .iter()
        .map(|t| match t {
            Term::Literal(l) if wanted.contains(&l.datatype().as_str()) => Some(l.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(typed.iter().flatten().count(), 2);
    let got = reader
        .typed_literals(&ids, |datatype| wanted.contains(&datatype))
        .expect("typed literals");
    assert_eq!(got, typed);
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Many ids close together are read by one sweep of the dictionary, ids far apart by
    /// point reads: either way each comes back as read one by one, repeats and order kept.
    #[test]
    fn batched_terms_of_many_ids_equal_terms_read_one_by_one(
        picks in prop::collection::vec(0..400usize, 0..300),
        spread in 1..4usize,
    ) {
        let store = TempStore::new();
        let mut transaction = store.transaction().expect("transaction");
        for n in 0..400 {
            // Literals of three datatypes between IRIs, so that the literals' ids have gaps.
            let value: Term = match n % 3 {
                0 => Literal::new_typed_literal(format!("{n}.5"), oxrdf::vocab::xsd::DECIMAL).into(),
                1 => Literal::new_typed_literal(format!("{n}"), iri(9)).into(),
                _ => Literal::new_simple_literal(format!("w{n}")).into(),
            };
            for _ in 0..spread {
                let subject = iri(1000 + n * spread);
                transaction
                    .insert(Quad::new(subject, iri(2), value.clone(), GraphName::DefaultGraph).as_ref())
                    .expect("insert");
            }
        }
        transaction.commit().expect("commit");
        let reader = store.reader();
        let literal = |n: usize| reader.term_id(
            match n % 3 {
                0 => Literal::new_typed_literal(format!("{n}.5"), oxrdf::vocab::xsd::DECIMAL),
                1 => Literal::new_typed_literal(format!("{n}"), iri(9)),
                _ => Literal::new_simple_literal(format!("w{n}")),
            }.as_ref().into()
        ).expect("read").expect("stored");
        let ids: Vec<TermId> = picks.iter().map(|n| literal(*n)).collect();
        let one_by_one: Vec<Term> = ids.iter().map(|id| reader.term(*id).expect("term")).collect();
        prop_assert_eq!(reader.terms(&ids).expect("terms"), one_by_one.clone());
        let decimals: Vec<Option<Literal>> = one_by_one
            .iter()
            .map(|t| match t {
                Term::Literal(l) if l.datatype() == oxrdf::vocab::xsd::DECIMAL => Some(l.clone()),
                _ => None,
            })
            .collect();
        let typed = reader
            .typed_literals(&ids, |datatype| datatype == oxrdf::vocab::xsd::DECIMAL.as_str())
            .expect("typed literals");
        prop_assert_eq!(typed, decimals);
    }
}
