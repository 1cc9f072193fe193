//! The prefix table: which short name stands for which namespace (`dbo:` for
//! `http://dbpedia.org/ontology/`), for writing IRIs compactly ([`Prefixes::compact`]) and for
//! reading what people type ([`Prefixes::expand`]).
//!
//! One table serves every surface. It is built from, in increasing precedence:
//! names made up for the namespaces a store uses most ([`PrefixSource::Data`]), the bundled
//! well-known lists ([`PrefixSource::WellKnown`]: the W3C RDFa 1.1 initial context and the
//! common Linked Data namespaces as named at prefix.cc, in `data/`), the prefixes declared in
//! loaded Turtle, TriG and SPARQL updates ([`PrefixSource::Declared`]) and an operator's file
//! ([`PrefixSource::Operator`]). A prefix name maps to one namespace: an entry of higher
//! precedence replaces one of the same name. A namespace may have several names; compaction
//! uses the longest matching namespace and, among names of one namespace, the one added last
//! (so an operator's choice wins, and `dcterms:` beats RDFa's `dc:` for DC terms).

use crate::error::VocabError;
use std::sync::OnceLock;

/// The bundled RDFa 1.1 initial context (W3C Software and Document License).
const RDFA_INITIAL_CONTEXT: &str = include_str!("../data/rdfa-1.1.txt");
/// The bundled common Linked Data namespaces, named as at prefix.cc.
const LINKED_DATA: &str = include_str!("../data/linked-data.txt");

/// Most made-up prefixes [`Prefixes::used_by`] adds for namespaces without a name.
pub const MADE_UP: usize = 8;

/// Where an entry of the table comes from, in increasing precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PrefixSource {
    /// A name made up for a namespace the data uses (its last path segment).
    Data,
    /// The bundled well-known lists.
    WellKnown,
    /// Declared by a loaded Turtle or TriG file or a SPARQL update.
    Declared,
    /// The operator's prefix file.
    Operator,
}

/// A prefix table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    /// (prefix, namespace), in the order added; a replaced name moves to the end.
    entries: Vec<(String, String)>,
    /// The source of each entry.
    sources: Vec<PrefixSource>,
}

impl Prefixes {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bundled well-known prefixes: the RDFa 1.1 initial context, then the common Linked
    /// Data namespaces (which override it where they differ).
    pub fn well_known() -> Self {
        static WELL_KNOWN: OnceLock<Prefixes> = OnceLock::new();
        WELL_KNOWN
            .get_or_init(|| {
                let mut table = Self::new();
                for list in [RDFA_INITIAL_CONTEXT, LINKED_DATA] {
                    // The bundled lists are checked by a test; a bad line could only be skipped.
                    for (prefix, namespace) in parse_list(list).into_iter().flatten() {
                        table.insert(&prefix, &namespace, PrefixSource::WellKnown);
                    }
                }
                table
            })
            .clone()
    }

    /// This table with `prefix:` standing for `namespace` (see [`Prefixes::insert`]).
    #[must_use]
    pub fn with(mut self, prefix: &str, namespace: &str, source: PrefixSource) -> Self {
        self.insert(prefix, namespace, source);
        self
    }

    /// Makes `prefix:` stand for `namespace`, unless an entry of that name has a higher
    /// precedence; the entry becomes the last added (the preferred name of its namespace).
    /// Returns whether the name now stands for another namespace.
    pub fn insert(&mut self, prefix: &str, namespace: &str, source: PrefixSource) -> bool {
        let mut changed = true;
        if let Some(i) = self.entries.iter().position(|(p, _)| p == prefix) {
            if self.sources[i] > source {
                return false;
            }
            changed = self.entries[i].1 != namespace;
            self.entries.remove(i);
            self.sources.remove(i);
        }
        self.entries.push((prefix.to_owned(), namespace.to_owned()));
        self.sources.push(source);
        changed
    }

    /// Adds every entry of a prefix list (see [`Prefixes::parse`]) with the given source.
    pub fn extend_from_list(&mut self, text: &str, source: PrefixSource) -> Result<(), VocabError> {
        for (prefix, namespace) in Self::parse(text)? {
            self.insert(&prefix, &namespace, source);
        }
        Ok(())
    }

    /// Reads a prefix list: one entry per line, either `prefix namespace` or Turtle's
    /// `@prefix prefix: <namespace> .` (or SPARQL's `PREFIX prefix: <namespace>`); blank
    /// lines and lines starting with `#` are skipped.
    pub fn parse(text: &str) -> Result<Vec<(String, String)>, VocabError> {
        parse_list(text).into_iter().collect()
    }

    /// Gives a namespace that has no name in the table one made up from its last path
    /// segment (`tutorial:` for `http://stardog.com/tutorial/`), numbered if taken. Returns
    /// the name, or `None` if the namespace already has one.
    pub fn name_namespace(&mut self, namespace: &str) -> Option<String> {
        if self.entries.iter().any(|(_, ns)| ns == namespace) {
            return None;
        }
        let base = made_up_name(namespace);
        let mut name = base.clone();
        let mut n = 2;
        while self.namespace(&name).is_some() {
            name = format!("{base}{n}");
            n += 1;
        }
        self.insert(&name, namespace, PrefixSource::Data);
        Some(name)
    }

    /// The entries of this table that some of `iris` use, plus `rdf`, `rdfs`, `owl` and `xsd`
    /// (which every query may need); then a made-up name for each other namespace of `iris`
    /// (at most [`MADE_UP`]). For the `PREFIX` lines of a query editor.
    pub fn subset_used_by<'a>(&self, iris: impl IntoIterator<Item = &'a str>) -> Self {
        let mut used: Vec<bool> = self
            .entries
            .iter()
            .map(|(p, _)| matches!(p.as_str(), "rdf" | "rdfs" | "owl" | "xsd"))
            .collect();
        let mut others: Vec<String> = Vec::new();
        for iri in iris {
            match self.longest_match(iri) {
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
        let mut subset = Self::new();
        for (i, (prefix, namespace)) in self.entries.iter().enumerate() {
            if used[i] {
                subset.insert(prefix, namespace, self.sources[i]);
            }
        }
        for namespace in others {
            subset.name_namespace(&namespace);
        }
        subset
    }

    /// The well-known prefixes that `iris` use (see [`Prefixes::subset_used_by`]).
    pub fn used_by<'a>(iris: impl IntoIterator<Item = &'a str>) -> Self {
        Self::well_known().subset_used_by(iris)
    }

    /// The (prefix, namespace) pairs, in the order added.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The namespace `prefix:` stands for.
    pub fn namespace(&self, prefix: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|(_, ns)| ns.as_str())
    }

    /// Where the entry named `prefix` comes from.
    pub fn source(&self, prefix: &str) -> Option<PrefixSource> {
        let i = self.entries.iter().position(|(p, _)| p == prefix)?;
        self.sources.get(i).copied()
    }

    /// The prefix names that start with `start` (`sk` → `skos`, `skosxl`), in table order.
    pub fn names_starting_with<'s>(&'s self, start: &'s str) -> impl Iterator<Item = &'s str> {
        self.entries
            .iter()
            .map(|(p, _)| p.as_str())
            .filter(move |p| p.starts_with(start))
    }

    /// `PREFIX p: <ns>` lines, one per entry.
    pub fn declarations(&self) -> String {
        self.entries
            .iter()
            .map(|(prefix, ns)| format!("PREFIX {prefix}: <{ns}>\n"))
            .collect()
    }

    /// A CURIE `prefix:local` as a full IRI, if the prefix is in the table (`skos:pref` →
    /// `http://www.w3.org/2004/02/skos/core#pref`). Text that is already an IRI
    /// (`http://…`, the part after the colon starting with `//`) is not a CURIE.
    pub fn expand(&self, curie: &str) -> Option<String> {
        let (prefix, local) = curie.split_once(':')?;
        if local.starts_with("//") || local.chars().any(char::is_whitespace) {
            return None;
        }
        self.namespace(prefix).map(|ns| format!("{ns}{local}"))
    }

    /// `iri` as `prefix:local` if a namespace matches and the rest is a plain local name.
    pub fn compact(&self, iri: &str) -> Option<String> {
        let (prefix, ns) = &self.entries[self.longest_match(iri)?];
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

    /// The index of the longest namespace that `iri` starts with; among equals, the last.
    fn longest_match(&self, iri: &str) -> Option<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, (_, ns))| iri.starts_with(ns.as_str()))
            .max_by_key(|(i, (_, ns))| (ns.len(), *i))
            .map(|(i, _)| i)
    }
}

/// An IRI's namespace: everything up to its last `#` or `/` (not the scheme's `//`), if
/// something follows it.
pub fn namespace_of(iri: &str) -> Option<&str> {
    let end = iri.rfind(['#', '/'])? + 1;
    (end > iri.find("://").map_or(0, |i| i + 3) && end < iri.len()).then(|| &iri[..end])
}

/// An IRI's local name: what follows its namespace (see [`namespace_of`]), or the part after
/// the last `:` of a URN.
pub fn local_name(iri: &str) -> Option<&str> {
    match namespace_of(iri) {
        Some(ns) => Some(&iri[ns.len()..]),
        None => iri
            .rsplit_once(':')
            .map(|(_, local)| local)
            .filter(|l| !l.is_empty() && !l.starts_with('/')),
    }
}

/// A prefix name for a namespace: its last path segment (for a namespace without a path, the
/// first label of its host other than `www`), lower case letters and digits, starting with a
/// letter (`ns` if nothing is left).
fn made_up_name(namespace: &str) -> String {
    let trimmed = namespace.trim_end_matches(['/', '#']);
    let after_scheme = trimmed.split_once("://").map_or(trimmed, |(_, rest)| rest);
    let segment = if after_scheme.contains('/') || !trimmed.contains("://") {
        trimmed.rsplit(['/', '.', ':']).next().unwrap_or_default()
    } else {
        after_scheme
            .split('.')
            .find(|label| *label != "www")
            .unwrap_or_default()
    };
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

/// Reads a prefix list, one result per entry line.
fn parse_list(text: &str) -> Vec<Result<(String, String), VocabError>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        })
        .map(|(i, line)| {
            parse_line(line).map_err(|(at, message)| VocabError::PrefixLine {
                line: i + 1,
                column: line[..at].chars().count() + 1,
                message,
            })
        })
        .collect()
}

/// The words of a line with their byte offsets.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

/// One entry: `p ns`, `@prefix p: <ns> .` or `PREFIX p: <ns>`; else the byte offset of the
/// wrong part and what is wrong.
fn parse_line(line: &str) -> Result<(String, String), (usize, String)> {
    let mut words = words(line);
    // Turtle's final dot, alone or after the IRI (`<ns>.`).
    let turtle = words.first().is_some_and(|(_, w)| *w == "@prefix");
    if turtle {
        match words.last_mut() {
            Some((_, ".")) => {
                words.pop();
            }
            Some((_, last)) if last.ends_with(">.") => *last = &last[..last.len() - 1],
            _ => {
                let at = words.last().map_or(0, |(at, w)| at + w.len());
                return Err((at, "a Turtle @prefix line ends with ` .`".to_owned()));
            }
        }
    }
    let ((prefix_at, prefix), (namespace_at, namespace)) = match words.as_slice() {
        [(_, keyword), prefix, namespace]
            if *keyword == "@prefix" || keyword.eq_ignore_ascii_case("prefix") =>
        {
            (*prefix, *namespace)
        }
        [prefix, namespace] => (*prefix, *namespace),
        _ => {
            return Err((
                0,
                format!("expected `prefix namespace`, `@prefix p: <namespace> .` or `PREFIX p: <namespace>`, found `{}`", line.trim()),
            ))
        }
    };
    let prefix = prefix.strip_suffix(':').unwrap_or(prefix);
    let namespace = namespace
        .strip_prefix('<')
        .and_then(|n| n.strip_suffix('>'))
        .unwrap_or(namespace);
    let name_ok = prefix
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && prefix
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !name_ok {
        return Err((prefix_at, format!("`{prefix}` is not a prefix name")));
    }
    if !namespace.contains(':') || namespace.contains(['<', '>', '"', ' ']) {
        return Err((
            namespace_at,
            format!("`{namespace}` is not an absolute IRI"),
        ));
    }
    Ok((prefix.to_owned(), namespace.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_lists_parse_whole() {
        for list in [RDFA_INITIAL_CONTEXT, LINKED_DATA] {
            let entries = Prefixes::parse(list).unwrap();
            assert!(entries.len() > 25);
        }
        let all = Prefixes::well_known();
        assert_eq!(all.namespace("org"), Some("http://www.w3.org/ns/org#"));
        assert_eq!(
            all.namespace("dc"),
            Some("http://purl.org/dc/elements/1.1/")
        );
    }

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
        assert_eq!(
            all.compact("http://purl.org/dc/terms/title").as_deref(),
            Some("dcterms:title")
        );
        assert_eq!(all.compact("http://dbpedia.org/resource/AC/DC"), None);
        assert_eq!(all.compact("http://example.org/x"), None);
    }

    #[test]
    fn expands_curies_and_leaves_iris() {
        let all = Prefixes::well_known();
        assert_eq!(
            all.expand("skos:pref").as_deref(),
            Some("http://www.w3.org/2004/02/skos/core#pref")
        );
        assert_eq!(
            all.expand("org:organi").as_deref(),
            Some("http://www.w3.org/ns/org#organi")
        );
        assert_eq!(all.expand("http://example.org/a"), None);
        assert_eq!(all.expand("nosuchprefix:a"), None);
        assert_eq!(all.names_starting_with("skos").count(), 2);
    }

    #[test]
    fn higher_precedence_wins_and_the_last_name_compacts() {
        let mut table = Prefixes::well_known();
        assert!(table.insert("ex", "http://example.org/", PrefixSource::Declared));
        assert!(!table.insert("ex", "http://other.org/", PrefixSource::WellKnown));
        assert!(table.insert("ex", "http://other.org/", PrefixSource::Operator));
        assert_eq!(table.namespace("ex"), Some("http://other.org/"));
        table.insert(
            "thing",
            "http://dbpedia.org/ontology/",
            PrefixSource::Operator,
        );
        assert_eq!(
            table
                .compact("http://dbpedia.org/ontology/Album")
                .as_deref(),
            Some("thing:Album")
        );
    }

    #[test]
    fn operator_lists_are_checked() {
        let mut table = Prefixes::new();
        table
            .extend_from_list(
                "# mine\nex http://example.org/\n@prefix v: <http://v.org/#> .\nPREFIX w: <urn:w:>\n",
                PrefixSource::Operator,
            )
            .unwrap();
        assert_eq!(table.len(), 3);
        assert_eq!(table.namespace("w"), Some("urn:w:"));
        let error = Prefixes::parse("ex\n").unwrap_err().to_string();
        assert!(error.contains("line 1, column 1"), "{error}");
        let error =
            Prefixes::parse("# a\n\nok: <http://ok.org/>\n  @prefix 9x: <http://e.org/> .\n")
                .unwrap_err()
                .to_string();
        assert!(error.contains("line 4, column 11"), "{error}");
        let error = Prefixes::parse("PREFIX v: <e.org>")
            .unwrap_err()
            .to_string();
        assert!(error.contains("line 1, column 11"), "{error}");
        assert!(Prefixes::parse("@prefix v: <http://v.org/>").is_err());
        assert_eq!(
            Prefixes::parse("@prefix v: <http://v.org/>.").unwrap(),
            [("v".to_owned(), "http://v.org/".to_owned())]
        );
        assert!(Prefixes::parse("1x http://e.org/").is_err());
        assert!(Prefixes::parse("x e.org").is_err());
    }

    #[test]
    fn used_prefixes_follow_the_data() {
        let used = Prefixes::used_by([
            "http://nomisma.org/id/athens",
            "http://stardog.com/tutorial/Song",
            "http://stardog.com/tutorial/name",
        ]);
        let names: Vec<&str> = used.entries().iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, ["owl", "rdf", "rdfs", "xsd", "nm", "tutorial"]);
        assert_eq!(
            used.compact("http://stardog.com/tutorial/Song").as_deref(),
            Some("tutorial:Song")
        );
        assert!(used
            .declarations()
            .contains("PREFIX nm: <http://nomisma.org/id/>\n"));
    }

    #[test]
    fn made_up_names_come_from_the_path_or_the_host() {
        assert_eq!(made_up_name("http://stardog.com/tutorial/"), "tutorial");
        assert_eq!(made_up_name("http://example.org/"), "example");
        assert_eq!(made_up_name("https://www.wikidata.org/"), "wikidata");
        assert_eq!(made_up_name("http://e.org/v1.2/"), "ns");
    }

    #[test]
    fn local_names() {
        assert_eq!(
            local_name("http://www.w3.org/2004/02/skos/core#prefLabel"),
            Some("prefLabel")
        );
        assert_eq!(local_name("http://dbpedia.org/resource/Ath"), Some("Ath"));
        assert_eq!(local_name("urn:isbn:123"), Some("123"));
        assert_eq!(local_name("http://example.org/"), None);
    }
}
