//! Data-driven cases: each `tests/cases/*.json` names a fixture workspace (and optionally a config),
//! then lists requests with the response expected (subset-matched, see `common::matches`).

use crate::common;

use common::{check_response, Daemon, Failures, Sandbox};
use serde_json::Value;
use std::path::Path;

fn run_suite(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases")
        .join(format!("{name}.json"));
    let suite: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let sandbox = Sandbox::fixture(suite["workspace"].as_str().expect("workspace"));
    let mut extra = Vec::new();
    if let Some(config) = suite.get("config") {
        let file = sandbox.dir.path().join("config.yaml");
        std::fs::write(
            &file,
            sandbox.expand(config.as_str().expect("config is YAML text")),
        )
        .unwrap();
        extra = vec!["--config".to_string(), file.to_string_lossy().into_owned()];
    }
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let daemon = Daemon::start(&sandbox, &extra);
    let forbidden: Vec<String> = suite["forbid"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| sandbox.expand(s.as_str().unwrap()))
        .collect();
    let cases = suite["cases"].as_array().expect("cases");
    let mut failures = Failures::default();
    for case in cases {
        let label = case["name"].as_str().unwrap_or("?").to_string();
        let method = case["request"]["method"].as_str().expect("method");
        let params = sandbox.expand_value(&case["request"]["params"]);
        let response = daemon.call(method, params);
        let mut problems = Vec::new();
        if !check_response(case, &response, &sandbox, &mut problems) {
            panic!("case {label} has neither expect nor expect_error");
        }
        let text = response.to_string();
        for needle in &forbidden {
            if text.contains(needle.as_str()) {
                problems.push(format!("response contains forbidden text {needle:?}"));
            }
        }
        failures.record(&label, &problems);
    }
    failures.assert_none(name, cases.len());
}

#[test]
fn symbol_cases() {
    run_suite("symbol");
}

#[test]
fn read_cases() {
    run_suite("read");
}

#[test]
fn batch_cases() {
    run_suite("batch");
}

#[test]
fn jail_cases() {
    run_suite("jail");
}

#[test]
fn tree_cases() {
    run_suite("tree");
}

#[test]
fn list_folder_cases() {
    run_suite("list_folder");
}

#[test]
fn search_cases() {
    run_suite("search");
}

/// iii's `coder` worker document, each stated behaviour called by its function id and param names.
#[test]
fn iii_cases() {
    run_suite("iii");
}

#[test]
fn search_budget_cases() {
    run_suite("search_budget");
}

#[test]
fn protocol_cases() {
    run_suite("protocol");
}

#[test]
fn odd_file_name_cases() {
    run_suite("names");
}

#[test]
fn policy_cases() {
    run_suite("policy");
}

#[test]
fn policy_config_cases() {
    run_suite("policy_config");
}

#[test]
fn config_cases() {
    run_suite("config");
}
