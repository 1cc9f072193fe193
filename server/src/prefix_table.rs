//! The server's one prefix table: what every surface (URI lookup, entity pages, the SPARQL
//! editor, fct `shortform`, search) writes IRIs with and reads CURIEs with.
//!
//! Its entries come from four sources; where two give one name different namespaces, the
//! higher one wins (`lodestone_vocab::PrefixSource`):
//!
//! 1. the operator's file (`--prefixes FILE`), highest;
//! 2. the prefixes declared by the data: `@prefix`/`PREFIX` of loaded Turtle, TriG and N3,
//!    `xmlns:` of RDF/XML, `PREFIX` of SPARQL updates, as the store recorded them
//!    (`Store::record_prefixes`: the latest declaration of a name wins);
//! 3. the bundled well-known lists (the RDFa 1.1 initial context and prefix.cc's names);
//! 4. the namespaces most used in the store (by the distinct subjects of its predicates and
//!    classes, from the statistics: no scan of the data) that none of the above names, under a
//!    name made up from their last path segment (`ns`, numbered if taken), lowest.
//!
//! The table is rebuilt when the declared prefixes change (read at every use: a few entries)
//! and, at most every [`USED_REFRESH`], when commits may have changed the most used
//! namespaces.

use lodestone_store::{Distinct, Reader, SequenceNumber, Store, StoreError};
use lodestone_vocab::prefixes::namespace_of;
use lodestone_vocab::{PrefixSource, Prefixes};
use oxrdf::Term;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many of the store's most used namespaces are looked at for a made-up name.
pub const MOST_USED: usize = 16;

/// How many predicates and classes (the most used) the namespaces are counted over.
const TERMS_COUNTED: usize = 2_000;

/// The shortest time between two counts of the most used namespaces.
pub const USED_REFRESH: Duration = Duration::from_secs(30);

/// The prefix table of a running server.
pub struct PrefixTable {
    operator: Prefixes,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    declared: Option<Vec<(String, String)>>,
    used: Option<Used>,
    table: Option<Arc<Prefixes>>,
}

/// The most used namespaces at one commit.
struct Used {
    sequence: SequenceNumber,
    at: Instant,
    namespaces: Vec<String>,
}

impl PrefixTable {
    /// A table with the operator's prefixes (empty without a prefix file) on top.
    pub fn new(operator: Prefixes) -> Self {
        Self {
            operator,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The table for the store as it is now. A store that cannot be read leaves out what it
    /// could not read (logged): prefixes then fall back, nothing fails.
    pub fn of(&self, store: &Store) -> Arc<Prefixes> {
        let declared = store.declared_prefixes().unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read the declared prefixes");
            Vec::new()
        });
        let sequence = store.sequence();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let stale = cache
            .used
            .as_ref()
            .is_none_or(|used| used.sequence != sequence && used.at.elapsed() >= USED_REFRESH);
        if stale {
            match most_used_namespaces(&store.reader(), MOST_USED) {
                Ok(namespaces) => {
                    cache.used = Some(Used {
                        sequence,
                        at: Instant::now(),
                        namespaces,
                    });
                    cache.table = None;
                }
                Err(error) => tracing::warn!(%error, "cannot count the most used namespaces"),
            }
        }
        if cache.declared.as_ref() != Some(&declared) {
            cache.declared = Some(declared);
            cache.table = None;
        }
        if let Some(table) = &cache.table {
            return Arc::clone(table);
        }
        let used = cache.used.as_ref().map_or(&[][..], |u| &u.namespaces[..]);
        let table = Arc::new(build(
            cache.declared.as_deref().unwrap_or_default(),
            &self.operator,
            used,
        ));
        cache.table = Some(Arc::clone(&table));
        table
    }
}

/// The table from its sources (see the module's documentation for the precedence).
fn build(declared: &[(String, String)], operator: &Prefixes, used: &[String]) -> Prefixes {
    let mut table = Prefixes::well_known();
    for (name, namespace) in declared {
        table.insert(name, namespace, PrefixSource::Declared);
    }
    for (name, namespace) in operator.entries() {
        table.insert(name, namespace, PrefixSource::Operator);
    }
    // Last, so that only namespaces nobody named get a made-up name, and never one taken.
    for namespace in used {
        table.name_namespace(namespace);
    }
    table
}

/// The namespaces of the store's most used predicates and classes, most used first (weighed
/// by their distinct subjects), at most `limit`.
pub fn most_used_namespaces(reader: &Reader<'_>, limit: usize) -> Result<Vec<String>, StoreError> {
    let mut terms = reader.distinct_counts(Distinct::PredicateSubjects)?;
    terms.extend(reader.distinct_counts(Distinct::ClassSubjects)?);
    terms.sort_unstable_by_key(|&(_, count)| std::cmp::Reverse(count));
    terms.truncate(TERMS_COUNTED);
    let mut weights: FxHashMap<String, u64> = FxHashMap::default();
    for (id, count) in terms {
        if let Term::NamedNode(iri) = reader.term(id)? {
            if let Some(namespace) = namespace_of(iri.as_str()) {
                *weights.entry(namespace.to_owned()).or_default() += count;
            }
        }
    }
    let mut ranked: Vec<(String, u64)> = weights.into_iter().collect();
    ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(ranked.into_iter().take(limit).map(|(ns, _)| ns).collect())
}

/// Records the prefixes a committed request declared. A failure is logged, not answered:
/// the request's data is in.
pub fn record_declared(store: &Store, declared: impl IntoIterator<Item = (String, String)>) {
    let declared: Vec<(String, String)> = declared.into_iter().collect();
    if declared.is_empty() {
        return;
    }
    if let Err(error) = store.record_prefixes(&declared) {
        tracing::warn!(%error, "cannot record the declared prefixes");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_over_declared_over_well_known_over_made_up() {
        let declared = vec![
            ("foo".to_owned(), "http://example.org/foo#".to_owned()),
            ("dc".to_owned(), "http://example.org/dc/".to_owned()),
            ("mine".to_owned(), "http://example.org/declared/".to_owned()),
        ];
        let operator =
            Prefixes::new().with("mine", "http://example.org/mine/", PrefixSource::Operator);
        let used = vec![
            "http://example.org/foo#".to_owned(),
            "http://stardog.com/tutorial/".to_owned(),
            "http://example.org/x/dc/".to_owned(),
        ];
        let table = build(&declared, &operator, &used);
        assert_eq!(table.namespace("foo"), Some("http://example.org/foo#"));
        assert_eq!(table.namespace("dc"), Some("http://example.org/dc/"));
        assert_eq!(table.namespace("mine"), Some("http://example.org/mine/"));
        assert_eq!(
            table.namespace("tutorial"),
            Some("http://stardog.com/tutorial/")
        );
        // A made-up name never takes one already given.
        assert_eq!(table.namespace("dc2"), Some("http://example.org/x/dc/"));
        assert_eq!(table.source("foo"), Some(PrefixSource::Declared));
        assert_eq!(table.short("http://example.org/foo#bar"), "foo:bar");
    }
}
