//! The client's side of diagnostics: the `[DIAGNOSTICS]` block `coder` prints after an edit's
//! output (`wire::diagnostics::block`), the `diagnostics` method's text, and the
//! `CODER_AUTODIAG=off` switch.

use serde::Deserialize;
use serde_json::Value;
use std::io::Write;
use wire::diagnostics::{block, Report};

/// Sets `diagnostics: false` on a mutating request when the environment says
/// `CODER_AUTODIAG=off` (or `0`, `false`, `no`), unless the request already says.
pub fn apply_env_switch(mutates: bool, params: &mut Value) {
    let off = wire::switches::var_is_off("CODER_AUTODIAG");
    if !(mutates && off) {
        return;
    }
    if let Value::Object(map) = params {
        map.entry("diagnostics").or_insert(Value::Bool(false));
    }
}

/// Writes the block for a result that carries `diagnostics`; nothing otherwise.
pub fn write_block(out: &mut impl Write, result: &str) -> std::io::Result<()> {
    #[derive(Deserialize)]
    struct WithDiagnostics {
        diagnostics: Option<Report>,
    }
    let Ok(WithDiagnostics {
        diagnostics: Some(report),
    }) = serde_json::from_str(result)
    else {
        return Ok(());
    };
    out.write_all(block(&report).as_bytes())
}

/// The `diagnostics` method's text: the block, or a line saying the files are clean, and the
/// servers that could not look (asked for explicitly, silence would read as "clean").
pub fn write_report(out: &mut impl Write, result: &str) -> std::io::Result<()> {
    let report: Report = serde_json::from_str(result)?;
    let text = block(&report);
    if text.is_empty() {
        writeln!(out, "no diagnostics in {} file(s)", report.files.len())?;
    }
    out.write_all(text.as_bytes())?;
    for missing in &report.unavailable {
        writeln!(
            out,
            "{} ({}) is not installed here: {}",
            missing.server, missing.language, missing.install
        )?;
    }
    Ok(())
}
