//! Where `SERVICE` calls may go: the federation policy (see `crate::federation`).

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
