//! The distinct counts the start views read (`Distinct`) against SPARQL counts of the same
//! things, after random sequences of commits (inserts, removals, clears, drops, graph
//! replacements) and bulk loads, and after the upgrade of an older store.

use crate::loading::step;
use crate::oracle::Model;
use crate::support::{proptest_config, read_only_options, with_raw_meta, write_input, TempStore};
use lodestone_store::load::{BulkLoader, RdfFormat};
use lodestone_store::sparql::{
    evaluate_query, DatasetOverride, QueryOptions, QueryResults, SparqlParser,
};
use lodestone_store::{ClassPredicates, Distinct, Reader, Store};
use oxrdf::{NamedNodeRef, Term, Variable};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// `key → count` rows of a grouped SPARQL count (union default graph).
fn sparql_counts(reader: &Reader<'_>, query: &str) -> BTreeMap<String, u64> {
    let query = SparqlParser::new().parse_query(query).expect("query");
    let options = QueryOptions::default().with_default_graph_as_union(true);
    let QueryResults::Solutions(solutions) =
        evaluate_query(reader, &query, &DatasetOverride::default(), &options).expect("evaluate")
    else {
        panic!("not solutions");
    };
    let (k, k2, n) = (
        Variable::new_unchecked("k"),
        Variable::new_unchecked("k2"),
        Variable::new_unchecked("n"),
    );
    let mut out = BTreeMap::new();
    for solution in solutions {
        let solution = solution.expect("solution");
        let Some(Term::Literal(count)) = solution.get(&n) else {
            panic!("no count");
        };
        let count: u64 = count.value().parse().expect("integer");
        let mut key = solution
            .get(&k)
            .map_or_else(String::new, ToString::to_string);
        if let Some(second) = solution.get(&k2) {
            key = format!("{key} {second}");
        }
        if count > 0 {
            out.insert(key, count);
        }
    }
    out
}

/// One kind of the statistics, keyed like [`sparql_counts`].
fn statistic(reader: &Reader<'_>, kind: Distinct) -> BTreeMap<String, u64> {
    reader
        .distinct_counts(kind)
        .expect("distinct counts")
        .into_iter()
        .map(|(id, count)| {
            let key = if kind == Distinct::Subjects {
                String::new()
            } else {
                reader.term(id).expect("term").to_string()
            };
            (key, count)
        })
        .collect()
}

/// The counts per class and predicate of one kind, keyed `class predicate` like
/// [`sparql_counts`] with `?k ?k2`.
fn class_statistic(reader: &Reader<'_>, kind: ClassPredicates) -> BTreeMap<String, u64> {
    reader
        .class_predicate_counts(kind, None)
        .expect("class-predicate counts")
        .expect("kept by the store")
        .into_iter()
        .map(|(class, p, count)| {
            let class = reader.term(class).expect("class");
            let p = reader.term(p).expect("predicate");
            (format!("{class} {p}"), count)
        })
        .collect()
}

/// Every statistic equals its SPARQL count.
pub fn check_distinct(store: &Store, context: &str) {
    let reader = store.reader();
    let class_cases = [
        (
            ClassPredicates::Subjects,
            "SELECT ?k ?k2 (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?k . ?s ?k2 ?o } GROUP BY ?k ?k2",
        ),
        (
            ClassPredicates::Objects,
            "SELECT ?k ?k2 (COUNT(DISTINCT ?o) AS ?n) WHERE { ?o a ?k . ?s ?k2 ?o } GROUP BY ?k ?k2",
        ),
    ];
    for (kind, query) in class_cases {
        assert_eq!(
            class_statistic(&reader, kind),
            sparql_counts(&reader, query),
            "{kind:?} after {context}"
        );
    }
    let cases = [
        (
            Distinct::ClassSubjects,
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?k } GROUP BY ?k",
        ),
        (
            Distinct::PredicateSubjects,
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?k ?o } GROUP BY ?k",
        ),
        (
            Distinct::PredicateObjects,
            "SELECT ?k (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s ?k ?o FILTER EXISTS { ?o ?q ?v } } GROUP BY ?k",
        ),
        (
            Distinct::GraphSubjects,
            "SELECT ?k (COUNT(DISTINCT ?s) AS ?n) WHERE { GRAPH ?k { ?s ?p ?o } } GROUP BY ?k",
        ),
        (
            Distinct::Subjects,
            "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ?o }",
        ),
    ];
    for (kind, query) in cases {
        assert_eq!(
            statistic(&reader, kind),
            sparql_counts(&reader, query),
            "{kind:?} after {context}"
        );
    }
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn distinct_counts_equal_sparql_counts_after_commits_and_bulk_loads(
        steps in prop::collection::vec(step(), 1..6),
    ) {
        let store = TempStore::new();
        let mut model = Model::default();
        for (i, step) in steps.iter().enumerate() {
            step.run(&store, &mut model, i);
            check_distinct(&store, &format!("step {i}: {step:?}"));
        }
    }
}

/// A store of format 5 has no distinct counts: a read-write open computes them.
#[test]
fn a_read_write_open_computes_the_distinct_counts_of_a_format_5_store() {
    let store = TempStore::new();
    let data = b"<http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> <http://e/g> .\n\
        <http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n\
        <http://e/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n\
        <http://e/b> <http://e/p> <http://e/a> <http://e/g> .\n\
        <http://e/b> <http://e/p> \"x\" .\n";
    let mut transaction = store.transaction().expect("transaction");
    for quad in crate::support::parse(data, RdfFormat::NQuads).iter() {
        transaction.insert(quad).expect("insert");
    }
    transaction.commit().expect("commit");
    let dir = store.close();
    with_raw_meta(&dir.path().join("store"), |db, meta| {
        db.put_cf(meta, b"version", 5_u64.to_le_bytes())
            .expect("version");
        let stats = db.cf_handle("distinct_stats").expect("table");
        db.delete_range_cf(stats, [0_u8].as_slice(), [u8::MAX; 10].as_slice())
            .expect("empty the table");
    });
    let store = TempStore::from_parts(dir);
    assert_eq!(store.reader().distinct_subjects().expect("count"), 2);
    check_distinct(&store, "the upgrade");
}

/// A store of format 7 has no counts per class and predicate: a read-only open reads it as it
/// is and says it has none, a read-write open computes them.
#[test]
fn a_read_write_open_computes_the_class_predicate_counts_of_a_format_7_store() {
    let store = store_before_load();
    let dir = store.close();
    with_raw_meta(&dir.path().join("store"), |db, meta| {
        db.put_cf(meta, b"version", 7_u64.to_le_bytes())
            .expect("version");
        let stats = db.cf_handle("distinct_stats").expect("table");
        for kind in [b'C', b'I'] {
            db.delete_range_cf(stats, [kind].as_slice(), [kind + 1].as_slice())
                .expect("drop the class-predicate counts");
        }
    });
    let path = dir.path().join("store");
    let read_only = Store::open(&path, read_only_options()).expect("read-only open of format 7");
    let reader = read_only.reader();
    for kind in [ClassPredicates::Subjects, ClassPredicates::Objects] {
        assert_eq!(
            reader.class_predicate_counts(kind, None).expect("read"),
            None
        );
    }
    drop(reader);
    drop(read_only);
    let store = TempStore::from_parts(dir);
    check_distinct(&store, "the upgrade of format 7");
    let reader = store.reader();
    let class = reader
        .term_id(NamedNodeRef::new_unchecked("http://e/C").into())
        .expect("look-up")
        .expect("class");
    let counts = reader
        .class_predicate_counts(ClassPredicates::Subjects, Some(class))
        .expect("read")
        .expect("kept");
    // `<a>`, the one instance of `<C>`, has one predicate: `rdf:type`.
    assert_eq!(counts.len(), 1);
    assert_eq!(counts.first().map(|(c, _, n)| (*c, *n)), Some((class, 1)));
}

/// What the loads into a non-empty store below start from: typed subjects in the default and
/// a named graph, an object (`<d>`) that is no subject, and a class (`<Untouched>`) no load
/// below touches.
const BEFORE_LOAD: &[u8] =
    b"<http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> <http://e/g> .\n\
    <http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n\
    <http://e/b> <http://e/p> <http://e/a> <http://e/g> .\n\
    <http://e/b> <http://e/p> \"x\" .\n\
    <http://e/c> <http://e/q> <http://e/d> .\n\
    <http://e/u> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/Untouched> .\n";

/// A store holding [`BEFORE_LOAD`], committed through a transaction.
fn store_before_load() -> TempStore {
    let store = TempStore::new();
    let mut transaction = store.transaction().expect("transaction");
    for quad in crate::support::parse(BEFORE_LOAD, RdfFormat::NQuads).iter() {
        transaction.insert(quad).expect("insert");
    }
    transaction.commit().expect("commit");
    store
}

/// Loads N-Quads in chunks of `chunk` quads.
fn load_in_chunks(store: &TempStore, name: &str, data: &[u8], chunk: usize) {
    BulkLoader::new(store)
        .with_chunk_quads(chunk)
        .load(&[write_input(store.scratch(), name, data)])
        .expect("bulk load");
}

/// Overwrites the count of `<http://e/Untouched>` as a class with 99, in the closed store.
fn falsify_untouched_class(store: TempStore) -> TempStore {
    let reader = store.reader();
    let untouched = reader
        .term_id(NamedNodeRef::new_unchecked("http://e/Untouched").into())
        .expect("look-up")
        .expect("class in the store");
    drop(reader);
    let dir = store.close();
    with_raw_meta(&dir.path().join("store"), |db, _| {
        let stats = db.cf_handle("distinct_stats").expect("table");
        let mut key = vec![b'c'];
        key.extend_from_slice(&untouched.to_be_bytes());
        db.put_cf(stats, key, 99_u64.to_le_bytes()).expect("put");
    });
    TempStore::from_parts(dir)
}

/// The count of `<http://e/Untouched>` as a class.
fn untouched_class_count(store: &Store) -> u64 {
    let reader = store.reader();
    let id = reader
        .term_id(NamedNodeRef::new_unchecked("http://e/Untouched").into())
        .expect("look-up")
        .expect("class in the store");
    reader
        .distinct_count(Distinct::ClassSubjects, id)
        .expect("count")
}

/// A load into a non-empty store, in several chunks, that makes an object a subject (so the
/// predicates it is the object of count it), types an existing subject anew in a new graph,
/// repeats quads the store has, and brings a blank node and new subjects linking to old ones.
#[test]
fn a_load_into_a_non_empty_store_moves_the_distinct_counts_as_sparql_counts_them() {
    let store = store_before_load();
    let data = b"<http://e/d> <http://e/r> \"y\" .\n\
        <http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n\
        <http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/D> <http://e/g2> .\n\
        <http://e/b> <http://e/p> <http://e/a> <http://e/g> .\n\
        <http://e/f> <http://e/p> <http://e/b> .\n\
        _:x <http://e/p> <http://e/a> <http://e/g> .\n\
        <http://e/c> <http://e/p> _:x .\n\
        <http://e/a> <http://e/q> <http://e/f> <http://e/g> .\n";
    for chunk in [1, 3, 100] {
        let store = store_before_load();
        load_in_chunks(&store, "more.nq", data, chunk);
        check_distinct(&store, &format!("a load in chunks of {chunk} quads"));
    }
    // Then again, in part: the second load adds nothing.
    load_in_chunks(&store, "more.nq", data, 2);
    let half = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(3)
        .map_or(data.len(), |(i, _)| i + 1);
    load_in_chunks(&store, "again.nq", &data[..half], 2);
    check_distinct(&store, "the same load twice");
}

/// A load into a non-empty store reads only its own quads: the count of a class it does not
/// touch stays as it was, even a wrong one (before, every load recomputed the whole table).
#[test]
fn a_small_load_into_a_non_empty_store_updates_only_what_it_touches() {
    let store = falsify_untouched_class(store_before_load());
    assert_eq!(untouched_class_count(&store), 99);
    load_in_chunks(
        &store,
        "small.nq",
        b"<http://e/d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C> .\n",
        10,
    );
    assert_eq!(untouched_class_count(&store), 99);
    let reader = store.reader();
    let class = reader
        .term_id(NamedNodeRef::new_unchecked("http://e/C").into())
        .expect("look-up")
        .expect("class");
    assert_eq!(
        reader
            .distinct_count(Distinct::ClassSubjects, class)
            .expect("count"),
        2
    );
}

/// A load of more new quads than the update from them is worth recomputes the whole table.
#[test]
fn a_large_load_into_a_non_empty_store_recomputes_the_distinct_counts() {
    let store = falsify_untouched_class(store_before_load());
    let data: String = (0..70_000)
        .map(|i| format!("<http://e/n{i}> <http://e/p> <http://e/n{}> .\n", i / 2))
        .collect();
    load_in_chunks(&store, "large.nt", data.as_bytes(), usize::MAX);
    assert_eq!(untouched_class_count(&store), 1);
    check_distinct(&store, "a large load");
}

/// A load of several chunks into an empty store: the recount takes `posg`'s distinct
/// (predicate, entity object) pairs from the load's merge of its runs rather than from the
/// index. Objects that are subjects (of typed and untyped entities), objects that are not,
/// literals, and quads in named graphs.
#[test]
fn a_load_of_several_chunks_into_an_empty_store_counts_as_sparql_counts() {
    let subjects = 15_000;
    let mut data = String::new();
    for i in 0..subjects {
        let graph = if i % 5 == 0 { " <http://e/g>" } else { "" };
        data.push_str(&format!(
            "<http://e/s{i}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/C{}>{graph} .\n\
             <http://e/s{i}> <http://e/p{}> <http://e/s{}> .\n\
             <http://e/s{i}> <http://e/q> <http://e/x{}>{graph} .\n\
             <http://e/s{i}> <http://e/label> \"label {i}\" .\n",
            i % 3,
            i % 4,
            (i * 7 + 3) % (subjects + 500),
            i % 100,
        ));
    }
    let store = TempStore::new();
    let report = BulkLoader::new(&store)
        .with_memory_budget(1 << 20)
        .with_chunk_quads(1)
        .load(&[write_input(store.scratch(), "several.nq", data.as_bytes())])
        .expect("bulk load");
    assert!(report.chunks >= 3, "{} chunks", report.chunks);
    check_distinct(&store, "a load of several chunks into an empty store");
}
