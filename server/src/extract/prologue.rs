//! The `PREFIX` declarations of a SPARQL request's text, for the prefix table
//! (`crate::prefix_table`): the parsed tree keeps none of them.
//!
//! SPARQL Update allows a prologue before every operation (`PREFIX a: <…> INSERT DATA {…} ;
//! PREFIX b: <…> DELETE …`), so the whole text is scanned, skipping strings, IRIs and
//! comments, for the keyword `PREFIX` followed by a prefix name and an IRI. Only absolute
//! IRIs are taken (a relative one would need the request's `BASE`; the store skips it anyway).
//! The scan runs on text the parser accepted, so it never reads a declaration that is not one.

use crate::extract::nesting::{iri_end, skip_opaque};

/// The (name, namespace) of every `PREFIX name: <namespace>` of `text`, in order (the empty
/// name `:` left out).
pub fn declarations(text: &str) -> Vec<(String, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let is_word = byte.is_ascii_alphabetic() || byte == b'_';
        i = match skip_opaque(bytes, i) {
            Some(after) => after,
            None if is_word => {
                let end = word_end(bytes, i);
                let starts_word = i == 0
                    || !(bytes[i - 1].is_ascii_alphanumeric()
                        || matches!(bytes[i - 1], b':' | b'?' | b'$' | b'_' | b'.' | b'-'));
                let declared = (starts_word && bytes[i..end].eq_ignore_ascii_case(b"prefix"))
                    .then(|| declaration(text, end))
                    .flatten();
                match declared {
                    Some((declared, after)) => {
                        out.extend(declared);
                        after
                    }
                    None => end,
                }
            }
            None => i + 1,
        };
    }
    out
}

/// After the keyword: `name:` and `<namespace>`, and where they end.
fn declaration(text: &str, start: usize) -> Option<(Option<(String, String)>, usize)> {
    let bytes = text.as_bytes();
    let name_start = skip_space(bytes, start);
    let colon = name_start + bytes[name_start..].iter().position(|&b| b == b':')?;
    let name = &text[name_start..colon];
    if name.contains(|c: char| c.is_whitespace()) {
        return None;
    }
    let open = skip_space(bytes, colon + 1);
    if bytes.get(open) != Some(&b'<') {
        return None;
    }
    let close = iri_end(bytes, open)?;
    let namespace = &text[open + 1..close - 1];
    let absolute = oxrdf::NamedNode::new(namespace).is_ok();
    let declared = (!name.is_empty() && absolute).then(|| (name.to_owned(), namespace.to_owned()));
    Some((declared, close))
}

/// Where the word starting at `start` ends (letters, digits and `_`).
fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while bytes
        .get(end)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        end += 1;
    }
    end
}

/// Where the text after `start` stops being white space.
fn skip_space(bytes: &[u8], start: usize) -> usize {
    let rest = &bytes[start..];
    start + (rest.len() - rest.trim_ascii_start().len())
}

#[cfg(test)]
mod tests {
    use super::declarations;

    #[test]
    fn every_prologue_of_an_update_counts() {
        let text = "# PREFIX no: <http://comment/>\nPREFIX foo: <http://example.org/foo#>\nprefix : <http://default/>\nINSERT DATA { <a> <b> \"PREFIX str: <http://string/>\" } ;\nPREFIX  bar:<http://example.org/bar/> PREFIX rel: <relative/>\nDELETE WHERE { ?s <http://x/PREFIX> ?o }";
        assert_eq!(
            declarations(text),
            [
                ("foo".to_owned(), "http://example.org/foo#".to_owned()),
                ("bar".to_owned(), "http://example.org/bar/".to_owned()),
            ]
        );
        assert!(declarations("SELECT ?prefix WHERE { ?prefix ?p ?o }").is_empty());
    }
}
