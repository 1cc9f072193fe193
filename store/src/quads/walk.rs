//! One forward pass over the quads of many terms at once.
//!
//! Reading the quads of each of a large sorted set of terms with a fresh seek per term costs a
//! seek each (a few microseconds in a merging iterator), although the terms' keys often lie
//! next to each other in the index (the instances of a class get neighbouring ids when they
//! are loaded together). [`Reader::walk_terms`] keeps one iterator and moves it forward:
//! to the next term's keys by stepping while they are near (at most [`STEPS_BEFORE_SEEK`]
//! steps) and by a seek only past a longer gap, so that a set of terms whose keys are
//! contiguous costs one seek in all.
//!
//! Invariant: the quads visited are exactly those a [`Reader::quads_for_pattern`] per term
//! would give (in the same order), except for the ones the visitor asks to skip.

use crate::encoding::{EncodedQuad, Permutation, TermId};
use crate::error::{CorruptionError, StoreError};
use crate::quads::reader::{prefix_upper_bound, Reader};
use rocksdb::DBRawIterator;

/// Keys stepped over in sequence before a seek is used instead (a seek costs about as much
/// as reading this many keys in sequence).
pub(crate) const STEPS_BEFORE_SEEK: usize = 16;

/// Which position of the quads the walked terms fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lead {
    /// Subjects: quads are visited in subject, predicate, object, graph order.
    Subject,
    /// Objects: quads are visited in object, subject, predicate, graph order.
    Object,
}

impl Lead {
    fn permutation(self) -> Permutation {
        match self {
            Lead::Subject => Permutation::Spog,
            Lead::Object => Permutation::Ospg,
        }
    }
}

/// What the walk meets: a term it is about to look for (so that a visitor can count steps and
/// stop on time even where terms have no quads), or one quad of a term.
#[derive(Debug, Clone, Copy)]
pub enum Walked<'q> {
    /// The walk looks for the quads of this term next.
    Term(TermId),
    /// A quad of the current term.
    Quad(&'q EncodedQuad),
}

/// What the walk does next, as the visitor asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on to the next quad.
    Continue,
    /// Skip the remaining quads that share this quad's first two ids in the walk's order
    /// (the same subject and predicate when leading with subjects, the same object and
    /// subject when leading with objects).
    SkipPair,
    /// Skip the remaining quads of the current term.
    NextTerm,
    /// Stop the walk.
    Stop,
}

impl<'a> Reader<'a> {
    /// Visits the quads of every term of `sorted` (ascending ids; a repeated id is visited
    /// once) at the `lead` position, term after term, in index order, with one forward-moving
    /// iterator. The visitor is told each term the walk looks for before its quads (terms
    /// the iterator has already passed, having no quads, are skipped silently) and steers
    /// the walk with its answers; to a [`Walked::Term`] anything but [`Step::Stop`] means
    /// go on.
    ///
    /// Readers with uncommitted changes on top fall back to one pattern scan per term.
    pub fn walk_terms(
        &self,
        lead: Lead,
        sorted: &[TermId],
        mut visit: impl FnMut(Walked<'_>) -> Step,
    ) -> Result<(), StoreError> {
        if self.overlay().is_some() {
            return self.walk_by_patterns(lead, sorted, visit);
        }
        let permutation = lead.permutation();
        let (slot, mut iter) = self.take_iterator(permutation, true);
        let result = walk_base(&mut iter, permutation, sorted, &mut visit);
        self.give_back(slot, iter);
        result
    }

    /// The same walk split into consecutive parts of `sorted`, one per visitor, walked at the
    /// same time on scoped threads (the first part on the calling thread), each with its own
    /// iterator on this reader's snapshot. A run of equal ids is never split between two
    /// parts, so each term is visited by one visitor only. Readers with uncommitted changes
    /// walk the parts one after the other.
    pub fn walk_terms_in_parts<V>(
        &self,
        lead: Lead,
        sorted: &[TermId],
        visitors: &mut [V],
    ) -> Result<(), StoreError>
    where
        V: FnMut(Walked<'_>) -> Step + Send,
    {
        let parts = split(sorted, visitors.len());
        if self.overlay().is_some() {
            for (part, visit) in parts.into_iter().zip(visitors.iter_mut()) {
                self.walk_by_patterns(lead, part, visit)?;
            }
            return Ok(());
        }
        let permutation = lead.permutation();
        let mut iterators: Vec<(usize, DBRawIterator<'a>)> = parts
            .iter()
            .map(|_| self.take_iterator(permutation, true))
            .collect();
        let results: Vec<Result<(), StoreError>> = std::thread::scope(|scope| {
            let mut jobs = parts
                .into_iter()
                .zip(visitors.iter_mut())
                .zip(iterators.iter_mut().map(|(_, iter)| iter));
            let first = jobs.next();
            let handles: Vec<_> = jobs
                .map(|((part, visit), iter)| {
                    scope.spawn(move || walk_base(iter, permutation, part, visit))
                })
                .collect();
            let mut results = Vec::with_capacity(handles.len() + 1);
            if let Some(((part, visit), iter)) = first {
                results.push(walk_base(iter, permutation, part, visit));
            }
            for handle in handles {
                match handle.join() {
                    Ok(result) => results.push(result),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            results
        });
        for (slot, iter) in iterators.drain(..) {
            self.give_back(slot, iter);
        }
        results.into_iter().collect()
    }

    /// The same visits with one [`Reader::quads_for_pattern`] per term.
    fn walk_by_patterns(
        &self,
        lead: Lead,
        sorted: &[TermId],
        mut visit: impl FnMut(Walked<'_>) -> Step,
    ) -> Result<(), StoreError> {
        let mut previous = None;
        for term in sorted.iter().copied() {
            if previous == Some(term) {
                continue;
            }
            previous = Some(term);
            if visit(Walked::Term(term)) == Step::Stop {
                return Ok(());
            }
            let quads = match lead {
                Lead::Subject => self.quads_for_pattern(Some(term), None, None, None),
                Lead::Object => self.quads_for_pattern(None, None, Some(term), None),
            };
            let mut skipped: Option<[u8; 16]> = None;
            for quad in quads {
                let quad = quad?;
                let key = lead.permutation().key(&quad);
                let pair = first_bytes::<16>(&key)?;
                if skipped == Some(pair) {
                    continue;
                }
                match visit(Walked::Quad(&quad)) {
                    Step::Continue => {}
                    Step::SkipPair => skipped = Some(pair),
                    Step::NextTerm => break,
                    Step::Stop => return Ok(()),
                }
            }
        }
        Ok(())
    }
}

/// `sorted` cut into `parts` consecutive slices of about the same length (some empty when
/// there are fewer terms than parts), never between two equal ids.
fn split(sorted: &[TermId], parts: usize) -> Vec<&[TermId]> {
    let mut out = Vec::with_capacity(parts);
    let mut rest = sorted;
    for left in (1..=parts).rev() {
        let mut at = rest.len() / left;
        while at > 0 && at < rest.len() && rest[at - 1] == rest[at] {
            at += 1;
        }
        let (head, tail) = rest.split_at(at);
        out.push(head);
        rest = tail;
    }
    out
}

/// The walk over the committed index with one iterator.
fn walk_base(
    iter: &mut DBRawIterator<'_>,
    permutation: Permutation,
    sorted: &[TermId],
    visit: &mut impl FnMut(Walked<'_>) -> Step,
) -> Result<(), StoreError> {
    let mut next = 0;
    let mut positioned = false;
    while let Some(&target) = sorted.get(next) {
        if visit(Walked::Term(target)) == Step::Stop {
            return Ok(());
        }
        let target_bytes = target.to_be_bytes();
        if positioned {
            advance_to(iter, &target_bytes);
        } else {
            iter.seek(target_bytes);
            positioned = true;
        }
        let Some(key) = iter.key() else {
            // The index ends before the target: no later term has quads either.
            iter.status()?;
            return Ok(());
        };
        let lead = lead_id(key)?;
        if lead != target {
            // The iterator is past the target: skip every term it is past as well.
            next += sorted[next..].partition_point(|t| *t < lead);
            continue;
        }
        if !visit_run(iter, permutation, &target_bytes, visit)? {
            return Ok(());
        }
        iter.status()?;
        next += sorted[next..].partition_point(|t| *t <= target);
    }
    Ok(())
}

/// Visits the quads of the term whose keys start with `term` (the iterator is on its first
/// key) and leaves the iterator after them. `false` when the visitor stopped the walk.
fn visit_run(
    iter: &mut DBRawIterator<'_>,
    permutation: Permutation,
    term: &[u8; 8],
    visit: &mut impl FnMut(Walked<'_>) -> Step,
) -> Result<bool, StoreError> {
    while let Some(key) = iter.key() {
        if !key.starts_with(term) {
            return Ok(true);
        }
        let quad = permutation
            .decode(key)
            .ok_or_else(|| CorruptionError::msg("malformed quad key"))?;
        match visit(Walked::Quad(&quad)) {
            Step::Continue => iter.next(),
            Step::SkipPair => {
                let pair = first_bytes::<16>(key)?;
                skip_prefix(iter, &pair);
            }
            Step::NextTerm => skip_prefix(iter, term),
            Step::Stop => return Ok(false),
        }
    }
    Ok(true)
}

/// Moves forward to the first key at or after `target`: steps while the keys are near, then
/// seeks.
pub(crate) fn advance_to(iter: &mut DBRawIterator<'_>, target: &[u8; 8]) {
    for _ in 0..STEPS_BEFORE_SEEK {
        match iter.key() {
            Some(key) if key < target.as_slice() => iter.next(),
            _ => return,
        }
    }
    if iter.key().is_some_and(|key| key < target.as_slice()) {
        iter.seek(target);
    }
}

/// Moves past every key starting with `prefix`: steps while they are few, then seeks.
fn skip_prefix(iter: &mut DBRawIterator<'_>, prefix: &[u8]) {
    for _ in 0..STEPS_BEFORE_SEEK {
        match iter.key() {
            Some(key) if key.starts_with(prefix) => iter.next(),
            _ => return,
        }
    }
    if iter.key().is_some_and(|key| key.starts_with(prefix)) {
        match prefix_upper_bound(prefix) {
            Some(bound) => iter.seek(bound),
            None => {
                iter.seek_to_last();
                iter.next();
            }
        }
    }
}

/// The first id of a key.
fn lead_id(key: &[u8]) -> Result<TermId, StoreError> {
    Ok(TermId::from_be_bytes(first_bytes::<8>(key)?))
}

/// The first `N` bytes of a key.
fn first_bytes<const N: usize>(key: &[u8]) -> Result<[u8; N], StoreError> {
    key.get(..N)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| CorruptionError::msg("quad key too short").into())
}

#[cfg(test)]
mod tests {
    use super::split;
    use crate::encoding::TermId;

    fn ids(raw: &[u64]) -> Vec<TermId> {
        raw.iter()
            .map(|n| TermId::from_be_bytes(n.to_be_bytes()))
            .collect()
    }

    #[test]
    fn parts_cover_the_terms_in_order_without_splitting_equal_ids() {
        for (raw, parts) in [
            (vec![1, 2, 3, 4, 5, 6, 7], 2),
            (vec![1, 2, 3, 3, 3, 3, 4], 2),
            (vec![5, 5, 5, 5], 3),
            (vec![1, 2], 4),
            (vec![], 2),
        ] {
            let sorted = ids(&raw);
            let cut = split(&sorted, parts);
            assert_eq!(cut.len(), parts);
            assert_eq!(cut.concat(), sorted);
            for pair in cut.windows(2) {
                if let (Some(last), Some(first)) = (pair[0].last(), pair[1].first()) {
                    assert_ne!(last, first, "{raw:?} in {parts}");
                }
            }
        }
        // Halves when nothing stands in the way.
        assert_eq!(
            split(&ids(&[1, 2, 3, 4]), 2),
            vec![ids(&[1, 2]), ids(&[3, 4])]
        );
    }
}
