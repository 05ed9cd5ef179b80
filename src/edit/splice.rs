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
}
