//! Checking the ops before anything is applied: line-op intervals against the original line
//! count and each other, and each replace op's pattern and capture references.

use super::{content_lines, op_error, EchoKind, Op, Plan};
use crate::regex_cache;
use coderd_core::error::Result;
use regex::bytes::Regex;

pub(super) fn plan_line_ops(ops: &[Op], len: usize) -> Result<Vec<Plan<'_>>> {
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

pub(super) fn compile_replaces(ops: &[Op]) -> Result<Vec<Option<Regex>>> {
    let mut compiled = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let Op::Replace {
            pattern,
            replacement,
            dot_matches_newline,
            ignore_case,
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
        let cased = match ignore_case {
            true => format!("(?i){pattern}"),
            false => pattern.clone(),
        };
        let re = regex_cache::compiled(&cased, *dot_matches_newline).map_err(|e| {
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
pub(super) fn snippet(pattern: &str) -> String {
    const MAX: usize = 60;
    match pattern.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}…", &pattern[..cut]),
        None => format!("{pattern:?}"),
    }
}

/// A capture reference in a replacement, as `Captures::expand` reads it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum CapRef<'r> {
    Number(usize),
    Name(&'r str),
}

/// The capture references of `replacement` with the text each was written as (`$1a`, `${x}`).
/// The rules are `regex`'s interpolation rules: `$$` is a literal `$`; `${` starts a braced
/// reference that runs to the next `}` (no `}`: the `$` is literal); otherwise the reference is
/// the longest run of ASCII letters, digits and `_` after the `$` (none: the `$` is literal). A
/// reference that parses as a `usize` is a group number, anything else a group name.
pub(super) fn references(replacement: &str) -> Vec<(&str, CapRef<'_>)> {
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

pub(super) fn check_references(
    index: usize,
    re: &Regex,
    pattern: &str,
    replacement: &str,
) -> Result<()> {
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
