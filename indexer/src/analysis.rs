//! Text analysis: how literals and queries become terms.
//!
//! Every text field uses the folding analyzer (split on non-alphanumerics, lower-case, fold
//! letters with combining marks to their base letters in every script (`marks`), fold
//! accents to ASCII, drop configured stop words), so that search is case- and
//! accent-insensitive, polytonic Greek `ἀθ` included. Literals tagged with a language that has a Snowball stemmer are also
//! indexed, stemmed, in that language's own field; a query is stemmed for the languages the
//! client asked for. The same analyzer produces the label words whose prefixes feed type-ahead,
//! so that query and index always agree on what a word is.

use crate::marks::MarkFolder;
use std::ops::Range;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, TokenizerManager,
};

/// Version of the analysis, part of the settings fingerprint: an index built by an older
/// analysis (before mark folding, version 1) is rebuilt at open.
pub(crate) const ANALYSIS_VERSION: u32 = 2;

/// Name of the folding analyzer in tantivy's tokenizer manager.
pub(crate) const FOLD: &str = "lodestone_fold";

/// Longest word indexed, in bytes; longer tokens are dropped (base64 blobs, hashes).
const LONGEST_WORD: usize = 60;

/// Longest label-word prefix indexed for type-ahead, in characters.
pub(crate) const LONGEST_PREFIX: usize = 16;

/// Languages with a stemmed field: (BCP 47 primary subtag, Snowball stemmer).
pub(crate) const STEMMED_LANGUAGES: [(&str, Language); 14] = [
    ("en", Language::English),
    ("de", Language::German),
    ("fr", Language::French),
    ("es", Language::Spanish),
    ("it", Language::Italian),
    ("nl", Language::Dutch),
    ("pt", Language::Portuguese),
    ("sv", Language::Swedish),
    ("da", Language::Danish),
    ("no", Language::Norwegian),
    ("fi", Language::Finnish),
    ("ru", Language::Russian),
    ("hu", Language::Hungarian),
    ("ro", Language::Romanian),
];

/// The analyzer name of one stemmed language.
pub(crate) fn stem_analyzer_name(code: &str) -> String {
    format!("lodestone_stem_{code}")
}

/// The folding analyzer with the given stop words.
pub(crate) fn folding_analyzer(stop_words: &[String]) -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(LONGEST_WORD))
        .filter(LowerCaser)
        .filter(MarkFolder)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(stop_words.iter().cloned()))
        .build()
}

fn stemming_analyzer(language: Language, stop_words: &[String]) -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(LONGEST_WORD))
        .filter(LowerCaser)
        .filter(StopWordFilter::remove(stop_words.iter().cloned()))
        .filter(Stemmer::new(language))
        .filter(MarkFolder)
        .filter(AsciiFoldingFilter)
        .build()
}

/// Registers the folding analyzer and every stemming one.
pub(crate) fn register_analyzers(manager: &TokenizerManager, stop_words: &[String]) {
    manager.register(FOLD, folding_analyzer(stop_words));
    for (code, language) in STEMMED_LANGUAGES {
        manager.register(
            &stem_analyzer_name(code),
            stemming_analyzer(language, stop_words),
        );
    }
}

/// The stemmed language of a language tag (`en-GB` → `en`), if there is one.
pub(crate) fn stemmed_language(tag: &str) -> Option<&'static str> {
    let primary = tag.split('-').next().unwrap_or(tag);
    STEMMED_LANGUAGES
        .iter()
        .map(|(code, _)| *code)
        .find(|code| primary.eq_ignore_ascii_case(code))
}

/// The words of a text as the analyzer makes them, with their byte offsets in the text.
pub(crate) fn words_with_offsets(
    analyzer: &mut TextAnalyzer,
    text: &str,
) -> Vec<(String, Range<usize>)> {
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let token = stream.token();
        out.push((token.text.clone(), token.offset_from..token.offset_to));
    }
    out
}

/// The words of a text as the analyzer makes them.
pub(crate) fn words(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// Whether a label says exactly what `text` says, as type-ahead and URI lookup define an exact
/// label: the same words as the analyzer makes them (case, accents and marks folded), the same
/// letters and digits between two words (words the analyzer drops, stop words or over-long
/// ones, count: `Lord of the Rings` is not `lord rings`; punctuation and whitespace between
/// two words are only separators), and the same characters before the first word and after
/// the last, ignoring case and whitespace. `St. Louis` equals `st louis`; a fragment of a
/// legend, `Athe…` or `Athe(…)`, does not equal `athe` (only `athe…`), although all three
/// hold the `label_exact` term `athe`.
pub(crate) fn same_label(analyzer: &mut TextAnalyzer, label: &str, text: &str) -> bool {
    let ours = words_with_offsets(analyzer, label);
    let theirs = words_with_offsets(analyzer, text);
    !ours.is_empty()
        && ours.len() == theirs.len()
        && ours.iter().zip(&theirs).all(|(a, b)| a.0 == b.0)
        && edges(label, &ours) == edges(text, &theirs)
        && gaps(label, &ours).eq(gaps(text, &theirs))
}

/// What a text holds before its first word and after its last, lower-cased, without
/// whitespace.
fn edges(text: &str, words: &[(String, Range<usize>)]) -> (String, String) {
    let start = words.first().map_or(0, |(_, span)| span.start);
    let end = words.last().map_or(text.len(), |(_, span)| span.end);
    let fold = |part: Option<&str>| -> String {
        part.unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    (fold(text.get(..start)), fold(text.get(end..)))
}

/// The letters and digits between each two consecutive words of a text (what the analyzer
/// dropped there), lower-cased.
fn gaps<'t>(
    text: &'t str,
    words: &'t [(String, Range<usize>)],
) -> impl Iterator<Item = String> + 't {
    words.windows(2).map(move |pair| {
        text.get(pair[0].1.end..pair[1].1.start)
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    })
}

/// Every prefix (1 to [`LONGEST_PREFIX`] characters) of a word.
pub(crate) fn prefixes(word: &str) -> impl Iterator<Item = &str> {
    word.char_indices()
        .skip(1)
        .map(|(i, _)| i)
        .chain(std::iter::once(word.len()))
        .take(LONGEST_PREFIX)
        .map(move |end| &word[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_ignores_case_and_accents() {
        let mut analyzer = folding_analyzer(&[]);
        assert_eq!(words(&mut analyzer, "Zürich, ÉCOLE"), ["zurich", "ecole"]);
    }

    #[test]
    fn polytonic_greek_matches_its_base_letters() {
        let mut analyzer = folding_analyzer(&[]);
        assert_eq!(
            words(&mut analyzer, "Ἀθῆναι"),
            words(&mut analyzer, "αθηναι")
        );
        assert_eq!(words(&mut analyzer, "ἀθ"), words(&mut analyzer, "Αθ"));
    }

    #[test]
    fn stop_words_are_dropped() {
        let mut analyzer = folding_analyzer(&["the".to_owned()]);
        assert_eq!(words(&mut analyzer, "The Wall"), ["wall"]);
    }

    #[test]
    fn an_exact_label_ignores_case_marks_and_inner_punctuation_but_not_its_edges() {
        let mut analyzer = folding_analyzer(&[]);
        let mut same = |label: &str, text: &str| same_label(&mut analyzer, label, text);
        assert!(same("Athens", "athens"));
        assert!(same("  Athens ", "ATHENS"));
        assert!(same("St. Louis", "st louis"));
        assert!(same("Jean-Luc  Godard", "jean luc godard"));
        assert!(same("Zürich", "zurich"));
        assert!(same("Ἀθῆναι", "αθηναι"));
        // A legend's fragment is not the word it starts.
        assert!(!same("Athe…", "athe"));
        assert!(!same("Athe(…)", "athe"));
        assert!(!same("[Athe]", "athe"));
        assert!(same("Athe…", "athe…"));
        assert!(same("Athe(…)", "ATHE (…)"));
        // Other words, fewer words, none.
        assert!(!same("Athens", "athe"));
        assert!(!same("Athe Street", "athe"));
        assert!(!same("…", "…"));
    }

    #[test]
    fn an_exact_label_keeps_the_punctuation_at_its_edges_in_any_script() {
        let mut analyzer = folding_analyzer(&[]);
        let mut same = |label: &str, text: &str| same_label(&mut analyzer, label, text);
        assert!(!same("Ἀθῆναι.", "αθηναι"));
        assert!(same("«Ἀθῆναι»", "«ΑΘΗΝΑΙ»"));
        assert!(!same("¿Qué?", "que"));
        assert!(same("¿Qué?", "¿QUE?"));
        assert!(!same("Athe-", "athe"));
        assert!(!same("'Athe", "athe"));
        // Inner punctuation is a separator, whatever it is.
        assert!(same("Athe… Street", "athe street"));
        assert!(same("São_Paulo", "sao paulo"));
        // Digits are words.
        assert!(same("Route 66", "route 66"));
        assert!(!same("Route 66", "route"));
    }

    #[test]
    fn an_exact_label_counts_the_words_the_analyzer_drops() {
        let mut analyzer = folding_analyzer(&["of".to_owned(), "the".to_owned()]);
        let mut same = |label: &str, text: &str| same_label(&mut analyzer, label, text);
        assert!(same("Lord of the Rings", "lord of the rings"));
        assert!(same("Lord of the Rings", "LORD OF THE RINGS"));
        assert!(!same("Lord of the Rings", "lord rings"));
        assert!(!same("Lord of the Rings", "lord the rings"));
        assert!(!same("The Wall", "wall"));
        assert!(same("The Wall", "the wall"));
        // Made of stop words only: no words, never exact.
        assert!(!same("The", "the"));
        // Over-long tokens are dropped too.
        let blob = "x".repeat(LONGEST_WORD + 1);
        assert!(!same(&format!("tag {blob} end"), "tag end"));
        assert!(same(&format!("tag {blob} end"), &format!("TAG {blob} END")));
    }

    #[test]
    fn an_exact_label_is_reflexive_and_symmetric() {
        let mut analyzer = folding_analyzer(&["the".to_owned()]);
        let samples = [
            "Athens",
            "Athe…",
            "Athe(…)",
            "St. Louis",
            "Zürich",
            "Ἀθῆναι",
            "The Wall",
            "Jean-Luc Godard",
            "¿Qué?",
            "Route 66",
            "a  b",
            "x.y.z",
        ];
        for a in samples {
            assert!(same_label(&mut analyzer, a, a), "{a}");
            assert!(same_label(&mut analyzer, a, &a.to_lowercase()), "{a}");
            for b in samples {
                assert_eq!(
                    same_label(&mut analyzer, a, b),
                    same_label(&mut analyzer, b, a),
                    "{a} / {b}"
                );
            }
        }
    }

    #[test]
    fn prefixes_are_bounded_and_char_aligned() {
        assert_eq!(prefixes("abc").collect::<Vec<_>>(), ["a", "ab", "abc"]);
        assert_eq!(prefixes("été").collect::<Vec<_>>(), ["é", "ét", "été"]);
        assert_eq!(prefixes(&"x".repeat(40)).count(), LONGEST_PREFIX);
    }

    #[test]
    fn language_tags_map_to_stemmers() {
        assert_eq!(stemmed_language("en-GB"), Some("en"));
        assert_eq!(stemmed_language("DE"), Some("de"));
        assert_eq!(stemmed_language("la"), None);
    }
}
