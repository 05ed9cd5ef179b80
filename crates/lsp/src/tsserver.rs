//! Diagnostics from typescript-language-server by asking its tsserver directly
//! (`workspace/executeCommand` `typescript.tsserverRequest` with `syntacticDiagnosticsSync` and
//! `semanticDiagnosticsSync`), used instead of its publishes (`pull = "tsserver-request"` in
//! data/servers.toml).
//!
//! Why: tsls stamps no version on its publishes and sends none at all when a clean file stays
//! clean, so after such an edit nothing ever says the findings are current. tsserver handles
//! requests in order, after the changes sent before them, so these answers describe the latest
//! version, and they come without tsls's ~200 ms debounce.

use super::transport::{Transport, TransportError};
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

/// The tsserver requests whose answers together are what tsls would publish (suggestions left
/// out: they are hints).
const REQUESTS: [&str; 2] = ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"];

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    success: bool,
    #[serde(default)]
    body: Vec<TsDiagnostic>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct TsDiagnostic {
    start: TsLocation,
    end: TsLocation,
    text: String,
    code: Option<i32>,
    category: Option<String>,
}

/// 1-based line and character offset.
#[derive(Deserialize)]
struct TsLocation {
    line: u32,
    offset: u32,
}

/// The document's syntactic and semantic diagnostics, as LSP diagnostics.
pub async fn diagnostics(
    transport: &Transport,
    uri: &str,
    timeout: Duration,
) -> Result<Vec<Diagnostic>, TransportError> {
    let mut items = Vec::new();
    for request in REQUESTS {
        let params = json!({
            "command": "typescript.tsserverRequest",
            "arguments": [request, { "file": uri }],
        });
        let value = transport
            .request("workspace/executeCommand", params, timeout)
            .await?;
        let response: Response =
            serde_json::from_value(value).map_err(|e| TransportError::Rpc {
                code: 0,
                message: format!("{request}: unexpected answer: {e}"),
            })?;
        if !response.success {
            return Err(TransportError::Rpc {
                code: 0,
                message: format!("{request}: {}", response.message.unwrap_or_default()),
            });
        }
        items.extend(response.body.into_iter().map(to_lsp));
    }
    Ok(items)
}

fn to_lsp(d: TsDiagnostic) -> Diagnostic {
    let position =
        |l: &TsLocation| Position::new(l.line.saturating_sub(1), l.offset.saturating_sub(1));
    let severity = match d.category.as_deref() {
        Some("warning") => DiagnosticSeverity::WARNING,
        Some("suggestion") => DiagnosticSeverity::HINT,
        Some("message") => DiagnosticSeverity::INFORMATION,
        _ => DiagnosticSeverity::ERROR,
    };
    Diagnostic {
        range: Range::new(position(&d.start), position(&d.end)),
        severity: Some(severity),
        code: d.code.map(NumberOrString::Number),
        source: Some("typescript".into()),
        message: d.text,
        ..Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsserver_diagnostics_become_zero_based_lsp_ones() {
        let d: TsDiagnostic = serde_json::from_value(json!({
            "start": {"line": 2, "offset": 10}, "end": {"line": 2, "offset": 21},
            "text": "Cannot find name 'x'.", "code": 2304, "category": "error"
        }))
        .unwrap();
        let lsp = to_lsp(d);
        assert_eq!(lsp.range.start, Position::new(1, 9));
        assert_eq!(lsp.range.end, Position::new(1, 20));
        assert_eq!(lsp.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(lsp.code, Some(NumberOrString::Number(2304)));
    }
}
