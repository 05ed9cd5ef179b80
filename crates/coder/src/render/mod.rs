//! Human renderings of results (`coder` without `--json`), one module per area whose answers need
//! more than the generic ones here. Each reads the answer into its type shared through `wire`
//! (`wire::answers`: the type the daemon serialises, so a renamed field does not compile here), or
//! into a borrowed view where answers are big (search, text reads, trees); never the daemon's
//! crates. An answer that is not of its kind's shape is shown as JSON.

mod checkpoint;
pub mod diagnostics;
mod edit;
mod exec;
mod git;
mod map;
mod navigate;
mod outline;
pub mod search_text;
mod stats;
mod todo;

use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::io::Write;
use wire::answers::listing::FolderPage;
use wire::answers::Answer;

/// Pretty-prints JSON text as it streams by (two-space indent, `"key": value`, the layout of
/// `serde_json::to_string_pretty`), without parsing it into values: keys stay in the daemon's order.
pub fn write_pretty(out: &mut impl Write, json: &[u8]) -> std::io::Result<()> {
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut start = 0;
    let newline = |out: &mut dyn Write, depth: usize| -> std::io::Result<()> {
        out.write_all(b"\n")?;
        for _ in 0..depth {
            out.write_all(b"  ")?;
        }
        Ok(())
    };
    let mut i = 0;
    while i < json.len() {
        let b = json[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                out.write_all(&json[start..=i])?;
                let close = if b == b'{' { b'}' } else { b']' };
                if json.get(i + 1) == Some(&close) {
                    out.write_all(&[close])?;
                    i += 1;
                } else {
                    depth += 1;
                    newline(out, depth)?;
                }
                start = i + 1;
            }
            b'}' | b']' => {
                out.write_all(&json[start..i])?;
                depth = depth.saturating_sub(1);
                newline(out, depth)?;
                out.write_all(&[b])?;
                start = i + 1;
            }
            b',' => {
                out.write_all(&json[start..=i])?;
                newline(out, depth)?;
                start = i + 1;
            }
            b':' => {
                out.write_all(&json[start..i])?;
                out.write_all(b": ")?;
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.write_all(&json[start..])?;
    out.write_all(b"\n")
}

/// Human rendering of a result, by the kind of answer its method's entry declares (`answer`, from
/// `schema`: no method's name is matched here; `mutates`: whether the method edits, so its answer
/// may carry diagnostics and a checkpoint warning). Search, plain reads and trees are rendered from
/// borrowed views of the reply's bytes; stat and batch reads still go through `Value`.
pub fn render(
    out: &mut impl Write,
    answer: Answer,
    mutates: bool,
    text: &str,
) -> std::io::Result<()> {
    let value = || serde_json::from_str::<Value>(text).unwrap_or_default();
    match answer {
        Answer::Search => match search_text::render(out, text) {
            Ok(()) => Ok(()),
            Err(search_text::Failure::Io(e)) => Err(e),
            Err(search_text::Failure::NotSearch) => write_pretty(out, text.as_bytes()),
        },
        Answer::Tree => match serde_json::from_str::<TreeView>(text) {
            Ok(view) => render_tree(out, &view.tree, "", true, true),
            Err(_) => write_pretty(out, text.as_bytes()),
        },
        Answer::Read => match serde_json::from_str::<TextView>(text) {
            Ok(view) => render_text(out, &view),
            Err(_) => {
                let result = value();
                if result.get("results").is_some() {
                    render_batch(out, &result)
                } else {
                    render_read(out, &result)
                }
            }
        },
        Answer::ListFolder => render_list(out, text),
        Answer::Outline => outline::render(out, text),
        Answer::Map => map::render(out, text),
        Answer::Symbols => map::symbols(out, text),
        Answer::Diagnostics => diagnostics::write_report(out, text),
        Answer::GitStatus => git::status(out, text),
        Answer::GitDiff => git::diff(out, text),
        Answer::GitLog => git::log(out, text),
        Answer::GitChanged => git::changed(out, text),
        Answer::GitBranch => git::branch(out, text),
        Answer::Checkpoint => checkpoint::render(out, text),
        Answer::Todo => todo::render(out, text),
        Answer::Stats => stats::render(out, text),
        Answer::Command => exec::render(out, text),
        Answer::Edit => edit::render(out, text),
        Answer::Locations => navigate::locations(out, text),
        Answer::Calls => navigate::calls(out, text),
        Answer::Hover => navigate::hover(out, text),
        Answer::Rename => navigate::renamed(out, text),
        Answer::Json => write_pretty(out, text.as_bytes()),
    }?;
    // After any edit, what the language servers found in the files it changed.
    if mutates {
        diagnostics::write_block(out, text)?;
        // The safety net this edit ran without, each time (see `checkpoint::auto`).
        if text.contains("\"checkpoint_warning\"") {
            if let Ok(Hooked {
                checkpoint_warning: Some(warning),
            }) = serde_json::from_str(text)
            {
                writeln!(out, "[CHECKPOINT] {warning}")?;
            }
        }
    }
    Ok(())
}

/// What the daemon's hooks append to an edit's answer (`Outgoing::with_field`), whatever its kind.
#[derive(Deserialize)]
struct Hooked<'a> {
    #[serde(borrow)]
    checkpoint_warning: Option<Cow<'a, str>>,
}

/// A text read, borrowed from the reply (`content` is copied only when it holds escapes). Stat,
/// base64 and batch answers lack `start`, so they do not decode as this.
#[derive(Deserialize)]
struct TextView<'a> {
    #[serde(borrow)]
    content: Cow<'a, str>,
    truncated: bool,
    truncated_reason: Option<&'a str>,
    start: u64,
    end: u64,
    total_lines: Option<u64>,
    next_start: Option<u64>,
}

fn render_text(out: &mut impl Write, r: &TextView) -> std::io::Result<()> {
    out.write_all(r.content.as_bytes())?;
    if r.truncated {
        out.flush()?;
        let or_unknown = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
        eprintln!(
            "\n[truncated ({}): lines {}-{} of {}; continue with --start {}]",
            r.truncated_reason.unwrap_or("?"),
            r.start,
            r.end,
            or_unknown(r.total_lines),
            or_unknown(r.next_start),
        );
    }
    Ok(())
}

fn render_read(out: &mut impl Write, r: &Value) -> std::io::Result<()> {
    if r.get("sha256").is_some() {
        for key in [
            "path",
            "size",
            "total_lines",
            "line_ending",
            "binary",
            "mtime_ms",
            "sha256",
        ] {
            writeln!(out, "{key}: {}", plain(&r[key]))?;
        }
        return Ok(());
    }
    write!(out, "{}", r["content"].as_str().unwrap_or(""))?;
    if r["truncated"] == true {
        let next = if r["encoding"] == "base64" {
            format!("--offset {}", plain(&r["next_offset"]))
        } else {
            format!("--start {}", plain(&r["next_start"]))
        };
        eprintln!(
            "\n[truncated ({}): lines {}-{} of {}; continue with {next}]",
            plain(&r["truncated_reason"]),
            plain(&r["start"]),
            plain(&r["end"]),
            plain(&r["total_lines"])
        );
    }
    Ok(())
}

fn render_batch(out: &mut impl Write, r: &Value) -> std::io::Result<()> {
    for item in r["results"].as_array().into_iter().flatten() {
        let name = item
            .get("path")
            .or(item.get("file"))
            .map(plain)
            .unwrap_or_default();
        writeln!(out, "==> {name} <==")?;
        if let Some(e) = item.get("error") {
            writeln!(out, "error {}: {}", plain(&e["code"]), plain(&e["message"]))?;
        } else if item["skipped"] == true {
            writeln!(out, "(skipped: {})", plain(&item["reason"]))?;
        } else {
            render_read(out, item)?;
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct TreeView<'a> {
    #[serde(borrow)]
    tree: NodeView<'a>,
}

#[derive(Deserialize)]
struct NodeView<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    kind: &'a str,
    #[serde(default)]
    non_accessible: bool,
    reason: Option<&'a str>,
    omitted: Option<u64>,
    #[serde(borrow, default)]
    children: Vec<NodeView<'a>>,
}

fn render_tree(
    out: &mut impl Write,
    node: &NodeView,
    prefix: &str,
    last: bool,
    top: bool,
) -> std::io::Result<()> {
    let (branch, child_prefix) = match (top, last) {
        (true, _) => ("", String::new()),
        (false, true) => ("└── ", format!("{prefix}    ")),
        (false, false) => ("├── ", format!("{prefix}│   ")),
    };
    write!(out, "{prefix}{branch}{}", node.name)?;
    match node.kind {
        "dir" => write!(out, "/")?,
        "symlink" => write!(out, "@")?,
        _ => {}
    }
    if node.non_accessible {
        write!(out, "  [non-accessible]")?;
    }
    if let Some(reason) = node.reason {
        write!(out, "  [{reason}]")?;
    }
    if let Some(n) = node.omitted {
        write!(out, "  (+{n} more)")?;
    }
    writeln!(out)?;
    for (i, child) in node.children.iter().enumerate() {
        render_tree(
            out,
            child,
            &child_prefix,
            i + 1 == node.children.len(),
            false,
        )?;
    }
    Ok(())
}

/// `list-folder`: a line per entry (kind, size, name), from the answer's type
/// (`wire::answers::listing`, the one the daemon builds); then the cursor of the next page.
fn render_list(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    let Ok(page) = serde_json::from_str::<FolderPage>(text) else {
        return write_pretty(out, text.as_bytes());
    };
    for e in &page.entries {
        let flag = if e.non_accessible {
            "  [non-accessible]"
        } else {
            ""
        };
        let size = e.size.map(|n| n.to_string()).unwrap_or_default();
        writeln!(out, "{:<8}{:>12}  {}{flag}", e.kind, size, e.name)?;
    }
    if let Some(cursor) = &page.next_cursor {
        eprintln!("[more: --cursor {cursor:?}]");
    }
    Ok(())
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "?".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_without_its_checkpoint_says_so_and_clean_lists_what_it_would_remove() {
        let mut out = Vec::new();
        let answer = r#"{"files":[],"checkpoint_warning":"no automatic checkpoint"}"#;
        render(&mut out, Answer::Edit, true, answer).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("[CHECKPOINT] no automatic checkpoint"),
            "{text}"
        );
        let mut out = Vec::new();
        let listing = r#"{"removed":[],"would_remove":["/w/a.bak"],"count":0,
            "kept_not_ours":["/w/db.bak"],"note":"pass `force`"}"#;
        render(&mut out, Answer::Edit, true, listing).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "would remove /w/a.bak\nkept (not a backup coderd wrote) /w/db.bak\npass `force`\n"
        );
    }

    #[test]
    fn a_folder_page_renders_a_line_per_entry() {
        let page = r#"{"entries":[{"default_excluded":true,"kind":"dir","name":"target"},{"kind":"file","name":".env","non_accessible":true,"size":12}],"next_cursor":null,"path":"/w","total":2}"#;
        let mut out = Vec::new();
        render(&mut out, Answer::ListFolder, false, page).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "dir                   target\nfile              12  .env  [non-accessible]\n"
        );
    }

    #[test]
    fn pretty_printing_matches_serde_json_without_parsing() {
        let raw = r#"{"a":[1,{"b":"x,{y}:\"z\\"}],"c":{},"d":[],"e":null}"#;
        let mut out = Vec::new();
        write_pretty(&mut out, raw.as_bytes()).unwrap();
        let value: Value = serde_json::from_str(raw).unwrap();
        let expected = serde_json::to_string_pretty(&value).unwrap() + "\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
