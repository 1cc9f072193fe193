//! A token filter that folds letters with combining marks to their base letters in every
//! script: `ἀθῆναι` → `αθηναι`, `Ἀθήνα` → `αθηνα`, `שָׁלוֹם` → `שלום`, `Zürich` → `zurich`.
//!
//! Each token is decomposed (Unicode NFD) and its diacritical marks dropped: the combining
//! diacritical blocks shared by Latin, Greek and Cyrillic, and the vowel points of Hebrew and
//! Arabic. Marks that are letters' vowels (Indic vowel signs) stay, since dropping them
//! changes the word. tantivy's ASCII folding, which runs after it, covers what NFD leaves
//! (`ø`, `ß`, ligatures).

use icu_normalizer::DecomposingNormalizerBorrowed;
use std::mem;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// Whether `c` is a diacritical mark folded away.
pub(crate) fn is_folded_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}' // combining diacritical marks (Latin, Greek, Cyrillic)
        | '\u{1AB0}'..='\u{1AFF}' // combining diacritical marks extended
        | '\u{1DC0}'..='\u{1DFF}' // combining diacritical marks supplement
        | '\u{20D0}'..='\u{20FF}' // combining marks for symbols
        | '\u{FE20}'..='\u{FE2F}' // combining half marks
        | '\u{0591}'..='\u{05BD}' | '\u{05BF}' | '\u{05C1}' | '\u{05C2}' | '\u{05C4}'
        | '\u{05C5}' | '\u{05C7}' // Hebrew points and accents
        | '\u{0610}'..='\u{061A}' | '\u{064B}'..='\u{065F}' | '\u{0670}'
        | '\u{06D6}'..='\u{06DC}' | '\u{06DF}'..='\u{06E4}' | '\u{06E7}' | '\u{06E8}'
        | '\u{06EA}'..='\u{06ED}' // Arabic harakat and Quranic marks
    )
}

/// `text` with its letters folded to their base letters (see the module).
pub(crate) fn fold_marks(text: &str) -> String {
    DecomposingNormalizerBorrowed::new_nfd()
        .normalize(text)
        .chars()
        .filter(|c| !is_folded_mark(*c))
        .collect()
}

/// The token filter of [`fold_marks`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MarkFolder;

impl TokenFilter for MarkFolder {
    type Tokenizer<T: Tokenizer> = MarkFolderFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> Self::Tokenizer<T> {
        MarkFolderFilter { tokenizer }
    }
}

/// [`MarkFolder`] around a tokenizer.
#[derive(Clone)]
pub(crate) struct MarkFolderFilter<T> {
    tokenizer: T,
}

impl<T: Tokenizer> Tokenizer for MarkFolderFilter<T> {
    type TokenStream<'a> = MarkFolderStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        MarkFolderStream {
            tail: self.tokenizer.token_stream(text),
        }
    }
}

/// The tokens of [`MarkFolderFilter`].
pub(crate) struct MarkFolderStream<T> {
    tail: T,
}

impl<T: TokenStream> TokenStream for MarkFolderStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        // ASCII has no marks: the common case costs one scan.
        if !self.tail.token().text.is_ascii() {
            let folded = fold_marks(&self.tail.token().text);
            let _ = mem::replace(&mut self.tail.token_mut().text, folded);
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polytonic_greek_folds_to_base_letters() {
        assert_eq!(fold_marks("ἀθῆναι"), "αθηναι");
        assert_eq!(fold_marks("Ἀθήνα"), "Αθηνα");
        assert_eq!(fold_marks("ἀθ"), fold_marks("αθ"));
    }

    #[test]
    fn other_scripts_with_marks_fold() {
        assert_eq!(fold_marks("Zürich"), "Zurich");
        assert_eq!(fold_marks("Ёлка"), "Елка");
        assert_eq!(fold_marks("שָׁלוֹם"), "שלום");
        assert_eq!(fold_marks("مُحَمَّد"), "محمد");
        // Indic vowel signs are letters' vowels: they stay.
        assert_eq!(fold_marks("हिन्दी").chars().count(), "हिन्दी".chars().count());
    }
}
