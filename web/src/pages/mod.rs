//! The shared layout of every page.

pub mod layout;
