//! The daemon's half of the structured `diagnostics` an edit's answer (and the `diagnostics`
//! method) carries: turning servers' `lsp_types` findings into the shared report types of
//! `wire::diagnostics`, which need no `lsp_types` so the client can read them too.

use super::instance::Status;
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};
pub use wire::diagnostics::{FileReport, Item, Pending, Report, Severity, Unanalysed, Unavailable};

/// Findings kept per file in an answer; the rest are counted in `omitted`.
pub const MAX_ITEMS_PER_FILE: usize = 50;

/// Filling a `FileReport` from servers' findings. A trait, because the type lives in the wire
/// crate, which knows neither `lsp_types` nor a server's `Status`.
pub trait FileReportExt {
    /// Adds one server's current findings; ones already reported (by another server, or by the
    /// same one's own check) at the same place with the same message, or with the same code and
    /// severity, are dropped: rust-analyzer's E0308 and `cargo check`'s E0308 are one finding.
    fn add(&mut self, server: &str, items: &[Diagnostic], before: &[Diagnostic]);
    /// Notes a server whose findings were not current by the deadline.
    fn add_pending(&mut self, server: &str, state: Status, reason: String);
    /// Errors first, then by position; capped at `MAX_ITEMS_PER_FILE`.
    fn finish(&mut self);
}

impl FileReportExt for FileReport {
    fn add(&mut self, server: &str, items: &[Diagnostic], before: &[Diagnostic]) {
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
                symbol: None,
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

    fn add_pending(&mut self, server: &str, state: Status, reason: String) {
        self.pending.push(Pending {
            server: server.to_string(),
            state: state.as_str().to_string(),
            reason,
        });
    }

    fn finish(&mut self) {
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
