//! Lodestone's HTML views (askama templates in `../templates`, assets in `../static`).
//!
//! Not built yet: issues 5 and 7 (entity pages, web UI) fill this crate. It exists now so that
//! the workspace has its final shape.
#![deny(missing_docs)]
