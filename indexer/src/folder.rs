//! The index folder as tantivy reads it: mapped for searches, read in order for merges.
//!
//! tantivy's `MmapDirectory` maps every file it reads, and the pages a process touched in a
//! mapping stay in its resident memory until the mapping goes. A merge reads every segment it
//! merges from end to end, so merging a full build's segments into one kept the whole index
//! resident: at 100 M quads 2.4 GB of segments on top of the loader's own memory (4.69 GiB
//! peak RSS for `lodestone load`). [`IndexFolder`] gives files that tantivy's merge threads
//! open a [`StreamedFile`] instead, read with `pread` through a window that moves forward, so
//! a merge holds a few windows per segment rather than the segments; everything else (the
//! searches' reads, every write, the locks) is the `MmapDirectory`'s.

use std::fmt;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback,
    WatchHandle, WritePtr,
};
use tantivy::HasLen;

/// Bytes read at once by a forward read that the window does not hold: few system calls per
/// megabyte, and a merge of 44 segments with a window or two open in each holds a few MB.
const WINDOW: usize = 256 * 1024;

/// Name prefix of tantivy's merge threads (`merge_thread_{i}` in its `SegmentUpdater`), the
/// only threads that read segments from end to end. A test checks a merge still reads through
/// [`StreamedFile`]s, so that a tantivy that names them otherwise is noticed.
const MERGE_THREAD_PREFIX: &str = "merge_thread";

/// The text index's folder: an `MmapDirectory` whose files opened by a merge are streamed.
#[derive(Clone)]
pub(crate) struct IndexFolder {
    root: PathBuf,
    mapped: MmapDirectory,
    /// Files opened as [`StreamedFile`]s so far (for the tests and the logs).
    streamed: Arc<AtomicU64>,
}

impl fmt::Debug for IndexFolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IndexFolder")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl IndexFolder {
    /// Opens the existing folder `path`.
    pub(crate) fn open(path: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(Self {
            root: path.to_path_buf(),
            mapped: MmapDirectory::open(path)?,
            streamed: Arc::default(),
        })
    }

    /// Files opened for merges since the folder was opened.
    #[cfg(test)]
    pub(crate) fn streamed_files(&self) -> u64 {
        self.streamed.load(Ordering::Relaxed)
    }

    fn open_streamed(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let full_path = self.root.join(path);
        let file = File::open(&full_path).map_err(|error| match error.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_path_buf()),
            _ => OpenReadError::wrap_io_error(error, full_path.clone()),
        })?;
        let len = file
            .metadata()
            .map_err(|error| OpenReadError::wrap_io_error(error, full_path.clone()))?
            .len();
        let len = usize::try_from(len).map_err(|_| {
            OpenReadError::wrap_io_error(io::Error::other("file too large"), full_path)
        })?;
        self.streamed.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(StreamedFile::new(file, len)))
    }
}

impl Directory for IndexFolder {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let merging = std::thread::current()
            .name()
            .is_some_and(|name| name.starts_with(MERGE_THREAD_PREFIX));
        if merging {
            self.open_streamed(path)
        } else {
            self.mapped.get_file_handle(path)
        }
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.mapped.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.mapped.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.mapped.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.mapped.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.mapped.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.mapped.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.mapped.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.mapped.watch(watch_callback)
    }
}

/// A file read with `pread` through a window: a read outside the window reads [`WINDOW`]
/// bytes from where it starts, so reading a file in order costs a system call per window; a
/// read larger than the window reads just what it asks. (A file's first reads are often its
/// footer, at the end: the window then moves back to where the reading in order starts.)
struct StreamedFile {
    file: File,
    len: usize,
    window: Mutex<Window>,
}

/// The bytes of the file from `start` on that the last forward read brought in.
struct Window {
    start: usize,
    bytes: OwnedBytes,
}

impl StreamedFile {
    fn new(file: File, len: usize) -> Self {
        Self {
            file,
            len,
            window: Mutex::new(Window {
                start: 0,
                bytes: OwnedBytes::empty(),
            }),
        }
    }

    fn read_exactly(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        let mut buffer = vec![0; range.len()];
        self.file.read_exact_at(&mut buffer, range.start as u64)?;
        Ok(OwnedBytes::new(buffer))
    }
}

impl fmt::Debug for StreamedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamedFile")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl HasLen for StreamedFile {
    fn len(&self) -> usize {
        self.len
    }
}

impl FileHandle for StreamedFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.end > self.len || range.start > range.end {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("read of {range:?} in a file of {} bytes", self.len),
            ));
        }
        if range.is_empty() {
            return Ok(OwnedBytes::empty());
        }
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let held = window.start..window.start + window.bytes.len();
        if held.start <= range.start && range.end <= held.end {
            return Ok(window
                .bytes
                .slice(range.start - held.start..range.end - held.start));
        }
        if range.len() >= WINDOW {
            return self.read_exactly(range);
        }
        let end = (range.start + WINDOW).min(self.len);
        let bytes = self.read_exactly(range.start..end)?;
        let answer = bytes.slice(0..range.len());
        *window = Window {
            start: range.start,
            bytes,
        };
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> StreamedFile {
        let mut file = tempfile::tempfile().expect("temporary file");
        file.write_all(bytes).expect("written");
        StreamedFile::new(file, bytes.len())
    }

    #[test]
    fn a_merge_reads_the_segments_through_streamed_files() {
        use tantivy::schema::{Schema, STORED, TEXT};
        use tantivy::{doc, Index, IndexWriter, TantivyDocument};
        let dir = tempfile::tempdir().expect("temporary folder");
        let folder = IndexFolder::open(dir.path()).expect("opened");
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT | STORED);
        let index =
            Index::create(folder.clone(), schema.build(), Default::default()).expect("created");
        let mut writer: IndexWriter<TantivyDocument> = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        for part in 0..3 {
            for i in 0..200 {
                writer
                    .add_document(doc!(text => format!("word{i} part{part} common")))
                    .expect("added");
            }
            writer.commit().expect("committed");
        }
        let segments = index.searchable_segment_ids().expect("segments");
        assert_eq!(segments.len(), 3);
        assert_eq!(folder.streamed_files(), 0, "nothing merged yet");
        writer.merge(&segments).wait().expect("merged");
        assert!(folder.streamed_files() > 0, "the merge read mapped files");
        let reader = index.reader().expect("reader");
        let searcher = reader.searcher();
        assert_eq!(searcher.segment_readers().len(), 1);
        let common = tantivy::Term::from_field_text(text, "common");
        assert_eq!(searcher.doc_freq(&common).expect("counted"), 600);
        let part1 = tantivy::Term::from_field_text(text, "part1");
        assert_eq!(searcher.doc_freq(&part1).expect("counted"), 200);
    }

    #[test]
    fn reads_give_the_bytes_asked_for_in_any_order() {
        let content: Vec<u8> = (0..=250u8).cycle().take(3 * WINDOW + 17).collect();
        let file = file_of(&content);
        let ranges = [
            0..10,
            5..20,
            WINDOW - 3..WINDOW + 3,
            2 * WINDOW..2 * WINDOW + 1,
            100..200,
            0..content.len(),
            3 * WINDOW..3 * WINDOW + 17,
            7..7,
        ];
        for range in ranges {
            let bytes = file.read_bytes(range.clone()).expect("read");
            assert_eq!(bytes.as_slice(), &content[range.clone()], "{range:?}");
        }
        assert!(file.read_bytes(0..content.len() + 1).is_err());
    }
}
