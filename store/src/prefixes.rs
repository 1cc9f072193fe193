//! The prefixes declared in the data: `@prefix`/`PREFIX` lines of loaded Turtle and TriG files
//! and of SPARQL updates, kept in the `prefixes` table (prefix name → namespace IRI) so that
//! lookup, pages, the SPARQL editor and search can show and read CURIEs the publisher chose.
//!
//! The latest declaration of a name wins. Names and namespaces are checked loosely: a name is
//! at most 64 characters of letters, digits, `_`, `-` and `.` (or empty, the default prefix
//! `:`, which is not recorded), a namespace an absolute IRI of at most 1,024 bytes; anything
//! else is skipped, never an error of the load or update that declared it.

use crate::database::Database;
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use rocksdb::WriteBatch;

/// Longest prefix name recorded.
const MAX_NAME: usize = 64;
/// Longest namespace recorded.
const MAX_NAMESPACE: usize = 1024;

/// Whether a declaration is worth recording.
fn is_recordable(name: &str, namespace: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && namespace.len() <= MAX_NAMESPACE
        && oxiri::Iri::parse(namespace).is_ok()
}

/// The declarations worth recording, one per name (the latest), sorted by name: the entries
/// of the `prefixes` table they make.
pub(crate) fn entries(declarations: &[(String, String)]) -> Vec<(&str, &str)> {
    let mut latest: Vec<(&str, &str)> = Vec::new();
    for (name, namespace) in declarations.iter().rev() {
        if is_recordable(name, namespace) {
            latest.push((name, namespace));
        }
    }
    // Stable: of equal names, the latest declaration (first after the reversal) stays.
    latest.sort_by_key(|(name, _)| *name);
    latest.dedup_by_key(|(name, _)| *name);
    latest
}

/// Of `declarations`, the entries that would change the `prefixes` table (a name not yet
/// recorded, or bound to another namespace), by name: what a commit writes. A request that
/// repeats the prefixes already recorded (most updates do) then changes nothing, and moves no
/// commit sequence of its own.
pub(crate) fn changes(
    database: &Database,
    declarations: &[(String, String)],
) -> Result<Vec<(String, String)>, StoreError> {
    let cf = database.cf(Table::Prefixes);
    let mut out = Vec::new();
    for (name, namespace) in entries(declarations) {
        let stored = database.db().get_pinned_cf(cf, name.as_bytes())?;
        if stored.as_deref() != Some(namespace.as_bytes()) {
            out.push((name.to_owned(), namespace.to_owned()));
        }
    }
    Ok(out)
}

/// Puts the entries of [`changes`] into a commit's batch.
pub(crate) fn put(database: &Database, batch: &mut WriteBatch, changes: &[(String, String)]) {
    let cf = database.cf(Table::Prefixes);
    for (name, namespace) in changes {
        batch.put_cf(cf, name.as_bytes(), namespace.as_bytes());
    }
}

/// Every recorded declaration, by name.
pub(crate) fn declared(database: &Database) -> Result<Vec<(String, String)>, StoreError> {
    let mut iter = database.db().raw_iterator_cf(database.cf(Table::Prefixes));
    iter.seek_to_first();
    let mut out = Vec::new();
    while let (Some(key), Some(value)) = (iter.key(), iter.value()) {
        let text = |bytes: &[u8]| {
            String::from_utf8(bytes.to_vec())
                .map_err(|_| CorruptionError::msg("a prefix that is not UTF-8"))
        };
        out.push((text(key)?, text(value)?));
        iter.next();
    }
    iter.status()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plausible_declarations_are_recorded() {
        assert!(is_recordable("nmo", "http://nomisma.org/ontology#"));
        assert!(is_recordable("dc.terms", "http://purl.org/dc/terms/"));
        assert!(!is_recordable("", "http://example.org/"));
        assert!(!is_recordable("a b", "http://example.org/"));
        assert!(!is_recordable("ex", "not an iri"));
        assert!(!is_recordable(&"x".repeat(65), "http://example.org/"));
    }

    #[test]
    fn the_latest_declaration_of_a_name_wins() {
        let declared = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, i)| ((*n).to_owned(), (*i).to_owned()))
                .collect()
        };
        let declarations = declared(&[
            ("ex", "http://example.org/one/"),
            ("b", "http://example.org/b/"),
            ("ex", "http://example.org/two/"),
            ("bad name", "http://example.org/c/"),
        ]);
        assert_eq!(
            entries(&declarations),
            [
                ("b", "http://example.org/b/"),
                ("ex", "http://example.org/two/")
            ]
        );
    }
}
