//! The HTML answer to a browser that asks for an entity the store knows nothing about: a 404
//! page in the site's layout (a browser shows it, where a JSON error body would be noise),
//! pointing to the search and the URI lookup.

use crate::error::WebError;
use crate::links::query;
use crate::pages::layout::Layout;
use askama::Template;

/// The page of an unknown entity.
#[derive(Template)]
#[template(path = "pages/not_found.html")]
pub struct NotFoundPage {
    /// Shared layout.
    pub layout: Layout,
    /// The IRI asked for.
    pub iri: String,
    /// The search for the IRI's last segment.
    pub search_href: String,
    /// The URI lookup for the IRI's last segment.
    pub lookup_href: String,
}

impl NotFoundPage {
    /// The page for `iri`, in `layout`.
    pub fn new(layout: Layout, iri: &str) -> Self {
        // The words of the IRI's last segment are what a person would search for.
        let words = iri
            .trim_end_matches(['/', '#'])
            .rsplit(['/', '#'])
            .next()
            .unwrap_or(iri)
            .replace('_', " ");
        Self {
            layout,
            iri: iri.to_owned(),
            search_href: format!("/search?{}", query(&[("q", words.as_str())])),
            lookup_href: format!("/lookup?{}", query(&[("q", words.as_str())])),
        }
    }

    /// The HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_iri_is_escaped_and_its_words_searched() {
        let page = NotFoundPage::new(
            Layout::new("Site", "en", "Not found"),
            "http://e.org/resource/New_<b>York",
        );
        assert_eq!(page.search_href, "/search?q=New+%3Cb%3EYork");
        let html = page.to_html().expect("render");
        assert!(html.contains("<code>http://e.org/resource/New_&#60;b&#62;York</code>"));
        assert!(!html.contains("<b>"));
    }
}
