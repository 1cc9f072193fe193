//! Order comparisons of a term with a literal constant, as SPARQL's `<`, `<=`, `>`, `>=`
//! define them: numbers by value across numeric types, simple strings by code point, booleans,
//! and date/time values of the same type (`xsd:date`, `xsd:time`, `xsd:gYear` and
//! `xsd:gYearMonth` as well as `xsd:dateTime`: the store's SPARQL evaluator is built with
//! SEP-0002 and its calendar extension, so `/sparql` orders them the same way). Anything else (an IRI, a language-tagged string, a
//! number against a date, an ill-typed literal) cannot be compared, which in a SPARQL `FILTER`
//! is an error and so false: [`compare`] then answers `None`.

use oxrdf::vocab::xsd;
use oxrdf::{Literal, NamedNodeRef, Term};
use oxsdatatypes::{Boolean, Date, DateTime, Decimal, Double, GYear, GYearMonth, Time};
use std::cmp::Ordering;
use std::str::FromStr;

/// Datatypes whose values are integers or decimals (compared exactly).
const DECIMAL_TYPES: [NamedNodeRef<'static>; 14] = [
    xsd::INTEGER,
    xsd::DECIMAL,
    xsd::INT,
    xsd::LONG,
    xsd::SHORT,
    xsd::BYTE,
    xsd::NON_NEGATIVE_INTEGER,
    xsd::NON_POSITIVE_INTEGER,
    xsd::POSITIVE_INTEGER,
    xsd::NEGATIVE_INTEGER,
    xsd::UNSIGNED_INT,
    xsd::UNSIGNED_LONG,
    xsd::UNSIGNED_SHORT,
    xsd::UNSIGNED_BYTE,
];

/// Whether a datatype is one of the integer types (derived from `xsd:integer`).
pub fn is_integer_type(datatype: NamedNodeRef<'_>) -> bool {
    datatype != xsd::DECIMAL && DECIMAL_TYPES.contains(&datatype)
}

/// Whether a datatype is numeric: compared by value across all numeric types.
pub fn is_numeric_type(datatype: NamedNodeRef<'_>) -> bool {
    DECIMAL_TYPES.contains(&datatype) || datatype == xsd::DOUBLE || datatype == xsd::FLOAT
}

/// A comparable value.
#[derive(Debug, PartialEq, PartialOrd)]
enum Value<'a> {
    Decimal(Decimal),
    Double(Double),
    String(&'a str),
    Boolean(Boolean),
    DateTime(DateTime),
    Date(Date),
    Time(Time),
    GYear(GYear),
    GYearMonth(GYearMonth),
}

fn value(literal: &Literal) -> Option<Value<'_>> {
    let datatype = literal.datatype();
    let lexical = literal.value();
    if literal.language().is_some() {
        return None;
    }
    if DECIMAL_TYPES.contains(&datatype) {
        return Decimal::from_str(lexical).ok().map(Value::Decimal);
    }
    Some(match datatype {
        d if d == xsd::DOUBLE || d == xsd::FLOAT => Value::Double(Double::from_str(lexical).ok()?),
        d if d == xsd::STRING => Value::String(lexical),
        d if d == xsd::BOOLEAN => Value::Boolean(Boolean::from_str(lexical).ok()?),
        d if d == xsd::DATE_TIME => Value::DateTime(DateTime::from_str(lexical).ok()?),
        d if d == xsd::DATE => Value::Date(Date::from_str(lexical).ok()?),
        d if d == xsd::TIME => Value::Time(Time::from_str(lexical).ok()?),
        d if d == xsd::G_YEAR => Value::GYear(GYear::from_str(lexical).ok()?),
        d if d == xsd::G_YEAR_MONTH => Value::GYearMonth(GYearMonth::from_str(lexical).ok()?),
        _ => return None,
    })
}

/// How `term` orders against `constant`, or `None` when SPARQL cannot compare them.
pub fn compare(term: &Term, constant: &Literal) -> Option<Ordering> {
    let Term::Literal(literal) = term else {
        return None;
    };
    match (value(literal)?, value(constant)?) {
        (Value::Decimal(a), Value::Double(b)) => Double::from(a).partial_cmp(&b),
        (Value::Double(a), Value::Decimal(b)) => a.partial_cmp(&Double::from(b)),
        (a, b) if std::mem::discriminant(&a) == std::mem::discriminant(&b) => a.partial_cmp(&b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(v: &str, t: NamedNodeRef<'_>) -> Literal {
        Literal::new_typed_literal(v, t)
    }

    #[test]
    fn numbers_compare_by_value_across_types() {
        let ten = Term::from(typed("10", xsd::INTEGER));
        assert_eq!(
            compare(&ten, &typed("9.5", xsd::DECIMAL)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&ten, &typed("1e1", xsd::DOUBLE)),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&ten, &typed("010", xsd::INT)),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn incomparable_pairs_are_none() {
        let ten = Term::from(typed("10", xsd::INTEGER));
        assert_eq!(compare(&ten, &Literal::from("10")), None);
        assert_eq!(
            compare(
                &Term::from(Literal::new_language_tagged_literal_unchecked("a", "en")),
                &Literal::from("b")
            ),
            None
        );
        assert_eq!(
            compare(
                &Term::from(typed("x", xsd::INTEGER)),
                &typed("1", xsd::INTEGER)
            ),
            None
        );
        assert_eq!(
            compare(
                &Term::from(typed("2008-01-01", xsd::DATE)),
                &typed("2008-01-01T00:00:00", xsd::DATE_TIME)
            ),
            None
        );
    }

    #[test]
    fn dates_and_strings() {
        let date = Term::from(typed("2008-03-02", xsd::DATE));
        assert_eq!(
            compare(&date, &typed("2008-01-01", xsd::DATE)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Term::from(Literal::from("abc")), &Literal::from("abd")),
            Some(Ordering::Less)
        );
    }
}
