//! The user's query syntax: words, `"quoted phrases"` and `prefix*` words.
//!
//! Everything else is text: there are no operators to get wrong, so any input either is a
//! query or is refused with a message saying why (empty, too long).

/// Why a query was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// Nothing to search for.
    #[error("the query has no words to search for")]
    Empty,
    /// Over the configured bound.
    #[error("the query is {found} characters long; the limit is {limit}")]
    TooLong {
        /// Characters sent.
        found: usize,
        /// Characters allowed.
        limit: usize,
    },
    /// Refused for another reason.
    #[error("invalid query: {0}")]
    Invalid(String),
}

/// One part of a query, as typed (analysis happens when the query is run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryPart {
    /// A word to match (typos forgiven for words of 5+ letters).
    Word(String),
    /// A word ending in `*`: any indexed word starting with it.
    Prefix(String),
    /// Words in quotes, to match next to one another in this order.
    Phrase(String),
}

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserQuery {
    parts: Vec<QueryPart>,
    text: String,
}

impl UserQuery {
    /// Parses a query of at most `max_chars` characters. An unclosed quote runs to the end.
    pub fn parse(text: &str, max_chars: usize) -> Result<Self, QueryError> {
        let found = text.chars().count();
        if found > max_chars {
            return Err(QueryError::TooLong {
                found,
                limit: max_chars,
            });
        }
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
            rest = &rest[start..];
            if let Some(inner) = rest.strip_prefix('"') {
                let end = inner.find('"').unwrap_or(inner.len());
                let phrase = inner[..end].trim();
                if !phrase.is_empty() {
                    parts.push(QueryPart::Phrase(phrase.to_owned()));
                }
                rest = inner.get(end + 1..).unwrap_or("");
                continue;
            }
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            let word = &rest[..end];
            rest = &rest[end..];
            match word.strip_suffix('*') {
                Some(prefix) if !prefix.trim_end_matches('*').is_empty() => {
                    parts.push(QueryPart::Prefix(prefix.trim_end_matches('*').to_owned()));
                }
                Some(_) => {}
                None => parts.push(QueryPart::Word(word.to_owned())),
            }
        }
        if parts.is_empty() {
            return Err(QueryError::Empty);
        }
        Ok(Self {
            parts,
            text: text.trim().to_owned(),
        })
    }

    /// The parts in the order typed.
    pub fn parts(&self) -> &[QueryPart] {
        &self.parts
    }

    /// The query as typed, trimmed.
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_and_prefixes() {
        let query = UserQuery::parse(r#" roman "gold coin" aure* "#, 100).expect("parses");
        assert_eq!(
            query.parts(),
            [
                QueryPart::Word("roman".into()),
                QueryPart::Phrase("gold coin".into()),
                QueryPart::Prefix("aure".into()),
            ]
        );
    }

    #[test]
    fn unclosed_quote_runs_to_the_end() {
        let query = UserQuery::parse(r#"a "b c"#, 100).expect("parses");
        assert_eq!(query.parts()[1], QueryPart::Phrase("b c".into()));
    }

    #[test]
    fn empty_and_long_queries_are_refused() {
        assert_eq!(UserQuery::parse("  * \"\" ", 100), Err(QueryError::Empty));
        assert!(matches!(
            UserQuery::parse("abcdef", 5),
            Err(QueryError::TooLong { found: 6, limit: 5 })
        ));
    }
}
