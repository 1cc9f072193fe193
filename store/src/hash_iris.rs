//! Hash IRIs by the document they belong to.
//!
//! `http://example.org/vocab#Person` and `http://example.org/vocab#knows` are described by
//! the document `http://example.org/vocab`: a client that dereferences either asks the server
//! for the document, without the fragment. The `hash_iris` table keys every dictionary IRI
//! with a `#` by a hash of its document part and its id, so the hash IRIs of a document are
//! one prefix scan; the caller checks each IRI, since two documents may share a hash.

use crate::encoding::TermId;
use crate::error::StoreError;
use crate::kv::Table;
use rocksdb::DB;
use xxhash_rust::xxh3::xxh3_64;

/// Length of a key's document hash: the prefix of a scan.
pub(crate) const PREFIX_LEN: usize = 8;

/// The document part (before the first `#`) of an IRI's dictionary bytes, if it has one.
pub(crate) fn document_of(term_bytes: &[u8]) -> Option<&[u8]> {
    let iri = term_bytes.strip_prefix(b"I")?;
    let hash = iri.iter().position(|b| *b == b'#')?;
    Some(&iri[..hash])
}

/// The scan prefix of a document's hash IRIs.
pub(crate) fn prefix(document: &[u8]) -> [u8; PREFIX_LEN] {
    xxh3_64(document).to_be_bytes()
}

/// The key of a hash IRI, from its document part and its id.
pub(crate) fn key(document: &[u8], id: TermId) -> [u8; PREFIX_LEN + 8] {
    let mut key = [0; PREFIX_LEN + 8];
    key[..PREFIX_LEN].copy_from_slice(&prefix(document));
    key[PREFIX_LEN..].copy_from_slice(&id.to_be_bytes());
    key
}

/// The key of a term if it is a hash IRI.
pub(crate) fn key_of(term_bytes: &[u8], id: TermId) -> Option<[u8; PREFIX_LEN + 8]> {
    document_of(term_bytes).map(|document| key(document, id))
}

/// Fills the table from the dictionary (upgrading a store of format 1).
pub(crate) fn fill_from_dictionary(db: &DB) -> Result<(), StoreError> {
    crate::dictionary::fill_from_dictionary(db, Table::HashIris, |bytes, id| {
        key_of(bytes, id).into_iter().map(|k| k.to_vec()).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TermKind;

    #[test]
    fn documents_of_iris() {
        assert_eq!(
            document_of(b"Ihttp://e.org/v#a"),
            Some(&b"http://e.org/v"[..])
        );
        assert_eq!(
            document_of(b"Ihttp://e.org/v#a#b"),
            Some(&b"http://e.org/v"[..])
        );
        assert_eq!(
            document_of(b"Ihttp://e.org/v#"),
            Some(&b"http://e.org/v"[..])
        );
        assert_eq!(document_of(b"Ihttp://e.org/v"), None);
        // Literals and blank nodes are never hash IRIs.
        assert_eq!(document_of(b"Sa#b"), None);
        assert_eq!(document_of(b"Ba#b"), None);
    }

    #[test]
    fn keys_of_one_document_share_the_prefix() {
        let a = key(b"http://e.org/v", TermId::new(TermKind::Iri, 1));
        let b = key(b"http://e.org/v", TermId::new(TermKind::Iri, 2));
        let other = key(b"http://e.org/w", TermId::new(TermKind::Iri, 1));
        assert_eq!(a[..PREFIX_LEN], b[..PREFIX_LEN]);
        assert_ne!(a[..PREFIX_LEN], other[..PREFIX_LEN]);
        assert!(a < b);
        assert_eq!(
            key_of(b"Ihttp://e.org/v#x", TermId::new(TermKind::Iri, 2)),
            Some(b)
        );
    }
}
