//! Sorting many byte-string keys that share long prefixes, as a chunk's `iri_index` keys do
//! (every IRI of a dataset under the same few namespaces).
//!
//! A comparison sort of such keys follows a pointer and compares the shared prefix again at
//! every comparison. Here each run of keys known to agree up to some depth skips the prefix
//! they all share, then is sorted by the next sixteen bytes as an integer, held beside the key's
//! index; only the keys that agree on those sixteen bytes as well go on to the next depth.

use crate::encoding::prefix_number;

/// Keys at most this many are sorted by comparing them whole.
const SMALL_RUN: usize = 24;

/// Sorts `keys` in byte order, as `keys.sort_unstable()` would.
pub(super) fn sort_keys(keys: &mut Vec<Vec<u8>>) {
    if keys.len() <= SMALL_RUN {
        keys.sort_unstable();
        return;
    }
    let Ok(count) = u32::try_from(keys.len()) else {
        keys.sort_unstable();
        return;
    };
    let mut order: Vec<u32> = (0..count).collect();
    let mut words = Vec::new();
    sort_run(keys, &mut order, 0, &mut words);
    let mut sorted = Vec::with_capacity(keys.len());
    for index in order {
        sorted.push(std::mem::take(&mut keys[index as usize]));
    }
    *keys = sorted;
}

/// A key's next sixteen bytes from some depth, as a big-endian integer (zeros past its end),
/// and how many bytes it has from that depth (up to seventeen: more than the word holds).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Word {
    bytes: u128,
    left: u8,
    index: u32,
}

/// Sorts `order` (indexes of keys that agree on their first `depth` bytes) by the keys'
/// bytes, a run at a time; the runs still to sort are kept on a list rather than the stack, so
/// that keys sharing thousands of bytes cannot exhaust it.
fn sort_run(keys: &[Vec<u8>], order: &mut [u32], depth: usize, words: &mut Vec<Word>) {
    let mut runs = vec![(0..order.len(), depth)];
    while let Some((range, depth)) = runs.pop() {
        let run = &mut order[range.clone()];
        if run.len() <= SMALL_RUN {
            run.sort_unstable_by(|&a, &b| tail(keys, a, depth).cmp(tail(keys, b, depth)));
            continue;
        }
        let depth = depth + shared_prefix(keys, run, depth);
        words.clear();
        words.extend(
            run.iter()
                .map(|&index| word(tail(keys, index, depth), index)),
        );
        words.sort_unstable();
        for (slot, word) in run.iter_mut().zip(words.iter()) {
            *slot = word.index;
        }
        // Keys with the same sixteen bytes and more after them go on sixteen bytes deeper.
        let mut start = 0;
        while start < words.len() {
            let first = words[start];
            let end = start
                + words[start..]
                    .iter()
                    .take_while(|w| w.bytes == first.bytes && w.left == first.left)
                    .count();
            if first.left > 16 && end - start > 1 {
                runs.push((range.start + start..range.start + end, depth + 16));
            }
            start = end;
        }
    }
}

fn tail(keys: &[Vec<u8>], index: u32, depth: usize) -> &[u8] {
    keys[index as usize].get(depth..).unwrap_or_default()
}

/// How many bytes after `depth` every key of `run` shares with the first.
fn shared_prefix(keys: &[Vec<u8>], run: &[u32], depth: usize) -> usize {
    let Some((&first, rest)) = run.split_first() else {
        return 0;
    };
    let first = tail(keys, first, depth);
    rest.iter().fold(first.len(), |shared, &index| {
        let other = tail(keys, index, depth);
        first[..shared]
            .iter()
            .zip(other)
            .take_while(|(a, b)| a == b)
            .count()
    })
}

fn word(tail: &[u8], index: u32) -> Word {
    Word {
        bytes: prefix_number(tail),
        left: u8::try_from(tail.len().min(17)).unwrap_or(17),
        index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted_both_ways(keys: Vec<Vec<u8>>) {
        let mut expected = keys.clone();
        expected.sort_unstable();
        let mut sorted = keys;
        sort_keys(&mut sorted);
        assert_eq!(sorted, expected);
    }

    #[test]
    fn iris_under_one_namespace_with_ids() {
        let keys = (0..5_000u64)
            .map(|i| {
                let n = i.wrapping_mul(2_654_435_761) % 1_000;
                let mut key = format!(
                    "Ihttp://example.org/ns/dataFromProducer{}/Product{n}",
                    n % 7
                )
                .into_bytes();
                key.extend_from_slice(&i.to_be_bytes());
                key
            })
            .collect();
        sorted_both_ways(keys);
    }

    #[test]
    fn keys_that_are_prefixes_of_others_and_zero_bytes() {
        let keys = (0..200u8)
            .flat_map(|i| {
                let mut long = vec![b'x'; usize::from(i % 20)];
                long.extend(std::iter::repeat_n(0, usize::from(i % 11)));
                [long.clone(), long[..long.len() / 2].to_vec(), Vec::new()]
            })
            .collect();
        sorted_both_ways(keys);
    }

    #[test]
    fn keys_that_branch_one_at_a_time_deeper_and_deeper() {
        // Each key shares all but its last byte with the next: a thousand runs, one inside the
        // other.
        let keys = (0..1_000)
            .rev()
            .map(|i| [vec![b'a'; 17 * i], vec![b'b']].concat())
            .collect();
        sorted_both_ways(keys);
    }

    proptest! {
        #[test]
        fn sorts_as_a_comparison_sort_does(
            keys in proptest::collection::vec(
                proptest::collection::vec(prop_oneof![Just(0u8), Just(1u8), Just(b'a'), any::<u8>()], 0..40),
                0..300,
            ),
            prefix in proptest::collection::vec(any::<u8>(), 0..20),
        ) {
            // A shared prefix on most keys, as namespaces give.
            let keys = keys
                .into_iter()
                .enumerate()
                .map(|(i, key)| if i % 5 == 0 { key } else { [prefix.clone(), key].concat() })
                .collect();
            sorted_both_ways(keys);
        }
    }
}
