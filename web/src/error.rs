//! The crate's one error type.

/// What can go wrong while rendering a page.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The template engine failed (a formatting error while writing the page).
    #[error("rendering failed: {0}")]
    Render(#[from] askama::Error),
}
