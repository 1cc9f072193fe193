//! Settings of the entity pages.

use lodestone_web::LabelSettings;

/// Quads on one page of an entity document unless configured otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 2_000;

/// How entity pages and documents are served.
#[derive(Debug, Clone)]
pub struct PageSettings {
    /// `/resource/{path}` answers with the representation itself (and `Content-Location`)
    /// instead of a 303 redirect.
    pub resource_in_place: bool,
    /// Label properties and the default language.
    pub labels: LabelSettings,
    /// The site's name in the page header.
    pub site_name: String,
    /// Quads per page of a document (the entity's statements, its blank nodes', then the
    /// incoming links); larger descriptions are paged with `?page=`.
    pub page_size: usize,
}

impl Default for PageSettings {
    fn default() -> Self {
        Self {
            resource_in_place: false,
            labels: LabelSettings::default(),
            site_name: "Lodestone".to_owned(),
            page_size: DEFAULT_PAGE_SIZE,
        }
    }
}

impl PageSettings {
    /// Serve `/resource/` in place instead of redirecting.
    pub fn with_resource_in_place(mut self, in_place: bool) -> Self {
        self.resource_in_place = in_place;
        self
    }

    /// The label properties and default language.
    pub fn with_labels(mut self, labels: LabelSettings) -> Self {
        self.labels = labels;
        self
    }

    /// Quads per document page (at least 1).
    pub fn with_page_size(mut self, quads: usize) -> Self {
        self.page_size = quads.max(1);
        self
    }
}
