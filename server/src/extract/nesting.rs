//! The nesting depth of a SPARQL query or update, measured before it is parsed.
//!
//! The SPARQL parser, the evaluator and even dropping the parsed tree recurse once per level of
//! brackets and once per prefix operator (`!`, `^`, unary `-`/`+`). A request nested a few
//! thousand levels deep would overflow a thread's stack, which aborts the whole process, and
//! the parser backtracks exponentially on some nestings long before that — so
//! the text is scanned first, and anything deeper than [`MAX_DEPTH`] is refused. The scan skips
//! strings, IRIs and comments, so brackets inside them do not count; it never under-counts
//! real nesting.

use crate::error::ApiError;

/// The deepest nesting accepted: beyond what people and tools write, far below what overflows
/// a 2 MiB stack — and low enough for the parser, whose time grows exponentially with nested
/// `!(` and path parentheses (70 ms at depth 32, over 15 s at depth 60, measured), since
/// parsing happens before the time budget starts.
pub const MAX_DEPTH: usize = 32;

/// Refuses a SPARQL text nested deeper than [`MAX_DEPTH`].
pub fn check_depth(text: &str) -> Result<(), ApiError> {
    let depth = nesting_depth(text.as_bytes());
    if depth > MAX_DEPTH {
        return Err(ApiError::TooComplex(format!(
            "the request is nested {depth} levels deep (brackets and prefix operators); the limit is {MAX_DEPTH}"
        )));
    }
    Ok(())
}

/// The deepest nesting of brackets plus a run of prefix operators anywhere in `text`.
pub fn nesting_depth(text: &[u8]) -> usize {
    let mut depth = 0_usize;
    let mut unary_run = 0_usize;
    let mut deepest = 0_usize;
    let mut i = 0;
    while i < text.len() {
        let byte = text[i];
        match byte {
            b'#' => {
                i = skip_until(text, i, b'\n');
                continue;
            }
            b'"' | b'\'' => {
                i = skip_string(text, i);
                unary_run = 0;
                continue;
            }
            b'<' => {
                if let Some(end) = iri_end(text, i) {
                    i = end;
                    unary_run = 0;
                    continue;
                }
                unary_run = 0;
            }
            b'(' | b'{' | b'[' => {
                depth += 1 + unary_run;
                unary_run = 0;
            }
            b')' | b'}' | b']' => {
                depth = depth.saturating_sub(1);
                unary_run = 0;
            }
            b'!' | b'^' | b'-' | b'+' => unary_run += 1,
            b if b.is_ascii_whitespace() => {}
            _ => unary_run = 0,
        }
        deepest = deepest.max(depth + unary_run);
        i += 1;
    }
    deepest
}

/// The index just after the next `stop` byte from `start` (or the end).
fn skip_until(text: &[u8], start: usize, stop: u8) -> usize {
    text[start..]
        .iter()
        .position(|&b| b == stop)
        .map_or(text.len(), |p| start + p + 1)
}

/// The index just after the string literal opening at `start` (short or long form).
fn skip_string(text: &[u8], start: usize) -> usize {
    let quote = text[start];
    let long = text.get(start + 1) == Some(&quote) && text.get(start + 2) == Some(&quote);
    let mut i = start + if long { 3 } else { 1 };
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b if b == quote && !long => return i + 1,
            b if b == quote
                && text.get(i + 1) == Some(&quote)
                && text.get(i + 2) == Some(&quote) =>
            {
                return i + 3
            }
            b'\n' if !long => return i + 1,
            _ => i += 1,
        }
    }
    text.len()
}

/// The index just after an IRI reference opening at `start`, if the text there is one (the
/// characters SPARQL allows in `<…>`, then `>`); `None` for a less-than operator.
fn iri_end(text: &[u8], start: usize) -> Option<usize> {
    for (offset, &b) in text[start + 1..].iter().enumerate() {
        match b {
            b'>' => return Some(start + offset + 2),
            b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\' => return None,
            b if b <= b' ' => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use lodestone_store::sparql::SparqlParser;

    #[test]
    fn brackets_and_prefix_operators_count() {
        assert_eq!(nesting_depth(b"SELECT * WHERE { ?s ?p ?o }"), 1);
        // A binary `+` counts as a prefix operator: an over-count of one, never an under-count.
        assert_eq!(
            nesting_depth(b"SELECT * WHERE { FILTER((1 + 2) > 0) OPTIONAL { [] ?p ?o } }"),
            4
        );
        assert_eq!(nesting_depth(b"ASK { FILTER(!!!!true) }"), 6);
        assert_eq!(nesting_depth(b"ASK { ?s ^^^^<p> ?o }"), 5);
    }

    #[test]
    fn strings_iris_and_comments_do_not_count() {
        let text = "SELECT * WHERE { # ((((((((\n ?s <http://x/(((((#[[[> \"(((\\\"(((\" . ?s ?p '''\n((({{{''' FILTER(?x < 3 && ?y > 2) }";
        assert_eq!(nesting_depth(text.as_bytes()), 2);
    }

    #[test]
    fn deep_requests_are_refused_before_parsing() {
        let deep = format!(
            "ASK {{ FILTER({}1{}) }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        assert!(matches!(check_depth(&deep), Err(ApiError::TooComplex(_))));
        let unary = format!("ASK {{ FILTER({}true) }}", "!".repeat(5000));
        assert!(check_depth(&unary).is_err());
    }

    /// What is accepted parses on a thread with the stack of a server worker (2 MiB) without
    /// overflowing it: the limit is safe, not just small.
    #[test]
    fn the_deepest_accepted_request_parses_on_a_small_stack() {
        let n = MAX_DEPTH - 2;
        let queries = [
            format!("ASK {{ FILTER({}1{}) }}", "(".repeat(n), ")".repeat(n)),
            format!("ASK {}{}", "{".repeat(n + 1), "}".repeat(n + 1)),
            format!(
                "ASK {{ FILTER({}true{}) }}",
                "!(".repeat(n / 2),
                ")".repeat(n / 2)
            ),
            format!(
                "ASK {{ ?s {}<http://e/p>{} ?o }}",
                "^(".repeat(n / 2),
                ")".repeat(n / 2)
            ),
            format!(
                "ASK {{ ?s {}<http://e/p>{} ?o }}",
                "(".repeat(n),
                ")".repeat(n)
            ),
        ];
        for query in queries {
            assert!(check_depth(&query).is_ok(), "{query}");
            let text = query.clone();
            let parsed = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || SparqlParser::new().parse_query(&text).map(|_| ()))
                .map(|thread| thread.join());
            assert!(matches!(parsed, Ok(Ok(Ok(())))), "{query}: {parsed:?}");
        }
    }
}
