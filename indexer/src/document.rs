//! Entity documents: what one subject's statements put into the index.
//!
//! Only IRI subjects with at least one text literal (`xsd:string` or language-tagged) get a
//! document; numbers, dates and other typed literals are facets' business, not words.

use crate::analysis::{prefixes, stemmed_language, words, FOLD};
use crate::error::IndexError;
use crate::schema::Fields;
use crate::settings::IndexSettings;
use lodestone_store::model::vocab::{rdf, xsd};
use lodestone_store::model::{NamedNodeRef, Term};
use lodestone_store::{EncodedQuad, Reader, TermId, TermKind};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
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
    /// Label and description priority of properties already looked at.
    seen: RefCell<HashMap<TermId, Roles>>,
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
            seen: RefCell::default(),
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
        if let Some(known) = self.seen.borrow().get(&predicate) {
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
        self.seen
            .borrow_mut()
            .insert(predicate, (label, description));
        Ok((label, description))
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

/// Builds documents; holds the analyzer so that it is made once per batch.
pub(crate) struct DocumentBuilder<'f> {
    fields: &'f Fields,
    vocabulary: Vocabulary,
    analyzer: TextAnalyzer,
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
        }
    }

    /// The document of `subject` given all its quads (any order), or `None` when it has no
    /// text literal or is not an IRI.
    pub(crate) fn build(
        &mut self,
        reader: &Reader<'_>,
        subject: TermId,
        quads: &[EncodedQuad],
    ) -> Result<Option<TantivyDocument>, IndexError> {
        if subject.kind() != TermKind::Iri || quads.is_empty() {
            return Ok(None);
        }
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        let mut has_text = false;
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
            let term = reader.term(quad.object)?;
            let Some((text, lang)) = text_literal(&term) else {
                continue;
            };
            has_text = true;
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
        if !has_text {
            return Ok(None);
        }
        let Term::NamedNode(iri) = reader.term(subject)? else {
            return Ok(None);
        };
        doc.add_u64(f.id, subject.as_u64());
        let entity_rank = reader
            .entity_ranks(&[subject])?
            .first()
            .copied()
            .unwrap_or(0.0);
        let used = crate::popularity::weight_of_use(&reader.usage(subject)?, entity_rank);
        doc.add_u64(f.rank, crate::popularity::to_field(used));
        doc.add_text(f.iri, iri.as_str());
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
                if let Term::NamedNode(node) = reader.term(*id)? {
                    doc.add_text(field, node.as_str());
                }
            }
        }
        Ok(Some(doc))
    }
}
