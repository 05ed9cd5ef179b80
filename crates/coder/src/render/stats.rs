//! `coder stats`: one table per period (since start, then the window when asked), a row per
//! method with its requests, errors by code and latency, then the daemon-wide counts; from the
//! answer's type (`wire::answers::stats`, the one the daemon builds).

use std::io::{self, Write};
use wire::answers::stats::{Counts, Period, Stats};

/// The text `coder stats` prints; an answer of another shape is shown as JSON.
pub fn render(out: &mut impl Write, text: &str) -> io::Result<()> {
    let Ok(r) = serde_json::from_str::<Stats>(text) else {
        return super::write_pretty(out, text.as_bytes());
    };
    writeln!(out, "since start ({} s ago):", r.uptime_ms / 1000)?;
    period(out, &r.since_start)?;
    if let Some(window) = &r.window {
        let minutes = window.seconds.unwrap_or(0) / 60;
        let partial = match window.partial {
            Some(true) => " (partial: older events were dropped)",
            _ => "",
        };
        writeln!(out, "\nlast {minutes} min{partial}:")?;
        period(out, window)?;
    }
    Ok(())
}

fn period(out: &mut impl Write, p: &Period) -> io::Result<()> {
    let width = p.methods.keys().map(|k| k.len()).max().unwrap_or(6).max(6);
    writeln!(
        out,
        "  {:<width$} {:>8} {:>7} {:>9} {:>9}  errors by code",
        "method", "requests", "errors", "p50 ms", "p99 ms"
    )?;
    for (name, m) in &p.methods {
        writeln!(
            out,
            "  {name:<width$} {:>8} {:>7} {:>9.3} {:>9.3}  {}",
            m.requests,
            m.errors,
            m.p50_ms,
            m.p99_ms,
            codes(&m.errors_by_code),
        )?;
    }
    writeln!(
        out,
        "  total: {} requests, {} errors {}; {} bytes in, {} bytes out",
        p.requests,
        p.errors,
        codes(&p.errors_by_code),
        p.bytes_in,
        p.bytes_out
    )?;
    writeln!(
        out,
        "  language servers: {} restarts, settle {}; checkpoint failures: {}",
        p.server_restarts,
        codes(&p.settle),
        p.checkpoint_failures
    )
}

/// `C211 2, C212 1` (or `-`).
fn codes(counts: &Counts) -> String {
    if counts.is_empty() {
        return "-".into();
    }
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_render_a_row_per_method_and_the_totals() {
        let answer = r#"{"since_start":{"bytes_in":10,"bytes_out":20,"checkpoint_failures":0,"errors":2,"errors_by_code":{"C211":2},"methods":{"read":{"errors":2,"errors_by_code":{"C211":2},"p50_ms":1.5,"p99_ms":0.25,"requests":3}},"requests":3,"server_restarts":1,"settle":{"settled":4}},"uptime_ms":7000,"window":{"bytes_in":0,"bytes_out":0,"checkpoint_failures":0,"errors":0,"errors_by_code":{},"methods":{},"partial":true,"requests":0,"seconds":120,"server_restarts":0,"settle":{}}}"#;
        let mut out = Vec::new();
        render(&mut out, answer).unwrap();
        let expected = "since start (7 s ago):\n  method requests  errors    p50 ms    p99 ms  errors by code\n  read          3       2     1.500     0.250  C211 2\n  total: 3 requests, 2 errors C211 2; 10 bytes in, 20 bytes out\n  language servers: 1 restarts, settle settled 4; checkpoint failures: 0\n\nlast 2 min (partial: older events were dropped):\n  method requests  errors    p50 ms    p99 ms  errors by code\n  total: 0 requests, 0 errors -; 0 bytes in, 0 bytes out\n  language servers: 0 restarts, settle -; checkpoint failures: 0\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
