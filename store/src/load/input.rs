//! Input files: decompression and syntax detection.

use crate::error::StoreError;
use oxrdfio::RdfFormat;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

/// An RDF source: a file (possibly compressed) or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file on disk.
    File(PathBuf),
    /// Standard input (`-` on the command line).
    Stdin,
}

impl Input {
    /// `-` is standard input, anything else a path.
    pub fn from_arg(arg: &str) -> Self {
        if arg == "-" {
            Self::Stdin
        } else {
            Self::File(PathBuf::from(arg))
        }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Self::File(p) => p.display().to_string(),
            Self::Stdin => "stdin".to_owned(),
        }
    }

    /// The syntax told by the file name (after any compression suffix).
    pub fn format(&self) -> Option<RdfFormat> {
        match self {
            Self::File(p) => format_from_path(p),
            Self::Stdin => None,
        }
    }

    /// Size on disk, if known (compressed size for compressed files).
    pub fn size(&self) -> Option<u64> {
        match self {
            Self::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Self::Stdin => None,
        }
    }

    /// Opens the input, decompressing by suffix. The counter receives the number of
    /// (compressed) bytes read so far, for progress reporting.
    pub fn open(
        &self,
        counter: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    ) -> Result<Box<dyn Read + Send>, StoreError> {
        let raw: Box<dyn Read + Send> = match self {
            Self::File(path) => {
                let file = File::open(path).map_err(|e| {
                    StoreError::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
                })?;
                Box::new(ReadOnce::new(file, DROP_BEHIND_BYTES))
            }
            Self::Stdin => Box::new(io::stdin()),
        };
        let raw: Box<dyn Read + Send> = match counter {
            Some(counter) => Box::new(CountingReader {
                inner: raw,
                counter,
            }),
            None => raw,
        };
        let raw = BufReader::with_capacity(1 << 20, raw);
        let compression = match self {
            Self::File(path) => compression_of(path),
            Self::Stdin => None,
        };
        Ok(match compression {
            Some(Compression::Gzip) => Box::new(BufReader::with_capacity(
                1 << 20,
                flate2::read::MultiGzDecoder::new(raw),
            )),
            Some(Compression::Bzip2) => Box::new(BufReader::with_capacity(
                1 << 20,
                bzip2::read::MultiBzDecoder::new(raw),
            )),
            Some(Compression::Zstd) => Box::new(BufReader::with_capacity(
                1 << 20,
                zstd::stream::read::Decoder::with_buffer(raw)?,
            )),
            None => Box::new(raw),
        })
    }
}

/// How much of a file is read before the pages behind the reader leave the page cache.
const DROP_BEHIND_BYTES: u64 = 64 << 20;

/// A file read once from start to end, as a load reads its dump: the pages it has read are
/// dropped from the kernel's page cache behind it. A dump larger than the free memory
/// otherwise pushes out of the cache what other processes use (a running server's tables)
/// for pages never read again, and the load waits on the kernel's reclaim of them. Measured
/// on BSBM 100k (35 M quads, alternated): the load takes as long either way (103.5–107.7 s
/// against 105.0–105.1 s), but no page of the cache is reclaimed during it (860,000 by the
/// kernel's reclaimer and 203,000 by the load itself in one of the runs without, 34 s of
/// system time against 18 s). A file that is not a regular file (a pipe) ignores the advice.
struct ReadOnce {
    file: File,
    /// How much is read before the pages behind are dropped.
    drop_behind: u64,
    /// Bytes read so far.
    read: u64,
    /// Bytes before this offset were dropped.
    dropped: u64,
}

impl ReadOnce {
    fn new(file: File, drop_behind: u64) -> Self {
        // Advice only: a kernel that refuses it reads the file as before.
        let _ = rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::Sequential);
        Self {
            file,
            drop_behind,
            read: 0,
            dropped: 0,
        }
    }
}

impl Read for ReadOnce {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        if let Some(behind) = std::num::NonZeroU64::new(self.read - self.dropped)
            .filter(|behind| behind.get() >= self.drop_behind)
        {
            let _ = rustix::fs::fadvise(
                &self.file,
                self.dropped,
                Some(behind),
                rustix::fs::Advice::DontNeed,
            );
            self.dropped = self.read;
        }
        Ok(n)
    }
}

struct CountingReader {
    inner: Box<dyn Read + Send>,
    counter: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Read for CountingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

#[derive(Debug, Clone, Copy)]
enum Compression {
    Gzip,
    Bzip2,
    Zstd,
}

fn compression_of(path: &Path) -> Option<Compression> {
    match path.extension()?.to_str()? {
        "gz" => Some(Compression::Gzip),
        "bz2" => Some(Compression::Bzip2),
        "zst" => Some(Compression::Zstd),
        _ => None,
    }
}

/// The RDF syntax of a file from its extension, looking through a compression suffix
/// (`data.nt.zst` is N-Triples).
pub fn format_from_path(path: &Path) -> Option<RdfFormat> {
    let path = if compression_of(path).is_some() {
        Path::new(path.file_stem()?)
    } else {
        path
    };
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "owl" | "xml" => Some(RdfFormat::RdfXml),
        "json" => Some(RdfFormat::JsonLd {
            profile: oxrdfio::JsonLdProfileSet::empty(),
        }),
        // oxrdfio reads `.txt` as N-Triples; a text file is too often something else.
        "txt" => None,
        other => RdfFormat::from_extension(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_read_once_reads_whole_while_dropping_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("dump.nt");
        let content: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        std::fs::write(&path, &content).expect("write");
        let mut reader = ReadOnce::new(File::open(&path).expect("open"), 64 << 10);
        let mut read = Vec::new();
        let mut buffer = [0; 10_000];
        loop {
            let n = reader.read(&mut buffer).expect("read");
            if n == 0 {
                break;
            }
            read.extend_from_slice(&buffer[..n]);
            assert!(reader.read - reader.dropped < 64 << 10);
        }
        assert_eq!(read, content);
        assert!(reader.dropped > (content.len() - (64 << 10)) as u64);
    }

    #[test]
    fn formats_from_names() {
        assert_eq!(
            format_from_path(Path::new("a.nt.zst")),
            Some(RdfFormat::NTriples)
        );
        assert_eq!(
            format_from_path(Path::new("a.ttl")),
            Some(RdfFormat::Turtle)
        );
        assert_eq!(
            format_from_path(Path::new("a.nq.gz")),
            Some(RdfFormat::NQuads)
        );
        assert_eq!(
            format_from_path(Path::new("a.rdf")),
            Some(RdfFormat::RdfXml)
        );
        assert_eq!(format_from_path(Path::new("a.trig")), Some(RdfFormat::TriG));
        assert_eq!(format_from_path(Path::new("a.txt")), None);
    }
}
