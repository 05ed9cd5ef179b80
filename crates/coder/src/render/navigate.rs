//! The semantic moves as `rg` prints matches (`wire::answers::navigate`): `file:line: text` per
//! place (paths relative to the current folder when under it), the calls of `callers`/`callees`
//! under the function that makes or receives them, hover as its markdown text. When nothing was
//! found through a server, why (`unanswered`) is printed, on stderr's side of the story: last,
//! marked `[NO SERVER ANSWER]`. A rename's dry run prints its diff as a plain unified diff.

use super::git::typed;
use std::io::{self, Write};
use std::path::Path;
use wire::answers::navigate::{Calls, Hover, Location, Locations, Renamed};

/// A path as the user would type it: relative to the current folder when under it.
fn shown(path: &Path) -> String {
    let here = std::env::current_dir().ok();
    let relative = here
        .as_deref()
        .and_then(|here| path.strip_prefix(here).ok());
    relative.unwrap_or(path).display().to_string()
}

fn place(out: &mut impl Write, l: &Location, indent: &str) -> io::Result<()> {
    writeln!(
        out,
        "{indent}{}:{}: {}",
        shown(&l.path),
        l.line,
        l.text.trim()
    )
}

fn unanswered(out: &mut impl Write, source: &str, why: Option<&String>) -> io::Result<()> {
    match why {
        Some(why) => writeln!(out, "[NO SERVER ANSWER] {why} (source: {source})"),
        None => Ok(()),
    }
}

pub fn locations(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Locations| {
        match &r.groups {
            Some(groups) => {
                for g in groups {
                    let name = if g.symbol.is_empty() {
                        "(top level)"
                    } else {
                        &g.symbol
                    };
                    writeln!(out, "{}:{}: {name}", shown(&g.path), g.line)?;
                    for l in &g.locations {
                        place(out, l, "  ")?;
                    }
                }
            }
            None => {
                for l in &r.locations {
                    place(out, l, "")?;
                }
            }
        }
        unanswered(out, &r.source, r.unanswered.as_ref())
    })
}

pub fn calls(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Calls| {
        for call in &r.calls {
            writeln!(out, "{}:{}: {}", shown(&call.path), call.line, call.name)?;
            for site in &call.sites {
                place(out, site, "  ")?;
            }
        }
        unanswered(out, &r.source, r.unanswered.as_ref())
    })
}

pub fn hover(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Hover| {
        if !r.contents.is_empty() {
            writeln!(out, "{}", r.contents.trim_end())?;
        }
        unanswered(out, &r.source, r.unanswered.as_ref())
    })
}

/// A rename: its dry run's diff as a plain unified diff (what `git apply` takes), else a line per
/// file changed, as every edit prints them.
pub fn renamed(out: &mut impl Write, text: &str) -> io::Result<()> {
    typed(out, text, |out, r: Renamed| match &r.diff {
        Some(diff) => out.write_all(diff.as_bytes()),
        None => super::edit::files(out, &r.files),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_print_as_rg_does_and_an_empty_answer_says_why() {
        let answer = r#"{"source":"gopls","symbol":"Area","count":1,"locations":[{"path":"/nowhere/shapes.go","line":7,"column":6,"end_line":7,"end_column":10,"text":"\tfunc (s Square) Area() int {"}]}"#;
        let mut out = Vec::new();
        locations(&mut out, answer).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "/nowhere/shapes.go:7: func (s Square) Area() int {\n"
        );
        let empty = r#"{"source":"none","count":0,"calls":[],"unanswered":"pyright does not offer implementation"}"#;
        let mut out = Vec::new();
        calls(&mut out, empty).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[NO SERVER ANSWER] pyright does not offer implementation (source: none)\n"
        );
    }
}
