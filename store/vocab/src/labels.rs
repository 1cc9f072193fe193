//! The label rule: which properties name a resource, for every surface (search, pages,
//! facets, lookup, the browsing UI), so that a resource is called the same everywhere.
//!
//! The configured label properties come first, most preferred first (the defaults are
//! [`DEFAULT_LABEL_PROPERTIES`]); after them, as a fallback, any other property whose local
//! name is one of [`LABEL_LOCAL_NAMES`] in any namespace (`http://stardog.com/tutorial/name`).

use crate::prefixes::local_name;

/// Label properties used when none are configured, most preferred first.
pub const DEFAULT_LABEL_PROPERTIES: [&str; 9] = [
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://xmlns.com/foaf/0.1/name",
    "http://schema.org/name",
    "https://schema.org/name",
    "http://purl.org/dc/terms/title",
    "http://purl.org/dc/elements/1.1/title",
    "http://www.w3.org/2004/02/skos/core#altLabel",
    "http://dbpedia.org/property/name",
];

/// Local names (compared ignoring case) that make any other property a label property,
/// ranked after the configured ones, in this order.
pub const LABEL_LOCAL_NAMES: [&str; 4] = ["name", "label", "title", "prefLabel"];

/// The fallback rank of a property by its local name (its place in [`LABEL_LOCAL_NAMES`]),
/// if it has one of them.
pub fn fallback_rank(property: &str) -> Option<usize> {
    let local = local_name(property)?;
    LABEL_LOCAL_NAMES
        .iter()
        .position(|name| name.eq_ignore_ascii_case(local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_named_like_labels_are_a_fallback() {
        assert_eq!(fallback_rank("http://stardog.com/tutorial/name"), Some(0));
        assert_eq!(fallback_rank("http://e.org/v#Title"), Some(2));
        assert_eq!(fallback_rank("http://e.org/v#named"), None);
        assert_eq!(fallback_rank("http://e.org/"), None);
    }
}
