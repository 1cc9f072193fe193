//! The literals of an entity that contain the words of a text constraint: the
//! `text-properties` view counts their properties, and the text rows of the Facets Web
//! Service show the graph of the first one and an excerpt of it.
//!
//! A literal matches as with [`LiteralScanMatcher`](crate::text::LiteralScanMatcher): it
//! contains every word, ignoring case. With the text index as matcher (which tokenizes and
//! stems) an entity may match without such a literal; its row then has no graph and no
//! excerpt, and it adds to no property's count.

use crate::budget::Ticker;
use crate::error::EngineError;
use crate::text::{is_literal_id, literal_contains_words};
use lodestone_store::{EncodedQuad, Reader, TermId};
use oxrdf::Term;
use rustc_hash::{FxHashMap, FxHashSet};

/// Most quads of one entity read to find its matching literals.
pub const MAX_QUADS_PER_ENTITY: usize = 10_000;

/// Longest excerpt, in characters, before it is shortened around the first word.
pub const EXCERPT_CHARS: usize = 200;

/// The quads with `entity` as subject (in `graph` when given) whose object is a literal
/// containing every word, with that literal; at most `max`.
pub fn matching_literals(
    reader: &Reader<'_>,
    entity: TermId,
    words: &[String],
    graph: Option<TermId>,
    max: usize,
) -> Result<Vec<(EncodedQuad, Term)>, EngineError> {
    let mut out = Vec::new();
    if words.is_empty() {
        return Ok(out);
    }
    for quad in reader
        .quads_for_pattern(Some(entity), None, None, graph)
        .take(MAX_QUADS_PER_ENTITY)
    {
        let quad = quad?;
        if !is_literal_id(quad.object) {
            continue;
        }
        let term = reader.term(quad.object)?;
        if literal_contains_words(&term, words) {
            out.push((quad, term));
            if out.len() >= max {
                break;
            }
        }
    }
    Ok(out)
}

/// Per property, the focus terms with a literal value of it containing every word; `false`
/// when the ticker ran out first (then the counts are those made so far).
pub fn text_properties(
    reader: &Reader<'_>,
    members: &[TermId],
    words: &[String],
    graph: Option<TermId>,
    ticker: &mut Ticker,
) -> Result<(Vec<(TermId, f64)>, bool), EngineError> {
    let mut counts: FxHashMap<TermId, u64> = FxHashMap::default();
    let mut complete = true;
    for &member in members {
        match ticker.tick() {
            Ok(()) => {}
            Err(EngineError::OutOfTime) => {
                complete = false;
                break;
            }
            Err(e) => return Err(e),
        }
        let properties: FxHashSet<TermId> =
            matching_literals(reader, member, words, graph, usize::MAX)?
                .into_iter()
                .map(|(quad, _)| quad.predicate)
                .collect();
        for p in properties {
            *counts.entry(p).or_default() += 1;
        }
    }
    let rows = counts.into_iter().map(|(k, c)| (k, c as f64)).collect();
    Ok((rows, complete))
}

/// `text` with every occurrence of the words marked `<b>…</b>`, cut to about
/// [`EXCERPT_CHARS`] characters around the first occurrence (`…` where cut).
pub fn excerpt(text: &str, words: &[String]) -> String {
    let lower = text.to_lowercase();
    // Byte offsets are shared only when lowercasing kept every length (otherwise no marks).
    let marks: Vec<(usize, usize)> = if lower.len() == text.len() {
        let mut marks: Vec<(usize, usize)> = words
            .iter()
            .filter(|w| !w.is_empty())
            .flat_map(|w| {
                lower
                    .match_indices(w.as_str())
                    .map(|(i, m)| (i, i + m.len()))
            })
            .collect();
        marks.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (start, end) in marks {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        merged
    } else {
        Vec::new()
    };
    let first = marks.first().map_or(0, |m| m.0);
    let (from, to) = window(text, first);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let mut at = from;
    for &(start, end) in &marks {
        if start < at || end > to {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str("<b>");
        out.push_str(&text[start..end]);
        out.push_str("</b>");
        at = end;
    }
    out.push_str(&text[at..to]);
    if to < text.len() {
        out.push('…');
    }
    out
}

/// The byte range of at most [`EXCERPT_CHARS`] characters of `text` starting a little before
/// `around`, on character boundaries.
fn window(text: &str, around: usize) -> (usize, usize) {
    if text.chars().count() <= EXCERPT_CHARS {
        return (0, text.len());
    }
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let position = boundaries.partition_point(|&b| b < around);
    let start = position.saturating_sub(EXCERPT_CHARS / 4);
    let end = (start + EXCERPT_CHARS).min(boundaries.len() - 1);
    let start = end.saturating_sub(EXCERPT_CHARS).min(start);
    (boundaries[start], boundaries[end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_marked_ignoring_case() {
        let words = vec!["coin".to_owned(), "rome".to_owned()];
        assert_eq!(
            excerpt("A Coin struck at Rome", &words),
            "A <b>Coin</b> struck at <b>Rome</b>"
        );
    }

    #[test]
    fn long_texts_are_cut_around_the_first_word() {
        let text = format!("{} needle {}", "a".repeat(500), "b".repeat(500));
        let out = excerpt(&text, &["needle".to_owned()]);
        assert!(out.starts_with('…') && out.ends_with('…'), "{out}");
        assert!(out.contains("<b>needle</b>"), "{out}");
        assert!(out.chars().count() < EXCERPT_CHARS + 12, "{out}");
    }
}
