//! `coder checkpoint`: the list, a creation, or what a restore did.

use std::io::{self, Write};
use wire::answers::checkpoint::{Listing, Outcome, Restored, Snapshot};

/// The text `coder checkpoint` prints, from the answer's type (`wire::answers::checkpoint`, the
/// one the daemon builds); an answer of another shape is shown as JSON.
pub fn render(out: &mut impl Write, text: &str) -> io::Result<()> {
    match serde_json::from_str::<Outcome>(text) {
        Ok(Outcome::List(listing)) => list(out, &listing),
        Ok(Outcome::Create(snapshot)) => created(out, &snapshot),
        Ok(Outcome::Restore(restored)) => restore(out, &restored),
        Err(_) => super::write_pretty(out, text.as_bytes()),
    }
}

/// A hash as the list shows it.
fn short(hash: &str) -> String {
    hash.chars().take(12).collect()
}

fn list(out: &mut impl Write, r: &Listing) -> io::Result<()> {
    for c in &r.checkpoints {
        writeln!(
            out,
            "{}  {}  {}  ({} files)",
            short(&c.hash),
            utc(c.time),
            c.label,
            c.files_changed
        )?;
    }
    if !r.auto.enabled {
        let reason = r.auto.reason.as_deref().unwrap_or("");
        writeln!(out, "automatic checkpoints: off ({reason})")?;
    }
    Ok(())
}

fn created(out: &mut impl Write, r: &Snapshot) -> io::Result<()> {
    let verb = if r.created {
        "created"
    } else {
        "unchanged since"
    };
    writeln!(
        out,
        "checkpoint {verb} {} ({} files changed)",
        short(&r.hash),
        r.files_changed
    )?;
    for path in &r.skipped_large {
        writeln!(out, "  skipped (over the size cap): {path}")?;
    }
    Ok(())
}

fn restore(out: &mut impl Write, r: &Restored) -> io::Result<()> {
    let (count, from) = (r.restored.len(), short(&r.restored_from));
    writeln!(out, "restored {count} files from {from}")?;
    for path in &r.kept_newer {
        writeln!(out, "  kept (newer than the checkpoint): {path}")?;
    }
    for path in &r.undo_also_holds {
        writeln!(out, "  overwritten, held by the undo snapshot: {path}")?;
    }
    for failure in &r.failed {
        writeln!(out, "  failed: {}: {}", failure.path, failure.error)?;
    }
    writeln!(out, "undo with: coder checkpoint --restore {}", r.undo)
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

    #[test]
    fn each_action_renders_from_its_fields() {
        let cases = [
            (
                r#"{"action":"list","checkpoints":[{"hash":"0123456789abcdef","time":0,"label":"write a.rs","files_changed":1}],"auto":{"enabled":false,"reason":"off by config","taken":0,"failures_in_a_row":0}}"#,
                "0123456789ab  1970-01-01 00:00:00 UTC  write a.rs  (1 files)\nautomatic checkpoints: off (off by config)\n",
            ),
            (
                r#"{"action":"create","hash":"abc","created":false,"files_changed":0,"skipped_large":["big.bin"]}"#,
                "checkpoint unchanged since abc (0 files changed)\n  skipped (over the size cap): big.bin\n",
            ),
            (
                r#"{"action":"restore","restored_from":"abc","undo":"def","restored":["a.rs"],"kept_newer":["n.rs"],"failed":[{"path":"b.rs","error":"denied"}]}"#,
                "restored 1 files from abc\n  kept (newer than the checkpoint): n.rs\n  failed: b.rs: denied\nundo with: coder checkpoint --restore def\n",
            ),
        ];
        for (answer, expected) in cases {
            let mut out = Vec::new();
            render(&mut out, answer).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{answer}");
        }
    }
}
