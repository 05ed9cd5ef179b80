//! Edits addressed by symbol (`replace-symbol`, `insert-symbol`, `delete-symbol`): the cases of
//! tests/symedit/cases.json (request → the bytes on disk, or the error with the bytes untouched),
//! then what data cannot say: versions, a Python file that still compiles, the `coder` face.

use crate::common;

use common::{coder_bin, Daemon, Failures, Sandbox};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};

/// Lines as a file's text, each ending in `\n`.
fn text_of(lines: &Value) -> String {
    let lines = lines.as_array().expect("lines");
    lines
        .iter()
        .map(|l| format!("{}\n", l.as_str().expect("a line")))
        .collect()
}

fn cases() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/symedit/cases.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What one case found wrong.
fn run_case(sources: &Value, case: &Value) -> Vec<String> {
    let source = &sources[case["source"].as_str().expect("source")];
    let file = source["file"].as_str().expect("file");
    let before = text_of(&source["lines"]);
    let sandbox = Sandbox::empty();
    sandbox.write(file, &before);
    for (rel, lines) in case["files"].as_object().into_iter().flatten() {
        sandbox.write(rel, &text_of(lines));
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let mut params = case["params"].clone();
    params["file"] = json!(file);
    let method = case["method"].as_str().expect("method");
    let response = daemon.call(method, params);
    let now = std::fs::read_to_string(sandbox.root.join(file)).unwrap();
    let mut problems = Vec::new();
    let mut unchanged = || {
        if now != before {
            problems.push(format!("the file changed:\n{now}"));
        }
    };
    if let Some(expected) = case.get("after") {
        if let Some(error) = response.get("error") {
            return vec![format!("failed: {error}")];
        }
        let expected = text_of(expected);
        if now != expected {
            problems.push(format!(
                "bytes differ:\n--- expected\n{expected}--- got\n{now}"
            ));
        }
        // The answer names the item and the file's new version.
        let result = &response["result"];
        if result["symbol"].as_str().is_none() || result["version"].as_str().is_none() {
            problems.push(format!("answer without symbol or version: {result}"));
        }
    } else if let Some(expected) = case.get("expect_error") {
        unchanged();
        let error = &response["error"];
        let code = error["data"]["code"].as_str().unwrap_or_default();
        if code != expected["code"] {
            problems.push(format!("expected {}, got {response}", expected["code"]));
        }
        let message = format!("{} {}", error["message"], error["data"]);
        for needle in expected["contains"].as_array().into_iter().flatten() {
            if !message.contains(needle.as_str().unwrap()) {
                problems.push(format!("error lacks {needle}: {message}"));
            }
        }
    } else {
        unchanged();
        let diff = response["result"]["diff"].as_str().unwrap_or_default();
        for needle in case["diff_contains"].as_array().expect("diff_contains") {
            if !diff.contains(needle.as_str().unwrap()) {
                problems.push(format!("diff lacks {needle}: {response}"));
            }
        }
    }
    problems
}

#[test]
fn symbol_edit_cases() {
    let suite = cases();
    let cases = suite["cases"].as_array().expect("cases");
    let mut failures = Failures::default();
    for case in cases {
        let problems = run_case(&suite["sources"], case);
        failures.record(case["name"].as_str().unwrap_or("?"), &problems);
    }
    failures.assert_none("symedit", cases.len());
}

const PY: &str = "\
class Server:
    def __init__(self):
        self.n = 0

    @staticmethod
    def handle(x):
        \"\"\"Handle x.\"\"\"
        return x


def main():
    return Server()
";

#[test]
fn a_stale_version_is_refused_and_nothing_changes() {
    let sandbox = Sandbox::empty();
    sandbox.write("s.py", PY);
    let daemon = Daemon::start(&sandbox, &[]);
    let read = daemon.ok("read", json!({"file": "s.py"}));
    let version = read["version"].as_str().unwrap().to_string();
    let changed = PY.replace("self.n = 0", "self.n = 1");
    sandbox.write("s.py", &changed);
    for method in ["replace-symbol", "insert-symbol", "delete-symbol"] {
        let params = json!({"file": "s.py", "symbol": "Server.handle", "content": "def h(x):\n    pass",
                            "where": "after", "expect_version": version, "force": true});
        let mut params = params;
        if method == "delete-symbol" {
            let p = params.as_object_mut().unwrap();
            p.remove("content");
            p.remove("where");
        } else if method == "replace-symbol" {
            params.as_object_mut().unwrap().remove("where");
        }
        let error = daemon.err(method, params);
        assert_eq!(error["data"]["code"], "C212", "{method}: {error}");
        let now = std::fs::read_to_string(sandbox.root.join("s.py")).unwrap();
        assert_eq!(now, changed, "{method}");
    }
    // At the current version the edit is made, and the answer carries the new one.
    let current = daemon.ok("read", json!({"file": "s.py"}))["version"].clone();
    let done = daemon.ok(
        "delete-symbol",
        json!({"file": "s.py", "symbol": "Server.handle", "expect_version": current}),
    );
    assert_ne!(done["version"], current);
    assert_eq!(done["symbol"], "Server.handle");
}

#[test]
fn a_python_method_deleted_with_decorator_and_docstring_still_compiles() {
    let sandbox = Sandbox::empty();
    sandbox.write("s.py", PY);
    let daemon = Daemon::start(&sandbox, &[]);
    daemon.ok(
        "delete-symbol",
        json!({"file": "s.py", "symbol": "Server.handle"}),
    );
    let now = std::fs::read_to_string(sandbox.root.join("s.py")).unwrap();
    assert_eq!(
        now,
        "class Server:\n    def __init__(self):\n        self.n = 0\n\n\ndef main():\n    return Server()\n"
    );
    let compiled = Command::new("python3")
        .args(["-m", "py_compile", "s.py"])
        .current_dir(&sandbox.root)
        .output()
        .expect("python3");
    assert!(compiled.status.success(), "{compiled:?}");
}

/// `coder replace-symbol --file … --symbol … --content-stdin`: the flags come from the method's
/// schema, the content from stdin, as for `write`.
#[test]
fn coder_edits_by_symbol_with_content_from_stdin() {
    let sandbox = Sandbox::empty();
    sandbox.write("s.py", PY);
    let _daemon = Daemon::start(&sandbox, &[]);
    let mut child = Command::new(coder_bin())
        .args(["--socket"])
        .arg(sandbox.socket())
        .args(["replace-symbol", "--file", "s.py", "--symbol", "main"])
        .arg("--content-stdin")
        .current_dir(&sandbox.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"def main():\n    return None\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("symbol main"), "{printed}");
    let now = std::fs::read_to_string(sandbox.root.join("s.py")).unwrap();
    assert!(now.ends_with("\n\ndef main():\n    return None\n"), "{now}");
}

/// The `tool` envelope finds the methods in the table, as every agent face does (MCP lists the
/// same entries): CLI-style words with the bare `file` and `symbol`, and JSON args.
#[test]
fn the_tool_envelope_edits_by_symbol() {
    let sandbox = Sandbox::empty();
    sandbox.write("s.py", PY);
    let daemon = Daemon::start(&sandbox, &[]);
    let preview = daemon.ok(
        "tool",
        json!({"cmd": "delete-symbol s.py Server.handle --dry-run"}),
    );
    let diff = preview["result"]["diff"].as_str().unwrap_or_default();
    assert!(diff.contains("-    @staticmethod"), "{preview}");
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("s.py")).unwrap(),
        PY
    );
    daemon.ok(
        "tool",
        json!({"cmd": "insert-symbol", "args": {"path": "s.py", "name": "main", "where": "before",
               "body": "def helper():\n    return 1"}}),
    );
    let now = std::fs::read_to_string(sandbox.root.join("s.py")).unwrap();
    assert!(
        now.contains("        return x\n\n\ndef helper():\n    return 1\n\n\ndef main():\n"),
        "{now}"
    );
}

/// `delete-symbol` asks the warm language server for references: gopls names the one call (not
/// the comment that mentions the name), and a function only a comment mentions goes, where the
/// tag index (a match by name) would have refused it.
#[test]
fn delete_asks_the_language_server_for_references() {
    let sandbox = Sandbox::empty();
    sandbox.write("go.mod", "module shop\n\ngo 1.21\n");
    let total = "package shop\n\n// ComputeTotal adds the items up.\nfunc ComputeTotal(items []int) int {\n\treturn len(items)\n}\n\n// Unused is used by nothing.\nfunc Unused() int {\n\treturn 1\n}\n";
    sandbox.write("total.go", total);
    sandbox.write(
        "f01.go",
        "package shop\n\nfunc F01() int {\n\treturn ComputeTotal([]int{1})\n}\n",
    );
    sandbox.write(
        "notes.go",
        "package shop\n\n// Unused and ComputeTotal are described in the docs.\n",
    );
    let lsp = json!({"lsp": {"warm_deadline_ms": 30000, "cold_deadline_ms": 120000}});
    let daemon = Daemon::start_with_servers(&sandbox, &lsp.to_string(), &[]);
    let error = daemon.err(
        "delete-symbol",
        json!({"file": "total.go", "symbol": "ComputeTotal"}),
    );
    assert_eq!(error["data"]["code"], "C214", "{error}");
    assert_eq!(error["data"]["source"], "gopls", "{error}");
    let call = format!("{}:4", sandbox.root.join("f01.go").display());
    assert_eq!(error["data"]["references"], json!([call]), "{error}");
    let now = std::fs::read_to_string(sandbox.root.join("total.go")).unwrap();
    assert_eq!(now, total);

    daemon.ok(
        "delete-symbol",
        json!({"file": "total.go", "symbol": "Unused"}),
    );
    let now = std::fs::read_to_string(sandbox.root.join("total.go")).unwrap();
    assert_eq!(
        now,
        "package shop\n\n// ComputeTotal adds the items up.\nfunc ComputeTotal(items []int) int {\n\treturn len(items)\n}\n"
    );
}
