//! The store as a `spareval` dataset: internal terms are [`TermId`]s, decoded only when a
//! result needs them.

use crate::encoding::{EncodedQuad, TermId, TermKind};
use crate::error::StoreError;
use crate::quads::reader::Reader;
use oxrdf::Term;
use spareval::{ExpressionTerm, InternalQuad, NumericRange, QueryableDataset};

fn internal_quad(quad: EncodedQuad) -> InternalQuad<TermId> {
    InternalQuad {
        subject: quad.subject,
        predicate: quad.predicate,
        object: quad.object,
        graph_name: (!quad.graph.is_default_graph()).then_some(quad.graph),
    }
}

fn is_transient(id: Option<&TermId>) -> bool {
    id.is_some_and(|id| id.kind() == TermKind::Transient)
}

impl<'a, 'db: 'a> QueryableDataset<'a> for &'a Reader<'db> {
    type InternalTerm = TermId;
    type Error = StoreError;

    fn internal_quads_for_pattern(
        &self,
        subject: Option<&TermId>,
        predicate: Option<&TermId>,
        object: Option<&TermId>,
        graph_name: Option<Option<&TermId>>,
    ) -> impl Iterator<Item = Result<InternalQuad<TermId>, StoreError>> + use<'a, 'db> {
        let reader: &'a Reader<'db> = self;
        // A term the store does not hold matches nothing.
        let unknown = is_transient(subject)
            || is_transient(predicate)
            || is_transient(object)
            || graph_name.is_some_and(|g| is_transient(g));
        let graph = graph_name.map(|g| g.copied().unwrap_or(TermId::DEFAULT_GRAPH));
        let quads = (!unknown).then(|| {
            reader.quads_for_pattern(subject.copied(), predicate.copied(), object.copied(), graph)
        });
        quads
            .into_iter()
            .flatten()
            .map(|quad| quad.map(internal_quad))
    }

    fn internal_quads_for_numeric_range(
        &self,
        predicate: &TermId,
        range: NumericRange,
        graph_name: Option<Option<&TermId>>,
        limit: usize,
    ) -> Result<Option<Vec<InternalQuad<TermId>>>, StoreError> {
        if is_transient(Some(predicate)) || graph_name.is_some_and(|g| is_transient(g)) {
            return Ok(Some(Vec::new()));
        }
        let graph = graph_name.map(|g| g.copied().unwrap_or(TermId::DEFAULT_GRAPH));
        let quads =
            self.quads_in_numeric_range(*predicate, range.lower, range.upper, graph, limit)?;
        Ok(quads.map(|quads| quads.into_iter().map(internal_quad).collect()))
    }

    fn internal_named_graphs(
        &self,
    ) -> impl Iterator<Item = Result<TermId, StoreError>> + use<'a, 'db> {
        match self.named_graphs() {
            Ok(graphs) => graphs.into_iter().map(Ok).collect::<Vec<_>>().into_iter(),
            Err(e) => vec![Err(e)].into_iter(),
        }
    }

    fn contains_internal_graph_name(&self, graph_name: &TermId) -> Result<bool, StoreError> {
        if graph_name.kind() == TermKind::Transient {
            return Ok(false);
        }
        self.contains_named_graph(*graph_name)
    }

    fn internalize_term(&self, term: Term) -> Result<TermId, StoreError> {
        self.term_id_or_transient(term)
    }

    fn externalize_term(&self, term: TermId) -> Result<Term, StoreError> {
        self.term(term)
    }

    fn externalize_expression_term(&self, term: TermId) -> Result<ExpressionTerm, StoreError> {
        // An inlined integer goes to the expression as its value: a filter comparing numbers
        // (BSBM's Q5, each candidate's two properties) decoded each one through its lexical
        // form, a string allocated and parsed back.
        if let Some(value) = term.inline_integer() {
            return Ok(ExpressionTerm::IntegerLiteral(value.into()));
        }
        Ok(self.term(term)?.into())
    }
}
