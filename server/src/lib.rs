//! Lodestone's server crate: the command line, configuration and the HTTP application.
#![deny(missing_docs)]

pub mod cli;
mod commands;
pub mod config;
