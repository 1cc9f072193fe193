//! Lodestone's server crate: the command line, configuration and the HTTP application.
//!
//! One direction, top to bottom: [`commands`] (what the binary runs) calls [`config`] (flags,
//! environment and file resolved into values, with the clap types in [`cli`]), then
//! [`listener`] serves [`app`], the router of [`routes`], over an [`AppState`] (the store and
//! the [`settings`]); routes use [`extract`] and [`respond`]; [`settings`] is the leaf every
//! layer reads. `docs/architecture.md` traces a request through them.
#![deny(missing_docs)]

pub mod allocator;
pub mod cli;
pub mod commands;
pub mod config;
pub mod connections;
pub mod error;
pub mod extract;
pub mod federation;
pub mod listener;
pub mod page_cache;
pub mod prefix_table;
pub mod priority;
pub mod rank_keeper;
pub mod respond;
pub mod routes;
mod sample;
pub mod settings;
pub mod slots;
pub mod state;
pub mod store_totals;
pub mod telemetry;
pub mod testdata;
pub mod text_index;
pub mod text_match;
pub mod text_sparql;
pub mod write_probe;

pub use crate::error::ApiError;
pub use crate::listener::serve_listener;
pub use crate::routes::app;
pub use crate::state::AppState;
