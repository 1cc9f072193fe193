//! What bare tantivy does with the same text: the floor under the text index's build rate.
//!
//! The entities the text index would index (IRI subjects with text literals) are read from the
//! store first, their literals joined into one string each and held in memory. Then only the
//! indexing is timed: one tantivy document per entity with a single text field (tantivy's
//! default tokenizer, positions recorded), the writer's heap and threads as the text index
//! uses them, and the final commit. Lodestone's build does more on top of that (labels,
//! stemmed words, type-ahead prefixes, classes, graphs, reading the store), so its rate can
//! approach this one but not pass it.

use lodestone_indexer::{text_literal, IndexSettings};
use lodestone_store::model::Term;
use lodestone_store::{Store, TermKind};
use std::path::Path;
use std::time::{Duration, Instant};
use tantivy::schema::{Schema, TEXT};
use tantivy::{Index, TantivyDocument};

/// The floor's figures.
pub(crate) struct Floor {
    /// Entities indexed.
    pub entities: usize,
    /// Words in their text (split on whitespace).
    pub words: usize,
    /// Indexing and commit time.
    pub elapsed: Duration,
    /// CPU seconds of the process (all threads) over the same span.
    pub cpu: f64,
}

/// Indexes the store's entity text in a bare tantivy index in `dir`.
pub(crate) fn measure(store: &Store, dir: &Path) -> anyhow::Result<Floor> {
    let texts = entity_texts(store)?;
    let words = texts.iter().map(|t| t.split_whitespace().count()).sum();
    let mut schema = Schema::builder();
    let body = schema.add_text_field("body", TEXT);
    let index = Index::create_in_dir(dir, schema.build())?;
    let (threads, heap) = IndexSettings::default().writer_budget();
    let mut writer = index.writer_with_num_threads::<TantivyDocument>(threads, heap)?;
    let started = Instant::now();
    let cpu = process_cpu();
    for text in &texts {
        let mut doc = TantivyDocument::default();
        doc.add_text(body, text);
        writer.add_document(doc)?;
    }
    writer.commit()?;
    Ok(Floor {
        entities: texts.len(),
        words,
        elapsed: started.elapsed(),
        cpu: process_cpu() - cpu,
    })
}

/// CPU seconds (user and system, all threads) the process has used so far; 0 where
/// `/proc/self/stat` is not there. Assumes the usual 100 clock ticks per second.
pub(crate) fn process_cpu() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name (which may hold spaces) start after its ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the line; what follows the name starts at 3.
    (ticks(11) + ticks(12)) as f64 / 100.0
}

/// Bytes of the files in a folder (not recursive: an index folder is flat).
pub(crate) fn folder_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.metadata().ok())
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len())
        .sum()
}

/// The text literals of each IRI subject that has any, joined by newlines.
fn entity_texts(store: &Store) -> anyhow::Result<Vec<String>> {
    let reader = store.reader();
    let mut texts = Vec::new();
    for group in reader.quads_by_subject() {
        let (subject, quads) = group?;
        if subject.kind() != TermKind::Iri {
            continue;
        }
        let mut text = String::new();
        for quad in quads
            .iter()
            .filter(|q| q.object.kind() == TermKind::Literal)
        {
            let term: Term = reader.term(quad.object)?;
            if let Some((value, _)) = text_literal(&term) {
                text.push_str(value);
                text.push('\n');
            }
        }
        if !text.is_empty() {
            texts.push(text);
        }
    }
    Ok(texts)
}
