//! Producing the new bytes: the planned line ops in one pass over the original lines, then the
//! replace ops in order, each shifting the regions echoed so far.

use super::plan::snippet;
use super::{count_newlines, dominant_eol, eol, op_error, text, EchoKind, Plan, CRLF, MAX_SITES};
use crate::locate::Line;
use crate::splice::{self, Splice};
use coderd_core::error::{Error, Result};
use regex::bytes::Regex;
use std::ops::Range;

/// A block of lines one op wrote (or a match site), in the numbering of the body at hand.
#[derive(Clone, Debug)]
pub(super) struct Region {
    pub(super) op: usize,
    pub(super) kind: EchoKind,
    /// 1-based first line; for an empty block, the line after the gap.
    pub(super) start: usize,
    /// Number of lines (0: a gap).
    pub(super) len: usize,
    /// Replace sites: the op's total number of matches.
    pub(super) replacements: Option<usize>,
}

/// A stretch of the new body: original lines kept as they are, or one line written anew.
enum Piece<'a> {
    /// Original lines (0-based), their bytes and EOLs unchanged.
    Kept(Range<usize>),
    Written {
        text: &'a [u8],
        eol: &'a [u8],
    },
}

/// The file after the line ops (BOM in front) and the splices of the old file that give it.
/// Lines no op touches are copied a stretch at a time; only the written lines are assembled.
pub(super) fn apply_line_ops(
    file: &[u8],
    bom: usize,
    lines: &[Line],
    plans: &[Plan<'_>],
    regions: &mut Vec<Region>,
) -> (Vec<u8>, Vec<Splice>) {
    let body = &file[bom..];
    let dominant = dominant_eol(lines);
    let mut pieces = pieces(body, lines, plans, dominant, regions);
    keep_the_end(body, lines, dominant, &mut pieces);
    let written: usize = plans
        .iter()
        .flat_map(|p| &p.content)
        .map(|l| l.len() + CRLF.len())
        .sum();
    let mut out = splice::spare::take(file.len() + written);
    out.extend_from_slice(&file[..bom]);
    // Old bytes replaced and the new bytes in `out` that replace them, per gap between kept
    // stretches; old bytes before `kept_to` are accounted for.
    let mut gaps: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut kept_to = bom;
    let mut written_from: Option<usize> = None;
    for piece in &pieces {
        match piece {
            Piece::Written { text, eol } => {
                written_from.get_or_insert(out.len());
                out.extend_from_slice(text);
                out.extend_from_slice(eol);
            }
            Piece::Kept(range) => {
                let from = bom + lines[range.start].start;
                let to = bom + lines[range.end - 1].end;
                if from > kept_to || written_from.is_some() {
                    let new_from = written_from.take().unwrap_or(out.len());
                    gaps.push((kept_to..from, new_from..out.len()));
                }
                out.extend_from_slice(&file[from..to]);
                kept_to = to;
            }
        }
    }
    if kept_to < file.len() || written_from.is_some() {
        let new_from = written_from.unwrap_or(out.len());
        gaps.push((kept_to..file.len(), new_from..out.len()));
    }
    let splices = gaps
        .into_iter()
        .map(|(old, new)| Splice::new(old, &out[new]))
        .collect();
    (out, splices)
}

/// The new body as kept stretches and written lines, in order (the EOL rule applied to written
/// lines); notes each op's block, in the new numbering, in `regions`.
fn pieces<'a>(
    body: &'a [u8],
    lines: &[Line],
    plans: &[Plan<'a>],
    dominant: &'static [u8],
    regions: &mut Vec<Region>,
) -> Vec<Piece<'a>> {
    // Original line k's EOL (1-based), or the dominant one when it has none.
    let eol_of = |k: usize| -> &'a [u8] {
        match k.checked_sub(1).and_then(|i| lines.get(i)) {
            Some(line) if line.end > line.content_end => eol(body, line),
            _ => dominant,
        }
    };
    let grown: usize = plans.iter().map(|p| p.content.len()).sum();
    let mut pieces = Vec::with_capacity(plans.len() + grown + 1);
    let (mut cursor, mut new_lines) = (0, 0);
    for plan in plans {
        if cursor < plan.drop.start {
            pieces.push(Piece::Kept(cursor..plan.drop.start));
            new_lines += plan.drop.start - cursor;
        }
        for (i, text) in plan.content.iter().enumerate() {
            let line_eol = match plan.kind {
                EchoKind::Insert => eol_of(plan.cover.0.min(lines.len())),
                _ => eol_of((plan.cover.0 + i).min(plan.cover.1)),
            };
            pieces.push(Piece::Written {
                text,
                eol: line_eol,
            });
        }
        regions.push(Region {
            op: plan.index,
            kind: plan.kind,
            start: new_lines + 1,
            len: plan.content.len(),
            replacements: None,
        });
        new_lines += plan.content.len();
        cursor = plan.drop.end;
    }
    if cursor < lines.len() {
        pieces.push(Piece::Kept(cursor..lines.len()));
    }
    pieces
}

/// The final newline rule, which only concerns the end: a body that did not end with a newline
/// still does not, and its old last line, when lines now follow it, gains the dominant EOL.
fn keep_the_end<'a>(
    body: &'a [u8],
    lines: &[Line],
    dominant: &'static [u8],
    pieces: &mut Vec<Piece<'a>>,
) {
    if body.is_empty() || body.ends_with(b"\n") {
        return;
    }
    let len = lines.len();
    // Replaces the last line of the kept stretch at `at` with a written copy ending in `eol`.
    let rewrite_last = |pieces: &mut Vec<Piece<'a>>, at: usize, eol: &'a [u8]| {
        let Some(Piece::Kept(range)) = pieces.get_mut(at) else {
            return;
        };
        range.end -= 1;
        let copy = Piece::Written {
            text: text(body, &lines[range.end]),
            eol,
        };
        if range.start == range.end {
            pieces[at] = copy;
        } else {
            pieces.insert(at + 1, copy);
        }
    };
    let last = pieces.len().wrapping_sub(1);
    match pieces.last_mut() {
        None => {}
        // The old last line is still last, as it was.
        Some(Piece::Kept(range)) if range.end == len => {}
        // An earlier line became last: it loses its EOL.
        Some(Piece::Kept(_)) => rewrite_last(pieces, last, &[]),
        Some(Piece::Written { eol, .. }) => {
            *eol = &[];
            // Lines were appended after the old last line: it gains the dominant EOL.
            let old_last = pieces
                .iter()
                .rposition(|p| matches!(p, Piece::Kept(r) if r.end == len));
            if let Some(at) = old_last {
                rewrite_last(pieces, at, dominant);
            }
        }
    }
}

/// One match of a replace op that changed the line structure, in the op's input numbering.
struct Shift {
    /// Line the match starts on.
    first: usize,
    /// Line the match ends on.
    last: usize,
    /// Newlines in the replacement.
    newlines: usize,
    /// Net line change of all earlier shifts of the op.
    before: isize,
}

impl Shift {
    fn delta(&self) -> isize {
        self.newlines as isize - (self.last - self.first) as isize
    }
}

/// Where input line `line` of a replace op ends up: lines up to a match's first line stay,
/// lines after its last line move by the net change, lines inside it are clamped into the
/// replacement's lines.
fn map_line(line: usize, shifts: &[Shift]) -> usize {
    let at = shifts.partition_point(|s| s.first < line);
    let Some(shift) = at.checked_sub(1).map(|i| &shifts[i]) else {
        return line;
    };
    let moved = if line > shift.last {
        line as isize + shift.before + shift.delta()
    } else {
        (line.min(shift.first + shift.newlines)) as isize + shift.before
    };
    moved.max(1) as usize
}

/// One replace op, compiled.
pub(super) struct Replace<'a> {
    pub(super) index: usize,
    pub(super) re: &'a Regex,
    pub(super) pattern: &'a str,
    pub(super) replacement: &'a str,
    pub(super) expect_matches: Option<usize>,
}

impl Replace<'_> {
    /// The op's splices of `file` (its body after the BOM's `bom` bytes): none when nothing
    /// matches. Moves the earlier ops' regions to where the splices put them and adds this
    /// op's match sites.
    pub(super) fn splices(
        &self,
        file: &[u8],
        bom: usize,
        regions: &mut Vec<Region>,
    ) -> Result<Vec<Splice>> {
        let Replace {
            index,
            re,
            pattern,
            replacement,
            expect_matches,
        } = *self;
        let body = &file[bom..];
        let mut splices = Vec::new();
        let mut shifts: Vec<Shift> = Vec::new();
        let mut sites: Vec<(usize, usize)> = Vec::new();
        let mut net: isize = 0;
        let (mut scanned, mut line) = (0, 1);
        for caps in re.captures_iter(body) {
            let found = caps.get(0).expect("group 0 always matches");
            line += count_newlines(&body[scanned..found.start()]);
            scanned = found.start();
            let mut expanded = Vec::new();
            caps.expand(replacement.as_bytes(), &mut expanded);
            let newlines_in = count_newlines(found.as_bytes());
            let newlines_out = count_newlines(&expanded);
            let out_first = (line as isize + net) as usize;
            if sites.len() < MAX_SITES {
                // A replacement ending in `\n` ends its last line; it does not touch the next one.
                let span =
                    newlines_out - usize::from(newlines_out > 0 && expanded.ends_with(b"\n"));
                sites.push((out_first, span + 1));
            }
            if newlines_in > 0 || newlines_out > 0 {
                let shift = Shift {
                    first: line,
                    last: line + newlines_in,
                    newlines: newlines_out,
                    before: net,
                };
                net += shift.delta();
                shifts.push(shift);
            }
            splices.push(Splice::new(
                bom + found.start()..bom + found.end(),
                expanded,
            ));
        }
        let total = splices.len();
        if let Some(expected) = expect_matches {
            if total != expected {
                return Err(expect_mismatch(index, pattern, total, expected));
            }
        }
        if total == 0 {
            return Ok(splices);
        }
        for region in regions.iter_mut() {
            let start = map_line(region.start, &shifts);
            if region.len > 0 {
                let end = map_line(region.start + region.len - 1, &shifts);
                region.len = end.saturating_sub(start) + 1;
            }
            region.start = start;
        }
        regions.extend(sites.into_iter().map(|(start, len)| Region {
            op: index,
            kind: EchoKind::Replace,
            start,
            len,
            replacements: Some(total),
        }));
        Ok(splices)
    }
}

fn expect_mismatch(index: usize, pattern: &str, actual: usize, expected: usize) -> Error {
    let times = |n: usize| {
        if n == 1 {
            "1 time".to_string()
        } else {
            format!("{n} times")
        }
    };
    let shown = snippet(pattern);
    let (message, hint) = if actual == 0 {
        (
            format!("replace pattern {shown} matched 0 times, expected {expected}"),
            "check the anchor text with search; a pattern spanning lines needs \
             dot_matches_newline: true (or \\n in the pattern)"
                .to_string(),
        )
    } else if expected == 0 {
        (
            format!(
                "replace pattern {shown} matched {}, expected 0 (absence asserted)",
                times(actual)
            ),
            "look at the matches with search before replacing".to_string(),
        )
    } else {
        (
            format!(
                "replace pattern {shown} matched {}, expected {expected}",
                times(actual)
            ),
            format!(
                "anchor the pattern on more surrounding text, or set expect_matches: {actual} \
                 to replace them all"
            ),
        )
    };
    op_error(index, format!("{message}; nothing was written"), hint)
        .with_data("matches", actual)
        .with_data("expect_matches", expected)
}
