//! The map's ranking rules on a small multi-folder Go repository whose right answers are known
//! (tests/fixtures/map-cases.json: request → files shown with items, listed (shown or named),
//! not listed, first, lines in order), its determinism, and its tag index kept on disk across a
//! restart.

use crate::common;

use common::{Daemon, Sandbox, FIXTURES};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FIXTURE: &str = "maprank";

fn map(daemon: &Daemon, params: Value) -> Value {
    daemon.ok("map", params)
}

fn strings(case: &Value, key: &str) -> Vec<String> {
    case[key]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn ranking_rules_hold_on_the_fixture_repository() {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(FIXTURES).join("map-cases.json")).unwrap(),
    )
    .unwrap();
    let sandbox = Sandbox::fixture(FIXTURE);
    let daemon = Daemon::start(&sandbox, &[]);
    for case in cases.as_array().unwrap() {
        let name = &case["case"];
        let result = map(&daemon, case["params"].clone());
        let text = result["map"].as_str().unwrap();
        // Shown with items, or listed: shown or named without them.
        let (shown, files) = (common::map_blocks(text), common::map_files(text));
        for want in strings(case, "shown") {
            assert!(
                shown.contains(&want.as_str()),
                "{name}: {want} not shown\n{text}"
            );
        }
        for want in strings(case, "listed") {
            assert!(files.contains(&want), "{name}: {want} not listed\n{text}");
        }
        for unwanted in strings(case, "not_shown") {
            assert!(
                !files.contains(&unwanted),
                "{name}: {unwanted} shown\n{text}"
            );
        }
        if let Some(first) = case["first"].as_str() {
            assert_eq!(
                files.first().map(String::as_str),
                Some(first),
                "{name}\n{text}"
            );
        }
        for pair in case["before"].as_array().into_iter().flatten() {
            let at = |s: &str| {
                text.find(s)
                    .unwrap_or_else(|| panic!("{name}: no {s}\n{text}"))
            };
            let (a, b) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            assert!(at(a) < at(b), "{name}: {a} not before {b}\n{text}");
        }
    }
}

#[test]
fn the_map_is_byte_identical_across_calls_and_fresh_daemons() {
    let params = json!({"budget": 700, "focus": ["store/appender.go"], "mentions": ["Labels", "Commit", "Head"]});
    let first_sandbox = Sandbox::fixture(FIXTURE);
    let first = {
        let daemon = Daemon::start(&first_sandbox, &[]);
        let first = map(&daemon, params.clone())["map"].clone();
        for _ in 0..5 {
            assert_eq!(map(&daemon, params.clone())["map"], first);
        }
        first
    };
    // Another copy of the tree, another daemon with nothing on disk.
    let other = Sandbox::fixture(FIXTURE);
    let daemon = Daemon::start(&other, &[]);
    assert_eq!(map(&daemon, params)["map"], first);
}

/// The saved tag index of the sandbox's daemon, once it is on disk.
fn wait_for_saved_index(sandbox: &Sandbox) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found = common::files_under(&sandbox.dir.path().join("state"))
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n == "tags.jsonl"));
        if let Some(path) = found {
            return path;
        }
        assert!(Instant::now() < deadline, "the tag index was never saved");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_restarted_daemon_reuses_its_tag_index_and_retags_only_what_changed() {
    let sandbox = Sandbox::fixture(FIXTURE);
    let params = json!({"budget": 100_000});
    let cold = {
        let daemon = Daemon::start(&sandbox, &[]);
        let cold = map(&daemon, params.clone());
        assert!(cold["parsed"].as_u64().unwrap() >= 15, "{cold}");
        wait_for_saved_index(&sandbox);
        cold
    };
    {
        let daemon = Daemon::start(&sandbox, &[]);
        let restarted = map(&daemon, params.clone());
        assert_eq!(restarted["parsed"], 0, "nothing re-tagged after a restart");
        assert_eq!(restarted["map"], cold["map"]);
    }
    // While no daemon runs: one file rewritten unchanged (new times, same content), one changed.
    let head = sandbox.root.join("store/head.go");
    let same = std::fs::read(&head).unwrap();
    std::fs::remove_file(&head).unwrap();
    std::fs::write(&head, same).unwrap();
    let loop_go = sandbox.root.join("scrape/loop.go");
    let text = std::fs::read_to_string(&loop_go).unwrap();
    std::fs::write(
        &loop_go,
        text.replace("func (l *Loop) Run()", "func (l *Loop) RunOnce()"),
    )
    .unwrap();
    let daemon = Daemon::start(&sandbox, &[]);
    let after = map(&daemon, params);
    assert_eq!(after["parsed"], 1, "only the changed file is re-tagged");
    assert!(after["map"]
        .as_str()
        .unwrap()
        .contains("func (l *Loop) RunOnce() error"));
}

/// A map of a fresh daemon over a tree written by `files` (path, text).
fn map_of(files: &[(&str, &str)], params: Value) -> Value {
    let sandbox = Sandbox::empty();
    for (path, text) in files {
        sandbox.write(path, text);
    }
    let daemon = Daemon::start(&sandbox, &[]);
    map(&daemon, params)
}

#[test]
fn rust_test_modules_declared_out_of_line_are_left_out_unless_tests_are_asked_for() {
    let files = [
        (
            "src/lib.rs",
            "pub mod engine;\n#[cfg(test)]\nmod tests;\npub fn start_engine() {}\n",
        ),
        (
            "src/tests.rs",
            "use super::*;\nfn starts_the_engine() { start_engine(); }\n",
        ),
        (
            "src/engine.rs",
            "pub struct EngineState;\n#[cfg(all(test, unix))] pub(crate) mod unit;\n",
        ),
        (
            "src/engine/unit.rs",
            "fn engine_state_is_empty() { let _ = super::EngineState; }\n",
        ),
        ("src/engine/unit/deep.rs", "fn deep_engine_check() {}\n"),
    ];
    let test_files = [
        "src/tests.rs",
        "src/engine/unit.rs",
        "src/engine/unit/deep.rs",
    ];
    let without = map_of(&files, json!({"budget": 100_000}));
    let text = without["map"].as_str().unwrap();
    let shown = common::map_files(text);
    for path in ["src/lib.rs", "src/engine.rs"] {
        assert!(shown.iter().any(|f| f == path), "{path} not shown\n{text}");
    }
    for path in test_files {
        assert!(!shown.iter().any(|f| f == path), "{path} shown\n{text}");
    }
    let with = map_of(&files, json!({"budget": 100_000, "include_tests": true}));
    let text = with["map"].as_str().unwrap();
    for path in test_files {
        assert!(
            common::map_files(text).iter().any(|f| f == path),
            "{path} not shown\n{text}"
        );
    }
}

#[test]
fn generated_files_are_left_out_of_the_map_whatever_their_header_says() {
    // The same heavily used definitions, once under a generator's header and once written by hand.
    let body = "pub struct SyntaxNodeKind;\npub fn make_syntax_node() -> SyntaxNodeKind { SyntaxNodeKind }\n";
    let user = "use crate::nodes::*;\nfn a() { make_syntax_node(); make_syntax_node(); }\n";
    let headers = [
        "// Code generated by protoc-gen-go. DO NOT EDIT.\n",
        "//! Generated by `cargo xtask codegen grammar`, do not edit by hand.\n\n",
        "// Copyright 2024 The Authors.\n// SPDX-License-Identifier: MIT\n\n// This file is automatically generated by build.rs\n",
        "/* AUTO-GENERATED FILE. DO NOT MODIFY. */\n",
        "// @generated\n",
    ];
    for header in headers {
        let generated = format!("{header}{body}");
        let files = [
            ("src/nodes.rs", generated.as_str()),
            ("src/user.rs", user),
            ("src/handwritten.rs", body),
        ];
        let result = map_of(&files, json!({"budget": 100_000}));
        let text = result["map"].as_str().unwrap();
        let shown = common::map_files(text);
        assert!(
            !shown.iter().any(|f| f == "src/nodes.rs"),
            "{header}: shown\n{text}"
        );
        assert!(
            shown.iter().any(|f| f == "src/handwritten.rs"),
            "{header}\n{text}"
        );
    }
    // No header, but `.gitattributes` says so; a later line takes it back for one file.
    let files = [
        (".gitattributes", "*.md text\nsrc/schema/** linguist-generated=true\nsrc/schema/kept.rs -linguist-generated\n"),
        ("src/schema/nodes.rs", body),
        ("src/schema/kept.rs", body),
        ("src/user.rs", user),
    ];
    let result = map_of(&files, json!({"budget": 100_000}));
    let text = result["map"].as_str().unwrap();
    let shown = common::map_files(text);
    assert!(
        !shown.iter().any(|f| f == "src/schema/nodes.rs"),
        "shown\n{text}"
    );
    assert!(shown.iter().any(|f| f == "src/schema/kept.rs"), "\n{text}");
}

#[test]
fn a_go_map_lists_a_typescript_file_tied_only_by_a_bare_name_after_every_go_file() {
    let files = [
        (
            "cmd/main.go",
            "package main\n\nfunc main() {\n\tquery.ParseQueryExpr(\"up\")\n\tstore.OpenSeriesStore()\n}\n",
        ),
        (
            "query/parse.go",
            "package query\n\ntype QueryExpr struct{}\n\nfunc ParseQueryExpr(s string) QueryExpr { return QueryExpr{} }\n",
        ),
        (
            "store/store.go",
            "package store\n\ntype SeriesStore struct{}\n\nfunc OpenSeriesStore() *SeriesStore { return nil }\n",
        ),
        (
            "util/strings.go",
            "package util\n\nfunc TrimLabels(s string) string { return s }\n",
        ),
        (
            "web/ui/src/query.ts",
            "export function ParseQueryExpr(s: string): string { return s; }\nexport function OpenSeriesStore(): void {}\n",
        ),
    ];
    let result = map_of(&files, json!({"budget": 100_000, "focus": ["cmd/main.go"]}));
    let text = result["map"].as_str().unwrap();
    let shown = common::map_files(text);
    assert_eq!(
        &shown[..2],
        ["query/parse.go", "store/store.go"],
        "\n{text}"
    );
    let first_ts = shown.iter().position(|f| f.ends_with(".ts"));
    let last_go = shown.iter().rposition(|f| f.ends_with(".go"));
    assert!(first_ts.is_none_or(|ts| Some(ts) > last_go), "\n{text}");
}

#[test]
fn a_restarted_daemon_retags_no_go_file_whose_method_is_above_its_receiver_type() {
    let sandbox = Sandbox::empty();
    sandbox.write(
        "server/server.go",
        "package server\n\nfunc (s *Server) Start() error { return nil }\n\ntype Server struct {\n\taddr string\n}\n\nfunc (s *Server) Stop() {}\n",
    );
    sandbox.write(
        "main.go",
        "package main\n\nfunc main() { server.Start() }\n",
    );
    let params = json!({"budget": 100_000});
    let cold = {
        let daemon = Daemon::start(&sandbox, &[]);
        let cold = map(&daemon, params.clone());
        assert_eq!(cold["parsed"], 2, "{cold}");
        wait_for_saved_index(&sandbox);
        cold
    };
    let daemon = Daemon::start(&sandbox, &[]);
    let restarted = map(&daemon, params);
    assert_eq!(restarted["parsed"], 0, "re-tagged after a restart");
    assert_eq!(restarted["map"], cold["map"]);
    assert!(
        cold["map"].as_str().unwrap().contains("Start() error"),
        "{cold}"
    );
}

/// Names a Rust macro call lists are definitions (queries/rust/tags.scm: a call with braces
/// outside functions, each entry of its list; a name after a declaring keyword in any call), for
/// `symbols` and the map, but not `outline` items; what a call inside a function or without
/// braces lists is a use (tests/fixtures/macro-definitions.json).
#[test]
fn names_a_macro_call_lists_are_definitions_for_symbols_and_the_map_not_outline_items() {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(FIXTURES).join("macro-definitions.json")).unwrap(),
    )
    .unwrap();
    let sandbox = Sandbox::empty();
    for case in cases.as_array().unwrap() {
        sandbox.write(
            case["file"].as_str().unwrap(),
            case["text"].as_str().unwrap(),
        );
    }
    // A user of the listed names, and files it does not use.
    sandbox.write(
        "src/user.rs",
        "fn lower(s: &str) -> bool { s == sym::intern_me.as_str() || s == sym::last_one.as_str() }\n",
    );
    for i in 0..6 {
        sandbox.write(
            &format!("src/other{i}.rs"),
            &format!("pub fn unrelated_{i}() {{}}\npub struct Unrelated{i};\n"),
        );
    }
    let daemon = Daemon::start(&sandbox, &[]);
    for case in cases.as_array().unwrap() {
        let (name, file) = (&case["case"], case["file"].as_str().unwrap());
        let in_file = |query: &str| -> Vec<Value> {
            let found = daemon.ok("symbols", json!({"query": query}));
            found["results"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["path"] == file && r["name"] == query)
                .cloned()
                .collect()
        };
        for pair in case["defined"].as_array().unwrap() {
            let (defined, kind) = (pair[0].as_str().unwrap(), &pair[1]);
            let found = in_file(defined);
            assert_eq!(found.len(), 1, "{name}: {defined} {found:?}");
            assert_eq!(&found[0]["kind"], kind, "{name}: {defined}");
        }
        for used in strings(case, "not_defined") {
            assert!(in_file(&used).is_empty(), "{name}: {used} is a definition");
        }
    }
    // Not outline items: the outline lists what the language declares (the macro itself).
    let outline = daemon.ok("outline", json!({"file": "src/symbols.rs"}));
    let names: Vec<&str> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["define_symbols"]);
    // The map ties the user to the file whose macro call defines what it uses, before the rest.
    let result = map(
        &daemon,
        json!({"focus": ["src/user.rs"], "budget": 100_000}),
    );
    let text = result["map"].as_str().unwrap();
    let shown = common::map_files(text);
    let at = |f: &str| shown.iter().position(|s| *s == f);
    let symbols = at("src/symbols.rs").unwrap_or_else(|| panic!("not shown\n{text}"));
    for i in 0..6 {
        let other = format!("src/other{i}.rs");
        assert!(
            at(&other).is_none_or(|o| symbols < o),
            "{other} first\n{text}"
        );
    }
    assert!(text.contains("intern_me"), "{text}");
}
