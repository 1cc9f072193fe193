//! What each form the text index holds costs to build.
//!
//! The index keeps several forms of an entity's text: folded words with positions (labels and
//! other literals apart), stemmed copies of language-tagged literals, whole folded labels, the
//! prefixes of every label word for type-ahead, and the entity's languages, classes, graphs
//! and IRI. Each form answers something (stemmed search, exact-label lookup, type-ahead in one
//! term look-up), and each costs tantivy indexing work that bare tantivy, indexing the same
//! text once, does not do. [`measure_forms`] makes the documents of a store once, then indexes
//! them again and again, each time without one form, so that the price of each is a number
//! (`lodestone-bench text-forms` prints it). Nothing here is used by a server.

use crate::analysis::register_analyzers;
use crate::build::snapshot_readers;
use crate::document::{Batch, DocumentBuilder, Vocabulary};
use crate::error::IndexError;
use crate::schema::Fields;
use crate::settings::IndexSettings;
use lodestone_store::{Store, TermKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tantivy::schema::Field;
use tantivy::{Index, TantivyDocument};

/// One indexing of the documents, with some forms left out.
#[derive(Debug, Clone)]
pub struct FormCost {
    /// What was indexed.
    pub name: &'static str,
    /// Indexing and commit time.
    pub elapsed: Duration,
    /// CPU seconds of the process (tantivy's threads) over the same span.
    pub cpu_seconds: f64,
    /// The index's folder, as the commit left it (not merged).
    pub folder: PathBuf,
}

/// What [`measure_forms`] measured.
#[derive(Debug, Clone)]
pub struct FormsReport {
    /// Documents made (entities with text).
    pub entities: usize,
    /// Time to make them from the store on one thread: reading quads, literals, IRIs and
    /// weights of use, and analyzing labels for the exact and prefix forms.
    pub documents_elapsed: Duration,
    /// CPU seconds spent making them.
    pub documents_cpu_seconds: f64,
    /// One indexing per variant, the full document first.
    pub forms: Vec<FormCost>,
}

/// The variants: a name and the fields it leaves out of every document.
fn variants(fields: &Fields) -> Vec<(&'static str, Vec<Field>)> {
    let mut words_only = vec![
        fields.label_exact,
        fields.label_prefix,
        fields.lang,
        fields.class,
        fields.graph,
        fields.iri,
    ];
    words_only.extend(&fields.stemmed);
    vec![
        ("every form (the index as built)", Vec::new()),
        ("without type-ahead prefixes", vec![fields.label_prefix]),
        ("without whole labels", vec![fields.label_exact]),
        ("without stemmed copies", fields.stemmed.clone()),
        (
            "without languages, classes, graphs, IRI",
            vec![fields.lang, fields.class, fields.graph, fields.iri],
        ),
        ("folded words only (labels and other text)", words_only),
    ]
}

/// Makes the document of every entity of `store` once, then indexes them once per variant
/// in a new index under `dir` (one sub-folder each, left for the caller to remove), with the
/// writer's threads and memory of `settings`. `process_cpu` gives the process's CPU seconds
/// so far.
pub fn measure_forms(
    store: &Store,
    dir: &Path,
    settings: &IndexSettings,
    process_cpu: impl Fn() -> f64,
) -> Result<FormsReport, IndexError> {
    let (schema, fields) = Fields::build();
    let started = Instant::now();
    let cpu = process_cpu();
    let documents = documents(store, &fields, settings)?;
    let documents_elapsed = started.elapsed();
    let documents_cpu_seconds = process_cpu() - cpu;
    let mut forms = Vec::new();
    for (i, (name, left_out)) in variants(&fields).into_iter().enumerate() {
        let path = dir.join(format!("variant-{i}"));
        std::fs::create_dir_all(&path)?;
        let index = Index::create_in_dir(&path, schema.clone())?;
        register_analyzers(index.tokenizers(), &settings.stop_words);
        let (threads, heap) = settings.writer_budget();
        let mut writer = index.writer_with_num_threads::<TantivyDocument>(threads, heap)?;
        // The documents are copied before the clock starts: tantivy takes them by value.
        let copies: Vec<TantivyDocument> = documents
            .iter()
            .map(|doc| without(doc, &left_out))
            .collect();
        let started = Instant::now();
        let cpu = process_cpu();
        for doc in copies {
            writer.add_document(doc)?;
        }
        writer.commit()?;
        forms.push(FormCost {
            name,
            elapsed: started.elapsed(),
            cpu_seconds: process_cpu() - cpu,
            folder: path,
        });
    }
    Ok(FormsReport {
        entities: documents.len(),
        documents_elapsed,
        documents_cpu_seconds,
        forms,
    })
}

/// The document of every IRI subject with text, made by the full build's document builder on
/// one thread.
fn documents(
    store: &Store,
    fields: &Fields,
    settings: &IndexSettings,
) -> Result<Vec<TantivyDocument>, IndexError> {
    let tokenizers = tantivy::tokenizer::TokenizerManager::default();
    register_analyzers(&tokenizers, &settings.stop_words);
    let Some(reader) = snapshot_readers(store, 1)?.into_iter().next() else {
        return Ok(Vec::new());
    };
    let mut builder =
        DocumentBuilder::new(fields, Vocabulary::resolve(&reader, settings)?, &tokenizers);
    let mut documents = Vec::new();
    let mut batch = Batch::default();
    let mut flush = |batch: &mut Batch| -> Result<(), IndexError> {
        builder.build_batch(&reader, batch, |_, doc| {
            documents.extend(doc);
            Ok(())
        })?;
        batch.clear();
        Ok(())
    };
    if let Some(span) = reader.subject_span(TermKind::Iri)? {
        let end = lodestone_store::TermId::from_u64(span.end().as_u64() + 1);
        for group in reader.quads_by_subject_in(*span.start()..end) {
            let (subject, quads) = group?;
            batch.push(subject, &quads);
            if batch.is_full() {
                flush(&mut batch)?;
            }
        }
    }
    flush(&mut batch)?;
    Ok(documents)
}

/// A copy of `doc` without the values of `fields`.
fn without(doc: &TantivyDocument, fields: &[Field]) -> TantivyDocument {
    let mut copy = TantivyDocument::default();
    for (field, value) in doc.field_values() {
        if !fields.contains(&field) {
            copy.add_field_value(field, value);
        }
    }
    copy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_leaves_out_exactly_the_given_fields() {
        let (_, fields) = Fields::build();
        let mut doc = TantivyDocument::default();
        doc.add_text(fields.label, "red apple");
        doc.add_text(fields.label_prefix, "re");
        doc.add_text(fields.label_prefix, "red");
        doc.add_u64(fields.id, 7);
        let copy = without(&doc, &[fields.label_prefix]);
        assert_eq!(copy.field_values().count(), 2);
        assert_eq!(copy.get_all(fields.label_prefix).count(), 0);
        assert_eq!(copy.get_all(fields.label).count(), 1);
        assert_eq!(copy.get_all(fields.id).count(), 1);
    }

    #[test]
    fn every_variant_but_the_first_leaves_something_out() {
        let (_, fields) = Fields::build();
        let variants = variants(&fields);
        assert!(variants[0].1.is_empty());
        assert!(variants[1..].iter().all(|(_, out)| !out.is_empty()));
        // The words themselves are never left out: without them nothing is searchable.
        assert!(variants
            .iter()
            .all(|(_, out)| !out.contains(&fields.label) && !out.contains(&fields.text)));
    }
}
