//! Applying a file's hunks: each located as whole lines with the loosening ladder, ties broken
//! by the header's line numbers, then only the removed lines' bytes spliced.

use super::parse::new_file_bytes;
use super::{FilePatch, Hunk, HunkLine};
use crate::locate::{
    closest, is_anchor, lines_within, stands_in_place, Level, LineIndex, Located, Reindent, Text,
    RULE_NAMES,
};

use crate::splice::Splice;
use coderd_core::error::{Error, Result};

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
    pub(super) fn find(&mut self, li: usize, pat: &[&[u8]]) -> Vec<(usize, Option<Reindent>)> {
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
