//! The SPARQL 1.1 Protocol request: which operation, which dataset, which limits.
//!
//! Accepted shapes (SPARQL 1.1 Protocol §2.1, §2.2):
//! - `GET ?query=…` (an `update=` in a GET is refused: updates change state and must be POSTed);
//! - `POST` `application/x-www-form-urlencoded` with `query=` or `update=`;
//! - `POST` `application/sparql-query` or `application/sparql-update` with the text as the body.
//!
//! Parameters come from the URL and, for forms, from the body as well: `default-graph-uri`,
//! `named-graph-uri`, `using-graph-uri`, `using-named-graph-uri` (each repeatable), `timeout`
//! (seconds) and `format`. Parameters this server does not know are ignored. A request with
//! neither `query` nor `update` asks for the service description.

use crate::error::ApiError;
use crate::extract::deadline::ReadDeadline;
use crate::extract::negotiate::AcceptHeader;
use crate::state::AppState;
use axum::extract::{FromRequest, Request};
use axum::http::{header, HeaderMap, Method, StatusCode};
use bytes::Bytes;
use oxrdf::NamedNode;
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
    /// `format=`: a result syntax name or media type, overriding `Accept`.
    pub format: Option<String>,
    /// The `Accept` header.
    pub accept: AcceptHeader,
    /// The request headers (authorization and origin checks need them).
    pub headers: HeaderMap,
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

/// Reads a whole request body, mapping the size limit to 413.
pub async fn read_body(request: Request, limit: usize) -> Result<Bytes, ApiError> {
    // A declared length over the limit is refused before a byte of the body is read.
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let deadline = request.extensions().get::<ReadDeadline>().copied();
    ReadDeadline::bound(deadline, async move {
        Bytes::from_request(request, &())
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::PayloadTooLarge { limit }
                } else {
                    ApiError::BadRequest(rejection.body_text())
                }
            })
    })
    .await
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
        if method == Method::POST {
            let content_type = content_type_essence(&headers);
            if !POST_TYPES.contains(&content_type.as_str()) {
                return Err(ApiError::UnsupportedMediaType {
                    found: content_type,
                    supported: POST_TYPES.iter().map(|t| (*t).to_owned()).collect(),
                });
            }
            let body = read_body(request, state.settings().max_body_bytes).await?;
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
            format: single(&params, "format")?.map(str::to_owned),
            accept: accept_header(&headers),
            headers,
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
        (None, None, Some(_)) if method == Method::GET => Err(ApiError::BadRequest(
            "SPARQL updates must be sent with POST (form-encoded update= or application/sparql-update)".into(),
        )),
        (None, None, Some(update)) => Ok(Operation::Update(update.to_owned())),
        (None, Some(query), None) => Ok(Operation::Query(query.to_owned())),
        (None, None, None) if method == Method::GET => Ok(Operation::ServiceDescription),
        (None, None, None) => Err(ApiError::BadRequest(
            "the request has neither a query= nor an update= parameter".into(),
        )),
    }
}

/// The value of a parameter that may appear at most once.
fn single<'a>(params: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, ApiError> {
    let mut values = params
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str());
    let first = values.next();
    if values.next().is_some() {
        return Err(ApiError::BadRequest(format!(
            "the parameter {name} is given more than once"
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
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => {
            Ok(Some(Duration::from_secs_f64(secs)))
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
        assert!(timeout(&pairs(&[("timeout", "soon")])).is_err());
    }
}
