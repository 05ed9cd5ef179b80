//! A document's content: a rope when the file is UTF-8 (cheap clones, O(log n) line lookups and
//! edits), the bytes as they are otherwise (Latin-1 and other encodings are edited byte-exactly, never
//! decoded lossily).

use ropey::Rope;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Text {
    Rope(Rope),
    Bytes(Arc<[u8]>),
}

impl Text {
    pub fn from_bytes(bytes: Vec<u8>) -> Text {
        match String::from_utf8(bytes) {
            Ok(s) => Text::Rope(Rope::from_str(&s)),
            Err(e) => Text::Bytes(e.into_bytes().into()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Text::Rope(r) => r.len_bytes(),
            Text::Bytes(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Text::Rope(r) => {
                let mut out = Vec::with_capacity(r.len_bytes());
                for chunk in r.chunks() {
                    out.extend_from_slice(chunk.as_bytes());
                }
                out
            }
            Text::Bytes(b) => b.to_vec(),
        }
    }

    /// The 0-based line holding a byte offset (lines end at LF; CRLF counts once).
    pub fn line_of_byte(&self, byte: usize) -> usize {
        match self {
            Text::Rope(r) => r.byte_to_line(byte.min(r.len_bytes())),
            Text::Bytes(b) => memchr::memchr_iter(b'\n', &b[..byte.min(b.len())]).count(),
        }
    }

    /// The text after splicing, reusing the rope's untouched nodes when both sides are UTF-8
    /// and every splice falls on character boundaries; rebuilt from `new_bytes` otherwise.
    pub fn spliced(&self, splices: &[crate::edit::splice::Splice], new_bytes: &[u8]) -> Text {
        let Text::Rope(rope) = self else {
            return Text::from_bytes(new_bytes.to_vec());
        };
        let mut rope = rope.clone();
        let mut sorted: Vec<_> = splices.iter().collect();
        sorted.sort_by_key(|s| std::cmp::Reverse(s.range.start));
        for splice in sorted {
            let (Ok(start), Ok(end), Ok(text)) = (
                rope.try_byte_to_char(splice.range.start),
                rope.try_byte_to_char(splice.range.end),
                std::str::from_utf8(&splice.text),
            ) else {
                return Text::from_bytes(new_bytes.to_vec());
            };
            let on_boundaries = rope.char_to_byte(start) == splice.range.start
                && rope.char_to_byte(end) == splice.range.end;
            if !on_boundaries {
                return Text::from_bytes(new_bytes.to_vec());
            }
            rope.remove(start..end);
            rope.insert(start, text);
        }
        let text = Text::Rope(rope);
        debug_assert!(
            text.equals(new_bytes),
            "the spliced rope differs from the new bytes"
        );
        text
    }

    /// Whether the content is exactly `bytes` (compared in place, chunk by chunk: no copy).
    pub fn equals(&self, bytes: &[u8]) -> bool {
        match self {
            Text::Rope(r) => {
                r.len_bytes() == bytes.len()
                    && r.chunks()
                        .scan(0, |at, chunk| {
                            *at += chunk.len();
                            Some(bytes[*at - chunk.len()..*at] == *chunk.as_bytes())
                        })
                        .all(|same| same)
            }
            Text::Bytes(b) => **b == *bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::splice::{apply, Splice};

    #[test]
    fn lines_are_lf_and_crlf_only_like_cat_n() {
        // A lone CR, a form feed and U+2028 are not line breaks (ropey's unicode_lines is off).
        let t = Text::from_bytes("a\rb\u{c}c\u{2028}d\r\ne\nf".as_bytes().to_vec());
        let Text::Rope(r) = &t else { panic!() };
        assert_eq!(r.len_lines(), 3);
    }

    #[test]
    fn splicing_a_rope_equals_splicing_bytes() {
        let original = "héllo\r\nwörld\nend".as_bytes().to_vec();
        let t = Text::from_bytes(original.clone());
        let splices = [
            Splice::new(0..3, "H".as_bytes()),
            Splice::new(8..14, "planet".as_bytes()),
        ];
        let expected = apply(&original, &splices);
        let spliced = t.spliced(&splices, &expected);
        assert!(matches!(spliced, Text::Rope(_)));
        assert_eq!(spliced.to_bytes(), expected);
        assert!(spliced.equals(&expected));
        assert!(!spliced.equals(&original));
        assert!(!spliced.equals(&expected[..expected.len() - 1]));
    }

    #[test]
    fn latin1_stays_bytes() {
        let t = Text::from_bytes(b"caf\xe9\n".to_vec());
        assert!(matches!(t, Text::Bytes(_)));
        assert_eq!(t.to_bytes(), b"caf\xe9\n");
    }
}
