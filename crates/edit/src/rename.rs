//! Applying a language server's text edits (a rename's `WorkspaceEdit`) as one edit call: every
//! file planned against its current bytes under the call's locks, then all committed or none
//! (`txn`). Positions are LSP's (0-based line, UTF-16 column); a position past a line's end means
//! the file changed since the server computed the edit, and fails the call C212 with nothing
//! written.

use super::splice::{self, Splice};
use super::txn::{self, FileResult, Options, Target};
use coderd_core::error::{Code, Error, Result};
use coderd_core::workspace::Workspace;

/// One text edit: from `start` to `end` (LSP positions), replaced by `text`.
#[derive(Clone, Debug)]
pub struct TextEdit {
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub text: String,
}

/// Commits every file's edits, or none.
pub fn apply(state: &Workspace, files: &[(Target, Vec<TextEdit>)]) -> Result<Vec<FileResult>> {
    let targets = files.iter().map(|(t, _)| t.clone()).collect();
    let opts = Options {
        must_exist: true,
        ..Options::default()
    };
    txn::run(state, targets, &opts, |ws| {
        for (target, edits) in files {
            let path = &target.resolved.abs;
            let splices = splices(ws.current(path)?, edits)?;
            ws.splice(path, splices)?;
        }
        Ok(())
    })
}

/// Each file's unified diff, nothing written (a dry run).
pub fn preview(state: &Workspace, files: &[(Target, Vec<TextEdit>)]) -> Result<String> {
    let mut diff = String::new();
    for (target, edits) in files {
        let document = state.load(&target.resolved)?;
        let old = document.bytes();
        let new = splice::apply(&old, &splices(&old, edits)?);
        diff.push_str(&txn::unified_diff(&old, &new, &target.resolved.abs));
    }
    Ok(diff)
}

/// The edits as splices of `text`, in order; overlapping edits are refused.
fn splices(text: &[u8], edits: &[TextEdit]) -> Result<Vec<Splice>> {
    let mut splices = edits
        .iter()
        .map(|e| {
            Ok(Splice::new(
                offset(text, e.start)?..offset(text, e.end)?,
                e.text.as_bytes(),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    splices.sort_by_key(|s| (s.range.start, s.range.end));
    if splices
        .windows(2)
        .any(|w| w[0].range.end > w[1].range.start)
    {
        return Err(Error::io("the server's edits of a file overlap")
            .with_recovery("retry; if it persists, rename with `multipatch`"));
    }
    Ok(splices)
}

/// The byte offset of an LSP position in `text`; C212 when the text has no such position.
pub fn offset(text: &[u8], (line, column): (u32, u32)) -> Result<usize> {
    let mut start = 0;
    for _ in 0..line {
        start += memchr::memchr(b'\n', &text[start..]).ok_or_else(moved)? + 1;
    }
    let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |n| start + n);
    let line_text = std::str::from_utf8(&text[start..end]).map_err(|_| moved())?;
    let mut units = 0;
    for (i, c) in line_text.char_indices() {
        if units >= column {
            return Ok(start + i);
        }
        units += c.len_utf16() as u32;
    }
    match units >= column {
        true => Ok(end),
        false => Err(moved()),
    }
}

fn moved() -> Error {
    Error::new(
        Code::Stale,
        "a file changed while the language server computed the edit: a position is past its end",
    )
    .with_recovery("retry the call")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_refuse_past_the_end() {
        let text = "fn a() {}\nlet é = \"𝄞x\";\n".as_bytes();
        assert_eq!(offset(text, (0, 3)).unwrap(), 3);
        assert_eq!(offset(text, (1, 4)).unwrap(), 10 + 4);
        // `𝄞` is two UTF-16 units and four bytes.
        let x = offset(text, (1, 11)).unwrap();
        assert_eq!(&text[x..x + 1], b"x");
        assert_eq!(offset(text, (1, 14)).unwrap(), text.len() - 1);
        assert_eq!(offset(text, (1, 15)).unwrap_err().code, Code::Stale);
    }

    #[test]
    fn edits_become_sorted_splices_and_overlaps_are_refused() {
        let text = b"a b a\n";
        let edit = |c: u32, text: &str| TextEdit {
            start: (0, c),
            end: (0, c + 1),
            text: text.into(),
        };
        let planned = splices(text, &[edit(4, "z"), edit(0, "z")]).unwrap();
        assert_eq!(splice::apply(text, &planned), b"z b z\n");
        let overlapping = TextEdit {
            start: (0, 0),
            end: (0, 3),
            text: String::new(),
        };
        assert!(splices(text, &[overlapping, edit(2, "y")]).is_err());
    }
}
