//! The text `coder` prints for the git methods: what `git status -sb`, `git diff`, `git log`,
//! `git diff --name-only` and `git branch -vv` would show, from the structured results.

use serde_json::Value;
use std::io::{self, Write};

/// Renders the result of one of the `git-*` methods.
fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// `old -> new` for renames, the path otherwise.
fn shown_path(entry: &Value) -> String {
    match entry["orig_path"].as_str() {
        Some(orig) => format!("{orig} -> {}", text(&entry["path"])),
        None => text(&entry["path"]).to_string(),
    }
}

pub fn status(out: &mut impl Write, r: &Value) -> io::Result<()> {
    let b = &r["branch"];
    let mut head = match b["head"].as_str() {
        Some(name) => name.to_string(),
        None => "HEAD (no branch)".to_string(),
    };
    if let Some(upstream) = b["upstream"].as_str() {
        head.push_str(&format!("...{upstream}"));
        let ahead = b["ahead"].as_u64().unwrap_or(0);
        let behind = b["behind"].as_u64().unwrap_or(0);
        let parts: Vec<String> = [("ahead", ahead), ("behind", behind)]
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(word, n)| format!("{word} {n}"))
            .collect();
        if !parts.is_empty() {
            head.push_str(&format!(" [{}]", parts.join(", ")));
        }
    }
    writeln!(out, "## {head}")?;
    for entry in r["entries"].as_array().into_iter().flatten() {
        let code = text(&entry["code"]).replace('.', " ");
        writeln!(out, "{code} {}", shown_path(entry))?;
    }
    Ok(())
}

pub fn diff(out: &mut impl Write, r: &Value) -> io::Result<()> {
    out.write_all(text(&r["diff"]).as_bytes())?;
    out.flush()?;
    if r["truncated"].as_bool() == Some(true) {
        eprintln!(
            "[diff truncated: {} bytes omitted (max_output_bytes); narrow it with --file]",
            r["omitted_bytes"].as_u64().unwrap_or(0)
        );
    }
    let withheld: Vec<&str> = r["withheld"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    if !withheld.is_empty() {
        eprintln!(
            "[not shown, non-accessible by workspace policy: {}]",
            withheld.join(", ")
        );
    }
    Ok(())
}

pub fn log(out: &mut impl Write, r: &Value) -> io::Result<()> {
    let oneline = r["oneline"].as_bool() == Some(true);
    for c in r["commits"].as_array().into_iter().flatten() {
        if oneline {
            writeln!(out, "{} {}", text(&c["short_hash"]), text(&c["subject"]))?;
            continue;
        }
        writeln!(out, "commit {}", text(&c["hash"]))?;
        writeln!(
            out,
            "Author: {} <{}>",
            text(&c["author"]),
            text(&c["email"])
        )?;
        writeln!(out, "Date:   {}", text(&c["date"]))?;
        writeln!(out, "\n    {}\n", text(&c["subject"]))?;
    }
    Ok(())
}

pub fn changed(out: &mut impl Write, r: &Value) -> io::Result<()> {
    for file in r["files"].as_array().into_iter().flatten() {
        writeln!(out, "{}", shown_path(file))?;
    }
    Ok(())
}

pub fn branch(out: &mut impl Write, r: &Value) -> io::Result<()> {
    if r["detached"].as_bool() == Some(true) {
        writeln!(out, "* (HEAD detached)")?;
    }
    for b in r["branches"].as_array().into_iter().flatten() {
        let mark = if b["current"].as_bool() == Some(true) {
            '*'
        } else {
            ' '
        };
        let name = match b["remote"].as_bool() {
            Some(true) => format!("remotes/{}", text(&b["name"])),
            _ => text(&b["name"]).to_string(),
        };
        let mut tracking = String::new();
        if let Some(upstream) = b["upstream"].as_str() {
            let mut parts = Vec::new();
            if b["gone"].as_bool() == Some(true) {
                parts.push("gone".to_string());
            }
            for word in ["ahead", "behind"] {
                if let Some(n) = b[word].as_u64() {
                    parts.push(format!("{word} {n}"));
                }
            }
            tracking = match parts.is_empty() {
                true => format!("[{upstream}] "),
                false => format!("[{upstream}: {}] ", parts.join(", ")),
            };
        }
        writeln!(
            out,
            "{mark} {name} {} {tracking}{}",
            text(&b["commit"]),
            text(&b["subject"])
        )?;
    }
    Ok(())
}
