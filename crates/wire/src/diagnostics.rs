//! The `diagnostics` an edit's answer (and the `diagnostics` method) carries: per file, the
//! settled findings of every server of its language, merged, de-duplicated, labelled by server,
//! errors first, each marked `new` when the version before did not have it. Also the
//! `[DIAGNOSTICS]` block `coder` prints after an edit and the MCP face appends to a tool's text.
//! The block shows errors first, then warnings, marks new ones, and stays within 5 files and
//! 3,000 characters, counting what it left out. Clean files print nothing.
//!
//! One set of types for both sides: the daemon serializes them (building them from `lsp_types`
//! in its `lsp::report`, which a client does not need) and the clients deserialize the same
//! JSON, so the two cannot drift apart.
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Files shown in a block; the others are counted.
pub const MAX_FILES: usize = 5;
/// Characters a block may take.
pub const MAX_CHARS: usize = 3_000;

/// How bad a finding is; the order is the block's (errors first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub severity: Severity,
    /// 1-based.
    pub line: u32,
    /// 1-based, in UTF-16 code units as servers count them (bytes, for ASCII lines).
    pub column: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
    /// The server that reported it.
    pub server: String,
    /// Not in the file's findings before this change.
    pub new: bool,
    /// With `diagnostics`' `group_by: symbol`: the dotted name of the innermost outline item
    /// (function, method, class) holding the finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

/// A server whose findings for the file were not current by the deadline: none are shown.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pending {
    pub server: String,
    pub state: String,
    pub reason: String,
}

/// One file's findings. The daemon leaves out empty lists and a zero `omitted`, so a client
/// reads them with `default`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FileReport {
    pub path: PathBuf,
    /// The call changed this file (false: a server reported it on its own, e.g. a broken caller).
    pub edited: bool,
    #[serde(default)]
    pub items: Vec<Item>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Pending>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unanalysed: Vec<Unanalysed>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

impl FileReport {
    /// A file with no findings yet.
    pub fn new(path: PathBuf, edited: bool) -> FileReport {
        FileReport {
            path,
            edited,
            ..FileReport::default()
        }
    }
}

/// A server of the file's language that does not look at this file, and why (rust-analyzer, for
/// a file outside any Cargo project).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Unanalysed {
    pub server: String,
    pub reason: String,
}

/// A server the language of an edited file lists but that cannot run here.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Unavailable {
    pub server: String,
    pub language: String,
    pub install: String,
}

/// The `diagnostics` of an answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub files: Vec<FileReport>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<Unavailable>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The block's text ("" when there is nothing to say).
pub fn block(report: &Report) -> String {
    let shown: Vec<&FileReport> = report
        .files
        .iter()
        .filter(|f| !f.items.is_empty() || !f.pending.is_empty() || !f.unanalysed.is_empty())
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    let mut text = String::from("[DIAGNOSTICS]\n");
    let mut left_files = 0;
    let mut left_items = 0;
    for (n, file) in shown.iter().enumerate() {
        // Room for at least a header and a line or two, else the file is only counted.
        let room = MAX_CHARS.saturating_sub(text.len());
        if n >= MAX_FILES || room < 200 {
            left_files += 1;
            left_items += file.items.len() + file.omitted;
            continue;
        }
        text.push_str(&file_section(file, room));
    }
    if left_files > 0 {
        let _ = writeln!(
            text,
            "… {left_files} more file(s) with {left_items} finding(s) not shown (coder diagnostics --files …)"
        );
    }
    text
}

/// One file's lines, within `room` characters (the items that do not fit are counted).
fn file_section(file: &FileReport, room: usize) -> String {
    let errors = count(file, Severity::Error);
    let warnings = count(file, Severity::Warning);
    let new = file.items.iter().filter(|i| i.new).count();
    let mut text = String::new();
    let mut summary = vec![];
    if errors > 0 {
        summary.push(plural(errors, "error"));
    }
    if warnings > 0 {
        summary.push(plural(warnings, "warning"));
    }
    let others = file.items.len() - errors - warnings;
    if others > 0 {
        summary.push(plural(others, "note"));
    }
    if new > 0 {
        summary.push(format!("{new} new"));
    }
    let _ = write!(text, "{}", shown_path(&file.path));
    if !file.edited {
        text.push_str(" (not edited)");
    }
    if !summary.is_empty() {
        let _ = write!(text, ": {}", summary.join(", "));
    }
    text.push('\n');
    let mut omitted = file.omitted;
    for (n, item) in file.items.iter().enumerate() {
        let line = format!(
            "  {} {}:{}{} [{}{}] {}\n",
            severity_word(item.severity),
            item.line,
            item.column,
            if item.new { " new" } else { "" },
            item.server,
            item.code
                .as_deref()
                .map(|c| format!(" {c}"))
                .unwrap_or_default(),
            item.message.replace('\n', " ⏎ "),
        );
        // Kept for the closing lines: the count of what was left out, and pending servers.
        if text.len() + line.len() + 120 > room {
            omitted += file.items.len() - n;
            break;
        }
        text.push_str(&line);
    }
    if omitted > 0 {
        let _ = writeln!(text, "  … {omitted} more");
    }
    for pending in &file.pending {
        // A ready server's state says nothing the reason does not.
        let state = match pending.state.as_str() {
            "ready" => String::new(),
            other => format!(" {other}"),
        };
        let _ = writeln!(
            text,
            "  pending [{}]{state}: {}",
            pending.server, pending.reason
        );
    }
    for skipped in &file.unanalysed {
        let _ = writeln!(
            text,
            "  not analysed [{}]: {}",
            skipped.server, skipped.reason
        );
    }
    text
}

fn count(file: &FileReport, severity: Severity) -> usize {
    file.items.iter().filter(|i| i.severity == severity).count()
}

fn plural(n: usize, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        _ => format!("{n} {word}s"),
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "info",
        Severity::Hint => "hint",
    }
}

/// The path relative to the current folder when it is below it.
fn shown_path(path: &std::path::Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(severity: Severity, line: u32, new: bool) -> Item {
        Item {
            symbol: None,
            severity,
            line,
            column: 1,
            code: None,
            message: format!("problem on line {line}"),
            server: "gopls".into(),
            new,
        }
    }

    #[test]
    fn clean_files_print_nothing() {
        let report = Report {
            files: vec![FileReport::new("/w/a.go".into(), true)],
            unavailable: vec![],
        };
        assert_eq!(block(&report), "");
    }

    #[test]
    fn the_block_names_counts_marks_new_and_caps_files() {
        let mut files = Vec::new();
        for n in 0..7 {
            let mut file = FileReport::new(format!("/w/f{n}.go").into(), n == 0);
            file.items = vec![
                item(Severity::Error, 3, true),
                item(Severity::Warning, 9, false),
            ];
            files.push(file);
        }
        files[1].pending.push(Pending {
            server: "gopls".into(),
            state: "starting".into(),
            reason: "the server is starting".into(),
        });
        files[0].pending.push(Pending {
            server: "gopls (check)".into(),
            state: "ready".into(),
            reason: "not finished".into(),
        });
        let text = block(&Report {
            files,
            unavailable: vec![],
        });
        assert!(text.starts_with("[DIAGNOSTICS]\n/w/f0.go: 1 error, 1 warning, 1 new\n  error 3:1 new [gopls] problem on line 3\n  warning 9:1 [gopls]"), "{text}");
        assert!(text.contains("/w/f1.go (not edited)"), "{text}");
        assert!(
            text.contains("pending [gopls] starting: the server is starting"),
            "{text}"
        );
        assert!(
            text.contains("pending [gopls (check)]: not finished"),
            "{text}"
        );
        assert_eq!(text.matches("/w/f").count(), MAX_FILES, "{text}");
        assert!(
            text.ends_with(
                "… 2 more file(s) with 4 finding(s) not shown (coder diagnostics --files …)\n"
            ),
            "{text}"
        );
        assert!(text.len() <= MAX_CHARS);
    }

    #[test]
    fn a_file_no_server_looks_at_says_so() {
        // Silence would read as "clean".
        let mut file = FileReport::new("/w/loose.rs".into(), true);
        file.unanalysed.push(Unanalysed {
            server: "rust-analyzer".into(),
            reason: "no Cargo.toml above it".into(),
        });
        let text = block(&Report {
            files: vec![file],
            unavailable: vec![],
        });
        assert_eq!(
            text,
            "[DIAGNOSTICS]\n/w/loose.rs\n  not analysed [rust-analyzer]: no Cargo.toml above it\n"
        );
    }

    #[test]
    fn the_block_stays_within_its_character_budget() {
        let long = |n: u32| Item {
            message: "x".repeat(100),
            ..item(Severity::Error, n, true)
        };
        let mut file = FileReport::new("/w/big.go".into(), true);
        file.items = (0..50).map(long).collect();
        let mut second = FileReport::new("/w/second.go".into(), true);
        second.items = (0..50).map(long).collect();
        let text = block(&Report {
            files: vec![file, second],
            unavailable: vec![],
        });
        assert!(text.len() <= MAX_CHARS, "{}", text.len());
        assert!(text.contains("\n  … 28 more\n"), "{text}");
        assert!(
            text.ends_with(
                "… 1 more file(s) with 50 finding(s) not shown (coder diagnostics --files …)\n"
            ),
            "{text}"
        );
    }
}
