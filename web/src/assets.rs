//! Static files embedded in the binary at build time.

/// The site stylesheet, served at [`STYLESHEET_PATH`].
pub const STYLESHEET: &str = include_str!("../../static/site.css");

/// Where the stylesheet is served.
pub const STYLESHEET_PATH: &str = "/static/site.css";
