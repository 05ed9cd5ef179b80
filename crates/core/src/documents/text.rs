//! A document's content: a rope when the file is UTF-8 (cheap clones, O(log n) line lookups and
//! edits), the bytes as they are otherwise (Latin-1 and other encodings are edited byte-exactly, never
//! decoded lossily).

use ropey::Rope;
use std::io::Read;
use std::sync::Arc;

/// How much of a file a streaming compare reads at a time (stays in cache; no file-sized buffer).
const COMPARE_CHUNK: usize = 64 * 1024;

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
    pub fn spliced(&self, splices: &[crate::documents::splice::Splice], new_bytes: &[u8]) -> Text {
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

    /// The content as the pieces it is stored in, in order (the rope's chunks, or the one buffer).
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        let (rope, bytes) = match self {
            Text::Rope(r) => (Some(r.chunks().map(str::as_bytes)), None),
            Text::Bytes(b) => (None, Some(&b[..])),
        };
        rope.into_iter().flatten().chain(bytes)
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

/// Whether `reader`, read to its end, yields exactly the bytes of `pieces` in order. It reads a
/// chunk at a time and stops at the first difference, so checking that a file still holds what the
/// store holds costs no file-sized buffer (and none of the page faults of a fresh one).
pub fn reads_as<'a>(
    reader: &mut impl Read,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> std::io::Result<bool> {
    let mut pieces = pieces.into_iter();
    let mut piece: &[u8] = &[];
    let mut chunk = vec![0u8; COMPARE_CHUNK];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(piece.is_empty() && pieces.all(|p| p.is_empty()));
        }
        let mut data = &chunk[..n];
        while !data.is_empty() {
            if piece.is_empty() {
                match pieces.next() {
                    Some(next) => piece = next,
                    None => return Ok(false),
                }
                continue;
            }
            let k = piece.len().min(data.len());
            if piece[..k] != data[..k] {
                return Ok(false);
            }
            piece = &piece[k..];
            data = &data[k..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::splice::{apply, Splice};

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
    fn a_reader_reads_as_the_pieces_only_when_every_byte_matches() {
        // More than one compare chunk, over a rope of many chunks.
        let text: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let t = Text::from_bytes(text.clone().into_bytes());
        assert!(t.pieces().count() > 1);
        let same = |bytes: &[u8]| reads_as(&mut &bytes[..], t.pieces()).unwrap();
        assert!(same(text.as_bytes()));
        let mut changed = text.clone().into_bytes();
        changed[100_000] ^= 1;
        assert!(!same(&changed));
        assert!(!same(&text.as_bytes()[..text.len() - 1]));
        assert!(!same(format!("{text}x").as_bytes()));
        assert!(reads_as(&mut &b""[..], Text::from_bytes(Vec::new()).pieces()).unwrap());
        assert!(!reads_as(&mut &b""[..], [&b"a"[..]]).unwrap());
    }

    #[test]
    fn latin1_stays_bytes() {
        let t = Text::from_bytes(b"caf\xe9\n".to_vec());
        assert!(matches!(t, Text::Bytes(_)));
        assert_eq!(t.to_bytes(), b"caf\xe9\n");
    }
}
