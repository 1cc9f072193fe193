//! `lodestone dump`: the data written out as N-Quads or another syntax.

use super::{open_store_to_read, parse_format};
use crate::cli::DumpArgs;
use anyhow::{bail, Context};
use lodestone_store::load::RdfFormat;
use lodestone_store::model::{GraphName, NamedNode};
use lodestone_store::TermId;
use oxrdfio::RdfSerializer;
use std::io::Write;

/// `lodestone dump`.
pub(super) fn dump(args: DumpArgs) -> anyhow::Result<()> {
    let store = open_store_to_read(&args.data)?;
    let format = match args.format.as_deref() {
        Some(f) => parse_format(f)?,
        None => RdfFormat::NQuads,
    };
    let out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let reader = store.reader();
    let graph = match args.graph.as_deref() {
        None => None,
        Some("default") => Some(TermId::DEFAULT_GRAPH),
        Some(iri) => {
            let node = NamedNode::new(iri).context("--graph is not a valid IRI")?;
            Some(
                reader
                    .term_id(node.as_ref().into())?
                    .with_context(|| format!("no graph {node} in the store"))?,
            )
        }
    };
    if !format.supports_datasets() && graph.is_none() {
        bail!(
            "{} holds one graph only: pass --graph, or use nquads or trig",
            format.name()
        );
    }
    let mut serializer =
        RdfSerializer::from_format(format).for_writer(std::io::BufWriter::new(out));
    for quad in reader.quads_for_pattern(None, None, None, graph) {
        let mut quad = reader.decode_quad(&quad?)?;
        if !format.supports_datasets() {
            quad.graph_name = GraphName::DefaultGraph;
        }
        serializer.serialize_quad(&quad)?;
    }
    serializer.finish()?.flush()?;
    Ok(())
}
