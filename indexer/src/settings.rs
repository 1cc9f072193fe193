//! What the index treats as a label, a description, and how it ranks.

use lodestone_vocab::labels::{DEFAULT_LABEL_PROPERTIES, LABEL_LOCAL_NAMES};

/// Settings of the text index; [`IndexSettings::default`] suits most vocabularies.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSettings {
    /// Label properties, most preferred first: a label from an earlier property wins when
    /// several exist in the chosen language.
    pub label_predicates: Vec<String>,
    /// Description properties, most preferred first (search hits show the first found).
    pub description_predicates: Vec<String>,
    /// Local names (after the last `/` or `#`, any case) that make any other property a
    /// label property, ranked after the configured ones (`http://example.org/name`).
    pub label_local_names: Vec<String>,
    /// Local names that make any other property a description property.
    pub description_local_names: Vec<String>,
    /// Words never indexed nor searched (after lower-casing and accent folding).
    pub stop_words: Vec<String>,
    /// Ranking weights.
    pub weights: RankingWeights,
    /// Longest query accepted, in characters.
    pub max_query_chars: usize,
    /// Memory of tantivy's writer in bytes (split among its threads).
    pub writer_memory_bytes: usize,
    /// Bytes of term dictionaries one merge of a full build's segments may hold in memory
    /// (tantivy reads each input segment's whole): a build larger than that merges in
    /// rounds, and may end with several segments (see `docs/architecture.md`).
    pub merge_memory_bytes: usize,
    /// Changed subjects above which catching up rebuilds the whole index instead.
    pub rebuild_threshold: usize,
}

/// The weights of the ranking formula (documented in `docs/architecture.md`):
///
/// `score = Σ per word [label_word_score if a label has it (× fuzzy_boost within one edit)]
///            + bm25(text, stemmed × stem_boost, fuzzy × fuzzy_boost)
///          + exact_label_boost [label equals the query]
///          + prefix_label_boost [a label word starts with the last query word]
///          + proximity_boost × bm25(words within `proximity_slop` of one another)`
/// then `× (1 + rank_weight · ln(1 + w))`, `w` the weight of use (`crate::popularity`:
/// references + √statements describing it + entity rank). A label word scores a constant
/// rather than BM25: an entity labelled in thirty languages is not less relevant than one
/// labelled once, which BM25's length normalisation of the label field would make it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankingWeights {
    /// Multiplier of phrase and prefix matches in labels over those in other literal text.
    pub label_boost: f32,
    /// Score of a query word found in a label (whatever the label's length).
    pub label_word_score: f32,
    /// Multiplier of matches of the stemmed words.
    pub stem_boost: f32,
    /// Multiplier of typo-tolerant matches (words of 5+ letters, one edit).
    pub fuzzy_boost: f32,
    /// Added when a label equals the whole query (case and accents aside).
    pub exact_label_boost: f32,
    /// Added when a label word starts with the last query word.
    pub prefix_label_boost: f32,
    /// Multiplier of the phrase-with-slop match of all query words.
    pub proximity_boost: f32,
    /// Words apart that still count as "close together".
    pub proximity_slop: u32,
    /// Weight of the entity's damped weight of use (`k` of `crate::popularity`).
    pub rank_weight: f32,
}

impl Default for RankingWeights {
    fn default() -> Self {
        Self {
            label_boost: 3.0,
            label_word_score: 12.0,
            stem_boost: 0.5,
            fuzzy_boost: 0.3,
            exact_label_boost: 10.0,
            prefix_label_boost: 2.0,
            proximity_boost: 1.0,
            proximity_slop: 3,
            rank_weight: 0.1,
        }
    }
}

impl Default for IndexSettings {
    fn default() -> Self {
        let strings = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect();
        Self {
            // The label rule shared by every surface (lodestone_vocab::labels).
            label_predicates: strings(&DEFAULT_LABEL_PROPERTIES),
            description_predicates: strings(&[
                "http://www.w3.org/2004/02/skos/core#definition",
                "http://purl.org/dc/terms/description",
                "http://purl.org/dc/elements/1.1/description",
                "http://schema.org/description",
                "https://schema.org/description",
                "http://dbpedia.org/ontology/abstract",
                "http://www.w3.org/2000/01/rdf-schema#comment",
                "http://www.w3.org/2004/02/skos/core#scopeNote",
            ]),
            label_local_names: strings(&LABEL_LOCAL_NAMES),
            description_local_names: strings(&["description", "abstract", "comment", "definition"]),
            stop_words: Vec::new(),
            weights: RankingWeights::default(),
            max_query_chars: 500,
            // A full build leaves a segment per writer heap; at 200 MB a 100 M-quad build left
            // 121 segments that merged in three rounds (470 s), at 512 MB 32 in one (229 s).
            writer_memory_bytes: 512 << 20,
            merge_memory_bytes: 512 << 20,
            rebuild_threshold: 200_000,
        }
    }
}

impl IndexSettings {
    /// tantivy writer threads and heap for [`IndexSettings::writer_memory_bytes`]: one thread
    /// per core (at most 4), fewer when the budget is small, since tantivy wants at least
    /// 15 MB of heap per indexing thread.
    pub fn writer_budget(&self) -> (usize, usize) {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get().min(4))
            .min((self.writer_memory_bytes / (20 << 20)).max(1));
        (threads, self.writer_memory_bytes.max((threads * 15) << 20))
    }

    /// These settings with the writer's heap and a merge's term dictionaries each held to a
    /// quarter of a process's memory budget (`--memory-budget`), at most their own values.
    pub fn within_budget(mut self, memory_bytes: usize) -> Self {
        self.writer_memory_bytes = self.writer_memory_bytes.min(memory_bytes / 4);
        self.merge_memory_bytes = self.merge_memory_bytes.min(memory_bytes / 4);
        self
    }

    /// A hash of the settings that shape documents (label and description properties, stop
    /// words) and of the analysis version: an index built with other ones is rebuilt at open.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (
            &self.label_predicates,
            &self.description_predicates,
            &self.label_local_names,
            &self.description_local_names,
            &self.stop_words,
            crate::analysis::ANALYSIS_VERSION,
        )
            .hash(&mut hasher);
        hasher.finish()
    }

    /// Replaces the label properties (most preferred first).
    pub fn with_label_predicates(mut self, predicates: Vec<String>) -> Self {
        self.label_predicates = predicates;
        self
    }

    /// Replaces the stop words.
    pub fn with_stop_words(mut self, words: Vec<String>) -> Self {
        self.stop_words = words;
        self
    }

    /// Replaces the ranking weights.
    pub fn with_weights(mut self, weights: RankingWeights) -> Self {
        self.weights = weights;
        self
    }
}
