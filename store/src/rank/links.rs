//! The link graph of the entity rank: every IRI→IRI link of the store as compressed sparse
//! rows grouped by source, read from `spog` on every core.

use super::node_set::NodeSet;
use super::{DAMPING, TWO_THREADS_FROM_LINKS};
use crate::database::Database;
use crate::encoding::{EncodedQuad, Permutation, TermId, TermKind};
use crate::error::{CorruptionError, StoreError};
use crate::quads::parts::{self, KeyRange};
use crate::quads::reader::Reader;
use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes of a subject at the start of a `spog` key: the parts of the links' reading are cut
/// there, so that a subject's links are all in one part.
const SUBJECT_BYTES: usize = 8;
/// Quads read between two looks at the stop flag.
const QUADS_PER_STOP_CHECK: u64 = 1 << 20;

/// The link graph as compressed sparse rows grouped by source.
#[derive(Default)]
pub(super) struct LinkGraph {
    /// The IRIs at either end of a link: the nodes.
    pub(super) nodes: NodeSet,
    /// Node number of each source, ascending (dictionary numbers until [`LinkGraph::seal`]).
    pub(super) sources: Vec<u32>,
    /// Where each source's targets start in `targets` (one more entry than `sources`).
    pub(super) starts: Vec<u32>,
    /// Target node numbers (dictionary numbers until [`LinkGraph::seal`]).
    pub(super) targets: Vec<u32>,
}

impl LinkGraph {
    /// Starts the links of a new source, which comes after every source before it.
    pub(super) fn add_source(&mut self, source: TermId) -> Result<(), StoreError> {
        let number = NodeSet::number(source)?;
        self.nodes.insert(number);
        self.sources.push(number);
        self.starts.push(self.link_count()?);
        Ok(())
    }

    /// Adds a link from the last source to `target`.
    pub(super) fn add_target(&mut self, target: TermId) -> Result<(), StoreError> {
        let number = NodeSet::number(target)?;
        self.nodes.insert(number);
        self.targets.push(number);
        Ok(())
    }

    fn link_count(&self) -> Result<u32, StoreError> {
        u32::try_from(self.targets.len())
            .map_err(|_| CorruptionError::msg("more than 2^32 links to rank").into())
    }

    /// Appends the rows of `part`, read from subjects after all of this graph's (before
    /// [`LinkGraph::seal`]).
    pub(super) fn append(&mut self, part: LinkGraph) -> Result<(), StoreError> {
        let offset = self.link_count()?;
        self.sources.extend_from_slice(&part.sources);
        for start in part.starts {
            let start = start
                .checked_add(offset)
                .ok_or_else(|| CorruptionError::msg("more than 2^32 links to rank"))?;
            self.starts.push(start);
        }
        self.targets.extend_from_slice(&part.targets);
        self.nodes.union(part.nodes);
        Ok(())
    }

    /// Ends the reading: the sources and targets get their node numbers, and the rows give
    /// back their spare capacity before the iteration allocates its vectors.
    pub(super) fn seal(&mut self) -> Result<(), StoreError> {
        self.starts.push(self.link_count()?);
        self.nodes.seal();
        for number in self.sources.iter_mut().chain(self.targets.iter_mut()) {
            *number = self
                .nodes
                .node(*number)
                .ok_or_else(|| CorruptionError::msg("a linked IRI missing from the nodes"))?;
        }
        self.sources.shrink_to_fit();
        self.starts.shrink_to_fit();
        self.targets.shrink_to_fit();
        Ok(())
    }

    /// The links of the `i`-th source.
    fn targets_of(&self, i: usize) -> &[u32] {
        &self.targets[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Adds to `into` what the sources numbered `sources` pass on along their links in a round
    /// of the power iteration, from their `scores`.
    pub(super) fn spread(&self, sources: Range<usize>, scores: &[f64], into: &mut [f64]) {
        for i in sources {
            let targets = self.targets_of(i);
            #[allow(clippy::cast_precision_loss)]
            let share = DAMPING * scores[self.sources[i] as usize] / targets.len() as f64;
            for &target in targets {
                into[target as usize] += share;
            }
        }
    }

    pub(super) fn memory_bytes(&self) -> u64 {
        let nodes = self.nodes.len() as u64;
        // Two score vectors and the out-degrees, and the second thread's vector.
        let per_node = if self.targets.len() >= TWO_THREADS_FROM_LINKS {
            28
        } else {
            20
        };
        self.nodes.memory_bytes()
            + nodes * per_node
            + self.sources.len() as u64 * 8
            + self.targets.len() as u64 * 4
    }
}

/// Reads every IRI→IRI link of the reader's snapshot: `spog` cut at subjects into at most
/// `parts` parts (see `quads::parts`) that every core reads at once, the parts' rows then
/// appended in key order.
pub(super) fn read_links(
    database: &Database,
    reader: &Reader<'_>,
    parts: usize,
    stop: &AtomicBool,
) -> Result<Option<ReadLinks>, StoreError> {
    let ranges = parts::key_ranges(database, Permutation::Spog, SUBJECT_BYTES, parts)?;
    let parts = parts::in_parallel(reader, &ranges, "entity-rank", |reader, range| {
        read_part(reader, range, stop)
    })?;
    let Some(parts) = parts.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    ReadLinks::from_parts(parts).map(Some)
}

/// The links of the subjects of one part of `spog`; `None` if `stop` was set meanwhile.
fn read_part(
    reader: &Reader<'_>,
    range: &KeyRange,
    stop: &AtomicBool,
) -> Result<Option<LinkReader>, StoreError> {
    let mut links = LinkReader::default();
    let mut stopped = false;
    parts::scan(reader, Permutation::Spog, range, |quad| {
        if links.quads.is_multiple_of(QUADS_PER_STOP_CHECK) && stop.load(Ordering::Relaxed) {
            stopped = true;
            return ControlFlow::Break(());
        }
        links.visit(&quad)
    })?;
    Ok((!stopped).then_some(links))
}

/// The links of a run of `spog` as it is scanned: the reading of one part, which another
/// pass over `spog` in subject order can do beside its own (the distinct counts' rebuild
/// after a bulk load does, sparing the entity rank a scan of its own).
#[derive(Default)]
pub(crate) struct LinkReader {
    graph: LinkGraph,
    /// Quads seen.
    quads: u64,
    current: Option<TermId>,
    last: Option<(TermId, TermId, TermId)>,
    failed: Option<StoreError>,
}

impl LinkReader {
    /// Takes the next quad in `spog` order; `Break` when the graph can take no more links
    /// (the error comes from [`ReadLinks::from_parts`]).
    pub(crate) fn visit(&mut self, quad: &EncodedQuad) -> ControlFlow<()> {
        self.quads += 1;
        let (s, p, o) = (quad.subject, quad.predicate, quad.object);
        if s.kind() != TermKind::Iri || o.kind() != TermKind::Iri || s == o {
            return ControlFlow::Continue(());
        }
        // SPOG order: the same link in several graphs comes in a row.
        if self.last == Some((s, p, o)) {
            return ControlFlow::Continue(());
        }
        self.last = Some((s, p, o));
        let added = if self.current == Some(s) {
            self.graph.add_target(o)
        } else {
            self.current = Some(s);
            self.graph
                .add_source(s)
                .and_then(|()| self.graph.add_target(o))
        };
        match added {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.failed = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    /// The error that ended the reading, if one did.
    fn check(&mut self) -> Result<(), StoreError> {
        self.failed.take().map_or(Ok(()), Err)
    }
}

/// The link graph of a whole scan of `spog`, sealed, and the quads the scan read.
pub(crate) struct ReadLinks {
    pub(super) graph: LinkGraph,
    pub(super) quads: u64,
}

impl ReadLinks {
    /// Puts together the readings of the parts of a scan cut at subjects, in key order.
    pub(crate) fn from_parts(parts: Vec<LinkReader>) -> Result<Self, StoreError> {
        let mut graph = LinkGraph::default();
        let mut quads = 0;
        for mut part in parts {
            part.check()?;
            quads += part.quads;
            graph.append(part.graph)?;
        }
        graph.seal()?;
        Ok(Self { graph, quads })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The rows of `links`, grouped by source, before the graph is sealed.
    pub(in crate::rank) fn rows_of(links: &[(u64, u64)]) -> LinkGraph {
        let mut graph = LinkGraph::default();
        let mut current = None;
        for &(s, o) in links {
            let s = TermId::new(TermKind::Iri, s);
            if current != Some(s) {
                current = Some(s);
                graph.add_source(s).unwrap();
            }
            graph.add_target(TermId::new(TermKind::Iri, o)).unwrap();
        }
        graph
    }

    /// Links of `sources` sources to a few targets each, spread over `nodes` numbers.
    pub(in crate::rank) fn many_links(sources: u64, nodes: u64) -> Vec<(u64, u64)> {
        let mut links = Vec::new();
        let mut x = 12_345_u64;
        for s in 0..sources {
            for _ in 0..(s % 5) {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let o = (x >> 33) % nodes;
                if o != s {
                    links.push((s, o));
                }
            }
        }
        links.sort_unstable();
        links.dedup();
        links
    }

    #[test]
    fn rows_appended_part_by_part_are_the_rows_of_the_whole() {
        let links = many_links(1_000, 3_000);
        let mut whole = rows_of(&links);
        whole.seal().unwrap();
        let cut = links.partition_point(|&(s, _)| s < 400);
        let mut appended = rows_of(&links[..cut]);
        appended.append(rows_of(&links[cut..])).unwrap();
        appended.seal().unwrap();
        assert_eq!(appended.sources, whole.sources);
        assert_eq!(appended.starts, whole.starts);
        assert_eq!(appended.targets, whole.targets);
        assert_eq!(appended.nodes.len(), whole.nodes.len());
    }

    #[test]
    fn links_read_in_parts_are_those_of_one_scan() {
        let mut text = String::new();
        for (s, o) in many_links(400, 600) {
            text.push_str(&format!("<http://e/n{s}> <http://e/p> <http://e/n{o}> .\n"));
            text.push_str(&format!(
                "<http://e/n{s}> <http://e/p> <http://e/n{o}> <http://e/g> .\n"
            ));
            text.push_str(&format!("<http://e/n{s}> <http://e/name> \"{s}\" .\n"));
        }
        text.push_str(
            "<http://e/n7> <http://e/p> <http://e/n7> .\n_:b <http://e/p> <http://e/n7> .\n",
        );
        let (_dir, database) = crate::quads::parts::tests::loaded(&text);
        let reader = Reader::new(&database, None);
        let stop = AtomicBool::new(false);
        let one = read_links(&database, &reader, 1, &stop).unwrap().unwrap();
        let four = read_links(&database, &reader, 4, &stop).unwrap().unwrap();
        let (whole, parts) = (&one.graph, &four.graph);
        assert_eq!(
            parts::key_ranges(&database, Permutation::Spog, SUBJECT_BYTES, 4)
                .unwrap()
                .len(),
            4
        );
        assert_eq!(parts.sources, whole.sources);
        assert_eq!(parts.starts, whole.starts);
        assert_eq!(parts.targets, whole.targets);
        assert_eq!(four.quads, one.quads);
        assert_eq!(parts.nodes.len(), whole.nodes.len());
        assert_eq!(whole.targets.len(), many_links(400, 600).len());
    }
}
