//! What a hit shows about an entity, read from the store at the time it is shown: labels in
//! the preferred language, a description, classes, and the literals snippets are cut from.
//!
//! Reading these from the store rather than from stored index fields keeps them current and
//! doubles as the check that the entity still exists (a hit whose subject has no statements
//! left in the snapshot is dropped).

use crate::document::{text_literal, Vocabulary};
use crate::error::IndexError;
use lodestone_store::model::Term;
use lodestone_store::{Reader, TermId, TermKind};

/// Which literals an [`EntityText`] decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Literals {
    /// Every text literal (snippets are cut from them).
    All,
    /// Labels and descriptions only.
    Names,
}

/// A literal of the entity with its property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralText {
    /// The property.
    pub predicate: TermId,
    /// The lexical form.
    pub text: String,
    /// The language tag, if any.
    pub lang: Option<String>,
}

/// A label (or description) chosen for a language preference list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelChoice {
    /// The text.
    pub text: String,
    /// Its language tag, if any.
    pub lang: Option<String>,
}

/// The text of one entity.
#[derive(Debug, Clone)]
pub struct EntityText {
    /// The entity.
    pub subject: TermId,
    /// Whether the entity has any statement as subject in the snapshot read.
    pub exists: bool,
    /// Label literals with their property's priority (0 is best).
    pub labels: Vec<(LiteralText, usize)>,
    /// Description literals with their property's priority.
    pub descriptions: Vec<(LiteralText, usize)>,
    /// Every text literal, labels included.
    pub literals: Vec<LiteralText>,
    /// Classes (`rdf:type` IRIs).
    pub classes: Vec<TermId>,
}

impl Default for EntityText {
    fn default() -> Self {
        Self {
            subject: TermId::DEFAULT_GRAPH,
            exists: false,
            labels: Vec::new(),
            descriptions: Vec::new(),
            literals: Vec::new(),
            classes: Vec::new(),
        }
    }
}

impl EntityText {
    /// Reads an entity's statements (every graph) from a snapshot.
    pub(crate) fn load(
        reader: &Reader<'_>,
        vocabulary: &Vocabulary,
        subject: TermId,
    ) -> Result<Self, IndexError> {
        Self::load_with(reader, vocabulary, subject, Literals::All)
    }

    /// Reads an entity's statements like [`Self::load`], decoding only its label and
    /// description literals (`literals` holds only those): what a hit shown without a snippet
    /// needs. A literal costs a dictionary read; a review's long texts are most of them.
    pub(crate) fn load_names(
        reader: &Reader<'_>,
        vocabulary: &Vocabulary,
        subject: TermId,
    ) -> Result<Self, IndexError> {
        Self::load_with(reader, vocabulary, subject, Literals::Names)
    }

    fn load_with(
        reader: &Reader<'_>,
        vocabulary: &Vocabulary,
        subject: TermId,
        wanted: Literals,
    ) -> Result<Self, IndexError> {
        let mut out = Self {
            subject,
            ..Self::default()
        };
        for quad in reader.quads_for_pattern(Some(subject), None, None, None) {
            let quad = quad?;
            out.exists = true;
            if Some(quad.predicate) == vocabulary.rdf_type && quad.object.kind() == TermKind::Iri {
                if !out.classes.contains(&quad.object) {
                    out.classes.push(quad.object);
                }
                continue;
            }
            if quad.object.kind() != TermKind::Literal {
                continue;
            }
            let label = vocabulary.label_priority(reader, quad.predicate)?;
            let description = vocabulary.description_priority(reader, quad.predicate)?;
            if wanted == Literals::Names && label.is_none() && description.is_none() {
                continue;
            }
            let term: Term = reader.term(quad.object)?;
            let Some((text, lang)) = text_literal(&term) else {
                continue;
            };
            let literal = LiteralText {
                predicate: quad.predicate,
                text: text.to_owned(),
                lang: lang.map(str::to_owned),
            };
            // The same literal in several graphs counts once.
            if out.literals.contains(&literal) {
                continue;
            }
            if let Some(priority) = label {
                out.labels.push((literal.clone(), priority));
            }
            if let Some(priority) = description {
                out.descriptions.push((literal.clone(), priority));
            }
            out.literals.push(literal);
        }
        Ok(out)
    }

    /// The best label for a language preference list (most wanted first, e.g. from
    /// `Accept-Language`): a label in an earlier language wins, then one whose primary subtag
    /// matches, then one without a language, then English, then any; among equals, the
    /// earlier label property, then the shorter text.
    pub fn best_label(&self, langs: &[String]) -> Option<LabelChoice> {
        best_of(&self.labels, langs)
    }

    /// The best description for a language preference list, chosen like the label.
    pub fn best_description(&self, langs: &[String]) -> Option<LabelChoice> {
        best_of(&self.descriptions, langs)
    }
}

fn language_rank(lang: Option<&str>, langs: &[String]) -> usize {
    let wanted = langs.len() * 2;
    let Some(lang) = lang else {
        return wanted;
    };
    for (i, want) in langs.iter().enumerate() {
        if want.eq_ignore_ascii_case(lang) {
            return i * 2;
        }
        let primary = lang.split('-').next().unwrap_or(lang);
        let want_primary = want.split('-').next().unwrap_or(want);
        if primary.eq_ignore_ascii_case(want_primary) {
            return i * 2 + 1;
        }
    }
    if lang.eq_ignore_ascii_case("en") || lang.to_ascii_lowercase().starts_with("en-") {
        wanted + 1
    } else {
        wanted + 2
    }
}

fn best_of(candidates: &[(LiteralText, usize)], langs: &[String]) -> Option<LabelChoice> {
    candidates
        .iter()
        .min_by(|(a, pa), (b, pb)| {
            (
                language_rank(a.lang.as_deref(), langs),
                pa,
                a.text.len(),
                &a.text,
            )
                .cmp(&(
                    language_rank(b.lang.as_deref(), langs),
                    pb,
                    b.text.len(),
                    &b.text,
                ))
        })
        .map(|(literal, _)| LabelChoice {
            text: literal.text.clone(),
            lang: literal.lang.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str, lang: Option<&str>, priority: usize) -> (LiteralText, usize) {
        (
            LiteralText {
                predicate: TermId::DEFAULT_GRAPH,
                text: text.to_owned(),
                lang: lang.map(str::to_owned),
            },
            priority,
        )
    }

    #[test]
    fn language_preference_orders_labels() {
        let entity = EntityText {
            labels: vec![
                label("Rome", Some("en"), 0),
                label("Rom", Some("de"), 0),
                label("Roma", None, 1),
                label("Rome (city)", Some("en-GB"), 0),
            ],
            ..EntityText::default()
        };
        let pick = |langs: &[&str]| {
            let langs: Vec<String> = langs.iter().map(|s| (*s).to_owned()).collect();
            entity.best_label(&langs).map(|c| c.text)
        };
        assert_eq!(pick(&["de", "en"]).as_deref(), Some("Rom"));
        assert_eq!(pick(&["en-GB"]).as_deref(), Some("Rome (city)"));
        assert_eq!(pick(&["fr"]).as_deref(), Some("Roma"));
        assert_eq!(pick(&[]).as_deref(), Some("Roma"));
    }

    #[test]
    fn property_priority_breaks_ties() {
        let entity = EntityText {
            labels: vec![label("alt", Some("en"), 3), label("pref", Some("en"), 0)],
            ..EntityText::default()
        };
        assert_eq!(
            entity.best_label(&["en".to_owned()]).map(|c| c.text),
            Some("pref".to_owned())
        );
    }
}
