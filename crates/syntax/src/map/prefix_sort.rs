//! Entries sorted only as far as they are read. At 200,000 files the unsteered ranking scores
//! ~400,000 items, and a map reads a prefix of them (at most its budget over the shortest line,
//! `render`): the best `first` entries are selected (in linear time) and sorted, and the rest are
//! sorted the first time a read goes past them. Since the order is total (no two entries are
//! equal), what is read is what a full sort gives, however far it is read.

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
    /// Every entry, the first ones in order, the rest in none until a read goes past `first`.
    all: Mutex<Vec<T>>,
    /// `all` in order, once read past `first`.
    sorted: OnceLock<Vec<T>>,
    order: fn(&T, &T) -> Ordering,
}

impl<T: Copy + Send> PrefixSorted<T> {
    /// `entries` with their best `first` sorted (all of them when there are no more).
    pub fn new(mut entries: Vec<T>, first: usize, order: fn(&T, &T) -> Ordering) -> Self {
        if first < entries.len() {
            // Only the first `first` need be in order: the rest all come after them.
            if first > 0 {
                entries.select_nth_unstable_by(first, order);
            }
            sort(&mut entries[..first], order);
        } else {
            sort(&mut entries, order);
        }
        PrefixSorted {
            first: entries[..first.min(entries.len())].to_vec(),
            all: Mutex::new(entries),
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
            let mut all = std::mem::take(&mut *self.all.lock().unwrap_or_else(|e| e.into_inner()));
            sort(&mut all[self.first.len()..], self.order);
            all
        });
        &sorted[self.first.len()..]
    }
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

    fn descending_key(a: &(u8, u32), b: &(u8, u32)) -> Ordering {
        b.0.cmp(&a.0).then(a.1.cmp(&b.1))
    }

    #[test]
    fn any_prefix_read_to_any_length_gives_the_full_sorts_order() {
        for n in [0, 1, 5, 63, 64, 65, 300] {
            let mut full = entries(n, n as u64 + 3);
            full.sort_by(descending_key);
            for first in [0, 1, 2, 7, 64, 100, n.saturating_sub(1), n, n + 1] {
                let sorted = PrefixSorted::new(entries(n, n as u64 + 3), first, descending_key);
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
        let sorted = PrefixSorted::new(entries(500, 9), 100, descending_key);
        assert_eq!(sorted.iter().take(100).count(), 100);
        assert!(sorted.sorted.get().is_none());
        assert_eq!(sorted.iter().take(101).count(), 101);
        assert!(sorted.sorted.get().is_some());
        assert_eq!(sorted.iter().count(), 500);
    }
}
