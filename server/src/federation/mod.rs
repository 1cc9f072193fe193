//! SPARQL 1.1 Federated Query (`SERVICE`): which remote endpoints a query may call, and the
//! bounded HTTP client that calls them.
//!
//! Off by default: a `SERVICE` is refused (403) unless its endpoint IRI is listed exactly in
//! `[sparql] service_allow`. Even then the endpoint's host must resolve only to public
//! addresses (no loopback, private, link-local or unspecified address, checked after DNS
//! resolution and pinned for the connection, see [`address`]); each call has a time and a size
//! bound, one query makes a bounded number of calls, redirects are not followed and no proxy is
//! used.

pub mod address;
mod client;

pub use client::HttpEndpoint;

use crate::config::{ByteSize, ServerSettings};
use oxrdf::NamedNode;
use std::time::Duration;

/// Where and how `SERVICE` calls may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServicePolicy {
    /// Endpoint IRIs a query may call, compared exactly.
    pub allow: Vec<NamedNode>,
    /// Time bound of one call (connecting, sending, receiving).
    pub timeout: Duration,
    /// Largest answer of one call, in bytes.
    pub max_response_bytes: usize,
    /// Most solutions one call may answer.
    pub max_rows: usize,
    /// Most calls one query may make (a SERVICE inside a join may be called once per row).
    pub max_calls: usize,
    /// Whether endpoints on loopback and private addresses may be called: for tests only,
    /// never set from the configuration.
    pub allow_private_addresses: bool,
}

impl Default for ServicePolicy {
    fn default() -> Self {
        Self {
            allow: Vec::new(),
            timeout: Duration::from_secs(10),
            max_response_bytes: 16 << 20,
            max_rows: 100_000,
            max_calls: 16,
            allow_private_addresses: false,
        }
    }
}

impl ServicePolicy {
    /// Allows calls to one more endpoint IRI.
    pub fn with_allowed(mut self, endpoint: NamedNode) -> Self {
        self.allow.push(endpoint);
        self
    }

    /// The time bound of one call.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The size bound of one answer.
    pub fn with_max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Lets allow-listed endpoints on loopback and private addresses be called. Only tests
    /// use this (to call a second server on 127.0.0.1); the configuration cannot set it.
    pub fn allowing_private_addresses_for_tests(mut self) -> Self {
        self.allow_private_addresses = true;
        self
    }

    /// Whether `endpoint` is on the allow-list.
    pub fn allows(&self, endpoint: &NamedNode) -> bool {
        self.allow.contains(endpoint)
    }
}

impl ServerSettings {
    /// Where `SERVICE` calls may go (by default nowhere).
    pub fn with_service_policy(mut self, policy: ServicePolicy) -> Self {
        self.service = policy;
        self
    }
}

/// The `[sparql]` table of `lodestone.toml`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparqlFileConfig {
    /// Endpoint IRIs (`http://` or `https://`) that `SERVICE` may call.
    pub service_allow: Option<Vec<String>>,
    /// Time bound of one `SERVICE` call in seconds [default: 10].
    pub service_timeout: Option<f64>,
    /// Largest answer of one `SERVICE` call [default: 16MB].
    pub service_max_bytes: Option<ByteSize>,
}

impl SparqlFileConfig {
    /// The checked policy; `Err` names the key (under `sparql.`) and the reason.
    pub fn policy(&self) -> Result<ServicePolicy, (&'static str, String)> {
        let mut policy = ServicePolicy::default();
        for text in self.service_allow.iter().flatten() {
            let iri = NamedNode::new(text.trim()).map_err(|e| {
                (
                    "sparql.service_allow",
                    format!("{text:?} is not an IRI: {e}"),
                )
            })?;
            let url = reqwest::Url::parse(iri.as_str())
                .map_err(|e| ("sparql.service_allow", format!("{text:?}: {e}")))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err((
                    "sparql.service_allow",
                    format!("{text:?} is not an http:// or https:// endpoint"),
                ));
            }
            policy.allow.push(iri);
        }
        if let Some(secs) = self.service_timeout {
            if !(secs.is_finite() && (0.1..=300.0).contains(&secs)) {
                return Err((
                    "sparql.service_timeout",
                    format!("{secs} must be between 0.1 and 300 seconds"),
                ));
            }
            policy.timeout = Duration::from_secs_f64(secs);
        }
        if let Some(ByteSize(bytes)) = self.service_max_bytes {
            policy.max_response_bytes = usize::try_from(bytes)
                .ok()
                .filter(|b| (1024..=1 << 30).contains(b))
                .ok_or((
                    "sparql.service_max_bytes",
                    format!("{bytes} bytes: must be between 1KB and 1GB"),
                ))?;
        }
        Ok(policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_table_gives_a_checked_policy() {
        let file: SparqlFileConfig = toml::from_str(
            "service_allow = [\"https://query.wikidata.org/sparql\"]\nservice_timeout = 2.5\nservice_max_bytes = \"1MB\"\n",
        )
        .expect("parses");
        let policy = file.policy().expect("valid");
        assert!(policy.allows(&NamedNode::new_unchecked(
            "https://query.wikidata.org/sparql"
        )));
        assert!(!policy.allows(&NamedNode::new_unchecked(
            "https://query.wikidata.org/sparql/"
        )));
        assert_eq!(policy.timeout, Duration::from_millis(2500));
        assert_eq!(policy.max_response_bytes, 1 << 20);
        assert!(!policy.allow_private_addresses);

        for (toml, key) in [
            (
                "service_allow = [\"ftp://example.org/\"]",
                "sparql.service_allow",
            ),
            ("service_allow = [\"not an iri\"]", "sparql.service_allow"),
            ("service_timeout = 0", "sparql.service_timeout"),
            ("service_max_bytes = 10", "sparql.service_max_bytes"),
        ] {
            let file: SparqlFileConfig = toml::from_str(toml).expect("parses");
            assert_eq!(file.policy().expect_err(toml).0, key);
        }
        assert!(toml::from_str::<SparqlFileConfig>("allow_private = true").is_err());
    }

    #[test]
    fn the_documented_sparql_example_is_valid_and_refused_keys_name_themselves() {
        let doc = include_str!("../../../docs/configuration.md");
        let section = &doc[doc
            .find("## Federated queries")
            .expect("a federation section")..];
        let start = section.find("```toml").expect("an example") + "```toml".len();
        let end = start + section[start..].find("```").expect("the example's end");
        let file: crate::config::FileConfig =
            toml::from_str(&section[start..end]).expect("the example parses");
        let policy = file
            .sparql
            .expect("a [sparql] table")
            .policy()
            .expect("valid");
        assert_eq!(policy.allow.len(), 2);

        let file: crate::config::FileConfig =
            toml::from_str("[sparql]\nservice_allow = [\"gopher://x/\"]\n").expect("parses");
        let error = crate::config::Config::from_layers(&Default::default(), &file, None)
            .expect_err("refused")
            .to_string();
        assert!(error.contains("sparql.service_allow"), "{error}");
    }
}
