//! Parsing a unified diff leniently: git and plain headers, hunk headers with or without
//! numbers, the lines of each hunk.

use super::{FilePatch, Hunk, HunkLine};
use coderd_core::error::{Error, Result};

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
