//! The SPARQL 1.1 Protocol request: which operation, which dataset, which limits.
//!
//! Accepted shapes (SPARQL 1.1 Protocol §2.1, §2.2):
//! - `GET ?query=…` (an `update=` in a GET is refused: updates change state and must be POSTed);
//! - `POST` `application/x-www-form-urlencoded` with `query=` or `update=`;
//! - `POST` `application/sparql-query` or `application/sparql-update` with the text as the body.
//!
//! Parameters come from the URL and, for forms, from the body as well: `default-graph-uri`,
//! `named-graph-uri`, `using-graph-uri`, `using-named-graph-uri` (each repeatable), `timeout`
//! (seconds) and `format` (also read from `output` and `results`, as clients of other servers
//! send them; repeats are allowed). Parameters this server does not know are ignored. A request with
//! neither `query` nor `update` asks for the service description.

use crate::error::ApiError;
use crate::extract::auth::authorize_write;
use crate::extract::body::{read_body, BodyShare};
use crate::extract::negotiate::AcceptHeader;
use crate::state::AppState;
use axum::extract::{FromRequest, Request};
use axum::http::{header, HeaderMap, Method};
use oxrdf::NamedNode;
use std::sync::Arc;
use std::time::Duration;

/// The operation a protocol request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// A SPARQL query (not parsed yet).
    Query(String),
    /// A SPARQL update (not parsed yet).
    Update(String),
    /// Neither: the client asks what the endpoint is.
    ServiceDescription,
}

/// A SPARQL 1.1 Protocol request.
#[derive(Debug, Clone)]
pub struct SparqlRequest {
    /// What to do.
    pub operation: Operation,
    /// `default-graph-uri` values (queries).
    pub default_graphs: Vec<NamedNode>,
    /// `named-graph-uri` values (queries).
    pub named_graphs: Vec<NamedNode>,
    /// `using-graph-uri` values (updates).
    pub using_graphs: Vec<NamedNode>,
    /// `using-named-graph-uri` values (updates).
    pub using_named_graphs: Vec<NamedNode>,
    /// `timeout=`: a lower time budget than the server's.
    pub timeout: Option<Duration>,
    /// `format=`, then `output=` and `results=` values (names or media types clients add, in
    /// the order given): the first naming a representation the server has overrides `Accept`.
    pub formats: Vec<String>,
    /// The `Accept` header.
    pub accept: AcceptHeader,
    /// The request headers (authorization and origin checks need them).
    pub headers: HeaderMap,
    /// The body's share of the server's budget of bodies in flight, held until the request is
    /// answered.
    _body: Option<Arc<BodyShare>>,
}

/// The media types a SPARQL POST may have.
pub const POST_TYPES: [&str; 3] = [
    "application/x-www-form-urlencoded",
    "application/sparql-query",
    "application/sparql-update",
];

/// The `Accept` header of a request (all its lines), `*/*` if absent.
pub fn accept_header(headers: &HeaderMap) -> AcceptHeader {
    let values: Vec<&str> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if values.is_empty() {
        AcceptHeader::any()
    } else {
        AcceptHeader::parse(&values.join(","))
    }
}

/// The media type of a request body without parameters, lower case (empty if none).
pub fn content_type_essence(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default()
}

/// Decoded `key=value` pairs of a query string or form body.
pub fn parse_pairs(text: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(text).into_owned().collect()
}

impl FromRequest<AppState> for SparqlRequest {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, ApiError> {
        let method = request.method().clone();
        let headers = request.headers().clone();
        let mut params = request
            .uri()
            .query()
            .map(|q| parse_pairs(q.as_bytes()))
            .unwrap_or_default();
        let mut body_operation = None;
        let mut body_share = None;
        if method == Method::POST {
            let content_type = content_type_essence(&headers);
            if !POST_TYPES.contains(&content_type.as_str()) {
                return Err(ApiError::UnsupportedMediaType {
                    found: content_type,
                    supported: POST_TYPES.iter().map(|t| (*t).to_owned()).collect(),
                });
            }
            // An update sent as such is refused before its body is read when it may not run,
            // so a client without the token cannot make the server hold its bytes.
            if content_type == "application/sparql-update" {
                authorize_write(state.settings(), &headers)?;
            }
            let (body, share) = read_body(
                request,
                state.settings().max_body_bytes,
                state.body_budget(),
            )
            .await?;
            body_share = Some(Arc::new(share));
            match content_type.as_str() {
                "application/x-www-form-urlencoded" => params.extend(parse_pairs(&body)),
                kind => {
                    let text = String::from_utf8(body.to_vec()).map_err(|_| {
                        ApiError::BadRequest("the request body is not valid UTF-8".into())
                    })?;
                    body_operation = Some(if kind == "application/sparql-query" {
                        Operation::Query(text)
                    } else {
                        Operation::Update(text)
                    });
                }
            }
        }
        let operation = operation(&method, &params, body_operation)?;
        Ok(Self {
            operation,
            default_graphs: iris(&params, "default-graph-uri")?,
            named_graphs: iris(&params, "named-graph-uri")?,
            using_graphs: iris(&params, "using-graph-uri")?,
            using_named_graphs: iris(&params, "using-named-graph-uri")?,
            timeout: timeout(&params)?,
            formats: ["format", "output", "results"]
                .iter()
                .flat_map(|name| params.iter().filter(move |(k, _)| k == name))
                .map(|(_, v)| v.clone())
                .collect(),
            accept: accept_header(&headers),
            headers,
            _body: body_share,
        })
    }
}

fn operation(
    method: &Method,
    params: &[(String, String)],
    body: Option<Operation>,
) -> Result<Operation, ApiError> {
    let query = single(params, "query")?;
    let update = single(params, "update")?;
    match (body, query, update) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(ApiError::BadRequest(
            "the operation is given twice: in the body and as a query= or update= parameter".into(),
        )),
        (Some(operation), None, None) => Ok(operation),
        (None, Some(_), Some(_)) => Err(ApiError::BadRequest(
            "a request carries either query= or update=, not both".into(),
        )),
        // Only POST may change data: a GET, or a HEAD that a link checker or a cache sends
        // without a thought, never runs an update.
        (None, None, Some(_)) if method != Method::POST => Err(ApiError::BadRequest(
            "SPARQL updates must be sent with POST (form-encoded update= or application/sparql-update)".into(),
        )),
        (None, None, Some(update)) => Ok(Operation::Update(update.to_owned())),
        (None, Some(query), None) => Ok(Operation::Query(query.to_owned())),
        (None, None, None) if method == Method::GET || method == Method::HEAD => {
            Ok(Operation::ServiceDescription)
        }
        (None, None, None) => Err(ApiError::BadRequest(
            "the request has neither a query= nor an update= parameter".into(),
        )),
    }
}

/// The value of a parameter that may appear once (or repeated with the same value, as some
/// clients send it in both the URL and the body).
fn single<'a>(params: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, ApiError> {
    let mut values = params
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str());
    let first = values.next();
    if values.any(|other| Some(other) != first) {
        return Err(ApiError::BadRequest(format!(
            "the parameter {name} is given more than once, with different values"
        )));
    }
    Ok(first)
}

fn iris(params: &[(String, String)], name: &str) -> Result<Vec<NamedNode>, ApiError> {
    params
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| {
            NamedNode::new(v.as_str()).map_err(|e| {
                ApiError::BadRequest(format!("{name}: {v:?} is not an absolute IRI: {e}"))
            })
        })
        .collect()
}

fn timeout(params: &[(String, String)]) -> Result<Option<Duration>, ApiError> {
    let Some(text) = single(params, "timeout")? else {
        return Ok(None);
    };
    match text.trim().parse::<f64>() {
        // Above the server's budget it is lowered to the budget, as documented.
        Ok(secs) if secs.is_finite() && secs > 0.0 => {
            Ok(Some(Duration::from_secs_f64(secs.min(86_400.0))))
        }
        _ => Err(ApiError::BadRequest(format!(
            "timeout: {text:?} is not a number of seconds above 0"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn operations() {
        let get = Method::GET;
        let post = Method::POST;
        assert_eq!(
            operation(&get, &pairs(&[("query", "ASK {}")]), None).ok(),
            Some(Operation::Query("ASK {}".into()))
        );
        assert_eq!(
            operation(&get, &[], None).ok(),
            Some(Operation::ServiceDescription)
        );
        assert!(operation(&post, &[], None).is_err());
        assert!(operation(&get, &pairs(&[("update", "CLEAR ALL")]), None).is_err());
        assert!(operation(&Method::HEAD, &pairs(&[("update", "DROP ALL")]), None).is_err());
        assert!(operation(&post, &pairs(&[("query", "a"), ("update", "b")]), None).is_err());
        assert!(operation(&post, &pairs(&[("query", "a"), ("query", "b")]), None).is_err());
        assert!(operation(
            &post,
            &pairs(&[("query", "a")]),
            Some(Operation::Query("b".into()))
        )
        .is_err());
        assert_eq!(
            operation(
                &post,
                &pairs(&[("unknown", "x")]),
                Some(Operation::Update("u".into()))
            )
            .ok(),
            Some(Operation::Update("u".into()))
        );
    }

    #[test]
    fn parameters() {
        let params = parse_pairs(b"default-graph-uri=http%3A%2F%2Fa.example%2Fg&default-graph-uri=http://b.example/&timeout=1.5&x=+y+");
        assert_eq!(
            iris(&params, "default-graph-uri").map(|v| v.len()).ok(),
            Some(2)
        );
        assert_eq!(
            timeout(&params).ok().flatten(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(single(&params, "x").ok().flatten(), Some(" y "));
        assert!(iris(
            &pairs(&[("named-graph-uri", "relative")]),
            "named-graph-uri"
        )
        .is_err());
        assert!(timeout(&pairs(&[("timeout", "-1")])).is_err());
        assert_eq!(
            timeout(&pairs(&[("timeout", "1e9")])).ok().flatten(),
            Some(Duration::from_secs(86_400))
        );
        assert!(timeout(&pairs(&[("timeout", "soon")])).is_err());
    }
}
