//! Entries sorted only as far as they are read. At 200,000 files the unsteered ranking scores
//! ~400,000 items, and a map reads a prefix of them (`render`: the items it shows, then as far as
//! it takes to name the files it lists without their items): the best `first` entries are
//! selected (in linear time) and sorted, and the rest are sorted the first time a read goes past
//! them. Since the order is total (no two entries are equal), what is read is what a full sort
//! gives, however far it is read.

use rayon::prelude::*;
use std::cmp::Ordering;
use std::sync::{Mutex, OnceLock};

/// Past this many entries, they are sorted on all cores (few in the tests, so that they are too).
const SORTED_IN_PARALLEL: usize = if cfg!(test) { 64 } else { 16_384 };

/// `entries` in `order`, which must be total: a parallel unstable sort then gives the one order
/// there is.
pub fn sort<T: Send>(entries: &mut [T], order: fn(&T, &T) -> Ordering) {
    match entries.len() > SORTED_IN_PARALLEL {
        true => entries.par_sort_unstable_by(order),
        false => entries.sort_unstable_by(order),
    }
}

/// Entries in a total order, the first ones sorted at once and the rest when first read.
pub struct PrefixSorted<T> {
    /// The best entries, in order.
    first: Vec<T>,
    /// Every entry, the first ones too, in parts, in no order until a read goes past `first`.
    parts: Mutex<Vec<Vec<T>>>,
    /// Every entry in order, once a read went past `first`.
    sorted: OnceLock<Vec<T>>,
    order: fn(&T, &T) -> Ordering,
}

impl<T: Copy + Send + Sync> PrefixSorted<T> {
    /// The entries of `parts` (each scored on a core, kept as they are: joining them would copy
    /// them all), their best `first` sorted.
    pub fn new(parts: Vec<Vec<T>>, first: usize, order: fn(&T, &T) -> Ordering) -> Self {
        PrefixSorted {
            first: best(&parts, first, order),
            parts: Mutex::new(parts),
            sorted: OnceLock::new(),
            order,
        }
    }

    /// The entries in order: past the first ones, the rest are sorted when the read gets there.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        let rest = std::iter::once_with(|| self.rest().iter().copied()).flatten();
        self.first.iter().copied().chain(rest)
    }

    /// The entries after the first ones, in order: sorted by the first read that gets there.
    fn rest(&self) -> &[T] {
        let sorted = self.sorted.get_or_init(|| {
            let parts = std::mem::take(&mut *self.parts.lock().unwrap_or_else(|e| e.into_inner()));
            let mut all = parts.concat();
            sort(&mut all, self.order);
            all
        });
        &sorted[self.first.len()..]
    }
}

/// Entries sampled to find how good the `k`-th best entry is.
const SAMPLES: usize = if cfg!(test) { 16 } else { 4096 };

/// The best `k` entries of `parts`, sorted. Those better than a threshold are picked out and the
/// best `k` of them sorted: the threshold is a sampled entry about twice `k` entries down, so
/// that they are rarely fewer than `k` (then every entry is searched); either way the answer is
/// exact, only its cost depends on the sample.
fn best<T: Copy + Send + Sync>(
    parts: &[Vec<T>],
    k: usize,
    order: fn(&T, &T) -> Ordering,
) -> Vec<T> {
    let n: usize = parts.iter().map(Vec::len).sum();
    let entries = || parts.iter().flatten();
    let sampled = match k < n {
        true => threshold(entries(), n, k, order),
        false => None,
    };
    let candidates = match sampled {
        Some(t) => parts
            .par_iter()
            .flat_map_iter(|part| part.iter().filter(|e| order(e, &t).is_le()).copied())
            .collect(),
        None => Vec::new(),
    };
    let mut best = match candidates.len() >= k {
        true => candidates,
        false => entries().copied().collect(),
    };
    if k < best.len() {
        best.select_nth_unstable_by(k, order);
        best.truncate(k);
    }
    sort(&mut best, order);
    best
}

/// An entry about `2 k` entries from the best of `n` (`entries`), from every `n / SAMPLES`-th;
/// none when that would be most of them.
fn threshold<'a, T: Copy + 'a>(
    entries: impl Iterator<Item = &'a T>,
    n: usize,
    k: usize,
    order: fn(&T, &T) -> Ordering,
) -> Option<T> {
    let step = n / SAMPLES;
    // Each sample stands for `step` entries.
    let at = k.saturating_mul(2).div_ceil(step.max(1)).saturating_add(1);
    if step == 0 || at >= SAMPLES / 2 {
        return None;
    }
    let mut samples: Vec<T> = entries.step_by(step).copied().collect();
    samples.select_nth_unstable_by(at, order);
    Some(samples[at])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries with many equal keys, told apart by their index: a total order, as the ranking's.
    fn entries(n: usize, seed: u64) -> Vec<(u8, u32)> {
        let mut state = seed;
        (0..n as u32)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                ((state >> 59) as u8, i)
            })
            .collect()
    }

    /// `entries` cut into parts of `size` (some empty).
    fn in_parts(entries: Vec<(u8, u32)>, size: usize) -> Vec<Vec<(u8, u32)>> {
        let mut parts: Vec<Vec<_>> = entries.chunks(size).map(<[_]>::to_vec).collect();
        parts.insert(parts.len() / 2, Vec::new());
        parts
    }

    fn descending_key(a: &(u8, u32), b: &(u8, u32)) -> Ordering {
        b.0.cmp(&a.0).then(a.1.cmp(&b.1))
    }

    #[test]
    fn any_prefix_read_to_any_length_gives_the_full_sorts_order() {
        for n in [0, 1, 5, 63, 64, 65, 300] {
            let mut full = entries(n, n as u64 + 3);
            full.sort_by(descending_key);
            for first in [0, 1, 2, 7, 64, 100, n.saturating_sub(1), n, n + 1] {
                let parts = in_parts(entries(n, n as u64 + 3), first + 3);
                let sorted = PrefixSorted::new(parts, first, descending_key);
                for read in [0, 1, first, first + 1, n / 2, n, n + 5] {
                    let got: Vec<_> = sorted.iter().take(read).collect();
                    assert_eq!(
                        got,
                        full[..read.min(n)],
                        "n {n}, first {first}, read {read}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_rest_is_sorted_only_when_a_read_goes_past_the_first_entries() {
        let sorted = PrefixSorted::new(in_parts(entries(500, 9), 7), 100, descending_key);
        assert_eq!(sorted.iter().take(100).count(), 100);
        assert!(sorted.sorted.get().is_none());
        assert_eq!(sorted.iter().take(101).count(), 101);
        assert!(sorted.sorted.get().is_some());
        assert_eq!(sorted.iter().count(), 500);
    }

    #[test]
    fn a_sample_of_only_the_best_entries_still_gives_the_best_ones() {
        // Every sampled entry (each 18th of 300) is among the best: the threshold they give
        // leaves fewer than asked for, and every entry is searched instead.
        let entries: Vec<(u8, u32)> = (0..300u32)
            .map(|i| (if i % 18 == 0 { 200 } else { (i % 7) as u8 }, i))
            .collect();
        let mut full = entries.clone();
        full.sort_by(descending_key);
        let candidates = threshold(entries.iter(), 300, 7, descending_key).map(|t| {
            entries
                .iter()
                .filter(|e| descending_key(e, &t).is_le())
                .count()
        });
        assert!(candidates.is_some_and(|c| c < 7), "{candidates:?}");
        for first in [1, 7, 20] {
            let sorted = PrefixSorted::new(in_parts(entries.clone(), 50), first, descending_key);
            assert_eq!(sorted.iter().collect::<Vec<_>>(), full);
        }
    }
}
