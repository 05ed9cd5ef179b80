//! Large buffers of floats a question needs for a moment — PageRank's ranks and sums, the flows
//! per name, the restart weights — kept for the next question instead of given back. A buffer this
//! large gets a mapping of its own from the allocator (`coderd_core::memory::configure_allocator`),
//! whose pages fault in one by one as they are first written and are unmapped when it is freed:
//! on the machine measured, about 2 µs per 4 KiB, 10 ms for 20 MB. An unsteered question at
//! 200,000 files used about 12 MB of them; a kept buffer is only overwritten.
//!
//! At most `MOST_KEPT` buffers and `MOST_KEPT_BYTES` are kept: what the largest tree's questions
//! use, never more.

use std::sync::{Mutex, PoisonError};

static KEPT: Mutex<Vec<Vec<f64>>> = Mutex::new(Vec::new());

/// How many buffers are kept: what one question takes at once (ranks, the next ranks, the sums per
/// name, the flows per name, the restart weights) and a few more.
const MOST_KEPT: usize = 8;
const MOST_KEPT_BYTES: usize = 64 << 20;
/// Smaller buffers come from the allocator's heap, whose pages are reused anyway.
const SMALLEST_KEPT: usize = (256 << 10) / std::mem::size_of::<f64>();

/// `len` zeros, in a kept buffer when all of them will be written (`whole`): a kept buffer is
/// zeroed whole here, while a fresh one is zeroed by the system page by page as it is first
/// touched, and a walk from a focus file touches few of its pages.
pub fn zeros(len: usize, whole: bool) -> Vec<f64> {
    // Not taken at all otherwise: a kept buffer taken and then dropped would be lost to the pool.
    match whole.then(|| take(len)).flatten() {
        Some(mut kept) => {
            kept.resize(len, 0.0);
            kept
        }
        None => vec![0.0; len],
    }
}

/// A copy of `values`.
pub fn copy(values: &[f64]) -> Vec<f64> {
    let mut copy = take(values.len()).unwrap_or_default();
    copy.extend_from_slice(values);
    copy
}

/// The smallest kept buffer that holds `len` values, emptied; none for a small `len`.
fn take(len: usize) -> Option<Vec<f64>> {
    if len < SMALLEST_KEPT {
        return None;
    }
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    let fits = kept.iter().enumerate().filter(|(_, b)| b.capacity() >= len);
    let (at, _) = fits.min_by_key(|(_, b)| b.capacity())?;
    let mut buffer = kept.swap_remove(at);
    buffer.clear();
    Some(buffer)
}

/// Keeps `buffer` for a later question, in place of a smaller one when the limits are reached.
pub fn give_back(buffer: Vec<f64>) {
    if buffer.capacity() < SMALLEST_KEPT {
        return;
    }
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    kept.push(buffer);
    let bytes = |kept: &[Vec<f64>]| -> usize { kept.iter().map(|b| b.capacity() * 8).sum() };
    while kept.len() > MOST_KEPT || bytes(&kept) > MOST_KEPT_BYTES {
        let smallest = (0..kept.len()).min_by_key(|&i| kept[i].capacity());
        drop(smallest.map(|i| kept.swap_remove(i)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_buffer_comes_back_zeroed_or_copied_and_the_limits_hold() {
        let large = SMALLEST_KEPT * 2;
        let mut dirty = zeros(large, true);
        dirty.iter_mut().for_each(|x| *x = 7.0);
        give_back(dirty);
        // Other tests may take it in between: only what any buffer must be is asserted then.
        let again = zeros(large - 1, true);
        assert_eq!(again.len(), large - 1);
        assert!(again.iter().all(|&x| x == 0.0));
        give_back(again);
        let source: Vec<f64> = (0..large).map(|i| i as f64).collect();
        assert_eq!(copy(&source), source);
        for _ in 0..MOST_KEPT + 4 {
            give_back(Vec::with_capacity(large));
        }
        let kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(kept.len() <= MOST_KEPT);
        assert!(kept.iter().map(|b| b.capacity() * 8).sum::<usize>() <= MOST_KEPT_BYTES);
        assert!(kept.iter().all(|b| b.capacity() >= SMALLEST_KEPT));
    }
}
