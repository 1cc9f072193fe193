//! Links between the pages: every URL is built here, with its query string encoded.

/// A path with an encoded query string (`/search?q=a+b`); no `?` when `pairs` is empty.
pub fn with_query(path: &str, pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return path.to_owned();
    }
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        query.append_pair(key, value);
    }
    format!("{path}?{}", query.finish())
}

/// The page describing any IRI of the store.
pub fn describe(iri: &str) -> String {
    with_query("/describe", &[("uri", iri)])
}

/// The SPARQL page with a query in its editor (and its results below).
pub fn sparql(query: &str) -> String {
    with_query("/sparql", &[("query", query)])
}

/// Faceted search narrowed to one class.
pub fn search_class(class: &str) -> String {
    with_query("/search", &[("class", class)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_are_encoded() {
        assert_eq!(
            describe("http://ex.org/a b?c=d&e"),
            "/describe?uri=http%3A%2F%2Fex.org%2Fa+b%3Fc%3Dd%26e"
        );
        assert_eq!(with_query("/lookup", &[]), "/lookup");
    }
}
