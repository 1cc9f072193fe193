//! The tantivy schema: one document per entity.
//!
//! Nothing but ids is stored in the index: labels, descriptions and snippets are read from the
//! store when a hit is shown, so that they are always current and the index stays small.

use crate::analysis::{stem_analyzer_name, FOLD, STEMMED_LANGUAGES};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STRING,
};

/// Handles of the schema's fields.
#[derive(Debug, Clone)]
pub(crate) struct Fields {
    /// The entity's [`lodestone_store::TermId`] as a u64 (indexed for deletes, fast for hits).
    pub id: Field,
    /// In-degree: quads with the entity as object.
    pub rank: Field,
    /// The entity's IRI (or blank node label), untokenized, for IRI-fragment look-ups.
    pub iri: Field,
    /// Label words (folded).
    pub label: Field,
    /// Each whole label, folded words joined by one space.
    pub label_exact: Field,
    /// Prefixes of every label word, for type-ahead.
    pub label_prefix: Field,
    /// Words of every other literal (folded).
    pub text: Field,
    /// Stemmed words of literals in each stemmed language, in [`STEMMED_LANGUAGES`] order.
    pub stemmed: Vec<Field>,
    /// Language tags of the entity's literals (lower case).
    pub lang: Field,
    /// Classes (`rdf:type` objects), as IRIs.
    pub class: Field,
    /// Named graphs the entity's statements are in, as IRIs.
    pub graph: Field,
}

impl Fields {
    /// The schema and its field handles.
    pub(crate) fn build() -> (Schema, Self) {
        let mut builder = Schema::builder();
        let text_options = |analyzer: &str, record: IndexRecordOption| {
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(analyzer)
                    .set_index_option(record),
            )
        };
        let positions = IndexRecordOption::WithFreqsAndPositions;
        let id = builder.add_u64_field("id", INDEXED | FAST);
        let rank = builder.add_u64_field("rank", FAST);
        let iri = builder.add_text_field("iri", STRING);
        let label = builder.add_text_field("label", text_options(FOLD, positions));
        let label_exact = builder.add_text_field("label_exact", STRING);
        let label_prefix = builder.add_text_field("label_prefix", STRING);
        let text = builder.add_text_field("text", text_options(FOLD, positions));
        let stemmed = STEMMED_LANGUAGES
            .iter()
            .map(|(code, _)| {
                builder.add_text_field(
                    &format!("stem_{code}"),
                    // Stemmed words are matched one by one, never as phrases: no positions.
                    text_options(&stem_analyzer_name(code), IndexRecordOption::WithFreqs),
                )
            })
            .collect();
        let lang = builder.add_text_field("lang", STRING);
        let class = builder.add_text_field("class", STRING);
        let graph = builder.add_text_field("graph", STRING);
        let fields = Self {
            id,
            rank,
            iri,
            label,
            label_exact,
            label_prefix,
            text,
            stemmed,
            lang,
            class,
            graph,
        };
        (builder.build(), fields)
    }

    /// The stemmed field of a language code from [`STEMMED_LANGUAGES`].
    pub(crate) fn stemmed_field(&self, code: &str) -> Option<Field> {
        STEMMED_LANGUAGES
            .iter()
            .position(|(c, _)| *c == code)
            .and_then(|i| self.stemmed.get(i).copied())
    }
}
