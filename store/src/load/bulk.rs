//! The bulk loader: parse, encode, sort, ingest.
//!
//! One thread parses while another encodes terms to ids, so loading runs at the speed of the
//! slower of the two. Encoded quads collect in memory up to a chunk size, are sorted once per
//! index order, and are written out as SST files together with the dictionary entries and the
//! statistics computed from the same sorted runs. The store takes every chunk's files at the
//! end, in one recoverable ingest (see `ingest`): a load stopped by an error or killed at any
//! moment leaves the store as it was, or — once the ingest has begun — all of it is there at
//! the next open. When the input is larger than one chunk, every input is first parsed once
//! without storing anything, so that a syntax error is reported before any chunk is written.

use super::chunk::Encoder;
use super::ingest::IngestBatch;
use super::{read_quads, Input, ParseOptions, RdfFormat, ReadError, REPORTED_ERRORS};
use crate::database::Database;
use crate::error::StoreError;
use oxrdf::Quad;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Quads held in memory before they are sorted and written out.
const DEFAULT_CHUNK_QUADS: usize = 20_000_000;
/// Quads handed from the parser thread to the encoder at a time.
const PARSE_BATCH: usize = 16_384;

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
}

type ProgressFn = Box<dyn Fn(&LoadProgress) + Send + Sync>;

/// Loads files into a store through sorted SST ingestion. Made by [`BulkLoader::new`].
pub struct BulkLoader<'a> {
    database: &'a Database,
    options: ParseOptions,
    chunk_quads: usize,
    max_errors: Option<u64>,
    progress: Option<ProgressFn>,
}

impl<'a> BulkLoader<'a> {
    /// A loader for the store of `database` with default settings (what
    /// [`BulkLoader::new`] makes for a `Store`).
    pub(crate) fn on(database: &'a Database) -> Self {
        Self {
            database,
            options: ParseOptions::default(),
            chunk_quads: DEFAULT_CHUNK_QUADS,
            max_errors: None,
            progress: None,
        }
    }

    /// Parse options (format, target graph, base IRI, leniency) for every input.
    pub fn with_parse_options(mut self, options: ParseOptions) -> Self {
        self.options = options;
        self
    }

    /// Quads kept in memory before a chunk is written (memory ≈ 70 bytes per quad).
    pub fn with_chunk_quads(mut self, quads: usize) -> Self {
        self.chunk_quads = quads.max(1);
        self
    }

    /// Fails a lenient load, leaving the store as it was, once more than `max` statements
    /// have been skipped (unlimited by default).
    pub fn with_max_errors(mut self, max: u64) -> Self {
        self.max_errors = Some(max);
        self
    }

    /// A callback called about ten times a second with the load's progress.
    pub fn on_progress(mut self, callback: impl Fn(&LoadProgress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Box::new(callback));
        self
    }

    /// Loads every input; either all of them are committed or, on error, none. A process
    /// killed during the load leaves none of it, or all of it once the final ingest has
    /// begun (the next open finishes that ingest).
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
        let mut encoder = Encoder::new(self.database, &state);
        // The chunks' files, and the counters as they stand after the chunks written so far;
        // the store's own change only when the last chunk is written.
        let mut files = IngestBatch::new(self.database)?;
        let mut after = state.clone();
        let mut report = LoadReport::default();
        let bytes_total = inputs.iter().map(Input::size).sum::<Option<u64>>();
        let bytes_read = Arc::new(AtomicU64::new(0));
        let mut validated = self.options.lenient;
        let mut last_progress = Instant::now();
        let mut result = Ok(());
        for input in inputs {
            let (format, options) = self.options_for(input)?;
            let reader = input.open(Some(Arc::clone(&bytes_read)))?;
            let name = input.name();
            let (sender, receiver) = sync_channel::<Vec<Result<Quad, ReadError>>>(4);
            encoder.start_document();
            std::thread::scope(|scope| {
                let parse_options = &options;
                let parse_name = &name;
                let parser = scope.spawn(move || -> Result<(), StoreError> {
                    let mut batch = Vec::with_capacity(PARSE_BATCH);
                    for quad in read_quads(reader, parse_name, format, parse_options)? {
                        let fatal = matches!(quad, Err(ReadError::Fatal(_)));
                        batch.push(quad);
                        if batch.len() == PARSE_BATCH || fatal {
                            // A fatal (I/O) error is sent on and ends the parse.
                            let sent = sender.send(std::mem::take(&mut batch)).is_ok();
                            if !sent || fatal {
                                return Ok(());
                            }
                        }
                    }
                    let _ = sender.send(batch);
                    Ok(())
                });
                for batch in receiver {
                    for quad in batch {
                        match quad {
                            Ok(quad) => {
                                report.quads_read += 1;
                                if let Err(e) = encoder.push(&quad) {
                                    result = Err(e);
                                    return;
                                }
                            }
                            Err(ReadError::Statement(e)) if options.lenient => {
                                report.skipped += 1;
                                if self.max_errors.is_some_and(|max| report.skipped > max) {
                                    result = Err(too_many_errors(&report, e));
                                    return;
                                }
                                if report.first_errors.len() < REPORTED_ERRORS {
                                    report.first_errors.push(e.to_string());
                                }
                            }
                            Err(ReadError::Statement(e) | ReadError::Fatal(e)) => {
                                result = Err(e);
                                return;
                            }
                        }
                    }
                    if encoder.quads.len() >= self.chunk_quads {
                        if !validated {
                            if let Err(e) = self.validate(inputs) {
                                result = Err(e);
                                return;
                            }
                            validated = true;
                        }
                        self.report_progress(&report, &bytes_read, bytes_total, start, "writing");
                        match encoder.flush(&mut files, &mut after, true) {
                            Ok(added) => report.quads_added += added,
                            Err(e) => {
                                result = Err(e);
                                return;
                            }
                        }
                    }
                    if last_progress.elapsed() >= Duration::from_millis(100) {
                        last_progress = Instant::now();
                        self.report_progress(&report, &bytes_read, bytes_total, start, "parsing");
                    }
                }
                match parser.join() {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => result = Err(e),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            });
            // Dropping the receiver early makes the parser thread stop at its next send.
            result.as_ref().map_err(clone_error)?;
        }
        self.report_progress(&report, &bytes_read, bytes_total, start, "parsing");
        self.report_progress(&report, &bytes_read, bytes_total, start, "writing");
        report.quads_added += encoder.flush(&mut files, &mut after, false)?;
        if after.sequence != state.sequence {
            files.commit(self.database, &after)?;
            *state = after;
        }
        report.elapsed = start.elapsed();
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

    /// Parses every input once without storing anything; the first syntax error fails.
    fn validate(&self, inputs: &[Input]) -> Result<(), StoreError> {
        for input in inputs {
            let (format, options) = self.options_for(input)?;
            let name = input.name();
            for quad in read_quads(input.open(None)?, &name, format, &options)? {
                if let Err(ReadError::Statement(e) | ReadError::Fatal(e)) = quad {
                    return Err(e);
                }
            }
        }
        Ok(())
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

fn clone_error(e: &StoreError) -> StoreError {
    match e {
        StoreError::Syntax {
            source_name,
            message,
        } => StoreError::Syntax {
            source_name: source_name.clone(),
            message: message.clone(),
        },
        StoreError::Format(m) => StoreError::Format(m.clone()),
        other => StoreError::Io(std::io::Error::other(other.to_string())),
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
