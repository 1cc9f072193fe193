//! Virtuoso's `OPTION ( … )` after a `bif:contains` pattern, which is not SPARQL:
//! `?o bif:contains "berlin" OPTION (score ?sc, score_limit 2)`.
//!
//! Before the text is parsed, [`rewrite`] turns each such clause into predicate-object pairs
//! of the pattern's subject, which SPARQL can parse: `?o bif:contains "berlin" ;
//! <urn:lodestone:option:score> ?sc ; <urn:lodestone:option:score_limit> "2"`. The pattern
//! reader (`patterns.rs`) takes them out of the BGP with the `bif:contains` triple before them.
//! The scan skips strings, IRIs and comments, so only the keyword `OPTION` in the query's
//! code is read. Options Lodestone cannot honour (`OFFBAND`, and Virtuoso's other triple
//! options such as `TRANSITIVE`) are refused with a message naming them.

use super::LODESTONE;
use crate::extract::nesting::skip_opaque;
use std::borrow::Cow;

/// The predicate an option becomes, before its name (`score`, `score_limit`).
pub const OPTION_PREFIX: &str = "option:";

/// The query text with every `OPTION ( … )` clause written as predicate-object pairs, or why
/// a clause cannot be read. A text without the keyword comes back as it is.
pub fn rewrite(text: &str) -> Result<Cow<'_, str>, String> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(after) = skip_opaque(bytes, i) {
            i = after;
            continue;
        }
        match bytes[i] {
            b if b.is_ascii_alphabetic() => {
                let end = word_end(bytes, i);
                let starts_word = i == 0
                    || !matches!(bytes[i - 1], b':' | b'?' | b'$' | b'_' | b'.' | b'-')
                        && !bytes[i - 1].is_ascii_alphanumeric();
                let open = skip_space(bytes, end);
                if starts_word
                    && bytes[i..end].eq_ignore_ascii_case(b"option")
                    && bytes.get(open) == Some(&b'(')
                {
                    let close = bytes[open..]
                        .iter()
                        .position(|b| *b == b')')
                        .map(|p| open + p)
                        .ok_or("OPTION ( … ) is not closed")?;
                    out.push_str(&text[copied..i]);
                    out.push_str(&pairs(&text[open + 1..close])?);
                    copied = close + 1;
                    i = close + 1;
                } else {
                    i = end;
                }
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Ok(Cow::Borrowed(text));
    }
    out.push_str(&text[copied..]);
    Ok(Cow::Owned(out))
}

fn word_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .map_or(bytes.len(), |p| start + p)
}

fn skip_space(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(bytes.len(), |p| start + p)
}

/// `score ?sc, score_limit 2` as `; <…option:score> ?sc ; <…option:score_limit> "2"`.
fn pairs(inside: &str) -> Result<String, String> {
    let mut out = String::new();
    for option in inside.split(',') {
        let mut words = option.split_whitespace();
        let (Some(name), value, None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "OPTION ({inside}): each option is a name and a value, separated by commas"
            ));
        };
        let name = name.to_ascii_lowercase();
        let value = match (name.as_str(), value) {
            ("score", Some(v)) if is_variable(v) => v.to_owned(),
            ("score_limit", Some(v)) if v.parse::<f32>().is_ok_and(f32::is_finite) => {
                format!("\"{v}\"")
            }
            ("score", _) => return Err("OPTION (score …) takes a variable: score ?sc".to_owned()),
            ("score_limit", _) => {
                return Err("OPTION (score_limit …) takes a number: score_limit 2".to_owned())
            }
            _ => {
                return Err(format!(
                    "OPTION ({name} …) is not supported; after bif:contains, OPTION (score ?sc, score_limit n) is"
                ))
            }
        };
        out.push_str(&format!(" ; <{LODESTONE}{OPTION_PREFIX}{name}> {value}"));
    }
    Ok(out)
}

fn is_variable(word: &str) -> bool {
    word.strip_prefix(['?', '$']).is_some_and(|name| {
        !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_clauses_become_pairs_of_the_subject() {
        let text =
            "SELECT * { ?s ?p ?o . ?o bif:contains 'x' OPTION (SCORE ?sc, score_limit 0.5) }";
        assert_eq!(
            rewrite(text).unwrap(),
            "SELECT * { ?s ?p ?o . ?o bif:contains 'x'  ; <urn:lodestone:option:score> ?sc ; <urn:lodestone:option:score_limit> \"0.5\" }"
        );
    }

    #[test]
    fn strings_iris_comments_and_optional_are_left_alone() {
        for text in [
            "SELECT * { ?s <http://x/option(> \"OPTION (score ?x)\" OPTIONAL { ?s ?p ?o } }",
            "SELECT * { ?s ?p ?o } # OPTION (score ?x)\n",
            "SELECT * { ?s ex:option (1) }",
        ] {
            assert!(matches!(rewrite(text), Ok(Cow::Borrowed(_))), "{text}");
        }
    }

    #[test]
    fn options_lodestone_cannot_honour_are_named() {
        for (text, problem) in [
            ("?o bif:contains 'x' OPTION (offband ?y)", "offband"),
            ("?o bif:contains 'x' OPTION (score 3)", "takes a variable"),
            (
                "?o bif:contains 'x' OPTION (score_limit ?x)",
                "takes a number",
            ),
            ("?o bif:contains 'x' OPTION (score ?x", "not closed"),
            (
                "?o bif:contains 'x' OPTION (score ?x ?y)",
                "name and a value",
            ),
        ] {
            let error = rewrite(text).err().unwrap_or_default();
            assert!(error.contains(problem), "{text}: {error}");
        }
    }
}
