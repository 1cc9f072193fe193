//! The values and conditions of a Facets Web Service request: `value` (with `op`), `cond` and
//! `cond-range`, and the RDF terms they are written with, read as Virtuoso's `fct_value`,
//! `fct_cond` and `fct_literal` (`binsrc/fct/sql/facet.sql`) read them; and the element
//! being read ([`Frame`]) with the small readers the request parser shares.

use crate::fct_xml::PLAIN_STRING;
use crate::json::{literal, SyntaxError};
use crate::model::{Comparison, Node, ValueCondition};
use oxrdf::vocab::xsd;
use oxrdf::{NamedNode, Term};

/// An element being read.
pub(crate) struct Frame {
    pub(crate) name: String,
    pub(crate) attributes: Vec<(String, String)>,
    pub(crate) text: String,
    pub(crate) node: Option<Node>,
    /// The `cond-parm` children read so far.
    pub(crate) params: Vec<Frame>,
}

impl Frame {
    pub(crate) fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) fn iri(text: &str) -> Result<NamedNode, SyntaxError> {
    let text = text.trim();
    let text = text
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(text);
    NamedNode::new(text).map_err(|e| SyntaxError(format!("{text:?} is not an IRI: {e}")))
}

pub(crate) fn required<'a>(frame: &'a Frame, attribute: &str) -> Result<&'a str, SyntaxError> {
    frame.attribute(attribute).ok_or_else(|| {
        SyntaxError(format!(
            "<{}> needs the attribute `{attribute}`",
            frame.name
        ))
    })
}

pub(crate) fn yes(value: Option<&str>) -> bool {
    matches!(value, Some("yes" | "true" | "1" | "on"))
}

pub(crate) fn refused(what: &str) -> SyntaxError {
    SyntaxError(format!("{what} is not implemented by this server"))
}

/// The term written in an element: an IRI when `datatype="uri"`, else a literal.
fn term(frame: &Frame, text: &str) -> Result<Term, SyntaxError> {
    let datatype = frame.attribute("datatype");
    if matches!(datatype, Some("uri" | "iri" | "url")) {
        return Ok(iri(text)?.into());
    }
    let lang = frame
        .attribute("xml:lang")
        .or_else(|| frame.attribute("lang"))
        .filter(|l| !l.is_empty());
    if datatype.is_none_or(str::is_empty) && lang.is_none() {
        // Virtuoso writes an untyped value into its SPARQL as it is (`fct_literal`), so a
        // number is a number.
        if let Some(number) = numeric(text) {
            return Ok(number.into());
        }
    }
    // Virtuoso's answers mark simple literals with its own plain-string datatype.
    let datatype = datatype.filter(|d| *d != PLAIN_STRING && !d.is_empty());
    Ok(literal(&serde_json::Value::String(text.to_owned()), datatype, lang)?.into())
}

/// A SPARQL numeric literal written bare (`12`, `-1.5`, `2e3`), typed as SPARQL types it.
fn numeric(text: &str) -> Option<oxrdf::Literal> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match digits.find(['e', 'E']) {
        Some(i) => (&digits[..i], Some(&digits[i + 1..])),
        None => (digits, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = all_digits(whole)
        && fraction.is_none_or(all_digits)
        && !(whole.is_empty() && fraction.is_none_or(str::is_empty));
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    if !mantissa_ok || !exponent_ok {
        return None;
    }
    let datatype = match (fraction, exponent) {
        (_, Some(_)) => xsd::DOUBLE,
        (Some(_), None) => xsd::DECIMAL,
        (None, None) => xsd::INTEGER,
    };
    Some(oxrdf::Literal::new_typed_literal(text, datatype))
}

fn literal_of(frame: &Frame, text: &str) -> Result<oxrdf::Literal, SyntaxError> {
    match term(frame, text)? {
        Term::Literal(l) => Ok(l),
        _ => Err(SyntaxError(format!(
            "<{}> compares with a literal, not an IRI",
            frame.name
        ))),
    }
}

/// The text of a `value` or `cond`: its `val` attribute, else its content.
fn value_text(frame: &Frame) -> &str {
    frame.attribute("val").unwrap_or(frame.text.as_str()).trim()
}

/// `<value op="…">`: `=` (the default) `!=` `<` `>` `<=` `>=`.
pub(crate) fn value(frame: &Frame) -> Result<ValueCondition, SyntaxError> {
    let text = value_text(frame);
    let compare = |op| Ok::<_, SyntaxError>(ValueCondition::Compare(op, literal_of(frame, text)?));
    Ok(match frame.attribute("op").map(str::trim) {
        None | Some("" | "=" | "==") => ValueCondition::Eq(term(frame, text)?),
        Some("!=" | "<>") => ValueCondition::Neq(term(frame, text)?),
        Some("<") => compare(Comparison::Lt)?,
        Some("<=") => compare(Comparison::Lte)?,
        Some(">") => compare(Comparison::Gt)?,
        Some(">=") => compare(Comparison::Gte)?,
        Some(other) => {
            return Err(SyntaxError(format!(
                "unknown value op {other:?}; use one of: =, !=, <, >, <=, >="
            )))
        }
    })
}

pub(crate) fn cond(frame: &Frame) -> Result<ValueCondition, SyntaxError> {
    let kind = if frame.name == "cond-range" {
        "range"
    } else {
        required(frame, "type")?
    };
    let text = value_text(frame);
    let negated = yes(frame.attribute("neg"));
    let compare = |op| Ok::<_, SyntaxError>(ValueCondition::Compare(op, literal_of(frame, text)?));
    let terms = || -> Result<Vec<Term>, SyntaxError> {
        // Each `cond-parm` is typed by its own attributes, else by the `cond`'s.
        frame
            .params
            .iter()
            .map(|p| {
                let typed = p.attribute("datatype").is_some()
                    || p.attribute("xml:lang").is_some()
                    || p.attribute("lang").is_some();
                term(if typed { p } else { frame }, p.text.trim())
            })
            .collect()
    };
    // A negated order comparison is the opposite one: both are false when SPARQL cannot
    // compare the values (`!(?v < 3)` is an error, so false, like `?v >= 3`).
    Ok(match (kind, negated) {
        ("eq", false) | ("neq", true) => ValueCondition::Eq(term(frame, text)?),
        ("eq", true) | ("neq", false) => ValueCondition::Neq(term(frame, text)?),
        ("lt", false) | ("gte", true) => compare(Comparison::Lt)?,
        ("lte", false) | ("gt", true) => compare(Comparison::Lte)?,
        ("gt", false) | ("lte", true) => compare(Comparison::Gt)?,
        ("gte", false) | ("lt", true) => compare(Comparison::Gte)?,
        ("range", false) => ValueCondition::Range(
            literal_of(frame, required(frame, "lo")?)?,
            literal_of(frame, required(frame, "hi")?)?,
        ),
        ("in", false) | ("not_in", true) => ValueCondition::In(terms()?),
        ("in", true) | ("not_in", false) => ValueCondition::NotIn(terms()?),
        ("contains", false) => ValueCondition::Contains(text.to_owned()),
        ("contains", true) => ValueCondition::NotContains(text.to_owned()),
        ("lang", false) => ValueCondition::Lang(text.to_owned()),
        ("near", _) => {
            return Err(refused(
                "the `near` condition (this store has no geometry support)",
            ))
        }
        ("range" | "neg_range" | "lang", _) => {
            return Err(refused(&format!("a negated `{kind}` condition")))
        }
        (other, _) => {
            return Err(SyntaxError(format!(
                "unknown cond type {other:?}; use one of: eq, neq, lt, lte, gt, gte, range, in, not_in, contains, lang"
            )))
        }
    })
}
