//! One module per page template (`templates/pages/*.html`), plus the shared layout.

pub mod entity;
pub mod hash_document;
pub mod layout;
pub mod not_found;
