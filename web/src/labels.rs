//! Choosing the label to show for a resource.
//!
//! A [`LanguageChain`] lists the languages a reader prefers, most wanted first: the `?lang=`
//! parameter, then the `Accept-Language` header (by quality), then the configured default.
//! [`Labels::best`] walks the chain for each label property in order of priority;
//! a literal without language comes after the chain, and any other label after that, so a
//! resource with a label always shows one.

use oxrdf::Literal;

/// Label properties used when none are configured, most preferred first: the label rule's
/// defaults, shared with search, facets and lookup (`lodestone_vocab::labels`).
pub use lodestone_vocab::labels::DEFAULT_LABEL_PROPERTIES;

/// Which properties name a resource, in order of priority, and the default language.
#[derive(Debug, Clone)]
pub struct LabelSettings {
    /// Label property IRIs, most preferred first.
    pub properties: Vec<String>,
    /// The language used when the request names none (`en` by default).
    pub default_language: String,
}

impl Default for LabelSettings {
    fn default() -> Self {
        Self {
            properties: DEFAULT_LABEL_PROPERTIES
                .iter()
                .map(|p| (*p).to_owned())
                .collect(),
            default_language: "en".to_owned(),
        }
    }
}

/// Languages in order of preference, lower case, without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LanguageChain {
    languages: Vec<String>,
}

impl LanguageChain {
    /// The chain of a request: `?lang=` (comma-separated tags), then `Accept-Language`
    /// ordered by quality (ranges with `q=0` and `*` left out), then `default`.
    pub fn from_request(lang: Option<&str>, accept_language: Option<&str>, default: &str) -> Self {
        let mut chain = Self::default();
        for tag in lang.unwrap_or_default().split(',') {
            chain.push(tag);
        }
        let mut ranges: Vec<(u16, usize, &str)> = accept_language
            .unwrap_or_default()
            .split(',')
            .enumerate()
            .filter_map(|(i, item)| {
                let mut parts = item.split(';');
                let tag = parts.next()?.trim();
                let quality = parts
                    .filter_map(|p| p.trim().strip_prefix("q="))
                    .map(parse_quality)
                    .next()
                    .unwrap_or(Some(1000))?;
                (quality > 0 && tag != "*").then_some((quality, i, tag))
            })
            .collect();
        ranges.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, _, tag) in ranges {
            chain.push(tag);
        }
        chain.push(default);
        chain
    }

    fn push(&mut self, tag: &str) {
        let tag = tag.trim().to_ascii_lowercase();
        let valid = !tag.is_empty()
            && tag.len() <= 35
            && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if valid && !self.languages.contains(&tag) {
            self.languages.push(tag);
        }
    }

    /// The languages, most preferred first.
    pub fn languages(&self) -> &[String] {
        &self.languages
    }

    /// The first language of the chain (the page's `lang` attribute), `en` if empty.
    pub fn primary(&self) -> &str {
        self.languages.first().map_or("en", String::as_str)
    }

    /// How well a literal's language fits: lower is better; `None` if it is not in the chain.
    /// An exact tag beats a match on the primary subtag (`de-AT` for `de`, `de` for `de-CH`).
    fn rank(&self, language: &str) -> Option<usize> {
        let language = language.to_ascii_lowercase();
        let primary = |t: &str| t.split('-').next().unwrap_or_default().to_owned();
        self.languages.iter().enumerate().find_map(|(i, wanted)| {
            if *wanted == language {
                Some(i * 2)
            } else if primary(wanted) == primary(&language) {
                Some(i * 2 + 1)
            } else {
                None
            }
        })
    }

    /// The best of several literals: by language rank, then untagged ones, then the first.
    pub fn pick<'a>(&self, literals: impl IntoIterator<Item = &'a Literal>) -> Option<&'a Literal> {
        let mut best: Option<(usize, &Literal)> = None;
        for literal in literals {
            let rank = match literal.language() {
                Some(language) => self.rank(language).unwrap_or(self.languages.len() * 2 + 1),
                None => self.languages.len() * 2,
            };
            if best.is_none_or(|(r, _)| rank < r) {
                best = Some((rank, literal));
            }
        }
        best.map(|(_, literal)| literal)
    }
}

/// `q=` of a language range in thousandths; `None` if malformed.
fn parse_quality(text: &str) -> Option<u16> {
    let value: f32 = text.trim().parse().ok()?;
    (0.0..=1.0)
        .contains(&value)
        // Checked to be in 0..=1 above, so the thousandths fit a `u16`.
        .then(|| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let thousandths = (value * 1000.0).round() as u16;
            thousandths
        })
}

/// The labels of one resource, by label property (in the order of [`LabelSettings`]).
#[derive(Debug, Clone, Default)]
pub struct Labels {
    /// For each label property with values, its literals.
    pub by_property: Vec<Vec<Literal>>,
}

impl Labels {
    /// The best label for a reader: the label in the reader's most preferred language, from
    /// the most preferred property among those that have one; failing that, an untagged
    /// label, then any label (property order deciding each time).
    pub fn best(&self, chain: &LanguageChain) -> Option<&Literal> {
        let mut best: Option<(usize, &Literal)> = None;
        for literals in &self.by_property {
            for literal in literals {
                let Some(rank) = literal.language().and_then(|t| chain.rank(t)) else {
                    continue;
                };
                if best.is_none_or(|(r, _)| rank < r) {
                    best = Some((rank, literal));
                }
            }
        }
        if let Some((_, literal)) = best {
            return Some(literal);
        }
        self.by_property
            .iter()
            .flatten()
            .find(|l| l.language().is_none())
            .or_else(|| self.by_property.iter().flatten().next())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str, lang: Option<&str>) -> Literal {
        match lang {
            Some(l) => Literal::new_language_tagged_literal_unchecked(text, l),
            None => Literal::new_simple_literal(text),
        }
    }

    #[test]
    fn chain_order_lang_then_header_then_default() {
        let chain =
            LanguageChain::from_request(Some("fr"), Some("de-CH;q=0.5, it, *;q=0.1, es;q=0"), "en");
        assert_eq!(chain.languages(), ["fr", "it", "de-ch", "en"]);
        let chain = LanguageChain::from_request(None, None, "en");
        assert_eq!(chain.languages(), ["en"]);
        assert_eq!(chain.primary(), "en");
    }

    #[test]
    fn invalid_tags_are_ignored() {
        let chain = LanguageChain::from_request(Some("<script>"), Some("d e"), "en");
        assert_eq!(chain.languages(), ["en"]);
    }

    #[test]
    fn best_label_follows_the_chain() {
        let labels = Labels {
            by_property: vec![vec![
                lit("Köln", Some("de")),
                lit("Cologne", Some("en")),
                lit("Colonia", None),
            ]],
        };
        let pick = |lang: Option<&str>, header: Option<&str>| {
            let chain = LanguageChain::from_request(lang, header, "en");
            labels.best(&chain).map(|l| l.value().to_owned())
        };
        assert_eq!(pick(None, None).as_deref(), Some("Cologne"));
        assert_eq!(pick(Some("de"), None).as_deref(), Some("Köln"));
        assert_eq!(pick(None, Some("de-AT, en;q=0.5")).as_deref(), Some("Köln"));
        let chain = LanguageChain::from_request(Some("ja"), None, "ja");
        assert_eq!(labels.best(&chain).map(|l| l.value()), Some("Colonia"));
    }

    #[test]
    fn language_comes_before_property_priority() {
        let labels = Labels {
            by_property: vec![
                vec![lit("Pref", Some("en"))],
                vec![lit("Label", Some("fr"))],
            ],
        };
        let chain = LanguageChain::from_request(Some("fr"), None, "en");
        assert_eq!(labels.best(&chain).map(|l| l.value()), Some("Label"));
        let chain = LanguageChain::from_request(Some("ja"), None, "en");
        assert_eq!(labels.best(&chain).map(|l| l.value()), Some("Pref"));
        let chain = LanguageChain::from_request(Some("ja"), None, "ja");
        assert_eq!(labels.best(&chain).map(|l| l.value()), Some("Pref"));
        // Same language in both: the preferred property wins.
        let both = Labels {
            by_property: vec![
                vec![lit("Pref", Some("en"))],
                vec![lit("Label", Some("en"))],
            ],
        };
        let chain = LanguageChain::from_request(None, None, "en");
        assert_eq!(both.best(&chain).map(|l| l.value()), Some("Pref"));
    }
}
