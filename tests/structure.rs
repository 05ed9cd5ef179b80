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

/// The items of a fresh parse of a file, as the daemon would send them.
fn fresh_items(path: &Path) -> Value {
    let source = std::fs::read(path).unwrap();
    let language = coderd::syntax::languages::for_path(path, None).unwrap();
    serde_json::to_value(&coderd::syntax::outline_of(language, &source).unwrap().items).unwrap()
}

#[test]
fn edits_reparse_incrementally_and_agree_with_a_fresh_parse() {
    let sandbox = Sandbox::empty();
    let source = "class A:\n    def one(self):\n        return 1\n\n\ndef helper():\n    pass\n";
    sandbox.write("m.py", source);
    let file = sandbox.root.join("m.py");
    let daemon = Daemon::start(&sandbox, &[]);
    let first = daemon.ok("outline", json!({"file": file}));
    assert_eq!(first["parse"], "full");
    assert_eq!(
        daemon.ok("outline", json!({"file": file}))["parse"],
        "cached"
    );

    // An edit through the daemon: its event's ranges drive tree.edit.
    daemon.ok(
        "patch",
        json!({"file": file, "search": "    def one(self):", "replace": "    def two(self, x):\n        pass\n\n    def one(self):"}),
    );
    let edited = daemon.ok("outline", json!({"file": file}));
    assert_eq!(edited["parse"], "incremental");
    assert_eq!(edited["items"], fresh_items(&file));
    let names: Vec<&str> = edited["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "two", "one", "helper"]);

    // Two edits in a row, then a write by another program: still incremental and still right.
    daemon.ok(
        "patch",
        json!({"file": file, "search": "def helper():", "replace": "def helper2():"}),
    );
    daemon.ok(
        "patch",
        json!({"file": file, "search": "class A:", "replace": "class B(A):"}),
    );
    let twice = daemon.ok("outline", json!({"file": file}));
    assert_eq!(twice["parse"], "incremental");
    assert_eq!(twice["items"], fresh_items(&file));
    std::fs::write(&file, "def only():\n    pass\n").unwrap();
    let external = daemon.ok("outline", json!({"file": file}));
    assert_eq!(external["parse"], "incremental");
    assert_eq!(external["items"], fresh_items(&file));
}

#[test]
fn outline_renders_as_an_indented_skeleton() {
    let sandbox = Sandbox::empty();
    std::fs::copy(
        outline_dir().join("sample.rs"),
        sandbox.root.join("sample.rs"),
    )
    .unwrap();
    let daemon = Daemon::start(&sandbox, &[]);
    let result = daemon.ok("outline", json!({"file": sandbox.root.join("sample.rs")}));
    let mut out = Vec::new();
    coderd::syntax::outline::render(&mut out, &result.to_string()).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("sample.rs (rust)"), "{text}");
    assert!(
        lines.contains(&"    38  impl<T: Clone> Server<T>"),
        "{text}"
    );
    assert!(
        lines.contains(&"    40    pub fn new(addr: &str) -> Self"),
        "{text}"
    );
}
