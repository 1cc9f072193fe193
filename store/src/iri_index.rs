//! Every IRI of the store in sorted order, by its full text and by its local name.
//!
//! `term2id` is keyed by a term's bytes only up to 64 bytes (longer terms by a hash), so an
//! IRI prefix cannot be a range scan there. The `iri_index` table keys every dictionary IRI
//! twice, with empty values:
//!
//! - `I` + the IRI + its id: the IRIs starting with some text are one range scan, whatever
//!   the store's size (`http://nomisma.org/id/ath`, an expanded CURIE `skos:pref`);
//! - `L` + its local name folded to lower case + its id: the IRIs whose local name starts with
//!   some text (`preflabel` finds `skos:prefLabel`, `athe` finds `nm:athens`).
//!
//! Subjects, predicates, objects and graph names alike: every IRI the dictionary holds, which
//! is every IRI some quad uses (unused terms are reclaimed, and their entries with them). The
//! entries are written in the same batch as the dictionary entries, by transactions and bulk
//! loads, and filled from the dictionary when a store of an older format is opened.

use crate::encoding::TermId;
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use rocksdb::DB;

/// Tag of the keys by full IRI.
pub(crate) const BY_IRI: u8 = b'I';
/// Tag of the keys by folded local name.
pub(crate) const BY_LOCAL_NAME: u8 = b'L';

/// An IRI's local name: what follows its last `#`, `/` or `:` (not those of `scheme://`), if
/// anything does.
pub(crate) fn local_name(iri: &str) -> Option<&str> {
    let authority = iri.find("://").map_or(0, |i| i + 3);
    let start = iri.rfind(['#', '/', ':'])? + 1;
    (start > authority && start < iri.len()).then(|| &iri[start..])
}

/// Text folded for matching local names: lower case.
pub(crate) fn fold(text: &str) -> String {
    text.to_lowercase()
}

/// The scan prefix of the IRIs starting with `start`.
pub(crate) fn iri_prefix(start: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(start.len() + 1);
    key.push(BY_IRI);
    key.extend_from_slice(start.as_bytes());
    key
}

/// The scan prefix of the IRIs whose folded local name starts with `fold(start)`.
pub(crate) fn local_name_prefix(start: &str) -> Vec<u8> {
    let mut key = vec![BY_LOCAL_NAME];
    key.extend_from_slice(fold(start).as_bytes());
    key
}

/// The index keys of a dictionary term (none unless it is an IRI).
pub(crate) fn keys_of(term_bytes: &[u8], id: TermId) -> Vec<Vec<u8>> {
    let Some(iri) = term_bytes
        .strip_prefix(b"I")
        .and_then(|b| std::str::from_utf8(b).ok())
    else {
        return Vec::new();
    };
    let mut by_iri = iri_prefix(iri);
    by_iri.extend_from_slice(&id.to_be_bytes());
    let mut keys = vec![by_iri];
    if let Some(local) = local_name(iri) {
        let mut by_local = local_name_prefix(local);
        by_local.extend_from_slice(&id.to_be_bytes());
        keys.push(by_local);
    }
    keys
}

/// The id at the end of an index key.
pub(crate) fn id_of_key(key: &[u8]) -> Result<TermId, StoreError> {
    key.len()
        .checked_sub(8)
        .and_then(|start| <[u8; 8]>::try_from(&key[start..]).ok())
        .map(TermId::from_be_bytes)
        .ok_or_else(|| CorruptionError::msg("iri_index key without an id").into())
}

/// Fills the table from the dictionary (upgrading a store of format 3 or older).
pub(crate) fn fill_from_dictionary(db: &DB) -> Result<(), StoreError> {
    crate::dictionary::fill_from_dictionary(db, Table::IriIndex, keys_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;

    #[test]
    fn local_names_of_iris() {
        assert_eq!(
            local_name("http://www.w3.org/2004/02/skos/core#prefLabel"),
            Some("prefLabel")
        );
        assert_eq!(local_name("http://nomisma.org/id/athens"), Some("athens"));
        assert_eq!(local_name("urn:isbn:0451450523"), Some("0451450523"));
        assert_eq!(local_name("http://example.org/"), None);
        assert_eq!(local_name("http://example.org"), None);
    }

    #[test]
    fn keys_sort_by_iri_and_by_folded_local_name() {
        let id = TermId::new(TermKind::Iri, 7);
        let keys = keys_of(b"Ihttp://e.org/v#Athens", id);
        assert_eq!(keys.len(), 2);
        assert!(keys[0].starts_with(&iri_prefix("http://e.org/v#Ath")));
        assert!(keys[1].starts_with(&local_name_prefix("ATHE")));
        assert_eq!(id_of_key(&keys[0]).unwrap(), id);
        assert_eq!(id_of_key(&keys[1]).unwrap(), id);
        assert!(keys_of(b"Sliteral", id).is_empty());
        assert!(keys_of(b"Bblank", id).is_empty());
    }
}
