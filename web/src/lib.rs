//! Lodestone's HTML views: askama templates in `../templates`, the stylesheet in `../static`
//! (embedded in the binary), view models, label and language selection, value formatting.
//!
//! The crate never touches storage: the server gathers the data of a page into plain values
//! ([`EntityData`]) and this crate turns them into HTML. Every piece of data reaches the page
//! through askama's HTML escaping; no template marks data as safe.
#![deny(missing_docs)]

pub mod assets;
mod error;
pub mod labels;
pub mod links;
pub mod pages;
pub mod ui;
mod values;

pub use crate::error::WebError;
pub use crate::labels::Labels;
pub use crate::labels::{LabelSettings, LanguageChain};
pub use crate::links::Linker;
pub use crate::pages::entity::{EntityData, EntityPage, Pagination, UsageCounts};
pub use crate::pages::hash_document::{HashDocumentPage, HashEntry};
pub use crate::pages::layout::{Alternate, Layout};
pub use crate::pages::not_found::NotFoundPage;
