//! How terms and quads become bytes: fixed-width term ids, the dictionary's term encoding and
//! the quad keys of the permutation indexes.

mod blank;
mod key;
mod term;

pub(crate) use blank::{BlankNumbering, BLANK_NUMBER_LIMIT};
pub use key::EncodedQuad;
pub(crate) use key::{prefix_number, Permutation, QUAD_KEY_LEN};
pub(crate) use term::{
    decode_term_bytes, encode_term_bytes, inline_id, is_string_literal_bytes,
    typed_literal_datatype, IRI_TAG,
};
pub use term::{TermId, TermKind};
