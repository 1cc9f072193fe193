//! The page a search answers while the text index is being built: how far the build is,
//! instead of a page of no results.

use crate::pages::layout::Layout;
use crate::WebError;
use askama::Template;

/// The data of the "being built" page.
#[derive(Debug, Clone, Template)]
#[template(path = "ui/building.html")]
pub struct BuildingPage {
    /// The shared layout.
    pub layout: Layout,
    /// How far the build is, for people ("1200000 of 3400000 quads read (35 %), …").
    pub progress: String,
    /// Time left at the rate so far, if known ("2 min 5 s").
    pub remaining: Option<String>,
    /// The words searched for (may be empty).
    pub query: String,
    /// The same search again.
    pub retry_href: String,
}

impl BuildingPage {
    /// The page as HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_and_progress_are_escaped() {
        let page = BuildingPage {
            layout: Layout::new("Site", "en", "Building"),
            progress: "10 of 20 quads read (50 %)".into(),
            remaining: Some("4 s".into()),
            query: "<b>x</b>".into(),
            retry_href: "/search?text=%3Cb%3E".into(),
        };
        let html = page.to_html().expect("renders");
        assert!(html.contains("10 of 20 quads read (50 %)"));
        assert!(html.contains("&#60;b&#62;x"));
        assert!(!html.contains("<b>x"));
    }
}
