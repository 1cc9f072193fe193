//! IRIs found by their text rather than by id: the `#` IRIs of a document, and IRIs by
//! prefix or by the start of their local name (URI lookup and type-ahead).

use super::{decode_id_key, prefix_upper_bound, Reader};
use crate::encoding::TermId;
use crate::error::{CorruptionError, StoreError};
use crate::hash_iris;
use crate::iri_index;
use crate::kv::Table;
use oxrdf::Term;
use rocksdb::DBRawIterator;

impl<'a> Reader<'a> {
    /// The IRIs `{document}#…` of the store (what a client dereferencing any of them asks the
    /// server for), in IRI order; past `limit`, the first `limit` the dictionary gained.
    /// Committed state only.
    pub fn hash_iris(
        &self,
        document: &str,
        limit: usize,
    ) -> Result<Vec<(TermId, oxrdf::NamedNode)>, StoreError> {
        let mut iter =
            self.prefix_iterator(Table::HashIris, &hash_iris::prefix(document.as_bytes()));
        let mut out = Vec::new();
        while let (Some(key), true) = (iter.key(), out.len() < limit) {
            let id = decode_id_key(key.get(hash_iris::PREFIX_LEN..).unwrap_or_default())?;
            // Another document may share the hash: keep only this one's IRIs.
            if let Term::NamedNode(iri) = self.term(id)? {
                let is_ours = iri
                    .as_str()
                    .strip_prefix(document)
                    .is_some_and(|rest| rest.starts_with('#'));
                if is_ours {
                    out.push((id, iri));
                }
            }
            iter.next();
        }
        iter.status()?;
        out.sort_by(|a, b| a.1.cmp(&b.1));
        Ok(out)
    }

    /// The IRIs of the store that start with `start`, in IRI order, at most `limit`: one range
    /// scan of the IRI index (subjects, predicates, objects and graph names alike).
    /// Committed state only.
    pub fn iris_starting_with(
        &self,
        start: &str,
        limit: usize,
    ) -> Result<Vec<(TermId, oxrdf::NamedNode)>, StoreError> {
        let mut iter = self.range_iterator(Table::IriIndex, &iri_index::iri_prefix(start));
        let mut out = Vec::new();
        while let (Some(key), true) = (iter.key(), out.len() < limit) {
            let id = iri_index::id_of_key(key)?;
            let iri = key
                .get(1..key.len() - 8)
                .and_then(|b| std::str::from_utf8(b).ok())
                .ok_or_else(|| CorruptionError::msg("iri_index key is not an IRI"))?;
            out.push((id, oxrdf::NamedNode::new_unchecked(iri)));
            iter.next();
        }
        iter.status()?;
        Ok(out)
    }

    /// The IRIs of the store whose local name (after the last `#`, `/` or `:`) starts with
    /// `start`, ignoring case, in folded local-name order, at most `limit`: one range scan of
    /// the IRI index. Committed state only.
    pub fn iris_with_local_name_starting(
        &self,
        start: &str,
        limit: usize,
    ) -> Result<Vec<(TermId, oxrdf::NamedNode)>, StoreError> {
        let mut iter = self.range_iterator(Table::IriIndex, &iri_index::local_name_prefix(start));
        let mut ids = Vec::new();
        while let (Some(key), true) = (iter.key(), ids.len() < limit) {
            ids.push(iri_index::id_of_key(key)?);
            iter.next();
        }
        iter.status()?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Term::NamedNode(iri) = self.term(id)? {
                out.push((id, iri));
            }
        }
        Ok(out)
    }

    /// A total-order iterator over the keys of `table` that start with `prefix`.
    fn range_iterator(&self, table: Table, prefix: &[u8]) -> DBRawIterator<'a> {
        let mut iter = self.db.raw_iterator_cf_opt(
            self.cf(table),
            self.read_options(prefix_upper_bound(prefix)),
        );
        iter.seek(prefix);
        iter
    }
}
