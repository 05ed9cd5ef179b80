//! Structure over the real daemon: golden outlines for every language (fixtures under
//! tests/fixtures/structure/outline/, expected text beside each as `<file>.outline`; run with
//! `UPDATE_GOLDEN=1` to rewrite them after an intended change), incremental reparsing after edits,
//! and `read --symbol`.

use crate::common;

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
        if let Some(name) = item.get("parent_name").and_then(Value::as_str) {
            out.push_str(&format!("  [in {name}]"));
        }
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
    let language = coderd_syntax::languages::for_path(path, None).unwrap();
    serde_json::to_value(&coderd_syntax::outline_of(language, &source).unwrap().items).unwrap()
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
    coder::render(
        &mut out,
        wire::answers::Answer::Outline,
        false,
        &result.to_string(),
    )
    .unwrap();
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

fn map(daemon: &Daemon, params: Value) -> Value {
    daemon.ok("map", params)
}

#[test]
fn map_fits_its_budget_fills_it_and_says_what_it_left_out() {
    let sandbox = Sandbox::fixture("structure");
    let daemon = Daemon::start(&sandbox, &[]);
    let whole = map(&daemon, json!({"budget": 100_000}));
    assert_eq!(whole["elided_items"], 0, "{whole}");
    let full_chars = whole["chars"].as_u64().unwrap();
    for budget in [200u64, 300, 400, 500] {
        let m = map(&daemon, json!({"budget": budget}));
        let text = m["map"].as_str().unwrap();
        let chars = text.chars().count() as u64;
        assert_eq!(chars, m["chars"].as_u64().unwrap());
        assert!(chars <= budget, "budget {budget}: {chars} chars\n{text}");
        assert!(budget < full_chars, "the fixture must not fit in {budget}");
        assert!(
            chars * 100 >= budget * 85,
            "budget {budget}: only {chars} chars\n{text}"
        );
        assert!(m["elided_items"].as_u64().unwrap() > 0);
        assert!(
            text.lines().last().unwrap().contains("more items"),
            "{text}"
        );
    }
    // Test files are left out unless asked for.
    assert!(!whole["map"].as_str().unwrap().contains("test_"));
    let with_tests = map(&daemon, json!({"budget": 100_000, "include_tests": true}));
    assert!(with_tests["map"]
        .as_str()
        .unwrap()
        .contains("tests/test_app.py"));
}

#[test]
fn map_ranks_by_references_and_focus_moves_the_neighbours_up() {
    let sandbox = Sandbox::fixture("structure");
    let daemon = Daemon::start(&sandbox, &[]);
    // Budgets that leave room for about two items show which come first.
    let plain = map(&daemon, json!({"budget": 220}));
    let text = plain["map"].as_str().unwrap();
    // format_report is used by two files; it comes before everything used once or never.
    assert!(
        text.starts_with("app/report.py:\n    4 def format_report(rows):"),
        "{text}"
    );
    let whole = map(&daemon, json!({"budget": 100_000}));
    assert!(whole["map"].as_str().unwrap().contains("def run_cli"));

    // Working on the CLI: what it uses (the database) comes before what the server uses.
    let cli = map(&daemon, json!({"budget": 220, "focus": ["app/cli.py"]}));
    let text = cli["map"].as_str().unwrap();
    assert!(
        text.contains("def connect_database") && !text.contains("class CacheStore"),
        "{text}"
    );
    let cli_whole = map(&daemon, json!({"budget": 100_000, "focus": ["app/cli.py"]}));
    assert!(
        !cli_whole["map"].as_str().unwrap().contains("def run_cli"),
        "focus files are not repeated"
    );
    // Working on the server: the cache comes first.
    let server = map(&daemon, json!({"budget": 220, "focus": ["app/server.py"]}));
    let text = server["map"].as_str().unwrap();
    assert!(
        text.contains("class CacheStore") && !text.contains("def connect_database"),
        "{text}"
    );
    // A mentioned name leads.
    let mentioned = map(&daemon, json!({"budget": 200, "mentions": ["Client"]}));
    let text = mentioned["map"].as_str().unwrap();
    assert!(
        text.starts_with("app/server.py:\n") && text.contains("   21 class Client:"),
        "{text}"
    );
    assert!(!text.contains("format_report"), "{text}");
}

#[test]
fn map_is_byte_identical_across_runs_and_restarts() {
    let sandbox = Sandbox::fixture("structure");
    let params = json!({"budget": 600, "focus": ["app/cli.py"]});
    let first = {
        let daemon = Daemon::start(&sandbox, &[]);
        let first = map(&daemon, params.clone())["map"].clone();
        for _ in 0..9 {
            assert_eq!(map(&daemon, params.clone())["map"], first);
        }
        first
    };
    let daemon = Daemon::start(&sandbox, &[]);
    assert_eq!(map(&daemon, params)["map"], first);
}

#[test]
fn map_retags_only_changed_files() {
    let sandbox = Sandbox::fixture("structure");
    let daemon = Daemon::start(&sandbox, &[]);
    let cold = map(&daemon, json!({}));
    assert!(cold["parsed"].as_u64().unwrap() >= 6, "{cold}");
    assert_eq!(map(&daemon, json!({}))["parsed"], 0);
    daemon.ok(
        "patch",
        json!({"file": sandbox.root.join("app/db.py"), "search": "def connect_database(url):", "replace": "def connect_database(url, timeout=1):"}),
    );
    let after = map(&daemon, json!({}));
    assert_eq!(after["parsed"], 1);
    assert!(after["map"]
        .as_str()
        .unwrap()
        .contains("def connect_database(url, timeout=1):"));
}

#[test]
fn symbols_finds_definitions_exact_then_prefix_then_fuzzy() {
    let sandbox = Sandbox::fixture("structure");
    let daemon = Daemon::start(&sandbox, &[]);
    let exact = daemon.ok("symbols", json!({"query": "Server"}));
    assert_eq!(exact["results"][0]["path"], "app/server.py");
    assert_eq!(exact["results"][0]["kind"], "class");
    assert_eq!(exact["results"][0]["match"], "exact");
    let handle = daemon.ok("symbols", json!({"query": "handle", "kind": "method"}));
    let parents: Vec<&str> = handle["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["parent"].as_str().unwrap())
        .collect();
    assert_eq!(
        parents,
        ["Server", "Client"],
        "same name and kind: by path, then line"
    );
    let prefix = daemon.ok("symbols", json!({"query": "format"}));
    assert_eq!(prefix["results"][0]["name"], "format_report");
    assert_eq!(prefix["results"][0]["match"], "prefix");
    let fuzzy = daemon.ok("symbols", json!({"query": "cndb"}));
    assert_eq!(fuzzy["results"][0]["name"], "connect_database");
    assert_eq!(fuzzy["results"][0]["match"], "fuzzy");
    let scoped = daemon.ok("symbols", json!({"query": "Foo", "dir": "pkg"}));
    assert!(scoped["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["path"].as_str().unwrap().starts_with("pkg/")));
    let error = daemon.err("symbols", json!({"query": " "}));
    assert_eq!(error["data"]["code"], "C210");
}

/// A `.h` header is C unless its content or its project says C++: C++ constructs outside
/// comments and `__cplusplus` blocks, C++ sources beside it, or the nearest build file
/// (`compile_commands.json` compiling C++, `CMakeLists.txt` naming `CXX`). A C++ header read as
/// C lost most of its items to parse errors.
#[test]
fn a_header_is_outlined_as_cpp_when_its_content_or_project_is_cpp() {
    let sandbox = Sandbox::empty();
    let c_header = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n// A C header.\nstruct point { int x; int y; };\nint area(const struct point *p);\n\n#ifdef __cplusplus\n}\n#endif\n";
    let cpp_header = "#pragma once\n#include <vector>\n\nnamespace fuzzer {\n\nclass InputCorpus {\n public:\n  explicit InputCorpus(int n);\n  int* begin();\n  size_t size() const { return inputs_.size(); }\n\n private:\n  std::vector<int> inputs_;\n};\n\n}  // namespace fuzzer\n";
    let files = [
        ("c/point.h", c_header),
        ("c/point.c", "int area(const struct point *p) { return 0; }\n"),
        ("content/corpus.h", cpp_header),
        ("beside/point.h", c_header),
        ("beside/point.cc", "int main() { return 0; }\n"),
        ("cmake/CMakeLists.txt", "project(fuzz LANGUAGES CXX)\n"),
        ("cmake/include/point.h", c_header),
        ("ccdb/compile_commands.json", "[{\"directory\": \".\", \"command\": \"cc -c a.c\", \"file\": \"a.c\"}]\n"),
        ("ccdb/include/point.h", c_header),
        ("ccdbxx/compile_commands.json", "[{\"directory\": \".\", \"command\": \"/usr/bin/c++ -c a.cpp\", \"file\": \"a.cpp\"}]\n"),
        ("ccdbxx/include/point.h", c_header),
    ];
    for (rel, text) in files {
        sandbox.write(rel, text);
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let expected = [
        ("c/point.h", "c"),
        ("content/corpus.h", "cpp"),
        ("beside/point.h", "cpp"),
        ("cmake/include/point.h", "cpp"),
        ("ccdb/include/point.h", "c"),
        ("ccdbxx/include/point.h", "cpp"),
    ];
    for (rel, language) in expected {
        let result = daemon.ok("outline", json!({"file": sandbox.root.join(rel)}));
        assert_eq!(result["language"], language, "{rel}: {result}");
    }
    let result = daemon.ok(
        "outline",
        json!({"file": sandbox.root.join("content/corpus.h")}),
    );
    assert_eq!(
        golden(&result),
        "parse_errors: 0\n\
         module fuzzer 4-16: namespace fuzzer\n\
         \x20 class InputCorpus 6-14: class InputCorpus\n\
         \x20   method InputCorpus 8-8: explicit InputCorpus(int n);\n\
         \x20   method begin 9-9: int* begin();\n\
         \x20   method size 10-10: size_t size() const\n\
         \x20   field inputs_ 13-13: std::vector<int> inputs_;\n"
    );
    // The map tags a header in the same dialect.
    let found = daemon.ok("symbols", json!({"query": "InputCorpus", "kind": "class"}));
    assert_eq!(found["results"][0]["path"], "content/corpus.h", "{found}");
}

/// A Go method whose receiver type is declared in another file has that type as its parent by
/// name: in the outline (`parent_name`), in `symbols` (`parent`) and for `read --symbol`.
#[test]
fn a_method_of_a_type_in_another_file_has_a_parent_by_name() {
    let sandbox = Sandbox::empty();
    sandbox.write(
        "tsdb/head.go",
        "package tsdb\n\ntype headAppender struct{ n int }\n",
    );
    sandbox.write(
        "tsdb/head_append.go",
        "package tsdb\n\n// Commit commits.\nfunc (a *headAppender) Commit() error {\n\treturn nil\n}\n",
    );
    let daemon = Daemon::start(&sandbox, &[]);
    let file = sandbox.root.join("tsdb/head_append.go");
    let outline = daemon.ok("outline", json!({"file": file}));
    assert_eq!(
        outline["items"][0]["parent_name"], "headAppender",
        "{outline}"
    );
    let found = daemon.ok("symbols", json!({"query": "Commit"}));
    assert_eq!(found["results"][0]["parent"], "headAppender", "{found}");
    let read = daemon.ok(
        "read",
        json!({"file": file, "symbol": "headAppender.Commit"}),
    );
    assert_eq!(
        (read["start"].as_u64(), read["end"].as_u64()),
        (Some(3), Some(6)),
        "{read}"
    );
}

/// The names and lines of a file's outline items.
fn items_of(daemon: &Daemon, file: &Path) -> Vec<(String, u64)> {
    let outline = daemon.ok("outline", json!({ "file": file }));
    (outline["items"].as_array().unwrap().iter())
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_owned(),
                i["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `symbols`' (path, line) for a name matched exactly.
fn defined(daemon: &Daemon, name: &str) -> Vec<(String, u64)> {
    let found = daemon.ok("symbols", json!({ "query": name }));
    (found["results"].as_array().unwrap().iter())
        .filter(|r| r["name"] == name && r["match"] == "exact")
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A callback's contents are locals in TypeScript and TSX as in JavaScript (one item notion,
/// queries/ecmascript/outline.scm): `const res` inside `it('x', async () => {…})` is no item, a
/// top-level `const` is.
#[test]
fn a_callbacks_locals_are_no_items_in_typescript_as_in_javascript() {
    let source = "import { describe, it } from 'vitest'\n\nconst top = 1\n\ndescribe('app', () => {\n  it('x', async () => {\n    const res = await fetch('/')\n    expect(res.status).toBe(200)\n  })\n})\n\nexport const handler = function () {\n  const inner = 2\n  return inner\n}\n";
    let sandbox = Sandbox::empty();
    for ext in ["ts", "tsx", "js"] {
        sandbox.write(&format!("app.{ext}"), source);
    }
    let daemon = Daemon::start(&sandbox, &[]);
    for ext in ["ts", "tsx", "js"] {
        let items = items_of(&daemon, &sandbox.root.join(format!("app.{ext}")));
        assert_eq!(
            items,
            [("top".to_owned(), 3), ("handler".to_owned(), 12)],
            "{ext}"
        );
    }
    assert_eq!(defined(&daemon, "res"), []);
    assert_eq!(defined(&daemon, "top").len(), 3);
}

/// Declarations after a parse error that lost the file's structure are found by `outline` and
/// `symbols`: after an interface call signature whose `<` opens its own line (hono's
/// `types.ts`, which tree-sitter-typescript 0.23.2 loses from there), after Rust's macros 2.0
/// in a module, `macro_rules ! T_` and `default const` (crates/syntax/src/recover.rs,
/// crates/syntax/src/rust_mask.rs).
#[test]
fn declarations_after_a_parse_error_are_found() {
    let interface = "export interface HandlerInterface<E extends Env = Env> {\n  // app.get(handler)\n  <\n    P extends string = string,\n    R extends HandlerResponse<any> = any,\n  >(\n    handler: H<E, P, R>\n  ): HonoBase<\n    IntersectNonAnyTypes<[E]>,\n    P\n  >\n\n  // app.get(handler x2)\n  <\n    P extends string = string,\n    I2 extends Input = I,\n    M1 extends H<E, P, I> = H<E, P, I>,\n  >(\n    ...handlers: [H<E, P, I> & M1, H<E, P, I2>]\n  ): HonoBase<\n    IntersectNonAnyTypes<[E, E2]>,\n    S & ToSchema<M, P, I2, MergeTypedResponse<R> | MergeMiddlewareResponse<M1>>\n  >\n}\n\nexport type ToSchema<M extends string> = { [K in M]: string }\n\nexport const createFactory = <E>(): Factory<E> => new Factory<E>()\n";
    let sandbox = Sandbox::empty();
    sandbox.write("types.ts", interface);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/recovery");
    for file in ["macros.rs", "specialization.rs"] {
        std::fs::copy(corpus.join(file), sandbox.root.join(file)).unwrap();
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let outline = daemon.ok("outline", json!({"file": sandbox.root.join("types.ts")}));
    assert!(outline["parse_errors"].as_u64().unwrap() > 0, "{outline}");
    let items = items_of(&daemon, &sandbox.root.join("types.ts"));
    for (name, line) in [
        ("HandlerInterface", 1),
        ("ToSchema", 26),
        ("createFactory", 28),
    ] {
        assert!(
            items.contains(&(name.to_owned(), line)),
            "{name}: {items:?}"
        );
        assert_eq!(defined(&daemon, name), [("types.ts".to_owned(), line)]);
    }
    // (name, file, line): after a macro 2.0 in a module, `macro_rules ! T_` and `default const`.
    let rust = [
        ("T_", "macros.rs", 9),
        ("after_in_mod", "macros.rs", 30),
        ("count", "macros.rs", 34),
        ("InMod", "macros.rs", 38),
        ("AfterAll", "macros.rs", 51),
        ("LIMIT", "macros.rs", 60),
        ("Unit", "specialization.rs", 13),
        ("after_impls", "specialization.rs", 27),
        ("DEFAULT_BUDGET", "specialization.rs", 44),
    ];
    for (name, file, line) in rust {
        let found = defined(&daemon, name);
        assert!(
            found.contains(&(file.to_owned(), line)),
            "{name}: {found:?}"
        );
    }
    // In its module still, though a macro 2.0 before it closed the module in the grammar's parse.
    let found = daemon.ok("symbols", json!({"query": "after_in_mod"}));
    assert_eq!(found["results"][0]["parent"], "inner", "{found}");
}

/// Files nesting far deeper than any real code, in several languages, neither abort nor stall the
/// daemon: 300 YAML levels (tree-sitter-yaml's scanner wrote past tree-sitter's serialization
/// buffer and the process aborted on its assertion), 100,000 Rust modules (each item's parents and
/// leading comments were searched from the root, the map's test flags and depths climbed every
/// parent, its render wrote every parent of a deep item before checking the budget: quadratic),
/// 60,000 Go struct types on one line (each item's signature read the rest of the line), 50,000
/// braces in one Rust `use` (its reading recursed), 300 Python classes. The maps keep their
/// budget and still show a plain file's item when asked, each file has an outline (the YAML's
/// empty: a parse error), and the daemon answers after.
#[test]
fn hostile_nesting_in_any_language_neither_aborts_nor_stalls_the_daemon() {
    let sandbox = Sandbox::empty();
    let indented = |line: &str, levels: usize| -> String {
        (0..levels)
            .map(|i| format!("{}{line}\n", " ".repeat(i)))
            .collect()
    };
    let files = [
        ("deep.yaml", indented("a:", 300)),
        (
            "deep.py",
            indented("class A:", 300) + &" ".repeat(300) + "pass\n",
        ),
        (
            "deep.rs",
            "mod a {\n".repeat(100_000) + &"}\n".repeat(100_000),
        ),
        (
            "deep.go",
            format!(
                "package p\n\nvar x = {}int{}{{}}\n",
                "struct{ a ".repeat(60_000),
                "}".repeat(60_000)
            ),
        ),
        (
            "uses.rs",
            format!(
                "use a::{}b{};\nfn after_uses() {{}}\n",
                "{a::".repeat(50_000),
                "}".repeat(50_000)
            ),
        ),
    ];
    for (name, text) in &files {
        sandbox.write(name, text);
    }
    sandbox.write("plain.rs", "pub fn plain_function() -> u32 {\n    1\n}\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let answer = map(&daemon, json!({"budget": 4000}));
    assert_eq!(answer["parsed"], files.len() + 1, "{answer}");
    let text = answer["map"].as_str().unwrap();
    assert!(text.contains("mod a"), "{text}");
    assert!(text.chars().count() <= 4000, "{text}");
    let steered = map(
        &daemon,
        json!({"budget": 4000, "mentions": ["plain_function"]}),
    );
    let text = steered["map"].as_str().unwrap();
    assert!(text.contains("plain_function"), "{text}");
    assert!(text.chars().count() <= 4000, "{text}");
    for (name, _) in &files {
        let outline = daemon.ok("outline", json!({ "file": sandbox.root.join(name) }));
        // YAML past 250 levels is a parse error (its scanner's state no longer fits).
        let items = outline["items"].as_array().unwrap();
        assert!(name.ends_with(".yaml") || !items.is_empty(), "{name}");
    }
    let found = daemon.ok("symbols", json!({"query": "plain_function"}));
    assert_eq!(found["results"][0]["name"], "plain_function", "{found}");
    let nested = daemon.ok("symbols", json!({"query": "a", "limit": 5}));
    // Items are looked for down to walk::MAX_ITEM_DEPTH tree levels (two per Rust module).
    assert!(nested["total"].as_u64().unwrap() >= 100, "{nested}");
    daemon.ok("info", json!({}));
}

/// Hostile TypeScript neither crashes nor stalls the daemon: a file nesting 100,000 object types
/// (each item's parents were searched from the root: quadratic), one cut 100,000 objects deep (the
/// parse's error walk recursed and overflowed a tagging thread's stack) and an unclosed template
/// are mapped beside a plain file, whose item the map still shows, and the daemon answers after.
#[test]
fn hostile_typescript_is_mapped_and_the_daemon_keeps_answering() {
    let deep = 100_000;
    let sandbox = Sandbox::empty();
    let types = format!("type T={}{}", "{a:".repeat(deep), "}".repeat(deep));
    sandbox.write("types.ts", &types);
    sandbox.write("cut.ts", &format!("const a={}", "{a:".repeat(deep)));
    sandbox.write("template.js", &format!("const s=`{}", "${`".repeat(deep)));
    sandbox.write(
        "plain.ts",
        "export function plainFunction(): number {\n  return 1\n}\n",
    );
    let daemon = Daemon::start(&sandbox, &[]);
    let answer = map(&daemon, json!({"budget": 8000}));
    assert_eq!(answer["parsed"], 4, "{answer}");
    let text = answer["map"].as_str().unwrap();
    assert!(text.contains("plainFunction"), "{text}");
    let items = items_of(&daemon, &sandbox.root.join("plain.ts"));
    assert_eq!(items, [("plainFunction".to_owned(), 1)]);
}
