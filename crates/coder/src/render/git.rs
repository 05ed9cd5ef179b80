//! The text `coder` prints for the git methods: what `git status -sb`, `git diff`, `git log`,
//! `git diff --name-only` and `git branch -vv` would show, from the answers' types
//! (`wire::answers::git`, the ones the daemon builds). An answer of another shape is shown as
//! JSON.

use serde::de::DeserializeOwned;
use std::io::{self, Write};
use wire::answers::git::{Branches, ChangedFiles, Diff, GitPath, Log, Status};

/// Renders `text` as `T` with `show`, or as JSON when it is not a `T` (also `navigate`'s).
pub(super) fn typed<T: DeserializeOwned, W: Write>(
    out: &mut W,
    text: &str,
    show: impl FnOnce(&mut W, T) -> io::Result<()>,
) -> io::Result<()> {
    match serde_json::from_str::<T>(text) {
        Ok(answer) => show(out, answer),
        Err(_) => super::write_pretty(out, text.as_bytes()),
    }
}

/// `old -> new` for renames, the path otherwise.
fn shown_path(path: &GitPath, orig: Option<&GitPath>) -> String {
    match orig {
        Some(orig) => format!("{} -> {}", orig.text, path.text),
        None => path.text.clone(),
    }
}

pub fn status(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Status| {
        let b = &r.branch;
        let mut head = match &b.head {
            Some(name) => name.clone(),
            None => "HEAD (no branch)".to_string(),
        };
        if let Some(upstream) = &b.upstream {
            head.push_str(&format!("...{upstream}"));
            let counts = [("ahead", b.ahead), ("behind", b.behind)];
            let parts: Vec<String> = counts
                .iter()
                .filter_map(|(word, n)| n.filter(|n| *n > 0).map(|n| format!("{word} {n}")))
                .collect();
            if !parts.is_empty() {
                head.push_str(&format!(" [{}]", parts.join(", ")));
            }
        }
        writeln!(out, "## {head}")?;
        for entry in &r.entries {
            let code = entry.code.replace('.', " ");
            let path = shown_path(&entry.path, entry.orig_path.as_ref());
            writeln!(out, "{code} {path}")?;
        }
        Ok(())
    })
}

pub fn diff(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Diff| {
        out.write_all(r.diff.as_bytes())?;
        out.flush()?;
        if r.truncated {
            eprintln!(
                "[diff truncated: {} bytes omitted (max_output_bytes); narrow it with --file]",
                r.omitted_bytes
            );
        }
        if !r.withheld.is_empty() {
            let withheld: Vec<&str> = r.withheld.iter().map(|p| p.text.as_str()).collect();
            eprintln!(
                "[not shown, non-accessible by workspace policy: {}]",
                withheld.join(", ")
            );
        }
        Ok(())
    })
}

pub fn log(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Log| {
        for c in &r.commits {
            if r.oneline {
                writeln!(out, "{} {}", c.short_hash, c.subject)?;
                continue;
            }
            writeln!(out, "commit {}", c.hash)?;
            writeln!(out, "Author: {} <{}>", c.author, c.email)?;
            writeln!(out, "Date:   {}", c.date)?;
            writeln!(out, "\n    {}\n", c.subject)?;
        }
        Ok(())
    })
}

pub fn changed(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: ChangedFiles| {
        for file in &r.files {
            writeln!(out, "{}", shown_path(&file.path, file.orig_path.as_ref()))?;
        }
        Ok(())
    })
}

pub fn branch(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Branches| {
        if r.detached {
            writeln!(out, "* (HEAD detached)")?;
        }
        for b in &r.branches {
            let mark = if b.current { '*' } else { ' ' };
            let name = match b.remote {
                true => format!("remotes/{}", b.name),
                false => b.name.clone(),
            };
            let mut tracking = String::new();
            if let Some(upstream) = &b.upstream {
                let mut parts = Vec::new();
                if b.gone {
                    parts.push("gone".to_string());
                }
                for (word, n) in [("ahead", b.ahead), ("behind", b.behind)] {
                    if let Some(n) = n {
                        parts.push(format!("{word} {n}"));
                    }
                }
                tracking = match parts.is_empty() {
                    true => format!("[{upstream}] "),
                    false => format!("[{upstream}: {}] ", parts.join(", ")),
                };
            }
            writeln!(out, "{mark} {name} {} {tracking}{}", b.commit, b.subject)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(show: fn(&mut Vec<u8>, &str) -> io::Result<()>, answer: &str) -> String {
        let mut out = Vec::new();
        show(&mut out, answer).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn git_answers_render_as_git_prints_them() {
        let status_answer = r#"{"branch":{"head":"main","upstream":"origin/main","ahead":2,"behind":0},"entries":[{"path":"b.rs","orig_path":"a.rs","code":"R.","index":"renamed","worktree":"unmodified"}],"clean":false}"#;
        assert_eq!(
            rendered(status, status_answer),
            "## main...origin/main [ahead 2]\nR  a.rs -> b.rs\n"
        );
        let branches_answer = r#"{"current":"main","branches":[{"name":"main","current":true,"commit":"abc","upstream":"origin/main","behind":1,"gone":true,"subject":"s"},{"name":"origin/x","remote":true,"commit":"def","subject":"t"}]}"#;
        assert_eq!(
            rendered(branch, branches_answer),
            "* main abc [origin/main: gone, behind 1] s\n  remotes/origin/x def t\n"
        );
        let log_answer = r#"{"oneline":true,"commits":[{"hash":"abc123","short_hash":"abc","author":"A","email":"a@x","date":"d","subject":"s"}]}"#;
        assert_eq!(rendered(log, log_answer), "abc s\n");
        let changed_answer =
            r#"{"staged_only":false,"files":[{"path":"n.txt","code":"??","untracked":true}]}"#;
        assert_eq!(rendered(changed, changed_answer), "n.txt\n");
        assert_eq!(rendered(status, r#"{"x":1}"#), "{\n  \"x\": 1\n}\n");
    }
}
