//! What the browsing pages call a term: its stored label (the text index's choice of label
//! property and language, English first), or without one the IRI written with a prefix
//! (`nmo:Mint`), never a bare local name; the IRI itself stays in the link's title.
//!
//! Names are looked up once per page and term (a page names the same classes and properties
//! many times).

use crate::error::ApiError;
use lodestone_indexer::{IndexError, SearchHit, TextIndex};
use lodestone_store::{Reader, TermId};
use lodestone_web::ui::Prefixes;
use oxrdf::{NamedNodeRef, Term};
use std::collections::HashMap;
use std::time::Duration;

/// The languages labels are chosen in (the pages are in English).
const PAGE_LANGUAGES: [&str; 1] = ["en"];

/// The names of the terms of one page, read from one snapshot.
pub(super) struct Names<'r, 's> {
    reader: &'r Reader<'s>,
    index: Option<&'r TextIndex>,
    prefixes: &'r Prefixes,
    langs: Vec<String>,
    known: HashMap<String, String>,
}

impl<'r, 's> Names<'r, 's> {
    /// Names from `reader`'s snapshot, with labels from `index` when there is one.
    pub(super) fn new(
        reader: &'r Reader<'s>,
        index: Option<&'r TextIndex>,
        prefixes: &'r Prefixes,
    ) -> Self {
        Self {
            reader,
            index,
            prefixes,
            langs: PAGE_LANGUAGES.iter().map(|l| (*l).to_owned()).collect(),
            known: HashMap::new(),
        }
    }

    /// The languages labels are chosen in.
    pub(super) fn languages(&self) -> &[String] {
        &self.langs
    }

    /// The name of an IRI.
    pub(super) fn iri(&mut self, iri: &str) -> Result<String, ApiError> {
        if let Some(name) = self.known.get(iri) {
            return Ok(name.clone());
        }
        let id = match NamedNodeRef::new(iri) {
            Ok(node) => self
                .reader
                .term_id(node.into())
                .map_err(|e| ApiError::from_store(e, Duration::ZERO))?,
            Err(_) => None,
        };
        let name = match id {
            Some(id) => self.label(id)?,
            None => None,
        }
        .unwrap_or_else(|| self.prefixes.short(iri));
        self.known.insert(iri.to_owned(), name.clone());
        Ok(name)
    }

    /// The name of any term: an IRI's as [`Names::iri`], a literal's lexical form.
    pub(super) fn term(&mut self, term: &Term) -> Result<String, ApiError> {
        match term {
            Term::NamedNode(n) => self.iri(n.as_str()),
            Term::Literal(l) => Ok(l.value().to_owned()),
            other => Ok(other.to_string()),
        }
    }

    /// The text index's summaries (label, classes, snippet for `words`) of entities, in
    /// their order; `None` for a term that is not an entity of the index, and for every term
    /// when there is no index.
    pub(super) fn summaries(
        &self,
        entities: &[Term],
        words: Option<&str>,
    ) -> Result<Vec<Option<SearchHit>>, ApiError> {
        let Some(index) = self.index else {
            return Ok(vec![None; entities.len()]);
        };
        let mut ids = Vec::with_capacity(entities.len());
        let mut positions = Vec::with_capacity(entities.len());
        for term in entities {
            let id = match term {
                Term::NamedNode(n) => self
                    .reader
                    .term_id(n.as_ref().into())
                    .map_err(|e| ApiError::from_store(e, Duration::ZERO))?,
                _ => None,
            };
            positions.push(id.map(|id| {
                ids.push(id);
                ids.len() - 1
            }));
        }
        let mut found = index
            .searcher()
            .summaries(self.reader, &ids, words, &self.langs)
            .map_err(|e| match e {
                IndexError::Query(e) => ApiError::BadParameter {
                    name: "q",
                    message: e.to_string(),
                },
                other => ApiError::Internal(format!("summaries of results: {other}")),
            })?;
        Ok(positions
            .into_iter()
            .map(|p| p.and_then(|i| found.get_mut(i).and_then(Option::take)))
            .collect())
    }

    fn label(&self, id: TermId) -> Result<Option<String>, ApiError> {
        let Some(index) = self.index else {
            return Ok(None);
        };
        index
            .best_label(self.reader, id, &self.langs)
            .map_err(|e| ApiError::Internal(format!("label of a term: {e}")))
    }
}
