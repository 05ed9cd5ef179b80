//! Edits addressed by an outline item (`replace-symbol`, `insert-symbol`, `delete-symbol`), located
//! in a file's bytes as one splice of whole lines. Pure: the item's lines come from the caller (the
//! daemon resolves the name with coderd-syntax, which this crate does not know).
//!
//! Content is re-indented to the item's level: its common leading whitespace (over its non-blank
//! lines) is replaced by the indentation of the item's declaration line, blank lines at its start
//! and end are dropped, and its lines end as the item's line does (`\n` or `\r\n`).

use super::splice::Splice;
use coderd_core::error::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use std::ops::Range;

/// Where an item is in its file, as the caller's outline tells it.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// Its first line with its doc comment, attributes and decorators (1-based).
    pub first: usize,
    /// Its last line (1-based, inclusive).
    pub last: usize,
    /// Its declaration line, whose indentation is the item's.
    pub head: usize,
    /// Blank lines between it and its sibling on the side an insert goes (the file's convention
    /// at this level).
    pub gap: usize,
    /// Another item of its level follows it (a delete then takes the blank lines after it, else
    /// the ones before it, so no double gap is left either way).
    pub has_next: bool,
}

/// Which side of the item a new one goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Where {
    Before,
    After,
}

/// The item's lines replaced by `content`.
pub fn replace(text: &[u8], span: &Span, content: &str) -> Result<Splice> {
    let range = lines(text, span.first, span.last);
    let mut new = reindent(content, indent(text, span.head), eol(text, span.head))?;
    if range.end == text.len() && !text.ends_with(b"\n") {
        trim_eol(&mut new);
    }
    Ok(Splice::new(range, new))
}

/// `content` as a new item beside the item, `span.gap` blank lines between them.
pub fn insert(text: &[u8], span: &Span, side: Where, content: &str) -> Result<Splice> {
    let eol = eol(text, span.head);
    let item = reindent(content, indent(text, span.head), eol)?;
    let blanks = eol.repeat(span.gap);
    Ok(match side {
        Where::Before => {
            let at = lines(text, span.first, span.first).start;
            Splice::new(at..at, [item, blanks].concat())
        }
        Where::After => {
            let at = lines(text, span.last, span.last).end;
            let mut new = [blanks, item].concat();
            if at == text.len() && !text.ends_with(b"\n") {
                // The item ends the file without a newline: the new one starts on a line of its own.
                new.splice(0..0, eol.iter().copied());
                trim_eol(&mut new);
            }
            Splice::new(at..at, new)
        }
    })
}

/// The item's lines removed, with the blank lines that separated it from its sibling.
pub fn delete(text: &[u8], span: &Span) -> Splice {
    let mut range = lines(text, span.first, span.last);
    if span.has_next {
        while let Some(next) = line_at(text, range.end).filter(|l| is_blank(&text[l.clone()])) {
            range.end = next.end;
        }
    } else {
        while let Some(prev) = line_before(text, range.start).filter(|l| is_blank(&text[l.clone()]))
        {
            range.start = prev.start;
        }
    }
    Splice::new(range, Vec::new())
}

/// Blank lines right after line `after` (1-based), not counting line `before` and beyond: the gap
/// between an item ending at `after` and its sibling starting at `before`.
pub fn blank_lines_after(text: &[u8], after: usize, before: usize) -> usize {
    (after + 1..before)
        .take_while(|&n| is_blank(&text[lines(text, n, n)]))
        .count()
}

/// Blank lines right before line `before` (1-based), not counting line `after` and before it.
pub fn blank_lines_before(text: &[u8], before: usize, after: usize) -> usize {
    (after + 1..before)
        .rev()
        .take_while(|&n| is_blank(&text[lines(text, n, n)]))
        .count()
}

/// Bytes of lines `first..=last` (1-based), with the last one's line end.
fn lines(text: &[u8], first: usize, last: usize) -> Range<usize> {
    let start = nth_line_start(text, first);
    let end = match memchr::memchr(b'\n', &text[nth_line_start(text, last)..]) {
        Some(n) => nth_line_start(text, last) + n + 1,
        None => text.len(),
    };
    start..end.max(start)
}

/// Where line `n` (1-based) starts; the end of the text past its last line.
fn nth_line_start(text: &[u8], n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text)
        .nth(n - 2)
        .map_or(text.len(), |i| i + 1)
}

/// The line starting at byte `at`, none at the end of the text.
fn line_at(text: &[u8], at: usize) -> Option<Range<usize>> {
    (at < text.len()).then(|| {
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |n| at + n + 1);
        at..end
    })
}

/// The line ending right before byte `at` (a line start), none at the start of the text.
fn line_before(text: &[u8], at: usize) -> Option<Range<usize>> {
    (at > 0).then(|| {
        let start = memchr::memrchr(b'\n', &text[..at - 1]).map_or(0, |i| i + 1);
        start..at
    })
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The leading whitespace of line `n`.
fn indent(text: &[u8], n: usize) -> &[u8] {
    let line = &text[lines(text, n, n)];
    let width = line
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    &line[..width]
}

/// The line end line `n` uses (`\r\n` or `\n`).
fn eol(text: &[u8], n: usize) -> &'static [u8] {
    match text[lines(text, n, n)].ends_with(b"\r\n") {
        true => b"\r\n",
        false => b"\n",
    }
}

fn trim_eol(new: &mut Vec<u8>) {
    if new.ends_with(b"\n") {
        new.pop();
        if new.ends_with(b"\r") {
            new.pop();
        }
    }
}

/// `content` at `indent` (see the module docs); C210 when it holds nothing.
fn reindent(content: &str, indent: &[u8], eol: &[u8]) -> Result<Vec<u8>> {
    let lines: Vec<&str> = content
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let blank = |l: &&str| l.trim().is_empty();
    let (Some(first), Some(last)) = (
        lines.iter().position(|l| !blank(l)),
        lines.iter().rposition(|l| !blank(l)),
    ) else {
        return Err(Error::bad_input("`content` is empty")
            .with_recovery("give the item's text; to remove the item, use delete-symbol"));
    };
    let lines = &lines[first..=last];
    let common = lines
        .iter()
        .filter(|l| !blank(l))
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .reduce(|a, b| &a[..common_prefix(a, b)])
        .unwrap_or("");
    let mut out = Vec::with_capacity(content.len() + lines.len() * (indent.len() + 1));
    for line in lines {
        if !blank(line) {
            out.extend_from_slice(indent);
            out.extend_from_slice(&line.as_bytes()[common.len()..]);
        }
        out.extend_from_slice(eol);
    }
    Ok(out)
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splice::apply;

    fn span(first: usize, last: usize, gap: usize, has_next: bool) -> Span {
        Span {
            first,
            last,
            head: first,
            gap,
            has_next,
        }
    }

    #[test]
    fn content_lands_at_the_items_indentation_whatever_its_own() {
        let text = b"impl A {\n    fn a() {}\n}\n";
        for content in [
            "fn b() {\n    x\n}",
            "        fn b() {\n            x\n        }\n\n",
        ] {
            let s = replace(text, &span(2, 2, 1, false), content).unwrap();
            assert_eq!(
                String::from_utf8(apply(text, &[s])).unwrap(),
                "impl A {\n    fn b() {\n        x\n    }\n}\n"
            );
        }
        assert!(replace(text, &span(2, 2, 1, false), " \n").is_err());
    }

    #[test]
    fn an_insert_keeps_the_gap_and_the_line_ends() {
        let text = b"a\r\n\r\nb\r\n";
        let s = insert(text, &span(3, 3, 1, false), Where::After, "c").unwrap();
        assert_eq!(apply(text, &[s]), b"a\r\n\r\nb\r\n\r\nc\r\n");
        let s = insert(text, &span(1, 1, 1, true), Where::Before, "c").unwrap();
        assert_eq!(apply(text, &[s]), b"c\r\n\r\na\r\n\r\nb\r\n");
        let s = insert(b"a", &span(1, 1, 0, false), Where::After, "c").unwrap();
        assert_eq!(apply(b"a", &[s]), b"a\nc");
    }

    #[test]
    fn a_delete_takes_one_gap() {
        let text = b"{\n  a\n\n  b\n\n  c\n}\n";
        let middle = delete(text, &span(4, 4, 1, true));
        assert_eq!(apply(text, &[middle]), b"{\n  a\n\n  c\n}\n");
        let last = delete(text, &span(6, 6, 1, false));
        assert_eq!(apply(text, &[last]), b"{\n  a\n\n  b\n}\n");
        assert_eq!(blank_lines_after(text, 2, 4), 1);
        assert_eq!(blank_lines_before(text, 6, 4), 1);
    }
}
