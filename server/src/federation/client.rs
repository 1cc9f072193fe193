//! The HTTP client of `SERVICE` calls: one bounded SPARQL protocol request per call.

use super::address;
use crate::settings::ServicePolicy;
use lodestone_store::sparql::{Query, QuerySolutionIter, RemoteEndpoint};
use lodestone_store::StoreError;
use oxrdf::NamedNode;
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};
use spargebra::algebra::GraphPattern;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a call asks the remote endpoint for.
const ACCEPT: &str = "application/sparql-results+json, application/sparql-results+xml;q=0.9";

/// Calls allow-listed endpoints for one query; counts its calls against the policy's bound,
/// so make a new one per query.
pub struct HttpEndpoint {
    policy: Arc<ServicePolicy>,
    calls: AtomicUsize,
}

impl HttpEndpoint {
    /// An endpoint caller for one query under `policy`.
    pub fn new(policy: Arc<ServicePolicy>) -> Self {
        Self {
            policy,
            calls: AtomicUsize::new(0),
        }
    }

    fn check(
        &self,
        name: &NamedNode,
    ) -> Result<(reqwest::Url, Vec<std::net::SocketAddr>), StoreError> {
        if !self.policy.allows(name) {
            return Err(StoreError::Forbidden(format!(
                "SERVICE {name}: this endpoint is not in the server's allow-list ([sparql] service_allow)"
            )));
        }
        if self.calls.fetch_add(1, Ordering::Relaxed) >= self.policy.max_calls {
            return Err(StoreError::Forbidden(format!(
                "SERVICE {name}: one query may make at most {} SERVICE calls",
                self.policy.max_calls
            )));
        }
        let url = reqwest::Url::parse(name.as_str())
            .map_err(|e| StoreError::Forbidden(format!("SERVICE {name}: {e}")))?;
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err(StoreError::Forbidden(format!(
                "SERVICE {name}: not an http:// or https:// endpoint"
            )));
        };
        let addresses = address::resolve(host, port, self.policy.allow_private_addresses)
            .map_err(|reason| StoreError::Forbidden(format!("SERVICE {name}: {reason}")))?;
        Ok((url, addresses))
    }

    fn call(
        &self,
        name: &NamedNode,
        url: reqwest::Url,
        addresses: &[std::net::SocketAddr],
        query: &str,
    ) -> Result<QuerySolutionIter<'static>, StoreError> {
        let failed = |what: String| StoreError::Evaluation(format!("SERVICE {name}: {what}"));
        let start = Instant::now();
        let mut builder = reqwest::blocking::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.policy.timeout)
            .timeout(self.policy.timeout)
            .user_agent(concat!("lodestone/", env!("CARGO_PKG_VERSION")));
        if let Some(domain) = url.domain() {
            // Connect to the addresses that were checked, never to a second resolution's.
            builder = builder.resolve_to_addrs(domain, addresses);
        }
        let client = builder.build().map_err(|e| failed(e.to_string()))?;
        let body: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("query", query)
            .finish();
        let response = client
            .post(url)
            .header(reqwest::header::ACCEPT, ACCEPT)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body)
            .send()
            .map_err(|e| failed(describe(&e, &self.policy)))?;
        if !response.status().is_success() {
            return Err(failed(format!("answered HTTP {}", response.status())));
        }
        let format = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(QueryResultsFormat::from_media_type)
            .ok_or_else(|| failed("the answer is not SPARQL results (Content-Type)".into()))?;
        let bytes = self.read_bounded(response, start).map_err(failed)?;
        self.solutions(format, &bytes).map_err(failed)
    }

    /// The body, refused beyond the size bound or once the time bound has passed.
    fn read_bounded(
        &self,
        mut response: reqwest::blocking::Response,
        start: Instant,
    ) -> Result<Vec<u8>, String> {
        let limit = self.policy.max_response_bytes;
        let mut bytes = Vec::new();
        let mut chunk = vec![0; 64 << 10];
        loop {
            let read = response
                .read(&mut chunk)
                .map_err(|e| format!("reading the answer: {e}"))?;
            if read == 0 {
                return Ok(bytes);
            }
            if bytes.len() + read > limit {
                return Err(format!("the answer is larger than {limit} bytes"));
            }
            bytes.extend_from_slice(&chunk[..read]);
            if start.elapsed() > self.policy.timeout {
                return Err(format!(
                    "no complete answer within {:.1} s",
                    self.policy.timeout.as_secs_f64()
                ));
            }
        }
    }

    fn solutions(
        &self,
        format: QueryResultsFormat,
        bytes: &[u8],
    ) -> Result<QuerySolutionIter<'static>, String> {
        let parsed = QueryResultsParser::from_format(format)
            .for_slice(bytes)
            .map_err(|e| format!("invalid SPARQL results: {e}"))?;
        let SliceQueryResultsParserOutput::Solutions(parser) = parsed else {
            return Err("answered a boolean instead of solutions".into());
        };
        let variables: Arc<[oxrdf::Variable]> = parser.variables().into();
        let mut solutions = Vec::new();
        for solution in parser {
            if solutions.len() == self.policy.max_rows {
                return Err(format!(
                    "the answer has more than {} solutions",
                    self.policy.max_rows
                ));
            }
            solutions.push(solution.map_err(|e| format!("invalid SPARQL results: {e}"))?);
        }
        Ok(QuerySolutionIter::new(
            variables,
            solutions.into_iter().map(Ok),
        ))
    }
}

/// A transport error in words, naming the time bound when it was hit.
fn describe(error: &reqwest::Error, policy: &ServicePolicy) -> String {
    if error.is_timeout() {
        format!("no answer within {:.1} s", policy.timeout.as_secs_f64())
    } else {
        format!("the request failed: {error}")
    }
}

impl RemoteEndpoint for HttpEndpoint {
    fn evaluate(
        &self,
        name: &NamedNode,
        pattern: &GraphPattern,
        _base_iri: Option<&str>,
    ) -> Result<QuerySolutionIter<'static>, StoreError> {
        let (url, addresses) = self.check(name)?;
        // Built as algebra and printed: the pattern's IRIs are already absolute.
        let query = Query::Select {
            dataset: None,
            pattern: pattern.clone(),
            base_iri: None,
        };
        self.call(name, url, &addresses, &query.to_string())
    }
}
