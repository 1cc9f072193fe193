//! The IRIs the manifests and result-set graphs use, one constant each.

use oxrdf::NamedNodeRef;

const fn iri(value: &'static str) -> NamedNodeRef<'static> {
    NamedNodeRef::new_unchecked(value)
}

/// The test manifest vocabulary.
pub mod mf {
    use super::{iri, NamedNodeRef};

    pub const INCLUDE: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#include");
    pub const ENTRIES: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#entries");
    pub const NAME: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#name");
    pub const ACTION: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#action");
    pub const RESULT: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#result");
    pub const REQUIRES: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#requires");
    /// Prefix of every test type IRI.
    pub const TEST_TYPE_NAMESPACE: &str =
        "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#";
}

/// Query test actions.
pub mod qt {
    use super::{iri, NamedNodeRef};

    pub const QUERY: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-query#query");
    pub const DATA: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-query#data");
    pub const GRAPH_DATA: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-query#graphData");
    pub const GRAPH: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-query#graph");
    pub const SERVICE_DATA: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-query#serviceData");
    pub const ENDPOINT: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-query#endpoint");
}

/// Update test actions and expected states.
pub mod ut {
    use super::{iri, NamedNodeRef};

    pub const REQUEST: NamedNodeRef<'_> =
        iri("http://www.w3.org/2009/sparql/tests/test-update#request");
    pub const DATA: NamedNodeRef<'_> = iri("http://www.w3.org/2009/sparql/tests/test-update#data");
    pub const GRAPH_DATA: NamedNodeRef<'_> =
        iri("http://www.w3.org/2009/sparql/tests/test-update#graphData");
    pub const GRAPH: NamedNodeRef<'_> =
        iri("http://www.w3.org/2009/sparql/tests/test-update#graph");
}

/// Approval status of a test.
pub mod dawgt {
    use super::{iri, NamedNodeRef};

    pub const APPROVAL: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#approval");
    pub const NOT_CLASSIFIED: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#NotClassified");
    pub const WITHDRAWN: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#Withdrawn");
    pub const DEPRECATED: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#Deprecated");
    pub const REJECTED: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#Rejected");
}

/// The service description vocabulary (entailment regimes of a test action).
pub mod sd {
    use super::{iri, NamedNodeRef};

    pub const ENTAILMENT_REGIME: NamedNodeRef<'_> =
        iri("http://www.w3.org/ns/sparql-service-description#entailmentRegime");
}

/// Result sets written as RDF graphs.
pub mod rs {
    use super::{iri, NamedNodeRef};

    pub const RESULT_SET: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#ResultSet");
    pub const RESULT_VARIABLE: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#resultVariable");
    pub const SOLUTION: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#solution");
    pub const BINDING: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#binding");
    pub const VALUE: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#value");
    pub const VARIABLE: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#variable");
    pub const INDEX: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#index");
    pub const BOOLEAN: NamedNodeRef<'_> =
        iri("http://www.w3.org/2001/sw/DataAccess/tests/result-set#boolean");
}
