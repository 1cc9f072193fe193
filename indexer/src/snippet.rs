//! Snippets: the literal that best matches the query, cut around the matches, with the
//! matched words marked and the property it came from.

use crate::analysis::words_with_offsets;
use crate::entity::LiteralText;
use lodestone_store::TermId;
use std::ops::Range;
use tantivy::tokenizer::TextAnalyzer;

/// Longest snippet, in bytes (cut at character boundaries).
const SNIPPET_BYTES: usize = 240;
/// Context kept before the first match when a literal is cut.
const LEAD_BYTES: usize = 60;

/// A piece of one literal with the words that matched the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The property of the literal.
    pub property: TermId,
    /// The text shown (a window of the literal; `…` marks a cut).
    pub text: String,
    /// Byte ranges of `text` that matched, in order, not overlapping.
    pub highlights: Vec<Range<usize>>,
}

impl Snippet {
    /// The text with every match in `<b>…</b>`, everything else HTML-escaped.
    pub fn to_html(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        let mut at = 0;
        for range in &self.highlights {
            escape_into(&self.text[at..range.start], &mut out);
            out.push_str("<b>");
            escape_into(&self.text[range.clone()], &mut out);
            out.push_str("</b>");
            at = range.end;
        }
        escape_into(&self.text[at..], &mut out);
        out
    }
}

fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// The analyzed query words a snippet looks for.
#[derive(Debug, Clone, Default)]
pub(crate) struct WordMatcher {
    /// Whole words (typos of one edit forgiven for 5+ letters).
    pub words: Vec<String>,
    /// Word prefixes.
    pub prefixes: Vec<String>,
}

impl WordMatcher {
    fn matches(&self, token: &str) -> Option<usize> {
        if let Some(i) = self
            .words
            .iter()
            .position(|w| w == token || (w.chars().count() >= 5 && within_one_edit(w, token)))
        {
            return Some(i);
        }
        self.prefixes
            .iter()
            .position(|p| token.starts_with(p.as_str()))
            .map(|i| i + self.words.len())
    }
}

/// Whether two words differ by at most one insertion, deletion or substitution.
pub(crate) fn within_one_edit(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        short[prefix + 1.min(short.len() - prefix)..] == long[prefix + 1.min(long.len() - prefix)..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

/// Where a query word matched in a literal: the byte range and the word's index.
type WordMatch = (Range<usize>, usize);

/// How well a literal matches: distinct query words, words spelled as typed, whether a label.
type SnippetRank = (usize, usize, bool);

/// The best snippet among an entity's literals: the one matching the most distinct query
/// words (exact spellings, then labels, win ties), cut to [`SNIPPET_BYTES`] around its first match.
pub(crate) fn best_snippet(
    literals: &[LiteralText],
    is_label: impl Fn(TermId) -> bool,
    matcher: &WordMatcher,
    analyzer: &mut TextAnalyzer,
) -> Option<Snippet> {
    let mut best: Option<(SnippetRank, &LiteralText, Vec<WordMatch>)> = None;
    for literal in literals {
        let mut matched = Vec::new();
        let mut ranges = Vec::new();
        let mut exact = 0;
        for (token, range) in words_with_offsets(analyzer, &literal.text) {
            if let Some(i) = matcher.matches(&token) {
                if !matched.contains(&i) {
                    matched.push(i);
                }
                if matcher.words.contains(&token) {
                    exact += 1;
                }
                ranges.push((range, i));
            }
        }
        if matched.is_empty() {
            continue;
        }
        // Most query words first; then words spelled as typed (not a typo's neighbour:
        // "Athens" before "Athena"); then labels.
        let key = (matched.len(), exact, is_label(literal.predicate));
        if best.as_ref().is_none_or(|(best_key, _, _)| key > *best_key) {
            best = Some((key, literal, ranges));
        }
    }
    let (_, literal, ranges) = best?;
    Some(cut(literal, &ranges))
}

/// Cuts the literal to the window that holds the most distinct query words (the earliest such
/// window on a tie), with some context before its first match.
fn cut(literal: &LiteralText, matches: &[WordMatch]) -> Snippet {
    let text = &literal.text;
    let ranges: Vec<Range<usize>> = matches.iter().map(|(r, _)| r.clone()).collect();
    if text.len() <= SNIPPET_BYTES {
        return Snippet {
            property: literal.predicate,
            text: text.clone(),
            highlights: ranges,
        };
    }
    let span = SNIPPET_BYTES - LEAD_BYTES;
    let mut first = 0;
    let mut best_count = 0;
    for (range, _) in matches {
        let mut words: Vec<usize> = matches
            .iter()
            .filter(|(r, _)| r.start >= range.start && r.end <= range.start + span)
            .map(|(_, w)| *w)
            .collect();
        words.sort_unstable();
        words.dedup();
        if words.len() > best_count {
            best_count = words.len();
            first = range.start;
        }
    }
    let mut start = first.saturating_sub(LEAD_BYTES);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + SNIPPET_BYTES).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let lead = if start > 0 { "…" } else { "" };
    let tail = if end < text.len() { "…" } else { "" };
    let shift = lead.len();
    let highlights = ranges
        .iter()
        .filter(|r| r.start >= start && r.end <= end)
        .map(|r| r.start - start + shift..r.end - start + shift)
        .collect();
    Snippet {
        property: literal.predicate,
        text: format!("{lead}{}{tail}", &text[start..end]),
        highlights,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::folding_analyzer;

    fn literal(text: &str) -> LiteralText {
        LiteralText {
            predicate: TermId::DEFAULT_GRAPH,
            text: text.to_owned(),
            lang: None,
        }
    }

    #[test]
    fn the_literal_with_most_matches_is_marked_and_escaped() {
        let literals = [literal("A gold coin"), literal("Gold <coin> of Rome")];
        let matcher = WordMatcher {
            words: vec!["gold".into(), "rome".into()],
            prefixes: vec![],
        };
        let snippet = best_snippet(&literals, |_| false, &matcher, &mut folding_analyzer(&[]))
            .expect("a snippet");
        assert_eq!(snippet.to_html(), "<b>Gold</b> &lt;coin&gt; of <b>Rome</b>");
    }

    #[test]
    fn a_word_as_typed_beats_a_typo_neighbour() {
        let literals = [literal("Athena"), literal("Athens")];
        let matcher = WordMatcher {
            words: vec!["athens".into()],
            prefixes: vec![],
        };
        let snippet = best_snippet(&literals, |_| true, &matcher, &mut folding_analyzer(&[]))
            .expect("a snippet");
        assert_eq!(snippet.to_html(), "<b>Athens</b>");
    }

    #[test]
    fn long_literals_are_cut_around_the_match() {
        let text = format!("{} needle {}", "hay ".repeat(100), "hay ".repeat(100));
        let matcher = WordMatcher {
            words: vec!["needle".into()],
            prefixes: vec![],
        };
        let snippet = best_snippet(
            &[literal(&text)],
            |_| false,
            &matcher,
            &mut folding_analyzer(&[]),
        )
        .expect("a snippet");
        assert!(snippet.text.starts_with('…') && snippet.text.ends_with('…'));
        assert!(snippet.to_html().contains("<b>needle</b>"));
    }

    #[test]
    fn the_window_holds_the_most_query_words() {
        let text = format!(
            "needle {} pin and needle {}",
            "hay ".repeat(100),
            "hay ".repeat(100)
        );
        let matcher = WordMatcher {
            words: vec!["needle".into(), "pin".into()],
            prefixes: vec![],
        };
        let snippet = best_snippet(
            &[literal(&text)],
            |_| false,
            &matcher,
            &mut folding_analyzer(&[]),
        )
        .expect("a snippet");
        let html = snippet.to_html();
        assert!(html.contains("<b>pin</b> and <b>needle</b>"), "{html}");
    }

    #[test]
    fn one_edit_apart() {
        assert!(within_one_edit("berlin", "berlim"));
        assert!(within_one_edit("berlin", "berln"));
        assert!(within_one_edit("berlin", "berlins"));
        assert!(!within_one_edit("berlin", "brelin"));
        assert!(!within_one_edit("berlin", "paris"));
    }
}
