//! Lodestone patch: absolute IRIs of plain ASCII validated in one pass over their bytes.
//!
//! `oxiri::Iri::parse` walks an IRI char by char through a general parser that also builds
//! its output; on BSBM's N-Triples it was two thirds of the parse. Nearly every IRI of a data
//! dump is `scheme://host/path` in printable ASCII, which this module checks with a table of
//! byte classes. It only ever says yes for IRIs `oxiri` accepts (the same grammar, RFC 3987,
//! restricted to ASCII without IP literals or user information); for anything else it says
//! "not decided" and the caller asks `oxiri`, so errors and their messages are unchanged.

/// Bytes allowed in a host: unreserved and sub-delims (RFC 3987 `ireg-name`, ASCII part).
const HOST: u8 = 1;
/// Bytes allowed in a path: `HOST`, `:`, `@` (`ipchar`, ASCII part) and `/`.
const PATH: u8 = 2;
/// Bytes allowed in a query or a fragment: `PATH` and `?`.
const QUERY: u8 = 4;
/// Bytes allowed after the scheme's first letter: letters, digits, `+`, `-` and `.`.
const SCHEME: u8 = 8;
/// Bytes allowed in a port: digits.
const PORT: u8 = 16;

/// The class bits of every byte; zero for bytes never in a plain IRI (controls, spaces,
/// `"<>[\]^`{|}`, `%`, `#` and every non-ASCII byte).
const CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        let alphanumeric = c.is_ascii_alphanumeric();
        let unreserved = alphanumeric || matches!(c, b'-' | b'.' | b'_' | b'~');
        let sub_delim = matches!(
            c,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
        );
        if unreserved || sub_delim {
            classes[b] |= HOST | PATH | QUERY;
        }
        if matches!(c, b':' | b'@' | b'/') {
            classes[b] |= PATH | QUERY;
        }
        if c == b'?' {
            classes[b] |= QUERY;
        }
        if alphanumeric || matches!(c, b'+' | b'-' | b'.') {
            classes[b] |= SCHEME;
        }
        if c.is_ascii_digit() {
            classes[b] |= PORT;
        }
        b += 1;
    }
    classes
};

/// Whether `iri` is an absolute IRI that `oxiri::Iri::parse` accepts, told from its bytes
/// alone; `false` means "not decided here" (non-ASCII, an IP literal, user information, or
/// not valid), not "invalid".
pub(crate) fn is_plainly_valid(iri: &str) -> bool {
    end_of_plain_iri(iri.as_bytes()) == Some(iri.len())
}

/// Where the plain IRI at the start of `bytes` ends; `None` if it does not start with one.
fn end_of_plain_iri(bytes: &[u8]) -> Option<usize> {
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let mut i = skip(bytes, 1, SCHEME);
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    if bytes[i..].starts_with(b"//") {
        i = skip_escaped(bytes, i + 2, HOST)?;
        if bytes.get(i) == Some(&b':') {
            i = skip(bytes, i + 1, PORT);
        }
        if !matches!(bytes.get(i), None | Some(b'/' | b'?' | b'#')) {
            return None;
        }
    }
    i = skip_escaped(bytes, i, PATH)?;
    // A `#` ends the query; in the fragment it is left over, so the IRI is not taken.
    for separator in [b'?', b'#'] {
        if bytes.get(i) == Some(&separator) {
            i = skip_escaped(bytes, i + 1, QUERY)?;
        }
    }
    Some(i)
}

/// The position of the first byte at or after `i` outside `class`.
fn skip(bytes: &[u8], mut i: usize, class: u8) -> usize {
    while bytes.get(i).is_some_and(|b| CLASSES[usize::from(*b)] & class != 0) {
        i += 1;
    }
    i
}

/// The position of the first byte at or after `i` neither in `class` nor part of a percent
/// escape; `None` at a `%` not followed by two hexadecimal digits.
fn skip_escaped(bytes: &[u8], mut i: usize, class: u8) -> Option<usize> {
    loop {
        i = skip(bytes, i, class);
        if bytes.get(i) != Some(&b'%') {
            return Some(i);
        }
        let escaped = bytes.get(i + 1..i + 3)?;
        if !escaped.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        i += 3;
    }
}

#[cfg(test)]
mod tests {
    use super::is_plainly_valid;
    use oxiri::Iri;

    #[test]
    fn decides_plain_iris_as_oxiri_does() {
        for iri in [
            "http://example.com/a/b?c=d&e#f",
            "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/productFeature",
            "urn:isbn:0451450523",
            "http://example.com:8080/",
            "http://example.com",
            "file:///etc/hosts",
            "http://e/%C3%A9",
            "mailto:someone@example.com",
            "http://e/a?b?c/d#e/f?g",
        ] {
            assert!(is_plainly_valid(iri), "{iri}");
            assert!(Iri::parse(iri).is_ok(), "{iri}");
        }
        for iri in [
            "http://e/a b",
            "http://e/%zz",
            "http://e/a#b#c",
            "http://e:80x/",
            "1http://e/",
            "relative/path",
            "http://e/é",
            "http://[::1]/",
            "http://user@e/",
            "http://e/{x}",
        ] {
            assert!(!is_plainly_valid(iri), "{iri}");
        }
    }
}
