//! The crate's one error type.

/// What can go wrong reading vocabulary settings (an operator's prefix file).
#[derive(Debug, thiserror::Error)]
pub enum VocabError {
    /// A line of a prefix file that is not `prefix namespace` (or `@prefix p: <ns> .`).
    #[error("line {line}, column {column} of the prefix list: {message}")]
    PrefixLine {
        /// The 1-based line number.
        line: usize,
        /// The 1-based column (in characters) where the wrong part starts.
        column: usize,
        /// What is wrong with it.
        message: String,
    },
}
