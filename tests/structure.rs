//! Structure over the real daemon: golden outlines for every language (fixtures under
//! tests/fixtures/structure/outline/, expected text beside each as `<file>.outline`; run with
//! `UPDATE_GOLDEN=1` to rewrite them after an intended change), incremental reparsing after edits,
//! and `read --symbol`.

mod common;

use common::{Daemon, Sandbox, FIXTURES};
use serde_json::{json, Value};
use std::path::Path;

fn outline_dir() -> std::path::PathBuf {
    Path::new(FIXTURES).join("structure/outline")
}

/// The golden text of an outline: one line per item, indented by nesting, with kind, name, lines,
/// signature and doc.
fn golden(result: &Value) -> String {
    let items = result["items"].as_array().unwrap();
    let parent = |i: usize| {
        items[i]
            .get("parent")
            .and_then(Value::as_u64)
            .map(|p| p as usize)
    };
    let mut out = format!("parse_errors: {}\n", result["parse_errors"]);
    let mut stack: Vec<(usize, usize)> = (0..items.len())
        .rev()
        .filter(|&i| parent(i).is_none())
        .map(|i| (i, 0))
        .collect();
    while let Some((i, depth)) = stack.pop() {
        let item = &items[i];
        stack.extend(
            (0..items.len())
                .rev()
                .filter(|&c| parent(c) == Some(i))
                .map(|c| (c, depth + 1)),
        );
        out.push_str(&format!(
            "{}{} {} {}-{}: {}",
            "  ".repeat(depth),
            item["kind"].as_str().unwrap(),
            item["name"].as_str().unwrap(),
            item["line"],
            item["end_line"],
            item["signature"].as_str().unwrap()
        ));
        if let Some(doc) = item.get("doc").and_then(Value::as_str) {
            out.push_str(&format!("  // {doc}"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_fixture_outlines_as_its_golden_file() {
    let sandbox = Sandbox::empty();
    let mut names: Vec<String> = std::fs::read_dir(outline_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".outline"))
        .collect();
    names.sort();
    for name in &names {
        std::fs::copy(outline_dir().join(name), sandbox.root.join(name)).unwrap();
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for name in &names {
        let result = daemon.ok("outline", json!({"file": sandbox.root.join(name)}));
        let actual = golden(&result);
        let expected_path = outline_dir().join(format!("{name}.outline"));
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{name}: outline differs from {}\n{}",
                expected_path.display(),
                similar_diff(&expected, &actual)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn similar_diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .header("expected", "actual")
        .to_string()
}
