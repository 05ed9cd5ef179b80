//! The normalized views the loose rules compare: typography folded, and line-level matching
//! (rules 2-4) shared with the diff applier.

use super::lines::{is_ws, leading_ws, rstrip, Text};
use coderd_core::typography;
use memchr::memmem;

/// Curly quotes to straight ones and NBSP to space, on valid UTF-8 sequences only (a Latin-1 0xA0
/// byte is left alone).
fn typo_char(s: &[u8]) -> Option<(u8, usize)> {
    // Every character of the table is U+00A0 or in U+2000..U+2FFF: two bytes led by 0xC2 or
    // three led by 0xE2, so other bytes are not decoded at all.
    let len = match s.first()? {
        0xC2 => 2,
        0xE2 => 3,
        _ => return None,
    };
    let c = std::str::from_utf8(s.get(..len)?).ok()?.chars().next()?;
    Some((typography::ascii_of(c)? as u8, len))
}

/// A normalized copy of `text` and, for each of its bytes (plus one past the end), the offset in
/// `text` it came from. CRLF becomes LF; with `typo`, quotes and NBSP are folded.
pub(super) fn view(text: &[u8], typo: bool) -> (Vec<u8>, Vec<usize>) {
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

pub(super) fn has_typo(s: &[u8]) -> bool {
    memchr::memchr2_iter(0xC2, 0xE2, s).any(|i| typo_char(&s[i..]).is_some())
}

/// Every start of `needle` in `hay`, overlapping ones included.
pub(super) fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
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
    pub(super) text: &'a Text<'a>,
    pub(super) norm: Vec<std::borrow::Cow<'a, [u8]>>,
    pub(super) level: Level,
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
