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

use crate::splice::Splice;
use coderd_core::error::{Error, Result};
use memchr::memmem;

mod closest;
mod eols;
mod lines;
mod loose;

use closest::keeps_context;
pub(crate) use closest::{closest, is_anchor, stands_in_place};
pub(crate) use eols::adapt_eols;
use eols::{eols_mixed, owned_lines};
pub(crate) use lines::{rstrip, split_lines, text_lines, Line, Text};
use loose::{find_all, has_typo, view};
pub(crate) use loose::{typo_fold, Level, LineIndex, Reindent};

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

#[cfg(test)]
mod tests;
