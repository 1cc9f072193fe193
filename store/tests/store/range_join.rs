//! For-loop joins under a range filter that read the range at once (`range_join` in
//! store/vendor/spareval, `Reader::quads_in_numeric_range`): BSBM Q5's shape and variants on
//! random data large enough for the range read (every product shares one feature, so the
//! join has one row per product), with values of every kind in the filtered position —
//! canonical integers (inlined), decimals, doubles, integers in a non-canonical form
//! (dictionary literals), strings and IRIs — and quads in named graphs. The answers must be
//! those of the query evaluated as written, with the default graph as the union and without.
//! Range reads from a predicate's numeric column must be those of the index they copy,
//! before and after a commit.

use crate::support::{
    answers_as_written, graph_suffix, options, pattern_rows, proptest_config, query_lines as lines,
    transaction_load, TempStore,
};
use lodestone_store::load::RdfFormat;
use lodestone_store::sparql::QueryOptions;
use lodestone_store::{Reader, StoreOptions};
use oxrdf::{Literal, NamedNode, QuadRef, TermRef};
use proptest::prelude::*;
use std::fmt::Write;

const E: &str = "http://e/";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// A value of a numeric property, of any kind a store may hold there.
#[derive(Debug, Clone)]
enum Value {
    Integer(i64),
    /// Tenths, written as an `xsd:decimal`.
    Decimal(i64),
    Double(i64),
    /// An integer with a leading zero: not canonical, so a dictionary literal.
    Padded(i64),
    Text(i64),
    Iri(i64),
}

impl Value {
    fn n_triples(&self) -> String {
        match self {
            Self::Integer(v) => format!("\"{v}\"^^<{XSD}integer>"),
            Self::Decimal(v) => format!("\"{}.{}\"^^<{XSD}decimal>", v / 10, v.abs() % 10),
            Self::Double(v) => format!("\"{v}.5E0\"^^<{XSD}double>"),
            Self::Padded(v) => format!("\"0{}\"^^<{XSD}integer>", v.abs()),
            Self::Text(v) => format!("\"{v}\""),
            Self::Iri(v) => format!("<{E}value{v}>"),
        }
    }
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => (-5i64..60).prop_map(Value::Integer),
        1 => (-50i64..600).prop_map(Value::Decimal),
        1 => (-5i64..60).prop_map(Value::Double),
        1 => (0i64..60).prop_map(Value::Padded),
        1 => (0i64..60).prop_map(Value::Text),
        1 => (0i64..3).prop_map(Value::Iri),
    ]
}

/// One product: its features besides the shared one, its numeric values, its graph.
#[derive(Debug, Clone)]
struct Product {
    features: Vec<u8>,
    numeric1: Vec<Value>,
    numeric2: Vec<Value>,
    /// `None`: the default graph, else one of three named graphs.
    graph: Option<u8>,
}

fn product() -> impl Strategy<Value = Product> {
    (
        proptest::collection::vec(1u8..4, 0..3),
        proptest::collection::vec(value(), 0..3),
        proptest::collection::vec(value(), 0..3),
        proptest::option::of(0u8..3),
    )
        .prop_map(|(features, numeric1, numeric2, graph)| Product {
            features,
            numeric1,
            numeric2,
            graph,
        })
}

fn n_quads(products: &[Product]) -> String {
    let mut out = String::new();
    for (i, p) in products.iter().enumerate() {
        let s = format!("<{E}product{i}>");
        let g = graph_suffix(p.graph);
        // Distinct labels in no relation to the product numbers (no ties before LIMIT).
        writeln!(out, "{s} <{E}label> \"label {:03}\"{g} .", (i * 37) % 1000).unwrap();
        for f in std::iter::once(&0).chain(&p.features) {
            writeln!(out, "{s} <{E}feature> <{E}feature{f}>{g} .").unwrap();
        }
        for (property, values) in [("numeric1", &p.numeric1), ("numeric2", &p.numeric2)] {
            for v in values {
                writeln!(out, "{s} <{E}{property}> {}{g} .", v.n_triples()).unwrap();
            }
        }
    }
    out
}

/// BSBM Q5's graph pattern for product `p`: the products sharing a feature with it whose
/// `numeric1` and `numeric2` are within the given distances of its own.
fn q5_pattern(p: &str, numeric1_within: u32, numeric2_within: u32) -> String {
    let (d1, d2) = (numeric1_within, numeric2_within);
    format!(
        "?product <{E}label> ?label .
         FILTER ({p} != ?product)
         {p} <{E}feature> ?f . ?product <{E}feature> ?f .
         {p} <{E}numeric1> ?orig1 . ?product <{E}numeric1> ?sim1 .
         FILTER (?sim1 < (?orig1 + {d1}) && ?sim1 > (?orig1 - {d1}))
         {p} <{E}numeric2> ?orig2 . ?product <{E}numeric2> ?sim2 .
         FILTER (?sim2 < (?orig2 + {d2}) && ?sim2 > (?orig2 - {d2}))"
    )
}

/// BSBM Q5's shape for product `given`, and variants: bounds on one side only, constant and
/// decimal bounds, a bound that is no number, rows without the filtered property (OPTIONAL).
fn queries(given: usize) -> Vec<String> {
    let p = format!("<{E}product{given}>");
    let q5 = q5_pattern(&p, 10, 12);
    let one = |filter: &str| {
        format!(
            "SELECT ?product ?sim1 WHERE {{ {p} <{E}numeric1> ?orig1 .
             {p} <{E}feature> ?f . ?product <{E}feature> ?f . ?product <{E}numeric1> ?sim1 .
             FILTER ({filter}) }}"
        )
    };
    vec![
        format!("SELECT DISTINCT ?product ?label WHERE {{ {q5} }} ORDER BY ?label LIMIT 5"),
        format!("SELECT ?product ?label ?f ?sim1 ?sim2 WHERE {{ {q5} }}"),
        // Without DISTINCT above the joins, the filters once ended over both nested joins.
        format!("SELECT (COUNT(*) AS ?n) WHERE {{ {q5} }}"),
        // The given product bound by VALUES or BIND: its values are read inside the join,
        // each row brings its own range.
        format!(
            "SELECT DISTINCT ?product ?label WHERE {{ VALUES ?given {{ {p} }} {} }}
             ORDER BY ?label LIMIT 5",
            q5.replace(&p, "?given")
        ),
        format!(
            "SELECT ?product ?label ?sim1 ?sim2 WHERE {{ BIND ({p} AS ?given) {} }}",
            q5.replace(&p, "?given")
        ),
        // Ranges that differ from row to row: the products of feature 1 against all.
        format!(
            "SELECT ?other ?product ?sim1 WHERE {{
             ?other <{E}feature> <{E}feature1> . ?other <{E}numeric1> ?orig1 .
             ?product <{E}feature> <{E}feature0> . ?product <{E}numeric1> ?sim1 .
             FILTER (?sim1 < ?orig1 + 3 && ?sim1 > ?orig1 - 3) }}"
        ),
        // Tests of constant properties (which a probe join may read whole) under the range:
        // the filter goes to the innermost pattern binding `?product`.
        format!(
            "SELECT ?product ?label WHERE {{ {p} <{E}numeric2> ?orig2 .
             ?product <{E}feature> <{E}feature1> . ?product <{E}feature> <{E}feature0> .
             ?product <{E}label> ?label . ?product <{E}numeric2> ?sim2 .
             FILTER (?sim2 < ?orig2 + 12 && ?sim2 > ?orig2 - 12) }}"
        ),
        one("?sim1 >= ?orig1"),
        one("?orig1 - 3.5 <= ?sim1 && ?sim1 <= ?orig1 * 2"),
        one("?sim1 < \"30\""),
        one("?sim1 > -(?orig1) && ?sim1 < 1e1"),
        format!(
            "SELECT ?product ?sim1 WHERE {{ {p} <{E}numeric1> ?orig1 .
             ?product <{E}feature> <{E}feature0> .
             OPTIONAL {{ ?product <{E}numeric2> ?sim1 }}
             ?product <{E}numeric1> ?sim1 . FILTER (?sim1 <= ?orig1 + 5) }}"
        ),
    ]
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn range_filtered_joins_answer_as_written(
        products in proptest::collection::vec(product(), 70..160),
        given in any::<proptest::sample::Index>(),
    ) {
        let store = TempStore::new();
        transaction_load(&store, &[("range.nq", n_quads(&products).as_bytes(), RdfFormat::NQuads)]);
        let given = given.index(products.len());
        for union in [true, false] {
            for query in queries(given) {
                let (optimized, as_written) = answers_both_ways(&store, &query, union);
                prop_assert_eq!(optimized, as_written, "union {}: {}", union, query);
            }
        }
    }
}

/// Thousands of products sharing a feature, values of every kind, quads in named graphs: once
/// a first chunk of rows has paid for the range read, the feature's pattern keeps only the
/// quads of the read's subjects (`SubjectFilter` in `range_join`), and every query answers as
/// written, with the default graph as the union and without.
#[test]
fn a_left_side_past_its_first_chunk_is_filtered_by_the_range_read() {
    let store = feature_store(1_600, |i| mixed_value(i * 7));
    for given in [7, 1_234] {
        for union in [true, false] {
            // Not the queries whose rows each bring a range (the given product bound by
            // `VALUES` or `BIND`, or one range per other product): the left side is not
            // filtered there, and as written they join every pair of products.
            let queries = queries(given);
            for query in queries
                .iter()
                .filter(|q| !q.contains("?given") && !q.contains("?other"))
            {
                let (optimized, as_written) = answers_both_ways(&store, query, union);
                assert_eq!(optimized, as_written, "union {union}: {query}");
            }
        }
    }
    // Q5: every product shares feature 0 with product 7 (and a third of them one more), so
    // its feature join gives 2,133 rows; past the first 1,024 only those of products whose
    // `numeric1` may be within 10 of product 7's come (a dictionary literal may).
    let feature_rows = rows_of(&store, &queries(7)[0], "?product <http://e/feature>");
    assert!(
        (1_024..1_600).contains(&feature_rows),
        "{feature_rows} rows of the feature pattern"
    );
}

/// Q5's shape where the first range passes every product and the second few of them: the
/// outer join's filter reaches the feature pattern through the inner join, so that pattern
/// keeps only the subjects of both range reads once each join has read its range, and the
/// answers stay those of the query as written.
#[test]
fn nested_range_joins_both_filter_the_left_side() {
    let store = feature_store(6_000, small_integer);
    let pattern = q5_pattern(&format!("<{E}product7>"), 1000, 12);
    let q5 =
        format!("SELECT DISTINCT ?product ?label WHERE {{ {pattern} }} ORDER BY ?label LIMIT 5");
    let counted = format!("SELECT (COUNT(*) AS ?n) WHERE {{ {pattern} }}");
    for union in [true, false] {
        for query in [&q5, &counted] {
            let (optimized, as_written) = answers_both_ways(&store, query, union);
            assert_eq!(optimized, as_written, "union {union}: {query}");
        }
    }
    // Every product has feature 0 and a third of them feature 2, as product 7: 8,000 rows.
    // Two chunks of 1,024 come before the outer join has read its range (the first range
    // filters nothing); of the rest, only products whose `numeric2` may be within 12 of
    // product 7's (about one in four, dictionary literals included).
    let feature_rows = rows_of(&store, &q5, "?product <http://e/feature>");
    assert!(
        (2_048..4_500).contains(&feature_rows),
        "{feature_rows} rows of the feature pattern"
    );
}

/// A store of `products` products, each with feature 0 and one of features 1 to 3 in turn,
/// `numeric1` as given, a `numeric2` of [`mixed_value`], a quarter of them in each of two
/// named graphs.
fn feature_store(products: usize, numeric1: impl Fn(usize) -> Value) -> TempStore {
    let products = (0..products)
        .map(|i| Product {
            features: vec![1 + u8::try_from(i % 3).expect("small")],
            numeric1: vec![numeric1(i)],
            numeric2: vec![mixed_value(i * 11 + 3)],
            graph: [None, None, Some(0), Some(1)][i % 4],
        })
        .collect::<Vec<_>>();
    let store = TempStore::new();
    transaction_load(
        &store,
        &[("range.nq", n_quads(&products).as_bytes(), RdfFormat::NQuads)],
    );
    store
}

/// The range join's left side starts with a pattern binding `?product` (the products of
/// feature 1) and tests a constant property of each (feature 0, which a probe join reads
/// whole): the filter goes to that first pattern, whose quads past the first chunk are only
/// those of products whose `numeric2` may be in the range.
#[test]
fn a_left_side_starting_with_the_subject_is_filtered_there() {
    let store = feature_store(6_000, small_integer);
    let query = &queries(7)[6];
    assert!(query.contains("<http://e/feature1> . ?product"), "{query}");
    for union in [true, false] {
        let (optimized, as_written) = answers_both_ways(&store, query, union);
        assert_eq!(optimized, as_written, "union {union}: {query}");
    }
    // 2,000 products have feature 1: 1,024 rows come before the range read, then about a
    // third of the other 976 (dictionary literals and the range).
    let rows = rows_of(
        &store,
        query,
        "?product <http://e/feature> <http://e/feature1>",
    );
    assert!(
        (1_024..1_800).contains(&rows),
        "{rows} rows of the feature 1 pattern"
    );
}

/// The answers of `query` with the optimizer and as written, with the default graph as the
/// union or not; in any order unless the query has an `ORDER BY`.
fn answers_both_ways(store: &TempStore, query: &str, union: bool) -> (Vec<String>, Vec<String>) {
    let options = QueryOptions::default().with_default_graph_as_union(union);
    let mut optimized = lines(store, query, &options);
    let mut as_written = lines(store, query, &options.clone().without_optimizations());
    if !query.contains("ORDER BY") {
        optimized.sort();
        as_written.sort();
    }
    (optimized, as_written)
}

/// The rows the one pattern of `query`'s plan whose text holds `pattern` gave, the default
/// graph the union.
fn rows_of(store: &TempStore, query: &str, pattern: &str) -> u64 {
    let union = QueryOptions::default().with_default_graph_as_union(true);
    let rows = pattern_rows(store, query, &union, pattern);
    assert_eq!(rows.len(), 1, "{rows:?} patterns like {pattern}");
    rows[0]
}

/// A canonical integer from 0 to 49 as `i` goes: every product within a range of 1,000.
fn small_integer(i: usize) -> Value {
    Value::Integer(i64::try_from(i % 50).expect("small"))
}

/// Mostly canonical integers, the kind a range read gives exactly (it keeps every dictionary
/// literal, which it cannot order), from -3 to 195 as `i` goes.
fn mixed_value(i: usize) -> Value {
    let v = i64::try_from(i % 199).expect("small") - 3;
    match i % 20 {
        0 => Value::Decimal(v * 10 + 5),
        1 => Value::Double(v),
        2 => Value::Padded(v.abs()),
        3 => Value::Text(v),
        4 => Value::Iri(v.rem_euclid(3)),
        _ => Value::Integer(v),
    }
}

/// The bounds bound on the outer left side of two nested for-loop joins (the given
/// product's value read first, then the products sharing its feature): the filter stays on
/// the inner join, which reads the range instead of looking the value up once per row.
#[test]
fn bounds_from_an_outer_join_still_read_the_range() {
    let p = format!("<{E}product7>");
    let looked_up = numeric1_look_ups(&format!(
        "SELECT (COUNT(*) AS ?n) WHERE {{ {p} <{E}numeric1> ?orig .
         {p} <{E}feature> ?f . ?product <{E}feature> ?f . FILTER ({p} != ?product)
         ?product <{E}numeric1> ?sim . FILTER (?sim < ?orig + 3 && ?sim > ?orig - 3) }}"
    ));
    assert_eq!(looked_up, vec![0]);
}

/// The given product bound by `VALUES`: its value is read inside the join, the bounds come
/// with each row, and the join still reads the range once.
#[test]
fn bounds_from_each_row_read_the_range() {
    let looked_up = numeric1_look_ups(&format!(
        "SELECT ?product ?sim WHERE {{ VALUES ?given {{ <{E}product7> }}
         ?given <{E}feature> ?f . ?product <{E}feature> ?f . FILTER (?given != ?product)
         ?given <{E}numeric1> ?orig . ?product <{E}numeric1> ?sim .
         FILTER (?sim < ?orig + 3 && ?sim > ?orig - 3) }}"
    ));
    assert_eq!(looked_up, vec![0]);
}

/// Far fewer rows than quads in the range (100 products of `feature1` among 400, every
/// value within the bounds): the read keeps the rows' subjects only, and the answers stay
/// those of the query as written.
#[test]
fn few_rows_in_a_wide_range_read_it_once() {
    let looked_up = numeric1_look_ups_in(
        400,
        |i| i < 100,
        &format!(
            "SELECT ?product ?sim WHERE {{ <{E}product7> <{E}numeric1> ?orig .
             ?product <{E}feature> <{E}feature1> . ?product <{E}numeric1> ?sim .
             FILTER (?sim < ?orig + 100 && ?sim > ?orig - 100) }}"
        ),
    );
    assert_eq!(looked_up, vec![0]);
}

/// Runs `text` over 200 products sharing one feature and checks its answers against the
/// query as written; returns the rows the plan's `?product <numeric1> …` patterns gave: 0
/// where the range join read the range instead of looking the pattern up.
fn numeric1_look_ups(text: &str) -> Vec<u64> {
    numeric1_look_ups_in(200, |_| false, text)
}

/// [`numeric1_look_ups`] over `products` products, those for which `in_feature1` holds
/// having `feature1` too.
fn numeric1_look_ups_in(products: usize, in_feature1: fn(usize) -> bool, text: &str) -> Vec<u64> {
    let products = (0..products)
        .map(|i| Product {
            features: if in_feature1(i) { vec![1] } else { Vec::new() },
            numeric1: vec![Value::Integer((i % 50) as i64)],
            numeric2: Vec::new(),
            graph: None,
        })
        .collect::<Vec<_>>();
    let store = TempStore::new();
    transaction_load(
        &store,
        &[("range.nq", n_quads(&products).as_bytes(), RdfFormat::NQuads)],
    );
    answers_as_written(&store, text);
    pattern_rows(
        &store,
        text,
        &QueryOptions::default(),
        &format!("?product <{E}numeric1>"),
    )
}

/// The range read itself: the predicate's dictionary literals and its inlined integers within
/// the bounds, in one graph or all; `None` past the limit or under a transaction's changes.
#[test]
fn numeric_range_reads_literals_and_the_integers_within() {
    let store = TempStore::new();
    let mut data = String::new();
    for v in 0..100 {
        writeln!(data, "<{E}s{v}> <{E}n> \"{v}\"^^<{XSD}integer> .").unwrap();
    }
    writeln!(data, "<{E}d> <{E}n> \"7.5\"^^<{XSD}decimal> .").unwrap();
    writeln!(data, "<{E}i> <{E}n> <{E}iri> .").unwrap();
    writeln!(data, "<{E}g> <{E}n> \"42\"^^<{XSD}integer> <{E}graph> .").unwrap();
    writeln!(data, "<{E}o> <{E}other> \"42\"^^<{XSD}integer> .").unwrap();
    transaction_load(&store, &[("n.nq", data.as_bytes(), RdfFormat::NQuads)]);
    let reader = store.reader();
    let id = |term: TermRef<'_>| reader.term_id(term).unwrap().unwrap();
    let predicate = id(NamedNode::new_unchecked(format!("{E}n")).as_ref().into());
    let subjects = |graph, limit| {
        reader
            .quads_in_numeric_range(predicate, Some(40.5), Some(45.0), graph, limit)
            .unwrap()
            .map(|quads| {
                quads
                    .iter()
                    .map(|q| reader.term(q.subject).unwrap().to_string())
                    .collect::<Vec<_>>()
            })
    };
    let all = subjects(None, 1000).expect("within the limit");
    // The decimal first (dictionary literals sort before inlined integers), then the
    // integers 41 to 45 and the bounds' margin of one (40 and 46), in value order.
    assert_eq!(all.first().map(String::as_str), Some("<http://e/d>"));
    for v in 40..=46 {
        assert!(all.contains(&format!("<{E}s{v}>")), "{v} in {all:?}");
    }
    assert!(all.contains(&format!("<{E}g>")));
    assert!(!all
        .iter()
        .any(|s| s == &format!("<{E}i>") || s == &format!("<{E}s30>")));
    let graph = id(NamedNode::new_unchecked(format!("{E}graph"))
        .as_ref()
        .into());
    assert_eq!(subjects(Some(graph), 1000), Some(vec![format!("<{E}g>")]));
    assert_eq!(subjects(None, 3), None);

    let mut transaction = store.transaction().unwrap();
    let quad = oxrdf::Quad::new(
        NamedNode::new_unchecked(format!("{E}t")),
        NamedNode::new_unchecked(format!("{E}n")),
        Literal::from(43_i64),
        oxrdf::GraphName::DefaultGraph,
    );
    transaction.insert(QuadRef::from(&quad)).unwrap();
    let changed = transaction.reader();
    assert_eq!(
        changed
            .quads_in_numeric_range(predicate, Some(40.5), Some(45.0), None, 1000)
            .unwrap(),
        None
    );
}

/// Range reads of `numeric1` for `ranges` through `reader`, each asked three times (so that a
/// store that keeps numeric columns builds one), as subject and object terms.
fn range_reads(reader: &Reader<'_>, ranges: &[Range]) -> Vec<Option<Vec<(String, String)>>> {
    let Some(predicate) = reader
        .term_id(
            NamedNode::new_unchecked(format!("{E}numeric1"))
                .as_ref()
                .into(),
        )
        .unwrap()
    else {
        return Vec::new();
    };
    let graph = reader
        .term_id(
            NamedNode::new_unchecked(format!("{E}graph1"))
                .as_ref()
                .into(),
        )
        .unwrap();
    let mut out = Vec::new();
    for range in ranges {
        for _ in 0..3 {
            let read = reader
                .quads_in_numeric_range(
                    predicate,
                    range.lower,
                    range.upper,
                    graph.filter(|_| range.one_graph),
                    range.limit,
                )
                .unwrap()
                .map(|quads| {
                    quads
                        .iter()
                        .map(|q| {
                            let term = |id| reader.term(id).unwrap().to_string();
                            (term(q.subject), term(q.object))
                        })
                        .collect()
                });
            out.push(read);
        }
    }
    out
}

/// Removes the `numeric1` values of the first `products` products in one commit.
fn replace_numeric1(store: &TempStore, products: usize) {
    let mut transaction = store.transaction().unwrap();
    let old = {
        let reader = transaction.reader();
        let id = |iri: String| reader.term_id(NamedNode::new_unchecked(iri).as_ref().into());
        let predicate = id(format!("{E}numeric1")).unwrap();
        let mut old = Vec::new();
        for i in 0..products {
            let subject = id(format!("{E}product{i}")).unwrap();
            if let (Some(subject), Some(predicate)) = (subject, predicate) {
                for quad in reader.quads_for_pattern(Some(subject), Some(predicate), None, None) {
                    old.push(quad.unwrap());
                }
            }
        }
        old
    };
    for quad in old {
        transaction.remove_encoded(quad).unwrap();
    }
    transaction.commit().unwrap();
}

#[derive(Debug, Clone)]
struct Range {
    lower: Option<f64>,
    upper: Option<f64>,
    one_graph: bool,
    limit: usize,
}

fn range() -> impl Strategy<Value = Range> {
    (
        proptest::option::of(-10.0f64..70.0),
        proptest::option::of(-10.0f64..70.0),
        any::<bool>(),
        prop_oneof![1 => 1usize..20, 4 => Just(10_000)],
    )
        .prop_map(|(lower, upper, one_graph, limit)| Range {
            lower,
            upper,
            one_graph,
            limit,
        })
}

proptest! {
    #![proptest_config(proptest_config())]

    /// A store that keeps numeric columns reads ranges as one that does not, before and
    /// after a commit that changes the predicate, for a reader of either state.
    #[test]
    fn numeric_columns_read_as_the_index(
        products in proptest::collection::vec(product(), 20..80),
        changed in proptest::collection::vec(product(), 1..10),
        ranges in proptest::collection::vec(range(), 1..6),
    ) {
        let with = TempStore::new();
        let without = TempStore::with_options(StoreOptions {
            number_columns_bytes: 0,
            ..options()
        });
        let data = n_quads(&products);
        for store in [&with, &without] {
            transaction_load(store, &[("range.nq", data.as_bytes(), RdfFormat::NQuads)]);
        }
        let before = with.reader();
        prop_assert_eq!(range_reads(&before, &ranges), range_reads(&without.reader(), &ranges));
        // The commit replaces the first products' values with those of `changed`.
        let replaced = n_quads(&changed);
        for store in [&with, &without] {
            replace_numeric1(store, changed.len());
            transaction_load(store, &[("changed.nq", replaced.as_bytes(), RdfFormat::NQuads)]);
        }
        prop_assert_eq!(range_reads(&with.reader(), &ranges), range_reads(&without.reader(), &ranges));
        // A reader of the state before the commit still reads that state.
        let first = range_reads(&before, &ranges);
        let fresh = TempStore::with_options(StoreOptions {
            number_columns_bytes: 0,
            ..options()
        });
        transaction_load(&fresh, &[("range.nq", data.as_bytes(), RdfFormat::NQuads)]);
        prop_assert_eq!(first, range_reads(&fresh.reader(), &ranges));
    }
}
