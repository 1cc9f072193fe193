//! The term dictionary: `TermId` ⇄ term bytes.
//!
//! Short terms are keyed in `term2id` by their own bytes; terms longer than
//! [`MAX_DIRECT_KEY`] by a 128-bit hash, whose value lists every id with that hash so that a
//! collision costs an extra comparison and never merges two terms.

use crate::encoding::{decode_term_bytes, TermId};
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use oxrdf::Term;
use rocksdb::{WriteBatch, DB};
use xxhash_rust::xxh3::xxh3_128;

/// Terms up to this many bytes are their own `term2id` key.
pub(crate) const MAX_DIRECT_KEY: usize = 64;
const HASHED_KEY_TAG: u8 = 0xFF;

/// The `term2id` key of a term, from its dictionary bytes.
pub(crate) fn lookup_key(term_bytes: &[u8]) -> Vec<u8> {
    if term_bytes.len() <= MAX_DIRECT_KEY {
        term_bytes.to_vec()
    } else {
        let mut key = Vec::with_capacity(17);
        key.push(HASHED_KEY_TAG);
        key.extend_from_slice(&xxh3_128(term_bytes).to_be_bytes());
        key
    }
}

/// Whether the key holds a hash (its value may list several ids to check).
pub(crate) fn is_hashed_key(key: &[u8]) -> bool {
    key.first() == Some(&HASHED_KEY_TAG)
}

/// Finds the id of a dictionary term from its bytes, reading tables through `get` (a
/// snapshot for readers, the latest state for the writer, which holds the writer lock).
pub(crate) fn find_id(
    bytes: &[u8],
    mut get: impl FnMut(Table, &[u8]) -> Result<Option<Vec<u8>>, StoreError>,
) -> Result<Option<TermId>, StoreError> {
    let key = lookup_key(bytes);
    let Some(value) = get(Table::TermToId, &key)? else {
        return Ok(None);
    };
    let ids = decode_ids(&value)?;
    if !is_hashed_key(&key) {
        return Ok(ids.first().copied());
    }
    for id in ids {
        if get(Table::IdToTerm, &id.to_be_bytes())?.as_deref() == Some(bytes) {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Reads the ids of a `term2id` value.
pub(crate) fn decode_ids(value: &[u8]) -> Result<Vec<TermId>, CorruptionError> {
    if value.is_empty() || !value.len().is_multiple_of(8) {
        return Err(CorruptionError::msg("term2id value of the wrong length"));
    }
    Ok(value
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0; 8];
            b.copy_from_slice(c);
            TermId::from_be_bytes(b)
        })
        .collect())
}

/// Writes a list of ids as a `term2id` value.
pub(crate) fn encode_ids(ids: &[TermId]) -> Vec<u8> {
    ids.iter().flat_map(|id| id.to_be_bytes()).collect()
}

/// Decodes an `id2term` value.
pub(crate) fn decode_term(id: TermId, bytes: &[u8]) -> Result<Term, StoreError> {
    decode_term_bytes(bytes).ok_or_else(|| {
        CorruptionError::msg(format!("undecodable dictionary entry for {id:?}")).into()
    })
}

/// Fills `table` with the keys `keys_of` gives for every dictionary entry (term bytes, id),
/// with empty values: how a store of an older format gains a table derived from its
/// dictionary (`hash_iris`, `iri_index`). Writes in batches of 100,000 keys.
pub(crate) fn fill_from_dictionary(
    db: &DB,
    table: Table,
    keys_of: impl Fn(&[u8], TermId) -> Vec<Vec<u8>>,
) -> Result<(), StoreError> {
    let (Some(dictionary), Some(target)) = (
        db.cf_handle(Table::IdToTerm.name()),
        db.cf_handle(table.name()),
    ) else {
        return Err(CorruptionError::msg("missing dictionary tables").into());
    };
    let mut iter = db.raw_iterator_cf(dictionary);
    iter.seek_to_first();
    let mut batch = WriteBatch::default();
    while let (true, Some(id), Some(bytes)) = (iter.valid(), iter.key(), iter.value()) {
        let id = <[u8; 8]>::try_from(id)
            .map(TermId::from_be_bytes)
            .map_err(|_| CorruptionError::msg("id2term key of the wrong length"))?;
        for key in keys_of(bytes, id) {
            batch.put_cf(target, key, []);
        }
        if batch.len() >= 100_000 {
            db.write(std::mem::take(&mut batch))?;
        }
        iter.next();
    }
    iter.status()?;
    db.write(batch)?;
    Ok(())
}
