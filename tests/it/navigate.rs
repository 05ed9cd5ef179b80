//! Semantic moves through the real language servers (installed by
//! scripts/install-language-servers.sh): `references`, `definition`, `hover` and `rename` on a Rust
//! crate and a Go module where one function is used in 20 files. After the rename the project
//! still builds (`cargo check`, `go build`) and no file names the old function. Where no server
//! runs (Ruby), the answers come from the tag index, marked `source: "index"`.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// Files that call the function.
const USERS: usize = 20;

/// The workspace's daemon, running the installed servers.
fn daemon(sandbox: &Sandbox) -> Daemon {
    // Cold starts (rust-analyzer loading the standard library) take long on a busy machine.
    let lsp = json!({"lsp": {"warm_deadline_ms": 30000, "cold_deadline_ms": 120000}});
    Daemon::start_with_servers(sandbox, &lsp.to_string(), &[])
}

/// A crate whose `compute_total` is imported and called twice in each of 20 modules.
fn rust_crate(sandbox: &Sandbox) {
    sandbox.write(
        "Cargo.toml",
        "[package]\nname = \"shop\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    let mut lib = String::new();
    for n in 1..=USERS {
        lib.push_str(&format!("pub mod m{n:02};\n"));
        sandbox.write(
            &format!("src/m{n:02}.rs"),
            &format!("use crate::compute_total;\n\npub fn f{n:02}() -> u32 {{\n    compute_total(&[{n}]) + crate::compute_total(&[1])\n}}\n"),
        );
    }
    // A secret (non-accessible by the default globs) used from a readable file.
    lib.push_str("pub mod key;\npub mod secrets;\n");
    sandbox.write(
        "src/secrets/mod.rs",
        "/// The live key.\npub const API_KEY: &str = \"sk-live-TOPSECRET-1234\";\n",
    );
    sandbox.write(
        "src/key.rs",
        "pub fn key() -> &'static str {\n    crate::secrets::API_KEY\n}\n",
    );
    lib.push_str("\n/// Adds the items up.\npub fn compute_total(items: &[u32]) -> u32 {\n    items.iter().sum()\n}\n");
    sandbox.write("src/lib.rs", &lib);
    sandbox.write(
        "tools.rb",
        "def helper(x)\n  x * 2\nend\n\nputs helper(3)\n",
    );
}

/// A module whose `ComputeTotal` is called in 20 files.
fn go_module(sandbox: &Sandbox) {
    sandbox.write("go.mod", "module shop\n\ngo 1.21\n");
    sandbox.write(
        "total.go",
        "package shop\n\n// ComputeTotal adds the items up.\nfunc ComputeTotal(items []int) int {\n\tsum := 0\n\tfor _, i := range items {\n\t\tsum += i\n\t}\n\treturn sum\n}\n",
    );
    for n in 1..=USERS {
        sandbox.write(
            &format!("f{n:02}.go"),
            &format!(
                "package shop\n\nfunc F{n:02}() int {{\n\treturn ComputeTotal([]int{{{n}}})\n}}\n"
            ),
        );
    }
}

fn builds(dir: &Path, program: &str, args: &[&str], target: &Path) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed after the rename:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file's text still naming `old`.
fn still_named(dir: &Path, old: &str, extension: &str) -> Vec<String> {
    let snapshot = common::snapshot(dir);
    snapshot
        .iter()
        .filter(|(path, bytes)| {
            path.ends_with(extension) && String::from_utf8_lossy(bytes).contains(old)
        })
        .map(|(path, _)| path.clone())
        .collect()
}

fn lines(answer: &Value) -> Vec<(String, u64)> {
    let locations = answer["locations"].as_array().unwrap();
    let mut found: Vec<(String, u64)> = locations
        .iter()
        .map(|l| {
            let path = Path::new(l["path"].as_str().unwrap());
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, l["line"].as_u64().unwrap())
        })
        .collect();
    found.sort();
    found
}

#[test]
fn rust_references_definition_hover_and_a_rename_over_21_files() {
    let sandbox = Sandbox::empty();
    rust_crate(&sandbox);
    let daemon = daemon(&sandbox);

    let refs = daemon.ok("references", json!({"symbol": "compute_total"}));
    assert_eq!(refs["source"], "rust-analyzer", "{refs:#}");
    // The definition, and in each module its import and two calls.
    assert_eq!(refs["count"], 1 + 3 * USERS as u64, "{refs:#}");
    let m07: Vec<(String, u64)> = lines(&refs)
        .into_iter()
        .filter(|(f, _)| f == "m07.rs")
        .collect();
    assert_eq!(
        m07,
        [
            ("m07.rs".into(), 1),
            ("m07.rs".into(), 4),
            ("m07.rs".into(), 4)
        ]
    );
    let line = refs["locations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["path"].as_str().unwrap().ends_with("m07.rs") && l["line"] == 4)
        .unwrap();
    assert_eq!(
        line["text"],
        "    compute_total(&[7]) + crate::compute_total(&[1])"
    );
    let without = daemon.ok(
        "references",
        json!({"symbol": "compute_total", "include_declaration": false}),
    );
    assert_eq!(without["count"], 3 * USERS as u64);
    // Each module's function calls it twice.
    let callers = daemon.ok(
        "callers",
        json!({"file": "src/lib.rs", "symbol": "compute_total"}),
    );
    assert_eq!(callers["source"], "rust-analyzer", "{callers:#}");
    assert_eq!(callers["count"], USERS as u64, "{callers:#}");
    let f07 = &calls(&callers)[6];
    assert_eq!(
        f07,
        &(
            "f07".into(),
            "m07.rs".into(),
            vec![("m07.rs".into(), 4), ("m07.rs".into(), 4)]
        ),
        "{callers:#}"
    );

    let def = daemon.ok(
        "definition",
        json!({"file": "src/m07.rs", "line": 4, "column": 6}),
    );
    assert_eq!(def["symbol"], "compute_total");
    assert_eq!(
        lines(&def),
        [("lib.rs".into(), USERS as u64 + 5)],
        "{def:#}"
    );
    let hover = daemon.ok(
        "hover",
        json!({"file": "src/m07.rs", "line": 4, "symbol": "compute_total"}),
    );
    let contents = hover["contents"].as_str().unwrap();
    assert!(
        contents.contains("pub fn compute_total(items: &[u32]) -> u32")
            && contents.contains("Adds the items up"),
        "{hover:#}"
    );

    // A hover shows the definition's text: not when it lies in a secret. The server runs in the
    // sandbox, where the secret reads as empty, so it knows no text of it to show; coderd
    // refuses a definition it does find in a secret (C211).
    let secret = daemon.call(
        "hover",
        json!({"file": "src/key.rs", "line": 2, "symbol": "API_KEY"}),
    );
    if let Some(error) = secret.get("error") {
        assert_eq!(error["data"]["code"], "C211", "{secret}");
    }
    let def = daemon.ok(
        "definition",
        json!({"file": "src/key.rs", "line": 2, "symbol": "API_KEY"}),
    );
    assert!(!def.to_string().contains("TOPSECRET"), "{def:#}");
    assert!(!secret.to_string().contains("TOPSECRET"), "{secret}");

    let before = common::snapshot(&sandbox.root);
    let preview = daemon.ok(
        "rename",
        json!({"symbol": "compute_total", "new_name": "sum_items", "dry_run": true}),
    );
    assert_eq!(preview["files_changed"], USERS as u64 + 1, "{preview:#}");
    let diff = preview["diff"].as_str().unwrap();
    assert!(
        diff.contains("-pub fn compute_total(") && diff.contains("+pub fn sum_items("),
        "{diff}"
    );
    assert_eq!(common::snapshot(&sandbox.root), before, "a dry run wrote");

    let renamed = daemon.ok(
        "rename",
        json!({"symbol": "compute_total", "new_name": "sum_items"}),
    );
    assert_eq!(renamed["files_changed"], USERS as u64 + 1, "{renamed:#}");
    assert_eq!(renamed["edits"], 1 + 3 * USERS as u64);
    assert!(
        renamed.get("diagnostics").is_some(),
        "the edit's diagnostics: {renamed:#}"
    );
    assert_eq!(
        still_named(&sandbox.root, "compute_total", ".rs"),
        Vec::<String>::new()
    );
    builds(
        &sandbox.root,
        "cargo",
        &["check", "--offline", "--quiet"],
        &sandbox.dir.path().join("target"),
    );

    // No server for Ruby: the tag index answers, by name.
    let def = daemon.ok(
        "definition",
        json!({"file": "tools.rb", "line": 5, "column": 6}),
    );
    assert_eq!(def["source"], "index");
    assert_eq!(lines(&def), [("tools.rb".into(), 1)]);
    let refs = daemon.ok("references", json!({"symbol": "helper"}));
    assert_eq!(refs["source"], "index");
    assert_eq!(
        lines(&refs),
        [("tools.rb".into(), 1), ("tools.rb".into(), 5)]
    );
    let error = daemon.err(
        "rename",
        json!({"file": "tools.rb", "line": 1, "symbol": "helper", "new_name": "twice"}),
    );
    assert_eq!(error["data"]["code"], "C211", "{error}");
    let error = daemon.err("definition", json!({"line": 3}));
    assert_eq!(error["data"]["code"], "C210", "{error}");
}

#[test]
fn go_references_and_a_rename_over_21_files() {
    let sandbox = Sandbox::empty();
    go_module(&sandbox);
    let daemon = daemon(&sandbox);

    let refs = daemon.ok("references", json!({"symbol": "ComputeTotal"}));
    assert_eq!(refs["source"], "gopls", "{refs:#}");
    assert_eq!(refs["count"], 1 + USERS as u64, "{refs:#}");
    let def = daemon.ok(
        "definition",
        json!({"file": "f03.go", "line": 4, "symbol": "ComputeTotal"}),
    );
    assert_eq!(lines(&def), [("total.go".into(), 4)], "{def:#}");

    let renamed = daemon.ok(
        "rename",
        json!({"symbol": "ComputeTotal", "new_name": "SumItems"}),
    );
    assert_eq!(renamed["files_changed"], USERS as u64 + 1, "{renamed:#}");
    assert_eq!(
        still_named(&sandbox.root, "ComputeTotal", ".go"),
        Vec::<String>::new()
    );
    builds(
        &sandbox.root,
        "go",
        &["build", "./..."],
        &sandbox.dir.path().join("target"),
    );
}

/// A Go module: the interface `Shape`, implemented by `Square` and `Circle`; `Total` calls
/// `Area` through the interface; `Report` and `Twice` call `Total` (`Twice` twice in one line).
fn shapes_module(sandbox: &Sandbox) {
    sandbox.write("go.mod", "module shop\n\ngo 1.21\n");
    sandbox.write(
        "shapes.go",
        "package shop\n\n// Shape is anything with an area.\ntype Shape interface {\n\tArea() int\n}\n",
    );
    for (file, name, field, body) in [
        ("square.go", "Square", "Side", "s.Side * s.Side"),
        ("circle.go", "Circle", "R", "3 * s.R * s.R"),
    ] {
        sandbox.write(
            file,
            &format!("package shop\n\ntype {name} struct{{ {field} int }}\n\nfunc (s {name}) Area() int {{\n\treturn {body}\n}}\n"),
        );
    }
    sandbox.write(
        "total.go",
        "package shop\n\n// Total adds the areas up.\nfunc Total(shapes []Shape) int {\n\tsum := 0\n\tfor _, s := range shapes {\n\t\tsum += s.Area()\n\t}\n\treturn sum\n}\n",
    );
    sandbox.write(
        "report.go",
        "package shop\n\nimport \"fmt\"\n\nfunc Report() string {\n\tsq := Square{Side: 2}\n\treturn fmt.Sprint(Total([]Shape{sq, Circle{R: 1}}))\n}\n\nfunc Twice() int {\n\treturn Total(nil) + Total(nil)\n}\n",
    );
}

/// A call as the tests compare it: (function, its file, each call's file and line).
type CallSeen = (String, String, Vec<(String, u64)>);

/// The calls of an answer.
fn calls(answer: &Value) -> Vec<CallSeen> {
    let name = |v: &Value| {
        let path = Path::new(v["path"].as_str().unwrap());
        path.file_name().unwrap().to_string_lossy().into_owned()
    };
    let list = answer["calls"].as_array().unwrap();
    list.iter()
        .map(|c| {
            let sites = c["sites"].as_array().unwrap();
            let sites = sites.iter().map(|s| (name(s), s["line"].as_u64().unwrap()));
            (
                c["name"].as_str().unwrap().to_string(),
                name(c),
                sites.collect(),
            )
        })
        .collect()
}

#[test]
fn go_implementations_callers_callees_and_type_definition_through_gopls() {
    let sandbox = Sandbox::empty();
    shapes_module(&sandbox);
    let daemon = daemon(&sandbox);

    // `file` + `symbol` with no line: the item of the file's outline.
    let found = daemon.ok(
        "implementations",
        json!({"file": "shapes.go", "symbol": "Shape"}),
    );
    assert_eq!(found["source"], "gopls", "{found:#}");
    assert_eq!(
        lines(&found),
        [("circle.go".into(), 3), ("square.go".into(), 3)],
        "{found:#}"
    );
    assert!(found.get("unanswered").is_none(), "{found:#}");

    let callers = daemon.ok("callers", json!({"file": "total.go", "symbol": "Total"}));
    assert_eq!(callers["source"], "gopls", "{callers:#}");
    assert_eq!(
        calls(&callers),
        [
            (
                "Report".into(),
                "report.go".into(),
                vec![("report.go".into(), 7)]
            ),
            (
                "Twice".into(),
                "report.go".into(),
                vec![("report.go".into(), 11), ("report.go".into(), 11)]
            ),
        ],
        "{callers:#}"
    );
    assert_eq!(
        callers["calls"][0]["sites"][0]["text"],
        "\treturn fmt.Sprint(Total([]Shape{sq, Circle{R: 1}}))"
    );

    let callees = daemon.ok("callees", json!({"file": "report.go", "symbol": "Report"}));
    let names: Vec<String> = calls(&callees).into_iter().map(|c| c.0).collect();
    assert!(
        names.contains(&"Total".to_string()) && names.contains(&"Sprint".to_string()),
        "{callees:#}"
    );
    // `fmt.Sprint` lies outside the roots: listed by its place, its own calls' lines are ours.
    let sprint = callees["calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Sprint")
        .unwrap();
    assert!(
        !Path::new(sprint["path"].as_str().unwrap()).starts_with(&sandbox.root),
        "{sprint:#}"
    );
    assert!(!callees.to_string().contains("func Sprint("), "{callees:#}");
    // A function that calls nothing known: empty, and it says so.
    let none = daemon.ok("callees", json!({"file": "square.go", "symbol": "Area"}));
    assert_eq!(none["count"], 0, "{none:#}");
    assert!(
        none["unanswered"].as_str().unwrap().contains("no callees"),
        "{none:#}"
    );

    let typed = daemon.ok(
        "type-definition",
        json!({"file": "report.go", "line": 7, "symbol": "sq"}),
    );
    assert_eq!(lines(&typed), [("square.go".into(), 3)], "{typed:#}");

    // References grouped by the function that holds each.
    let grouped = daemon.ok(
        "references",
        json!({"file": "total.go", "symbol": "Total", "include_declaration": false, "group_by": "symbol"}),
    );
    let groups: Vec<(String, u64, usize)> = grouped["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let count = g["locations"].as_array().unwrap().len();
            (
                g["symbol"].as_str().unwrap().into(),
                g["line"].as_u64().unwrap(),
                count,
            )
        })
        .collect();
    assert_eq!(
        groups,
        [("Report".into(), 5, 1), ("Twice".into(), 10, 2)],
        "{grouped:#}"
    );

    // `coder` prints places as rg does; `--json` still prints the answer.
    let coder = |args: &[&str]| {
        let out = Command::new(common::coder_bin())
            .arg("--socket")
            .arg(&daemon.socket)
            .args(args)
            .current_dir(&sandbox.root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = coder(&["callers", "total.go", "--symbol", "Total"]);
    assert!(
        text.starts_with(
            "report.go:5: Report\n  report.go:7: return fmt.Sprint(Total([]Shape{sq, Circle{R: 1}}))\n"
        ),
        "{text}"
    );
    let text = coder(&["implementations", "shapes.go", "--symbol", "Shape"]);
    assert_eq!(
        text,
        "circle.go:3: type Circle struct{ R int }\nsquare.go:3: type Square struct{ Side int }\n"
    );
    let json: Value = serde_json::from_str(&coder(&[
        "--json", "callers", "total.go", "--symbol", "Total",
    ]))
    .unwrap();
    assert_eq!(json["count"], 2, "{json:#}");
    // A rename's dry run prints a plain unified diff, and changes nothing.
    let before = common::snapshot(&sandbox.root);
    let diff = coder(&[
        "rename",
        "report.go",
        "--symbol",
        "Twice",
        "--new-name",
        "Double",
        "--dry-run",
    ]);
    assert!(
        diff.contains("\n-func Twice() int {\n+func Double() int {\n") && diff.starts_with("---"),
        "{diff}"
    );
    assert_eq!(common::snapshot(&sandbox.root), before, "a dry run wrote");
}

#[test]
fn python_callers_through_pyright_and_a_language_without_a_server_says_why() {
    let sandbox = Sandbox::empty();
    sandbox.write(
        "shapes.py",
        "def area(side):\n    return side * side\n\n\ndef report():\n    return area(2) + area(3)\n",
    );
    sandbox.write(
        "tools.rb",
        "def helper(x)\n  x * 2\nend\n\nputs helper(3)\n",
    );
    let daemon = daemon(&sandbox);

    let callers = daemon.ok("callers", json!({"file": "shapes.py", "symbol": "area"}));
    assert_eq!(callers["source"], "pyright", "{callers:#}");
    assert_eq!(
        calls(&callers),
        [(
            "report".into(),
            "shapes.py".into(),
            vec![("shapes.py".into(), 6), ("shapes.py".into(), 6)]
        )],
        "{callers:#}"
    );
    let callees = daemon.ok("callees", json!({"file": "shapes.py", "symbol": "report"}));
    let names: Vec<String> = calls(&callees).into_iter().map(|c| c.0).collect();
    assert_eq!(names, ["area"], "{callees:#}");

    // A finding is named by the function holding it.
    daemon.ok(
        "patch",
        json!({"file": "shapes.py", "search": "area(3)", "replace": "missing_name"}),
    );
    let found = daemon.ok(
        "diagnostics",
        json!({"files": ["shapes.py"], "group_by": "symbol"}),
    );
    let items = found["files"][0]["items"].as_array().unwrap();
    let named: Vec<(u64, &str)> = items
        .iter()
        .filter(|i| i["message"].as_str().unwrap().contains("missing_name"))
        .map(|i| (i["line"].as_u64().unwrap(), i["symbol"].as_str().unwrap()))
        .collect();
    assert!(
        !named.is_empty() && named.iter().all(|n| *n == (6, "report")),
        "{found:#}"
    );

    // No server for Ruby: nothing, and why, never a silent empty list.
    for method in ["implementations", "type-definition", "callers", "callees"] {
        let answer = daemon.ok(method, json!({"file": "tools.rb", "symbol": "helper"}));
        assert_eq!(answer["source"], "none", "{method}: {answer:#}");
        assert_eq!(answer["count"], 0, "{method}: {answer:#}");
        let why = answer["unanswered"].as_str().unwrap_or_default();
        assert!(why.contains("no language server"), "{method}: {answer:#}");
    }
    let def = daemon.ok(
        "definition",
        json!({"file": "tools.rb", "line": 5, "column": 6}),
    );
    assert_eq!(def["source"], "index");
    assert!(def["unanswered"]
        .as_str()
        .unwrap()
        .contains("no language server"));
}
