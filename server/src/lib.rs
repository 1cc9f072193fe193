//! Lodestone's server crate: the command line, configuration and the HTTP application.
//!
//! [`app`] builds the router over an [`AppState`] (a store and [`config::ServerSettings`]);
//! [`serve_listener`] runs it on a bound socket; `lodestone serve` ([`config::serve`]) does both
//! after reading the configuration.
#![deny(missing_docs)]

pub mod allocator;
pub mod cli;
mod commands;
pub mod config;
pub mod connections;
pub mod error;
pub mod extract;
pub mod federation;
pub mod priority;
pub mod respond;
mod restore;
pub mod routes;
mod sample;
mod serve;
pub mod slots;
pub mod state;
pub mod telemetry;
pub mod testdata;
pub mod text_index;
pub mod text_match;

pub use crate::error::ApiError;
pub use crate::routes::app;
pub use crate::serve::serve_listener;
pub use crate::state::AppState;
