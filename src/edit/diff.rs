//! Unified diffs as LLMs write them: parsed leniently, applied as search/replace.
//!
//! Each hunk becomes "context+removed lines → context+added lines", located as whole lines with
//! the same whitespace ladder as `locate` (line content exact, trailing whitespace, indentation,
//! typography). Hunk header numbers only break ties between equal candidates (nearest to the
//! hint plus the offset the previous hunk was found at); hunks may come in any order but must not
//! overlap. Removed lines always have to match; the only context that may be dropped is blank
//! context at the end of a hunk. Context lines are never rewritten: only the removed lines' bytes
//! are spliced, and added lines take the EOL of the line they replace (or follow).
//!
//! Line endings are not part of a diff line (the diff's own CR is stripped), so a LF diff applies
//! to a CRLF file with `matched_with: "exact"`.

use crate::edit::locate::{
    closest, is_anchor, lines_within, stands_in_place, Level, LineIndex, Located, Reindent, Text,
    RULE_NAMES,
};
use crate::edit::splice::Splice;
use crate::error::{Error, Result};

/// One file's part of a diff. A `None` path is `/dev/null` (creation or deletion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePatch {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub hunks: Vec<Hunk>,
}

/// A hunk's body; the header's counts are not kept (they are recounted from the body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// The header's old start line (1-based), when it had one.
    pub old_start_hint: Option<usize>,
    pub lines: Vec<HunkLine>,
    pub no_newline_old: bool,
    pub no_newline_new: bool,
}

/// A hunk line's text, without its prefix and newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HunkLine {
    Context(Vec<u8>),
    Removed(Vec<u8>),
    Added(Vec<u8>),
}

impl HunkLine {
    fn in_old(&self) -> Option<&[u8]> {
        match self {
            HunkLine::Context(t) | HunkLine::Removed(t) => Some(t),
            HunkLine::Added(_) => None,
        }
    }
    fn in_new(&self) -> Option<&[u8]> {
        match self {
            HunkLine::Context(t) | HunkLine::Added(t) => Some(t),
            HunkLine::Removed(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing

const HEADER_PREFIXES: [&[u8]; 12] = [
    b"index ",
    b"new file mode",
    b"deleted file mode",
    b"old mode",
    b"new mode",
    b"similarity index",
    b"dissimilarity index",
    b"rename from",
    b"rename to",
    b"copy from",
    b"copy to",
    b"Binary files",
];

fn path_of(field: &[u8]) -> Option<String> {
    let field = field.split(|&b| b == b'\t').next().unwrap_or_default();
    let s = String::from_utf8_lossy(field).trim().to_string();
    let s = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .map(str::to_string)
        .unwrap_or(s);
    if s == "/dev/null" {
        return None;
    }
    let s = s
        .strip_prefix("a/")
        .or_else(|| s.strip_prefix("b/"))
        .unwrap_or(&s);
    Some(s.to_string())
}

fn git_paths(rest: &[u8]) -> (Option<String>, Option<String>) {
    let s = String::from_utf8_lossy(rest).to_string();
    if let Some(idx) = s.find(" b/") {
        return (
            path_of(&s.as_bytes()[..idx]),
            path_of(&s.as_bytes()[idx + 1..]),
        );
    }
    let mut parts = s.split_whitespace();
    let a = parts.next().and_then(|p| path_of(p.as_bytes()));
    let b = parts.next().and_then(|p| path_of(p.as_bytes()));
    (a, b)
}

/// A hunk header's old start line. Lenient about what models write (`@@`, `@@ @@`, numbers
/// without counts, a missing closing `@@`), but the text after the first `@@` must be numbers or
/// nothing: `Err` for anything else, which is not a hunk header at all.
fn hunk_header(header: &[u8]) -> std::result::Result<Option<usize>, ()> {
    let s = String::from_utf8_lossy(header);
    let inner = s.trim_start_matches('@').trim_start();
    if inner.is_empty() || inner.starts_with("@@") {
        return Ok(None);
    }
    let mut tokens = inner.split_whitespace();
    let range = |tok: Option<&str>, sign: char| -> std::result::Result<usize, ()> {
        let body = tok.and_then(|t| t.strip_prefix(sign)).ok_or(())?;
        let (start, count) = body.split_once(',').unwrap_or((body, "0"));
        count.parse::<usize>().map_err(|_| ())?;
        start.parse::<usize>().map_err(|_| ())
    };
    let old = range(tokens.next(), '-')?;
    let mut next = tokens.next();
    if next.is_some_and(|t| t.starts_with('+')) {
        range(next, '+')?;
        next = tokens.next();
    }
    match next {
        None => Ok(Some(old).filter(|&n| n > 0)),
        Some(t) if t.starts_with("@@") => Ok(Some(old).filter(|&n| n > 0)),
        Some(_) => Err(()),
    }
}

/// Parses a unified diff leniently (see the module doc). Hunks before any `---`/`+++` header go
/// to `default_file`.
pub fn parse(diff: &[u8], default_file: Option<&str>) -> Result<Vec<FilePatch>> {
    let mut raw: Vec<&[u8]> = diff
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect();
    if diff.ends_with(b"\n") {
        raw.pop();
    }
    let mut files: Vec<FilePatch> = Vec::new();
    let mut cur: Option<FilePatch> = None;
    let mut cur_has_paths = false;
    let mut hunk: Option<Hunk> = None;
    // A non-hunk line ended the last hunk: more hunk lines without an `@@` are an error.
    let mut ended_by: Option<usize> = None;

    fn flush_hunk(cur: &mut Option<FilePatch>, hunk: &mut Option<Hunk>) {
        if let (Some(f), Some(h)) = (cur.as_mut(), hunk.take()) {
            f.hunks.push(h);
        }
    }

    let mut i = 0;
    while i < raw.len() {
        let line = raw[i];
        if let Some(rest) = line.strip_prefix(b"diff --git ") {
            flush_hunk(&mut cur, &mut hunk);
            files.extend(cur.take());
            let (old_path, new_path) = git_paths(rest);
            cur = Some(FilePatch {
                old_path,
                new_path,
                hunks: Vec::new(),
            });
            cur_has_paths = false;
            ended_by = None;
            i += 1;
            continue;
        }
        let is_file_header = line.starts_with(b"--- ")
            && raw.get(i + 1).is_some_and(|n| n.starts_with(b"+++ "))
            && (hunk.is_none() || raw.get(i + 2).is_none_or(|n| n.starts_with(b"@@")));
        if is_file_header {
            flush_hunk(&mut cur, &mut hunk);
            let old_path = path_of(&line[4..]);
            let new_path = path_of(&raw[i + 1][4..]);
            match cur.as_mut() {
                Some(f) if f.hunks.is_empty() && !cur_has_paths => {
                    f.old_path = old_path;
                    f.new_path = new_path;
                }
                _ => {
                    files.extend(cur.take());
                    cur = Some(FilePatch {
                        old_path,
                        new_path,
                        hunks: Vec::new(),
                    });
                }
            }
            cur_has_paths = true;
            ended_by = None;
            i += 2;
            continue;
        }
        if line.starts_with(b"@@") {
            flush_hunk(&mut cur, &mut hunk);
            if cur.is_none() {
                let Some(path) = default_file else {
                    return Err(Error::bad_input(format!(
                        "diff line {}: a hunk before any ---/+++ file header",
                        i + 1
                    ))
                    .with_recovery("add ---/+++ lines naming the file, or pass the file"));
                };
                cur = Some(FilePatch {
                    old_path: Some(path.to_string()),
                    new_path: Some(path.to_string()),
                    hunks: Vec::new(),
                });
                cur_has_paths = true;
            }
            let Ok(old_start_hint) = hunk_header(line) else {
                return Err(Error::bad_input(format!(
                    "diff line {}: {:?} is not a hunk header",
                    i + 1,
                    String::from_utf8_lossy(line)
                ))
                .with_data("line", i + 1)
                .with_recovery(
                    "a hunk starts with `@@ -OLD,COUNT +NEW,COUNT @@`, or a bare `@@`",
                ));
            };
            hunk = Some(Hunk {
                old_start_hint,
                lines: Vec::new(),
                no_newline_old: false,
                no_newline_new: false,
            });
            ended_by = None;
            i += 1;
            continue;
        }
        if let Some(h) = hunk.as_mut() {
            match line.first() {
                None => h.lines.push(HunkLine::Context(Vec::new())),
                Some(b' ') => h.lines.push(HunkLine::Context(line[1..].to_vec())),
                Some(b'-') => h.lines.push(HunkLine::Removed(line[1..].to_vec())),
                Some(b'+') => h.lines.push(HunkLine::Added(line[1..].to_vec())),
                Some(b'\\') => match h.lines.last() {
                    Some(HunkLine::Removed(_)) => h.no_newline_old = true,
                    Some(HunkLine::Added(_)) => h.no_newline_new = true,
                    Some(HunkLine::Context(_)) => {
                        h.no_newline_old = true;
                        h.no_newline_new = true;
                    }
                    None => {}
                },
                Some(_) => {
                    flush_hunk(&mut cur, &mut hunk);
                    ended_by = Some(i);
                }
            }
            i += 1;
            continue;
        }
        // Outside any hunk: git headers, prose, fences.
        if HEADER_PREFIXES.iter().any(|p| line.starts_with(p)) {
            i += 1;
            continue;
        }
        if let Some(at) = ended_by {
            if matches!(line.first(), Some(b' ' | b'+' | b'-')) {
                return Err(Error::bad_input(format!(
                    "diff line {}: hunk content after line {} ended the hunk ({:?})",
                    i + 1,
                    at + 1,
                    String::from_utf8_lossy(raw[at])
                ))
                .with_data("line", i + 1)
                .with_recovery(
                    "every line inside a hunk starts with ' ', '-' or '+' (context lines keep \
                     their leading space)",
                ));
            }
        }
        i += 1;
    }
    flush_hunk(&mut cur, &mut hunk);
    files.extend(cur.take());
    if files.is_empty() {
        return Err(Error::bad_input("no hunks found in the diff")
            .with_recovery("hunks start with an @@ line; lines start with ' ', '-' or '+'"));
    }
    Ok(files)
}

/// The content of a file the patch creates (`--- /dev/null`): every context and added line.
pub fn new_file_bytes(patch: &FilePatch) -> Vec<u8> {
    let mut out = Vec::new();
    for h in &patch.hunks {
        for l in &h.lines {
            if let Some(t) = l.in_new() {
                out.extend_from_slice(t);
                out.push(b'\n');
            }
        }
    }
    if patch.hunks.last().is_some_and(|h| h.no_newline_new) && out.ends_with(b"\n") {
        out.pop();
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Applying

const LEVELS: [Level; 4] = [Level::Exact, Level::TrailingWs, Level::Indent, Level::Typo];

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Exact => RULE_NAMES[0],
        Level::TrailingWs => RULE_NAMES[2],
        Level::Indent => RULE_NAMES[3],
        Level::Typo => RULE_NAMES[4],
    }
}

struct Placed {
    hunk: usize,
    start: usize,
    lines: Vec<HunkLine>,
    old_len: usize,
    level: Level,
    reindent: Option<Reindent>,
    already: bool,
}

type Candidates = Vec<(usize, Option<Reindent>)>;

struct Matcher<'a> {
    text: &'a Text<'a>,
    indexes: Vec<Option<LineIndex<'a>>>,
}

impl<'a> Matcher<'a> {
    fn find(&mut self, li: usize, pat: &[&[u8]]) -> Vec<(usize, Option<Reindent>)> {
        let text = self.text;
        self.indexes[li]
            .get_or_insert_with(|| LineIndex::new(text, LEVELS[li]))
            .find(pat)
    }

    /// The first level with candidates for `pat`.
    fn ladder(&mut self, pat: &[&[u8]]) -> Option<(Level, Candidates)> {
        (0..LEVELS.len()).find_map(|li| {
            let c = self.find(li, pat);
            (!c.is_empty()).then_some((LEVELS[li], c))
        })
    }
}

fn hunk_error(h: usize, total: usize, msg: &str) -> Error {
    Error::bad_input(format!("hunk {h} of {total}: {msg}")).with_data("hunk", h)
}

/// Plans every hunk of `patch` against `file`, or fails naming the hunk.
pub fn plan_file(file: &[u8], patch: &FilePatch) -> Result<Located> {
    let text = Text::new(file);
    if patch.old_path.is_none() {
        let new = new_file_bytes(patch);
        if file.is_empty() {
            return Ok(Located {
                splices: vec![Splice::new(0..0, new)],
                matched_with: RULE_NAMES[0],
                already_applied: false,
                lines: vec![(1, 1)],
            });
        }
        if file == new.as_slice() {
            return Ok(Located {
                splices: Vec::new(),
                matched_with: RULE_NAMES[0],
                already_applied: true,
                lines: vec![(1, text.lines().len().max(1))],
            });
        }
        return Err(Error::bad_input(
            "the diff creates the file (--- /dev/null) but it exists with other content",
        )
        .with_recovery("diff against the current content instead of /dev/null"));
    }
    let total = patch.hunks.len();
    let mut matcher = Matcher {
        text: &text,
        indexes: (0..LEVELS.len()).map(|_| None).collect(),
    };
    let mut placed: Vec<Placed> = Vec::new();
    let mut offset: i64 = 0;
    for (hi, hunk) in patch.hunks.iter().enumerate() {
        let p = place(&mut matcher, hunk, hi + 1, total, offset)?;
        if let (Some(hint), false) = (hunk.old_start_hint, p.already) {
            offset = p.start as i64 - (hint as i64 - 1);
        }
        placed.push(p);
    }
    // No two hunks may touch the same lines.
    let mut order: Vec<&Placed> = placed.iter().filter(|p| !p.already).collect();
    order.sort_by_key(|p| (p.start, p.old_len));
    for w in order.windows(2) {
        if w[0].start + w[0].old_len > w[1].start {
            return Err(hunk_error(
                w[1].hunk,
                total,
                &format!(
                    "overlaps hunk {} (both cover line {})",
                    w[0].hunk,
                    w[1].start + 1
                ),
            )
            .with_data("other_hunk", w[0].hunk)
            .with_recovery("merge the two hunks into one"));
        }
    }
    let mut splices = Vec::new();
    for p in &order {
        emit(&text, hunk_of(patch, p), p, &mut splices);
    }
    let level = placed.iter().map(|p| p.level).max().unwrap_or(Level::Exact);
    Ok(Located {
        splices,
        matched_with: level_name(level),
        already_applied: !placed.is_empty() && placed.iter().all(|p| p.already),
        lines: placed
            .iter()
            .map(|p| (p.start + 1, p.start + p.old_len.max(1)))
            .collect(),
    })
}

fn hunk_of<'p>(patch: &'p FilePatch, p: &Placed) -> &'p Hunk {
    &patch.hunks[p.hunk - 1]
}

fn place(m: &mut Matcher, hunk: &Hunk, h: usize, total: usize, offset: i64) -> Result<Placed> {
    let text = m.text;
    let lines = hunk.lines.clone();
    let changes = lines.iter().any(|l| !matches!(l, HunkLine::Context(_)));
    let expected = hunk.old_start_hint.map(|s| s as i64 - 1 + offset);
    let old: Vec<&[u8]> = lines.iter().filter_map(HunkLine::in_old).collect();
    if old.is_empty() && text.lines().is_empty() {
        return Ok(Placed {
            hunk: h,
            start: 0,
            old_len: 0,
            lines,
            level: Level::Exact,
            reindent: None,
            already: false,
        });
    }
    // Try the hunk as given, then without blank context lines at its end.
    let mut attempts = vec![lines.clone()];
    let mut trimmed = lines.clone();
    let mut trimmed_any = false;
    while matches!(trimmed.last(), Some(HunkLine::Context(t)) if t.trim_ascii().is_empty()) {
        trimmed.pop();
        trimmed_any = true;
    }
    if trimmed_any {
        attempts.push(trimmed);
    }
    for (ai, attempt) in attempts.into_iter().enumerate() {
        let old: Vec<&[u8]> = attempt.iter().filter_map(HunkLine::in_old).collect();
        let new: Vec<&[u8]> = attempt.iter().filter_map(HunkLine::in_new).collect();
        let removes = attempt.iter().any(|l| matches!(l, HunkLine::Removed(_)));
        let anchored = attempt
            .iter()
            .any(|l| matches!(l, HunkLine::Context(t) if is_anchor(t)));
        let already = |m: &mut Matcher| -> Option<Placed> {
            let (level, cands) = m.ladder(&new)?;
            let found = (cands.first()?.0 + 1, cands.first()?.0 + new.len());
            let in_place = stands_in_place(text, &joined(&old), anchored, found);
            (cands.len() == 1 && in_place).then(|| Placed {
                hunk: h,
                start: cands[0].0,
                old_len: new.len(),
                lines: attempt.clone(),
                level,
                reindent: None,
                already: true,
            })
        };
        // A pure addition whose result is already there is applied, even though its context
        // (the old side) is still present too.
        if changes && !removes && !new.is_empty() {
            if let Some(p) = already(m) {
                return Ok(p);
            }
        }
        if !old.is_empty() {
            if let Some((level, cands)) = m.ladder(&old) {
                let (start, reindent) = choose(text, cands, expected, h, total)?;
                return Ok(Placed {
                    hunk: h,
                    start,
                    old_len: old.len(),
                    lines: attempt.clone(),
                    level: if ai > 0 {
                        level.max(Level::TrailingWs)
                    } else {
                        level
                    },
                    reindent,
                    already: false,
                });
            }
        }
        // Old side absent: already applied if the new side is there, once (and finding it
        // proves something: it is not a piece of the old side).
        if changes && !new.is_empty() && !lines_within(&new, &old) {
            if let Some(p) = already(m) {
                return Ok(p);
            }
        }
    }
    if old.is_empty() {
        return Err(
            hunk_error(h, total, "has no context or removed lines to place it by")
                .with_recovery("include a few unchanged lines around the addition as context"),
        );
    }
    let search = joined(&old);
    let mut err = hunk_error(h, total, "context and removed lines not found in the file")
        .with_recovery(
            "re-read the region; data.closest shows the nearest lines (- file, + hunk's old side)",
        );
    if let Some(c) = closest(text, &search) {
        err = err.with_data("closest", c);
    }
    Err(err)
}

/// Lines as one text, each ended by a newline.
fn joined(lines: &[&[u8]]) -> Vec<u8> {
    let mut text = Vec::new();
    for l in lines {
        text.extend_from_slice(l);
        text.push(b'\n');
    }
    text
}

fn choose(
    text: &Text,
    cands: Vec<(usize, Option<Reindent>)>,
    expected: Option<i64>,
    h: usize,
    total: usize,
) -> Result<(usize, Option<Reindent>)> {
    if cands.len() == 1 {
        return Ok(cands.into_iter().next().unwrap_or((0, None)));
    }
    let starts: Vec<usize> = cands.iter().map(|c| c.0 + 1).collect();
    if let Some(e) = expected {
        let dist = |c: &(usize, Option<Reindent>)| (c.0 as i64 - e).unsigned_abs();
        let best = cands.iter().map(dist).min().unwrap_or(0);
        if cands.iter().filter(|c| dist(c) == best).count() == 1 {
            let _ = text;
            return Ok(cands
                .into_iter()
                .find(|c| dist(c) == best)
                .unwrap_or((0, None)));
        }
    }
    Err(hunk_error(
        h,
        total,
        &format!(
            "matches {} places (lines {}); the header line number does not decide",
            starts.len(),
            starts
                .iter()
                .take(10)
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .with_data(
        "matches",
        starts.iter().take(10).copied().collect::<Vec<_>>(),
    )
    .with_data("match_count", starts.len())
    .with_recovery("add context lines until the hunk is unique, or give its @@ -line number"))
}

/// Splices for one placed hunk: each run of removed/added lines replaces the removed lines.
fn emit(text: &Text, hunk: &Hunk, p: &Placed, out: &mut Vec<Splice>) {
    let n = text.lines().len();
    let mut at = p.start;
    let mut k = 0;
    while k < p.lines.len() {
        if matches!(p.lines[k], HunkLine::Context(_)) {
            at += 1;
            k += 1;
            continue;
        }
        let run_start = at;
        let mut removed = 0;
        let mut added: Vec<Vec<u8>> = Vec::new();
        while k < p.lines.len() {
            match &p.lines[k] {
                HunkLine::Context(_) => break,
                HunkLine::Removed(_) => removed += 1,
                HunkLine::Added(t) => added.push(match &p.reindent {
                    Some(r) => r.apply(t),
                    None => t.clone(),
                }),
            }
            k += 1;
        }
        at += removed;
        out.push(run_splice(
            text, hunk, p.start, run_start, removed, &added, n,
        ));
    }
}

fn run_splice(
    text: &Text,
    hunk: &Hunk,
    hunk_start: usize,
    a: usize,
    removed: usize,
    added: &[Vec<u8>],
    n: usize,
) -> Splice {
    let b = a + removed;
    let has_eol = |i: usize| i < n && text.lines()[i].end > text.lines()[i].content_end;
    let last_has_eol = n == 0 || has_eol(n - 1);
    let at_eof = b == n;
    let eol_for = |k: usize| -> &[u8] {
        let idx = if removed > 0 {
            a + k.min(removed - 1)
        } else if a > 0 {
            a - 1
        } else {
            a
        };
        if has_eol(idx) {
            text.eol(idx)
        } else {
            text.dominant_eol()
        }
    };
    let mut start = if a < n {
        text.lines()[a].start
    } else {
        text.bytes.len()
    };
    let end = if removed > 0 {
        text.lines()[b - 1].end
    } else {
        start
    };
    let final_nl = if !at_eof {
        true
    } else if hunk.no_newline_new {
        false
    } else if hunk.no_newline_old {
        true
    } else {
        last_has_eol
    };
    let mut body = Vec::new();
    if at_eof && removed == 0 && n > 0 && !last_has_eol && !added.is_empty() {
        body.extend_from_slice(eol_for(0));
    }
    for (k, line) in added.iter().enumerate() {
        body.extend_from_slice(line);
        body.extend_from_slice(eol_for(k));
    }
    if at_eof && !final_nl && !added.is_empty() {
        let eol_len = eol_for(added.len() - 1).len();
        body.truncate(body.len() - eol_len);
    }
    if at_eof && added.is_empty() && removed > 0 && !final_nl && a > hunk_start && a > 0 {
        // The line before the deleted tail becomes the last line: it loses its EOL.
        start = text.lines()[a - 1].content_end;
    }
    Splice::new(start..end, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::splice::apply;

    fn apply_diff(file: &[u8], diff: &[u8]) -> Result<(Vec<u8>, Located)> {
        let patches = parse(diff, Some("f"))?;
        assert_eq!(patches.len(), 1);
        let l = plan_file(file, &patches[0])?;
        Ok((apply(file, &l.splices), l))
    }

    const BASE: &[u8] = b"a\nb\nc\nd\ne\nf\ng\n";

    #[test]
    fn plain_hunk_and_no_numbers() {
        let (out, _) =
            apply_diff(BASE, b"--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n").unwrap();
        assert_eq!(out, b"a\nb\nC\nd\ne\nf\ng\n");
        let (out, _) = apply_diff(BASE, b"@@ @@\n b\n-c\n+C\n d\n").unwrap();
        assert_eq!(out, b"a\nb\nC\nd\ne\nf\ng\n");
        let (out, _) = apply_diff(BASE, b"@@ -9,7 +1,1 @@\n b\n-c\n+C\n d\n").unwrap();
        assert_eq!(out, b"a\nb\nC\nd\ne\nf\ng\n");
    }

    #[test]
    fn crlf_file_and_crlf_diff() {
        let file = b"a\r\nb\r\nc\r\n";
        let (out, l) = apply_diff(file, b"@@ @@\r\n a\r\n-b\r\n+B\r\n+X\r\n c\r\n").unwrap();
        assert_eq!(out, b"a\r\nB\r\nX\r\nc\r\n");
        assert_eq!(l.matched_with, "exact");
    }

    #[test]
    fn shuffled_hunks_and_already_applied() {
        let diff = b"@@ -6 @@\n e\n-f\n+F\n@@ -1 @@\n a\n-b\n+B\n";
        let (out, l) = apply_diff(BASE, diff).unwrap();
        assert_eq!(out, b"a\nB\nc\nd\ne\nF\ng\n");
        assert_eq!(l.lines, vec![(5, 6), (1, 2)]);
        let (again, l) = apply_diff(&out, diff).unwrap();
        assert!(l.already_applied);
        assert_eq!(again, out);
    }

    #[test]
    fn ambiguity_and_hints() {
        let file = b"x\n}\ny\n}\nz\n";
        let err = apply_diff(file, b"@@ @@\n }\n+w\n").unwrap_err();
        assert_eq!(err.data["hunk"], 1);
        assert_eq!(err.data["matches"], serde_json::json!([2, 4]));
        let (out, _) = apply_diff(file, b"@@ -4 @@\n }\n+w\n").unwrap();
        assert_eq!(out, b"x\n}\ny\n}\nw\nz\n");
    }

    #[test]
    fn no_final_newline() {
        let file = b"a\nb\nc";
        let (out, _) = apply_diff(file, b"@@ @@\n b\n-c\n+C\n").unwrap();
        assert_eq!(out, b"a\nb\nC");
        let (out, _) =
            apply_diff(file, b"@@ @@\n b\n-c\n\\ No newline at end of file\n+C\n").unwrap();
        assert_eq!(out, b"a\nb\nC\n");
        let (out, _) = apply_diff(file, b"@@ @@\n b\n c\n+d\n").unwrap();
        assert_eq!(out, b"a\nb\nc\nd");
        let (out, _) = apply_diff(
            b"a\nb\n",
            b"@@ @@\n a\n-b\n+B\n\\ No newline at end of file\n",
        )
        .unwrap();
        assert_eq!(out, b"a\nB");
    }

    #[test]
    fn changed_context_refuses_with_closest() {
        let err = apply_diff(BASE, b"@@ @@\n b\n-c\n+C\n D\n").unwrap_err();
        assert_eq!(err.data["hunk"], 1);
        assert!(err.data["closest"]["diff"].as_str().unwrap().contains("+D"));
    }

    #[test]
    fn trailing_blank_context_and_garbage() {
        let (out, l) =
            apply_diff(BASE, b"```diff\n@@ @@\n f\n-g\n+G\n\n```\nThat's it.\n").unwrap();
        assert_eq!(out, b"a\nb\nc\nd\ne\nf\nG\n");
        assert_eq!(l.matched_with, "trailing_whitespace");
        assert!(apply_diff(BASE, b"@@ @@\n a\nnot a hunk line\n-b\n").is_err());
    }

    #[test]
    fn multi_file_new_and_deleted() {
        let diff = b"diff --git a/x.rs b/x.rs\nindex 1..2 100644\n--- a/x.rs\t2024-01-01\n+++ b/x.rs\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
        let p = parse(diff, None).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].old_path.as_deref(), Some("x.rs"));
        assert_eq!(p[1].old_path, None);
        assert_eq!(new_file_bytes(&p[1]), b"one\ntwo");
        assert_eq!(p[2].new_path, None);
        let l = plan_file(b"bye\n", &p[2]).unwrap();
        assert_eq!(apply(b"bye\n", &l.splices), b"");
        assert!(parse(b"@@ @@\n-a\n", None).is_err());
    }

    #[test]
    fn removed_line_sql_comment_is_not_a_header() {
        let file = b"select 1;\n-- old\n++ x\n";
        let (out, _) = apply_diff(file, b"@@ @@\n select 1;\n--- old\n+++ x\n ++ x\n").unwrap();
        assert_eq!(out, b"select 1;\n++ x\n++ x\n");
    }

    #[test]
    fn indentation_reindents_added_lines() {
        let file = b"fn f() {\n    if a {\n        b();\n    }\n}\n";
        let (out, l) = apply_diff(
            file,
            b"@@ @@\n if a {\n-    b();\n+    c();\n+    d();\n }\n",
        )
        .unwrap();
        assert_eq!(l.matched_with, "indentation");
        assert_eq!(
            out,
            b"fn f() {\n    if a {\n        c();\n        d();\n    }\n}\n"
        );
    }
}
