//! Lines of the original: where each line and its EOL lie in the file's bytes, found a block
//! of bytes at a time.

/// One line of the original: `[start, content_end)` is its text, `[content_end, end)` its EOL
/// (empty, "\n" or "\r\n"). Only LF and CRLF end lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub start: usize,
    pub content_end: usize,
    pub end: usize,
}

pub(crate) fn split_lines(file: &[u8]) -> Vec<Line> {
    // Sized once: growing by doubling would pass through large fresh allocations (each a new
    // mapping whose pages fault in), a measurable part of an edit of a 10k-line file.
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', file).count() + 1);
    let mut start = 0;
    for_each_newline(file, |nl| {
        let content_end = if nl > start && file[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        lines.push(Line {
            start,
            content_end,
            end: nl + 1,
        });
        start = nl + 1;
    });
    if start < file.len() {
        lines.push(Line {
            start,
            content_end: file.len(),
            end: file.len(),
        });
    }
    lines
}

/// Calls `f` with the offset of each LF, in order. On x86-64 it compares 16 bytes at a time and
/// walks the bits of the match mask: about three times faster than a `memchr` call per line when
/// lines are as short as source lines are (10k lines of 52 bytes: 26 µs against 64 µs).
fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize)) {
    let mut base = 0;
    #[cfg(target_arch = "x86_64")]
    for block in bytes.chunks_exact(16) {
        let mut hits = newline_mask(block.try_into().expect("16 bytes"));
        while hits != 0 {
            f(base + hits.trailing_zeros() as usize);
            hits &= hits - 1;
        }
        base += 16;
    }
    for nl in memchr::memchr_iter(b'\n', &bytes[base..]) {
        f(base + nl);
    }
}

/// Bit i set when byte i of `block` is LF.
#[cfg(target_arch = "x86_64")]
fn newline_mask(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86-64 CPU (the target's baseline), and the unaligned load
    // reads exactly the 16 bytes of `block`.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) as u32
    }
}

/// The original's lines with lookups by byte offset. The line table is built on first use: an
/// exact match in a file without CRs never needs it (see `ladder`), and for a 10k-line file it is
/// the largest part of locating the match.
pub(crate) struct Text<'a> {
    pub bytes: &'a [u8],
    pub(super) table: std::cell::OnceCell<Vec<Line>>,
}

impl<'a> Text<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Text {
            bytes,
            table: std::cell::OnceCell::new(),
        }
    }
    pub fn lines(&self) -> &[Line] {
        self.table.get_or_init(|| split_lines(self.bytes))
    }
    pub fn content(&self, i: usize) -> &'a [u8] {
        let l = self.lines()[i];
        &self.bytes[l.start..l.content_end]
    }
    pub fn eol(&self, i: usize) -> &'a [u8] {
        let l = self.lines()[i];
        &self.bytes[l.content_end..l.end]
    }
    /// Index of the line holding byte `offset` (the last line for `offset == len`).
    pub fn line_of(&self, offset: usize) -> usize {
        if self.table.get().is_none() && offset < self.bytes.len() {
            // Each LF before the offset ends one line before it; no table needed.
            return memchr::memchr_iter(b'\n', &self.bytes[..offset]).count();
        }
        match self.lines().binary_search_by(|l| l.start.cmp(&offset)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }
    /// 1-based inclusive line range covered by a byte range.
    pub fn line_range(&self, range: &std::ops::Range<usize>) -> (usize, usize) {
        if self.bytes.is_empty() {
            return (1, 1);
        }
        let first = self.line_of(range.start);
        let last = if range.end > range.start {
            self.line_of(range.end - 1)
        } else {
            first
        };
        (first + 1, last + 1)
    }
    /// The EOL most lines use; LF when the file has none.
    pub fn dominant_eol(&self) -> &'static [u8] {
        let crlf = self
            .lines()
            .iter()
            .filter(|l| l.end - l.content_end == 2)
            .count();
        let lf = self
            .lines()
            .iter()
            .filter(|l| l.end - l.content_end == 1)
            .count();
        if crlf > lf {
            b"\r\n"
        } else {
            b"\n"
        }
    }
    pub fn has_eol(&self) -> bool {
        self.lines().iter().any(|l| l.end > l.content_end)
    }
}

/// Splits text into (content, eol) pairs; a final newline yields no empty last line.
pub(crate) fn text_lines(text: &[u8]) -> Vec<(&[u8], &[u8])> {
    let t = Text::new(text);
    t.lines()
        .iter()
        .map(|l| (&text[l.start..l.content_end], &text[l.content_end..l.end]))
        .collect()
}

pub(crate) fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

pub(crate) fn rstrip(s: &[u8]) -> &[u8] {
    let mut end = s.len();
    while end > 0 && (is_ws(s[end - 1]) || s[end - 1] == b'\r') {
        end -= 1;
    }
    &s[..end]
}

pub(crate) fn leading_ws(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| is_ws(b)).count();
    &s[..n]
}
