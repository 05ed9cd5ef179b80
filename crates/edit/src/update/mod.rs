//! iii's `coder::update-file` semantics on one file's bytes: batched line ops (`insert`, `remove`,
//! `update_lines`) and regex `replace` ops, with bounded post-apply echoes. Pure: no I/O; the
//! caller reads the file, calls [`apply`], and commits [`Applied::bytes`] (or nothing on error).
//!
//! # The file model
//!
//! A *line* is the bytes up to and including a `\n`, plus a last line without one if the file does
//! not end in `\n` (the same count as `read`: newlines, plus one for an unterminated tail). A
//! line's EOL is `\r\n` when the `\n` follows a `\r`, `\n` otherwise, and empty for an unterminated
//! last line; a lone `\r` is text. A leading UTF-8 BOM is not part of line 1: it is kept in front
//! of the file whatever the ops do (an insert at line 1 lands after it, a regex never sees it).
//! Bytes are never decoded, so Latin-1 or other non-UTF-8 bytes outside the edited lines survive.
//!
//! # Line ops
//!
//! * 1-based and inclusive; validated against the ORIGINAL line count `len`: `insert.at_line` in
//!   `1..=len+1` (`len+1` appends), `remove`/`update_lines` need `1 <= from_line <= to_line <= len`.
//! * Every line op uses the caller's original numbering (iii applies them bottom-up; applying the
//!   non-overlapping ops in one pass over the original lines gives the same bytes).
//! * **Overlap rule.** Each line op covers an interval of original lines: `insert` at N covers
//!   `[N, N]`, `remove`/`update_lines` cover `[from_line, to_line]`. Two line ops whose intervals
//!   intersect are rejected with C210. So two inserts at the same line conflict; an insert at N
//!   conflicts with a range `a..=b` when `a <= N <= b` (inserting right before the range's first
//!   line too; at `b+1`, right after it, is fine); adjacent ranges (`b+1 == a'`) do not conflict.
//! * `content` splits like `str::lines`: on `\n`, one final `\n` does not start another line, and
//!   trailing `\r`s of each line are dropped. `""` is zero lines (an `update_lines` with `""`
//!   removes), `"\n"` is one empty line, `"a"` and `"a\n"` are both the one line `a`.
//! * **EOL rule.** The file's *dominant* EOL is the more frequent of `\r\n`/`\n` among its line
//!   ends (a tie goes to the first terminated line's EOL; a file with no line end uses `\n`).
//!   "`eol(k)`" below is original line k's EOL, or the dominant EOL when line k has none.
//!   - `update_lines a..=b`: the i-th new line takes `eol(a+i)`, lines past `b` take `eol(b)`.
//!   - `insert` at N: every new line takes `eol(N)` (the line it is inserted in front of); when
//!     appending (N = len+1) `eol(len)`; in an empty file the dominant EOL (`\n`).
//!   - Untouched lines keep their own EOL, so a CRLF file stays CRLF and a mixed file stays mixed.
//! * **Final newline rule.** Line ops preserve whether the file ends with a newline. If it did
//!   not (non-empty, no final `\n`), the new last line has no EOL: appending makes the previous
//!   last line gain the dominant EOL and leaves the appended last line open (`a\nb` + insert `c`
//!   at 3 = `a\nb\nc`), and removing the last line strips the EOL of the line that becomes last
//!   (`a\nb\nc` remove 3..3 = `a\nb`). An empty file counts as ending with a newline: inserting
//!   `x` into it gives `x\n` (iii gives `x`).
//!
//! # Replace ops
//!
//! Run after all line ops, in array order, each on the whole body the previous op produced (BOM
//! excluded), with `regex::bytes` (Unicode mode, so `.` matches a UTF-8 character: it does not
//! match a byte of invalid UTF-8, use `(?-u:.)` for any byte). `^`/`$` anchor the body unless the
//! pattern says `(?m)`. `dot_matches_newline` lets `.` match `\n`. `expect_matches: N` fails
//! with C210 unless exactly N matches (0 asserts absence). The replacement expands `$1`, `${1}`,
//! `$name`, `${name}` like `regex`'s `Captures::expand`: an unbraced reference takes the longest
//! run of `[0-9A-Za-z_]` (`$1a` is the group named `1a`), `${...}` takes anything up to `}`, `$$`
//! is a literal `$`, and a `$` that starts no reference (`$ `, a trailing `$`, an unclosed `${`)
//! is literal. A reference to a group the pattern does not define is C210, checked for every op
//! before anything is applied (even if the op would match nothing). An empty or invalid pattern
//! is C210 too.
//!
//! # Echoes
//!
//! Built from the FINAL bytes, in op order ([`Echo`] documents the fields). A line op echoes the
//! lines it wrote with 2 lines of context each side (a removal echoes the 2 lines before and the
//! 2 after the gap); windows over 20 lines keep the first and last 8 and count the rest in
//! `elided`. A replace op echoes its first 5 match sites: the first and last line of each site's
//! post-replace region, the lines between counted in `elided`. A region is mapped through the
//! later replace ops, so its line numbers are those of the final file. Echoed text is capped at
//! 4 KiB (each echo costs its lines' bytes plus one per line plus 64): the first echo always goes
//! out, and the first echo that does not fit ends the list and sets `echoes_truncated`. Each
//! echoed line is shown lossily as UTF-8 without its EOL and cut at 1 KiB (`clipped`).
//!
//! # Errors
//!
//! Every failure is C210 with a message starting `ops[j]:` (the caller prefixes `files[i].`),
//! `data.op = j`, and a recovery hint. Nothing is applied unless everything succeeds.

use std::borrow::Cow;
use std::ops::Range;

use schemars::JsonSchema;
use serde::Deserialize;

use super::locate::{split_lines, Line};
use crate::splice::{self, Splice};
use coderd_core::error::{Error, Result};

mod echo;
mod plan;
mod rewrite;

use super::stat::spliced_stat;
use echo::build_echoes;
use plan::{compile_replaces, plan_line_ops};
use rewrite::{apply_line_ops, Region, Replace};

/// Context lines each side of a line op's echo.
const CONTEXT: usize = 2;
/// Longest line-op echo window shown whole; longer ones keep a head and a tail.
const ECHO_MAX_LINES: usize = 20;
const ECHO_HEAD_TAIL: usize = 8;
/// Echoed text per call (per file), as iii.
pub const ECHO_BUDGET_BYTES: usize = 4 * 1024;
/// Budget charged per echo on top of its text.
const ECHO_OVERHEAD: usize = 64;
/// Match sites echoed per replace op.
const MAX_SITES: usize = 5;
/// Bytes of one echoed line shown before it is clipped.
const ECHO_LINE_MAX: usize = 1024;
const BOM: &[u8] = b"\xEF\xBB\xBF";
const LF: &[u8] = b"\n";
const CRLF: &[u8] = b"\r\n";

/// One edit of an `update-file` entry. Line numbers are 1-based, inclusive, and always refer to
/// the file as it was before any op of the request.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Insert `content` before line `at_line`; `at_line` = line count + 1 appends.
    Insert { at_line: usize, content: String },
    /// Delete lines `from_line..=to_line`.
    Remove { from_line: usize, to_line: usize },
    /// Replace lines `from_line..=to_line` with `content` (`""` deletes them).
    UpdateLines {
        from_line: usize,
        to_line: usize,
        content: String,
    },
    /// Regex substitution over the whole file, after all line ops.
    Replace {
        /// A `regex` crate pattern.
        pattern: String,
        /// `$1`, `${1}`, `$name`, `${name}` expand captures (`$1a` names the group `1a`; write
        /// `${1}a`); `$$` is a literal `$`. A reference to an undefined group is an error.
        replacement: String,
        /// Let `.` match `\n`, e.g. `start.*?end` over several lines.
        #[serde(default)]
        dot_matches_newline: bool,
        /// Match letters in any case (as the pattern's own `(?i)` does).
        #[serde(default)]
        ignore_case: bool,
        /// Fail (nothing written) unless the pattern matches exactly this often; 0 asserts absence.
        expect_matches: Option<usize>,
    },
}

impl Op {
    fn kind(&self) -> EchoKind {
        match self {
            Op::Insert { .. } => EchoKind::Insert,
            Op::Remove { .. } => EchoKind::Remove,
            Op::UpdateLines { .. } => EchoKind::UpdateLines,
            Op::Replace { .. } => EchoKind::Replace,
        }
    }
}

/// What the ops wrote, echoed in the answer: the wire's types, shared with clients.
pub use wire::answers::edit::{Echo, EchoKind, EchoLine};

/// The outcome of [`apply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The new file.
    pub bytes: Vec<u8>,
    /// Splices of the old file that give `bytes` (sorted), so the commit updates the document's
    /// rope where the ops changed it instead of rebuilding it.
    pub splices: Vec<Splice>,
    pub echoes: Vec<Echo>,
    /// Set when the echo budget ran out before every echo was returned.
    pub echoes_truncated: bool,
    /// A line diff of old against new bytes (git's numstat: a changed line is one removed and
    /// one added; EOL changes count).
    pub lines_added: usize,
    pub lines_removed: usize,
}

/// Applies `ops` to `file` with iii's `update-file` semantics (see the module documentation).
pub fn apply(file: &[u8], ops: &[Op]) -> Result<Applied> {
    if ops.is_empty() {
        return Err(Error::bad_input("ops must not be empty")
            .with_recovery("pass at least one insert, remove, update_lines or replace op"));
    }
    let bom = if file.starts_with(BOM) { BOM.len() } else { 0 };
    let body = &file[bom..];
    let lines = split_lines(body);
    let plans = plan_line_ops(ops, lines.len())?;
    let regexes = compile_replaces(ops)?;

    let mut regions: Vec<Region> = Vec::new();
    // The file as the ops so far leave it, and the splices of the old file that give it.
    let (mut now, mut splices) = if plans.is_empty() {
        (Cow::Borrowed(file), Vec::new())
    } else {
        let (bytes, splices) = apply_line_ops(file, bom, &lines, &plans, &mut regions);
        (Cow::Owned(bytes), splices)
    };
    for (index, op) in ops.iter().enumerate() {
        let (
            Op::Replace {
                pattern,
                replacement,
                expect_matches,
                ..
            },
            Some(re),
        ) = (op, &regexes[index])
        else {
            continue;
        };
        let found = Replace {
            index,
            re,
            pattern,
            replacement,
            expect_matches: *expect_matches,
        }
        .splices(&now, bom, &mut regions)?;
        if found.is_empty() {
            continue;
        }
        let next = splice::apply(&now, &found);
        splices = splice::compose(&splices, &found, &next);
        if let Cow::Owned(done) = std::mem::replace(&mut now, Cow::Owned(next)) {
            splice::spare::give(done);
        }
    }

    let (lines_added, lines_removed) = spliced_stat(body, &now[bom..], &splices, bom);
    let (echoes, echoes_truncated) = build_echoes(&regions, &now[bom..]);
    Ok(Applied {
        bytes: now.into_owned(),
        splices,
        echoes,
        echoes_truncated,
        lines_added,
        lines_removed,
    })
}

// ---------------------------------------------------------------------------------------------
// Lines

/// A line's text, without its EOL.
fn text<'a>(body: &'a [u8], line: &Line) -> &'a [u8] {
    &body[line.start..line.content_end]
}

/// A line's EOL: `\r\n`, `\n`, or empty for an unterminated last line.
fn eol<'a>(body: &'a [u8], line: &Line) -> &'a [u8] {
    &body[line.content_end..line.end]
}

/// `content` as lines, the way `str::lines` splits it, trailing `\r`s dropped.
fn content_lines(content: &str) -> Vec<&[u8]> {
    let bytes = content.as_bytes();
    if bytes.is_empty() {
        return Vec::new();
    }
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes
        .split(|&b| b == b'\n')
        .map(|line| {
            let keep = line.iter().rposition(|&b| b != b'\r').map_or(0, |i| i + 1);
            &line[..keep]
        })
        .collect()
}

fn dominant_eol(lines: &[Line]) -> &'static [u8] {
    let eol_len = |l: &Line| l.end - l.content_end;
    let crlf = lines.iter().filter(|l| eol_len(l) == CRLF.len()).count();
    let lf = lines.iter().filter(|l| eol_len(l) == LF.len()).count();
    match crlf.cmp(&lf) {
        std::cmp::Ordering::Greater => CRLF,
        std::cmp::Ordering::Less => LF,
        std::cmp::Ordering::Equal => match lines.iter().find(|l| eol_len(l) > 0) {
            Some(l) if eol_len(l) == CRLF.len() => CRLF,
            _ => LF,
        },
    }
}

fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

// ---------------------------------------------------------------------------------------------
// Validation

/// A validated line op: the original lines it drops and the content it puts in their place.
struct Plan<'o> {
    index: usize,
    kind: EchoKind,
    /// Covered original lines, 1-based inclusive (an insert covers its `at_line`).
    cover: (usize, usize),
    /// 0-based original lines replaced (empty for an insert).
    drop: Range<usize>,
    content: Vec<&'o [u8]>,
}

fn op_error(index: usize, message: impl std::fmt::Display, hint: impl Into<String>) -> Error {
    Error::bad_input(format!("ops[{index}]: {message}"))
        .with_recovery(hint)
        .with_data("op", index)
}

#[cfg(test)]
mod tests;
