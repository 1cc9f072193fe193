//! The distinct (predicate, object) pairs of `posg` whose object is an entity, noted by a
//! bulk load as it writes `posg` (see `load::merge`), for the recount that follows it.
//!
//! The distinct counts' pass over `posg` (see `rebuild`) reads every key of the index only to
//! find these pairs, and checks each pair's object against the subjects. A load of several
//! chunks into an empty store merges every `posg` key in order anyway: noting the pairs there
//! spares the recount its second read of the index (7 s of two cores at 100 M quads), and
//! leaves it the pairs, far fewer than the keys.

use super::is_entity;
use crate::encoding::TermId;
use crate::error::{CorruptionError, StoreError};
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

/// Bytes of a pair: the predicate's and the object's ids, as in a `posg` key.
const PAIR_BYTES: usize = 16;

/// The pairs of one `posg` being written, in key order.
pub(crate) struct ObjectPairsWriter {
    path: PathBuf,
    out: BufWriter<File>,
    last: Option<[u8; PAIR_BYTES]>,
}

impl ObjectPairsWriter {
    /// Creates the file of pairs at `path`.
    pub(crate) fn create(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 20, File::create(path)?),
            last: None,
        })
    }

    /// Notes the next `posg` key (keys come in increasing order).
    pub(crate) fn note(&mut self, posg_key: &[u8]) -> Result<(), StoreError> {
        let pair: [u8; PAIR_BYTES] = posg_key
            .get(..PAIR_BYTES)
            .and_then(|p| p.try_into().ok())
            .ok_or_else(|| CorruptionError::msg("a posg key shorter than two ids"))?;
        if self.last == Some(pair) {
            return Ok(());
        }
        self.last = Some(pair);
        if is_entity(object_of(&pair)) {
            self.out.write_all(&pair)?;
        }
        Ok(())
    }

    /// Finishes the file; gives its path.
    pub(crate) fn finish(self) -> Result<PathBuf, StoreError> {
        // Not synced: after a crash the counts are recomputed from the indexes.
        self.out.into_inner().map_err(|e| e.into_error())?;
        Ok(self.path)
    }
}

fn object_of(pair: &[u8; PAIR_BYTES]) -> TermId {
    let mut object = [0; 8];
    object.copy_from_slice(&pair[8..]);
    TermId::from_be_bytes(object)
}

/// Gives `visit` each pair of the file at `path` (predicate, object), in `posg` order.
pub(super) fn read_pairs(
    path: &Path,
    mut visit: impl FnMut(TermId, TermId),
) -> Result<(), StoreError> {
    let mut input = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut pair = [0u8; PAIR_BYTES];
    loop {
        match input.read_exact(&mut pair) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e.into()),
        }
        let mut predicate = [0; 8];
        predicate.copy_from_slice(&pair[..8]);
        visit(TermId::from_be_bytes(predicate), object_of(&pair));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{EncodedQuad, Permutation, TermKind};

    #[test]
    fn each_pair_with_an_entity_object_is_noted_once() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let iri = |n| TermId::new(TermKind::Iri, n);
        let literal = TermId::new(TermKind::Literal, 9);
        let quads = [
            EncodedQuad::new(iri(1), iri(2), iri(3), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(iri(4), iri(2), iri(3), TermId::DEFAULT_GRAPH),
            EncodedQuad::new(iri(4), iri(2), literal, TermId::DEFAULT_GRAPH),
            EncodedQuad::new(iri(1), iri(5), iri(3), TermId::DEFAULT_GRAPH),
        ];
        let mut keys: Vec<_> = quads.iter().map(|q| Permutation::Posg.key(q)).collect();
        keys.sort_unstable();
        let mut writer = ObjectPairsWriter::create(&dir.path().join("pairs")).expect("create");
        for key in &keys {
            writer.note(key).expect("note");
        }
        let path = writer.finish().expect("finish");
        let mut read = Vec::new();
        read_pairs(&path, |p, o| read.push((p, o))).expect("read");
        assert_eq!(read, [(iri(2), iri(3)), (iri(5), iri(3))]);
    }
}
