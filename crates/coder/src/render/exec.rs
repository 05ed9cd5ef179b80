//! `coder exec` and `coder test`: the output as the command printed it, then one status line.

/// Human rendering of an `exec` or `test` result (or a `dry_run` decision) for the CLI: the
/// output as the command printed it, then one status line.
pub fn render(out: &mut impl std::io::Write, result: &serde_json::Value) -> std::io::Result<()> {
    if let Some(allowed) = result["allowed"].as_bool() {
        for command in result["commands"].as_array().into_iter().flatten() {
            writeln!(out, "  {}", command["argv"])?;
        }
        for refusal in result["refusals"].as_array().into_iter().flatten() {
            let rule = refusal["rule"].as_str().unwrap_or("");
            let command = refusal["command"].as_str().unwrap_or("");
            let reason = refusal["reason"].as_str().unwrap_or("");
            writeln!(out, "refused by `{rule}`: `{command}`: {reason}")?;
        }
        return writeln!(out, "{}", if allowed { "allowed" } else { "refused" });
    }
    if result["streamed"] != serde_json::Value::Bool(true) {
        out.write_all(result["stdout"].as_str().unwrap_or("").as_bytes())?;
        out.write_all(result["stderr"].as_str().unwrap_or("").as_bytes())?;
    }
    if let Some(summary) = result.get("summary") {
        for failure in summary["failures"].as_array().into_iter().flatten() {
            writeln!(out, "FAILED {}", failure["name"].as_str().unwrap_or(""))?;
        }
        writeln!(
            out,
            "[{} passed, {} failed, {} skipped]",
            summary["passed"], summary["failed"], summary["skipped"]
        )?;
    }
    let ending = match (result["timed_out"].as_bool(), result["signal"].as_i64()) {
        (Some(true), _) => "timed out".to_string(),
        (_, Some(signal)) => format!("killed by signal {signal}"),
        _ => format!("exit {}", result["exit_code"]),
    };
    writeln!(out, "[{ending}, {} ms]", result["duration_ms"])
}
