//! Term identifiers.
//!
//! A [`TermId`] is 64 bits: a 4-bit kind and a 60-bit payload. Dictionary terms (IRIs,
//! literals, blank nodes with foreign labels) get sequential payloads from one counter, so two
//! terms never share an id. Some terms need no dictionary entry at all: blank nodes minted by
//! the store carry their number in the payload (their label is that number in hex behind a
//! marker digit, `a000000000000001`, so that it starts with a letter as RDF/XML's
//! `rdf:nodeID` requires), and canonical `xsd:integer` and `xsd:boolean`
//! literals carry their value, offset so that ids of one kind sort in numeric order.
//! A literal is inlined only when its lexical form is canonical (`"01"^^xsd:integer` goes to
//! the dictionary), so the exact lexical form always survives.

use oxrdf::vocab::xsd;
use oxrdf::{BlankNode, Literal, NamedNode, Term, TermRef};

const KIND_SHIFT: u32 = 60;
const PAYLOAD_MASK: u64 = (1 << KIND_SHIFT) - 1;
/// Offset added to inlined integers so that they sort numerically as unsigned payloads.
const INTEGER_OFFSET: i64 = 1 << 59;
/// Below this size, doubles are at most one half apart: a bound rounded to one is off by
/// less than one.
const EXACT_DOUBLES: f64 = 4_503_599_627_370_496.0; // 2^52
/// The hex digit above the 60-bit number in the unique id of a minted blank node: its label
/// is then always sixteen hex digits starting with `a`, a valid XML name.
const MINTED_BLANK_MARKER: u128 = 0xa;

/// The kind of term an id stands for, stored in its top four bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TermKind {
    /// The default graph, only ever in the graph position (id 0).
    DefaultGraph = 0,
    /// An IRI from the dictionary.
    Iri = 1,
    /// A blank node minted by the store; the payload is its number.
    MintedBlank = 2,
    /// A blank node with a label the store did not mint, from the dictionary.
    NamedBlank = 3,
    /// A literal from the dictionary.
    Literal = 4,
    /// A canonical `xsd:integer` within ±2^59, inlined.
    Integer = 5,
    /// A canonical `xsd:boolean`, inlined.
    Boolean = 6,
    /// A term that exists only during one query (never stored).
    Transient = 7,
}

impl TermKind {
    fn from_bits(bits: u64) -> Option<Self> {
        Some(match bits {
            0 => Self::DefaultGraph,
            1 => Self::Iri,
            2 => Self::MintedBlank,
            3 => Self::NamedBlank,
            4 => Self::Literal,
            5 => Self::Integer,
            6 => Self::Boolean,
            7 => Self::Transient,
            _ => return None,
        })
    }

    /// The kind of dictionary id a term gets when it is not inlined.
    pub fn of_dictionary_term(term: TermRef<'_>) -> Self {
        match term {
            TermRef::NamedNode(_) => Self::Iri,
            TermRef::BlankNode(_) => Self::NamedBlank,
            _ => Self::Literal,
        }
    }

    /// Whether ids of this kind have an entry in the dictionary.
    pub fn is_in_dictionary(self) -> bool {
        matches!(self, Self::Iri | Self::NamedBlank | Self::Literal)
    }
}

/// A fixed-width identifier of an RDF term (or of the default graph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(u64);

impl TermId {
    /// The id of the default graph, the graph position of quads without a graph name.
    pub const DEFAULT_GRAPH: Self = Self(0);
    /// The largest payload any kind can carry.
    pub const MAX_PAYLOAD: u64 = PAYLOAD_MASK;

    /// Builds an id from its kind and payload; the payload must fit in 60 bits.
    pub fn new(kind: TermKind, payload: u64) -> Self {
        debug_assert!(payload <= PAYLOAD_MASK);
        Self(((kind as u64) << KIND_SHIFT) | (payload & PAYLOAD_MASK))
    }

    /// Rebuilds an id from its 64-bit representation.
    pub fn from_u64(value: u64) -> Self {
        Self(value)
    }

    /// The 64-bit representation, as stored in keys.
    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// Big-endian bytes, the order in which ids sort in the indexes.
    pub fn to_be_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Reads an id from eight big-endian bytes.
    pub fn from_be_bytes(bytes: [u8; 8]) -> Self {
        Self(u64::from_be_bytes(bytes))
    }

    /// What kind of term this id stands for.
    pub fn kind(self) -> TermKind {
        // Every 4-bit pattern above 7 is unused; treat it as transient so that decoding fails
        // cleanly instead of panicking.
        TermKind::from_bits(self.0 >> KIND_SHIFT).unwrap_or(TermKind::Transient)
    }

    /// The 60-bit payload (dictionary number, blank node number or inlined value).
    pub fn payload(self) -> u64 {
        self.0 & PAYLOAD_MASK
    }

    /// Whether this is the default graph.
    pub fn is_default_graph(self) -> bool {
        self == Self::DEFAULT_GRAPH
    }

    /// The inclusive range of ids of the inlined integers that may lie within `[lower,
    /// upper]` (`None`: unbounded; NaN counts as unbounded), or `None` when none can. Inlined
    /// integers sort by value, so they are one key range of an order led by the object. The
    /// range is widened by one at each end, so that the bounds' rounding to doubles never
    /// leaves an integer out; a bound of 2^52 or more in size, where doubles are more than
    /// one apart, counts as unbounded.
    pub(crate) fn inline_integer_range(
        lower: Option<f64>,
        upper: Option<f64>,
    ) -> Option<(Self, Self)> {
        let smallest = -INTEGER_OFFSET;
        let largest = INTEGER_OFFSET - 1;
        // A bound beyond the inlined integers' span is clamped to it before the conversion,
        // which then cannot truncate.
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let clamp = |value: f64| -> i64 {
            if value <= smallest as f64 {
                smallest
            } else if value >= largest as f64 {
                largest
            } else {
                value as i64
            }
        };
        let exact = |v: &f64| v.abs() < EXACT_DOUBLES;
        let low = lower
            .filter(exact)
            .map_or(smallest, |l| clamp(l.floor() - 1.0));
        let high = upper
            .filter(exact)
            .map_or(largest, |u| clamp(u.ceil() + 1.0));
        let id = |value: i64| {
            u64::try_from(value + INTEGER_OFFSET)
                .ok()
                .map(|payload| Self::new(TermKind::Integer, payload))
        };
        (low <= high).then_some((id(low)?, id(high)?))
    }

    /// The value of an inlined `xsd:integer`, without its lexical form.
    pub fn inline_integer(self) -> Option<i64> {
        if self.kind() != TermKind::Integer {
            return None;
        }
        Some(i64::try_from(self.payload()).ok()? - INTEGER_OFFSET)
    }

    /// The term itself when it is inlined in the id (no dictionary needed).
    pub fn decode_inline(self) -> Option<Term> {
        match self.kind() {
            TermKind::MintedBlank => Some(
                BlankNode::new_from_unique_id(
                    (MINTED_BLANK_MARKER << KIND_SHIFT) | u128::from(self.payload()),
                )
                .into(),
            ),
            TermKind::Integer => Some(
                Literal::new_typed_literal(self.inline_integer()?.to_string(), xsd::INTEGER).into(),
            ),
            TermKind::Boolean => Some(Literal::from(self.payload() != 0).into()),
            _ => None,
        }
    }
}

/// The id of a term that needs no dictionary entry, if it is one.
///
/// Blank nodes labelled the way the store labels the ones it mints (`a` and fifteen lowercase
/// hex digits) are inlined, as are integers and booleans in canonical lexical form.
pub(crate) fn inline_id(term: TermRef<'_>) -> Option<TermId> {
    match term {
        TermRef::BlankNode(b) => {
            let id = b.unique_id()?;
            if id >> KIND_SHIFT != MINTED_BLANK_MARKER {
                return None;
            }
            let payload = u64::try_from(id).ok()? & PAYLOAD_MASK;
            // Only labels that `new_from_unique_id` would print back identically.
            (BlankNode::new_from_unique_id(id).as_str() == b.as_str())
                .then(|| TermId::new(TermKind::MintedBlank, payload))
        }
        TermRef::Literal(l) if l.datatype() == xsd::INTEGER => {
            let value: i64 = l.value().parse().ok()?;
            if value.to_string() != l.value() || !(-INTEGER_OFFSET..INTEGER_OFFSET).contains(&value)
            {
                return None;
            }
            let payload = u64::try_from(value + INTEGER_OFFSET).ok()?;
            Some(TermId::new(TermKind::Integer, payload))
        }
        TermRef::Literal(l) if l.datatype() == xsd::BOOLEAN => match l.value() {
            "true" => Some(TermId::new(TermKind::Boolean, 1)),
            "false" => Some(TermId::new(TermKind::Boolean, 0)),
            _ => None,
        },
        _ => None,
    }
}

/// The tag byte before an IRI's text in its dictionary form.
pub(crate) const IRI_TAG: u8 = b'I';

/// The dictionary form of a term: a tag byte, then the parts of the term.
///
/// Languages and datatypes come before the lexical value and end with a zero byte (neither can
/// contain one), so the value may hold any byte.
pub(crate) fn encode_term_bytes(term: TermRef<'_>, out: &mut Vec<u8>) {
    out.clear();
    match term {
        TermRef::NamedNode(n) => {
            out.push(IRI_TAG);
            out.extend_from_slice(n.as_str().as_bytes());
        }
        TermRef::BlankNode(b) => {
            out.push(b'B');
            out.extend_from_slice(b.as_str().as_bytes());
        }
        TermRef::Literal(l) => {
            if let Some(language) = l.language() {
                out.push(b'L');
                out.extend_from_slice(language.as_bytes());
                out.push(0);
            } else if l.datatype() == xsd::STRING {
                out.push(b'S');
            } else {
                out.push(b'T');
                out.extend_from_slice(l.datatype().as_str().as_bytes());
                out.push(0);
            }
            out.extend_from_slice(l.value().as_bytes());
        }
        // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
        #[allow(unreachable_patterns)]
        _ => out.push(b'?'),
    }
}

/// Whether dictionary bytes written by [`encode_term_bytes`] are those of a simple or a
/// language-tagged literal (the literals that hold words), read from the tag alone.
pub(crate) fn is_string_literal_bytes(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(b'S' | b'L'))
}

/// The datatype IRI of dictionary bytes written by [`encode_term_bytes`] for a typed literal
/// (not a simple or language-tagged one), read without decoding the value; `None` for every
/// other term.
pub(crate) fn typed_literal_datatype(bytes: &[u8]) -> Option<&str> {
    let rest = bytes.strip_prefix(b"T")?;
    let zero = rest.iter().position(|&c| c == 0)?;
    std::str::from_utf8(&rest[..zero]).ok()
}

/// Reads back what [`encode_term_bytes`] wrote; `None` if the bytes are not a term.
pub(crate) fn decode_term_bytes(bytes: &[u8]) -> Option<Term> {
    let (&tag, rest) = bytes.split_first()?;
    let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_owned);
    let split = |b: &[u8]| {
        let zero = b.iter().position(|&c| c == 0)?;
        Some((text(&b[..zero])?, text(&b[zero + 1..])?))
    };
    Some(match tag {
        IRI_TAG => NamedNode::new_unchecked(text(rest)?).into(),
        b'B' => BlankNode::new_unchecked(text(rest)?).into(),
        b'S' => Literal::new_simple_literal(text(rest)?).into(),
        b'L' => {
            let (language, value) = split(rest)?;
            Literal::new_language_tagged_literal_unchecked(value, language).into()
        }
        b'T' => {
            let (datatype, value) = split(rest)?;
            Literal::new_typed_literal(value, NamedNode::new_unchecked(datatype)).into()
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(term: Term) {
        let mut bytes = Vec::new();
        encode_term_bytes(term.as_ref(), &mut bytes);
        assert_eq!(decode_term_bytes(&bytes), Some(term.clone()));
        if let Some(id) = inline_id(term.as_ref()) {
            assert_eq!(id.decode_inline(), Some(term));
        }
    }

    #[test]
    fn terms_round_trip() {
        round_trip(NamedNode::new_unchecked("http://example.com/é").into());
        round_trip(BlankNode::new_unchecked("b1").into());
        round_trip(BlankNode::new_from_unique_id(42).into());
        round_trip(Literal::new_simple_literal("a\0b").into());
        round_trip(Literal::new_language_tagged_literal_unchecked("chat", "fr").into());
        round_trip(Literal::new_typed_literal("1.0", xsd::DECIMAL).into());
        round_trip(Literal::from(-12_i64).into());
        round_trip(Literal::from(true).into());
    }

    #[test]
    fn the_datatype_of_typed_literals_is_read_from_their_bytes() {
        let datatype = |term: Term| {
            let mut bytes = Vec::new();
            encode_term_bytes(term.as_ref(), &mut bytes);
            typed_literal_datatype(&bytes).map(str::to_owned)
        };
        let decimal = Literal::new_typed_literal("1.0", xsd::DECIMAL);
        assert_eq!(
            datatype(decimal.into()),
            Some(xsd::DECIMAL.as_str().to_owned())
        );
        assert_eq!(datatype(Literal::new_simple_literal("1.0").into()), None);
        let tagged = Literal::new_language_tagged_literal_unchecked("un", "fr");
        assert_eq!(datatype(tagged.into()), None);
        assert_eq!(
            datatype(NamedNode::new_unchecked("http://e.com/T").into()),
            None
        );
    }

    #[test]
    fn non_canonical_literals_are_not_inlined() {
        let lit = Literal::new_typed_literal("01", xsd::INTEGER);
        assert_eq!(inline_id(lit.as_ref().into()), None);
        let lit = Literal::new_typed_literal("+1", xsd::INTEGER);
        assert_eq!(inline_id(lit.as_ref().into()), None);
        let lit = Literal::new_typed_literal("1", xsd::BOOLEAN);
        assert_eq!(inline_id(lit.as_ref().into()), None);
    }

    #[test]
    fn inlined_integers_sort_numerically() {
        let id = |v: i64| inline_id(Literal::from(v).as_ref().into()).map(TermId::as_u64);
        assert!(id(-5) < id(-1));
        assert!(id(-1) < id(0));
        assert!(id(0) < id(7));
        assert!(id(7) < id(1 << 40));
    }

    #[test]
    fn inlined_integers_give_their_values_back() {
        for v in [-(1 << 40), -1, 0, 7, 1 << 40] {
            let id = inline_id(Literal::from(v).as_ref().into()).expect("inlined");
            assert_eq!(id.inline_integer(), Some(v));
        }
        let boolean = inline_id(Literal::from(true).as_ref().into()).expect("inlined");
        assert_eq!(boolean.inline_integer(), None);
        assert_eq!(TermId::new(TermKind::Literal, 3).inline_integer(), None);
    }

    #[test]
    fn inline_integer_ranges_hold_every_integer_within_the_bounds() {
        let id = |v: i64| inline_id(Literal::from(v).as_ref().into()).unwrap_or(TermId(0));
        let holds = |range: Option<(TermId, TermId)>, v: i64| {
            range.is_some_and(|(low, high)| low <= id(v) && id(v) <= high)
        };
        let range = TermId::inline_integer_range(Some(10.5), Some(20.0));
        assert!((11..=20).all(|v| holds(range, v)));
        assert!(!holds(range, 8) && !holds(range, 22));
        let open = TermId::inline_integer_range(None, Some(f64::NAN));
        assert!(holds(open, i64::from(i32::MIN)) && holds(open, 1 << 58));
        assert!(holds(
            TermId::inline_integer_range(Some(-1e300), Some(1e300)),
            -(1 << 58)
        ));
        let huge = TermId::inline_integer_range(Some(2f64.powi(56)), None);
        assert!(holds(huge, (1 << 56) - 100));
        assert_eq!(TermId::inline_integer_range(Some(30.0), Some(10.0)), None);
    }

    #[test]
    fn foreign_blank_labels_are_not_inlined() {
        assert_eq!(
            inline_id(BlankNode::new_unchecked("b1").as_ref().into()),
            None
        );
        assert_eq!(
            inline_id(BlankNode::new_unchecked("0a").as_ref().into()),
            None
        );
        assert_eq!(
            inline_id(BlankNode::new_unchecked("1").as_ref().into()),
            None
        );
        assert_eq!(inline_id(BlankNode::default().as_ref().into()), None);
    }

    #[test]
    fn minted_blank_labels_start_with_a_letter_and_read_back() {
        for payload in [1, 2, 10, 0xff, TermId::MAX_PAYLOAD] {
            let id = TermId::new(TermKind::MintedBlank, payload);
            let Some(Term::BlankNode(blank)) = id.decode_inline() else {
                panic!("{id:?} is not a blank node");
            };
            assert!(
                blank.as_str().starts_with('a'),
                "{blank} is not an XML name"
            );
            assert_eq!(blank.as_str().len(), 16);
            assert_eq!(inline_id(blank.as_ref().into()), Some(id));
            let relabelled = BlankNode::new_unchecked(blank.as_str());
            assert_eq!(inline_id(relabelled.as_ref().into()), Some(id));
        }
    }
}
