//! SERVICE calls (SPARQL 1.1 Federated Query): the store never makes a network request itself.
//! Its caller supplies a [`RemoteEndpoint`] (the server's allow-listed HTTP client); without
//! one every `SERVICE` is refused as forbidden (and `SERVICE SILENT` then contributes nothing).

use crate::error::StoreError;
use oxrdf::NamedNode;
use spareval::{DefaultServiceHandler, QuerySolutionIter};
use spargebra::algebra::GraphPattern;
use std::sync::Arc;

/// Evaluates the pattern of a `SERVICE <name> { … }` block somewhere else.
///
/// Refusals are [`StoreError::Forbidden`], failures of the remote side
/// [`StoreError::Evaluation`]; both reach the client as 4xx.
pub trait RemoteEndpoint: Send + Sync {
    /// The solutions of `pattern` at the service `name`.
    fn evaluate(
        &self,
        name: &NamedNode,
        pattern: &GraphPattern,
        base_iri: Option<&str>,
    ) -> Result<QuerySolutionIter<'static>, StoreError>;
}

/// Adapts an optional [`RemoteEndpoint`] to spareval's handler interface.
pub(crate) struct ServiceAdapter(pub(crate) Option<Arc<dyn RemoteEndpoint>>);

impl DefaultServiceHandler for ServiceAdapter {
    type Error = StoreError;

    fn handle(
        &self,
        service_name: &NamedNode,
        pattern: &GraphPattern,
        base_iri: Option<&oxiri::Iri<String>>,
    ) -> Result<QuerySolutionIter<'static>, StoreError> {
        match &self.0 {
            Some(endpoint) => {
                endpoint.evaluate(service_name, pattern, base_iri.map(oxiri::Iri::as_str))
            }
            None => Err(StoreError::Forbidden(format!(
                "SERVICE {service_name}: federated queries are disabled on this server"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sparql::{
        evaluate_query, DatasetOverride, QueryOptions, QueryResults, SparqlParser,
    };
    use crate::{Store, StoreError, StoreOptions};

    fn count_solutions(store: &Store, query: &str) -> Result<usize, StoreError> {
        let query = SparqlParser::new().parse_query(query).expect("parses");
        let reader = store.reader();
        let results = evaluate_query(
            &reader,
            &query,
            &DatasetOverride::default(),
            &QueryOptions::default(),
        )?;
        let QueryResults::Solutions(solutions) = results else {
            panic!("a SELECT query");
        };
        let mut count = 0;
        for solution in solutions {
            solution.map_err(crate::sparql::evaluation_error)?;
            count += 1;
        }
        Ok(count)
    }

    #[test]
    fn service_without_an_endpoint_is_forbidden_and_silent_service_yields_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path(), StoreOptions::default()).expect("store");
        let refused = count_solutions(
            &store,
            "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
        );
        assert!(
            matches!(refused, Err(StoreError::Forbidden(ref m)) if m.contains("127.0.0.1")),
            "{refused:?}"
        );
        let silent = count_solutions(
            &store,
            "SELECT * WHERE { SERVICE SILENT <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
        );
        assert_eq!(silent.expect("SILENT hides the refusal"), 1);
    }
}
