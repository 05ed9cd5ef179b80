//! Edits' answers (`Answer::Edit`), rendered from the wire's types (`wire::answers::edit`, the
//! ones the daemon builds): a line per file (what happened, lines added and removed, the new
//! version), the windows `update-file` echoes, and what was moved, deleted or cleaned.

use std::io::{self, Write};
use wire::answers::edit::{CleanResult, Echo, EditAnswer, FileResult, PatchResult};

/// How a search text was found, when the answer says (`patch`'s search/replace).
#[derive(Default)]
struct Found<'a> {
    matched_with: Option<&'a str>,
    already_applied: bool,
}

/// The text `coder` prints for an edit; an answer of no edit's shape is shown as JSON.
pub fn render(out: &mut impl Write, text: &str) -> io::Result<()> {
    let Ok(answer) = serde_json::from_str::<EditAnswer>(text) else {
        return super::write_pretty(out, text.as_bytes());
    };
    let plain = Found::default();
    match answer {
        EditAnswer::Symbol(s) => {
            match (&s.file, &s.diff) {
                (_, Some(diff)) => out.write_all(diff.as_bytes())?,
                (Some(file), None) => file_line(out, file, &plain)?,
                (None, None) => {}
            }
            let (first, last) = s.lines;
            writeln!(
                out,
                "symbol {} (lines {first}-{last} before the edit)",
                s.symbol
            )?;
        }
        EditAnswer::Update(update) => {
            for file in &update.files {
                file_line(out, &file.file, &plain)?;
                echoes(out, &file.echoes)?;
            }
        }
        EditAnswer::Patch(PatchResult::Replace(r)) => {
            let found = Found {
                matched_with: Some(&r.matched_with),
                already_applied: r.already_applied,
            };
            file_line(out, &r.file, &found)?;
        }
        EditAnswer::Multipatch(m) => files(out, &m.files)?,
        EditAnswer::Patch(PatchResult::Diff { files: f, .. }) => files(out, &f)?,
        EditAnswer::Files(f) => files(out, &f.files)?,
        EditAnswer::File(file) => file_line(out, &file, &plain)?,
        EditAnswer::Move(m) => {
            for m in &m.moved {
                let (from, to) = (m.from.display(), m.to.display());
                writeln!(out, "moved {from} → {to} ({})", m.how)?;
            }
        }
        EditAnswer::Delete(d) => {
            for d in &d.deleted {
                writeln!(out, "deleted {} ({})", d.path.display(), d.kind)?;
            }
        }
        EditAnswer::Clean(c) => clean(out, &c)?,
    }
    Ok(())
}

pub(super) fn files(out: &mut impl Write, files: &[FileResult]) -> io::Result<()> {
    files
        .iter()
        .try_for_each(|f| file_line(out, f, &Found::default()))
}

fn file_line(out: &mut impl Write, f: &FileResult, found: &Found) -> io::Result<()> {
    let what = if f.deleted {
        "deleted"
    } else if f.created {
        "created"
    } else if f.unchanged || found.already_applied {
        "unchanged"
    } else {
        "updated"
    };
    write!(
        out,
        "{} {what}: +{} -{}, {} bytes, version {}",
        f.path.display(),
        f.lines_added,
        f.lines_removed,
        f.bytes,
        f.version,
    )?;
    if found.already_applied {
        write!(out, " (already applied)")?;
    }
    if let Some(rule) = found.matched_with.filter(|m| *m != "exact") {
        write!(out, " (matched with {rule})")?;
    }
    if let Some(backup) = &f.backup {
        write!(out, " (backup {})", backup.display())?;
    }
    writeln!(out)
}

fn echoes(out: &mut impl Write, echoes: &[Echo]) -> io::Result<()> {
    for echo in echoes {
        // A replace site echoes its first and last line; the lines between are counted.
        let elided = echo.elided.filter(|n| *n > 0);
        for (i, line) in echo.lines.iter().enumerate() {
            if let (Some(n), 1) = (elided, i) {
                writeln!(out, "      ⋮ {n} lines")?;
            }
            writeln!(out, "{:>6}│{}", line.line, line.text)?;
        }
        writeln!(out, "      ─")?;
    }
    Ok(())
}

/// `clean`: what it removed; without `force`, what it would remove. `.bak` files coderd did not
/// write are named, never removed.
fn clean(out: &mut impl Write, c: &CleanResult) -> io::Result<()> {
    for path in &c.removed {
        writeln!(out, "removed {}", path.display())?;
    }
    for path in &c.would_remove {
        writeln!(out, "would remove {}", path.display())?;
    }
    for path in &c.kept_not_ours {
        writeln!(out, "kept (not a backup coderd wrote) {}", path.display())?;
    }
    if let Some(note) = &c.note {
        writeln!(out, "{note}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(answer: &str) -> String {
        let mut out = Vec::new();
        render(&mut out, answer).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_edit_shape_renders_from_its_fields() {
        let file = r#""path":"/w/a.rs","bytes":9,"version":"v2","revision":2,"lines_added":1,"lines_removed":3"#;
        let cases = [
            (
                format!(r#"{{{file},"matched_with":"indentation","already_applied":true,"lines":[[1,1]]}}"#),
                "/w/a.rs unchanged: +1 -3, 9 bytes, version v2 (already applied) (matched with indentation)\n",
            ),
            (
                format!(r#"{{{file},"backup":"/w/a.rs.bak","diagnostics":[]}}"#),
                "/w/a.rs updated: +1 -3, 9 bytes, version v2 (backup /w/a.rs.bak)\n",
            ),
            (
                format!(
                    r#"{{"files":[{{{file},"new_line_count":40,"echoes":[{{"op":0,"kind":"replace","start_line":3,"end_line":9,"lines":[{{"line":3,"text":"a"}},{{"line":9,"text":"b"}}],"elided":5}}],"echoes_truncated":false}}]}}"#
                ),
                "/w/a.rs updated: +1 -3, 9 bytes, version v2\n     3│a\n      ⋮ 5 lines\n     9│b\n      ─\n",
            ),
            (
                r#"{"moved":[{"from":"/w/a","to":"/w/b","how":"copy"}]}"#.into(),
                "moved /w/a → /w/b (copy)\n",
            ),
            (
                r#"{"deleted":[{"path":"/w/d","kind":"dir"}]}"#.into(),
                "deleted /w/d (dir)\n",
            ),
        ];
        for (answer, expected) in cases {
            assert_eq!(rendered(&answer), expected, "{answer}");
        }
    }

    #[test]
    fn an_answer_of_no_edit_shape_is_shown_as_json() {
        assert_eq!(rendered(r#"{"x":1}"#), "{\n  \"x\": 1\n}\n");
    }
}
