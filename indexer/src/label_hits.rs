//! Text hits searched in labels only, for SPARQL text patterns whose literal must be the value
//! of a label property (`?p rdfs:label ?l . ?l bif:contains "w"`).
//!
//! Every label literal of an entity goes to its document's `label` field and nowhere else but
//! the stemmed fields, so the entities holding a label that contains the words (as
//! [`crate::LiteralFilter`] decides it) are among the documents whose *label* words match: the
//! word itself, a word within one edit (words of 5+ letters), a phrase, a prefix, or (for a
//! literal tagged in a stemmed language) a label word with the same stem. A word common in
//! other text and rare in labels (BSBM's review texts and product labels share one word list)
//! then gives a few hits instead of tens of thousands, and no label to read per hit.
//!
//! The stemmed fields mix labels with every other literal, so stems are matched through the
//! label words instead: the words of the `label` field's term dictionary that stem as the query
//! word does. Candidates are those sharing the stem's first two letters (Snowball English
//! changes at most a word's ending; its exceptions `dying`, `lying`, `tying` → `die`, `lie`,
//! `tie` are covered by also trying `y` for a second-letter `i`). Only English is handled this
//! way (the stems of folded words equal those of the literal's words for English text);
//! requests that stem in other languages get no label-only query and are searched in every
//! field, as before.

use crate::analysis::{stem_analyzer_name, stemmed_language, words, FOLD, LONGEST_PREFIX};
use crate::error::IndexError;
use crate::hits::TextRequest;
use crate::query::{QueryError, QueryPart, UserQuery};
use crate::search::{prefix_successor, IndexSearcher};
use lodestone_store::{Reader, TermId};
use std::collections::{BTreeMap, BTreeSet};
use tantivy::query::{BooleanQuery, FuzzyTermQuery, Occur, PhraseQuery, Query};
use tantivy::schema::Term as IndexTerm;
use tantivy::tokenizer::TextAnalyzer;

/// The only stemmed language whose stems the label-only search matches (see the module notes).
const ENGLISH: &str = "en";

/// A text request searched in the label fields only ([`IndexSearcher::label_search`]).
#[derive(Debug)]
pub struct LabelSearch {
    count: usize,
    order: Vec<TermId>,
}

impl LabelSearch {
    /// How many documents matched (deleted entities not yet merged away included).
    pub fn count(&self) -> usize {
        self.count
    }

    /// The ids of the entities found, best first, as [`IndexSearcher::text_entity_ids`]
    /// gives them.
    pub fn into_ids(self) -> Vec<TermId> {
        crate::hits::iris(self.order)
    }
}

impl IndexSearcher<'_> {
    /// Whether the index takes the literals of `predicate` as labels (configured label
    /// properties, or a label-like local name): their words are in the `label` field.
    pub fn is_label_property(
        &self,
        reader: &Reader<'_>,
        predicate: TermId,
    ) -> Result<bool, IndexError> {
        Ok(self
            .vocabulary(reader)?
            .label_priority(reader, predicate)?
            .is_some())
    }

    /// A request's search in labels only: how many documents match and the entities of the
    /// best `limit` documents of each branch, best first (one pass over the index, as
    /// [`IndexSearcher::text_entity_ids`] makes); `None` when the request stems in a language
    /// other than English (see the module notes).
    pub fn label_search(
        &self,
        request: &TextRequest,
        limit: usize,
    ) -> Result<Option<LabelSearch>, IndexError> {
        let Some(queries) = self.label_queries(request)? else {
            return Ok(None);
        };
        let (order, _, count) = self.ranked(&queries, limit)?;
        Ok(Some(LabelSearch { count, order }))
    }

    /// The label-only query of each branch, or `None` (see [`Self::count_label_text`]).
    fn label_queries(
        &self,
        request: &TextRequest,
    ) -> Result<Option<Vec<Box<dyn Query>>>, IndexError> {
        let mut stemmed: Vec<&str> = if request.langs.is_empty() {
            vec![ENGLISH]
        } else {
            request
                .langs
                .iter()
                .filter_map(|l| stemmed_language(l))
                .collect()
        };
        stemmed.dedup();
        if stemmed.iter().any(|code| *code != ENGLISH) {
            return Ok(None);
        }
        let mut stemmer =
            (!stemmed.is_empty()).then(|| self.analyzer(&stem_analyzer_name(ENGLISH)));
        request
            .branches
            .iter()
            .map(|branch| self.label_query(branch, stemmer.as_mut()).map(Some))
            .collect::<Result<Option<Vec<_>>, _>>()
    }

    /// One branch searched in the label fields: every part must match there.
    fn label_query(
        &self,
        query: &UserQuery,
        mut stemmer: Option<&mut TextAnalyzer>,
    ) -> Result<Box<dyn Query>, IndexError> {
        let f = self.fields;
        let mut fold = self.analyzer(FOLD);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for part in query.parts() {
            match part {
                QueryPart::Word(raw) => {
                    let tokens = words(&mut fold, raw);
                    if tokens.len() > 1 {
                        clauses.push((Occur::Must, self.label_phrase(&tokens)));
                        continue;
                    }
                    let Some(token) = tokens.first() else {
                        continue;
                    };
                    let mut any: Vec<(Occur, Box<dyn Query>)> =
                        vec![(Occur::Should, self.term_query(f.label, token))];
                    if token.chars().count() >= 5 {
                        any.push((
                            Occur::Should,
                            Box::new(FuzzyTermQuery::new(
                                IndexTerm::from_field_text(f.label, token),
                                1,
                                true,
                            )),
                        ));
                    }
                    if let Some(stemmer) = stemmer.as_deref_mut() {
                        for stem in words(stemmer, raw) {
                            for word in self.label_words_stemming_to(&stem, stemmer)? {
                                any.push((Occur::Should, self.term_query(f.label, &word)));
                            }
                        }
                    }
                    clauses.push((Occur::Must, Box::new(BooleanQuery::new(any))));
                }
                QueryPart::Prefix(raw) => {
                    let tokens = words(&mut fold, raw);
                    let Some((prefix, before)) = tokens.split_last() else {
                        continue;
                    };
                    for token in before {
                        clauses.push((Occur::Must, self.term_query(f.label, token)));
                    }
                    // Every label word's first 16 letters are indexed: a longer prefix
                    // matches through its first 16 (more documents, never fewer).
                    let short: String = prefix.chars().take(LONGEST_PREFIX).collect();
                    clauses.push((Occur::Must, self.term_query(f.label_prefix, &short)));
                }
                QueryPart::Phrase(raw) => {
                    let tokens = words(&mut fold, raw);
                    match tokens.as_slice() {
                        [] => {}
                        [one] => clauses.push((Occur::Must, self.term_query(f.label, one))),
                        _ => clauses.push((Occur::Must, self.label_phrase(&tokens))),
                    }
                }
            }
        }
        if clauses.is_empty() {
            return Err(QueryError::Empty.into());
        }
        Ok(Box::new(BooleanQuery::new(clauses)))
    }

    fn label_phrase(&self, tokens: &[String]) -> Box<dyn Query> {
        Box::new(PhraseQuery::new(
            tokens
                .iter()
                .map(|t| IndexTerm::from_field_text(self.fields.label, t))
                .collect(),
        ))
    }

    /// The label words (of any segment's term dictionary) whose English stem is `stem`.
    fn label_words_stemming_to(
        &self,
        stem: &str,
        stemmer: &mut TextAnalyzer,
    ) -> Result<BTreeSet<String>, IndexError> {
        let long_enough = stem.chars().count();
        let mut starts: Vec<String> = Vec::new();
        let mut letters = stem.chars();
        match (letters.next(), letters.next()) {
            (Some(a), Some(b)) => {
                starts.push([a, b].iter().collect());
                if b == 'i' {
                    starts.push([a, 'y'].iter().collect());
                }
            }
            _ => starts.push(stem.to_owned()),
        }
        let mut out = BTreeSet::new();
        for segment in self.searcher.segment_readers() {
            let inverted = segment.inverted_index(self.fields.label)?;
            for start in &starts {
                let mut range = inverted.terms().range().ge(start.as_bytes());
                if let Some(end) = prefix_successor(start) {
                    range = range.lt(end.as_bytes());
                }
                let mut stream = range.into_stream()?;
                while stream.advance() {
                    let Ok(word) = std::str::from_utf8(stream.key()) else {
                        continue;
                    };
                    // English stems are never longer than their words.
                    if word.len() >= long_enough
                        && !out.contains(word)
                        && words(stemmer, word) == [stem]
                    {
                        out.insert(word.to_owned());
                    }
                }
            }
        }
        Ok(out)
    }
}

impl IndexSearcher<'_> {
    /// Every word of the labels with the documents holding it in a label and those holding
    /// it in other text (summed over segments; deleted documents not yet merged away count):
    /// how many documents a search for the word matches, before typos and stems. For choosing
    /// words by their hit counts (`lodestone-bench text-sparql`) without sampling documents,
    /// which finds only words that are common.
    pub fn label_word_frequencies(&self) -> Result<Vec<(String, u64, u64)>, IndexError> {
        let mut counts: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for segment in self.searcher.segment_readers() {
            let labels = segment.inverted_index(self.fields.label)?;
            let text = segment.inverted_index(self.fields.text)?;
            let mut stream = labels.terms().stream()?;
            while stream.advance() {
                let Ok(word) = std::str::from_utf8(stream.key()) else {
                    continue;
                };
                let in_text = text
                    .terms()
                    .get(stream.key())?
                    .map_or(0, |info| u64::from(info.doc_freq));
                let entry = counts.entry(word.to_owned()).or_default();
                entry.0 += u64::from(stream.value().doc_freq);
                entry.1 += in_text;
            }
        }
        Ok(counts
            .into_iter()
            .map(|(word, (labels, text))| (word, labels, text))
            .collect())
    }
}
