//! Well-known namespace prefixes: which ones a dataset uses, and IRIs written compactly with
//! them (`dbo:Album` for `http://dbpedia.org/ontology/Album`).
//!
//! A dataset's prefixes are the well-known entries whose namespace some of its IRIs start
//! with, plus one made up for each other namespace its IRIs use (`tutorial:` for
//! `http://stardog.com/tutorial/`). The longest matching namespace wins, so nested namespaces
//! compact correctly.

/// Namespaces commonly found in linked data, as (prefix, namespace IRI).
pub const WELL_KNOWN: [(&str, &str); 32] = [
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("skosxl", "http://www.w3.org/2008/05/skos-xl#"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("foaf", "http://xmlns.com/foaf/0.1/"),
    ("schema", "http://schema.org/"),
    ("sdo", "https://schema.org/"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("void", "http://rdfs.org/ns/void#"),
    ("dcat", "http://www.w3.org/ns/dcat#"),
    ("org", "http://www.w3.org/ns/org#"),
    ("geo", "http://www.w3.org/2003/01/geo/wgs84_pos#"),
    ("geosparql", "http://www.opengis.net/ont/geosparql#"),
    ("dbo", "http://dbpedia.org/ontology/"),
    ("dbr", "http://dbpedia.org/resource/"),
    ("dbp", "http://dbpedia.org/property/"),
    ("wd", "http://www.wikidata.org/entity/"),
    ("wdt", "http://www.wikidata.org/prop/direct/"),
    ("nmo", "http://nomisma.org/ontology#"),
    ("nm", "http://nomisma.org/id/"),
    ("crm", "http://www.cidoc-crm.org/cidoc-crm/"),
    ("edm", "http://www.europeana.eu/schemas/edm/"),
    (
        "osgeo",
        "http://data.ordnancesurvey.co.uk/ontology/geometry/",
    ),
    (
        "bsbm",
        "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/",
    ),
    (
        "bsbm-inst",
        "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/",
    ),
    ("gr", "http://purl.org/goodrelations/v1#"),
    ("rev", "http://purl.org/stuff/rev#"),
    ("yago", "http://dbpedia.org/class/yago/"),
];

/// A set of prefixes to write IRIs with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    entries: Vec<(String, String)>,
}

impl Prefixes {
    /// Every well-known prefix.
    pub fn well_known() -> Self {
        Self {
            entries: WELL_KNOWN
                .iter()
                .map(|(p, ns)| ((*p).to_owned(), (*ns).to_owned()))
                .collect(),
        }
    }

    /// The well-known prefixes that some of `iris` use, plus `rdf`, `rdfs`, `owl` and `xsd`
    /// (which every query may need), in the table's order; then a made-up prefix for each
    /// other namespace of `iris` (at most [`MADE_UP`]), named after its last path segment.
    pub fn used_by<'a>(iris: impl IntoIterator<Item = &'a str>) -> Self {
        let mut used = [false; WELL_KNOWN.len()];
        for slot in used.iter_mut().take(4) {
            *slot = true;
        }
        let mut others: Vec<String> = Vec::new();
        for iri in iris {
            match longest_match(&WELL_KNOWN, iri) {
                Some(i) => used[i] = true,
                None => {
                    if let Some(ns) = namespace_of(iri) {
                        if !others.iter().any(|o| o == ns) && others.len() < MADE_UP {
                            others.push(ns.to_owned());
                        }
                    }
                }
            }
        }
        let mut entries: Vec<(String, String)> = WELL_KNOWN
            .iter()
            .zip(used)
            .filter(|(_, used)| *used)
            .map(|((p, ns), _)| ((*p).to_owned(), (*ns).to_owned()))
            .collect();
        for ns in others {
            let base = made_up_name(&ns);
            let mut name = base.clone();
            let mut n = 2;
            while entries.iter().any(|(p, _)| *p == name) {
                name = format!("{base}{n}");
                n += 1;
            }
            entries.push((name, ns));
        }
        Self { entries }
    }

    /// The (prefix, namespace) pairs.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }

    /// `PREFIX p: <ns>` lines, one per entry.
    pub fn declarations(&self) -> String {
        self.entries
            .iter()
            .map(|(prefix, ns)| format!("PREFIX {prefix}: <{ns}>\n"))
            .collect()
    }

    /// `iri` as `prefix:local` if a namespace matches and the rest is a plain local name.
    pub fn compact(&self, iri: &str) -> Option<String> {
        let (prefix, ns) = &self.entries[longest_match(&self.entries, iri)?];
        let local = &iri[ns.len()..];
        let plain = !local.is_empty()
            && local
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && !local.ends_with('.');
        plain.then(|| format!("{prefix}:{local}"))
    }

    /// `iri` compacted if possible, else in full.
    pub fn short(&self, iri: &str) -> String {
        self.compact(iri).unwrap_or_else(|| iri.to_owned())
    }
}

/// Most made-up prefixes of one dataset.
pub const MADE_UP: usize = 8;

/// An IRI's namespace: everything up to its last `#` or `/` (not the scheme's `//`).
fn namespace_of(iri: &str) -> Option<&str> {
    let end = iri.rfind(['#', '/'])? + 1;
    (end > iri.find("://").map_or(0, |i| i + 3) && end < iri.len()).then(|| &iri[..end])
}

/// A prefix name for a namespace: its last path segment, lower case letters and digits,
/// starting with a letter (`ns` if nothing is left).
fn made_up_name(namespace: &str) -> String {
    let trimmed = namespace.trim_end_matches(['/', '#']);
    let segment = trimmed.rsplit(['/', '.', ':']).next().unwrap_or_default();
    let name: String = segment
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .skip_while(char::is_ascii_digit)
        .take(12)
        .collect();
    if name.is_empty() {
        "ns".to_owned()
    } else {
        name
    }
}

/// The index of the longest namespace that `iri` starts with.
fn longest_match<P: AsRef<str>, N: AsRef<str>>(entries: &[(P, N)], iri: &str) -> Option<usize> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, (_, ns))| iri.starts_with(ns.as_ref()))
        .max_by_key(|(_, (_, ns))| ns.as_ref().len())
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compacts_with_the_longest_namespace() {
        let all = Prefixes::well_known();
        assert_eq!(
            all.compact("http://dbpedia.org/ontology/Album").as_deref(),
            Some("dbo:Album")
        );
        assert_eq!(
            all.compact("http://dbpedia.org/class/yago/Song1")
                .as_deref(),
            Some("yago:Song1")
        );
        assert_eq!(all.compact("http://dbpedia.org/resource/AC/DC"), None);
        assert_eq!(all.compact("http://example.org/x"), None);
    }

    #[test]
    fn used_prefixes_follow_the_data() {
        let used = Prefixes::used_by([
            "http://nomisma.org/id/athens",
            "http://stardog.com/tutorial/Song",
            "http://stardog.com/tutorial/name",
        ]);
        let names: Vec<&str> = used.entries().iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["rdf", "rdfs", "owl", "xsd", "nm", "tutorial"]);
        assert_eq!(
            used.compact("http://stardog.com/tutorial/Song").as_deref(),
            Some("tutorial:Song")
        );
        assert!(used
            .declarations()
            .contains("PREFIX nm: <http://nomisma.org/id/>\n"));
    }
}
