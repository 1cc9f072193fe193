//! Entity expansion in uploaded RDF/XML, bounded before the document is parsed.
//!
//! The RDF/XML parser (oxrdfxml) reads `<!ENTITY name "value">` declarations of the internal
//! DTD and expands each value eagerly, references to earlier entities included, then expands
//! every `&name;` in the document. Ten entities of ten references each ("billion laughs") would
//! build gigabytes in memory from a 1 KB upload, and a million references to one 1 MB entity do
//! the same without any nesting. So the expanded size is computed here, from the declarations
//! and a count of the references, and a document that would grow past the limits is refused.
//! External entities (`SYSTEM`/`PUBLIC`) need no check: the parser refuses them, it never
//! fetches anything.

use crate::error::ApiError;
use std::collections::HashMap;

/// The largest expanded value of one entity.
pub const MAX_ENTITY_BYTES: u64 = 64 << 10;
/// The most bytes entity references may add to a document, all references together.
pub const MAX_EXPANSION_BYTES: u64 = 16 << 20;

/// Refuses an RDF/XML document whose entities would expand past the limits.
pub fn check_entities(body: &[u8]) -> Result<(), ApiError> {
    let Some(doctype) = find(body, b"<!DOCTYPE") else {
        return Ok(());
    };
    let mut sizes: HashMap<&[u8], u64> = HashMap::new();
    let mut rest = &body[doctype..];
    let subset_end = find(rest, b"]>").unwrap_or(rest.len());
    let mut subset = &rest[..subset_end];
    while let Some(at) = find(subset, b"<!ENTITY") {
        subset = &subset[at + b"<!ENTITY".len()..];
        let name_start = subset
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(subset.len());
        let name_len = subset[name_start..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(subset.len() - name_start);
        let name = &subset[name_start..name_start + name_len];
        subset = &subset[name_start + name_len..];
        let Some(open) = subset.iter().position(|&b| b == b'"' || b == b'>') else {
            break;
        };
        if subset[open] == b'>' {
            continue;
        }
        let value_len = subset[open + 1..]
            .iter()
            .position(|&b| b == b'"')
            .unwrap_or(subset.len() - open - 1);
        let value = &subset[open + 1..open + 1 + value_len];
        let size = expanded_size(value, &sizes);
        if size > MAX_ENTITY_BYTES {
            return Err(ApiError::TooComplex(format!(
                "the RDF/XML entity {} would expand to {size} bytes; the limit is {MAX_ENTITY_BYTES}",
                String::from_utf8_lossy(name)
            )));
        }
        sizes.insert(name, size);
        subset = &subset[(open + 1 + value_len).min(subset.len())..];
    }
    rest = &rest[subset_end..];
    let added = expanded_size(rest, &sizes).saturating_sub(rest.len() as u64);
    if added > MAX_EXPANSION_BYTES {
        return Err(ApiError::TooComplex(format!(
            "the RDF/XML document's entity references would add {added} bytes; the limit is {MAX_EXPANSION_BYTES}"
        )));
    }
    Ok(())
}

/// The size of `text` once every `&name;` of a known entity is replaced by its value.
fn expanded_size(text: &[u8], sizes: &HashMap<&[u8], u64>) -> u64 {
    let mut size = 0_u64;
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'&' {
            if let Some(end) = text[i + 1..].iter().take(256).position(|&b| b == b';') {
                if let Some(entity) = sizes.get(&text[i + 1..i + 1 + end]) {
                    size = size.saturating_add(*entity);
                    i += end + 2;
                    continue;
                }
            }
        }
        size = size.saturating_add(1);
        i += 1;
    }
    size
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laughs(levels: usize) -> String {
        let mut doc =
            String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n<!ENTITY lol0 \"lol\">\n");
        for level in 1..levels {
            let refs = format!("&lol{};", level - 1).repeat(10);
            doc.push_str(&format!("<!ENTITY lol{level} \"{refs}\">\n"));
        }
        doc.push_str(&format!(
            "]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:e=\"http://e/\"><rdf:Description rdf:about=\"http://e/s\"><e:p>&lol{};</e:p></rdf:Description></rdf:RDF>",
            levels - 1
        ));
        doc
    }

    #[test]
    fn billion_laughs_is_refused() {
        let message = check_entities(laughs(10).as_bytes())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(message.contains("lol5"), "{message}");
    }

    #[test]
    fn many_references_to_a_modest_entity_are_refused() {
        let mut doc = format!(
            "<!DOCTYPE x [<!ENTITY big \"{}\">]><x>",
            "a".repeat(60 << 10)
        );
        doc.push_str(&"&big;".repeat(400));
        doc.push_str("</x>");
        assert!(check_entities(doc.as_bytes()).is_err());
    }

    #[test]
    fn ordinary_entities_pass() {
        assert!(check_entities(laughs(3).as_bytes()).is_ok());
        let plain = "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">&amp;&lt;</rdf:RDF>";
        assert!(check_entities(plain.as_bytes()).is_ok());
        let doc = laughs(3);
        let parsed = oxrdfio::RdfParser::from_format(oxrdfio::RdfFormat::RdfXml)
            .for_slice(doc.as_bytes())
            .collect::<Result<Vec<_>, _>>();
        assert!(
            parsed.is_ok_and(|q| q.len() == 1 && q[0].object.to_string().len() == 302),
            "the parser expands what the check measured"
        );
    }
}
