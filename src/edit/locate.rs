//! Search/replace located in a file's original bytes.
//!
//! The search text must match exactly once (or the caller picks `Nth`/`All`). When the exact bytes
//! are absent, a short ladder of *whitespace-level* loosenings is tried, in this order, each one
//! including the ones before it:
//!
//! 1. `line_endings`: CRLF and LF are the same (substring match on a CRLF→LF view).
//! 2. `trailing_whitespace`: whole lines compared without trailing spaces/tabs; blank lines at the
//!    end of the search text are ignored (one trailing blank line of the replacement is dropped with
//!    each ignored one).
//! 3. `indentation`: whole lines, one uniform leading-whitespace offset between search and file;
//!    the replacement is re-indented by the same offset.
//! 4. `typography`: curly quotes, straight quotes and NBSP/space compared as equal, per character
//!    (first as a substring, then on whole lines with rules 2 and 3).
//!
//! A rule is used only when it finds something; if it finds several places, that is an ambiguity
//! error (the looser rules would find at least as many). Content never matches loosely.
//!
//! End-of-line policy: every newline of the replacement takes the EOL of the file line it stands
//! for (aligned by a line diff between search and replacement; inserted lines take the EOL of the
//! line before them). This runs for every loose match, and for an exact match too unless the
//! replacement mixes LF and CRLF itself (then it is taken as deliberate and inserted verbatim). So
//! a LF replacement in a CRLF region becomes CRLF, and a CRLF file stays CRLF. Bytes outside the
//! matched range are never touched.

use crate::edit::splice::Splice;
use crate::error::{Error, Result};
use memchr::memmem;
use serde_json::{json, Value};
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};
use std::time::{Duration, Instant};

/// Which occurrences of the search text to replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence {
    /// Exactly one match, or an error listing them.
    Unique,
    /// The n-th match (1-based) in file order, as listed by the ambiguity error.
    Nth(usize),
    /// Every match (non-overlapping, left to right); zero matches is an error.
    All,
}

/// The planned change and how it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub splices: Vec<Splice>,
    /// "exact", "line_endings", "trailing_whitespace", "indentation" or "typography".
    pub matched_with: &'static str,
    /// The change is already in the file; `splices` is empty.
    pub already_applied: bool,
    /// 1-based inclusive line ranges, in the original, of each replaced region (for an
    /// already-applied edit: where the replacement text was found).
    pub lines: Vec<(usize, usize)>,
}

pub(crate) const RULE_NAMES: [&str; 5] = [
    "exact",
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "typography",
];

// ---------------------------------------------------------------------------------------------
// Lines of the original

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
    table: std::cell::OnceCell<Vec<Line>>,
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

// ---------------------------------------------------------------------------------------------
// Normalized views

/// Curly quotes to straight ones and NBSP to space, on valid UTF-8 sequences only (a Latin-1 0xA0
/// byte is left alone).
fn typo_char(s: &[u8]) -> Option<(u8, usize)> {
    match s {
        [0xC2, 0xA0, ..] => Some((b' ', 2)),
        [0xE2, 0x80, c, ..] => match c {
            0x98..=0x9B => Some((b'\'', 3)),
            0x9C..=0x9F => Some((b'"', 3)),
            0xAF => Some((b' ', 3)),
            _ => None,
        },
        _ => None,
    }
}

/// A normalized copy of `text` and, for each of its bytes (plus one past the end), the offset in
/// `text` it came from. CRLF becomes LF; with `typo`, quotes and NBSP are folded.
fn view(text: &[u8], typo: bool) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len() + 1);
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
            out.push(b'\n');
            map.push(i);
            i += 2;
            continue;
        }
        if typo {
            if let Some((c, len)) = typo_char(&text[i..]) {
                out.push(c);
                map.push(i);
                i += len;
                continue;
            }
        }
        out.push(text[i]);
        map.push(i);
        i += 1;
    }
    map.push(text.len());
    (out, map)
}

pub(crate) fn typo_fold(s: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !s.iter().any(|&b| b == 0xC2 || b == 0xE2) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(view(s, true).0)
}

fn has_typo(s: &[u8]) -> bool {
    memchr::memchr2_iter(0xC2, 0xE2, s).any(|i| typo_char(&s[i..]).is_some())
}

/// Every start of `needle` in `hay`, overlapping ones included.
fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let finder = memmem::Finder::new(needle);
    let mut out = Vec::new();
    let mut at = 0;
    while at + needle.len() <= hay.len() {
        match finder.find(&hay[at..]) {
            Some(p) => {
                out.push(at + p);
                at += p + 1;
            }
            None => break,
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Line-level loose matching (rules 2-4), shared with the diff applier

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Exact,
    TrailingWs,
    Indent,
    Typo,
}

/// How to re-indent replacement lines: the search's common indent `from` sits at `to` in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reindent {
    pub from: Vec<u8>,
    pub to: Vec<u8>,
}

impl Reindent {
    pub fn apply(&self, line: &[u8]) -> Vec<u8> {
        if rstrip(line).is_empty() || self.from == self.to {
            return line.to_vec();
        }
        if let Some(rest) = line.strip_prefix(self.from.as_slice()) {
            let mut v = self.to.clone();
            v.extend_from_slice(rest);
            return v;
        }
        if let Some(removed) = self.from.strip_prefix(self.to.as_slice()) {
            // The file is less indented: take off what we can of the extra indent.
            if let Some(rest) = line.strip_prefix(removed) {
                return rest.to_vec();
            }
            let lead = leading_ws(line).len();
            return line[lead..].to_vec();
        }
        line.to_vec()
    }
}

/// File lines normalized for one level, computed once per level.
pub(crate) struct LineIndex<'a> {
    text: &'a Text<'a>,
    norm: Vec<std::borrow::Cow<'a, [u8]>>,
    level: Level,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a Text<'a>, level: Level) -> Self {
        let norm = (0..text.lines().len())
            .map(|i| norm_line(text.content(i), level))
            .collect();
        LineIndex { text, norm, level }
    }

    /// Starts (line indices) of every window of whole lines matching `pat` at this level, with the
    /// re-indentation found (indentation levels only).
    pub fn find(&self, pat: &[&[u8]]) -> Vec<(usize, Option<Reindent>)> {
        let n = self.text.lines().len();
        let m = pat.len();
        let mut out = Vec::new();
        if m == 0 || m > n {
            return out;
        }
        let pnorm: Vec<std::borrow::Cow<[u8]>> =
            pat.iter().map(|p| norm_line(p, self.level)).collect();
        if self.level < Level::Indent {
            for i in 0..=n - m {
                if (0..m).all(|j| self.norm[i + j] == pnorm[j]) {
                    out.push((i, None));
                }
            }
            return out;
        }
        // Common leading whitespace of the non-blank search lines.
        let mut common: Option<&[u8]> = None;
        for p in pnorm.iter().filter(|p| !p.is_empty()) {
            let lead = leading_ws(p);
            common = Some(match common {
                None => lead,
                Some(c) => {
                    let k = c.iter().zip(lead).take_while(|(a, b)| a == b).count();
                    &c[..k]
                }
            });
        }
        let Some(common) = common else {
            // Only blank lines: nothing to indent.
            for i in 0..=n - m {
                if (0..m).all(|j| self.norm[i + j].is_empty()) {
                    out.push((i, None));
                }
            }
            return out;
        };
        let bodies: Vec<&[u8]> = pnorm
            .iter()
            .map(|p| {
                if p.is_empty() {
                    &p[..]
                } else {
                    &p[common.len()..]
                }
            })
            .collect();
        'window: for i in 0..=n - m {
            let mut prefix: Option<&[u8]> = None;
            for j in 0..m {
                let f: &[u8] = &self.norm[i + j];
                if pnorm[j].is_empty() {
                    if !f.is_empty() {
                        continue 'window;
                    }
                    continue;
                }
                let body = bodies[j];
                if f.len() < body.len() || &f[f.len() - body.len()..] != body {
                    continue 'window;
                }
                let pre = &f[..f.len() - body.len()];
                match prefix {
                    None => {
                        if !pre.iter().all(|&b| is_ws(b)) {
                            continue 'window;
                        }
                        prefix = Some(pre);
                    }
                    Some(p) if p == pre => {}
                    Some(_) => continue 'window,
                }
            }
            let to = prefix.unwrap_or_default();
            // Raw (un-normalized) prefix of the first non-blank file line, for re-indenting.
            out.push((
                i,
                Some(Reindent {
                    from: common.to_vec(),
                    to: to.to_vec(),
                }),
            ));
        }
        out
    }
}

fn norm_line(s: &[u8], level: Level) -> std::borrow::Cow<'_, [u8]> {
    match level {
        Level::Exact => std::borrow::Cow::Borrowed(s),
        Level::TrailingWs | Level::Indent => std::borrow::Cow::Borrowed(rstrip(s)),
        Level::Typo => match typo_fold(rstrip(s)) {
            std::borrow::Cow::Borrowed(b) => std::borrow::Cow::Borrowed(b),
            std::borrow::Cow::Owned(v) => std::borrow::Cow::Owned(rstrip(&v).to_vec()),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Replacement text with the file's EOLs

/// Builds the replacement for a match whose search lines `search` stand for file lines
/// `first..first + search.len()`. Each newline of `replace` takes the EOL of its aligned file line.
pub(crate) fn adapt_eols(
    text: &Text,
    first: usize,
    search: &[(&[u8], &[u8])],
    replace: &[(Vec<u8>, Vec<u8>)],
) -> Vec<u8> {
    let fallback: &[u8] = text.dominant_eol();
    let eol_of = |j: usize| -> Option<&[u8]> {
        let i = first + j;
        if i < text.lines().len() && text.lines()[i].end > text.lines()[i].content_end {
            Some(text.eol(i))
        } else {
            None
        }
    };
    // For each replacement line, the search line it stands for.
    let mut aligned: Vec<Option<usize>> = vec![None; replace.len()];
    if !search.is_empty() {
        let skeys: Vec<_> = search
            .iter()
            .map(|(c, _)| typo_fold(c.trim_ascii()))
            .collect();
        let rkeys: Vec<_> = replace
            .iter()
            .map(|(c, _)| typo_fold(c.trim_ascii()))
            .collect();
        let deadline = Instant::now() + Duration::from_millis(20);
        let ops = capture_diff_slices_deadline(Algorithm::Myers, &skeys, &rkeys, Some(deadline));
        let mut last_old: Option<usize> = None;
        for op in &ops {
            match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        aligned[new_index + k] = Some(old_index + k);
                    }
                    last_old = Some(old_index + len - 1);
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for k in 0..new_len {
                        aligned[new_index + k] = Some(old_index + k.min(old_len - 1));
                    }
                    last_old = Some(old_index + old_len - 1);
                }
                DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => {
                    let at = last_old.unwrap_or(old_index.min(search.len() - 1));
                    for k in 0..new_len {
                        aligned[new_index + k] = Some(at);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => last_old = Some(old_index + old_len - 1),
            }
        }
    }
    let mut out = Vec::new();
    for (k, (content, eol)) in replace.iter().enumerate() {
        out.extend_from_slice(content);
        if eol.is_empty() {
            continue;
        }
        let chosen = aligned[k].and_then(eol_of).unwrap_or(if text.has_eol() {
            fallback
        } else {
            eol.as_slice()
        });
        out.extend_from_slice(chosen);
    }
    out
}

fn owned_lines(text: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    text_lines(text)
        .into_iter()
        .map(|(c, e)| (c.to_vec(), e.to_vec()))
        .collect()
}

fn eols_mixed(text: &[u8]) -> bool {
    let lines = text_lines(text);
    let crlf = lines.iter().any(|(_, e)| e.len() == 2);
    let lf = lines.iter().any(|(_, e)| e.len() == 1);
    crlf && lf
}

// ---------------------------------------------------------------------------------------------
// The ladder

struct Match {
    range: std::ops::Range<usize>,
    text: Vec<u8>,
}

/// All matches found by the first rule that finds any, with that rule's index.
fn ladder(text: &Text, search: &[u8], replace: &[u8]) -> Option<(usize, Vec<Match>)> {
    let file = text.bytes;
    let slines = text_lines(search);
    let no_cr = [search, replace, file]
        .iter()
        .all(|b| memchr::memchr(b'\r', b).is_none());
    // Byte-level rules: 0 exact, 1 line endings, and the typography substring form.
    let byte_rule = |rule: usize, typo: bool| -> Vec<Match> {
        let (hay, map, needle): (std::borrow::Cow<[u8]>, _, std::borrow::Cow<[u8]>) = if rule == 0 {
            (file.into(), None, search.into())
        } else {
            let (h, m) = view(file, typo);
            (h.into(), Some(m), view(search, typo).0.into())
        };
        // Without a CR anywhere, every line ends in LF and `adapt_eols` would give back the
        // replacement as it is: skip it (and the file's line table it needs).
        let verbatim = rule == 0 && (eols_mixed(replace) || no_cr);
        find_all(&hay, &needle)
            .into_iter()
            .map(|p| {
                let range = match &map {
                    None => p..p + needle.len(),
                    Some(m) => m[p]..m[p + needle.len()],
                };
                let body = if verbatim {
                    replace.to_vec()
                } else {
                    let first = text.line_of(range.start);
                    adapt_eols(text, first, &slines, &owned_lines(replace))
                };
                Match { range, text: body }
            })
            .collect()
    };
    let found = byte_rule(0, false);
    if !found.is_empty() {
        return Some((0, found));
    }
    if memmem::find(file, b"\r\n").is_some() || memmem::find(search, b"\r\n").is_some() {
        let found = byte_rule(1, false);
        if !found.is_empty() {
            return Some((1, found));
        }
    }
    // Line-level rules need the search as whole lines.
    let ends_nl = search.ends_with(b"\n");
    let mut pat: Vec<(&[u8], &[u8])> = slines.clone();
    let mut rlines = owned_lines(replace);
    let mut dropped = 0;
    while pat.len() > 1 && rstrip(pat[pat.len() - 1].0).is_empty() && ends_nl {
        pat.pop();
        dropped += 1;
    }
    for _ in 0..dropped {
        if rlines.len() > 1 && rstrip(&rlines[rlines.len() - 1].0).is_empty() {
            rlines.pop();
        }
    }
    let pcontent: Vec<&[u8]> = pat.iter().map(|(c, _)| *c).collect();
    // Typography can only matter when either side has a curly quote or a NBSP.
    let typo_possible = has_typo(file) || has_typo(search);
    for (rule, level) in [(2, Level::TrailingWs), (3, Level::Indent), (4, Level::Typo)] {
        if rule == 4 && !typo_possible {
            break;
        }
        if rule == 4 {
            let found = byte_rule(4, true);
            if !found.is_empty() {
                return Some((4, found));
            }
        }
        let index = LineIndex::new(text, level);
        let hits = index.find(&pcontent);
        if hits.is_empty() {
            continue;
        }
        let matches = hits
            .into_iter()
            .map(|(i, reindent)| {
                let last = i + pat.len() - 1;
                let end_line = text.lines()[last];
                let end = if ends_nl {
                    end_line.end
                } else {
                    end_line.content_end
                };
                let mut rl = rlines.clone();
                if let Some(r) = &reindent {
                    for l in rl.iter_mut() {
                        l.0 = r.apply(&l.0);
                    }
                }
                // The last search line was the file's last line, without EOL: keep it so.
                if ends_nl && end_line.end == end_line.content_end {
                    if let Some(l) = rl.last_mut() {
                        l.1.clear();
                    }
                }
                Match {
                    range: text.lines()[i].start..end,
                    text: adapt_eols(text, i, &pat, &rl),
                }
            })
            .collect();
        return Some((rule, matches));
    }
    None
}

/// Locates `search` in `file` and plans its replacement by `replace`.
pub fn locate_replace(
    file: &[u8],
    search: &[u8],
    replace: &[u8],
    which: Occurrence,
) -> Result<Located> {
    if search.is_empty() {
        return Err(Error::bad_input("search text is empty")
            .with_recovery("give the exact text to replace, with a few lines of context"));
    }
    if which == Occurrence::Nth(0) {
        return Err(Error::bad_input("occurrence numbers start at 1"));
    }
    let text = Text::new(file);
    match ladder(&text, search, replace) {
        Some((rule, matches)) => select(&text, rule, matches, which),
        None => {
            if !rstrip(replace).trim_ascii().is_empty() && !replay_proves_nothing(search, replace) {
                if let Some((rule, found)) = ladder(&text, replace, replace) {
                    let lines = found.first().map(|f| text.line_range(&f.range));
                    let context = keeps_context(search, replace);
                    if let (1, Some(lines)) = (found.len(), lines) {
                        if stands_in_place(&text, search, context, lines) {
                            return Ok(Located {
                                splices: Vec::new(),
                                matched_with: RULE_NAMES[rule],
                                already_applied: true,
                                lines: vec![lines],
                            });
                        }
                    }
                }
            }
            let mut err = Error::bad_input("search text not found in the file").with_recovery(
                "re-read the region and copy the text exactly; data.closest shows the nearest \
                 lines (- file, + search)",
            );
            if let Some(c) = closest(&text, search) {
                err = err.with_data("closest", c);
            }
            Err(err)
        }
    }
}

/// Whether the replacement is part of the search text (an edit that only deletes lines at the
/// edge of the search): then finding it says nothing about whether the edit was applied.
fn replay_proves_nothing(search: &[u8], replace: &[u8]) -> bool {
    if memmem::find(search, replace).is_some() {
        return true;
    }
    let s: Vec<&[u8]> = text_lines(search).into_iter().map(|(c, _)| c).collect();
    let r: Vec<&[u8]> = text_lines(replace).into_iter().map(|(c, _)| c).collect();
    lines_within(&r, &s)
}

/// Whether `inner` occurs as consecutive lines of `outer`, comparing trimmed lines.
pub(crate) fn lines_within(inner: &[&[u8]], outer: &[&[u8]]) -> bool {
    !inner.is_empty()
        && inner.len() <= outer.len()
        && outer.windows(inner.len()).any(|w| {
            w.iter()
                .zip(inner)
                .all(|(a, b)| typo_fold(a.trim_ascii()) == typo_fold(b.trim_ascii()))
        })
}

fn select(text: &Text, rule: usize, matches: Vec<Match>, which: Occurrence) -> Result<Located> {
    let chosen: Vec<Match> = match which {
        Occurrence::Unique if matches.len() == 1 => matches,
        Occurrence::Unique => return Err(ambiguous(text, rule, &matches)),
        Occurrence::Nth(n) if n <= matches.len() => {
            matches.into_iter().skip(n - 1).take(1).collect()
        }
        Occurrence::Nth(n) => {
            return Err(Error::bad_input(format!(
                "occurrence {n} asked but the search text matches {} time(s)",
                matches.len()
            ))
            .with_data("match_count", matches.len())
            .with_data("matched_with", RULE_NAMES[rule]))
        }
        Occurrence::All => {
            let mut keep: Vec<Match> = Vec::new();
            for m in matches {
                if keep.last().is_none_or(|k| m.range.start >= k.range.end) {
                    keep.push(m);
                }
            }
            keep
        }
    };
    Ok(Located {
        lines: chosen.iter().map(|m| text.line_range(&m.range)).collect(),
        splices: chosen
            .into_iter()
            .map(|m| Splice::new(m.range, m.text))
            .collect(),
        matched_with: RULE_NAMES[rule],
        already_applied: false,
    })
}

fn ambiguous(text: &Text, rule: usize, matches: &[Match]) -> Error {
    let starts: Vec<usize> = matches
        .iter()
        .map(|m| text.line_range(&m.range).0)
        .collect();
    let shown: Vec<String> = starts.iter().take(10).map(|s| s.to_string()).collect();
    Error::bad_input(format!(
        "search text matches {} times (lines {}{}); it must match exactly once",
        matches.len(),
        shown.join(", "),
        if starts.len() > 10 { ", ..." } else { "" }
    ))
    .with_data(
        "matches",
        starts.iter().take(10).copied().collect::<Vec<_>>(),
    )
    .with_data("match_count", matches.len())
    .with_data("matched_with", RULE_NAMES[rule])
    .with_recovery("add surrounding lines until the search text is unique, or choose an occurrence")
}

// ---------------------------------------------------------------------------------------------
// Closest candidate

/// Bigram signature of a trimmed line (256 buckets).
fn signature(s: &[u8]) -> [u64; 4] {
    let s = s.trim_ascii();
    let mut sig = [0u64; 4];
    let mut set = |h: u32| sig[(h >> 6) as usize & 3] |= 1u64 << (h & 63);
    if s.len() < 2 {
        if let Some(&b) = s.first() {
            set(b as u32);
        }
        return sig;
    }
    for w in s.windows(2) {
        let h = ((w[0] as u32) << 8 | w[1] as u32).wrapping_mul(2654435761) >> 24;
        set(h);
    }
    sig
}

fn cheap_sim(a: &[u64; 4], b: &[u64; 4]) -> f32 {
    let (mut inter, mut union) = (0, 0);
    for k in 0..4 {
        inter += (a[k] & b[k]).count_ones();
        union += (a[k] | b[k]).count_ones();
    }
    if union == 0 {
        return 1.0;
    }
    inter as f32 / union as f32
}

/// Dice coefficient of the byte-bigram multisets of two texts: deterministic and linear.
fn dice(a: &[u8], b: &[u8]) -> f32 {
    let grams = |s: &[u8]| {
        let mut v: Vec<u16> = s
            .windows(2)
            .map(|w| (w[0] as u16) << 8 | w[1] as u16)
            .collect();
        v.sort_unstable();
        v
    };
    let (ga, gb) = (grams(a), grams(b));
    if ga.is_empty() && gb.is_empty() {
        return if a == b { 1.0 } else { 0.0 };
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < ga.len() && j < gb.len() {
        match ga[i].cmp(&gb[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f32 / (ga.len() + gb.len()) as f32
}

/// Similarity (0..1) of two texts, by characters, bounded in time.
fn ratio(a: &str, b: &str) -> f32 {
    let ac: Vec<char> = a.chars().collect();
    let bc: Vec<char> = b.chars().collect();
    if ac.is_empty() && bc.is_empty() {
        return 1.0;
    }
    let deadline = Instant::now() + Duration::from_millis(5);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &ac, &bc, Some(deadline));
    similar::diff_ratio(&ops, ac.len(), bc.len())
}

/// The file window most similar to `search` (as lines), as the `data.closest` object:
/// `{start_line, end_line, similarity, diff}`.
pub(crate) fn closest(text: &Text, search: &[u8]) -> Option<Value> {
    let found = closest_window(text, search)?;
    let slines = text_lines(search);
    let diff = visible_diff(text, found.first, found.len, &slines);
    Some(json!({
        "start_line": found.first + 1,
        "end_line": found.first + found.len,
        "similarity": (found.similarity * 1000.0).round() / 1000.0,
        "diff": diff,
    }))
}

/// The lines of the original most like a text that is not in it.
pub(crate) struct Window {
    /// 0-based first line.
    pub first: usize,
    pub len: usize,
    /// Character-level similarity, 0 to 1.
    pub similarity: f32,
}

pub(crate) fn closest_window(text: &Text, search: &[u8]) -> Option<Window> {
    let slines = text_lines(search);
    let n = text.lines().len();
    let m = slines.len();
    if n == 0 || m == 0 {
        return None;
    }
    let w = m.min(n);
    let fsig: Vec<[u64; 4]> = (0..n).map(|i| signature(text.content(i))).collect();
    let ssig: Vec<[u64; 4]> = slines.iter().map(|(c, _)| signature(c)).collect();
    // Cheap score of every window, then a finer (bigram multiset) score of the best few; the
    // character-level ratio of the winner is what is reported.
    let mut scored: Vec<(f32, usize)> = (0..=n - w)
        .map(|i| {
            let s: f32 = (0..w).map(|j| cheap_sim(&fsig[i + j], &ssig[j])).sum();
            (s, i)
        })
        .collect();
    let keep = 16.min(scored.len());
    scored.select_nth_unstable_by(keep - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(keep);
    let norm = |b: &[u8]| -> Vec<u8> {
        b.split(|&c| c == b'\n')
            .flat_map(|l| l.trim_ascii().iter().copied().chain([b'\n']))
            .collect()
    };
    let sflat = norm(search);
    let window = |i: usize| &text.bytes[text.lines()[i].start..text.lines()[i + w - 1].content_end];
    let mut best: Option<(f32, usize)> = None;
    for &(_, i) in &scored {
        let d = dice(&norm(window(i)), &sflat);
        if best.is_none_or(|(bd, bi)| d > bd || (d == bd && i < bi)) {
            best = Some((d, i));
        }
    }
    let (_, i) = best?;
    let stext = String::from_utf8_lossy(search).replace("\r\n", "\n");
    let similarity = ratio(
        &String::from_utf8_lossy(window(i)).replace("\r\n", "\n"),
        stext.trim_end_matches('\n'),
    );
    Some(Window {
        first: i,
        len: w,
        similarity,
    })
}

/// How alike the search text and the lines standing where it would have matched must be before
/// a replacement found there counts as that edit, already applied.
const SAME_PLACE_SIMILARITY: f32 = 0.5;

/// Whether the replacement, found once at `found` (1-based inclusive lines) while the search text
/// is absent, stands where the search would have matched. Finding the replacement somewhere
/// proves nothing by itself (the same text may stand elsewhere in the file): the place must be
/// the search's. It is when the edit keeps a line of context with a word in it (the replacement, found
/// whole, carries that context with it), or else when the lines most like the search text are
/// the ones the replacement stands on.
pub(crate) fn stands_in_place(
    text: &Text,
    search: &[u8],
    keeps_context: bool,
    found: (usize, usize),
) -> bool {
    if keeps_context {
        return true;
    }
    closest_window(text, search).is_some_and(|w| {
        let (first, last) = (w.first + 1, w.first + w.len);
        w.similarity >= SAME_PLACE_SIMILARITY && first <= found.1 && found.0 <= last
    })
}

/// Whether a context line can anchor a place: it has a word in it (a lone `}` stands everywhere).
pub(crate) fn is_anchor(line: &[u8]) -> bool {
    line.iter().any(|&b| b.is_ascii_alphanumeric() || b >= 0x80)
}

/// Whether the search and its replacement begin or end with the same anchoring line.
fn keeps_context(search: &[u8], replace: &[u8]) -> bool {
    let lines = |t: &[u8]| -> Vec<Vec<u8>> {
        text_lines(t)
            .into_iter()
            .map(|(c, _)| typo_fold(c.trim_ascii()).into_owned())
            .collect()
    };
    let (s, r) = (lines(search), lines(replace));
    let same = |a: Option<&Vec<u8>>, b: Option<&Vec<u8>>| matches!((a, b), (Some(a), Some(b)) if a == b && is_anchor(a));
    // Only whole lines count: a one-line edit has no line of context.
    (s.len() > 1 || r.len() > 1) && (same(s.first(), r.first()) || same(s.last(), r.last()))
}

/// Renders a line with visible whitespace: tab →, trailing spaces ·, CR ␍, NBSP ⍽.
pub(crate) fn visible(content: &[u8], eol: &[u8]) -> String {
    let s = String::from_utf8_lossy(content);
    let trimmed = s.trim_end_matches(' ');
    let mut out = String::with_capacity(s.len() + 4);
    for c in trimmed.chars() {
        match c {
            '\t' => out.push('→'),
            '\r' => out.push('␍'),
            '\u{a0}' => out.push('⍽'),
            c => out.push(c),
        }
    }
    for _ in 0..s.len() - trimmed.len() {
        out.push('·');
    }
    if eol == b"\r\n" {
        out.push('␍');
    }
    out
}

fn visible_diff(text: &Text, first: usize, w: usize, search: &[(&[u8], &[u8])]) -> String {
    let old: Vec<String> = (first..first + w)
        .map(|i| visible(text.content(i), b""))
        .collect();
    let new: Vec<String> = search.iter().map(|(c, _)| visible(c, b"")).collect();
    let old_full: Vec<String> = (first..first + w)
        .map(|i| visible(text.content(i), text.eol(i)))
        .collect();
    let new_full: Vec<String> = search.iter().map(|(c, e)| visible(c, e)).collect();
    let deadline = Instant::now() + Duration::from_millis(5);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline));
    let mut out = String::new();
    for op in &ops {
        for (tag, oi, ni) in op
            .iter_changes(&old, &new)
            .map(|c| (c.tag(), c.old_index(), c.new_index()))
        {
            let (prefix, line) = match tag {
                similar::ChangeTag::Equal => (' ', &old_full[oi.unwrap_or(0)]),
                similar::ChangeTag::Delete => ('-', &old_full[oi.unwrap_or(0)]),
                similar::ChangeTag::Insert => ('+', &new_full[ni.unwrap_or(0)]),
            };
            out.push(prefix);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::splice::apply;

    fn run(file: &[u8], search: &[u8], replace: &[u8]) -> Result<(Vec<u8>, &'static str)> {
        let l = locate_replace(file, search, replace, Occurrence::Unique)?;
        Ok((apply(file, &l.splices), l.matched_with))
    }

    #[test]
    fn line_of_counts_the_same_with_and_without_the_table() {
        for file in [
            &b"a\nbb\n\nccc"[..],
            b"a\nbb\n\n",
            b"\n",
            b"x",
            b"a\r\nb\r\n",
        ] {
            let counted = Text::new(file);
            let tabled = Text::new(file);
            tabled.lines();
            for offset in 0..=file.len() {
                assert_eq!(counted.line_of(offset), tabled.line_of(offset), "{offset}");
            }
        }
    }

    /// The LF-only fast path of `ladder` takes the replacement verbatim; that is what the EOL
    /// adaptation gives for such text, whichever lines the replacement aligns with.
    #[test]
    fn replacements_in_lf_only_text_need_no_eol_adaptation() {
        let file = b"fn a() {\n    one();\n    two();\n}\nlast";
        let text = Text::new(file);
        let search = b"    one();\n    two();\n";
        for replace in [
            &b"    uno();\n    two();\n"[..],
            b"    one();\n",
            b"    one();\n    new();\n    two();\n    three();",
            b"",
            b"no eol",
        ] {
            let adapted = adapt_eols(&text, 1, &text_lines(search), &owned_lines(replace));
            assert_eq!(adapted, replace, "{}", String::from_utf8_lossy(replace));
        }
    }

    #[test]
    fn lines_split_at_every_lf_across_block_edges() {
        // LFs and CRLFs at every offset around the 16-byte blocks and the tail.
        for len in 0..70 {
            for step in 1..20 {
                let file: Vec<u8> = (0..len)
                    .map(|i| match i % step {
                        0 => b'\n',
                        k if k == step - 1 && step > 3 => b'\r',
                        _ => b'x',
                    })
                    .collect();
                let mut expected = Vec::new();
                let mut start = 0;
                for (i, &b) in file.iter().enumerate() {
                    if b == b'\n' {
                        let cr = i > start && file[i - 1] == b'\r';
                        expected.push((start, i - cr as usize, i + 1));
                        start = i + 1;
                    }
                }
                if start < file.len() {
                    expected.push((start, file.len(), file.len()));
                }
                let got: Vec<_> = split_lines(&file)
                    .iter()
                    .map(|l| (l.start, l.content_end, l.end))
                    .collect();
                assert_eq!(got, expected, "len {len}, LF every {step}");
            }
        }
    }

    #[test]
    fn exact_unique() {
        let (out, how) = run(b"a\nb\nc\n", b"b\n", b"B\n").unwrap();
        assert_eq!(out, b"a\nB\nc\n");
        assert_eq!(how, "exact");
    }

    #[test]
    fn exact_in_crlf_file_keeps_crlf() {
        let (out, how) = run(b"a\r\nb\r\nc\r\n", b"b\r\n", b"B\nX\n").unwrap();
        assert_eq!(out, b"a\r\nB\r\nX\r\nc\r\n");
        assert_eq!(how, "exact");
    }

    #[test]
    fn lf_search_in_crlf_file() {
        let (out, how) = run(b"a\r\nb\r\nc\r\n", b"a\nb\n", b"a\nB\n").unwrap();
        assert_eq!(out, b"a\r\nB\r\nc\r\n");
        assert_eq!(how, "line_endings");
    }

    #[test]
    fn mixed_region_takes_each_lines_eol() {
        let file = b"a\r\nb\nc\r\nd\n";
        let (out, _) = run(file, b"a\nb\nc\n", b"a\nB\nnew\nc\n").unwrap();
        assert_eq!(out, b"a\r\nB\nnew\nc\r\nd\n");
    }

    #[test]
    fn trailing_whitespace_and_indentation() {
        let file = b"fn f() {\n        let x = 1;  \n        let y = 2;\n}\n";
        let (out, how) = run(
            file,
            b"let x = 1;\nlet y = 2;\n",
            b"let x = 1;\nif y {\n    z();\n}\n",
        )
        .unwrap();
        assert_eq!(how, "indentation");
        assert_eq!(
            out,
            b"fn f() {\n        let x = 1;\n        if y {\n            z();\n        }\n}\n"
        );
        let (out, how) = run(
            file,
            b"        let x = 1;\n        let y = 2;\n",
            b"        let x = 3;\n        let y = 2;\n",
        )
        .unwrap();
        assert_eq!(how, "trailing_whitespace");
        assert_eq!(
            out,
            b"fn f() {\n        let x = 3;\n        let y = 2;\n}\n"
        );
    }

    #[test]
    fn typography() {
        let file = "say(\u{201c}hi\u{201d});\nx\u{a0}= 1;\n".as_bytes();
        let (out, how) = run(file, b"say(\"hi\");", b"say(\"ho\");").unwrap();
        assert_eq!(how, "typography");
        assert_eq!(out, "say(\"ho\");\nx\u{a0}= 1;\n".as_bytes());
    }

    #[test]
    fn ambiguous_lists_lines() {
        let err = run(b"}\nx\n}\n", b"}\n", b"};\n").unwrap_err();
        assert_eq!(err.data["matches"], json!([1, 3]));
        assert_eq!(err.data["match_count"], json!(2));
        let l = locate_replace(b"}\nx\n}\n", b"}\n", b"};\n", Occurrence::Nth(2)).unwrap();
        assert_eq!(apply(b"}\nx\n}\n", &l.splices), b"}\nx\n};\n");
        let l = locate_replace(b"}\nx\n}\n", b"}\n", b"};\n", Occurrence::All).unwrap();
        assert_eq!(apply(b"}\nx\n}\n", &l.splices), b"};\nx\n};\n");
        assert!(locate_replace(b"x\n", b"}\n", b"};\n", Occurrence::All).is_err());
    }

    #[test]
    fn not_found_has_closest() {
        let file = b"fn a() {}\nfn main() {\n\tlet x = 1;\n    let y = 2; \n}\n";
        let err = run(
            file,
            b"fn main() {\n    let x = 10;\n    let y = 2;\n",
            b"zz",
        )
        .unwrap_err();
        let c = &err.data["closest"];
        assert_eq!(c["start_line"], json!(2));
        assert_eq!(c["end_line"], json!(4));
        let diff = c["diff"].as_str().unwrap();
        assert!(diff.contains("-→let x = 1;"), "{diff}");
        assert!(diff.contains("-    let y = 2;·"), "{diff}");
    }

    #[test]
    fn replay_is_already_applied_and_anchor_append_is_not() {
        let file = b"a = 1\nlimit = 20\nc = 3\n";
        let l = locate_replace(file, b"limit = 10\n", b"limit = 20\n", Occurrence::Unique).unwrap();
        assert!(l.already_applied && l.splices.is_empty());
        assert_eq!(l.lines, vec![(2, 2)]);
        // The replacement stands elsewhere than where the search would have matched.
        let file = b"limit = 5\nreturn compute(2)\n";
        let err = run(file, b"limit = 10", b"return compute(2)").unwrap_err();
        assert_eq!(err.data["closest"]["start_line"], json!(1));
        // Search is a substring of replace: the search is found first and applied.
        let (out, _) = run(b"anchor\nz\n", b"anchor\n", b"anchor\nadded\n").unwrap();
        assert_eq!(out, b"anchor\nadded\nz\n");
    }

    #[test]
    fn empty_search_and_no_final_newline() {
        assert!(run(b"a", b"", b"x").is_err());
        let (out, _) = run(b"a\n  b", b"b\n", b"c\n").unwrap();
        assert_eq!(out, b"a\n  c");
    }

    #[test]
    fn closest_is_fast_on_big_files() {
        let mut file = Vec::new();
        for i in 0..10_000 {
            file.extend_from_slice(
                format!(
                    "    let value_{i} = compute(alpha, beta, {i}); // comment {}\n",
                    i * 7
                )
                .as_bytes(),
            );
        }
        assert!(file.len() > 400_000);
        let search = b"    let value_5000 = compute(alpha, gamma, 5000);\n    let value_5001 = compute(alpha, beta, 5001);\n    let value_5002 = nope;\n";
        let t = Instant::now();
        let err = run(&file, search, b"x\n").unwrap_err();
        let took = t.elapsed();
        assert_eq!(err.data["closest"]["start_line"], json!(5001));
        eprintln!("not-found on 10k lines: {took:?}");
        if !cfg!(debug_assertions) {
            assert!(took < Duration::from_millis(20));
        }
    }
}
