//! Terms through a reader: the id of a term and the term of an id (with the reader's and the
//! store's caches of decoded terms), transient ids for terms a query computes, stand-ins for
//! ids, and whole quads encoded and decoded.

use super::Reader;
use crate::dictionary::{decode_term, find_id};
use crate::encoding::{encode_term_bytes, inline_id, EncodedQuad, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::kv::Table;
use oxrdf::{GraphNameRef, NamedNode, Quad, Term, TermRef};

/// The namespace of [`Reader::stand_in`]'s IRIs.
const STAND_IN: &str = "urn:lodestone:id:";

/// Decoded terms kept per reader; cleared when it grows past this many.
const DECODE_CACHE_LIMIT: usize = 200_000;

/// The longest string a query may compute (`CONCAT`, `REPLACE`, `GROUP_CONCAT`…): a query of
/// one kilobyte doubling a string thirty times would otherwise ask for gigabytes.
const MAX_COMPUTED_TERM_BYTES: usize = 16 << 20;

/// The bytes of all the terms one query computes and keeps (each is held for the query's
/// life, so that its id stays valid).
const MAX_COMPUTED_BYTES: usize = 256 << 20;

impl Reader<'_> {
    /// The id of a term if the store knows it (inlined terms always have one).
    pub fn term_id(&self, term: TermRef<'_>) -> Result<Option<TermId>, StoreError> {
        if let Some(id) = inline_id(term) {
            return Ok(Some(id));
        }
        let mut bytes = Vec::new();
        encode_term_bytes(term, &mut bytes);
        if let Some(id) = self.overlay.and_then(|o| o.new_term_id(&bytes)) {
            return Ok(Some(id));
        }
        if let Some(id) = self.cache.borrow().known_ids.get(&bytes) {
            return Ok(Some(*id));
        }
        self.dictionary_lookup(&bytes)
    }

    /// Tells the reader the ids of stored terms the caller resolved with [`Reader::term`], so
    /// that [`Reader::term_id`] answers them without a dictionary look-up: a query given a
    /// long list of terms found by id (the text index's hits, as a `VALUES` table) would
    /// otherwise look each up again when the evaluation encodes the table. Each `(id, term)`
    /// must be a pair `term(id)` gave.
    pub fn remember_ids<'t>(&self, pairs: impl IntoIterator<Item = (TermId, &'t Term)>) {
        let mut cache = self.cache.borrow_mut();
        for (id, term) in pairs {
            if id.decode_inline().is_some() || id.kind() == TermKind::Transient {
                continue;
            }
            let mut bytes = Vec::new();
            encode_term_bytes(term.as_ref(), &mut bytes);
            cache.known_ids.insert(bytes, id);
        }
    }

    /// A stand-in for the stored IRI with this id, which [`Reader::term_id`] answers with the
    /// id without reading anything, so that a query given many terms found by id (the text
    /// index's hits, as a `VALUES` table) is encoded without reading each IRI first: only the
    /// IRIs of the rows it returns are read, since an evaluated id is shown as its real term.
    /// Valid for this reader only; IRIs under `urn:lodestone:id:` are reserved for stand-ins.
    pub fn stand_in(&self, id: TermId) -> NamedNode {
        let node = NamedNode::new_unchecked(format!("{STAND_IN}{}", id.as_u64()));
        let mut bytes = Vec::new();
        encode_term_bytes(node.as_ref().into(), &mut bytes);
        self.cache.borrow_mut().known_ids.insert(bytes, id);
        node
    }

    pub(crate) fn dictionary_lookup(&self, bytes: &[u8]) -> Result<Option<TermId>, StoreError> {
        find_id(bytes, |table, key| self.get(table, key))
    }

    /// The id of any term: the stored one, or a transient id valid for this reader only.
    pub fn term_id_or_transient(&self, term: Term) -> Result<TermId, StoreError> {
        if let Some(id) = self.term_id(term.as_ref())? {
            return Ok(id);
        }
        let mut cache = self.cache.borrow_mut();
        if let Some(id) = cache.transient_ids.get(&term) {
            return Ok(*id);
        }
        let bytes = term_bytes(&term);
        if bytes > MAX_COMPUTED_TERM_BYTES {
            return Err(StoreError::TooLarge(format!(
                "the query computed a term of {bytes} bytes; the limit is {MAX_COMPUTED_TERM_BYTES}"
            )));
        }
        cache.transient_bytes += bytes;
        if cache.transient_bytes > MAX_COMPUTED_BYTES {
            return Err(StoreError::TooLarge(format!(
                "the query computed more than {MAX_COMPUTED_BYTES} bytes of new terms"
            )));
        }
        let id = TermId::new(TermKind::Transient, cache.transient_terms.len() as u64);
        cache.transient_terms.push(term.clone());
        cache.transient_ids.insert(term, id);
        Ok(id)
    }

    /// The term an id stands for.
    pub fn term(&self, id: TermId) -> Result<Term, StoreError> {
        if let Some(term) = id.decode_inline() {
            return Ok(term);
        }
        match id.kind() {
            TermKind::Transient => {
                let cache = self.cache.borrow();
                let index = usize::try_from(id.payload()).unwrap_or(usize::MAX);
                return cache.transient_terms.get(index).cloned().ok_or_else(|| {
                    CorruptionError::msg(format!("unknown transient term {id:?}")).into()
                });
            }
            TermKind::DefaultGraph => {
                return Err(CorruptionError::msg("the default graph is not a term").into())
            }
            _ => {}
        }
        if let Some(term) = self.cache.borrow().decoded.get(&id) {
            return Ok(term.clone());
        }
        if let Some(term) = self.overlay.and_then(|o| o.new_term(id)) {
            return Ok(term.clone());
        }
        let term = match self.decoded.get(id) {
            Some(term) => term,
            None => {
                let bytes = self
                    .get(Table::IdToTerm, &id.to_be_bytes())?
                    .ok_or_else(|| {
                        CorruptionError::msg(format!("no dictionary entry for {id:?}"))
                    })?;
                let term = decode_term(id, &bytes)?;
                // Read from the committed dictionary: right for every reader from now on.
                self.decoded.insert(id, &term);
                term
            }
        };
        let mut cache = self.cache.borrow_mut();
        if cache.decoded.len() >= DECODE_CACHE_LIMIT {
            cache.decoded.clear();
        }
        cache.decoded.insert(id, term.clone());
        Ok(term)
    }

    /// Encodes a quad of known terms; `None` if one of its terms is not in the store.
    pub fn encode_quad(&self, quad: oxrdf::QuadRef<'_>) -> Result<Option<EncodedQuad>, StoreError> {
        let Some(subject) = self.term_id(quad.subject.into())? else {
            return Ok(None);
        };
        let Some(predicate) = self.term_id(quad.predicate.into())? else {
            return Ok(None);
        };
        let Some(object) = self.term_id(quad.object)? else {
            return Ok(None);
        };
        let Some(graph) = self.graph_id(quad.graph_name)? else {
            return Ok(None);
        };
        Ok(Some(EncodedQuad::new(subject, predicate, object, graph)))
    }

    /// The id of a graph name; `None` if it is a named graph the store does not know.
    pub fn graph_id(&self, graph: GraphNameRef<'_>) -> Result<Option<TermId>, StoreError> {
        match graph {
            GraphNameRef::DefaultGraph => Ok(Some(TermId::DEFAULT_GRAPH)),
            GraphNameRef::NamedNode(n) => self.term_id(n.into()),
            GraphNameRef::BlankNode(b) => self.term_id(b.into()),
        }
    }

    /// Decodes a quad.
    pub fn decode_quad(&self, quad: &EncodedQuad) -> Result<Quad, StoreError> {
        let subject: oxrdf::NamedOrBlankNode = match self.term(quad.subject)? {
            Term::NamedNode(n) => n.into(),
            Term::BlankNode(b) => b.into(),
            Term::Literal(_) => return Err(CorruptionError::msg("literal subject").into()),
            // oxrdf's quoted-triple term, present only with its `rdf-12` feature.
            #[allow(unreachable_patterns)]
            _ => return Err(CorruptionError::msg("unsupported subject").into()),
        };
        let Term::NamedNode(predicate) = self.term(quad.predicate)? else {
            return Err(CorruptionError::msg("predicate is not an IRI").into());
        };
        let object = self.term(quad.object)?;
        let graph_name = if quad.graph.is_default_graph() {
            oxrdf::GraphName::DefaultGraph
        } else {
            match self.term(quad.graph)? {
                Term::NamedNode(n) => n.into(),
                Term::BlankNode(b) => b.into(),
                _ => return Err(CorruptionError::msg("graph name is a literal").into()),
            }
        };
        Ok(Quad::new(subject, predicate, object, graph_name))
    }
}

/// The bytes of a term's strings.
fn term_bytes(term: &Term) -> usize {
    match term {
        Term::NamedNode(n) => n.as_str().len(),
        Term::BlankNode(b) => b.as_str().len(),
        Term::Literal(l) => {
            l.value().len() + l.language().map_or(0, str::len) + l.datatype().as_str().len()
        }
    }
}
