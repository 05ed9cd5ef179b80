//! The map's ranking rules on a small multi-folder Go repository whose right answers are known
//! (tests/fixtures/map-cases.json: request → files shown, not shown, first, lines in order), its
//! determinism, and its tag index kept on disk across a restart.

use crate::common;

use common::{Daemon, Sandbox, FIXTURES};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FIXTURE: &str = "maprank";

fn map(daemon: &Daemon, params: Value) -> Value {
    daemon.ok("map", params)
}

/// The files a map shows: the lines heading a group (`path:` at the start of a line).
fn shown_files(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with([' ', '⋮']) && l.ends_with(':'))
        .map(|l| l.trim_end_matches(':'))
        .collect()
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
        let files = shown_files(text);
        for want in strings(case, "shown") {
            assert!(
                files.contains(&want.as_str()),
                "{name}: {want} not shown\n{text}"
            );
        }
        for unwanted in strings(case, "not_shown") {
            assert!(
                !files.contains(&unwanted.as_str()),
                "{name}: {unwanted} shown\n{text}"
            );
        }
        if let Some(first) = case["first"].as_str() {
            assert_eq!(files.first(), Some(&first), "{name}\n{text}");
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
        let found = walk(&sandbox.dir.path().join("state"))
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n == "tags.jsonl"));
        if let Some(path) = found {
            return path;
        }
        assert!(Instant::now() < deadline, "the tag index was never saved");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
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
