//! The bulk loader: parse, encode, sort, ingest — in memory bounded by a budget.
//!
//! One thread parses while another encodes terms to ids (see `encoder`), and a third
//! resolves the terms of the chunk before and writes it (see `resolution` and `chunk`), so
//! parsing, encoding, resolving and writing overlap and both cores stay busy. A chunk ends
//! when its quads and pending terms reach their share of the memory budget; its terms are
//! then resolved against the dictionary by one sorted pass, and its quads are sorted once
//! per index order and written out as SST files together with the dictionary entries and
//! the statistics computed from the same sorted runs. Memory
//! therefore depends on the budget and not on the input: nothing holds every term or every
//! quad of the input. The store takes every chunk's files at the end, in one recoverable
//! ingest (see `ingest`): a load stopped by an error or killed at any moment leaves the store
//! as it was, or — once the ingest has begun — all of it is there at the next open.

use super::chunk::ChunkWriter;
use super::encoder::{Encoder, ReadChunk};
use super::ingest::IngestBatch;
use super::resolution::{Learned, Resolver};
use super::{
    line_document, read_quads, Input, ParseOptions, RdfFormat, ReadError, REPORTED_ERRORS,
};
use crate::database::{Database, WriterState};
use crate::encoding::EncodedQuad;
use crate::error::StoreError;
use crate::kv::Table;
use crate::quads::writer::Transaction;
use crate::rank::{self, RankReport};
use oxrdf::Quad;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

/// The memory budget of a load unless told otherwise: 2 GiB.
pub const DEFAULT_LOAD_BUDGET: usize = 2 << 30;
/// Quads handed from the parser thread to the encoder at a time. A chunk ends between
/// batches, so a load in chunks of one quad still writes a chunk per batch.
const PARSE_BATCH: usize = 16_384;
/// Batches waiting between the parser and the encoder.
const BATCHES_IN_FLIGHT: usize = 2;

/// Where a load stands, for progress bars and logs.
#[derive(Debug, Clone)]
pub struct LoadProgress {
    /// Quads parsed so far.
    pub quads: u64,
    /// Bytes of input read so far (compressed bytes for compressed files).
    pub bytes_read: u64,
    /// Total bytes of input, when every input has a known size.
    pub bytes_total: Option<u64>,
    /// Time since the load started.
    pub elapsed: Duration,
    /// What the loader is doing.
    pub phase: &'static str,
}

/// What a load did.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// Quads parsed (duplicates included).
    pub quads_read: u64,
    /// Quads that were not in the store before.
    pub quads_added: u64,
    /// Statements skipped in lenient mode.
    pub skipped: u64,
    /// The first statements skipped in lenient mode ([`REPORTED_ERRORS`] at most), each as
    /// `file: line L, column C: message`.
    pub first_errors: Vec<String>,
    /// Wall time.
    pub elapsed: Duration,
    /// Chunks the input was loaded in.
    pub chunks: u64,
    /// Time spent resolving chunks' terms against the dictionary (beside the reading, on
    /// the thread that then writes the chunk).
    pub resolving: Duration,
    /// Time spent sorting and writing chunks (mostly beside the reading).
    pub writing: Duration,
    /// Time the reading waited for the chunk before to be written.
    pub waiting: Duration,
    /// Time of the final ingest into the store.
    pub ingesting: Duration,
    /// Prefix names the inputs declared, recorded for the prefix table (see
    /// `Store::record_prefixes`) in the same ingest as the load's quads, or in a commit of
    /// their own when the load added nothing.
    pub prefixes_recorded: usize,
    /// The entity rank computed after the load, when asked for
    /// ([`BulkLoader::with_entity_rank`]).
    pub rank: Option<RankReport>,
}

type ProgressFn = Box<dyn Fn(&LoadProgress) + Send + Sync>;

/// Loads files into a store through sorted SST ingestion. Made by [`BulkLoader::new`].
pub struct BulkLoader<'a> {
    database: &'a Database,
    options: ParseOptions,
    chunk_quads: usize,
    memory_budget: usize,
    max_errors: Option<u64>,
    progress: Option<ProgressFn>,
    rank: bool,
}

impl<'a> BulkLoader<'a> {
    /// A loader for the store of `database` with default settings (what
    /// [`BulkLoader::new`] makes for a `Store`).
    pub(crate) fn on(database: &'a Database) -> Self {
        Self {
            database,
            options: ParseOptions::default(),
            chunk_quads: usize::MAX,
            memory_budget: DEFAULT_LOAD_BUDGET,
            max_errors: None,
            progress: None,
            rank: false,
        }
    }

    /// Parse options (format, target graph, base IRI, leniency) for every input.
    pub fn with_parse_options(mut self, options: ParseOptions) -> Self {
        self.options = options;
        self
    }

    /// Most quads in one chunk, however much memory is left (no limit by default: the
    /// memory budget decides). Small chunks are for tests of loads of many chunks.
    pub fn with_chunk_quads(mut self, quads: usize) -> Self {
        self.chunk_quads = quads.max(1);
        self
    }

    /// The memory of the load, in bytes (2 GiB by default), the store engine's caches
    /// included when the store is opened with `StoreOptions::for_load` (an eighth of it).
    /// An eighth goes to the cache of known terms; the chunks get the rest but for a fixed
    /// allowance for the parser's batches and the program (see `chunk_limit`).
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.memory_budget = bytes.max(1 << 20);
        self
    }

    /// Fails a lenient load, leaving the store as it was, once more than `max` statements
    /// have been skipped (unlimited by default).
    pub fn with_max_errors(mut self, max: u64) -> Self {
        self.max_errors = Some(max);
        self
    }

    /// Computes the entity rank (see [`crate::rank`]) once the load is committed, reported in
    /// [`LoadReport::rank`] (off by default). After a load of many quads, whose distinct
    /// counts are recounted from the indexes, the rank's links are read in the same pass
    /// over `spog`, sparing it a scan of its own (at 35 M quads its read took 2.2–2.8 s; the
    /// shared pass takes about a second more).
    pub fn with_entity_rank(mut self, rank: bool) -> Self {
        self.rank = rank;
        self
    }

    /// A callback called about ten times a second with the load's progress.
    pub fn on_progress(mut self, callback: impl Fn(&LoadProgress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Box::new(callback));
        self
    }

    /// Loads every input; either all of them are committed or, on error, none. A process
    /// killed during the load leaves none of it, or all of it once the final ingest has
    /// begun (the next open finishes that ingest). The prefixes the inputs declare go in
    /// with their quads (see [`LoadReport::prefixes_recorded`]).
    pub fn load(&self, inputs: &[Input]) -> Result<LoadReport, StoreError> {
        let start = Instant::now();
        let mut state = self.database.lock_writer();
        let spooled;
        let inputs = if inputs.contains(&Input::Stdin) {
            spooled = spool_stdin(self.database, inputs)?;
            &spooled.0
        } else {
            inputs
        };
        let bytes_total = inputs.iter().map(Input::size).sum::<Option<u64>>();
        let bytes_read = Arc::new(AtomicU64::new(0));
        let mut report = LoadReport::default();
        let mut declared = Vec::new();
        let mut links = None;
        let after = std::thread::scope(|scope| -> Result<WriterState, StoreError> {
            let mut chunks = Chunks {
                writer: ChunkWriter::new(self.database, &state),
                encoder: Encoder::new(self.database, &state, self.memory_budget / 8),
                idle: Some((
                    IngestBatch::new(self.database, &state)?,
                    Resolver::new(self.database, &state),
                )),
                after: state.clone(),
                writing: None,
                timings: Timings::default(),
            };
            let chunk_bytes = chunk_limit(self.memory_budget);
            let mut last_progress = Instant::now();
            for input in inputs {
                let (format, options) = self.options_for(input)?;
                let reader = input.open(Some(Arc::clone(&bytes_read)))?;
                let name = input.name();
                let (sender, receiver) =
                    sync_channel::<Vec<Result<Quad, ReadError>>>(BATCHES_IN_FLIGHT);
                chunks.encoder.start_document();
                let parse_options = options.clone();
                // The parser gives back the prefixes the document declared.
                let parser = std::thread::Builder::new()
                    .name("load-parser".to_owned())
                    .spawn_scoped(scope, move || -> Result<_, StoreError> {
                        let mut batch = Vec::with_capacity(PARSE_BATCH);
                        // Sends the statements on in batches; a fatal (I/O) error is sent at
                        // once and ends the parse. False when the parse is to stop.
                        let mut hand_on =
                            |statements: &mut dyn Iterator<Item = Result<Quad, ReadError>>| {
                                for statement in statements {
                                    let fatal = matches!(statement, Err(ReadError::Fatal(_)));
                                    batch.push(statement);
                                    if batch.len() == PARSE_BATCH || fatal {
                                        let sent = sender.send(std::mem::take(&mut batch)).is_ok();
                                        if !sent || fatal {
                                            return false;
                                        }
                                    }
                                }
                                true
                            };
                        let mut prefixes = Vec::new();
                        let finished = match line_document(&name, format, &parse_options) {
                            // A line-based document is parsed on every core, in blocks.
                            Some(document) => {
                                let workers =
                                    std::thread::available_parallelism().map_or(1, |n| n.get());
                                let mut finished = true;
                                document.parse_in_parallel(reader, workers, |statements| {
                                    finished = hand_on(&mut statements.into_iter());
                                    finished
                                });
                                finished
                            }
                            None => {
                                let mut quads = read_quads(reader, &name, format, &parse_options)?;
                                let finished = hand_on(&mut quads.by_ref());
                                prefixes = quads.prefixes();
                                finished
                            }
                        };
                        if finished {
                            let _ = sender.send(batch);
                        }
                        Ok(prefixes)
                    })?;
                // Dropping the receiver on an error makes the parser stop at its next send.
                for batch in receiver {
                    for quad in batch {
                        match quad {
                            Ok(quad) => {
                                report.quads_read += 1;
                                chunks.encoder.push(&quad)?;
                            }
                            Err(ReadError::Statement(e)) if options.lenient => {
                                report.skipped += 1;
                                if self.max_errors.is_some_and(|max| report.skipped > max) {
                                    return Err(too_many_errors(&report, e));
                                }
                                if report.first_errors.len() < REPORTED_ERRORS {
                                    report.first_errors.push(e.to_string());
                                }
                            }
                            Err(ReadError::Statement(e) | ReadError::Fatal(e)) => return Err(e),
                        }
                    }
                    chunks.learn();
                    if chunks.encoder.len() >= self.chunk_quads
                        || chunks.encoder.chunk_bytes() >= chunk_bytes
                    {
                        self.report_progress(&report, &bytes_read, bytes_total, start, "writing");
                        chunks.write_in_background(scope)?;
                    }
                    if last_progress.elapsed() >= Duration::from_millis(100) {
                        last_progress = Instant::now();
                        let phase = if chunks.writing.is_some() {
                            "parsing, writing a chunk"
                        } else {
                            "parsing"
                        };
                        self.report_progress(&report, &bytes_read, bytes_total, start, phase);
                    }
                }
                match parser.join() {
                    Ok(result) => declared.extend(result?),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            self.report_progress(&report, &bytes_read, bytes_total, start, "writing");
            let (files, after, timings) = chunks.finish()?;
            // In input order, so that the last file's declaration of a name wins.
            let prefixes = crate::prefixes::entries(&declared);
            report.prefixes_recorded = prefixes.len();
            report.quads_added = after.quad_count - state.quad_count;
            report.chunks = timings.chunks;
            report.resolving = timings.resolving;
            report.writing = timings.writing;
            report.waiting = timings.waiting;
            if after.sequence != state.sequence {
                files.write(Table::Prefixes, prefixes)?;
                self.report_progress(&report, &bytes_read, bytes_total, start, "ingesting");
                let ingest_start = Instant::now();
                links = files.commit(self.database, &after, self.rank)?;
                report.ingesting = ingest_start.elapsed();
                declared.clear();
            }
            Ok(after)
        })?;
        let committed = after.sequence;
        *state = after;
        drop(state);
        if !declared.is_empty() {
            // Nothing was ingested: the declarations make a commit of their own, as any
            // transaction's do, so that readers caching by commit sequence see them.
            let mut transaction = Transaction::new(self.database);
            transaction.declare_prefixes(declared);
            transaction.commit()?;
        }
        report.elapsed = start.elapsed();
        if self.rank {
            self.report_progress(&report, &bytes_read, bytes_total, start, "ranking entities");
            // Nothing stops a load's rank but an error.
            let stop = AtomicBool::new(false);
            report.rank = match links {
                Some(links) => rank::compute_from(self.database, &links, committed, &stop)?,
                None => rank::compute(self.database, &stop)?,
            };
        }
        self.report_progress(&report, &bytes_read, bytes_total, start, "done");
        Ok(report)
    }

    fn report_progress(
        &self,
        report: &LoadReport,
        bytes_read: &AtomicU64,
        bytes_total: Option<u64>,
        start: Instant,
        phase: &'static str,
    ) {
        if let Some(callback) = &self.progress {
            callback(&LoadProgress {
                quads: report.quads_read,
                bytes_read: bytes_read.load(Ordering::Relaxed),
                bytes_total,
                elapsed: start.elapsed(),
                phase,
            });
        }
    }

    /// The parse options of one input: the loader's, with the syntax told by `--format` or by
    /// the file name.
    fn options_for(&self, input: &Input) -> Result<(RdfFormat, ParseOptions), StoreError> {
        let format = self
            .options
            .format
            .or_else(|| input.format())
            .ok_or_else(|| {
                StoreError::Format(format!(
                    "{}: cannot tell the RDF syntax from the file name; use --format",
                    input.name()
                ))
            })?;
        let options = ParseOptions {
            format: Some(format),
            ..self.options.clone()
        };
        Ok((format, options))
    }
}

/// The most memory (quads and pending term bytes, see `Encoder::chunk_bytes`) one chunk may
/// gather while read, for a load of `budget` bytes. The engine's caches and the cache of
/// known terms take an eighth each, and the program, the parser's batches and the engine's
/// table readers about 64 MB; the chunks get a quarter of the rest. Measured on BSBM at the
/// default budget, the chunk being resolved and written (its terms keyed and sorted, then its
/// quads sorted on two threads at once beside its dictionary entries) and the next one read
/// beside it peak at 3.5–3.7 times this limit: a quarter leaves room for the allocator's
/// slack. Every chunk
/// costs a look-up against the staged ones and a share of the final merge, so chunks are as
/// large as the budget allows (see docs/benchmarks.md, Session 37).
fn chunk_limit(budget: usize) -> usize {
    let fixed = budget / 8 + budget / 8 + (64 << 20);
    (budget.saturating_sub(fixed) / 4).max(4 << 20)
}

/// The chunks of a load: the one being encoded, and the one before it being resolved and
/// written on another thread.
struct Chunks<'a, 'scope> {
    writer: ChunkWriter<'a>,
    encoder: Encoder<'a>,
    /// The load's files and resolver, while no chunk is being written.
    idle: Option<(IngestBatch, Resolver<'a>)>,
    /// The writer counters as the chunks written so far leave them.
    after: WriterState,
    writing: Option<Writing<'scope, 'a>>,
    timings: Timings,
}

/// A chunk being resolved and written on its own thread.
struct Writing<'scope, 'a> {
    handle: ScopedJoinHandle<'scope, Written<'a>>,
    /// The terms its resolution learned, sent as soon as it has them.
    learned: Receiver<Learned>,
}

/// Where a load's time went, chunk by chunk.
#[derive(Default)]
struct Timings {
    chunks: u64,
    resolving: Duration,
    writing: Duration,
    waiting: Duration,
}

/// What a chunk's thread hands back: the load's files, resolver and counters, moved on, the
/// chunk's quad buffer for the next chunk, and how long the resolution and the write took.
struct Written<'a> {
    files: IngestBatch,
    resolver: Resolver<'a>,
    after: WriterState,
    quads: Result<Vec<EncodedQuad>, StoreError>,
    resolving: Duration,
    writing: Duration,
}

impl<'a, 'scope> Chunks<'a, 'scope>
where
    'a: 'scope,
{
    /// Caches the terms the resolution of the chunk being written learned, once it has.
    fn learn(&mut self) {
        if let Some(writing) = &self.writing {
            if let Ok(learned) = writing.learned.try_recv() {
                self.encoder.learn(learned);
            }
        }
    }

    /// Waits for the chunk being written, if any.
    fn wait(&mut self) -> Result<(), StoreError> {
        if let Some(Writing { handle, learned }) = self.writing.take() {
            let waited = Instant::now();
            let written = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            self.timings.waiting += waited.elapsed();
            self.timings.resolving += written.resolving;
            self.timings.writing += written.writing;
            if let Ok(learned) = learned.try_recv() {
                self.encoder.learn(learned);
            }
            self.idle = Some((written.files, written.resolver));
            self.after = written.after;
            let mut quads = written.quads?;
            quads.clear();
            self.encoder.recycle(quads);
        }
        Ok(())
    }

    /// Ends the chunk being encoded and resolves and writes it on another thread, once the
    /// chunk before it is written and staged (its terms are resolved against that one's).
    fn write_in_background(&mut self, scope: &'scope Scope<'scope, '_>) -> Result<(), StoreError> {
        let (mut files, mut resolver, read) = self.end_chunk()?;
        let writer = self.writer;
        let mut after = self.after.clone();
        let (send_learned, learned) = channel();
        let handle = std::thread::Builder::new()
            .name("load-writer".to_owned())
            .spawn_scoped(scope, move || {
                let started = Instant::now();
                let resolved = resolver.resolve(read, files.staging(), after.next_dictionary_id);
                let resolving = started.elapsed();
                let quads = resolved.and_then(|(mut chunk, learned)| {
                    // The reading thread may be gone on an error of its own.
                    let _ = send_learned.send(learned);
                    writer
                        .write(&mut chunk, &mut files, &mut after, true)
                        .map(|_| chunk.quads)
                });
                Written {
                    files,
                    resolver,
                    after,
                    quads,
                    resolving,
                    writing: started.elapsed() - resolving,
                }
            })?;
        self.writing = Some(Writing { handle, learned });
        Ok(())
    }

    /// Writes the last chunk and gives the load's files and final counters.
    fn finish(mut self) -> Result<(IngestBatch, WriterState, Timings), StoreError> {
        let (mut files, mut resolver, read) = self.end_chunk()?;
        let resolving = Instant::now();
        let (mut chunk, _) =
            resolver.resolve(read, files.staging(), self.after.next_dictionary_id)?;
        self.timings.resolving += resolving.elapsed();
        let writing = Instant::now();
        self.writer
            .write(&mut chunk, &mut files, &mut self.after, false)?;
        self.timings.writing += writing.elapsed();
        Ok((files, self.after, self.timings))
    }

    /// Ends the chunk being encoded, once the chunk before it is written: the chunk as read,
    /// with the load's files and resolver to resolve and write it with.
    fn end_chunk(&mut self) -> Result<(IngestBatch, Resolver<'a>, ReadChunk), StoreError> {
        self.wait()?;
        let (files, resolver) = self
            .idle
            .take()
            .ok_or_else(|| StoreError::Io(std::io::Error::other("the load's files are in use")))?;
        self.timings.chunks += 1;
        Ok((files, resolver, self.encoder.end_chunk()))
    }
}

/// The error of a lenient load that met more bad statements than it may skip; `last` is the
/// one over the limit.
fn too_many_errors(report: &LoadReport, last: StoreError) -> StoreError {
    let (source_name, message) = match last {
        StoreError::Syntax {
            source_name,
            message,
        } => (source_name, message),
        other => (String::new(), other.to_string()),
    };
    StoreError::Syntax {
        source_name,
        message: format!(
            "{message}; more than {} bad statements, so nothing is loaded",
            report.skipped - 1
        ),
    }
}

/// Copies standard input to a file in the store folder so that it can be read twice.
fn spool_stdin(
    database: &Database,
    inputs: &[Input],
) -> Result<(Vec<Input>, tempfile_guard::Guard), StoreError> {
    let path = database
        .path()
        .join(format!("load-tmp-stdin-{}", std::process::id()));
    let mut file = std::fs::File::create(&path)?;
    std::io::copy(&mut std::io::stdin().lock(), &mut file)?;
    let inputs = inputs
        .iter()
        .map(|i| match i {
            Input::Stdin => Input::File(path.clone()),
            other => other.clone(),
        })
        .collect();
    Ok((inputs, tempfile_guard::Guard(path)))
}

mod tempfile_guard {
    /// Deletes a file when dropped.
    pub(super) struct Guard(pub std::path::PathBuf);

    impl Drop for Guard {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}
