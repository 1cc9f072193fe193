//! Views over the instances of one class, answered from the store's counts per class and
//! predicate.
//!
//! A query whose focus is the root with one required class and no other constraint ("the
//! offers") counts over every instance of the class: 2,000,000 of them at BSBM 100k, with
//! 20,000,000 quads, which no walk reads within a second. The store keeps, per class and
//! predicate, how many instances are subjects and how many are objects of the predicate
//! ([`ClassPredicates`]), which are exactly the counts of the `properties` and
//! `properties-in` views of that focus: such a view is one scan of the class's entries.
//!
//! The same counts say when every subject of a predicate is an instance of the class (the
//! class's count for the predicate equals the predicate's distinct subjects): a `ranges`
//! view of that predicate then reads the predicate's quads without listing the instances.
//!
//! Like the start views ([`crate::start`]), this holds only where the store-wide counts
//! describe what the query reads (every graph, or one graph holding every quad), and only
//! when the store keeps the counts (not a store of an older format opened read-only).

use crate::model::{FacetQuery, ViewKind};
use crate::start::{store_wide, StartRows};
use lodestone_store::{ClassPredicates, Distinct, Reader, StoreError, TermId};

/// A focus that is every instance of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassFocus {
    /// The class.
    pub class: TermId,
    /// Its instances (distinct subjects with it as `rdf:type`): the focus size.
    pub instances: u64,
}

/// The class whose instances are the focus of `query`, when the view is on the root and the
/// root's one constraint is that class (required, known to the store) and the store-wide
/// counts apply.
pub fn class_focus(
    reader: &Reader<'_>,
    query: &FacetQuery,
) -> Result<Option<ClassFocus>, StoreError> {
    let root = &query.root;
    let only_a_class =
        root.view.is_some() && root.constrained_by_classes_only() && root.classes.len() == 1;
    let Some(constraint) = root.classes.first().filter(|c| only_a_class && !c.exclude) else {
        return Ok(None);
    };
    // An unknown class is answered (no rows) by the general path.
    let Some(class) = reader.term_id(constraint.iri.as_ref().into())? else {
        return Ok(None);
    };
    if !store_wide(reader, query)? {
        return Ok(None);
    }
    Ok(Some(ClassFocus {
        class,
        instances: reader.distinct_count(Distinct::ClassSubjects, class)?,
    }))
}

/// The rows of a `properties` or `properties-in` view of a class focus, in view order (most
/// first, then by id); `None` for other views or when the store does not keep the counts.
pub fn rows(
    reader: &Reader<'_>,
    focus: ClassFocus,
    view: ViewKind,
) -> Result<Option<StartRows>, StoreError> {
    let kind = match view {
        ViewKind::Properties => ClassPredicates::Subjects,
        ViewKind::PropertiesIn => ClassPredicates::Objects,
        _ => return Ok(None),
    };
    let Some(counts) = reader.class_predicate_counts(kind, Some(focus.class))? else {
        return Ok(None);
    };
    let mut rows: Vec<(TermId, u64)> = counts.into_iter().map(|(_, p, n)| (p, n)).collect();
    rows.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(Some(StartRows {
        rows,
        focus_size: focus.instances,
    }))
}

/// Whether every subject of `predicate` is an instance of the focus class (then the
/// predicate's quads need no membership test against the instances).
pub fn covers(
    reader: &Reader<'_>,
    focus: ClassFocus,
    predicate: TermId,
) -> Result<bool, StoreError> {
    let Some(of_class) =
        reader.class_predicate_count(ClassPredicates::Subjects, focus.class, predicate)?
    else {
        return Ok(false);
    };
    Ok(
        of_class > 0
            && of_class == reader.distinct_count(Distinct::PredicateSubjects, predicate)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{Deadline, Ticker};
    use crate::model::{ClassConstraint, Node, View};
    use crate::walks;
    use lodestone_store::Store;
    use oxrdf::vocab::rdf;
    use oxrdf::{GraphName, Literal, NamedNode, Quad, Term};
    use rustc_hash::FxHashMap;
    use std::time::Duration;

    fn iri(name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("http://example.com/{name}"))
    }

    fn query(classes: Vec<ClassConstraint>, kind: ViewKind) -> FacetQuery {
        FacetQuery {
            root: Node {
                classes,
                view: Some(View::new(kind)),
                ..Node::default()
            },
            timeout: None,
            graph: None,
        }
    }

    fn class(name: &str, exclude: bool) -> ClassConstraint {
        ClassConstraint {
            iri: iri(name),
            exclude,
        }
    }

    /// Instances `c0..c9` of `C` with one `p` each (two in a named graph) and two `q`s,
    /// subjects `d0..d2` of no class with a `q`, and links to some instances (`r` from the
    /// `d`s, `s` in a named graph).
    fn store() -> (tempfile::TempDir, Store) {
        let (dir, store) = crate::testing::temp_store();
        let mut transaction = store.transaction().expect("transaction");
        let mut insert = |s: NamedNode, p: NamedNode, o: Term, g: GraphName| {
            transaction
                .insert(Quad::new(s, p, o, g).as_ref())
                .expect("insert");
        };
        for n in 0..10_i64 {
            let c = iri(&format!("c{n}"));
            let graph = if n < 2 {
                GraphName::from(iri("g"))
            } else {
                GraphName::DefaultGraph
            };
            insert(
                c.clone(),
                rdf::TYPE.into_owned(),
                iri("C").into(),
                GraphName::DefaultGraph,
            );
            insert(c.clone(), iri("p"), Literal::from(n).into(), graph.clone());
            insert(
                c.clone(),
                iri("q"),
                Literal::from(n).into(),
                GraphName::DefaultGraph,
            );
            insert(
                c.clone(),
                iri("q"),
                Literal::from(n + 1).into(),
                GraphName::DefaultGraph,
            );
            if n % 3 == 0 {
                insert(
                    iri("d0"),
                    iri("r"),
                    c.clone().into(),
                    GraphName::DefaultGraph,
                );
                insert(iri("d1"), iri("s"), c.into(), graph);
            }
        }
        for n in 0..3_i64 {
            insert(
                iri(&format!("d{n}")),
                iri("q"),
                Literal::from(n).into(),
                GraphName::DefaultGraph,
            );
        }
        transaction.commit().expect("commit");
        (dir, store)
    }

    /// The class focus of `{"class": [C]}`.
    fn focus_on_c(reader: &Reader<'_>) -> ClassFocus {
        class_focus(
            reader,
            &query(vec![class("C", false)], ViewKind::Properties),
        )
        .expect("read")
        .expect("a class focus")
    }

    #[test]
    fn only_a_root_with_one_required_class_is_a_class_focus() {
        let (_dir, store) = store();
        let reader = store.reader();
        let focus = focus_on_c(&reader);
        assert_eq!(focus.instances, 10);
        for classes in [
            vec![class("C", true)],
            vec![class("C", false), class("D", false)],
            vec![class("Unknown", false)],
            Vec::new(),
        ] {
            let q = query(classes, ViewKind::Properties);
            assert_eq!(class_focus(&reader, &q).expect("read"), None, "{q:?}");
        }
        let mut with_text = query(vec![class("C", false)], ViewKind::Properties);
        with_text.root.text = Some("word".into());
        assert_eq!(class_focus(&reader, &with_text).expect("read"), None);
    }

    #[test]
    fn class_rows_equal_the_walks_of_the_instances_and_coverage_follows_the_subjects() {
        let (_dir, store) = store();
        let reader = store.reader();
        let focus = focus_on_c(&reader);
        let mut instances: Vec<TermId> = (0..10)
            .filter_map(|n| {
                reader
                    .term_id(iri(&format!("c{n}")).as_ref().into())
                    .expect("id")
            })
            .collect();
        instances.sort_unstable();
        let ticker = Ticker::new(Deadline::after(Duration::from_secs(60)));
        let as_map =
            |rows: StartRows| -> FxHashMap<TermId, u64> { rows.rows.into_iter().collect() };
        let (walked, _) = walks::properties(&reader, &instances, None, 1, &ticker).expect("walk");
        let found = rows(&reader, focus, ViewKind::Properties)
            .expect("read")
            .expect("kept");
        assert_eq!(found.focus_size, 10);
        assert_eq!(as_map(found), walked);
        let (walked, _) =
            walks::properties_in(&reader, &instances, None, 1, &ticker).expect("walk");
        let found = rows(&reader, focus, ViewKind::PropertiesIn)
            .expect("read")
            .expect("kept");
        assert_eq!(as_map(found), walked);
        assert!(rows(&reader, focus, ViewKind::Classes)
            .expect("read")
            .is_none());
        let id = |name: &str| {
            reader
                .term_id(iri(name).as_ref().into())
                .expect("id")
                .expect("known")
        };
        // Every subject of `p` is a `C` (in whichever graph); `q` has other subjects too.
        assert!(covers(&reader, focus, id("p")).expect("read"));
        assert!(!covers(&reader, focus, id("q")).expect("read"));
        assert!(!covers(&reader, focus, id("r")).expect("read"));
    }
}
