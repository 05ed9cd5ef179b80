//! `coder checkpoint`: the list, a creation, or what a restore did.

use std::io::{self, Write};

/// The text `coder checkpoint` prints.
pub fn render(out: &mut impl Write, r: &serde_json::Value) -> io::Result<()> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    let short = |v: &serde_json::Value| text(v).chars().take(12).collect::<String>();
    match r["action"].as_str() {
        Some("list") => {
            for c in r["checkpoints"].as_array().into_iter().flatten() {
                writeln!(
                    out,
                    "{}  {}  {}  ({} files)",
                    short(&c["hash"]),
                    utc(c["time"].as_i64().unwrap_or(0)),
                    text(&c["label"]),
                    c["files_changed"].as_u64().unwrap_or(0)
                )?;
            }
            let auto = &r["auto"];
            if auto["enabled"].as_bool() == Some(false) {
                writeln!(
                    out,
                    "automatic checkpoints: off ({})",
                    text(&auto["reason"])
                )?;
            }
        }
        Some("create") => {
            let verb = match r["created"].as_bool() {
                Some(true) => "created",
                _ => "unchanged since",
            };
            writeln!(
                out,
                "checkpoint {verb} {} ({} files changed)",
                short(&r["hash"]),
                r["files_changed"]
            )?;
            for path in r["skipped_large"].as_array().into_iter().flatten() {
                writeln!(out, "  skipped (over the size cap): {}", text(path))?;
            }
        }
        _ => {
            let restored = r["restored"].as_array().map_or(0, Vec::len);
            writeln!(
                out,
                "restored {restored} files from {}",
                short(&r["restored_from"])
            )?;
            for path in r["kept_newer"].as_array().into_iter().flatten() {
                writeln!(out, "  kept (newer than the checkpoint): {}", text(path))?;
            }
            for path in r["undo_also_holds"].as_array().into_iter().flatten() {
                writeln!(
                    out,
                    "  overwritten, held by the undo snapshot: {}",
                    text(path)
                )?;
            }
            for failure in r["failed"].as_array().into_iter().flatten() {
                writeln!(
                    out,
                    "  failed: {}: {}",
                    text(&failure["path"]),
                    text(&failure["error"])
                )?;
            }
            writeln!(
                out,
                "undo with: coder checkpoint --restore {}",
                text(&r["undo"])
            )?;
        }
    }
    Ok(())
}

/// `YYYY-MM-DD HH:MM:SS UTC` from Unix seconds (civil-from-days, no time-zone database needed).
fn utc(secs: i64) -> String {
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_render_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_796_237_036), "2026-12-02 18:43:56 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
    }
}
