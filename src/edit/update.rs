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
use std::time::{Duration, Instant};

use regex::bytes::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::locate::{split_lines, Line};
use super::regex_cache;
use crate::edit::splice::{self, Splice};
use crate::error::{Error, Result};

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
/// How long the line diff behind `lines_added`/`lines_removed` may search for a minimal diff.
const DIFF_DEADLINE: Duration = Duration::from_millis(200);
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

/// Which op an echo belongs to (the op's `op` tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EchoKind {
    Insert,
    Remove,
    UpdateLines,
    Replace,
}

/// One echoed line of the new file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct EchoLine {
    /// 1-based line number in the new file.
    pub line: usize,
    /// The line without its EOL, as UTF-8 (invalid bytes shown as U+FFFD).
    pub text: String,
    /// True when `text` was cut at 1 KiB.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clipped: bool,
}

/// A post-apply view of what one op wrote, in the new file's numbering.
///
/// For a line op, `start_line..=end_line` is the block of lines the op wrote, and `lines` adds up
/// to 2 lines of context each side. When the op wrote no line (a removal, or empty content) the
/// block is empty: `end_line` is `start_line` minus one and `start_line` is the line after the gap.
/// For a replace op there is one echo per match site (the first 5): `start_line..=end_line` is the
/// site's post-replace region and `lines` holds its first and last line. `elided` counts the
/// lines of the window not shown (the gap in the `line` numbers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Echo {
    /// Index of the op in `ops`.
    pub op: usize,
    pub kind: EchoKind,
    /// First line the op wrote (or, for an empty block, the line after the gap).
    pub start_line: usize,
    /// Last line the op wrote; `start_line - 1` for an empty block.
    pub end_line: usize,
    /// The echoed lines, in order, each with its line number.
    pub lines: Vec<EchoLine>,
    /// Lines of the window left out of `lines` (windows over 20 lines keep the first and last 8;
    /// replace sites over 2 lines keep the first and last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elided: Option<usize>,
    /// Replace ops only: how many matches the op replaced in all (sites beyond 5 are not echoed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacements: Option<usize>,
}

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

fn plan_line_ops(ops: &[Op], len: usize) -> Result<Vec<Plan<'_>>> {
    let renumber = format!(
        "the file has {len} line{}; every line op uses the original numbering (not the one after \
         earlier ops); read the lines again if unsure",
        if len == 1 { "" } else { "s" }
    );
    let mut plans = Vec::new();
    for (index, op) in ops.iter().enumerate() {
        let plan = match op {
            Op::Insert { at_line, content } => {
                if *at_line == 0 || *at_line > len + 1 {
                    return Err(op_error(
                        index,
                        format!(
                            "insert at_line {at_line} is out of range: the file has {len} lines, \
                             so at_line must be 1..={} ({} appends)",
                            len + 1,
                            len + 1
                        ),
                        renumber.clone(),
                    )
                    .with_data("total_lines", len));
                }
                Plan {
                    index,
                    kind: EchoKind::Insert,
                    cover: (*at_line, *at_line),
                    drop: at_line - 1..at_line - 1,
                    content: content_lines(content),
                }
            }
            Op::Remove { from_line, to_line }
            | Op::UpdateLines {
                from_line, to_line, ..
            } => {
                let name = if matches!(op, Op::Remove { .. }) {
                    "remove"
                } else {
                    "update_lines"
                };
                let problem = if *from_line == 0 {
                    Some("line numbers are 1-based".to_string())
                } else if from_line > to_line {
                    Some(format!("from_line {from_line} is after to_line {to_line}"))
                } else if *to_line > len {
                    Some(format!("to_line {to_line} is past the end of the file"))
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err(op_error(
                        index,
                        format!(
                            "{name} from_line {from_line} to_line {to_line} is out of range: \
                             {problem}; the file has {len} lines, so lines must be within 1..={len}"
                        ),
                        renumber.clone(),
                    )
                    .with_data("total_lines", len));
                }
                let content = match op {
                    Op::UpdateLines { content, .. } => content_lines(content),
                    _ => Vec::new(),
                };
                Plan {
                    index,
                    kind: op.kind(),
                    cover: (*from_line, *to_line),
                    drop: from_line - 1..*to_line,
                    content,
                }
            }
            Op::Replace { .. } => continue,
        };
        plans.push(plan);
    }
    plans.sort_by_key(|p| (p.cover, p.index));
    for pair in plans.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if b.cover.0 <= a.cover.1 {
            let (first, second) = if a.index < b.index { (a, b) } else { (b, a) };
            return Err(op_error(
                second.index,
                format!(
                    "overlaps ops[{}] in original-line space: {} and {} (two line ops may not \
                     touch the same original line, and an insert may not sit at a line another \
                     op removes or updates)",
                    first.index,
                    describe(ops, first.index),
                    describe(ops, second.index),
                ),
                "merge them into one update_lines over the whole range, or move the insert \
                 outside the range (at to_line + 1 to insert after it); all line ops use the \
                 original numbering",
            )
            .with_data("conflicts_with", first.index));
        }
    }
    Ok(plans)
}

fn describe(ops: &[Op], index: usize) -> String {
    match &ops[index] {
        Op::Insert { at_line, .. } => format!("ops[{index}] inserts at line {at_line}"),
        Op::Remove { from_line, to_line } => {
            format!("ops[{index}] removes lines {from_line}-{to_line}")
        }
        Op::UpdateLines {
            from_line, to_line, ..
        } => format!("ops[{index}] updates lines {from_line}-{to_line}"),
        Op::Replace { .. } => format!("ops[{index}] replaces"),
    }
}

fn compile_replaces(ops: &[Op]) -> Result<Vec<Option<Regex>>> {
    let mut compiled = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let Op::Replace {
            pattern,
            replacement,
            dot_matches_newline,
            ..
        } = op
        else {
            compiled.push(None);
            continue;
        };
        if pattern.is_empty() {
            return Err(op_error(
                index,
                "replace pattern is empty",
                "give a pattern that matches the text to replace",
            ));
        }
        let re = regex_cache::compiled(pattern, *dot_matches_newline).map_err(|e| {
            op_error(
                index,
                format!("invalid regex {}: {e}", snippet(pattern)),
                "fix the pattern; escape metacharacters such as ( ) [ ] { } . * + ? | \\ \
                     with a backslash to match them literally",
            )
            .with_data("pattern", pattern.as_str())
        })?;
        check_references(index, &re, pattern, replacement)?;
        compiled.push(Some(re));
    }
    Ok(compiled)
}

/// A pattern for a message, cut to 60 characters.
fn snippet(pattern: &str) -> String {
    const MAX: usize = 60;
    match pattern.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}…", &pattern[..cut]),
        None => format!("{pattern:?}"),
    }
}

/// A capture reference in a replacement, as `Captures::expand` reads it.
#[derive(Debug, PartialEq, Eq)]
enum CapRef<'r> {
    Number(usize),
    Name(&'r str),
}

/// The capture references of `replacement` with the text each was written as (`$1a`, `${x}`).
/// The rules are `regex`'s interpolation rules: `$$` is a literal `$`; `${` starts a braced
/// reference that runs to the next `}` (no `}`: the `$` is literal); otherwise the reference is
/// the longest run of ASCII letters, digits and `_` after the `$` (none: the `$` is literal). A
/// reference that parses as a `usize` is a group number, anything else a group name.
fn references(replacement: &str) -> Vec<(&str, CapRef<'_>)> {
    let bytes = replacement.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'$', &bytes[at..]) {
        let dollar = at + offset;
        let next = dollar + 1;
        match bytes.get(next) {
            Some(b'$') => {
                at = next + 1;
                continue;
            }
            Some(b'{') => {
                if let Some(close) = memchr::memchr(b'}', &bytes[next + 1..]) {
                    let end = next + 1 + close;
                    let name = &replacement[next + 1..end];
                    found.push((&replacement[dollar..=end], classify(name)));
                    at = end + 1;
                    continue;
                }
            }
            _ => {
                let len = bytes[next..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                if len > 0 {
                    let name = &replacement[next..next + len];
                    found.push((&replacement[dollar..next + len], classify(name)));
                    at = next + len;
                    continue;
                }
            }
        }
        at = next;
    }
    found
}

fn classify(name: &str) -> CapRef<'_> {
    match name.parse::<usize>() {
        Ok(number) => CapRef::Number(number),
        Err(_) => CapRef::Name(name),
    }
}

fn check_references(index: usize, re: &Regex, pattern: &str, replacement: &str) -> Result<()> {
    let groups = re.captures_len() - 1;
    let names: Vec<&str> = re.capture_names().flatten().collect();
    for (written, reference) in references(replacement) {
        let defined = match reference {
            CapRef::Number(n) => n <= groups,
            CapRef::Name(name) => names.contains(&name),
        };
        if defined {
            continue;
        }
        let defines = match (groups, names.is_empty()) {
            (0, _) => "defines no capture groups (only $0, the whole match)".to_string(),
            (n, true) => format!("defines groups $1..=${n} and no names"),
            (n, false) => format!(
                "defines groups $1..=${n}, named {}",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let hint = match reference {
            CapRef::Name(name) if name.len() > 1 && name.as_bytes()[0].is_ascii_digit() => {
                let digits = name.bytes().take_while(u8::is_ascii_digit).count();
                format!(
                    "`{written}` names the group `{name}`; for group {} followed by `{}` write \
                     `${{{}}}{}`; for a literal `$` write `$$`",
                    &name[..digits],
                    &name[digits..],
                    &name[..digits],
                    &name[digits..]
                )
            }
            _ => format!(
                "write a literal `$` as `$$` (`${written}` outputs `{written}`, e.g. in JS/TS \
                 template literals), or add the group to the pattern"
            ),
        };
        return Err(op_error(
            index,
            format!(
                "replacement references undefined capture group `{written}`: pattern {} \
                 {defines}; regex would expand it to nothing",
                snippet(pattern)
            ),
            hint,
        )
        .with_data("reference", written));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Applying

/// A block of lines one op wrote (or a match site), in the numbering of the body at hand.
#[derive(Clone, Debug)]
struct Region {
    op: usize,
    kind: EchoKind,
    /// 1-based first line; for an empty block, the line after the gap.
    start: usize,
    /// Number of lines (0: a gap).
    len: usize,
    /// Replace sites: the op's total number of matches.
    replacements: Option<usize>,
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
fn apply_line_ops(
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
struct Replace<'a> {
    index: usize,
    re: &'a Regex,
    pattern: &'a str,
    replacement: &'a str,
    expect_matches: Option<usize>,
}

impl Replace<'_> {
    /// The op's splices of `file` (its body after the BOM's `bom` bytes): none when nothing
    /// matches. Moves the earlier ops' regions to where the splices put them and adds this
    /// op's match sites.
    fn splices(&self, file: &[u8], bom: usize, regions: &mut Vec<Region>) -> Result<Vec<Splice>> {
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

/// `line_stat` of the whole files, computed over the changed stretches only: each run of splices
/// widened to whole lines on both sides (the lines between two runs are equal by construction).
/// `splices` are of the file whose body `old` is (after its first `base` bytes, the BOM, which
/// `line_stat` does not count as part of line 1), sorted, and give `new`.
fn spliced_stat(old: &[u8], new: &[u8], splices: &[Splice], base: usize) -> (usize, usize) {
    let line_start = |file: &[u8], at: usize| at == 0 || file[at - 1] == b'\n';
    let (mut added, mut removed) = (0, 0);
    // How much the splices before `next` grew the file.
    let mut shift = 0isize;
    let mut next = 0;
    while next < splices.len() {
        let start = splices[next].range.start - base;
        let from = memchr::memrchr(b'\n', &old[..start]).map_or(0, |at| at + 1);
        let new_from = from.wrapping_add_signed(shift);
        // The stretch ends at the first line start (on both sides) after a splice and before the
        // next one; up to there, the bytes after the splice are the same on both sides.
        let (to, new_to) = loop {
            let splice = &splices[next];
            next += 1;
            shift += splice.text.len() as isize - splice.range.len() as isize;
            let end = splice.range.end - base;
            let new_end = end.wrapping_add_signed(shift);
            if line_start(old, end) && line_start(new, new_end) {
                break (end, new_end);
            }
            let limit = splices
                .get(next)
                .map_or(old.len(), |s| s.range.start - base);
            match memchr::memchr(b'\n', &old[end..limit]) {
                Some(at) => break (end + at + 1, new_end + at + 1),
                None if next == splices.len() => break (old.len(), new.len()),
                None => {}
            }
        };
        let (a, r) = line_stat(&old[from..to], &new[new_from..new_to]);
        added += a;
        removed += r;
    }
    (added, removed)
}

/// Lines added and removed, from a line diff of `old` against `new` (whole lines common to
/// both ends are skipped before diffing the middle).
fn line_stat(old: &[u8], new: &[u8]) -> (usize, usize) {
    if old == new {
        return (0, 0);
    }
    let same = common_len(old.iter(), new.iter(), old.len().min(new.len()), |at, n| {
        old[at..at + n] == new[at..at + n]
    });
    let head = old[..same]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let room = (old.len() - head).min(new.len() - head);
    let same = common_len(old.iter().rev(), new.iter().rev(), room, |at, n| {
        old[old.len() - at - n..old.len() - at] == new[new.len() - at - n..new.len() - at]
    });
    // Start the common tail after a newline, so it is whole lines on both sides.
    let line_start = |body: &[u8]| {
        let at = body.len() - same;
        at == head || body[at - 1] == b'\n'
    };
    let tail = if line_start(old) && line_start(new) {
        same
    } else {
        let common = &old[old.len() - same..];
        memchr::memchr(b'\n', common).map_or(0, |i| same - i - 1)
    };
    let old_lines: Vec<&[u8]> = old[head..old.len() - tail]
        .split_inclusive(|&b| b == b'\n')
        .collect();
    let new_lines: Vec<&[u8]> = new[head..new.len() - tail]
        .split_inclusive(|&b| b == b'\n')
        .collect();
    aligned_stat(&old_lines, &new_lines)
}

/// Lines within which a gap between the two sides looks for the lines where they agree again.
const SYNC_WINDOW: usize = 48;

/// Line counts of a diff, walking both sides together: equal lines pass, and at each difference
/// the nearest point where two consecutive lines agree again closes a small gap that is diffed on
/// its own. Line ops change a few lines among thousands of equal ones; one diff over the whole
/// span would hash every line of it. A side with no agreement within the window is diffed whole.
fn aligned_stat(old: &[&[u8]], new: &[&[u8]]) -> (usize, usize) {
    let (mut i, mut j) = (0, 0);
    let (mut added, mut removed) = (0, 0);
    while i < old.len() && j < new.len() {
        if old[i] == new[j] {
            i += 1;
            j += 1;
            continue;
        }
        let Some((a, b)) = resync(old, new, i, j) else {
            break;
        };
        let (gap_added, gap_removed) = myers_stat(&old[i..i + a], &new[j..j + b]);
        added += gap_added;
        removed += gap_removed;
        i += a;
        j += b;
    }
    let (rest_added, rest_removed) = myers_stat(&old[i..], &new[j..]);
    (added + rest_added, removed + rest_removed)
}

/// The nearest offsets `(a, b)` (smallest `a + b`, both within the window) at which two
/// consecutive lines of `old` after `i` and `new` after `j` are equal (or both sides end).
fn resync(old: &[&[u8]], new: &[&[u8]], i: usize, j: usize) -> Option<(usize, usize)> {
    let agrees = |a: usize, b: usize| {
        let (x, y) = (i + a, j + b);
        match (old.get(x), new.get(y)) {
            (None, None) => true,
            (Some(p), Some(q)) => p == q && old.get(x + 1) == new.get(y + 1),
            _ => false,
        }
    };
    (1..=2 * SYNC_WINDOW).find_map(|total| {
        (total.saturating_sub(SYNC_WINDOW)..=total.min(SYNC_WINDOW))
            .map(|a| (a, total - a))
            .find(|&(a, b)| i + a <= old.len() && j + b <= new.len() && agrees(a, b))
    })
}

/// Line counts of a Myers diff (bounded by a deadline, as big diffs can take long).
fn myers_stat(old: &[&[u8]], new: &[&[u8]]) -> (usize, usize) {
    if old.is_empty() || new.is_empty() {
        return (new.len(), old.len());
    }
    let ops = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        old,
        new,
        Some(Instant::now() + DIFF_DEADLINE),
    );
    let (mut added, mut removed) = (0, 0);
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag != similar::DiffTag::Equal {
            removed += old_range.len();
            added += new_range.len();
        }
    }
    (added, removed)
}

/// How many leading items of `a` and `b` (at most `max`) are equal; `equal(at, n)` compares items
/// `at..at + n` in one go, so long runs are compared a block at a time.
fn common_len<'a>(
    a: impl Iterator<Item = &'a u8>,
    b: impl Iterator<Item = &'a u8>,
    max: usize,
    equal: impl Fn(usize, usize) -> bool,
) -> usize {
    const BLOCK: usize = 64 * 1024;
    let mut known = 0;
    while known + BLOCK <= max && equal(known, BLOCK) {
        known += BLOCK;
    }
    known
        + a.skip(known)
            .zip(b.skip(known))
            .take(max - known)
            .take_while(|(x, y)| x == y)
            .count()
}

// ---------------------------------------------------------------------------------------------
// Echoes

fn echo_line(number: usize, line: &[u8]) -> EchoLine {
    let clipped = line.len() > ECHO_LINE_MAX;
    let shown = &line[..line.len().min(ECHO_LINE_MAX + 3)];
    let mut text = String::from_utf8_lossy(shown).into_owned();
    if clipped {
        let mut cut = ECHO_LINE_MAX.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    EchoLine {
        line: number,
        text,
        clipped,
    }
}

/// The line numbers an echo of `region` shows, and how many of its window's lines it leaves out,
/// in a body of `n` lines.
fn shown_lines(region: &Region, n: usize) -> (Vec<usize>, Option<usize>) {
    let span = |from: usize, to: usize| (from..=to).filter(move |k| (1..=n).contains(k));
    let end_line = region.start + region.len - 1;
    if region.kind == EchoKind::Replace {
        let first = region.start.clamp(1, n.max(1));
        let last = end_line.clamp(first, n.max(1));
        if last - first < 2 {
            (span(first, last).collect(), None)
        } else {
            let both = span(first, first).chain(span(last, last)).collect();
            (both, Some(last - first - 1))
        }
    } else {
        let from = region.start.saturating_sub(CONTEXT).max(1);
        let to = (region.start + region.len + CONTEXT - 1).min(n);
        let window = (to + 1).saturating_sub(from);
        if window <= ECHO_MAX_LINES {
            (span(from, to).collect(), None)
        } else {
            let ends = span(from, from + ECHO_HEAD_TAIL - 1)
                .chain(span(to + 1 - ECHO_HEAD_TAIL, to))
                .collect();
            (ends, Some(window - 2 * ECHO_HEAD_TAIL))
        }
    }
}

/// The text (EOL left out) of lines `wanted` of `body`: 1-based, ascending, no duplicates, each
/// within the body. One pass over the body up to the last of them, instead of indexing every line
/// of the file for the few dozen an answer shows.
fn lines_at<'a>(body: &'a [u8], wanted: &[usize]) -> Vec<&'a [u8]> {
    let mut texts = Vec::with_capacity(wanted.len());
    // Line `line` starts at byte `start`.
    let (mut line, mut start) = (1, 0);
    for &k in wanted {
        if line < k {
            start = start_ahead(body, start, k - line);
            line = k;
        }
        let end = memchr::memchr(b'\n', &body[start..]).map_or(body.len(), |i| start + i);
        let text = &body[start..end];
        let text = match end < body.len() {
            true => text.strip_suffix(b"\r").unwrap_or(text),
            false => text,
        };
        texts.push(text);
    }
    texts
}

/// Bytes whose newlines are counted in one go when looking for a line far ahead.
const SKIP_BYTES: usize = 4096;

/// Where the line `ahead` lines after the one starting at `from` starts (the body's end if it
/// has fewer lines). Whole blocks are skipped by counting their newlines, which is many times
/// faster than stepping from one newline to the next.
fn start_ahead(body: &[u8], from: usize, ahead: usize) -> usize {
    let (mut at, mut ahead) = (from, ahead);
    loop {
        let end = (at + SKIP_BYTES).min(body.len());
        let block = &body[at..end];
        let count = memchr::memchr_iter(b'\n', block).count();
        if count < ahead && end < body.len() {
            ahead -= count;
            at = end;
            continue;
        }
        return memchr::memchr_iter(b'\n', block)
            .nth(ahead - 1)
            .map_or(body.len(), |nl| at + nl + 1);
    }
}

fn build_echoes(regions: &[Region], body: &[u8]) -> (Vec<Echo>, bool) {
    let n = count_newlines(body) + usize::from(!body.is_empty() && !body.ends_with(b"\n"));
    let mut order: Vec<&Region> = regions.iter().collect();
    order.sort_by_key(|r| r.op);
    let shown: Vec<(Vec<usize>, Option<usize>)> =
        order.iter().map(|region| shown_lines(region, n)).collect();
    let mut wanted: Vec<usize> = shown.iter().flat_map(|(k, _)| k.iter().copied()).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let texts = lines_at(body, &wanted);
    let text_of = |k: usize| wanted.binary_search(&k).map_or(&b""[..], |i| texts[i]);
    let mut echoes: Vec<Echo> = Vec::new();
    let mut budget = ECHO_BUDGET_BYTES;
    for (region, (numbers, elided)) in order.into_iter().zip(shown) {
        let lines: Vec<EchoLine> = numbers
            .into_iter()
            .map(|k| echo_line(k, text_of(k)))
            .collect();
        let cost = ECHO_OVERHEAD + lines.iter().map(|l| l.text.len() + 1).sum::<usize>();
        if cost > budget && !echoes.is_empty() {
            return (echoes, true);
        }
        budget = budget.saturating_sub(cost);
        echoes.push(Echo {
            op: region.op,
            kind: region.kind,
            start_line: region.start,
            end_line: region.start + region.len - 1,
            lines,
            elided,
            replacements: region.replacements,
        });
    }
    (echoes, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn ops(ops: Value) -> Vec<Op> {
        serde_json::from_value(ops).expect("ops parse")
    }

    fn body(file: &[u8]) -> &[u8] {
        file.strip_prefix(BOM).unwrap_or(file)
    }

    /// Applies the ops, and checks that the splices give the same bytes and the same line
    /// counts as a numstat of the whole bodies.
    fn run(file: &[u8], list: Value) -> Applied {
        let done = apply(file, &ops(list)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(splice::apply(file, &done.splices), done.bytes, "splices");
        let whole = line_stat(body(file), body(&done.bytes));
        assert_eq!((done.lines_added, done.lines_removed), whole, "line counts");
        done
    }

    fn out(file: &str, list: Value) -> String {
        String::from_utf8(run(file.as_bytes(), list).bytes).unwrap()
    }

    fn fail(file: &str, list: Value) -> Error {
        match apply(file.as_bytes(), &ops(list)) {
            Ok(done) => panic!("applied: {:?}", String::from_utf8_lossy(&done.bytes)),
            Err(e) => {
                assert_eq!(e.code.as_str(), "C210");
                e
            }
        }
    }

    fn echo_lines(echo: &Echo) -> Vec<(usize, &str)> {
        echo.lines
            .iter()
            .map(|l| (l.line, l.text.as_str()))
            .collect()
    }

    const ABC: &str = "a\nb\nc\n";

    #[test]
    fn insert_at_1_and_at_len_plus_1() {
        let op = |at| json!([{"op": "insert", "at_line": at, "content": "X"}]);
        assert_eq!(out(ABC, op(1)), "X\na\nb\nc\n");
        assert_eq!(out(ABC, op(4)), "a\nb\nc\nX\n");
        assert_eq!(out(ABC, op(2)), "a\nX\nb\nc\n");
        let multi = json!([{"op": "insert", "at_line": 2, "content": "X\nY\n"}]);
        assert_eq!(out(ABC, multi), "a\nX\nY\nb\nc\n");
    }

    #[test]
    fn the_seed_quickstart() {
        let done = out(
            "# notes\n- one\n- two\n",
            json!([
                { "op": "insert", "at_line": 2, "content": "draft" },
                { "op": "update_lines", "from_line": 3, "to_line": 3, "content": "- ONE" }
            ]),
        );
        assert_eq!(done, "# notes\ndraft\n- one\n- ONE\n");
    }

    #[test]
    fn remove_to_eof_and_whole_file() {
        let rm = |a, b| json!([{"op": "remove", "from_line": a, "to_line": b}]);
        assert_eq!(out(ABC, rm(2, 3)), "a\n");
        assert_eq!(out(ABC, rm(1, 3)), "");
        assert_eq!(out("a\nb\nc", rm(3, 3)), "a\nb");
        assert_eq!(out("a\nb\nc", rm(2, 3)), "a");
        assert_eq!(out("a\nb\nc", rm(1, 3)), "");
        assert_eq!(out(ABC, rm(1, 1)), "b\nc\n");
    }

    #[test]
    fn update_lines_grows_shrinks_and_empties() {
        let up = |a, b, c: &str| json!([{"op": "update_lines", "from_line": a, "to_line": b, "content": c}]);
        assert_eq!(out(ABC, up(2, 2, "B1\nB2")), "a\nB1\nB2\nc\n");
        assert_eq!(out(ABC, up(1, 2, "AB")), "AB\nc\n");
        assert_eq!(out(ABC, up(2, 3, "")), "a\n");
        assert_eq!(out(ABC, up(2, 2, "\n")), "a\n\nc\n");
        assert_eq!(out("a\nb\nc", up(3, 3, "C\nD\n")), "a\nb\nC\nD");
    }

    #[test]
    fn bottom_up_keeps_original_numbering() {
        let done = out(
            "1\n2\n3\n4\n5\n6\n",
            json!([
                {"op": "remove", "from_line": 1, "to_line": 2},
                {"op": "insert", "at_line": 4, "content": "new"},
                {"op": "update_lines", "from_line": 6, "to_line": 6, "content": "six"},
                {"op": "insert", "at_line": 7, "content": "end"}
            ]),
        );
        assert_eq!(done, "3\nnew\n4\n5\nsix\nend\n");
    }

    #[test]
    fn overlapping_line_ops_are_c210() {
        let same = fail(
            ABC,
            json!([
                {"op": "insert", "at_line": 2, "content": "x"},
                {"op": "insert", "at_line": 2, "content": "y"}
            ]),
        );
        assert!(same.message.contains("ops[1]: overlaps ops[0]"), "{same}");
        assert_eq!(same.data["op"], 1);
        assert_eq!(same.data["conflicts_with"], 0);
        let inside = fail(
            "1\n2\n3\n4\n5\n",
            json!([
                {"op": "remove", "from_line": 2, "to_line": 4},
                {"op": "insert", "at_line": 3, "content": "x"}
            ]),
        );
        assert!(inside.message.contains("removes lines 2-4"), "{inside}");
        let at_start = json!([
            {"op": "insert", "at_line": 2, "content": "x"},
            {"op": "update_lines", "from_line": 2, "to_line": 3, "content": "y"}
        ]);
        assert_eq!(fail(ABC, at_start).data["op"], 1);
        let ranges = json!([
            {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "y"},
            {"op": "remove", "from_line": 1, "to_line": 3}
        ]);
        assert_eq!(fail(ABC, ranges).data["conflicts_with"], 0);
        // Touching but not overlapping.
        let after = json!([
            {"op": "remove", "from_line": 1, "to_line": 2},
            {"op": "insert", "at_line": 3, "content": "x"},
            {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "C"}
        ]);
        assert!(apply(ABC.as_bytes(), &ops(after)).is_err());
        let adjacent = json!([
            {"op": "remove", "from_line": 1, "to_line": 1},
            {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B"},
            {"op": "insert", "at_line": 3, "content": "x"}
        ]);
        assert_eq!(out(ABC, adjacent), "B\nx\nc\n");
        let fine = json!([
            {"op": "remove", "from_line": 1, "to_line": 1},
            {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B"},
            {"op": "insert", "at_line": 4, "content": "x"}
        ]);
        assert_eq!(out(ABC, fine), "B\nc\nx\n");
        let after_range = json!([
            {"op": "remove", "from_line": 1, "to_line": 2},
            {"op": "insert", "at_line": 3, "content": "x"}
        ]);
        assert_eq!(out(ABC, after_range), "x\nc\n");
    }

    #[test]
    fn out_of_range_names_the_op_and_the_line_count() {
        let e = fail(
            ABC,
            json!([{"op": "replace", "pattern": "a", "replacement": "b"},
                   {"op": "insert", "at_line": 5, "content": "x"}]),
        );
        assert!(e.message.starts_with("ops[1]: insert at_line 5"), "{e}");
        assert!(e.message.contains("1..=4"), "{e}");
        assert_eq!(e.data["op"], 1);
        assert_eq!(e.data["total_lines"], 3);
        assert!(e.recovery.unwrap().contains("3 lines"));
        fail(ABC, json!([{"op": "insert", "at_line": 0, "content": "x"}]));
        let e = fail(ABC, json!([{"op": "remove", "from_line": 2, "to_line": 4}]));
        assert!(e.message.contains("past the end"), "{e}");
        let e = fail(ABC, json!([{"op": "remove", "from_line": 3, "to_line": 2}]));
        assert!(e.message.contains("after to_line"), "{e}");
        let e = fail(
            ABC,
            json!([{"op": "update_lines", "from_line": 0, "to_line": 1, "content": ""}]),
        );
        assert!(e.message.contains("1-based"), "{e}");
        assert_eq!(
            out("", json!([{"op": "insert", "at_line": 1, "content": "x"}])),
            "x\n"
        );
        fail("", json!([{"op": "remove", "from_line": 1, "to_line": 1}]));
        fail(ABC, json!([]));
    }

    #[test]
    fn capture_references() {
        let rep = |p: &str, r: &str| json!([{"op": "replace", "pattern": p, "replacement": r}]);
        assert_eq!(out("cost 5\n", rep("(\\d+)", "$$$1")), "cost $5\n");
        assert_eq!(out("x\n", rep("x", "$$")), "$\n");
        assert_eq!(
            out("hi name\n", rep("name", "Hello, $${name}!")),
            "hi Hello, ${name}!\n"
        );
        assert_eq!(
            out("ab\n", rep("(?<first>a)(?<second>b)", "$second$first")),
            "ba\n"
        );
        assert_eq!(
            out("ab\n", rep("(?<first>a)(b)", "${first}_${2}_$0")),
            "a_b_ab\n"
        );
        assert_eq!(out("ab\n", rep("(a)b", "${1}a")), "aa\n");
        assert_eq!(out("a\n", rep("a", "$ and ${ and $")), "$ and ${ and $\n");
        let e = fail("ab\n", rep("(a)b", "$1a"));
        assert!(e.message.contains("`$1a`"), "{e}");
        assert!(e.recovery.as_deref().unwrap().contains("${1}a"), "{e}");
        assert_eq!(e.data["reference"], "$1a");
        let e = fail("ab\n", rep("(a)b", "$2"));
        assert!(e.message.contains("$1..=$1"), "{e}");
        let e = fail("x\n", rep("x", "Hello, ${name}!"));
        assert!(e.message.contains("defines no capture groups"), "{e}");
        assert!(e.recovery.as_deref().unwrap().contains("$${name}"), "{e}");
        fail("x\n", rep("(?<a>x)", "$b"));
        fail("x\n", rep("x", "${}"));
        // Checked before anything applies, even when the op would match nothing.
        let e = fail(
            "x\n",
            json!([{"op": "insert", "at_line": 1, "content": "y"},
                   {"op": "replace", "pattern": "zzz", "replacement": "$1", "expect_matches": 0}]),
        );
        assert_eq!(e.data["op"], 1);
    }

    #[test]
    fn references_follow_regex_interpolation() {
        let refs = |r| {
            references(r)
                .into_iter()
                .map(|(w, c)| format!("{w}={c:?}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            refs("$1a $$2 ${x y} $_ $01 ${+1}"),
            vec![
                "$1a=Name(\"1a\")",
                "${x y}=Name(\"x y\")",
                "$_=Name(\"_\")",
                "$01=Number(1)",
                "${+1}=Number(1)",
            ]
        );
        assert!(refs("$ $. ${ $").is_empty());
        // Whatever the validator accepts expands exactly as regex does: compare against a
        // hand expansion for a pattern defining every referenced group.
        let re = Regex::new("(?<x>a)(?<y>b)").unwrap();
        let caps = re.captures(b"ab").unwrap();
        let mut got = Vec::new();
        caps.expand(b"<$x|${y}|$$x|$2|$1x|${x}y|$>", &mut got);
        assert_eq!(got, b"<a|b|$x|b||ay|$>");
        assert!(check_references(0, &re, "", "$1x").is_err());
    }

    #[test]
    fn expect_matches() {
        let rep =
            |n| json!([{"op": "replace", "pattern": "o", "replacement": "0", "expect_matches": n}]);
        assert_eq!(out("foo\n", rep(2)), "f00\n");
        let e = fail("foo\n", rep(1));
        assert!(e.message.contains("matched 2 times, expected 1"), "{e}");
        assert!(e.recovery.as_deref().unwrap().contains("expect_matches: 2"));
        assert_eq!(e.data["matches"], 2);
        let e = fail("foo\n", rep(0));
        assert!(e.message.contains("expected 0"), "{e}");
        let absent =
            json!([{"op": "replace", "pattern": "zzz", "replacement": "0", "expect_matches": 0}]);
        let done = run(b"foo\n", absent);
        assert_eq!(done.bytes, b"foo\n");
        assert!(done.echoes.is_empty());
        let e = fail("bar\n", rep(1));
        assert!(e.message.contains("matched 0 times"), "{e}");
        // An earlier line op does not make it through either.
        let e = fail(
            "foo\n",
            json!([{"op": "insert", "at_line": 1, "content": "oo"},
                   {"op": "replace", "pattern": "o", "replacement": "0", "expect_matches": 2}]),
        );
        assert_eq!(e.data["op"], 1);
    }

    #[test]
    fn invalid_or_empty_regex_names_the_op() {
        let e = fail(
            ABC,
            json!([{"op": "insert", "at_line": 1, "content": "x"},
                   {"op": "replace", "pattern": "(", "replacement": ""}]),
        );
        assert!(e.message.starts_with("ops[1]: invalid regex"), "{e}");
        assert_eq!(e.data["op"], 1);
        fail(
            ABC,
            json!([{"op": "replace", "pattern": "", "replacement": "x"}]),
        );
    }

    #[test]
    fn dot_matches_newline_region_echo() {
        let file = "keep\n// BEGIN\nx\ny\nz\n// END\nafter\n";
        let op = |dot| {
            json!([{"op": "replace", "pattern": "// BEGIN.*?// END", "replacement": "// one\n// two\n// three\n// four",
                    "dot_matches_newline": dot}])
        };
        fail(
            file,
            json!([{"op": "replace", "pattern": "// BEGIN.*?// END", "replacement": "", "expect_matches": 1}]),
        );
        assert_eq!(run(file.as_bytes(), op(false)).bytes, file.as_bytes());
        let done = run(file.as_bytes(), op(true));
        assert_eq!(
            String::from_utf8(done.bytes).unwrap(),
            "keep\n// one\n// two\n// three\n// four\nafter\n"
        );
        let echo = &done.echoes[0];
        assert_eq!(
            (echo.kind, echo.start_line, echo.end_line),
            (EchoKind::Replace, 2, 5)
        );
        assert_eq!(echo_lines(echo), vec![(2, "// one"), (5, "// four")]);
        assert_eq!((echo.elided, echo.replacements), (Some(2), Some(1)));
        assert_eq!((done.lines_added, done.lines_removed), (4, 5));
    }

    #[test]
    fn replace_sites_are_capped_at_five() {
        let file = "x\n".repeat(7);
        let done = run(
            file.as_bytes(),
            json!([{"op": "replace", "pattern": "x", "replacement": "y"}]),
        );
        assert_eq!(done.bytes, "y\n".repeat(7).as_bytes());
        assert_eq!(done.echoes.len(), 5);
        assert!(done.echoes.iter().all(|e| e.replacements == Some(7)));
        let starts: Vec<usize> = done.echoes.iter().map(|e| e.start_line).collect();
        assert_eq!(starts, vec![1, 2, 3, 4, 5]);
        assert!(!done.echoes_truncated);
        // A site ending in a newline echoes its own line only.
        let done = run(
            b"a\nb\nc\n",
            json!([{"op": "replace", "pattern": "b\n", "replacement": "B1\nB2\n"}]),
        );
        assert_eq!(done.bytes, b"a\nB1\nB2\nc\n");
        assert_eq!(echo_lines(&done.echoes[0]), vec![(2, "B1"), (3, "B2")]);
    }

    #[test]
    fn crlf_file_stays_crlf() {
        let file = "a\r\nb\r\nc\r\n";
        let done = out(
            file,
            json!([{"op": "insert", "at_line": 4, "content": "d\ne"},
                   {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B\r\nB2\r\n"},
                   {"op": "insert", "at_line": 1, "content": "0"}]),
        );
        assert_eq!(done, "0\r\na\r\nB\r\nB2\r\nc\r\nd\r\ne\r\n");
        assert_eq!(
            out(
                "a\r\nb",
                json!([{"op": "insert", "at_line": 3, "content": "c"}])
            ),
            "a\r\nb\r\nc"
        );
    }

    #[test]
    fn mixed_file_keeps_each_lines_eol() {
        let file = "a\r\nb\nc\r\nd\n";
        assert_eq!(
            out(
                file,
                json!([{"op": "update_lines", "from_line": 2, "to_line": 3, "content": "B\nC\nX"}])
            ),
            "a\r\nB\nC\r\nX\r\nd\n"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "insert", "at_line": 3, "content": "x"}])
            ),
            "a\r\nb\nx\r\nc\r\nd\n"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "remove", "from_line": 2, "to_line": 2}])
            ),
            "a\r\nc\r\nd\n"
        );
        // Dominant EOL: CRLF wins 2:1 for the unterminated line gaining an EOL.
        assert_eq!(
            out(
                "a\r\nb\nc\r\nd",
                json!([{"op": "insert", "at_line": 5, "content": "e"}])
            ),
            "a\r\nb\nc\r\nd\r\ne"
        );
        assert_eq!(dominant_eol(&split_lines(b"a\nb\r\n")), LF);
        assert_eq!(dominant_eol(&split_lines(b"a\r\nb\n")), CRLF);
        assert_eq!(dominant_eol(&split_lines(b"abc")), LF);
    }

    #[test]
    fn bom_stays_first() {
        let file = "\u{feff}a\nb\n";
        assert_eq!(
            out(
                file,
                json!([{"op": "insert", "at_line": 1, "content": "x"}])
            ),
            "\u{feff}x\na\nb\n"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "update_lines", "from_line": 1, "to_line": 1, "content": "A"}])
            ),
            "\u{feff}A\nb\n"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "remove", "from_line": 1, "to_line": 2}])
            ),
            "\u{feff}"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "replace", "pattern": "^a", "replacement": "A", "expect_matches": 1}])
            ),
            "\u{feff}A\nb\n"
        );
        let done = run(
            file.as_bytes(),
            json!([{"op": "insert", "at_line": 2, "content": "x"}]),
        );
        assert_eq!(
            echo_lines(&done.echoes[0]),
            vec![(1, "a"), (2, "x"), (3, "b")]
        );
    }

    #[test]
    fn no_final_newline() {
        let file = "a\nb";
        assert_eq!(
            out(
                file,
                json!([{"op": "insert", "at_line": 3, "content": "c"}])
            ),
            "a\nb\nc"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "insert", "at_line": 3, "content": "c\n"}])
            ),
            "a\nb\nc"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "insert", "at_line": 2, "content": "x"}])
            ),
            "a\nx\nb"
        );
        assert_eq!(
            out(
                file,
                json!([{"op": "update_lines", "from_line": 2, "to_line": 2, "content": "B\nC"}])
            ),
            "a\nB\nC"
        );
        assert_eq!(
            out(
                "",
                json!([{"op": "insert", "at_line": 1, "content": "x\ny"}])
            ),
            "x\ny\n"
        );
        assert_eq!(
            out(
                "\n",
                json!([{"op": "insert", "at_line": 2, "content": "x"}])
            ),
            "\nx\n"
        );
    }

    #[test]
    fn latin1_bytes_elsewhere_survive() {
        let file = b"caf\xe9\nmid\n\xff\xfe end\r\n";
        let done = run(
            file,
            json!([{"op": "update_lines", "from_line": 2, "to_line": 2, "content": "MID"},
                   {"op": "replace", "pattern": "end", "replacement": "fin", "expect_matches": 1}]),
        );
        assert_eq!(done.bytes, b"caf\xe9\nMID\n\xff\xfe fin\r\n");
        assert_eq!(done.echoes[0].lines[0].text, "caf\u{fffd}");
        assert_eq!(done.echoes[1].lines[0].text, "\u{fffd}\u{fffd} fin");
    }

    #[test]
    fn line_op_echoes_use_new_numbering() {
        let file: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        let done = run(
            file.as_bytes(),
            json!([{"op": "update_lines", "from_line": 8, "to_line": 8, "content": "E"},
                   {"op": "insert", "at_line": 2, "content": "i1\ni2"},
                   {"op": "remove", "from_line": 5, "to_line": 6}]),
        );
        let [update, insert, remove] = &done.echoes[..] else {
            panic!("{:?}", done.echoes)
        };
        assert_eq!(
            (update.op, update.kind, update.start_line, update.end_line),
            (0, EchoKind::UpdateLines, 8, 8)
        );
        assert_eq!(
            echo_lines(update),
            vec![(6, "l4"), (7, "l7"), (8, "E"), (9, "l9"), (10, "l10")]
        );
        assert_eq!((insert.op, insert.start_line, insert.end_line), (1, 2, 3));
        assert_eq!(
            echo_lines(insert),
            vec![(1, "l1"), (2, "i1"), (3, "i2"), (4, "l2"), (5, "l3")]
        );
        assert_eq!(
            (remove.op, remove.kind, remove.start_line, remove.end_line),
            (2, EchoKind::Remove, 7, 6)
        );
        assert_eq!(
            echo_lines(remove),
            vec![(5, "l3"), (6, "l4"), (7, "l7"), (8, "E")]
        );
        assert_eq!((done.lines_added, done.lines_removed), (3, 3));
        assert!(!done.echoes_truncated);
    }

    #[test]
    fn later_replace_ops_move_earlier_echoes() {
        let file = "a
b
c
d
e
";
        let done = run(
            file.as_bytes(),
            json!([{"op": "update_lines", "from_line": 4, "to_line": 4, "content": "D"},
                   {"op": "replace", "pattern": "a\n", "replacement": "a1\na2\na3\n"},
                   {"op": "replace", "pattern": "b\nc\n", "replacement": ""}]),
        );
        assert_eq!(done.bytes, b"a1\na2\na3\nD\ne\n");
        let update = &done.echoes[0];
        assert_eq!((update.start_line, update.end_line), (4, 4));
        assert_eq!(
            echo_lines(update),
            vec![(2, "a2"), (3, "a3"), (4, "D"), (5, "e")]
        );
        let grow = &done.echoes[1];
        assert_eq!(
            (grow.start_line, grow.end_line, grow.elided),
            (1, 3, Some(1))
        );
        let gone = &done.echoes[2];
        assert_eq!((gone.start_line, gone.end_line), (4, 4));
    }

    #[test]
    fn large_windows_are_elided() {
        let file = "x\n".repeat(40);
        let content = "y\n".repeat(30);
        let done = run(
            file.as_bytes(),
            json!([{"op": "update_lines", "from_line": 5, "to_line": 6, "content": content}]),
        );
        let echo = &done.echoes[0];
        assert_eq!(
            (echo.start_line, echo.end_line, echo.elided),
            (5, 34, Some(34 - 16))
        );
        assert_eq!(echo.lines.len(), 16);
        assert_eq!(echo.lines[7].line, 10);
        assert_eq!(echo.lines[8].line, 29);
        assert_eq!(echo.lines[15].line, 36);
    }

    #[test]
    fn echo_budget_runs_out() {
        let long = "z".repeat(1000);
        let file: String = (0..40).map(|_| format!("{long}\n")).collect();
        let list: Vec<Value> = (0..8)
            .map(|i| json!({"op": "update_lines", "from_line": 5 * i + 3, "to_line": 5 * i + 3, "content": "short"}))
            .collect();
        let done = run(file.as_bytes(), Value::Array(list));
        assert!(done.echoes_truncated);
        // Each echo shows 4 long lines and the short one: about 4 KiB each, so one fits.
        assert_eq!(done.echoes.len(), 1);
        let small: String = (0..40).map(|i| format!("{i}\n")).collect();
        let list: Vec<Value> = (0..8)
            .map(|i| json!({"op": "update_lines", "from_line": 5 * i + 3, "to_line": 5 * i + 3, "content": "short"}))
            .collect();
        let done = run(small.as_bytes(), Value::Array(list));
        assert!(!done.echoes_truncated);
        assert_eq!(done.echoes.len(), 8);
        // Very long lines are clipped.
        let huge = format!("{}\n", "é".repeat(3000));
        let done = run(
            huge.as_bytes(),
            json!([{"op": "insert", "at_line": 1, "content": "x"}]),
        );
        let line = &done.echoes[0].lines[1];
        assert!(
            line.clipped
                && line.text.len() <= ECHO_LINE_MAX
                && line.text.len() >= ECHO_LINE_MAX - 1
        );
    }

    #[test]
    fn ops_deserialize_strictly_and_have_a_schema() {
        let bad = serde_json::from_value::<Vec<Op>>(
            json!([{"op": "insert", "at_line": 1, "content": "x", "extra": 1}]),
        );
        assert!(bad.unwrap_err().to_string().contains("unknown field"));
        let bad = serde_json::from_value::<Vec<Op>>(
            json!([{"op": "replace", "pattern": "x", "replacement": "y", "ignore_case": true}]),
        );
        assert!(bad.is_err());
        let bad = serde_json::from_value::<Vec<Op>>(
            json!([{"op": "insert", "at_line": -1, "content": "x"}]),
        );
        assert!(bad.is_err());
        let schema = serde_json::to_string(&schemars::schema_for!(Op)).unwrap();
        assert!(schema.contains("update_lines") && schema.contains("dot_matches_newline"));
        let schema = serde_json::to_string(&schemars::schema_for!(Echo)).unwrap();
        assert!(schema.contains("start_line"));
        let echo = Echo {
            op: 0,
            kind: EchoKind::UpdateLines,
            start_line: 1,
            end_line: 1,
            lines: vec![EchoLine {
                line: 1,
                text: "x".into(),
                clipped: false,
            }],
            elided: None,
            replacements: None,
        };
        assert_eq!(
            serde_json::to_value(&echo).unwrap(),
            json!({"op": 0, "kind": "update_lines", "start_line": 1, "end_line": 1, "lines": [{"line": 1, "text": "x"}]})
        );
    }

    #[test]
    fn line_stat_counts_like_numstat() {
        assert_eq!(line_stat(b"a\nb\nc\n", b"a\nX\nc\n"), (1, 1));
        assert_eq!(line_stat(b"a\nb", b"a\nb\nc"), (2, 1));
        assert_eq!(line_stat(b"a\nb\n", b"a\nb\n"), (0, 0));
        assert_eq!(line_stat(b"x\nx\nx\n", b"x\nx\n"), (0, 1));
        assert_eq!(line_stat(b"", b"a\n"), (1, 0));
        assert_eq!(line_stat(b"a\r\n", b"a\n"), (1, 1));
        assert_eq!(line_stat(b"ab\n", b"b\n"), (1, 1));
        let big: Vec<u8> = b"0123456789abcde\n".repeat(20_000);
        let mut changed = big.clone();
        changed[100_000] = b'X';
        changed[250_000] = b'Y';
        assert_eq!(line_stat(&big, &changed), (2, 2));
        assert_eq!(line_stat(&big, &big[..big.len() - 16]), (0, 1));
        assert_eq!(line_stat(&big[16..], &big), (1, 0));
        // Many small changes spread over a long file, lines inserted and removed among them.
        let lines: Vec<String> = (0..5000).map(|i| format!("line {i}\n")).collect();
        let mut edited = lines.clone();
        for k in (100..4900).rev().step_by(97) {
            edited[k] = format!("changed {k}\n");
            edited.insert(k + 3, "new\n".into());
            edited.remove(k - 5);
        }
        let (old, new) = (lines.concat(), edited.concat());
        let expected = {
            let o: Vec<&str> = old.split_inclusive('\n').collect();
            let n: Vec<&str> = new.split_inclusive('\n').collect();
            similar::capture_diff_slices(similar::Algorithm::Myers, &o, &n)
                .iter()
                .map(|op| op.as_tag_tuple())
                .filter(|(tag, _, _)| *tag != similar::DiffTag::Equal)
                .fold((0, 0), |(a, r), (_, o, n)| (a + n.len(), r + o.len()))
        };
        assert_eq!(line_stat(old.as_bytes(), new.as_bytes()), expected);
    }

    #[test]
    fn lines_at_finds_lines_far_apart() {
        let body: Vec<u8> = (0..3000)
            .map(|i| match i % 3 {
                0 => format!("line {i}\r\n"),
                1 => format!("{}\n", "x".repeat(i % 200)),
                _ => format!("a\rb {i}\n"),
            })
            .collect::<String>()
            .into_bytes();
        for body in [&body[..], &body[..body.len() - 1]] {
            let lines = split_lines(body);
            let wanted = [1, 2, 90, 91, 1500, 2998, 2999, 3000];
            let expected: Vec<&[u8]> = wanted.iter().map(|&k| text(body, &lines[k - 1])).collect();
            assert_eq!(lines_at(body, &wanted), expected);
        }
    }

    /// Replays tests/edits/update_file.json (the daemon-level harness replays it over the socket).
    #[test]
    fn corpus() {
        use base64::Engine;
        let b64 = |v: &Value| {
            base64::engine::general_purpose::STANDARD
                .decode(v.as_str().expect("base64 string"))
                .expect("valid base64")
        };
        let doc: Value =
            serde_json::from_str(include_str!("../../tests/edits/update_file.json")).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        assert!(cases.len() >= 80, "{} cases", cases.len());
        let mut failures = Vec::new();
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let file = match (case.get("file"), case.get("file_base64")) {
                (Some(text), None) => text.as_str().unwrap().as_bytes().to_vec(),
                (None, Some(bytes)) => b64(bytes),
                _ => panic!("{name}: needs file or file_base64"),
            };
            let result = serde_json::from_value::<Vec<Op>>(case["ops"].clone())
                .map_err(|e| Error::bad_input(format!("invalid ops: {e}")))
                .and_then(|ops| apply(&file, &ops));
            let expect = &case["expect"];
            let verdict = match (expect, &result) {
                (Value::Object(e), Err(err)) if e.contains_key("error") => {
                    let contains = e["contains"].as_str().unwrap();
                    if err.code.as_str() != e["error"] || !err.message.contains(contains) {
                        Err(format!("wrong error {err}, want {expect}"))
                    } else {
                        Ok(())
                    }
                }
                (_, Err(err)) => Err(format!("failed: {err}")),
                (Value::Object(e), Ok(_)) if e.contains_key("error") => {
                    Err(format!("applied, want {expect}"))
                }
                (_, Ok(done)) => {
                    let want = match expect {
                        Value::String(text) => text.as_bytes().to_vec(),
                        _ => b64(&expect["base64"]),
                    };
                    let echoes = serde_json::to_value(&done.echoes).unwrap();
                    if done.bytes != want {
                        Err(format!(
                            "got {:?}, want {:?}",
                            String::from_utf8_lossy(&done.bytes),
                            String::from_utf8_lossy(&want)
                        ))
                    } else if splice::apply(&file, &done.splices) != want {
                        Err(format!("splices {:?} do not give the result", done.splices))
                    } else if (done.lines_added, done.lines_removed)
                        != line_stat(body(&file), body(&want))
                    {
                        Err("the line counts of the splices differ from the whole file's".into())
                    } else if case.get("echoes").is_some_and(|e| *e != echoes) {
                        Err(format!("echoes {echoes}"))
                    } else if case
                        .get("echo_count")
                        .is_some_and(|n| *n != done.echoes.len())
                    {
                        Err(format!("{} echoes", done.echoes.len()))
                    } else if case
                        .get("echoes_truncated")
                        .is_some_and(|t| *t != done.echoes_truncated)
                    {
                        Err(format!("echoes_truncated {}", done.echoes_truncated))
                    } else if case
                        .get("lines_added")
                        .is_some_and(|n| *n != done.lines_added)
                        || case
                            .get("lines_removed")
                            .is_some_and(|n| *n != done.lines_removed)
                    {
                        Err(format!("+{} -{}", done.lines_added, done.lines_removed))
                    } else {
                        Ok(())
                    }
                }
            };
            if let Err(why) = verdict {
                failures.push(format!("{name}: {why}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
