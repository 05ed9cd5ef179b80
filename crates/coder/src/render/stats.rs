//! `coder stats`: one table per period (since start, then the window when asked), a row per
//! method with its requests, errors by code and latency, then the daemon-wide counts.

use serde_json::Value;
use std::io::{self, Write};

pub fn render(out: &mut impl Write, r: &Value) -> io::Result<()> {
    let uptime = r["uptime_ms"].as_u64().unwrap_or(0) / 1000;
    writeln!(out, "since start ({uptime} s ago):")?;
    period(out, &r["since_start"])?;
    if let Some(window) = r.get("window") {
        let minutes = window["seconds"].as_u64().unwrap_or(0) / 60;
        let partial = match window["partial"].as_bool() {
            Some(true) => " (partial: older events were dropped)",
            _ => "",
        };
        writeln!(out, "\nlast {minutes} min{partial}:")?;
        period(out, window)?;
    }
    Ok(())
}

fn period(out: &mut impl Write, p: &Value) -> io::Result<()> {
    let empty = serde_json::Map::new();
    let methods = p["methods"].as_object().unwrap_or(&empty);
    let width = methods.keys().map(String::len).max().unwrap_or(6).max(6);
    writeln!(
        out,
        "  {:<width$} {:>8} {:>7} {:>9} {:>9}  errors by code",
        "method", "requests", "errors", "p50 ms", "p99 ms"
    )?;
    for (name, m) in methods {
        writeln!(
            out,
            "  {name:<width$} {:>8} {:>7} {:>9.3} {:>9.3}  {}",
            m["requests"],
            m["errors"],
            m["p50_ms"].as_f64().unwrap_or(0.0),
            m["p99_ms"].as_f64().unwrap_or(0.0),
            codes(&m["errors_by_code"]),
        )?;
    }
    writeln!(
        out,
        "  total: {} requests, {} errors {}; {} bytes in, {} bytes out",
        p["requests"],
        p["errors"],
        codes(&p["errors_by_code"]),
        p["bytes_in"],
        p["bytes_out"]
    )?;
    writeln!(
        out,
        "  language servers: {} restarts, settle {}; checkpoint failures: {}",
        p["server_restarts"],
        codes(&p["settle"]),
        p["checkpoint_failures"]
    )
}

/// `C211 2, C212 1` (or `-`).
fn codes(v: &Value) -> String {
    let Some(map) = v.as_object().filter(|m| !m.is_empty()) else {
        return "-".into();
    };
    let parts: Vec<String> = map.iter().map(|(k, n)| format!("{k} {n}")).collect();
    parts.join(", ")
}
