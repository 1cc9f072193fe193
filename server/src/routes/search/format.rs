//! JSON or XML: the negotiation and the rendering of a JSON value as XML.
//!
//! The XML form mirrors the JSON one: an object becomes child elements named by its keys, an
//! array becomes one element per item named by the singular of its key (`results` →
//! `result`), `null` an empty element. Errors follow the chosen format too.

use super::params::{bad, Params};
use crate::error::ApiError;
use crate::extract::negotiate::{AcceptHeader, Offer};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// The two syntaxes of the search API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application/json`.
    Json,
    /// `application/xml`.
    Xml,
}

impl Format {
    /// The format of a response, or the refusal to send (the error in `preferred`) when the
    /// request asks for none that exists.
    pub fn for_request(
        params: &Params,
        headers: &HeaderMap,
        preferred: Format,
    ) -> Result<Self, Box<Response>> {
        Self::negotiate(params, headers, preferred)
            .map_err(|error| Box::new(preferred.error(error)))
    }

    /// `format=json|xml` wins; otherwise `Accept`, with `preferred` on a tie or no header.
    pub fn negotiate(
        params: &Params,
        headers: &HeaderMap,
        preferred: Format,
    ) -> Result<Self, ApiError> {
        if let Some(name) = params.get("format")? {
            return match name.to_ascii_lowercase().as_str() {
                "json" => Ok(Self::Json),
                "xml" => Ok(Self::Xml),
                _ => Err(bad("format", "must be json or xml")),
            };
        }
        let accept = headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .map_or_else(AcceptHeader::any, AcceptHeader::parse);
        let offers = match preferred {
            Self::Json => [
                Offer::new("application/json", Self::Json),
                Offer::new("application/xml", Self::Xml),
                Offer::new("text/xml", Self::Xml),
            ],
            Self::Xml => [
                Offer::new("application/xml", Self::Xml),
                Offer::new("text/xml", Self::Xml),
                Offer::new("application/json", Self::Json),
            ],
        };
        accept
            .negotiate(&offers)
            .map(|offer| offer.value)
            .ok_or_else(|| ApiError::NotAcceptable {
                available: vec!["application/json".into(), "application/xml".into()],
            })
    }

    /// A 200 response with the value in this format, `root` naming the XML document element.
    pub fn respond(self, value: &Value, root: &str) -> Response {
        match self {
            Self::Json => axum::Json(value).into_response(),
            Self::Xml => xml_response(StatusCode::OK, to_xml(value, root)),
        }
    }

    /// An error response in this format.
    pub fn error(self, error: ApiError) -> Response {
        match self {
            Self::Json => error.into_response(),
            Self::Xml => {
                let (code, status) = error.code_and_status();
                let message = match &error {
                    ApiError::Internal(detail) => {
                        tracing::error!(%detail, "internal error");
                        "internal error; the details are in the server log".to_owned()
                    }
                    other => other.to_string(),
                };
                let mut body = serde_json::json!({
                    "code": code,
                    "message": message,
                    "status": status.as_u16(),
                });
                if let ApiError::BadParameter { name, .. } = &error {
                    body["parameter"] = (*name).into();
                }
                xml_response(status, to_xml(&body, "error"))
            }
        }
    }
}

fn xml_response(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml; charset=utf-8"),
    );
    response
}

/// The XML document of a JSON value.
pub fn to_xml(value: &Value, root: &str) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    element(root, value, &mut out);
    out.push('\n');
    out
}

fn element(name: &str, value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push_str(&format!("<{name}>"));
            let child = singular(name);
            for item in items {
                element(&child, item, out);
            }
            out.push_str(&format!("</{name}>"));
        }
        Value::Object(map) => {
            out.push_str(&format!("<{name}>"));
            for (key, item) in map {
                element(&xml_name(key), item, out);
            }
            out.push_str(&format!("</{name}>"));
        }
        Value::Null => out.push_str(&format!("<{name}/>")),
        Value::String(s) => {
            out.push_str(&format!("<{name}>"));
            escape_into(s, out);
            out.push_str(&format!("</{name}>"));
        }
        other => out.push_str(&format!("<{name}>{other}</{name}>")),
    }
}

fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = name.strip_suffix("es").filter(|s| s.ends_with("ss")) {
        stem.to_owned()
    } else if let Some(stem) = name.strip_suffix('s').filter(|s| !s.is_empty()) {
        stem.to_owned()
    } else {
        "item".to_owned()
    }
}

/// A key as an XML name: characters outside `[A-Za-z0-9_.-]` become `_`, and a leading
/// digit, dot or dash gets an `_` in front.
fn xml_name(key: &str) -> String {
    let mut name: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    name
}

/// Escapes text for element content and attribute values.
pub(super) fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_becomes_xml_with_singular_items() {
        let value = serde_json::json!({"total": 2, "results": [{"uri": "a<b"}, {"uri": null}]});
        assert_eq!(
            to_xml(&value, "search"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<search><results><result><uri>a&lt;b</uri></result><result><uri/></result></results><total>2</total></search>\n"
        );
        assert_eq!(singular("classes"), "class");
        assert_eq!(singular("categories"), "category");
        assert_eq!(xml_name("1x y"), "_1x_y");
    }
}
