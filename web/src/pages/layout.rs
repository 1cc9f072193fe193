//! What `templates/base.html` needs on every page: the site's name, the page's language and
//! title, and the alternate representations to list in the head.

/// The shared layout of every page.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Site name shown in the header.
    pub site_name: String,
    /// The page's `lang` attribute.
    pub lang: String,
    /// The `<title>`.
    pub title: String,
    /// Search terms to prefill the header's search box with.
    pub query: String,
    /// `<link rel="alternate">` elements of the head.
    pub alternates: Vec<Alternate>,
    /// Path of the stylesheet.
    pub stylesheet: &'static str,
}

impl Layout {
    /// A layout with a site name, a language and a title, and nothing else.
    pub fn new(
        site_name: impl Into<String>,
        lang: impl Into<String>,
        title: impl Into<String>,
    ) -> Self {
        Self {
            site_name: site_name.into(),
            lang: lang.into(),
            title: title.into(),
            query: String::new(),
            alternates: Vec::new(),
            stylesheet: crate::assets::STYLESHEET_PATH,
        }
    }

    /// Adds alternate representations to the head.
    pub fn with_alternates(mut self, alternates: Vec<Alternate>) -> Self {
        self.alternates = alternates;
        self
    }
}

/// Another representation of the same document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternate {
    /// Its media type.
    pub media_type: String,
    /// Its short name (`Turtle`, `JSON-LD`…).
    pub name: String,
    /// Its URL (a path on this site).
    pub href: String,
}
