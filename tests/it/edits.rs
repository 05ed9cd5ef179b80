//! Data-driven edit cases over the real daemon: each case lays out its files in a fresh workspace
//! folder, sends one request, and checks the answer and the exact bytes of every file afterwards.
//! A refused edit must leave every file byte-identical (checked for every error case).
//!
//! Case format (`tests/edits/*.json`, a list under `cases`):
//! - `files`: path → text, or `{"base64": …}`, `{"symlink": target}`, `{"dir": true}`,
//!   `{"text": …, "mode": 0o755 as a number}`, `{"hardlink": other path}`.
//! - `request`: `{"method", "params"}`; `$ROOT` and `$OUTSIDE` are replaced.
//! - `expect` (subset of the result) or `expect_error` (subset of `error.data` plus `message`).
//! - `after`: path → expected text, `{"base64": …}`, `{"absent": true}`, `{"mode": n}`,
//!   `{"symlink": target}`. Files not named keep their original bytes.

use crate::common;

use base64::Engine;
use common::{check_response, snapshot, Daemon, Failures, Sandbox};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn b64(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

fn lay_out(root: &Path, files: &Value, sandbox: &Sandbox) {
    for (rel, spec) in files.as_object().into_iter().flatten() {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        match spec {
            Value::String(text) => std::fs::write(&path, text).unwrap(),
            Value::Object(o) if o.contains_key("symlink") => {
                let target = sandbox.expand(o["symlink"].as_str().unwrap());
                std::os::unix::fs::symlink(target, &path).unwrap();
            }
            Value::Object(o) if o.contains_key("dir") => std::fs::create_dir_all(&path).unwrap(),
            Value::Object(o) if o.contains_key("hardlink") => {
                std::fs::hard_link(root.join(o["hardlink"].as_str().unwrap()), &path).unwrap()
            }
            Value::Object(o) => {
                let bytes = match (o.get("base64"), o.get("text")) {
                    (Some(b), _) => b64(b.as_str().unwrap()),
                    (_, Some(t)) => t.as_str().unwrap().as_bytes().to_vec(),
                    _ => Vec::new(),
                };
                std::fs::write(&path, bytes).unwrap();
                if let Some(mode) = o.get("mode") {
                    let mode = mode.as_u64().unwrap() as u32;
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
                }
            }
            other => panic!("bad file spec {other}"),
        }
    }
}

fn check_after(
    root: &Path,
    before: &BTreeMap<String, Vec<u8>>,
    after: &Value,
    problems: &mut Vec<String>,
) {
    let now = snapshot(root);
    let named: BTreeMap<String, &Value> = after
        .as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v)).collect())
        .unwrap_or_default();
    for (rel, spec) in &named {
        let path = root.join(rel);
        let expected: Option<Vec<u8>> = match spec {
            Value::String(t) => Some(t.as_bytes().to_vec()),
            Value::Object(o) if o.get("absent") == Some(&json!(true)) => {
                if path.symlink_metadata().is_ok() {
                    problems.push(format!("{rel} should be absent"));
                }
                None
            }
            Value::Object(o) if o.contains_key("symlink") => {
                match std::fs::read_link(&path) {
                    Ok(t) if t.to_string_lossy() == o["symlink"].as_str().unwrap() => {}
                    other => problems.push(format!(
                        "{rel} should be a symlink to {}: {other:?}",
                        o["symlink"]
                    )),
                }
                None
            }
            Value::Object(o) => {
                if let Some(mode) = o.get("mode") {
                    let actual = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o7777);
                    if actual.as_ref().ok() != Some(&(mode.as_u64().unwrap() as u32)) {
                        problems.push(format!("{rel}: mode {actual:?}, expected {mode}"));
                    }
                }
                o.get("base64")
                    .map(|b| b64(b.as_str().unwrap()))
                    .or_else(|| {
                        o.get("text")
                            .map(|t| t.as_str().unwrap().as_bytes().to_vec())
                    })
            }
            other => panic!("bad after spec {other}"),
        };
        if let Some(expected) = expected {
            match std::fs::read(&path) {
                Ok(actual) if actual == expected => {}
                Ok(actual) => problems.push(format!(
                    "{rel}: bytes differ\n      expected {:?}\n      actual   {:?}",
                    String::from_utf8_lossy(&expected),
                    String::from_utf8_lossy(&actual)
                )),
                Err(e) => problems.push(format!("{rel}: {e}")),
            }
        }
    }
    // Files the case did not name keep their bytes, and no stray file (temp, backup) appears.
    for (rel, bytes) in before {
        if named.contains_key(rel) || named.contains_key(rel.trim_end_matches('/')) {
            continue;
        }
        match now.get(rel) {
            Some(b) if b == bytes => {}
            Some(_) => problems.push(format!("{rel} changed but the case did not expect it")),
            None => problems.push(format!("{rel} disappeared but the case did not expect it")),
        }
    }
    for rel in now.keys() {
        if !before.contains_key(rel)
            && !named.contains_key(rel)
            && !named.contains_key(rel.trim_end_matches('/'))
        {
            problems.push(format!("{rel} appeared but the case did not expect it"));
        }
    }
}

/// Runs a suite: one daemon, each case in a fresh copy of its files.
fn run_suite(cases: &[Value], label: &str) {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut failures = Failures::default();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        for entry in std::fs::read_dir(&sandbox.root).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
        lay_out(&sandbox.root, &case["files"], &sandbox);
        let before = snapshot(&sandbox.root);
        let outside_before = snapshot(&sandbox.outside);
        let method = case["request"]["method"].as_str().expect("method");
        let params = sandbox.expand_value(&case["request"]["params"]);
        let response = daemon.call(method, params);
        let mut problems = Vec::new();
        // A case may check only the files afterwards.
        check_response(case, &response, &sandbox, &mut problems);
        let after = case.get("after").cloned().unwrap_or(json!({}));
        check_after(
            &sandbox.root,
            &before,
            &sandbox.expand_value(&after),
            &mut problems,
        );
        if snapshot(&sandbox.outside) != outside_before {
            problems.push("a file outside the workspace changed".into());
        }
        failures.record(name, &problems);
    }
    failures.assert_none(label, cases.len());
}

fn suite(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/edits")
        .join(format!("{name}.json"));
    let suite: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    suite["cases"].as_array().expect("cases").clone()
}

#[test]
fn write_cases() {
    run_suite(&suite("write"), "write");
}

#[test]
fn files_cases() {
    run_suite(&suite("files"), "files");
}

/// Every edit method refuses a path under `.git` (C214, nothing written): tests/edits/git_dir.json.
#[test]
fn git_dir_cases() {
    run_suite(&suite("git_dir"), "git_dir");
}

/// With `edit.allow_git_dir: true` in the config the same edits go through: the refusal is the
/// switch's doing, and no request field can lift it.
#[test]
fn edits_under_git_are_allowed_only_by_the_config_switch() {
    let sandbox = Sandbox::empty();
    sandbox.write(".git/config", "[core]\n");
    sandbox.write(".git/hooks/old", "#!/bin/sh\n");
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "edit:\n  allow_git_dir: true\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    daemon.ok(
        "write",
        json!({"file": ".git/info/exclude", "content": "*.log\n"}),
    );
    daemon.ok(
        "patch",
        json!({"file": ".git/config", "search": "[core]", "replace": "[core]\n\tbare = false"}),
    );
    daemon.ok(
        "move",
        json!({"moves": [{"from": ".git/hooks/old", "to": ".git/hooks/older"}]}),
    );
    daemon.ok("delete-file", json!({"paths": [".git/hooks/older"]}));
    let root = &sandbox.root;
    assert_eq!(
        std::fs::read_to_string(root.join(".git/info/exclude")).unwrap(),
        "*.log\n"
    );
    assert!(std::fs::read_to_string(root.join(".git/config"))
        .unwrap()
        .contains("bare = false"));
    assert!(!root.join(".git/hooks/older").exists());
    // The default daemon refuses the same write, and a request cannot switch it.
    drop(daemon);
    let daemon = Daemon::start(&sandbox, &[]);
    let error = daemon.err(
        "write",
        json!({"file": ".git/info/exclude", "content": "", "allow_git_dir": true}),
    );
    assert_eq!(error["data"]["code"], "C210", "{error}");
    let error = daemon.err("write", json!({"file": ".git/info/exclude", "content": ""}));
    assert_eq!(error["data"]["code"], "C214", "{error}");
    // Every way in ends in the same methods: the `tool` envelope, and iii's ids over the socket
    // (one result per entry there, each refused).
    let config_before = std::fs::read(root.join(".git/config")).unwrap();
    let ways = [
        (
            "tool",
            json!({"cmd": "write", "args": {"file": ".git/hooks/post-checkout", "content": "x"}}),
        ),
        (
            "coder::create-file",
            json!({"files": [{"path": ".git/hooks/post-merge", "content": "x"}]}),
        ),
        (
            "coder::update-file",
            json!({"files": [{"path": ".git/config", "ops": [
                {"op": "insert", "at_line": 1, "content": "[core]"}]}]}),
        ),
        ("coder::delete-file", json!({"paths": [".git/config"]})),
    ];
    for (way, params) in ways {
        let answer = daemon.call(way, params);
        assert!(answer.to_string().contains("C214"), "{way}: {answer}");
    }
    assert!(!root.join(".git/hooks/post-checkout").exists());
    assert!(!root.join(".git/hooks/post-merge").exists());
    assert_eq!(
        std::fs::read(root.join(".git/config")).unwrap(),
        config_before
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".git/info/exclude")).unwrap(),
        "*.log\n"
    );
}

/// The update-file engine's corpus (also run as a unit test), replayed over the socket: the same
/// bytes or the same refusal must come back through the daemon, with the file left untouched.
#[test]
fn update_file_corpus_over_the_socket() {
    let corpus: Value = serde_json::from_str(include_str!("../edits/update_file.json")).unwrap();
    let cases: Vec<Value> = corpus["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let file = match (c.get("file"), c.get("file_base64")) {
                (Some(text), _) => text.clone(),
                (_, Some(b)) => json!({"base64": b}),
                _ => panic!("case without a file"),
            };
            let request = json!({"method": "update-file", "params": {"files": [{"path": "f.txt", "ops": c["ops"]}]}});
            let mut case = json!({"name": c["name"], "files": {"f.txt": file}, "request": request});
            match &c["expect"] {
                Value::Object(o) if o.contains_key("error") => {
                    case["expect_error"] = json!({"code": o["error"], "message": {"$contains": o["contains"]}});
                }
                expected => {
                    case["after"] = json!({"f.txt": expected});
                    let mut result = json!({});
                    if let Some(echoes) = c.get("echoes") {
                        result["echoes"] = echoes.clone();
                    }
                    if let Some(t) = c.get("echoes_truncated") {
                        result["echoes_truncated"] = t.clone();
                    }
                    case["expect"] = json!({"files": [result]});
                }
            }
            case
        })
        .collect();
    run_suite(&cases, "update_file");
}

#[test]
fn patch_cases() {
    run_suite(&suite("patch"), "patch");
}

/// `clean` removes only the backups coderd wrote, still as it wrote them: it lists them first and
/// removes them with `force`. An 11 MB `backups/db.bak` coderd never made, and a backup of coderd's
/// that the user overwrote since, stay, named in `kept_not_ours`.
#[test]
fn clean_lists_then_removes_only_the_backups_coderd_wrote() {
    let sandbox = Sandbox::empty();
    let root = sandbox.root.clone();
    std::fs::create_dir_all(root.join("backups")).unwrap();
    let dump = vec![b'd'; 11 << 20];
    std::fs::write(root.join("backups/db.bak"), &dump).unwrap();
    sandbox.write("a.txt", "a1\n");
    sandbox.write("b.txt", "b1\n");
    let daemon = Daemon::start(&sandbox, &[]);
    for (file, content) in [("a.txt", "a2\n"), ("b.txt", "b2\n")] {
        daemon.ok("write", json!({"file": file, "content": content}));
    }
    assert_eq!(std::fs::read(root.join("a.txt.bak")).unwrap(), b"a1\n");
    // The user writes over coderd's backup of b.txt: it is theirs now.
    std::fs::write(root.join("b.txt.bak"), "the user's own\n").unwrap();

    let listed = daemon.ok("clean", json!({}));
    let path = |rel: &str| root.join(rel).to_string_lossy().into_owned();
    assert_eq!(
        listed["would_remove"],
        json!([path("a.txt.bak")]),
        "{listed}"
    );
    assert_eq!(listed["count"], 0);
    assert_eq!(
        listed["kept_not_ours"],
        json!([path("b.txt.bak"), path("backups/db.bak")]),
        "{listed}"
    );
    assert!(root.join("a.txt.bak").exists(), "listing removed a file");

    let cleaned = daemon.ok("clean", json!({"force": true}));
    assert_eq!(cleaned["removed"], json!([path("a.txt.bak")]), "{cleaned}");
    assert_eq!(cleaned["count"], 1);
    assert!(!root.join("a.txt.bak").exists());
    assert_eq!(std::fs::read(root.join("backups/db.bak")).unwrap(), dump);
    assert_eq!(
        std::fs::read(root.join("b.txt.bak")).unwrap(),
        b"the user's own\n"
    );
    // A backup written after a daemon restart is still coderd's (the journal outlives it).
    drop(daemon);
    let daemon = Daemon::start(&sandbox, &[]);
    daemon.ok("write", json!({"file": "a.txt", "content": "a3\n"}));
    drop(daemon);
    let daemon = Daemon::start(&sandbox, &[]);
    let cleaned = daemon.ok("clean", json!({"force": true}));
    assert_eq!(cleaned["removed"], json!([path("a.txt.bak")]), "{cleaned}");
}
