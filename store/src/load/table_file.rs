//! The SST files a bulk load writes for one table, and what the final merge needs to know of
//! them: whether a file is in the store's own format, and then which keys it spans.
//!
//! A load of several chunks writes most of its files for the merge at its end (LZ4, to be
//! read once and rewritten; see `merge`), and the index orders no later chunk reads back as
//! sorted runs of keys (see `quad_run`), and the counters of a load into an empty store as
//! runs of counts (see `counter_run`). A file in the store's own format (compressed for
//! the last level) can instead be taken as it is, when no other file of its table has a key
//! within its range: `id2term`'s files, whose ids follow the last chunk's, and the `spog`
//! files of the subjects a chunk minted (see `IngestBatch::write_by_age`).

use crate::encoding::TermId;
use crate::error::StoreError;
use crate::kv::{chunk_file_options, ingest_options, StoreOptions, Table};
use rocksdb::{Options, SstFileWriter};
use std::path::{Path, PathBuf};

/// One file written for a table.
pub(super) struct TableFile {
    pub(super) table: Table,
    pub(super) path: PathBuf,
    pub(super) format: FileFormat,
}

/// What a load's file is, which decides how the final merge treats it.
pub(super) enum FileFormat {
    /// An SST file written for the merge (LZ4), always merged.
    ChunkSst,
    /// An SST file in the store's own format, holding the keys of a range: taken as it is
    /// unless another file has a key within the range.
    Final(KeyRange),
    /// A sorted run of quad index keys (see `quad_run`), always merged.
    QuadRun,
    /// A sorted run of a chunk's counts (see `counter_run`), always summed by the merge.
    CounterRun,
}

impl FileFormat {
    /// Whether the merge rewrites every file of this format.
    pub(super) fn is_always_merged(&self) -> bool {
        !matches!(self, Self::Final(_))
    }

    /// Whether the file is an SST file (which a database can take), not a run of ours.
    pub(super) fn is_sst(&self) -> bool {
        matches!(self, Self::ChunkSst | Self::Final(_))
    }
}

/// The first and last key of a file, both included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KeyRange {
    pub(super) first: Vec<u8>,
    pub(super) last: Vec<u8>,
}

impl KeyRange {
    /// Whether `key` lies within the range.
    pub(super) fn contains(&self, key: &[u8]) -> bool {
        self.first.as_slice() <= key && key <= self.last.as_slice()
    }
}

/// An SST file being written, which remembers its key range when it is in the store's own
/// format.
pub(super) struct FileWriter<'a> {
    table: Table,
    index: usize,
    path: PathBuf,
    writer: SstFileWriter<'a>,
    /// The keys written so far, kept for a file in the store's own format only.
    range: Option<KeyRange>,
    is_final: bool,
    /// Entries written so far.
    puts: u64,
}

/// The options of a load's file of `table`: the store's own (compressed for the last level)
/// when `is_final`, else a chunk file's, to be merged.
pub(super) fn file_options(
    table: Table,
    store: &StoreOptions,
    is_final: bool,
) -> Result<Options, StoreError> {
    if is_final {
        ingest_options(table, store)
    } else {
        chunk_file_options(table, store)
    }
}

/// How many entries go into a file between two checks of its size (a check at every entry
/// cost a twentieth of a load's final merge).
const SIZE_CHECK_PUTS: u64 = 1024;

/// Whether `writer`, holding `puts` entries, has reached `bytes`; asked of RocksDB only
/// every [`SIZE_CHECK_PUTS`] entries.
pub(super) fn has_reached(writer: &SstFileWriter<'_>, puts: u64, bytes: u64) -> bool {
    puts > 0 && puts.is_multiple_of(SIZE_CHECK_PUTS) && writer.file_size() >= bytes
}

impl<'a> FileWriter<'a> {
    /// Creates the file at `path`, the load's `index`th; `is_final` says that `options` are
    /// the store's own for the table (see `kv::ingest_options`) rather than a chunk file's.
    pub(super) fn create(
        table: Table,
        index: usize,
        path: &Path,
        options: &'a Options,
        is_final: bool,
    ) -> Result<Self, StoreError> {
        let writer = SstFileWriter::create(options);
        writer.open(path)?;
        Ok(Self {
            table,
            index,
            path: path.to_owned(),
            writer,
            range: None,
            is_final,
            puts: 0,
        })
    }

    /// The file's number among the load's files (the order they were begun in).
    pub(super) fn index(&self) -> usize {
        self.index
    }

    /// Whether the file has reached `bytes` (see [`has_reached`]).
    pub(super) fn is_full(&self, bytes: u64) -> bool {
        has_reached(&self.writer, self.puts, bytes)
    }

    /// Adds an entry; keys must come in strictly increasing order.
    pub(super) fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.writer.put(key, value)?;
        self.puts += 1;
        if self.is_final {
            match &mut self.range {
                Some(range) => {
                    range.last.clear();
                    range.last.extend_from_slice(key);
                }
                None => {
                    self.range = Some(KeyRange {
                        first: key.to_vec(),
                        last: key.to_vec(),
                    })
                }
            }
        }
        Ok(())
    }

    /// Finishes the file, or removes it when it holds nothing.
    pub(super) fn finish(mut self) -> Result<Option<TableFile>, StoreError> {
        if self.puts == 0 {
            drop(self.writer);
            let _ = std::fs::remove_file(&self.path);
            return Ok(None);
        }
        self.writer.finish()?;
        Ok(Some(TableFile {
            table: self.table,
            path: self.path,
            format: match self.range {
                Some(range) => FileFormat::Final(range),
                None => FileFormat::ChunkSst,
            },
        }))
    }
}

/// The term a key begins with: every quad index key, and the keys of the term counters.
pub(super) fn leading_term(key: &[u8]) -> Option<TermId> {
    let bytes: [u8; 8] = key.get(..8)?.try_into().ok()?;
    Some(TermId::from_be_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_its_ends_and_what_lies_between() {
        let range = KeyRange {
            first: vec![2, 0],
            last: vec![4],
        };
        assert!(range.contains(&[2, 0]));
        assert!(range.contains(&[3, 9, 9]));
        assert!(range.contains(&[4]));
        assert!(!range.contains(&[2]));
        assert!(!range.contains(&[4, 0]));
    }
}
