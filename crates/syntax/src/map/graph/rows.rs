//! Rows of a flat per-file layout (`start[f]..start[f + 1]` of one array per file) replaced after
//! an edit. A few files change and the arrays hold millions of values: a row of the same length is
//! written in its place, a few rows of other lengths are spliced in (the values after them moved
//! once, the starts shifted in one pass), and only past `MOST_SPLICED` is the layout copied anew.
//! Copying it into fresh memory costs its page faults too, which is most of a patch's time.

use super::PerFile;

/// Past this many rows changing length, one copy of the whole layout costs less than a splice each.
const MOST_SPLICED: usize = 8;

/// How the rows' lengths change: per replaced row (in `rows` order) its new length less its old.
pub struct Resized {
    deltas: Vec<isize>,
    spliced: usize,
}

impl Resized {
    /// The length changes of `rows` (sorted) of layout `start` when they become `lengths`.
    pub fn of(start: &[usize], rows: &[usize], lengths: impl Iterator<Item = usize>) -> Resized {
        let deltas: Vec<isize> = rows
            .iter()
            .zip(lengths)
            .map(|(&f, len)| len as isize - (start[f + 1] - start[f]) as isize)
            .collect();
        let spliced = deltas.iter().filter(|&&d| d != 0).count();
        Resized { deltas, spliced }
    }

    /// Whether replacing in place costs less than copying the layout.
    pub fn in_place(&self) -> bool {
        self.spliced <= MOST_SPLICED
    }

    /// The starts moved by the rows' length changes (after their data was replaced in place).
    pub fn shift_starts(&self, start: &mut [usize], rows: &[usize]) {
        let Some(first) = self.deltas.iter().position(|&d| d != 0) else {
            return;
        };
        let mut shift = 0isize;
        let mut k = first;
        for (i, s) in start.iter_mut().enumerate().skip(rows[first] + 1) {
            while k < rows.len() && rows[k] < i {
                shift += self.deltas[k];
                k += 1;
            }
            *s = (*s as isize + shift) as usize;
        }
    }
}

/// The `rows` (sorted) of `data`, laid out by `start` (not yet shifted), replaced by `fresh` in
/// place: the last row first, so that the earlier rows' starts still hold.
pub fn replace_in_place<T: Copy>(
    start: &[usize],
    data: &mut Vec<T>,
    rows: &[usize],
    fresh: &[&[T]],
) {
    for (&f, &new) in rows.iter().zip(fresh).rev() {
        let range = start[f]..start[f + 1];
        match range.len() == new.len() {
            true => data[range].copy_from_slice(new),
            false => {
                data.splice(range, new.iter().copied());
            }
        }
    }
}

/// Appends the kept `rows` of a row layout (`old_start[r]..old_start[r + 1]` of `old` for row
/// `r`) to `start` and `data`, their starts shifted to where they land.
pub fn keep_rows<T: Clone>(
    old_start: &[usize],
    old: &[T],
    rows: std::ops::Range<usize>,
    start: &mut Vec<usize>,
    data: &mut Vec<T>,
) {
    let shift = data.len() as isize - old_start[rows.start] as isize;
    let starts = old_start[rows.clone()].iter();
    start.extend(starts.map(|&s| (s as isize + shift) as usize));
    data.extend_from_slice(&old[old_start[rows.start]..old_start[rows.end]]);
}

/// A layout's `rows` (sorted) replaced by `fresh` in a copy: the rows between two replaced ones
/// in one copy each. Returns the new starts and data.
pub fn replaced_copy<T: Copy>(
    old_start: &[usize],
    old: &[T],
    rows: &[usize],
    fresh: &[&[T]],
) -> (Vec<usize>, Vec<T>) {
    let n = old_start.len() - 1;
    let (mut start, mut data) = (Vec::with_capacity(n + 1), Vec::with_capacity(old.len()));
    let mut from = 0;
    for (&f, &run) in rows.iter().zip(fresh) {
        keep_rows(old_start, old, from..f, &mut start, &mut data);
        start.push(data.len());
        data.extend_from_slice(run);
        from = f + 1;
    }
    keep_rows(old_start, old, from..n, &mut start, &mut data);
    start.push(data.len());
    (start, data)
}

impl<T: Copy> PerFile<T> {
    /// The runs of the `changed` files (sorted) replaced by `fresh`, in order; the others kept.
    pub(super) fn replace(&mut self, changed: &[usize], fresh: Vec<Vec<T>>) {
        let fresh: Vec<&[T]> = fresh.iter().map(|run| &run[..]).collect();
        let resized = Resized::of(&self.start, changed, fresh.iter().map(|r| r.len()));
        if resized.in_place() {
            replace_in_place(&self.start, &mut self.data, changed, &fresh);
            resized.shift_starts(&mut self.start, changed);
        } else {
            (self.start, self.data) = replaced_copy(&self.start, &self.data, changed, &fresh);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows replaced in place and in a copy give the same layout, for every mix of lengths.
    #[test]
    fn rows_replaced_in_place_are_the_copy() {
        let rows: Vec<Vec<u32>> = (0..40)
            .map(|f| (0..f % 5).map(|v| f * 10 + v).collect())
            .collect();
        let layout = PerFile::collect(rows.iter().map(|r| r.iter().copied()));
        let fresh_of = |f: usize, salt: usize| -> Vec<u32> {
            (0..(f + salt) % 4).map(|v| 1000 + v as u32).collect()
        };
        for salt in 0..6 {
            for changed in [
                vec![0],
                vec![39],
                vec![3, 4, 5],
                (0..40).step_by(3).collect(),
                (0..40).collect(),
            ] {
                let fresh: Vec<Vec<u32>> = changed.iter().map(|&f| fresh_of(f, salt)).collect();
                let mut patched = PerFile {
                    start: layout.start.clone(),
                    data: layout.data.clone(),
                };
                patched.replace(&changed, fresh.clone());
                let mut expected = rows.clone();
                for (&f, run) in changed.iter().zip(&fresh) {
                    expected[f] = run.clone();
                }
                let rebuilt = PerFile::collect(expected.iter().map(|r| r.iter().copied()));
                assert!(patched == rebuilt, "salt {salt}, changed {changed:?}");
            }
        }
    }
}
