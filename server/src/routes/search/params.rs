//! Query-string parameters of the search routes: parsed once, each read at most once, and every
//! bad value refused with a 400 that names the parameter.

use crate::error::ApiError;
use axum::http::{header, HeaderMap};

/// The decoded query string of one request.
#[derive(Debug, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Decodes a raw query string (`None`: no parameters).
    pub fn parse(raw: Option<&str>) -> Self {
        Self {
            pairs: raw
                .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
                .unwrap_or_default(),
        }
    }

    /// The value of a parameter given at most once (empty values count as absent).
    pub fn get(&self, name: &'static str) -> Result<Option<&str>, ApiError> {
        let mut values = self
            .pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        let first = values.next();
        if values.next().is_some() {
            return Err(bad(name, "given more than once"));
        }
        Ok(first.filter(|v| !v.trim().is_empty()))
    }

    /// Whether a parameter is given with a value.
    pub fn has(&self, name: &str) -> bool {
        self.pairs
            .iter()
            .any(|(k, v)| k == name && !v.trim().is_empty())
    }

    /// Every value of a repeatable parameter.
    pub fn all(&self, name: &'static str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// A required parameter.
    pub fn required(&self, name: &'static str) -> Result<&str, ApiError> {
        self.get(name)?.ok_or_else(|| bad(name, "is required"))
    }

    /// A count within `1..=max`, `default` when absent.
    pub fn count(&self, name: &'static str, default: usize, max: usize) -> Result<usize, ApiError> {
        self.number(name, default, 1, max)
    }

    /// A number within `min..=max`, `default` when absent.
    pub fn number(
        &self,
        name: &'static str,
        default: usize,
        min: usize,
        max: usize,
    ) -> Result<usize, ApiError> {
        let Some(value) = self.get(name)? else {
            return Ok(default);
        };
        match value.trim().parse::<usize>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(bad(
                name,
                &format!("must be a whole number from {min} to {max}"),
            )),
        }
    }

    /// An absolute IRI.
    pub fn iri(&self, name: &'static str) -> Result<Option<String>, ApiError> {
        self.get(name)?
            .map(|v| {
                oxrdf::NamedNode::new(v.trim())
                    .map(oxrdf::NamedNode::into_string)
                    .map_err(|e| bad(name, &format!("is not a valid IRI: {e}")))
            })
            .transpose()
    }
}

/// A 400 naming the parameter.
pub(super) fn bad(name: &'static str, message: &str) -> ApiError {
    ApiError::BadParameter {
        name,
        message: message.to_owned(),
    }
}

/// The preferred languages: `lang=` (comma-separated) if given, else `Accept-Language` by
/// quality; language ranges of `*` are skipped.
pub(super) fn languages(params: &Params, headers: &HeaderMap) -> Result<Vec<String>, ApiError> {
    let valid = |tag: &str| {
        !tag.is_empty()
            && tag.len() <= 35
            && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if let Some(value) = params.get("lang")? {
        let tags: Vec<String> = value.split(',').map(|t| t.trim().to_owned()).collect();
        if let Some(wrong) = tags.iter().find(|t| !valid(t)) {
            return Err(bad("lang", &format!("{wrong:?} is not a language tag")));
        }
        return Ok(tags);
    }
    let Some(header) = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(Vec::new());
    };
    let mut ranked: Vec<(u16, usize, String)> = header
        .split(',')
        .enumerate()
        .filter_map(|(i, part)| {
            let mut pieces = part.split(';');
            let tag = pieces.next()?.trim();
            let quality = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            // Clamped to 0..=1000 (NaN becomes 0 and is dropped below), so it fits a `u16`.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let thousandths = (quality.clamp(0.0, 1.0) * 1000.0) as u16;
            (valid(tag) && thousandths > 0).then(|| (thousandths, i, tag.to_owned()))
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(ranked.into_iter().map(|(_, _, tag)| tag).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn counts_are_bounded_and_named() {
        let params = Params::parse(Some("limit=0&offset=x&q=a&q=b"));
        let error = params.count("limit", 10, 100).expect_err("0 is refused");
        assert!(error.to_string().contains("`limit`"));
        assert!(params.number("offset", 0, 0, 10).is_err());
        assert!(params.get("q").is_err());
        assert_eq!(params.count("other", 7, 100).ok(), Some(7));
    }

    #[test]
    fn accept_language_orders_by_quality() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_static("fr;q=0.5, de, *;q=0.1, en-GB;q=0.8"),
        );
        let langs = languages(&Params::default(), &headers).expect("parses");
        assert_eq!(langs, ["de", "en-GB", "fr"]);
        let explicit = languages(&Params::parse(Some("lang=it,en")), &headers).expect("parses");
        assert_eq!(explicit, ["it", "en"]);
        assert!(languages(&Params::parse(Some("lang=<x>")), &headers).is_err());
    }
}
