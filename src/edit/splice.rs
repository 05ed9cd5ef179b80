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
    let mut out = Vec::with_capacity(original.len() + grown);
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
