//! The HTML of a document of hash IRIs (`…/vocab` for `…/vocab#a`, `…/vocab#b`): one entry
//! per resource, with the fragment as its anchor so that a link to `…/vocab#a` lands on it,
//! and a link to the resource's own page.

use crate::error::WebError;
use crate::labels::{Labels, LanguageChain};
use crate::links::query;
use crate::pages::layout::Layout;
use askama::Template;

/// One resource of the document.
#[derive(Debug, Clone)]
pub struct HashEntry {
    /// The fragment, used as the element id.
    pub anchor: String,
    /// Its best label, or its fragment.
    pub text: String,
    /// The full IRI.
    pub iri: String,
    /// Its page.
    pub href: String,
}

impl HashEntry {
    /// The entry of `iri` (which has a `#`), with its labels.
    pub fn new(iri: &str, labels: &Labels, chain: &LanguageChain) -> Self {
        let anchor = iri.split_once('#').map_or("", |(_, f)| f).to_owned();
        let text = labels
            .best(chain)
            .map_or_else(|| format!("#{anchor}"), |l| l.value().to_owned());
        Self {
            href: format!("/describe?{}", query(&[("uri", iri)])),
            anchor,
            text,
            iri: iri.to_owned(),
        }
    }
}

/// The page of a hash document.
#[derive(Template)]
#[template(path = "pages/hash_document.html")]
pub struct HashDocumentPage {
    /// Shared layout.
    pub layout: Layout,
    /// The document IRI.
    pub iri: String,
    /// Its resources, in IRI order.
    pub entries: Vec<HashEntry>,
    /// Whether the document has more resources than listed.
    pub truncated: bool,
}

impl HashDocumentPage {
    /// The HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_anchored_by_fragment_and_escaped() {
        let chain = LanguageChain::default();
        let entry = HashEntry::new("http://e.org/v#a<b>", &Labels::default(), &chain);
        assert_eq!(entry.anchor, "a<b>");
        assert_eq!(entry.text, "#a<b>");
        assert_eq!(
            entry.href,
            "/describe?uri=http%3A%2F%2Fe.org%2Fv%23a%3Cb%3E"
        );
        let page = HashDocumentPage {
            layout: Layout::new("Site", "en", "http://e.org/v"),
            iri: "http://e.org/v".into(),
            entries: vec![entry],
            truncated: false,
        };
        let html = page.to_html().expect("render");
        assert!(html.contains("id=\"a&#60;b&#62;\""), "{html}");
        assert!(!html.contains("<b>"));
    }
}
