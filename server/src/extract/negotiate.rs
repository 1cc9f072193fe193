//! Content negotiation: the `Accept` header per RFC 9110 §12.5.1.
//!
//! A request's media ranges are parsed once ([`AcceptHeader::parse`]); each representation the
//! server can produce ([`Offer`]) gets the quality of the *most specific* range that matches it
//! (`text/turtle` beats `text/*` beats `*/*`), and the offer with the highest quality wins.
//! Ties go to the offer matched by the more specific range — `Accept: text/csv, */*` asks for
//! CSV, not for whatever the server lists first — and then to the server's order of preference.
//! A quality of 0 means "not acceptable". Malformed ranges are skipped rather than failing the
//! request, the way browsers and most servers treat them. The `charset` parameter is ignored
//! (every representation here is UTF-8); any other parameter of a range must be present on the
//! offer for the range to match it.

/// One media range of an `Accept` header, e.g. `text/*;q=0.5`.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaRange {
    /// Type, lower case; `*` for any.
    pub kind: String,
    /// Subtype, lower case; `*` for any.
    pub subtype: String,
    /// Parameters other than `q` and `charset`, names lower case.
    pub params: Vec<(String, String)>,
    /// Quality in thousandths (0–1000).
    pub quality: u16,
}

impl MediaRange {
    /// How specific the range is: 0 for `*/*`, 1 for `type/*`, 2 for `type/subtype`, plus
    /// the number of parameters.
    pub fn specificity(&self) -> usize {
        let base = match (self.kind.as_str(), self.subtype.as_str()) {
            ("*", _) => 0,
            (_, "*") => 1,
            _ => 2,
        };
        base + self.params.len()
    }

    /// Whether the range covers a media type (given without parameters, and its parameters).
    pub fn matches(&self, media_type: &str, params: &[(&str, &str)]) -> bool {
        let Some((kind, subtype)) = media_type.split_once('/') else {
            return false;
        };
        let kind_ok = self.kind == "*" || self.kind.eq_ignore_ascii_case(kind);
        let subtype_ok = self.subtype == "*" || self.subtype.eq_ignore_ascii_case(subtype);
        kind_ok
            && subtype_ok
            && self.params.iter().all(|(name, value)| {
                params
                    .iter()
                    .any(|(n, v)| n.eq_ignore_ascii_case(name) && v == value)
            })
    }
}

/// The parsed `Accept` header of a request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AcceptHeader {
    ranges: Vec<MediaRange>,
}

impl AcceptHeader {
    /// Parses a header value; ranges that are not `type/subtype` or carry a bad `q` are skipped.
    /// An empty header is read as `*/*`.
    pub fn parse(value: &str) -> Self {
        let ranges: Vec<MediaRange> = split_outside_quotes(value, ',')
            .into_iter()
            .filter_map(parse_range)
            .collect();
        if ranges.is_empty() && value.trim().is_empty() {
            return Self::any();
        }
        Self { ranges }
    }

    /// The header of a request that sent none: anything is acceptable.
    pub fn any() -> Self {
        Self {
            ranges: vec![MediaRange {
                kind: "*".into(),
                subtype: "*".into(),
                params: Vec::new(),
                quality: 1000,
            }],
        }
    }

    /// The parsed ranges, in header order.
    pub fn ranges(&self) -> &[MediaRange] {
        &self.ranges
    }

    /// The quality the client gives a media type (0–1000) and the specificity of the range
    /// that decided it; `None` if no range matches.
    pub fn quality_of(&self, media_type: &str, params: &[(&str, &str)]) -> Option<(u16, usize)> {
        self.ranges
            .iter()
            .filter(|range| range.matches(media_type, params))
            .max_by_key(|range| range.specificity())
            .map(|range| (range.quality, range.specificity()))
    }

    /// Whether some range names this exact type and subtype (no wildcard) with a quality
    /// above zero.
    pub fn names(&self, media_type: &str) -> bool {
        self.ranges.iter().any(|range| {
            range.quality > 0
                && range.kind != "*"
                && range.subtype != "*"
                && range.matches(media_type, &[])
        })
    }

    /// Picks the best offer; `None` if every offer is unacceptable.
    pub fn negotiate<'a, T>(&self, offers: &'a [Offer<T>]) -> Option<&'a Offer<T>> {
        let mut best: Option<(&Offer<T>, u16, usize)> = None;
        for offer in offers {
            let Some((quality, specificity)) = self.quality_of(offer.media_type, offer.params)
            else {
                continue;
            };
            if quality == 0 {
                continue;
            }
            // Strictly better only: on a full tie the earlier offer (server preference) stays.
            let better = best.is_none_or(|(_, q, s)| (quality, specificity) > (q, s));
            if better {
                best = Some((offer, quality, specificity));
            }
        }
        best.map(|(offer, _, _)| offer)
    }
}

/// A representation the server can produce.
#[derive(Debug, Clone)]
pub struct Offer<T> {
    /// Media type without parameters, lower case, e.g. `text/turtle`.
    pub media_type: &'static str,
    /// Parameters that ranges may ask for (rarely used).
    pub params: &'static [(&'static str, &'static str)],
    /// What the caller does when this offer wins.
    pub value: T,
}

impl<T> Offer<T> {
    /// An offer without parameters.
    pub const fn new(media_type: &'static str, value: T) -> Self {
        Self {
            media_type,
            params: &[],
            value,
        }
    }
}

fn parse_range(text: &str) -> Option<MediaRange> {
    let mut parts = split_outside_quotes(text, ';').into_iter();
    let essence = parts.next()?.trim();
    let (kind, subtype) = essence.split_once('/')?;
    let (kind, subtype) = (kind.trim(), subtype.trim());
    if !is_token(kind) || !is_token(subtype) || (kind == "*" && subtype != "*") {
        return None;
    }
    let mut range = MediaRange {
        kind: kind.to_ascii_lowercase(),
        subtype: subtype.to_ascii_lowercase(),
        params: Vec::new(),
        quality: 1000,
    };
    for param in parts {
        let (name, value) = param.split_once('=')?;
        let name = name.trim().to_ascii_lowercase();
        let value = unquote(value.trim());
        if name == "q" {
            range.quality = parse_quality(&value)?;
            // Parameters after q are accept-extensions, not part of the media range.
            break;
        }
        if name != "charset" {
            range.params.push((name, value));
        }
    }
    Some(range)
}

/// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
fn parse_quality(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut thousandths: u16 = 0;
    for (i, digit) in fraction.bytes().enumerate() {
        thousandths += u16::from(digit - b'0') * [100, 10, 1][i];
    }
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn unquote(value: &str) -> String {
    match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\"", "\"").replace("\\\\", "\\"),
        None => value.to_owned(),
    }
}

/// Splits on `separator` except inside double-quoted strings (parameter values may be quoted).
fn split_outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            c if c == separator && !quoted => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFERS: [Offer<&str>; 4] = [
        Offer::new("application/sparql-results+json", "json"),
        Offer::new("application/sparql-results+xml", "xml"),
        Offer::new("text/csv", "csv"),
        Offer::new("text/tab-separated-values", "tsv"),
    ];

    fn pick(accept: &str) -> Option<&'static str> {
        AcceptHeader::parse(accept)
            .negotiate(&OFFERS)
            .map(|o| o.value)
    }

    #[test]
    fn wildcard_takes_the_servers_first_choice() {
        assert_eq!(pick("*/*"), Some("json"));
        assert_eq!(pick(""), Some("json"));
        assert_eq!(
            AcceptHeader::any().negotiate(&OFFERS).map(|o| o.value),
            Some("json")
        );
    }

    #[test]
    fn quality_values_order_the_choice() {
        assert_eq!(
            pick("application/sparql-results+json;q=0.5, application/sparql-results+xml"),
            Some("xml")
        );
        assert_eq!(
            pick("text/csv;q=0.9, text/tab-separated-values"),
            Some("tsv")
        );
        assert_eq!(
            pick("text/csv;q=0.91, text/tab-separated-values;q=0.9"),
            Some("csv")
        );
        assert_eq!(pick("text/csv;q=0.001"), Some("csv"));
    }

    #[test]
    fn an_explicit_type_beats_a_wildcard_of_equal_quality() {
        assert_eq!(pick("*/*, text/csv"), Some("csv"));
        assert_eq!(pick("text/*, application/sparql-results+xml"), Some("xml"));
        assert_eq!(pick("text/*"), Some("csv"));
    }

    #[test]
    fn the_most_specific_range_decides_the_quality() {
        // text/csv is refused explicitly even though text/* would allow it.
        assert_eq!(pick("text/*;q=0.8, text/csv;q=0"), Some("tsv"));
        // */* is low but text/csv high.
        assert_eq!(pick("*/*;q=0.1, text/csv"), Some("csv"));
        // a lower q on the exact type wins over a higher wildcard for that type only.
        assert_eq!(pick("text/csv;q=0.2, */*;q=0.5"), Some("json"));
    }

    #[test]
    fn zero_quality_means_not_acceptable() {
        assert_eq!(pick("text/csv;q=0"), None);
        assert_eq!(pick("*/*;q=0"), None);
        assert_eq!(pick("image/png"), None);
        assert_eq!(pick("*/*;q=0, text/tab-separated-values"), Some("tsv"));
    }

    #[test]
    fn browser_headers() {
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert_eq!(pick(firefox), Some("json"));
        let header = AcceptHeader::parse(firefox);
        assert!(header.names("text/html"));
        assert!(!header.names("text/turtle"));
        assert_eq!(header.quality_of("text/turtle", &[]), Some((800, 0)));
    }

    #[test]
    fn case_whitespace_charset_and_extensions() {
        assert_eq!(
            pick("  TEXT/CSV ; Q=0.5 , Text/Tab-Separated-Values;q=0.4"),
            Some("csv")
        );
        assert_eq!(pick("text/csv;charset=utf-8"), Some("csv"));
        assert_eq!(
            pick("text/csv;q=0.5;ext=1, text/tab-separated-values;q=0.4"),
            Some("csv")
        );
    }

    #[test]
    fn parameters_must_match() {
        const PROFILED: [Offer<u8>; 2] = [
            Offer::new("application/ld+json", 1),
            Offer {
                media_type: "application/ld+json",
                params: &[("profile", "http://www.w3.org/ns/json-ld#expanded")],
                value: 2,
            },
        ];
        let header = AcceptHeader::parse(
            "application/ld+json;profile=\"http://www.w3.org/ns/json-ld#expanded\"",
        );
        assert_eq!(header.negotiate(&PROFILED).map(|o| o.value), Some(2));
        let plain = AcceptHeader::parse("application/ld+json");
        assert_eq!(plain.negotiate(&PROFILED).map(|o| o.value), Some(1));
    }

    #[test]
    fn malformed_ranges_are_skipped() {
        assert_eq!(pick("garbage, text/csv"), Some("csv"));
        assert_eq!(pick("text/csv;q=2, text/tab-separated-values"), Some("tsv"));
        assert_eq!(
            pick("text/csv;q=0.5555, text/tab-separated-values;q=0.1"),
            Some("tsv")
        );
        assert_eq!(pick("*/csv"), None);
        assert_eq!(pick(",,,"), None);
        assert_eq!(pick("text/csv;q"), None);
    }

    #[test]
    fn quoted_commas_do_not_split_ranges() {
        let header =
            AcceptHeader::parse("text/csv;foo=\"a,b\";q=0.3, text/tab-separated-values;q=0.2");
        assert_eq!(header.ranges().len(), 2);
        assert_eq!(
            header.ranges()[0].params,
            vec![("foo".to_owned(), "a,b".to_owned())]
        );
    }

    #[test]
    fn quality_grammar() {
        assert_eq!(parse_quality("1"), Some(1000));
        assert_eq!(parse_quality("1.000"), Some(1000));
        assert_eq!(parse_quality("1.001"), None);
        assert_eq!(parse_quality("0.5"), Some(500));
        assert_eq!(parse_quality("0.05"), Some(50));
        assert_eq!(parse_quality("0."), Some(0));
        assert_eq!(parse_quality(".5"), None);
        assert_eq!(parse_quality("0.1234"), None);
        assert_eq!(parse_quality("-0"), None);
    }
}
