//! Well-known namespace prefixes: which ones a dataset uses, and IRIs written compactly with
//! them (`dbo:Album` for `http://dbpedia.org/ontology/Album`).
//!
//! The table is fixed; a dataset's prefixes are the entries whose namespace some of its IRIs
//! start with. The longest matching namespace wins, so nested namespaces compact correctly.

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
    ("osgeo", "http://data.ordnancesurvey.co.uk/ontology/geometry/"),
    ("bsbm", "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/"),
    ("bsbm-inst", "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/"),
    ("gr", "http://purl.org/goodrelations/v1#"),
    ("rev", "http://purl.org/stuff/rev#"),
    ("yago", "http://dbpedia.org/class/yago/"),
];

/// A set of prefixes to write IRIs with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    entries: Vec<(&'static str, &'static str)>,
}

impl Prefixes {
    /// Every well-known prefix.
    pub fn well_known() -> Self {
        Self {
            entries: WELL_KNOWN.to_vec(),
        }
    }

    /// The well-known prefixes that some of `iris` use, plus `rdf`, `rdfs`, `owl` and `xsd`
    /// (which every query may need), in the table's order.
    pub fn used_by<'a>(iris: impl IntoIterator<Item = &'a str>) -> Self {
        let mut used = [false; WELL_KNOWN.len()];
        for slot in used.iter_mut().take(4) {
            *slot = true;
        }
        for iri in iris {
            if let Some(i) = longest_match(&WELL_KNOWN, iri) {
                used[i] = true;
            }
        }
        Self {
            entries: WELL_KNOWN
                .iter()
                .zip(used)
                .filter_map(|(entry, used)| used.then_some(*entry))
                .collect(),
        }
    }

    /// The (prefix, namespace) pairs.
    pub fn entries(&self) -> &[(&'static str, &'static str)] {
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
        let (prefix, ns) = self.entries[longest_match(&self.entries, iri)?];
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

/// The index of the longest namespace that `iri` starts with.
fn longest_match(entries: &[(&str, &str)], iri: &str) -> Option<usize> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, (_, ns))| iri.starts_with(ns))
        .max_by_key(|(_, (_, ns))| ns.len())
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
            all.compact("http://dbpedia.org/class/yago/Song1").as_deref(),
            Some("yago:Song1")
        );
        assert_eq!(all.compact("http://dbpedia.org/resource/AC/DC"), None);
        assert_eq!(all.compact("http://example.org/x"), None);
    }

    #[test]
    fn used_prefixes_follow_the_data() {
        let used = Prefixes::used_by(["http://nomisma.org/id/athens", "http://example.org/a"]);
        let names: Vec<&str> = used.entries().iter().map(|(p, _)| *p).collect();
        assert_eq!(names, ["rdf", "rdfs", "owl", "xsd", "nm"]);
        assert!(used
            .declarations()
            .contains("PREFIX nm: <http://nomisma.org/id/>\n"));
    }
}
