//! The server's one prefix table: what every surface (URI lookup, entity pages, the SPARQL
//! editor, fct `shortform`, search) writes IRIs with and reads CURIEs with.
//!
//! Its entries come from four sources; where two give one name different namespaces, the
//! higher one wins (`lodestone_vocab::PrefixSource`):
//!
//! 1. the operator's file (`--prefixes FILE`), highest;
//! 2. the prefixes declared by the data: `@prefix`/`PREFIX` of loaded Turtle, TriG and N3,
//!    `xmlns:` of RDF/XML, `PREFIX` of SPARQL updates, as the store recorded them
//!    by the commits that declared them (`Transaction::declare_prefixes`: the latest
//!    declaration of a name wins);
//! 3. the bundled well-known lists (the RDFa 1.1 initial context and prefix.cc's names);
//! 4. the namespaces most used in the store (by the distinct subjects of its predicates and
//!    classes, from the statistics: no scan of the data) that none of the above names, under a
//!    name made up from their last path segment (`ns`, numbered if taken), lowest.
//!
//! The table is cached by the store's commit sequence: a request at the sequence the table
//! was built at reads nothing from the store (a mutex and an atomic load), so any thread may
//! ask for it, the async ones included. Declared prefixes are recorded by the commit of the
//! load, Graph Store request or update that declared them, which moves the sequence
//! (`Transaction::declare_prefixes`); the first request after it re-reads them (a few keys).
//! The most used namespaces are recounted on a background thread, at most every
//! [`USED_REFRESH`] and only after a commit, the table keeping the previous count meanwhile;
//! only the very first count (at server start, `AppState::new`) runs on the caller.

use lodestone_store::{Distinct, Reader, SequenceNumber, Store, StoreError};
use lodestone_vocab::prefixes::namespace_of;
use lodestone_vocab::{PrefixSource, Prefixes};
use oxrdf::Term;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, MutexGuard};
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
    cache: Arc<Mutex<Cache>>,
}

#[derive(Default)]
struct Cache {
    /// The commit the declared prefixes were read at.
    declared_at: Option<SequenceNumber>,
    declared: Vec<(String, String)>,
    used: Option<Used>,
    /// Whether a background count of the most used namespaces is running.
    counting: bool,
    table: Option<Arc<Prefixes>>,
}

/// What a built table stands for: it is reused while the key stays the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheKey {
    /// The commit the declared prefixes were read at.
    pub declared_at: SequenceNumber,
    /// The commit the most used namespaces were counted at.
    pub counted_at: SequenceNumber,
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
            cache: Arc::default(),
        }
    }

    /// The table for the store as it is now. A store that cannot be read leaves out what it
    /// could not read (logged): prefixes then fall back, nothing fails.
    pub fn of(&self, store: &Arc<Store>) -> Arc<Prefixes> {
        let sequence = store.sequence();
        let mut cache = lock(&self.cache);
        if cache.declared_at != Some(sequence) {
            match store.declared_prefixes() {
                Ok(declared) => {
                    if declared != cache.declared {
                        cache.declared = declared;
                        cache.table = None;
                    }
                    cache.declared_at = Some(sequence);
                }
                Err(error) => tracing::warn!(%error, "cannot read the declared prefixes"),
            }
            self.refresh_used(&mut cache, store, sequence);
        }
        if let Some(table) = &cache.table {
            return Arc::clone(table);
        }
        let used = cache.used.as_ref().map_or(&[][..], |u| &u.namespaces[..]);
        let table = Arc::new(build(&cache.declared, &self.operator, used));
        cache.table = Some(Arc::clone(&table));
        table
    }

    /// What the table [`PrefixTable::of`] last built or reused stands for (`None` before
    /// the first use).
    pub fn key(&self) -> Option<CacheKey> {
        let cache = lock(&self.cache);
        Some(CacheKey {
            declared_at: cache.declared_at?,
            counted_at: cache.used.as_ref()?.sequence,
        })
    }

    /// Counts the most used namespaces: now if they never were, else on a thread of its own
    /// when the last count is older than [`USED_REFRESH`] and commits came since.
    fn refresh_used(&self, cache: &mut Cache, store: &Arc<Store>, sequence: SequenceNumber) {
        let Some(used) = &cache.used else {
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
            return;
        };
        if cache.counting || used.sequence == sequence || used.at.elapsed() < USED_REFRESH {
            return;
        }
        cache.counting = true;
        let (shared, store) = (Arc::clone(&self.cache), Arc::clone(store));
        let spawned = std::thread::Builder::new()
            .name("prefix-count".into())
            .spawn(move || {
                let counted = most_used_namespaces(&store.reader(), MOST_USED);
                let mut cache = lock(&shared);
                cache.counting = false;
                match counted {
                    Ok(namespaces) => {
                        let changed = cache
                            .used
                            .as_ref()
                            .is_none_or(|old| old.namespaces != namespaces);
                        cache.used = Some(Used {
                            sequence,
                            at: Instant::now(),
                            namespaces,
                        });
                        if changed {
                            cache.table = None;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "cannot count the most used namespaces"),
                }
            });
        if let Err(error) = spawned {
            cache.counting = false;
            tracing::warn!(%error, "cannot start counting the most used namespaces");
        }
    }
}

fn lock(cache: &Mutex<Cache>) -> MutexGuard<'_, Cache> {
    cache.lock().unwrap_or_else(|e| e.into_inner())
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

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::model::{GraphNameRef, NamedNodeRef, QuadRef};
    use lodestone_store::StoreOptions;

    fn declare(store: &Store, name: &str, namespace: &str) -> SequenceNumber {
        let mut transaction = store.transaction().expect("transaction");
        transaction.declare_prefixes([(name.to_owned(), namespace.to_owned())]);
        transaction.commit().expect("commit")
    }

    #[test]
    fn the_table_is_reused_until_a_commit_changes_the_declared_prefixes() {
        let dir = tempfile::tempdir().expect("dir");
        let store = Arc::new(Store::open(dir.path(), StoreOptions::default()).expect("store"));
        let ex = |s: &'static str| NamedNodeRef::new(s).expect("iri");
        let mut transaction = store.transaction().expect("transaction");
        transaction
            .insert(QuadRef::new(
                ex("http://example.org/data/a"),
                ex("http://example.org/data/p"),
                ex("http://example.org/data/b"),
                GraphNameRef::DefaultGraph,
            ))
            .expect("insert");
        transaction.commit().expect("commit");
        let table = PrefixTable::new(Prefixes::new());
        let first = table.of(&store);
        let key = table.key().expect("built");
        assert_eq!(key.declared_at, store.sequence());
        assert_eq!(key.counted_at, store.sequence());
        // No commit since: the same table, nothing rebuilt.
        assert!(Arc::ptr_eq(&first, &table.of(&store)));
        assert_eq!(table.key(), Some(key));
        assert_eq!(first.namespace("zz"), None);

        // A declaration alone is a commit: the key moves and the next table has it.
        let declared = declare(&store, "zz", "http://example.org/zz#");
        assert!(declared > key.declared_at);
        let second = table.of(&store);
        assert_eq!(second.namespace("zz"), Some("http://example.org/zz#"));
        assert_eq!(table.key().map(|k| k.declared_at), Some(declared));

        // Declaring it again changes nothing: no commit, the table is reused.
        assert_eq!(declare(&store, "zz", "http://example.org/zz#"), declared);
        assert!(Arc::ptr_eq(&second, &table.of(&store)));
        // Another namespace for the name is a change.
        let moved = declare(&store, "zz", "http://example.org/other#");
        assert!(moved > declared);
        assert_eq!(
            table.of(&store).namespace("zz"),
            Some("http://example.org/other#")
        );
    }

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
