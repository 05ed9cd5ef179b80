//! A planned change to one file's bytes: byte ranges of the original replaced by new bytes.
//! Every edit method locates its change first (in the text, however loosely it matched) and then
//! splices the original bytes, so every byte outside the replaced ranges stays identical.

use std::ops::Range;

/// One replacement: `range` of the original bytes becomes `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    pub range: Range<usize>,
    pub text: Vec<u8>,
}

impl Splice {
    pub fn new(range: Range<usize>, text: impl Into<Vec<u8>>) -> Self {
        Splice {
            range,
            text: text.into(),
        }
    }
}

/// Applies splices to `original`. They must not overlap; their order does not matter.
/// Panics on overlapping or out-of-range splices: planners guarantee both.
pub fn apply(original: &[u8], splices: &[Splice]) -> Vec<u8> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.range.start, s.range.end));
    let grown: usize = splices.iter().map(|s| s.text.len()).sum();
    let mut out = spare::take(original.len() + grown);
    let mut at = 0;
    for splice in sorted {
        assert!(
            splice.range.start >= at && splice.range.end <= original.len(),
            "overlapping or out-of-range splice {:?}",
            splice.range
        );
        out.extend_from_slice(&original[at..splice.range.start]);
        out.extend_from_slice(&splice.text);
        at = splice.range.end;
    }
    out.extend_from_slice(&original[at..]);
    out
}

/// The splices of the original that turn it into `result`, the text that applying `first` to the
/// original and then `second` to that gives. Both lists sorted and non-overlapping, as `apply`
/// leaves them. A splice of `second` that touches text `first` wrote (or is next to it) becomes
/// one splice with it, so every splice returned is a range of the original and its final bytes.
pub fn compose(first: &[Splice], second: &[Splice], result: &[u8]) -> Vec<Splice> {
    /// A splice's range in the intermediate text and how much it grew each pass's output.
    struct Span {
        range: Range<usize>,
        grew_first: isize,
        grew_second: isize,
    }
    let grew = |s: &Splice| s.text.len() as isize - s.range.len() as isize;
    let mut spans = Vec::with_capacity(first.len() + second.len());
    let mut shift = 0isize;
    for s in first {
        let start = s.range.start.wrapping_add_signed(shift);
        spans.push(Span {
            range: start..start + s.text.len(),
            grew_first: grew(s),
            grew_second: 0,
        });
        shift += grew(s);
    }
    spans.extend(second.iter().map(|s| Span {
        range: s.range.clone(),
        grew_first: 0,
        grew_second: grew(s),
    }));
    spans.sort_by_key(|s| (s.range.start, s.range.end));
    // Growth of the splices before the current group, in the first and the second output.
    let (mut before_first, mut before_second) = (0isize, 0isize);
    let mut composed = Vec::new();
    let mut next = spans.iter().peekable();
    while let Some(span) = next.next() {
        let start = span.range.start;
        let mut end = span.range.end;
        let (mut grew_first, mut grew_second) = (span.grew_first, span.grew_second);
        while let Some(joining) = next.next_if(|s| s.range.start <= end) {
            end = end.max(joining.range.end);
            grew_first += joining.grew_first;
            grew_second += joining.grew_second;
        }
        let old = start.wrapping_add_signed(-before_first)
            ..end.wrapping_add_signed(-before_first - grew_first);
        let new = start.wrapping_add_signed(before_second)
            ..end.wrapping_add_signed(before_second + grew_second);
        composed.push(Splice::new(old, &result[new]));
        before_first += grew_first;
        before_second += grew_second;
    }
    composed
}

/// One spare buffer for the next edit's new content. An edit of a large file allocates a buffer
/// the size of the file; a fresh one is a new mapping whose pages all fault in (and are unmapped
/// again when the edit before it is freed), which costs a large part of an edit of a 400 KB file.
/// The content an edit replaced is handed back here instead, so the next edit writes into pages
/// that are already there.
pub mod spare {
    use std::sync::Mutex;

    /// Larger buffers are not kept (the memory budget is for documents, not for spares).
    const MAX_SPARE_BYTES: usize = 16 * 1024 * 1024;
    static SPARE: Mutex<Option<Vec<u8>>> = Mutex::new(None);

    /// An empty buffer with room for `len` bytes: the spare one when it is there.
    pub fn take(len: usize) -> Vec<u8> {
        let spare = SPARE.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut buffer = spare.unwrap_or_default();
        buffer.clear();
        buffer.reserve(len);
        buffer
    }

    /// Keeps a buffer nothing uses any more as the spare (the larger of it and the current one).
    pub fn give(buffer: Vec<u8>) {
        if buffer.capacity() > MAX_SPARE_BYTES {
            return;
        }
        let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
        if spare
            .as_ref()
            .is_none_or(|s| s.capacity() < buffer.capacity())
        {
            *spare = Some(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splices_keep_every_other_byte() {
        let original = b"a\r\nb\nc\r\n";
        let out = apply(
            original,
            &[
                Splice::new(3..5, b"B\n".to_vec()),
                Splice::new(0..0, b">".to_vec()),
            ],
        );
        assert_eq!(out, b">a\r\nB\nc\r\n");
    }

    /// `compose(first, second)` on the original gives what `first` then `second` give.
    fn composes(original: &[u8], first: &[Splice], second: &[Splice]) -> Vec<Splice> {
        let middle = apply(original, first);
        let result = apply(&middle, second);
        let composed = compose(first, second, &result);
        assert_eq!(apply(original, &composed), result);
        composed
    }

    #[test]
    fn composed_splices_give_the_same_bytes() {
        let original = b"0123456789abcdef";
        // Apart: each stays a splice of its own, shifted back into the original's offsets.
        let apart = composes(
            original,
            &[
                Splice::new(2..4, b"XYZ".to_vec()),
                Splice::new(10..10, b"+".to_vec()),
            ],
            &[
                Splice::new(0..1, b"".to_vec()),
                Splice::new(13..15, b"__".to_vec()),
            ],
        );
        assert_eq!(apart.len(), 4);
        assert_eq!(apart[3].range, 11..13);
        // The second pass edits inside and across what the first wrote: one splice.
        let merged = composes(
            original,
            &[Splice::new(2..4, b"XYZ".to_vec())],
            &[Splice::new(3..6, b"-".to_vec())],
        );
        assert_eq!(merged, vec![Splice::new(2..5, b"X-".to_vec())]);
        // A deletion meeting an insertion at the same place, and touching splices.
        composes(
            original,
            &[
                Splice::new(5..8, b"".to_vec()),
                Splice::new(8..9, b"Q".to_vec()),
            ],
            &[
                Splice::new(5..5, b"ins".to_vec()),
                Splice::new(6..7, b"".to_vec()),
            ],
        );
        composes(original, &[], &[Splice::new(0..16, b"all".to_vec())]);
        composes(original, &[Splice::new(16..16, b"end".to_vec())], &[]);
    }
}
