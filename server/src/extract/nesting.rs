//! The shape of a SPARQL query or update, measured on its text before it is parsed.
//!
//! The SPARQL parser recurses once per level of brackets, quoted triples (`<< … >>`) and prefix
//! operators (`!`, `^`, unary `-`/`+`); the tree it builds is as deep as the longest chain of
//! operators, unions, optionals or path steps; and the evaluator, and even dropping the tree,
//! recurse once per level of it. A request that overflowed a thread's stack would abort the
//! whole process. So the text is scanned first: anything nested deeper than [`MAX_DEPTH`], or
//! with more than [`MAX_OPERATORS`] operators and group keywords in all, is refused before the
//! parser sees it. The parsed tree is then bounded again, exactly, by [`super::tree_depth`].
//! The scan skips strings, IRIs and comments; it never under-counts real nesting, and
//! over-counts operators at worst (a signed number counts as one).
//!
//! The scan also counts the request's terms, from which [`TextShape::tree_bytes`] estimates
//! the memory of its parsed tree: a small term (`1`) takes two bytes of text and hundreds of
//! bytes once parsed, so a body's size alone says little about what parsing it costs.

use crate::error::ApiError;

/// The deepest nesting accepted: beyond what people and tools write, far below what overflows
/// a 2 MiB stack. (The parser's time no longer grows exponentially with nesting: see
/// `store/vendor/spargebra/PATCH.md`.)
pub const MAX_DEPTH: usize = 32;

/// The most operators, `{` groups and pattern keywords (`UNION`, `OPTIONAL`, `MINUS`, `FILTER`,
/// `BIND`, `GRAPH`, `SERVICE`) accepted in one request. It bounds the depth of any tree the
/// parser can build from the text, and with it the stack that dropping a refused tree needs.
pub const MAX_OPERATORS: usize = 20_000;

/// What the text scan finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextShape {
    /// The deepest nesting of brackets, quoted triples and runs of prefix operators.
    pub depth: usize,
    /// Operators, `{` and pattern keywords, wherever they stand.
    pub operators: usize,
    /// Terms and words: IRIs, literals, numbers, names and keywords (an over-count: a keyword
    /// or a prefixed name's two halves count too).
    pub terms: usize,
    /// The text's length in bytes.
    pub bytes: usize,
}

/// Memory a parsed term takes, with its share of the tree around it: the measured cost of a
/// `VALUES` list of small numbers (about 200 bytes each), rounded up.
pub const PARSED_BYTES_PER_TERM: usize = 256;

/// Memory each byte of text takes once parsed: the text's copies and the strings of IRIs and
/// literals in the tree (a `VALUES` list of 200,000 IRIs, 7.3 MB of text, took 160 MB).
pub const PARSED_BYTES_PER_TEXT_BYTE: usize = 16;

impl TextShape {
    /// An upper estimate of the memory the request takes once parsed, from its text alone.
    pub fn tree_bytes(&self) -> usize {
        self.terms
            .saturating_mul(PARSED_BYTES_PER_TERM)
            .saturating_add(self.bytes.saturating_mul(PARSED_BYTES_PER_TEXT_BYTE))
    }
}

/// Refuses a SPARQL text nested deeper than [`MAX_DEPTH`] or with more than
/// [`MAX_OPERATORS`] operators; returns its shape otherwise.
pub fn check_text(text: &str) -> Result<TextShape, ApiError> {
    let shape = scan(text.as_bytes());
    if shape.depth > MAX_DEPTH {
        return Err(ApiError::TooComplex(format!(
            "the request is nested {} levels deep (brackets, quoted triples and prefix operators); the limit is {MAX_DEPTH}",
            shape.depth
        )));
    }
    if shape.operators > MAX_OPERATORS {
        return Err(ApiError::TooComplex(format!(
            "the request has {} operators, groups and pattern keywords; the limit is {MAX_OPERATORS}",
            shape.operators
        )));
    }
    Ok(shape)
}

/// Group keywords that make the parsed tree one level deeper each time they appear.
const PATTERN_KEYWORDS: [&[u8]; 7] = [
    b"union",
    b"optional",
    b"minus",
    b"filter",
    b"bind",
    b"graph",
    b"service",
];

/// Scans `text` once for its nesting depth and operator count.
pub fn scan(text: &[u8]) -> TextShape {
    let mut depth = 0_usize;
    let mut unary_run = 0_usize;
    let mut deepest = 0_usize;
    let mut operators = 0_usize;
    let mut terms = 0_usize;
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
                terms += 1;
                continue;
            }
            b'<' if text.get(i + 1) == Some(&b'<') => {
                depth += 1 + unary_run;
                unary_run = 0;
                deepest = deepest.max(depth);
                i += 2;
                continue;
            }
            b'>' if text.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                unary_run = 0;
                i += 2;
                continue;
            }
            b'<' => {
                if let Some(end) = iri_end(text, i) {
                    i = end;
                    unary_run = 0;
                    terms += 1;
                    continue;
                }
                operators += 1;
                unary_run = 0;
            }
            b'(' | b'[' => {
                depth += 1 + unary_run;
                unary_run = 0;
            }
            b'{' => {
                depth += 1 + unary_run;
                unary_run = 0;
                operators += 1;
            }
            b')' | b'}' | b']' => {
                depth = depth.saturating_sub(1);
                unary_run = 0;
            }
            b'!' | b'^' | b'-' | b'+' => {
                unary_run += 1;
                operators += 1;
            }
            b'*' | b'/' | b'|' | b'&' | b'=' | b'>' => {
                operators += 1;
                unary_run = 0;
            }
            b if b.is_ascii_alphabetic() => {
                let end = text[i..]
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                    .map_or(text.len(), |p| i + p);
                let starts_word = i == 0
                    || !matches!(text[i - 1], b':' | b'?' | b'$' | b'_' | b'.' | b'-')
                        && !text[i - 1].is_ascii_alphanumeric();
                let word = &text[i..end];
                if starts_word
                    && PATTERN_KEYWORDS
                        .iter()
                        .any(|k| word.eq_ignore_ascii_case(k))
                {
                    operators += 1;
                }
                unary_run = 0;
                terms += 1;
                i = end;
                continue;
            }
            b if b.is_ascii_digit() => {
                // A number: digits and what may follow them in one (`.`, exponent, sign).
                let end = text[i..]
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_')))
                    .map_or(text.len(), |p| i + p);
                unary_run = 0;
                terms += 1;
                i = end;
                continue;
            }
            b if b.is_ascii_whitespace() => {}
            _ => unary_run = 0,
        }
        deepest = deepest.max(depth + unary_run);
        i += 1;
    }
    TextShape {
        depth: deepest,
        operators,
        terms,
        bytes: text.len(),
    }
}

/// The deepest JSON nesting accepted in a JSON-LD document: the JSON-LD processor recurses per
/// level, and real documents nest a dozen levels or so.
pub const MAX_JSON_DEPTH: usize = 256;

/// Refuses a JSON(-LD) document whose arrays and objects nest deeper than [`MAX_JSON_DEPTH`].
pub fn check_json_depth(body: &[u8]) -> Result<(), ApiError> {
    let mut depth = 0_usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in body {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return Err(ApiError::TooComplex(format!(
                        "the JSON document nests more than {MAX_JSON_DEPTH} arrays and objects deep"
                    )));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The index just after the comment, string literal or IRI that starts at `start`, if one
/// does (text that scans a query for keywords skips these).
pub(crate) fn skip_opaque(text: &[u8], start: usize) -> Option<usize> {
    match text.get(start)? {
        b'#' => Some(skip_until(text, start, b'\n')),
        b'"' | b'\'' => Some(skip_string(text, start)),
        b'<' => Some(iri_end(text, start).unwrap_or(start + 1)),
        _ => None,
    }
}

/// The index just after the next `stop` byte from `start` (or the end).
pub(crate) fn skip_until(text: &[u8], start: usize, stop: u8) -> usize {
    text[start..]
        .iter()
        .position(|&b| b == stop)
        .map_or(text.len(), |p| start + p + 1)
}

/// The index just after the string literal opening at `start` (short or long form).
pub(crate) fn skip_string(text: &[u8], start: usize) -> usize {
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
pub(crate) fn iri_end(text: &[u8], start: usize) -> Option<usize> {
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

    fn nesting_depth(text: &[u8]) -> usize {
        scan(text).depth
    }
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
        assert!(matches!(check_text(&deep), Err(ApiError::TooComplex(_))));
        let unary = format!("ASK {{ FILTER({}true) }}", "!".repeat(5000));
        assert!(check_text(&unary).is_err());
    }

    #[test]
    fn terms_count() {
        let shape = scan(b"SELECT * { VALUES ?x { 1 2.5 1e3 <http://x/> \"a b\" ex:c } }");
        // SELECT, VALUES, x, five values and ex:c's two halves.
        assert_eq!(shape.terms, 10);
        let numbers = format!("SELECT * {{ VALUES ?x {{ {} }} }}", "7 ".repeat(100_000));
        let shape = scan(numbers.as_bytes());
        assert!(shape.terms > 100_000);
        assert!(shape.tree_bytes() > 100_000 * PARSED_BYTES_PER_TERM);
    }

    #[test]
    fn json_depth() {
        assert!(check_json_depth(br#"{"@id": "x", "p": [{"@value": "[[[[{{{"}]}"#).is_ok());
        let deep = format!(
            "{}1{}",
            "[".repeat(MAX_JSON_DEPTH + 1),
            "]".repeat(MAX_JSON_DEPTH + 1)
        );
        assert!(check_json_depth(deep.as_bytes()).is_err());
    }

    #[test]
    fn quoted_triples_nest() {
        assert_eq!(
            nesting_depth(b"ASK { << <a> <b> << <c> <d> <e> >> >> <p> ?o }"),
            3
        );
        let deep = format!(
            "ASK {{ {}?s ?p ?o{} }}",
            "<< ".repeat(100),
            " >>".repeat(100)
        );
        assert!(check_text(&deep).is_err());
    }

    #[test]
    fn operators_and_pattern_keywords_count() {
        let shape = scan(
            b"SELECT * WHERE { ?s ?p ?o OPTIONAL { ?s ex:union ?x } FILTER(?x + 1 > 2 || !?y) }",
        );
        // `{` ×2, OPTIONAL, FILTER, `+`, `>`, `||` (two bars), `!`; not `ex:union` or `*`… but `*` is a
        // multiplication to the scanner: one over-count.
        assert_eq!(shape.operators, 10);
        let chain = format!(
            "SELECT ({} AS ?x) {{}}",
            vec!["1"; MAX_OPERATORS + 2].join("+")
        );
        assert!(matches!(check_text(&chain), Err(ApiError::TooComplex(_))));
        let unions = format!("ASK {{ {} }}", vec!["{}"; MAX_OPERATORS].join(" union "));
        assert!(check_text(&unions).is_err());
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
            assert!(check_text(&query).is_ok(), "{query}");
            let text = query.clone();
            let parsed = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || SparqlParser::new().parse_query(&text).map(|_| ()))
                .map(|thread| thread.join());
            assert!(matches!(parsed, Ok(Ok(Ok(())))), "{query}: {parsed:?}");
        }
    }
}
