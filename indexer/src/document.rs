//! Entity documents: what one subject's statements put into the index.
//!
//! Only IRI subjects with at least one text literal (`xsd:string` or language-tagged) get a
//! document; numbers, dates and other typed literals are facets' business, not words.

use crate::analysis::{prefixes, stemmed_language, words, FOLD};
use crate::error::IndexError;
use crate::schema::Fields;
use crate::settings::IndexSettings;
use lodestone_store::model::vocab::{rdf, xsd};
use lodestone_store::model::{Literal, NamedNodeRef, Term};
use lodestone_store::{EncodedQuad, Reader, TermId, TermKind};
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Mutex;
use tantivy::tokenizer::{TextAnalyzer, TokenizerManager};
use tantivy::TantivyDocument;

/// The ids of the properties the index treats specially, resolved against one reader (a
/// property's id changes only if it leaves the store and comes back, so resolving per batch
/// is enough). Properties not configured but whose local name is label-like (`name`,
/// `title`, …) count as labels after every configured one; likewise for descriptions.
#[derive(Debug, Default)]
pub(crate) struct Vocabulary {
    /// Configured label property → priority (0 is best).
    labels: HashMap<TermId, usize>,
    /// Configured description property → priority (0 is best).
    descriptions: HashMap<TermId, usize>,
    /// `rdf:type`.
    pub rdf_type: Option<TermId>,
    label_local_names: Vec<String>,
    description_local_names: Vec<String>,
    /// Label and description priority of properties already looked at (shared by the
    /// searches of one store state: [`crate::vocabulary::SharedVocabulary`]).
    seen: Mutex<HashMap<TermId, Roles>>,
}

impl Vocabulary {
    /// Looks the configured properties up in the store.
    pub(crate) fn resolve(
        reader: &Reader<'_>,
        settings: &IndexSettings,
    ) -> Result<Self, IndexError> {
        let id_of = |iri: &str| -> Result<Option<TermId>, IndexError> {
            match NamedNodeRef::new(iri) {
                Ok(node) => Ok(reader.term_id(node.into())?),
                Err(_) => Ok(None),
            }
        };
        let ranked = |list: &[String]| -> Result<HashMap<TermId, usize>, IndexError> {
            let mut out = HashMap::new();
            for (priority, iri) in list.iter().enumerate() {
                if let Some(id) = id_of(iri)? {
                    out.entry(id).or_insert(priority);
                }
            }
            Ok(out)
        };
        Ok(Self {
            labels: ranked(&settings.label_predicates)?,
            descriptions: ranked(&settings.description_predicates)?,
            rdf_type: reader.term_id(rdf::TYPE.into())?,
            label_local_names: settings.label_local_names.clone(),
            description_local_names: settings.description_local_names.clone(),
            seen: Mutex::default(),
        })
    }

    /// The label priority of a property (`None`: not a label property).
    pub(crate) fn label_priority(
        &self,
        reader: &Reader<'_>,
        predicate: TermId,
    ) -> Result<Option<usize>, IndexError> {
        Ok(self.classify(reader, predicate)?.0)
    }

    /// The description priority of a property (`None`: not a description property).
    pub(crate) fn description_priority(
        &self,
        reader: &Reader<'_>,
        predicate: TermId,
    ) -> Result<Option<usize>, IndexError> {
        Ok(self.classify(reader, predicate)?.1)
    }

    fn classify(&self, reader: &Reader<'_>, predicate: TermId) -> Result<Roles, IndexError> {
        if let Some(known) = self.roles_seen().get(&predicate) {
            return Ok(*known);
        }
        let mut label = self.labels.get(&predicate).copied();
        let mut description = self.descriptions.get(&predicate).copied();
        if label.is_none() && description.is_none() {
            if let Term::NamedNode(node) = reader.term(predicate)? {
                let local = node.as_str().rsplit(['/', '#']).next().unwrap_or_default();
                let matches =
                    |names: &[String]| names.iter().any(|n| n.eq_ignore_ascii_case(local));
                if matches(&self.label_local_names) {
                    label = Some(self.labels.len().max(1) + 100);
                } else if matches(&self.description_local_names) {
                    description = Some(self.descriptions.len().max(1) + 100);
                }
            }
        }
        self.roles_seen().insert(predicate, (label, description));
        Ok((label, description))
    }

    /// The roles of the properties looked at so far (a poisoned lock still holds answers
    /// that were right: each entry is written whole).
    fn roles_seen(&self) -> std::sync::MutexGuard<'_, HashMap<TermId, Roles>> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The label priority and the description priority of a property (`None`: not one).
type Roles = (Option<usize>, Option<usize>);

/// A literal that carries words (`xsd:string` or language-tagged): its text and language tag,
/// if any. Only these are indexed; numbers, dates and other typed literals are not words.
pub fn text_literal(term: &Term) -> Option<(&str, Option<&str>)> {
    let Term::Literal(literal) = term else {
        return None;
    };
    if let Some(lang) = literal.language() {
        return Some((literal.value(), Some(lang)));
    }
    (literal.datatype() == xsd::STRING).then(|| (literal.value(), None))
}

/// Subjects with their quads, read together so that the terms their documents need are
/// looked up in a few batched reads instead of one read each.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    subjects: Vec<(TermId, Range<usize>)>,
    quads: Vec<EncodedQuad>,
}

impl Batch {
    /// Subjects that fill a batch.
    const SUBJECTS: usize = 256;
    /// Quads that fill a batch (a few subjects with very many statements).
    const QUADS: usize = 16_384;

    /// Adds a subject with all its quads.
    pub(crate) fn push(&mut self, subject: TermId, quads: &[EncodedQuad]) {
        let start = self.quads.len();
        self.quads.extend_from_slice(quads);
        self.subjects.push((subject, start..self.quads.len()));
    }

    /// Whether the batch is worth building now.
    pub(crate) fn is_full(&self) -> bool {
        self.subjects.len() >= Self::SUBJECTS || self.quads.len() >= Self::QUADS
    }

    /// Quads in the batch.
    pub(crate) fn quad_count(&self) -> u64 {
        self.quads.len() as u64
    }

    /// Empties the batch, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.subjects.clear();
        self.quads.clear();
    }

    fn iter(&self) -> impl Iterator<Item = (TermId, &[EncodedQuad])> {
        self.subjects
            .iter()
            .map(|(subject, range)| (*subject, self.quads.get(range.clone()).unwrap_or(&[])))
    }
}

/// IRIs of classes and graphs kept by a builder; emptied when it grows past this many.
const IRI_CACHE_LIMIT: usize = 100_000;

/// Builds documents; holds the analyzer so that it is made once, and the IRIs of the classes
/// and graphs met so far (the same few are named by most entities).
pub(crate) struct DocumentBuilder<'f> {
    fields: &'f Fields,
    vocabulary: Vocabulary,
    analyzer: TextAnalyzer,
    iris: HashMap<TermId, String>,
}

impl<'f> DocumentBuilder<'f> {
    pub(crate) fn new(
        fields: &'f Fields,
        vocabulary: Vocabulary,
        tokenizers: &TokenizerManager,
    ) -> Self {
        let analyzer = tokenizers
            .get(FOLD)
            .unwrap_or_else(|| crate::analysis::folding_analyzer(&[]));
        Self {
            fields,
            vocabulary,
            analyzer,
            iris: HashMap::new(),
        }
    }

    /// The document of each subject of `batch` given all its quads (any order), passed to
    /// `emit` in the batch's order: `None` when the subject has no text literal or is not an
    /// IRI. The literals, IRIs and weights of use the documents need are read in one batched
    /// read each.
    pub(crate) fn build_batch(
        &mut self,
        reader: &Reader<'_>,
        batch: &Batch,
        mut emit: impl FnMut(TermId, Option<TantivyDocument>) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let is_candidate = |subject: TermId, quads: &[EncodedQuad]| {
            subject.kind() == TermKind::Iri && !quads.is_empty()
        };
        // The string literals of the batch, by id.
        let mut literal_ids: Vec<TermId> = batch
            .iter()
            .filter(|(subject, quads)| is_candidate(*subject, quads))
            .flat_map(|(_, quads)| quads.iter().map(|q| q.object))
            .filter(|object| object.kind() == TermKind::Literal)
            .collect();
        literal_ids.sort_unstable();
        literal_ids.dedup();
        let literals = reader.string_literals(&literal_ids)?;
        let literal = |id: TermId| -> Option<&Literal> {
            literal_ids
                .binary_search(&id)
                .ok()
                .and_then(|at| literals.get(at))
                .and_then(Option::as_ref)
        };
        // The subjects with words, their IRIs and weights of use.
        let has_text: Vec<bool> = batch
            .iter()
            .map(|(subject, quads)| {
                is_candidate(subject, quads)
                    && quads.iter().any(|q| {
                        q.object.kind() == TermKind::Literal && literal(q.object).is_some()
                    })
            })
            .collect();
        let with_text: Vec<TermId> = batch
            .iter()
            .zip(&has_text)
            .filter(|(_, text)| **text)
            .map(|((subject, _), _)| subject)
            .collect();
        let subject_iris = reader.terms(&with_text)?;
        let ranks = reader.entity_ranks(&with_text)?;
        let usages = reader.usages(&with_text)?;
        self.remember_iris(reader, batch, &has_text)?;
        let mut next = 0;
        for ((subject, quads), text) in batch.iter().zip(has_text) {
            if !text {
                emit(subject, None)?;
                continue;
            }
            let at = next;
            next += 1;
            let (Some(Term::NamedNode(iri)), Some(rank), Some(usage)) =
                (subject_iris.get(at), ranks.get(at), usages.get(at))
            else {
                emit(subject, None)?;
                continue;
            };
            let used = crate::popularity::weight_of_use(usage, *rank);
            let doc = self.document(reader, subject, iri.as_str(), used, quads, &literal)?;
            emit(subject, Some(doc))?;
        }
        Ok(())
    }

    /// Reads the IRIs of the classes and graphs of the batch's subjects with text (`has_text`,
    /// in the batch's order) not read before.
    fn remember_iris(
        &mut self,
        reader: &Reader<'_>,
        batch: &Batch,
        has_text: &[bool],
    ) -> Result<(), IndexError> {
        let rdf_type = self.vocabulary.rdf_type;
        let mut missing: Vec<TermId> = batch
            .iter()
            .zip(has_text)
            .filter(|(_, text)| **text)
            .flat_map(|((_, quads), _)| quads.iter())
            .flat_map(|q| {
                let class = (Some(q.predicate) == rdf_type && q.object.kind() == TermKind::Iri)
                    .then_some(q.object);
                let graph = (!q.graph.is_default_graph()).then_some(q.graph);
                class.into_iter().chain(graph)
            })
            .filter(|id| !self.iris.contains_key(id))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(());
        }
        if self.iris.len() + missing.len() > IRI_CACHE_LIMIT {
            self.iris.clear();
        }
        for (id, term) in missing.iter().zip(reader.terms(&missing)?) {
            if let Term::NamedNode(node) = term {
                self.iris.insert(*id, node.into_string());
            }
        }
        Ok(())
    }

    /// The document of one subject with words.
    fn document<'l>(
        &mut self,
        reader: &Reader<'_>,
        subject: TermId,
        iri: &str,
        weight_of_use: f64,
        quads: &[EncodedQuad],
        literal: &impl Fn(TermId) -> Option<&'l Literal>,
    ) -> Result<TantivyDocument, IndexError> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        let mut langs = BTreeSet::new();
        let mut classes = BTreeSet::new();
        let mut graphs = BTreeSet::new();
        let mut label_words = BTreeSet::new();
        let mut exact_labels = BTreeSet::new();
        for quad in quads {
            if !quad.graph.is_default_graph() {
                graphs.insert(quad.graph);
            }
            if Some(quad.predicate) == self.vocabulary.rdf_type
                && quad.object.kind() == TermKind::Iri
            {
                classes.insert(quad.object);
                continue;
            }
            if quad.object.kind() != TermKind::Literal {
                continue;
            }
            let Some(term) = literal(quad.object) else {
                continue;
            };
            let (text, lang) = (term.value(), term.language());
            let is_label = self
                .vocabulary
                .label_priority(reader, quad.predicate)?
                .is_some();
            if is_label {
                doc.add_text(f.label, text);
                let folded = words(&mut self.analyzer, text);
                if !folded.is_empty() {
                    exact_labels.insert(folded.join(" "));
                }
                label_words.extend(folded);
            } else {
                doc.add_text(f.text, text);
            }
            if let Some(lang) = lang {
                if let Some(field) = stemmed_language(lang).and_then(|c| f.stemmed_field(c)) {
                    doc.add_text(field, text);
                }
                langs.insert(lang.to_ascii_lowercase());
            }
        }
        doc.add_u64(f.id, subject.as_u64());
        doc.add_u64(f.rank, crate::popularity::to_field(weight_of_use));
        doc.add_text(f.iri, iri);
        for label in &exact_labels {
            doc.add_text(f.label_exact, label);
        }
        let mut all_prefixes = BTreeSet::new();
        for word in &label_words {
            all_prefixes.extend(prefixes(word));
        }
        for prefix in all_prefixes {
            doc.add_text(f.label_prefix, prefix);
        }
        for lang in &langs {
            doc.add_text(f.lang, lang);
        }
        for (field, ids) in [(f.class, &classes), (f.graph, &graphs)] {
            for id in ids {
                if let Some(iri) = self.iris.get(id) {
                    doc.add_text(field, iri);
                }
            }
        }
        Ok(doc)
    }
}
