//! Lines added and removed, as `git diff --numstat` counts them: `update`'s computed over the
//! changed stretches only so a small edit to a big file stays cheap, and the Myers count every
//! edit's result reports (`txn` counts its changed regions with it).

use crate::splice::Splice;
use std::time::{Duration, Instant};

/// How long the line diff behind `update`'s `lines_added`/`lines_removed` may search for a
/// minimal diff.
const DIFF_DEADLINE: Duration = Duration::from_millis(200);

/// `line_stat` of the whole files, computed over the changed stretches only: each run of splices
/// widened to whole lines on both sides (the lines between two runs are equal by construction).
/// `splices` are of the file whose body `old` is (after its first `base` bytes, the BOM, which
/// `line_stat` does not count as part of line 1), sorted, and give `new`.
pub(super) fn spliced_stat(
    old: &[u8],
    new: &[u8],
    splices: &[Splice],
    base: usize,
) -> (usize, usize) {
    let line_start = |file: &[u8], at: usize| at == 0 || file[at - 1] == b'\n';
    let (mut added, mut removed) = (0, 0);
    // How much the splices before `next` grew the file.
    let mut shift = 0isize;
    let mut next = 0;
    while next < splices.len() {
        let start = splices[next].range.start - base;
        let from = memchr::memrchr(b'\n', &old[..start]).map_or(0, |at| at + 1);
        let new_from = from.wrapping_add_signed(shift);
        // The stretch ends at the first line start (on both sides) after a splice and before the
        // next one; up to there, the bytes after the splice are the same on both sides.
        let (to, new_to) = loop {
            let splice = &splices[next];
            next += 1;
            shift += splice.text.len() as isize - splice.range.len() as isize;
            let end = splice.range.end - base;
            let new_end = end.wrapping_add_signed(shift);
            if line_start(old, end) && line_start(new, new_end) {
                break (end, new_end);
            }
            let limit = splices
                .get(next)
                .map_or(old.len(), |s| s.range.start - base);
            match memchr::memchr(b'\n', &old[end..limit]) {
                Some(at) => break (end + at + 1, new_end + at + 1),
                None if next == splices.len() => break (old.len(), new.len()),
                None => {}
            }
        };
        let (a, r) = line_stat(&old[from..to], &new[new_from..new_to]);
        added += a;
        removed += r;
    }
    (added, removed)
}

/// Lines added and removed, from a line diff of `old` against `new` (whole lines common to
/// both ends are skipped before diffing the middle).
pub(super) fn line_stat(old: &[u8], new: &[u8]) -> (usize, usize) {
    if old == new {
        return (0, 0);
    }
    let same = common_len(old.iter(), new.iter(), old.len().min(new.len()), |at, n| {
        old[at..at + n] == new[at..at + n]
    });
    let head = old[..same]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let room = (old.len() - head).min(new.len() - head);
    let same = common_len(old.iter().rev(), new.iter().rev(), room, |at, n| {
        old[old.len() - at - n..old.len() - at] == new[new.len() - at - n..new.len() - at]
    });
    // Start the common tail after a newline, so it is whole lines on both sides.
    let line_start = |body: &[u8]| {
        let at = body.len() - same;
        at == head || body[at - 1] == b'\n'
    };
    let tail = if line_start(old) && line_start(new) {
        same
    } else {
        let common = &old[old.len() - same..];
        memchr::memchr(b'\n', common).map_or(0, |i| same - i - 1)
    };
    let old_lines: Vec<&[u8]> = old[head..old.len() - tail]
        .split_inclusive(|&b| b == b'\n')
        .collect();
    let new_lines: Vec<&[u8]> = new[head..new.len() - tail]
        .split_inclusive(|&b| b == b'\n')
        .collect();
    aligned_stat(&old_lines, &new_lines)
}

/// Lines within which a gap between the two sides looks for the lines where they agree again.
const SYNC_WINDOW: usize = 48;

/// Line counts of a diff, walking both sides together: equal lines pass, and at each difference
/// the nearest point where two consecutive lines agree again closes a small gap that is diffed on
/// its own. Line ops change a few lines among thousands of equal ones; one diff over the whole
/// span would hash every line of it. A side with no agreement within the window is diffed whole.
fn aligned_stat(old: &[&[u8]], new: &[&[u8]]) -> (usize, usize) {
    let (mut i, mut j) = (0, 0);
    let (mut added, mut removed) = (0, 0);
    while i < old.len() && j < new.len() {
        if old[i] == new[j] {
            i += 1;
            j += 1;
            continue;
        }
        let Some((a, b)) = resync(old, new, i, j) else {
            break;
        };
        let (gap_added, gap_removed) = myers_stat(&old[i..i + a], &new[j..j + b]);
        added += gap_added;
        removed += gap_removed;
        i += a;
        j += b;
    }
    let (rest_added, rest_removed) = myers_stat(&old[i..], &new[j..]);
    (added + rest_added, removed + rest_removed)
}

/// The nearest offsets `(a, b)` (smallest `a + b`, both within the window) at which two
/// consecutive lines of `old` after `i` and `new` after `j` are equal (or both sides end).
fn resync(old: &[&[u8]], new: &[&[u8]], i: usize, j: usize) -> Option<(usize, usize)> {
    let agrees = |a: usize, b: usize| {
        let (x, y) = (i + a, j + b);
        match (old.get(x), new.get(y)) {
            (None, None) => true,
            (Some(p), Some(q)) => p == q && old.get(x + 1) == new.get(y + 1),
            _ => false,
        }
    };
    (1..=2 * SYNC_WINDOW).find_map(|total| {
        (total.saturating_sub(SYNC_WINDOW)..=total.min(SYNC_WINDOW))
            .map(|a| (a, total - a))
            .find(|&(a, b)| i + a <= old.len() && j + b <= new.len() && agrees(a, b))
    })
}

/// Line counts of a Myers diff (bounded by a deadline, as big diffs can take long).
fn myers_stat(old: &[&[u8]], new: &[&[u8]]) -> (usize, usize) {
    if old.is_empty() || new.is_empty() {
        return (new.len(), old.len());
    }
    myers_counts(old, new, Some(Instant::now() + DIFF_DEADLINE))
}

/// Lines added and removed by a Myers diff of `old` against `new`, bounded by `deadline` when
/// there is one.
pub(super) fn myers_counts(
    old: &[&[u8]],
    new: &[&[u8]],
    deadline: Option<Instant>,
) -> (usize, usize) {
    let ops = similar::capture_diff_slices_deadline(similar::Algorithm::Myers, old, new, deadline);
    let (mut added, mut removed) = (0, 0);
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag != similar::DiffTag::Equal {
            removed += old_range.len();
            added += new_range.len();
        }
    }
    (added, removed)
}

/// How many leading items of `a` and `b` (at most `max`) are equal; `equal(at, n)` compares items
/// `at..at + n` in one go, so long runs are compared a block at a time.
fn common_len<'a>(
    a: impl Iterator<Item = &'a u8>,
    b: impl Iterator<Item = &'a u8>,
    max: usize,
    equal: impl Fn(usize, usize) -> bool,
) -> usize {
    const BLOCK: usize = 64 * 1024;
    let mut known = 0;
    while known + BLOCK <= max && equal(known, BLOCK) {
        known += BLOCK;
    }
    known
        + a.skip(known)
            .zip(b.skip(known))
            .take(max - known)
            .take_while(|(x, y)| x == y)
            .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_stat_counts_like_numstat() {
        assert_eq!(line_stat(b"a\nb\nc\n", b"a\nX\nc\n"), (1, 1));
        assert_eq!(line_stat(b"a\nb", b"a\nb\nc"), (2, 1));
        assert_eq!(line_stat(b"a\nb\n", b"a\nb\n"), (0, 0));
        assert_eq!(line_stat(b"x\nx\nx\n", b"x\nx\n"), (0, 1));
        assert_eq!(line_stat(b"", b"a\n"), (1, 0));
        assert_eq!(line_stat(b"a\r\n", b"a\n"), (1, 1));
        assert_eq!(line_stat(b"ab\n", b"b\n"), (1, 1));
        let big: Vec<u8> = b"0123456789abcde\n".repeat(20_000);
        let mut changed = big.clone();
        changed[100_000] = b'X';
        changed[250_000] = b'Y';
        assert_eq!(line_stat(&big, &changed), (2, 2));
        assert_eq!(line_stat(&big, &big[..big.len() - 16]), (0, 1));
        assert_eq!(line_stat(&big[16..], &big), (1, 0));
        // Many small changes spread over a long file, lines inserted and removed among them.
        let lines: Vec<String> = (0..5000).map(|i| format!("line {i}\n")).collect();
        let mut edited = lines.clone();
        for k in (100..4900).rev().step_by(97) {
            edited[k] = format!("changed {k}\n");
            edited.insert(k + 3, "new\n".into());
            edited.remove(k - 5);
        }
        let (old, new) = (lines.concat(), edited.concat());
        let expected = {
            let o: Vec<&str> = old.split_inclusive('\n').collect();
            let n: Vec<&str> = new.split_inclusive('\n').collect();
            similar::capture_diff_slices(similar::Algorithm::Myers, &o, &n)
                .iter()
                .map(|op| op.as_tag_tuple())
                .filter(|(tag, _, _)| *tag != similar::DiffTag::Equal)
                .fold((0, 0), |(a, r), (_, o, n)| (a + n.len(), r + o.len()))
        };
        assert_eq!(line_stat(old.as_bytes(), new.as_bytes()), expected);
    }
}
