//! The structured `diagnostics` an edit's answer (and the `diagnostics` method) carries: per file,
//! the settled findings of every server of its language, merged, de-duplicated, labelled by
//! server, errors first, each marked `new` when the version before did not have it. The client
//! reads the same types to render the `[DIAGNOSTICS]` block.

use super::instance::Status;
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Findings kept per file in an answer; the rest are counted in `omitted`.
pub const MAX_ITEMS_PER_FILE: usize = 50;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

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
}

/// A server whose findings for the file were not current by the deadline: none are shown.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pending {
    pub server: String,
    pub state: String,
    pub reason: String,
}

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

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub files: Vec<FileReport>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<Unavailable>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl FileReport {
    pub fn new(path: PathBuf, edited: bool) -> FileReport {
        FileReport {
            path,
            edited,
            ..FileReport::default()
        }
    }

    /// Adds one server's current findings; ones already reported (by another server, or by the
    /// same one's own check) at the same place with the same message, or with the same code and
    /// severity, are dropped: rust-analyzer's E0308 and `cargo check`'s E0308 are one finding.
    pub fn add(&mut self, server: &str, items: &[Diagnostic], before: &[Diagnostic]) {
        for diagnostic in items {
            let item = Item {
                severity: severity(diagnostic.severity),
                line: diagnostic.range.start.line + 1,
                column: diagnostic.range.start.character + 1,
                code: diagnostic.code.as_ref().map(|c| match c {
                    NumberOrString::Number(n) => n.to_string(),
                    NumberOrString::String(s) => s.clone(),
                }),
                message: diagnostic.message.trim_end().to_string(),
                server: server.to_string(),
                new: !before.iter().any(|b| same_finding(b, diagnostic)),
            };
            let duplicate = self.items.iter().any(|i| {
                let same_code = item.code.is_some() && i.code == item.code;
                i.line == item.line
                    && i.column == item.column
                    && (i.message == item.message || (same_code && i.severity == item.severity))
            });
            if !duplicate {
                self.items.push(item);
            }
        }
    }

    pub fn add_pending(&mut self, server: &str, state: Status, reason: String) {
        self.pending.push(Pending {
            server: server.to_string(),
            state: state.as_str().to_string(),
            reason,
        });
    }

    /// Errors first, then by position; capped at `MAX_ITEMS_PER_FILE`.
    pub fn finish(&mut self) {
        self.items.sort_by_key(|i| (i.severity, i.line, i.column));
        if self.items.len() > MAX_ITEMS_PER_FILE {
            self.omitted = self.items.len() - MAX_ITEMS_PER_FILE;
            self.items.truncate(MAX_ITEMS_PER_FILE);
        }
    }
}

/// A server that leaves out the severity means an error (LSP leaves it to the client).
fn severity(severity: Option<DiagnosticSeverity>) -> Severity {
    match severity {
        Some(DiagnosticSeverity::WARNING) => Severity::Warning,
        Some(DiagnosticSeverity::INFORMATION) => Severity::Information,
        Some(DiagnosticSeverity::HINT) => Severity::Hint,
        _ => Severity::Error,
    }
}

/// The same finding in two versions of a file: same severity, code and message (lines shift
/// when code above them changes, so the position is not compared).
fn same_finding(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.severity == b.severity && a.code == b.code && a.message == b.message
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn diagnostic(line: u32, severity: DiagnosticSeverity, message: &str) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, 4), Position::new(line, 8)),
            severity: Some(severity),
            message: message.into(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn merged_findings_are_deduplicated_sorted_errors_first_and_marked_new() {
        let mut file = FileReport::new("/w/a.py".into(), true);
        let old_warning = diagnostic(9, DiagnosticSeverity::WARNING, "unused import");
        file.add(
            "pyright",
            &[
                diagnostic(2, DiagnosticSeverity::WARNING, "unused import"),
                diagnostic(5, DiagnosticSeverity::ERROR, "undefined name `x`"),
            ],
            &[old_warning],
        );
        file.add(
            "ruff",
            &[diagnostic(
                5,
                DiagnosticSeverity::ERROR,
                "undefined name `x`",
            )],
            &[],
        );
        file.finish();
        let shown: Vec<(Severity, u32, &str, bool)> = file
            .items
            .iter()
            .map(|i| (i.severity, i.line, i.server.as_str(), i.new))
            .collect();
        assert_eq!(
            shown,
            [
                (Severity::Error, 6, "pyright", true),
                (Severity::Warning, 3, "pyright", false)
            ]
        );
        assert_eq!(file.items[0].column, 5);
    }

    #[test]
    fn a_check_finding_with_the_code_of_a_native_one_at_its_place_is_the_same_finding() {
        let coded = |line, message: &str, code: &str| Diagnostic {
            code: Some(NumberOrString::String(code.into())),
            ..diagnostic(line, DiagnosticSeverity::ERROR, message)
        };
        let mut file = FileReport::new("/w/lib.rs".into(), true);
        file.add(
            "rust-analyzer",
            &[
                coded(1, "expected i32, found &str", "E0308"),
                coded(1, "mismatched types", "E0308"),
                coded(2, "mismatched types", "E0308"),
                coded(1, "cannot find value `y`", "E0425"),
            ],
            &[],
        );
        let kept: Vec<(u32, &str)> = file
            .items
            .iter()
            .map(|i| (i.line, i.message.as_str()))
            .collect();
        assert_eq!(
            kept,
            [
                (2, "expected i32, found &str"),
                (3, "mismatched types"),
                (2, "cannot find value `y`")
            ]
        );
    }
}
