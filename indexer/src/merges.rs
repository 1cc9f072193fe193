//! The merge of a full build's segments into one, in rounds that each hold a bounded memory.
//!
//! tantivy's merge reads every input segment's term dictionaries whole into memory (the
//! finite-state transducer and the term infos, `TermDictionary::open`), whatever the folder
//! does with the rest of the files. A build leaves a segment per writer heap's worth of
//! documents, and each holds most of the index's words again, so merging them all at once
//! held memory in proportion to the input: 121 segments at 100 M quads, the merge's heap
//! grew by 1.1 GiB. [`BuildMerge`] merges at most [`IndexSettings::merge_memory_bytes`] of
//! term dictionaries at a time, one merge after the other, the smallest segments first, until
//! one segment is left or no two fit in the bound together; a build that fits merges once,
//! as before. Searches move to each round's segments as it ends.
//!
//! [`IndexSettings::merge_memory_bytes`]: crate::IndexSettings::merge_memory_bytes

use crate::generation::Searchable;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tantivy::index::{SegmentComponent, SegmentId, SegmentMeta};
use tantivy::merge_policy::DefaultMergePolicy;
use tantivy::{Index, IndexWriter, TantivyDocument};

/// A committed segment and the bytes of its term dictionaries, what a merge reads into
/// memory for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegmentTerms {
    /// The segment.
    pub id: SegmentId,
    /// Bytes of its `.term` files.
    pub term_bytes: u64,
}

/// The next merge of a round: the smallest segments whose term dictionaries fit in `bound`
/// bytes together, when at least two do.
pub(crate) fn next_merge(segments: &[SegmentTerms], bound: u64) -> Option<Vec<SegmentId>> {
    let mut by_size = segments.to_vec();
    by_size.sort_by_key(|segment| (segment.term_bytes, segment.id));
    let mut held = 0u64;
    let group: Vec<SegmentId> = by_size
        .iter()
        .take_while(|segment| {
            held = held.saturating_add(segment.term_bytes);
            held <= bound
        })
        .map(|segment| segment.id)
        .collect();
    (group.len() >= 2).then_some(group)
}

/// The searchable segments of `index` with their term dictionaries' sizes, read from the
/// folder `root`.
fn segment_terms(index: &Index, root: &Path) -> tantivy::Result<Vec<SegmentTerms>> {
    Ok(index
        .searchable_segment_metas()?
        .iter()
        .map(|meta| SegmentTerms {
            id: meta.id(),
            term_bytes: term_bytes(meta, root),
        })
        .collect())
}

fn term_bytes(meta: &SegmentMeta, root: &Path) -> u64 {
    let terms = meta.relative_path(SegmentComponent::Terms);
    // A file that cannot be read counts as empty: the merge then finds out itself.
    std::fs::metadata(root.join(terms)).map_or(0, |file| file.len())
}

/// Gives the writer in `slot`, if there is one, tantivy's default merge policy again.
pub(crate) fn restore_merge_policy(slot: &Mutex<Option<IndexWriter<TantivyDocument>>>) {
    if let Some(writer) = &*slot.lock().unwrap_or_else(|e| e.into_inner()) {
        writer.set_merge_policy(Box::<DefaultMergePolicy>::default());
    }
}

/// The merges that follow a full build, run on a thread of their own (see the module
/// documentation). The writer keeps tantivy's `NoMergePolicy` of the build until they end,
/// so that no merge of its own runs beside them; the default policy comes back after.
pub(crate) struct BuildMerge {
    pub index: Index,
    pub root: PathBuf,
    pub writer: Arc<Mutex<Option<IndexWriter<TantivyDocument>>>>,
    pub searchable: Arc<Searchable>,
    pub stopping: Arc<AtomicBool>,
    /// Bytes of term dictionaries one merge may read.
    pub bound: u64,
}

impl BuildMerge {
    /// Merges round after round until one segment is left, no two fit in the bound, the
    /// index stops, or a merge fails (a later build or a stopping writer drops it: nothing is
    /// lost, the segments stay as they are).
    pub(crate) fn run(self) {
        let started = Instant::now();
        let mut merges = 0usize;
        let mut merged_segments = 0usize;
        let mut segments_left = 0usize;
        loop {
            if self.stopping.load(Ordering::Acquire) {
                break;
            }
            let segments = match segment_terms(&self.index, &self.root) {
                Ok(segments) => segments,
                Err(error) => {
                    tracing::warn!(%error, "cannot list the text index's segments to merge them");
                    break;
                }
            };
            segments_left = segments.len();
            let Some(group) = next_merge(&segments, self.bound) else {
                break;
            };
            let held: u64 = segments
                .iter()
                .filter(|segment| group.contains(&segment.id))
                .map(|segment| segment.term_bytes)
                .sum();
            let merge = {
                let mut slot = self.writer.lock().unwrap_or_else(|e| e.into_inner());
                match &mut *slot {
                    Some(writer) => writer.merge(&group),
                    None => break,
                }
            };
            let round = Instant::now();
            if let Err(error) = merge.wait() {
                tracing::info!(%error, "text index merge not finished");
                break;
            }
            merges += 1;
            merged_segments += group.len();
            if let Err(error) = self.searchable.reload() {
                tracing::warn!(%error, "cannot open the merged text index");
            }
            tracing::info!(
                segments = group.len(),
                term_megabytes = held >> 20,
                seconds = round.elapsed().as_secs_f64(),
                "text index segments merged"
            );
        }
        restore_merge_policy(&self.writer);
        if merges > 0 {
            tracing::info!(
                merges,
                segments = merged_segments,
                left = segments_left,
                seconds = started.elapsed().as_secs_f64(),
                "text index segments merged"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn segments(sizes: &[u64]) -> Vec<SegmentTerms> {
        sizes
            .iter()
            .map(|&term_bytes| SegmentTerms {
                id: SegmentId::generate_random(),
                term_bytes,
            })
            .collect()
    }

    #[test]
    fn a_build_that_fits_merges_at_once() {
        let all = segments(&[30, 10, 20]);
        let group = next_merge(&all, 60).expect("a merge");
        assert_eq!(group.len(), 3);
    }

    #[test]
    fn the_smallest_go_first_and_the_bound_holds() {
        let all = segments(&[30, 10, 20, 25]);
        let group = next_merge(&all, 40).expect("a merge");
        assert_eq!(group, vec![all[1].id, all[2].id]);
    }

    #[test]
    fn nothing_when_no_two_fit() {
        assert_eq!(next_merge(&segments(&[30, 40]), 60), None);
        assert_eq!(next_merge(&segments(&[30]), 100), None);
        assert_eq!(next_merge(&[], 100), None);
    }

    /// An index of `parts` segments of 200 documents each, no word shared between them, in
    /// the streamed folder, with merging off as after a build.
    fn built(parts: usize) -> (tempfile::TempDir, BuildMerge, tantivy::schema::Field) {
        use crate::folder::IndexFolder;
        use tantivy::merge_policy::NoMergePolicy;
        use tantivy::schema::{Schema, STORED, TEXT};
        let dir = tempfile::tempdir().expect("temporary folder");
        let folder = IndexFolder::open(dir.path()).expect("opened");
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT | STORED);
        let index = Index::create(folder, schema.build(), Default::default()).expect("created");
        let mut writer: IndexWriter<TantivyDocument> = index
            .writer_with_num_threads(1, 15_000_000)
            .expect("writer");
        writer.set_merge_policy(Box::new(NoMergePolicy));
        for part in 0..parts {
            for i in 0..200 {
                let words = format!("p{part}w{i} p{part}v{i} p{part}u{i}");
                writer
                    .add_document(tantivy::doc!(text => words))
                    .expect("added");
            }
            writer.commit().expect("committed");
        }
        let reader = index.reader().expect("reader");
        let merge = BuildMerge {
            root: dir.path().to_path_buf(),
            index,
            writer: Arc::new(Mutex::new(Some(writer))),
            searchable: Arc::new(Searchable::new(reader)),
            stopping: Arc::default(),
            bound: u64::MAX,
        };
        (dir, merge, text)
    }

    fn documents(merge: &BuildMerge) -> u64 {
        merge.searchable.current().searcher().num_docs()
    }

    #[test]
    fn an_unbounded_merge_leaves_one_segment() {
        let (_dir, merge, _) = built(4);
        let (index, root, searchable) = (
            merge.index.clone(),
            merge.root.clone(),
            Arc::clone(&merge.searchable),
        );
        merge.run();
        assert_eq!(segment_terms(&index, &root).expect("listed").len(), 1);
        assert_eq!(searchable.current().searcher().num_docs(), 800);
    }

    #[test]
    fn merges_in_rounds_within_the_bound_and_loses_nothing() {
        let (_dir, mut merge, text) = built(6);
        let before = segment_terms(&merge.index, &merge.root).expect("listed");
        assert_eq!(before.len(), 6);
        let largest = before.iter().map(|s| s.term_bytes).max().expect("segments");
        // Two segments fit together, three do not: three rounds of pairs, then no two fit.
        merge.bound = largest * 5 / 2;
        assert_eq!(documents(&merge), 1_200);
        let (index, root, searchable, writer) = (
            merge.index.clone(),
            merge.root.clone(),
            Arc::clone(&merge.searchable),
            Arc::clone(&merge.writer),
        );
        let bound = merge.bound;
        merge.run();
        let after = segment_terms(&index, &root).expect("listed");
        assert!(after.len() > 1 && after.len() < 6, "{after:?}");
        assert_eq!(
            next_merge(&after, bound),
            None,
            "two segments that fit were left"
        );
        let generation = searchable.current();
        let searcher = generation.searcher();
        assert_eq!(searcher.segment_readers().len(), after.len());
        assert_eq!(searcher.num_docs(), 1_200);
        let word = tantivy::Term::from_field_text(text, "p5w7");
        assert_eq!(searcher.doc_freq(&word).expect("counted"), 1);
        let policy = format!(
            "{:?}",
            writer
                .lock()
                .expect("writer")
                .as_ref()
                .expect("open")
                .get_merge_policy()
        );
        assert!(policy.contains("LogMergePolicy"), "{policy}");
    }

    #[test]
    fn a_stopping_index_does_not_merge() {
        let (_dir, merge, _) = built(3);
        merge.stopping.store(true, Ordering::Release);
        let (index, root) = (merge.index.clone(), merge.root.clone());
        merge.run();
        assert_eq!(segment_terms(&index, &root).expect("listed").len(), 3);
    }

    proptest! {
        /// Merging round after round (a merge's result as large as its inputs, the worst
        /// case) never reads more than the bound at once, ends, and leaves no two segments
        /// that would fit together.
        #[test]
        fn rounds_stay_in_the_bound_and_end(
            sizes in proptest::collection::vec(1u64..1_000, 0..60),
            bound in 1u64..5_000,
        ) {
            let mut all = segments(&sizes);
            let mut rounds = 0;
            while let Some(group) = next_merge(&all, bound) {
                let held: u64 = all.iter().filter(|s| group.contains(&s.id)).map(|s| s.term_bytes).sum();
                prop_assert!(held <= bound);
                prop_assert!(group.len() >= 2);
                all.retain(|s| !group.contains(&s.id));
                all.extend(segments(&[held]));
                rounds += 1;
                prop_assert!(rounds <= sizes.len());
            }
            let mut left: Vec<u64> = all.iter().map(|s| s.term_bytes).collect();
            left.sort_unstable();
            prop_assert!(left.len() < 2 || left[0] + left[1] > bound);
        }
    }
}
