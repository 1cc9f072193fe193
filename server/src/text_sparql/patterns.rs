//! Finding text patterns in a basic graph pattern, in the three syntaxes users bring:
//!
//! - Virtuoso: `?o bif:contains "expr"`, and for the score `(?o ?score) bif:contains "expr"`
//!   or `?o bif:contains "expr" OPTION (score ?score)` (read first by `options.rs`);
//! - Jena: `?s text:query "words"`, `?s text:query (rdfs:label "words" 10 "lang:en")`,
//!   `(?s ?score ?literal) text:query (…)`;
//! - Lodestone: `?e lodestone:text "words"` or `?e lodestone:text [ lodestone:query "words";
//!   lodestone:score ?sc; lodestone:literal ?lit; lodestone:snippet ?sn; lodestone:lang "en";
//!   lodestone:property rdfs:label; lodestone:limit 10 ]`.
//!
//! A pattern is taken out of the BGP together with the triples that spell its lists
//! (`rdf:first`/`rdf:rest`) and its description (`[ … ]`); the rest stays.

use super::options::OPTION_PREFIX;
use super::virtuoso;
use super::{BIF_CONTAINS, LODESTONE, TEXT_QUERY};
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{Literal, NamedNode, Variable};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};

/// Whether a pattern binds literals (Virtuoso) or entities (Jena and Lodestone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    /// One row per literal that contains the words.
    Literal,
    /// One row per entity the words match.
    Entity,
}

/// A text pattern found in a BGP.
#[derive(Debug, Clone)]
pub(super) struct TextPattern {
    /// What a row is.
    pub(super) level: Level,
    /// The entity (entity level) or the literal (literal level).
    pub(super) subject: TermPattern,
    /// Where the score goes.
    pub(super) score: Option<Variable>,
    /// Where the best matching literal goes (entity level).
    pub(super) literal: Option<TermPattern>,
    /// Where the snippet goes (entity level).
    pub(super) snippet: Option<Variable>,
    /// Alternatives, each in the `/api/search` syntax.
    pub(super) branches: Vec<String>,
    /// Languages to stem in.
    pub(super) langs: Vec<String>,
    /// Only literals of this property.
    pub(super) property: Option<NamedNode>,
    /// Most rows.
    pub(super) limit: Option<usize>,
    /// Only hits scoring at least this (Virtuoso's `OPTION (score_limit n)`).
    pub(super) min_score: Option<f32>,
}

/// Splits a BGP into its text patterns and the rest; a text pattern written wrongly is an
/// error that names the problem.
pub(super) fn extract(
    patterns: &[TriplePattern],
) -> Result<(Vec<TextPattern>, Vec<TriplePattern>), String> {
    let mut used = vec![false; patterns.len()];
    let mut found = Vec::new();
    for (i, triple) in patterns.iter().enumerate() {
        let NamedNodePattern::NamedNode(predicate) = &triple.predicate else {
            continue;
        };
        let pattern = match predicate.as_str() {
            BIF_CONTAINS => virtuoso_pattern(patterns, &mut used, i)?,
            TEXT_QUERY => jena_pattern(patterns, &mut used, triple)?,
            p if p == format!("{LODESTONE}text") => native_pattern(patterns, &mut used, triple)?,
            _ => continue,
        };
        used[i] = true;
        found.push(pattern);
    }
    if let Some(stray) = patterns
        .iter()
        .zip(&used)
        .find(|(t, used)| !**used && option_name(t).is_some())
    {
        return Err(format!(
            "OPTION ( … ) follows a bif:contains pattern, not {} {}",
            stray.0.subject, stray.0.predicate
        ));
    }
    let rest = patterns
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(t, _)| t.clone())
        .collect();
    Ok((found, rest))
}

/// The members of the RDF list `node` spells in the BGP (marking its triples used), or `None`
/// when it is not a list.
fn list(
    patterns: &[TriplePattern],
    used: &mut [bool],
    node: &TermPattern,
) -> Option<Vec<TermPattern>> {
    let mut members = Vec::new();
    let mut at = node.clone();
    let mut marks = Vec::new();
    loop {
        if let TermPattern::NamedNode(n) = &at {
            if *n == rdf::NIL {
                break;
            }
        }
        if !matches!(at, TermPattern::BlankNode(_)) {
            return None;
        }
        let find = |p: oxrdf::NamedNodeRef<'_>| {
            patterns.iter().position(|t| {
                t.subject == at && matches!(&t.predicate, NamedNodePattern::NamedNode(n) if *n == p)
            })
        };
        let (first, rest) = (find(rdf::FIRST)?, find(rdf::REST)?);
        members.push(patterns[first].object.clone());
        marks.extend([first, rest]);
        at = patterns[rest].object.clone();
    }
    for i in marks {
        used[i] = true;
    }
    Some(members)
}

fn variable(term: &TermPattern, role: &str) -> Result<Variable, String> {
    match term {
        TermPattern::Variable(v) => Ok(v.clone()),
        other => Err(format!(
            "the {role} of a text pattern must be a variable, not {other}"
        )),
    }
}

fn string(term: &TermPattern, role: &str) -> Result<String, String> {
    match term {
        TermPattern::Literal(l) if l.datatype() == xsd::STRING => Ok(l.value().to_owned()),
        other => Err(format!(
            "the {role} of a text pattern must be a string, not {other}"
        )),
    }
}

fn count(literal: &Literal, role: &str) -> Result<usize, String> {
    literal
        .value()
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            format!("the {role} of a text pattern must be a positive integer, not {literal}")
        })
}

fn empty(subject: TermPattern, level: Level) -> TextPattern {
    TextPattern {
        level,
        subject,
        score: None,
        literal: None,
        snippet: None,
        branches: Vec::new(),
        langs: Vec::new(),
        property: None,
        limit: None,
        min_score: None,
    }
}

/// The subject side of a pattern: `?x`, or the list `(?x ?score …)` of at most `shape`'s
/// length; the members after the score come back.
fn subject_side(
    patterns: &[TriplePattern],
    used: &mut [bool],
    triple: &TriplePattern,
    level: Level,
    (form, shape, most): (&str, &str, usize),
) -> Result<(TextPattern, Vec<TermPattern>), String> {
    let Some(members) = list(patterns, used, &triple.subject) else {
        return Ok((empty(triple.subject.clone(), level), Vec::new()));
    };
    let [subject, rest @ ..] = members.as_slice() else {
        return Err(format!("{form} needs a term before it"));
    };
    if rest.len() >= most {
        return Err(format!("{form} takes {shape} at most"));
    }
    let mut out = empty(subject.clone(), level);
    if let Some(score) = rest.first() {
        out.score = Some(variable(score, "score")?);
    }
    Ok((out, rest.iter().skip(1).cloned().collect()))
}

/// The name of a Virtuoso option the triple stands for (see `options.rs`), if it is one.
fn option_name(triple: &TriplePattern) -> Option<&str> {
    match &triple.predicate {
        NamedNodePattern::NamedNode(p) => p
            .as_str()
            .strip_prefix(LODESTONE)?
            .strip_prefix(OPTION_PREFIX),
        NamedNodePattern::Variable(_) => None,
    }
}

/// `?o bif:contains "expr"` or `(?o ?score) bif:contains "expr"`, with the options of its
/// `OPTION (score ?sc, score_limit n)`: the option triples of the same subject after it.
fn virtuoso_pattern(
    patterns: &[TriplePattern],
    used: &mut [bool],
    at: usize,
) -> Result<TextPattern, String> {
    let triple = &patterns[at];
    let shape = ("bif:contains", "(?literal ?score)", 2);
    let (mut out, _) = subject_side(patterns, used, triple, Level::Literal, shape)?;
    let expression = string(&triple.object, "expression of bif:contains")?;
    out.branches = virtuoso::branches(&expression).map_err(|e| e.to_string())?;
    for (j, option) in patterns.iter().enumerate().skip(at + 1) {
        if option.subject != triple.subject {
            continue;
        }
        let Some(name) = option_name(option) else {
            if matches!(&option.predicate, NamedNodePattern::NamedNode(p) if p.as_str() == BIF_CONTAINS)
            {
                break;
            }
            continue;
        };
        used[j] = true;
        match name {
            "score" => {
                let score = variable(&option.object, "score")?;
                if out.score.as_ref().is_some_and(|s| *s != score) {
                    return Err(format!(
                        "bif:contains binds its score to one variable, not {} and {score}",
                        out.score
                            .as_ref()
                            .map_or(String::new(), ToString::to_string)
                    ));
                }
                out.score = Some(score);
            }
            "score_limit" => {
                let limit = string(&option.object, "score_limit")?;
                out.min_score =
                    Some(limit.parse::<f32>().map_err(|e| {
                        format!("OPTION (score_limit {limit}) is not a number: {e}")
                    })?);
            }
            other => return Err(format!("OPTION ({other} …) is not supported")),
        }
    }
    Ok(out)
}

/// `?s text:query …` with a list or a single string on either side.
fn jena_pattern(
    patterns: &[TriplePattern],
    used: &mut [bool],
    triple: &TriplePattern,
) -> Result<TextPattern, String> {
    let shape = ("text:query", "(?entity ?score ?literal)", 3);
    let (mut out, rest) = subject_side(patterns, used, triple, Level::Entity, shape)?;
    out.literal = rest.into_iter().next();
    let arguments = match list(patterns, used, &triple.object) {
        Some(members) => members,
        None => vec![triple.object.clone()],
    };
    let mut words = None;
    for argument in arguments {
        match argument {
            TermPattern::NamedNode(p) if words.is_none() && out.property.is_none() => {
                out.property = Some(p);
            }
            TermPattern::Literal(l) if l.datatype() == xsd::STRING && words.is_none() => {
                words = Some(l.value().to_owned());
            }
            TermPattern::Literal(l) if l.datatype() == xsd::STRING => {
                match l.value().strip_prefix("lang:") {
                    Some(lang) if !lang.is_empty() => out.langs.push(lang.to_owned()),
                    _ => return Err(format!("text:query: unexpected argument {l}")),
                }
            }
            TermPattern::Literal(l) if words.is_some() && out.limit.is_none() => {
                out.limit = Some(count(&l, "limit")?);
            }
            other => return Err(format!("text:query: unexpected argument {other}")),
        }
    }
    out.branches = vec![words.ok_or("text:query needs the words to search for")?];
    Ok(out)
}

/// `?e lodestone:text "words"` or `?e lodestone:text [ … ]`.
fn native_pattern(
    patterns: &[TriplePattern],
    used: &mut [bool],
    triple: &TriplePattern,
) -> Result<TextPattern, String> {
    let mut out = empty(triple.subject.clone(), Level::Entity);
    if let TermPattern::Literal(_) = &triple.object {
        out.branches = vec![string(&triple.object, "query")?];
        return Ok(out);
    }
    if !matches!(triple.object, TermPattern::BlankNode(_)) {
        return Err("lodestone:text takes a string or [ lodestone:query \"…\"; … ]".to_owned());
    }
    let mut words = None;
    for (i, t) in patterns.iter().enumerate() {
        if t.subject != triple.object {
            continue;
        }
        used[i] = true;
        let name = match &t.predicate {
            NamedNodePattern::NamedNode(p) => p.as_str().strip_prefix(LODESTONE),
            NamedNodePattern::Variable(_) => None,
        };
        match (name, &t.object) {
            (Some("query"), o) => words = Some(string(o, "lodestone:query")?),
            (Some("score"), o) => out.score = Some(variable(o, "lodestone:score")?),
            (Some("literal"), o) => out.literal = Some(o.clone()),
            (Some("snippet"), o) => out.snippet = Some(variable(o, "lodestone:snippet")?),
            (Some("lang"), o) => out.langs.push(string(o, "lodestone:lang")?),
            (Some("property"), TermPattern::NamedNode(p)) => out.property = Some(p.clone()),
            (Some("limit"), TermPattern::Literal(l)) => out.limit = Some(count(l, "limit")?),
            _ => {
                return Err(format!(
                    "lodestone:text [ … ] knows lodestone:query, score, literal, snippet, lang, property and limit, not {} {}",
                    t.predicate, t.object
                ))
            }
        }
    }
    out.branches = vec![words.ok_or("lodestone:text [ … ] needs lodestone:query \"words\"")?];
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::algebra::GraphPattern;
    use spargebra::{Query, SparqlParser};

    fn bgp(text: &str) -> Vec<TriplePattern> {
        let query = SparqlParser::new()
            .parse_query(&format!(
                "PREFIX bif: <http://www.openlinksw.com/schemas/bif#>
                 PREFIX text: <http://jena.apache.org/text#>
                 PREFIX lodestone: <urn:lodestone:>
                 PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
                 SELECT * WHERE {{ {text} }}"
            ))
            .unwrap_or_else(|e| panic!("{e}"));
        let Query::Select { pattern, .. } = query else {
            panic!("not a select")
        };
        let GraphPattern::Project { inner, .. } = pattern else {
            panic!("not projected")
        };
        let GraphPattern::Bgp { patterns } = *inner else {
            panic!("not a BGP: {inner}")
        };
        patterns
    }

    #[test]
    fn the_three_syntaxes_are_found_and_their_triples_taken_out() {
        let (found, rest) = extract(&bgp(
            r#"?p rdfs:label ?l . (?l ?sc) bif:contains "'a b' OR c""#,
        ))
        .unwrap();
        assert_eq!(rest.len(), 1);
        assert_eq!(found[0].level, Level::Literal);
        assert_eq!(found[0].branches, ["\"a b\"", "c"]);
        assert_eq!(found[0].score.as_ref().map(Variable::as_str), Some("sc"));

        let (found, rest) = extract(&bgp(
            r#"(?s ?score ?lit) text:query (rdfs:label "word" 10 "lang:de")"#,
        ))
        .unwrap();
        assert!(rest.is_empty(), "{rest:?}");
        let p = &found[0];
        assert_eq!((p.level, p.limit), (Level::Entity, Some(10)));
        assert_eq!(
            p.property.as_ref().map(NamedNode::as_str),
            Some(rdfs_label())
        );
        assert_eq!(p.langs, ["de"]);
        assert!(p.literal.is_some() && p.score.is_some());

        let (found, rest) = extract(&bgp(
            r#"?e lodestone:text [ lodestone:query "berlin wall"; lodestone:score ?sc; lodestone:snippet ?sn ] . ?e a ?c"#,
        ))
        .unwrap();
        assert_eq!(rest.len(), 1);
        assert_eq!(found[0].branches, ["berlin wall"]);
        assert!(found[0].snippet.is_some());
    }

    #[test]
    fn virtuoso_options_attach_to_the_bif_contains_before_them() {
        let text = super::super::options::rewrite(
            "?s ?p ?o . ?o bif:contains 'a' OPTION (score ?sc, score_limit 1.5) . ?o bif:contains 'b'",
        )
        .unwrap();
        let (found, rest) = extract(&bgp(&text)).unwrap();
        assert_eq!(rest.len(), 1);
        assert_eq!(found[0].score.as_ref().map(Variable::as_str), Some("sc"));
        assert_eq!(found[0].min_score, Some(1.5));
        assert!(found[1].score.is_none() && found[1].min_score.is_none());
        let twice =
            super::super::options::rewrite("(?o ?a) bif:contains 'x' OPTION (score ?b)").unwrap();
        assert!(extract(&bgp(&twice)).is_err());
    }

    fn rdfs_label() -> &'static str {
        "http://www.w3.org/2000/01/rdf-schema#label"
    }

    #[test]
    fn misspelt_patterns_are_errors() {
        for text in [
            r#"?o bif:contains "a AND""#,
            r#"?o bif:contains 42"#,
            r#"(?o ?sc ?x) bif:contains "a""#,
            r#"?e lodestone:text [ lodestone:score ?s ]"#,
            r#"?e lodestone:text [ lodestone:query "a"; lodestone:colour ?c ]"#,
            r#"?s text:query (rdfs:label 10)"#,
        ] {
            assert!(extract(&bgp(text)).is_err(), "{text}");
        }
    }
}
