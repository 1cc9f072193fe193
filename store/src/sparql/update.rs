//! SPARQL 1.1 Update: every operation of a request applied in one transaction.
//!
//! The operations run in order and each sees the effects of the ones before it; the request
//! commits as a whole or not at all, so `DROP GRAPH <g> ; INSERT DATA { GRAPH <g> { … } }`
//! replaces a graph without any reader seeing it empty.

use super::{evaluation_error, QueryOptions};
use crate::changes::SequenceNumber;
use crate::encoding::{inline_id, EncodedQuad, TermId};
use crate::error::StoreError;
use crate::load::{encode_scoped, format_from_path, parse_into, BlankScope, ParseOptions};
use crate::quads::writer::Transaction;
use crate::store::Store;
use oxrdf::{GraphName, Quad, Term, TermRef};
use spareval::DeleteInsertQuad;
use spargebra::algebra::GraphTarget;
use spargebra::{GraphUpdateOperation, Update};
use std::path::PathBuf;

/// What an update may do beyond changing data.
#[derive(Clone, Default)]
pub struct UpdateOptions {
    /// Query options for the WHERE parts (union default graph, cancellation).
    pub query: QueryOptions,
    /// Folder from which `LOAD <file:…>` may read; `None` refuses file loads.
    pub load_folder: Option<PathBuf>,
    /// The prefixes the request's prologue declared (name, namespace), recorded with its
    /// commit (see [`Transaction::declare_prefixes`]); those of files it loads are added.
    pub prefixes: Vec<(String, String)>,
}

/// Applies an update request atomically; returns the commit's sequence number.
pub fn execute_update(
    store: &Store,
    update: &Update,
    options: &UpdateOptions,
) -> Result<SequenceNumber, StoreError> {
    let mut transaction = store.transaction()?;
    transaction.declare_prefixes(options.prefixes.iter().cloned());
    let mut scope = BlankScope::default();
    for operation in &update.operations {
        apply(&mut transaction, &mut scope, operation, update, options)?;
    }
    // A WHERE stopped by its token (time or memory) may have ended early without an error of
    // its own: its partial solutions must not be committed.
    if options
        .query
        .cancellation
        .as_ref()
        .is_some_and(|token| token.is_cancelled())
    {
        return Err(StoreError::Cancelled);
    }
    transaction.commit()
}

fn graph_name(graph: &spargebra::term::GraphName) -> GraphName {
    match graph {
        spargebra::term::GraphName::NamedNode(n) => n.clone().into(),
        spargebra::term::GraphName::DefaultGraph => GraphName::DefaultGraph,
    }
}

fn apply(
    transaction: &mut Transaction<'_>,
    scope: &mut BlankScope,
    operation: &GraphUpdateOperation,
    update: &Update,
    options: &UpdateOptions,
) -> Result<(), StoreError> {
    match operation {
        GraphUpdateOperation::InsertData { data } => {
            for quad in data {
                let quad = Quad::new(
                    quad.subject.clone(),
                    quad.predicate.clone(),
                    quad.object.clone(),
                    graph_name(&quad.graph_name),
                );
                let encoded = encode_scoped(transaction, scope, quad.as_ref())?;
                transaction.insert_encoded(encoded)?;
            }
        }
        GraphUpdateOperation::DeleteData { data } => {
            for quad in data {
                let object: Term = match &quad.object {
                    spargebra::term::GroundTerm::NamedNode(n) => n.clone().into(),
                    spargebra::term::GroundTerm::Literal(l) => l.clone().into(),
                    // spargebra's quoted-triple term, present only with its `sparql-12` feature.
                    #[allow(unreachable_patterns)]
                    _ => continue,
                };
                let quad = Quad::new(
                    quad.subject.clone(),
                    quad.predicate.clone(),
                    object,
                    graph_name(&quad.graph_name),
                );
                transaction.remove(quad.as_ref())?;
            }
        }
        GraphUpdateOperation::DeleteInsert {
            delete,
            insert,
            using,
            pattern,
        } => {
            let evaluator = options.query.evaluator();
            let mut prepared = evaluator.prepare_delete_insert(
                delete.clone(),
                insert.clone(),
                update.base_iri.clone(),
                using.clone(),
                pattern,
            );
            if using.is_none() && options.query.default_graph_as_union {
                prepared.dataset_mut().set_default_graph_as_union();
            }
            let (mut deletes, mut inserts) = (Vec::new(), Vec::new());
            {
                let reader = transaction.reader();
                for change in prepared.execute(&reader).map_err(evaluation_error)? {
                    match change.map_err(evaluation_error)? {
                        DeleteInsertQuad::Delete(q) => deletes.push(q),
                        DeleteInsertQuad::Insert(q) => inserts.push(q),
                    }
                }
            }
            for quad in deletes {
                transaction.remove(quad.as_ref())?;
            }
            // Template blank nodes are fresh for each solution; blank nodes bound from the
            // data keep their identity.
            let mut fresh = BlankScope::default();
            for quad in inserts {
                let encoded = encode_template_quad(transaction, &mut fresh, &quad)?;
                transaction.insert_encoded(encoded)?;
            }
        }
        GraphUpdateOperation::Load {
            silent,
            source,
            destination,
        } => {
            let result = load(
                transaction,
                source.as_str(),
                graph_name(destination),
                options,
            );
            if !silent {
                result?;
            }
        }
        GraphUpdateOperation::Clear { silent, graph } => {
            for graph in targets(transaction, graph, *silent)? {
                transaction.clear_graph(graph)?;
            }
        }
        GraphUpdateOperation::Create { silent, graph } => {
            let id = transaction.term_id_for_insert(graph.as_ref().into())?;
            if !transaction.create_graph(id)? && !silent {
                return Err(StoreError::GraphAlreadyExists(graph.to_string()));
            }
        }
        GraphUpdateOperation::Drop { silent, graph } => {
            for graph in targets(transaction, graph, *silent)? {
                if graph.is_default_graph() {
                    transaction.clear_graph(graph)?;
                } else {
                    transaction.drop_graph(graph)?;
                }
            }
        }
    }
    Ok(())
}

/// The graphs a CLEAR or DROP applies to; an unknown named graph is an error unless SILENT.
fn targets(
    transaction: &Transaction<'_>,
    target: &GraphTarget,
    silent: bool,
) -> Result<Vec<TermId>, StoreError> {
    let reader = transaction.reader();
    Ok(match target {
        GraphTarget::NamedNode(g) => match reader.term_id(g.as_ref().into())? {
            Some(id) if reader.contains_named_graph(id)? => vec![id],
            _ if silent => Vec::new(),
            _ => return Err(StoreError::GraphNotFound(g.to_string())),
        },
        GraphTarget::DefaultGraph => vec![TermId::DEFAULT_GRAPH],
        GraphTarget::NamedGraphs => reader.named_graphs()?,
        GraphTarget::AllGraphs => {
            let mut graphs = reader.named_graphs()?;
            graphs.push(TermId::DEFAULT_GRAPH);
            graphs
        }
    })
}

fn encode_template_quad(
    transaction: &mut Transaction<'_>,
    fresh: &mut BlankScope,
    quad: &Quad,
) -> Result<EncodedQuad, StoreError> {
    let mut term =
        |transaction: &mut Transaction<'_>, term: TermRef<'_>| -> Result<TermId, StoreError> {
            if let TermRef::BlankNode(b) = term {
                if let Some(id) = inline_id(term) {
                    return Ok(id);
                }
                if let Some(id) = transaction.reader().term_id(term)? {
                    return Ok(id);
                }
                return fresh.resolve(b, transaction);
            }
            transaction.term_id_for_insert(term)
        };
    let subject = term(transaction, quad.subject.as_ref().into())?;
    let predicate = term(transaction, quad.predicate.as_ref().into())?;
    let object = term(transaction, quad.object.as_ref())?;
    let graph = match &quad.graph_name {
        GraphName::DefaultGraph => TermId::DEFAULT_GRAPH,
        GraphName::NamedNode(n) => term(transaction, n.as_ref().into())?,
        GraphName::BlankNode(b) => term(transaction, b.as_ref().into())?,
    };
    Ok(EncodedQuad::new(subject, predicate, object, graph))
}

fn load(
    transaction: &mut Transaction<'_>,
    source: &str,
    destination: GraphName,
    options: &UpdateOptions,
) -> Result<(), StoreError> {
    let Some(path) = local_file_path(source) else {
        return Err(StoreError::Forbidden(format!(
            "LOAD <{source}>: loading from URLs and other hosts is disabled on this server"
        )));
    };
    let Some(folder) = &options.load_folder else {
        return Err(StoreError::Forbidden(format!(
            "LOAD <{source}>: loading local files is disabled on this server"
        )));
    };
    // One answer for every file that cannot be loaded (missing, outside the folder, not a
    // regular file such as a FIFO that would block the writer): which one it is would tell a
    // client what exists on the server's disk.
    let refused = || {
        StoreError::Forbidden(format!(
            "LOAD <{source}>: not a readable regular file in the folder allowed for LOAD"
        ))
    };
    let folder = folder.canonicalize()?;
    let canonical = path.canonicalize().map_err(|_| refused())?;
    let is_file = std::fs::metadata(&canonical).is_ok_and(|m| m.is_file());
    if !canonical.starts_with(&folder) || !is_file {
        return Err(refused());
    }
    let parse_options = ParseOptions {
        format: format_from_path(&path),
        graph: Some(destination),
        base_iri: Some(source.to_owned()),
        lenient: false,
    };
    let file = std::fs::File::open(&canonical).map_err(|_| refused())?;
    let report = parse_into(
        transaction,
        std::io::BufReader::new(file),
        source,
        &parse_options,
    )?;
    transaction.declare_prefixes(report.prefixes);
    Ok(())
}

/// The local path a `file:` IRI names: `file:///path` or `file://localhost/path`, with its
/// percent escapes decoded; `None` for other schemes and other hosts.
fn local_file_path(source: &str) -> Option<PathBuf> {
    let rest = source.strip_prefix("file://")?;
    let path = if rest.starts_with('/') {
        rest
    } else {
        rest.strip_prefix("localhost")
            .filter(|p| p.starts_with('/'))?
    };
    let path = path.split(['?', '#']).next()?;
    let mut bytes = Vec::with_capacity(path.len());
    let mut rest = path.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        let escaped = (byte == b'%')
            .then(|| tail.get(..2))
            .flatten()
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        match escaped {
            Some(decoded) => {
                bytes.push(decoded);
                rest = &tail[2..];
            }
            None => {
                bytes.push(byte);
                rest = tail;
            }
        }
    }
    String::from_utf8(bytes).ok().map(PathBuf::from)
}

#[cfg(test)]
mod load_path_tests {
    use super::local_file_path;
    use std::path::PathBuf;

    #[test]
    fn file_iris_name_local_paths_only() {
        assert_eq!(
            local_file_path("file:///data/a%20b.nt"),
            Some(PathBuf::from("/data/a b.nt"))
        );
        assert_eq!(
            local_file_path("file://localhost/data/x.ttl"),
            Some(PathBuf::from("/data/x.ttl"))
        );
        assert_eq!(local_file_path("file://host/data/x.ttl"), None);
        assert_eq!(local_file_path("file://localhostile/x"), None);
        assert_eq!(local_file_path("http://example.org/x.ttl"), None);
    }
}
