//! Virtuoso's text expression language (`bif:contains`) as far as the text index can express
//! it: words, `'quoted phrases'` (or `"…"`), `prefix*`, `AND`, `OR` and parentheses.
//!
//! An expression becomes alternatives of `/api/search` queries (its disjunctive normal form):
//! `(a OR b) AND 'c d'` is `a "c d"` or `b "c d"`. Words next to one another without an
//! operator are read as `AND`, as `/api/search` reads them. `NOT`, `NEAR` and weights have no
//! equivalent and are refused with a message, like any malformed expression.

/// Most alternatives an expression may expand to.
pub const MAX_BRANCHES: usize = 16;

/// Why an expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bif:contains expression {expression:?}: {problem}")]
pub struct ExpressionError {
    /// The expression as written.
    pub expression: String,
    /// What is wrong with it.
    pub problem: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Phrase(String),
    And,
    Or,
    Open,
    Close,
}

/// The alternatives of an expression, each in the `/api/search` syntax.
pub fn branches(expression: &str) -> Result<Vec<String>, ExpressionError> {
    let fail = |problem: String| ExpressionError {
        expression: expression.to_owned(),
        problem,
    };
    let tokens = tokenize(expression).map_err(fail)?;
    let mut parser = Parser { tokens, at: 0 };
    let dnf = parser.or().map_err(fail)?;
    if let Some(token) = parser.tokens.get(parser.at) {
        return Err(fail(format!("unexpected {}", describe(token))));
    }
    Ok(dnf
        .into_iter()
        .map(|conjunction| conjunction.join(" "))
        .collect())
}

fn describe(token: &Token) -> String {
    match token {
        Token::Word(w) => format!("word {w:?}"),
        Token::Phrase(p) => format!("phrase {p:?}"),
        Token::And => "AND".to_owned(),
        Token::Or => "OR".to_owned(),
        Token::Open => "'('".to_owned(),
        Token::Close => "')'".to_owned(),
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '(' || c == ')' {
            chars.next();
            tokens.push(if c == '(' { Token::Open } else { Token::Close });
        } else if c == '\'' || c == '"' {
            chars.next();
            let mut phrase = String::new();
            let mut closed = false;
            for (_, d) in chars.by_ref() {
                if d == c {
                    closed = true;
                    break;
                }
                phrase.push(d);
            }
            if !closed {
                return Err(format!(
                    "the phrase starting at character {start} is not closed"
                ));
            }
            let phrase = phrase.replace(['"', '\''], " ");
            if phrase.trim().is_empty() {
                return Err("an empty phrase".to_owned());
            }
            tokens.push(Token::Phrase(phrase.trim().to_owned()));
        } else {
            let mut word = String::new();
            while let Some(&(_, d)) = chars.peek() {
                if d.is_whitespace() || matches!(d, '(' | ')' | '\'' | '"') {
                    break;
                }
                word.push(d);
                chars.next();
            }
            tokens.push(word_token(word)?);
        }
    }
    if tokens.is_empty() {
        return Err("it is empty".to_owned());
    }
    Ok(tokens)
}

fn word_token(word: String) -> Result<Token, String> {
    match word.as_str() {
        "AND" | "and" => return Ok(Token::And),
        "OR" | "or" => return Ok(Token::Or),
        "NOT" | "not" | "NEAR" | "near" => {
            return Err(format!(
                "{word} is not supported (words, 'phrases', prefix*, AND, OR and parentheses are)"
            ));
        }
        _ => {}
    }
    let stem = word.trim_end_matches('*');
    if stem.is_empty() {
        return Err(format!("{word:?} is not a word"));
    }
    if stem.contains('*') {
        return Err(format!("in {word:?}, '*' may only end a word"));
    }
    if !stem.chars().any(char::is_alphanumeric) {
        return Err(format!("{word:?} has no letters or digits"));
    }
    Ok(Token::Word(if word.ends_with('*') {
        format!("{stem}*")
    } else {
        word
    }))
}

/// Alternatives (OR) of conjunctions (AND) of atoms in the `/api/search` syntax.
type Dnf = Vec<Vec<String>>;

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn or(&mut self) -> Result<Dnf, String> {
        let mut out = self.and()?;
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            out.extend(self.and()?);
            if out.len() > MAX_BRANCHES {
                return Err(format!(
                    "it expands to more than {MAX_BRANCHES} alternatives"
                ));
            }
        }
        Ok(out)
    }

    fn and(&mut self) -> Result<Dnf, String> {
        let mut out = self.atom()?;
        loop {
            match self.peek() {
                Some(Token::And) => {
                    self.at += 1;
                }
                Some(Token::Word(_) | Token::Phrase(_) | Token::Open) => {}
                _ => return Ok(out),
            }
            let right = self.atom()?;
            let mut product = Vec::with_capacity(out.len() * right.len());
            for left in &out {
                for r in &right {
                    product.push(left.iter().chain(r).cloned().collect());
                }
            }
            if product.len() > MAX_BRANCHES {
                return Err(format!(
                    "it expands to more than {MAX_BRANCHES} alternatives"
                ));
            }
            out = product;
        }
    }

    fn atom(&mut self) -> Result<Dnf, String> {
        let token = self.peek().cloned();
        self.at += 1;
        match token {
            Some(Token::Word(word)) => Ok(vec![vec![word]]),
            Some(Token::Phrase(phrase)) => Ok(vec![vec![format!("\"{phrase}\"")]]),
            Some(Token::Open) => {
                let inner = self.or()?;
                if self.peek() != Some(&Token::Close) {
                    return Err("a '(' is not closed".to_owned());
                }
                self.at += 1;
                Ok(inner)
            }
            Some(other) => Err(format!("{} where a word was expected", describe(&other))),
            None => Err("it ends where a word was expected".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<String> {
        branches(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn words_phrases_prefixes_and_operators() {
        assert_eq!(ok("berlin"), ["berlin"]);
        assert_eq!(ok("'two words'"), ["\"two words\""]);
        assert_eq!(ok("a AND b"), ["a b"]);
        assert_eq!(ok("a OR b"), ["a", "b"]);
        assert_eq!(ok("athe*"), ["athe*"]);
        assert_eq!(ok("(a OR b) AND 'c d'"), ["a \"c d\"", "b \"c d\""]);
        assert_eq!(ok("a b"), ["a b"]);
    }

    #[test]
    fn malformed_expressions_say_why() {
        for (text, problem) in [
            ("", "empty"),
            ("a AND", "ends where a word"),
            ("(a OR b", "not closed"),
            ("'a b", "not closed"),
            ("a OR OR b", "OR where a word"),
            ("a NOT b", "NOT is not supported"),
            ("a)", "unexpected ')'"),
            ("*", "not a word"),
            ("a*b", "may only end"),
        ] {
            let error = branches(text).map(|b| panic!("{text:?} parsed as {b:?}"));
            let message = error.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains(problem), "{text:?}: {message}");
        }
        let many = (0..5)
            .map(|i| format!("(a{i} OR b{i})"))
            .collect::<Vec<_>>();
        assert!(branches(&many.join(" AND ")).is_err());
    }
}
