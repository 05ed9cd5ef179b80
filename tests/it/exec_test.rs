//! `test` through a real daemon on real toolchains: each fixture project under
//! tests/fixtures/test-projects (listed in its cases.json) has a passing, a failing and a slow
//! test. A full run reports the failure with its lines, the pattern narrows to the passing test,
//! and the timeout stops the slow one, all inside the default namespace sandbox.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

fn fixtures() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/test-projects"
    ))
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn case(project: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join("cases.json")).unwrap();
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    cases.into_iter().find(|c| c["project"] == project).unwrap()
}

fn run_case(project: &str) {
    let case = case(project);
    let sandbox = Sandbox::empty();
    let folder = sandbox.root.join("proj");
    copy_tree(&fixtures().join(project), &folder);
    let daemon = Daemon::start(&sandbox, &[]);
    // The first run compiles (cargo, go): a generous timeout.
    let full = daemon.ok("test", json!({"dir": "proj", "timeout": 300}));
    assert_eq!(full["framework"], case["framework"], "{full}");
    // The toolchains run in the default sandbox, with their caches writable.
    assert_eq!(full["sandbox"], json!("namespaces"), "{full}");
    assert_ne!(full["exit_code"], json!(0), "{full}");
    let failing = case["failing"].as_str().unwrap();
    if case["summary"] == json!(true) {
        let summary = &full["summary"];
        assert_eq!(summary["failed"], json!(1), "{full}");
        assert!(summary["passed"].as_u64().unwrap() >= 1, "{full}");
        let failure = &summary["failures"][0];
        assert!(
            failure["name"].as_str().unwrap().contains(failing),
            "{full}"
        );
        assert!(!failure["lines"].as_array().unwrap().is_empty(), "{full}");
    } else {
        let output = format!("{}{}", full["stdout"], full["stderr"]);
        assert!(output.contains(failing), "{full}");
    }

    let passing = case["passing"].as_str().unwrap();
    let filtered = daemon.ok(
        "test",
        json!({"dir": "proj", "pattern": passing, "timeout": 300}),
    );
    assert_eq!(filtered["exit_code"], json!(0), "{filtered}");
    assert!(
        filtered["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().contains(passing)),
        "{filtered}"
    );
    if case["summary"] == json!(true) {
        assert_eq!(filtered["summary"]["failed"], json!(0), "{filtered}");
        assert_eq!(filtered["summary"]["passed"], json!(1), "{filtered}");
    }

    std::fs::write(folder.join("SLOW"), "").unwrap();
    let started = Instant::now();
    let slow = daemon.ok(
        "test",
        json!({"dir": "proj", "pattern": case["slow"], "timeout": 5}),
    );
    assert_eq!(slow["timed_out"], json!(true), "{slow}");
    // The 5 s timeout, not the slow test's 60 s sleep.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn cargo_projects_report_failures_filter_and_time_out() {
    run_case("cargo");
}

#[test]
fn go_projects_report_failures_filter_and_time_out() {
    run_case("go");
}

#[test]
fn pytest_projects_report_failures_filter_and_time_out() {
    run_case("pytest");
}

#[test]
fn npm_projects_report_failures_filter_and_time_out() {
    run_case("npm");
}

/// `mvn -q test` in the sandbox: Maven's plugins and JUnit come into `~/.m2`, one of the
/// sandbox's writable caches (downloaded on a machine's first run).
#[test]
fn maven_projects_report_failures_filter_and_time_out() {
    run_case("maven");
}

#[test]
fn a_folder_without_a_test_setup_is_c211_listing_what_was_looked_for() {
    let sandbox = Sandbox::empty();
    sandbox.write("docs/readme.txt", "no tests here\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let error = daemon.err("test", json!({"dir": "docs"}));
    assert_eq!(error["data"]["code"], "C211", "{error}");
    assert!(
        error["data"]["recovery"]
            .as_str()
            .unwrap()
            .contains("Cargo.toml"),
        "{error}"
    );
    let bad = daemon.err("test", json!({"dir": "docs", "pattern": "--exec=x"}));
    assert_eq!(bad["data"]["code"], "C210", "{bad}");
}

#[test]
fn test_runs_obey_the_exec_policy_of_the_daemon_config() {
    let sandbox = Sandbox::empty();
    copy_tree(&fixtures().join("pytest"), &sandbox.root.join("proj"));
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "exec:\n  deny: [\"python3 *\"]\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let error = daemon.err("test", json!({"dir": "proj"}));
    assert_eq!(error["data"]["code"], "C214", "{error}");
    assert_eq!(error["data"]["rule"], "config-deny", "{error}");
}

/// Issue 36: `test --dir ./pkg` ran the whole project where ChatCLI runs only that folder, and
/// ChatCLI's `--pattern "*_test.go"` became `go test -run "*_test.go"`, an invalid regex. Go now
/// tests the packages below `dir` and pytest the folder; a glob of test files selects files
/// (Go: the packages holding them), a name stays a name filter. The project's own failing test
/// lies outside each selection, so a run that strayed would fail.
#[test]
fn dir_and_a_glob_of_test_files_select_as_chatcli_means_them() {
    let sandbox = Sandbox::empty();
    copy_tree(&fixtures().join("go"), &sandbox.root.join("gomod"));
    copy_tree(&fixtures().join("pytest"), &sandbox.root.join("py"));
    sandbox.write(
        "gomod/pkg/ok_test.go",
        "package pkg\n\nimport \"testing\"\n\nfunc TestInPkg(t *testing.T) {}\n",
    );
    sandbox.write("py/sub/test_ok.py", "def test_in_sub():\n    assert True\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let cases = [
        (json!({"dir": "gomod/pkg"}), "./pkg/..."),
        (
            json!({"dir": "gomod/pkg", "pattern": "*_test.go"}),
            "./pkg/...",
        ),
        (json!({"dir": "gomod", "pattern": "pkg/*_test.go"}), "./pkg"),
        (json!({"dir": "py/sub"}), "sub"),
        (
            json!({"dir": "py", "pattern": "test_ok*.py"}),
            "python_files=test_ok*.py",
        ),
    ];
    for (mut params, selects) in cases {
        params["timeout"] = json!(300);
        let run = daemon.ok("test", params.clone());
        let command: Vec<&str> = run["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(command.contains(&selects), "{params}: {command:?}");
        assert!(
            !command.contains(&"-run") && !command.contains(&"-k"),
            "{params}: {command:?}"
        );
        assert_eq!(run["exit_code"], json!(0), "{params}: {run}");
        assert_eq!(run["summary"]["passed"], json!(1), "{params}: {run}");
    }
}
