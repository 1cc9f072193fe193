//! The browsing pages' script and stylesheet, embedded in the binary.
//!
//! Both are optional for the pages to work: the script only adds type-ahead and in-place
//! updates, the stylesheet only lays out what `site.css` does not cover.

/// The script (type-ahead, in-place updates), served at [`SCRIPT_PATH`].
pub const SCRIPT: &str = include_str!("../../../static/ui.js");

/// Where the script is served.
pub const SCRIPT_PATH: &str = "/static/ui.js";

/// The stylesheet of the browsing pages, served at [`STYLESHEET_PATH`].
pub const STYLESHEET: &str = include_str!("../../../static/ui.css");

/// Where the browsing pages' stylesheet is served.
pub const STYLESHEET_PATH: &str = "/static/ui.css";

/// The site icon (SVG), served at `/favicon.ico`.
pub const FAVICON: &str = include_str!("../../../static/favicon.svg");

/// A static file by its name under `/static/`: (media type, content).
pub fn by_name(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "ui.js" => Some(("text/javascript; charset=utf-8", SCRIPT)),
        "ui.css" => Some(("text/css; charset=utf-8", STYLESHEET)),
        "site.css" => Some(("text/css; charset=utf-8", crate::assets::STYLESHEET)),
        _ => None,
    }
}
