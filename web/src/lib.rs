//! Lodestone's HTML views: askama templates in `../templates`, the stylesheet in `../static`
//! (embedded in the binary), view models for each page.
//!
//! The crate never touches storage: the server gathers the data of a page into plain values
//! and this crate turns them into HTML. Every piece of data reaches the page through askama's
//! HTML escaping; no template marks data as safe.
#![deny(missing_docs)]

pub mod assets;
mod error;
pub mod pages;
pub mod ui;

pub use crate::error::WebError;
pub use crate::pages::layout::{Alternate, Layout};
