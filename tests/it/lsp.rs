//! Post-edit diagnostics against real language servers (installed by
//! scripts/install-language-servers.sh; no mocks). Per language (`tests/lsp/cases.json`, fixtures
//! in `tests/lsp/<fixture>/`): an edit that breaks a caller it did not open is reported where the
//! server reports it; an edit that breaks the file gets the error in the same answer, the fix
//! clears it; 200 edits in bursts of 3 sent 10 ms apart never show a finding older than the edit's
//! own version (zero stale); `kill -9` of a server answers without hanging and diagnostics come
//! back after the restart. Then the languages checked for syntax only (JSON, YAML, TOML, Bash,
//! PHP), the off switches, and a missing server binary.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BURST_EDITS: usize = 200;
const BURST_SIZE: usize = 3;
const BURST_GAP: Duration = Duration::from_millis(10);

/// Generous deadlines: these tests check correctness on a loaded CI machine; the latency bars
/// are checked by scripts/bench-lsp.sh. Trusted: rust-analyzer's check on save (off when
/// untrusted, see tests/it/lsp_sandbox.rs) is what reports the broken callers the Rust case edits.
const TEST_CONFIG: &str =
    "lsp:\n  trust: trusted\n  warm_deadline_ms: 60000\n  cold_deadline_ms: 90000\n";

fn cases() -> Vec<Value> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lsp/cases.json"))
            .unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    file["cases"].as_array().unwrap().clone()
}

fn case(language: &str) -> Value {
    cases()
        .into_iter()
        .find(|c| c["language"] == language)
        .unwrap_or_else(|| panic!("no case for {language}"))
}

/// A workspace holding the fixture, and a daemon that runs real servers with the given config.
fn start(fixture: &str, config: &str, env: &[(&str, &OsStr)]) -> (Sandbox, Daemon) {
    let sandbox = Sandbox::empty();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/lsp")
            .join(fixture),
        &sandbox.root,
    );
    let daemon = Daemon::start_with_servers(&sandbox, config, env);
    (sandbox, daemon)
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// The report of one file in an answer's diagnostics.
fn file_report<'a>(result: &'a Value, path: &Path) -> Option<&'a Value> {
    result["diagnostics"]["files"]
        .as_array()?
        .iter()
        .find(|f| f["path"] == json!(path))
}

fn items(report: Option<&Value>, severity: &str) -> Vec<Value> {
    report
        .and_then(|r| r["items"].as_array())
        .into_iter()
        .flatten()
        .filter(|i| i["severity"] == severity)
        .cloned()
        .collect()
}

fn pending(report: Option<&Value>) -> Vec<Value> {
    report
        .and_then(|r| r["pending"].as_array())
        .cloned()
        .unwrap_or_default()
}

fn patch(daemon: &Daemon, root: &Path, file: &str, search: &str, replace: &str) -> Value {
    daemon.ok(
        "patch",
        json!({"file": root.join(file), "search": search, "replace": replace}),
    )
}

/// Whether a pending entry says that the server's own part of its answer is missing while the
/// rest, its check of this same version, is shown (rust-analyzer's first analysis of a project
/// can outlast its `cargo check`): the findings shown are current all the same.
fn only_own_part_missing(entry: &Value) -> bool {
    entry["reason"]
        .as_str()
        .is_some_and(|r| r.ends_with("findings shown are the check's"))
}

fn assert_every_server_current(result: &Value, path: &Path, servers: &[Value]) {
    let report =
        file_report(result, path).unwrap_or_else(|| panic!("no report for {path:?}: {result}"));
    let pending = pending(Some(report));
    assert!(
        pending.iter().all(only_own_part_missing),
        "pending: {result}"
    );
    assert!(servers.iter().all(|s| s.is_string()));
}

fn check_language(language: &str) {
    let case = case(language);
    let servers = case["servers"].as_array().unwrap().clone();
    let (sandbox, daemon) = start(case["fixture"].as_str().unwrap(), TEST_CONFIG, &[]);
    let root = sandbox.root.clone();
    assert_servers_available(&daemon, &servers);

    // A caller the edit breaks, never opened.
    let caller = &case["caller"];
    let s = |v: &Value| v.as_str().unwrap().to_string();
    let result = patch(
        &daemon,
        &root,
        &s(&caller["file"]),
        &s(&caller["search"]),
        &s(&caller["replace"]),
    );
    assert_every_server_current(&result, &root.join(s(&caller["file"])), &servers);
    let elsewhere = file_report(&result, &root.join(s(&caller["in"])));
    if caller["reported"] == true {
        let elsewhere = elsewhere
            .unwrap_or_else(|| panic!("{language}: the broken caller is not reported: {result}"));
        assert_eq!(elsewhere["edited"], false, "{result}");
        let errors = items(Some(elsewhere), "error");
        assert!(
            errors.iter().any(|e| e["message"]
                .as_str()
                .unwrap()
                .contains(caller["message"].as_str().unwrap())),
            "{language}: {result}"
        );
    } else {
        // What this server does today: it reports only files it has open.
        assert!(elsewhere.is_none(), "{language}: {result}");
    }
    patch(
        &daemon,
        &root,
        &s(&caller["file"]),
        &s(&caller["replace"]),
        &s(&caller["search"]),
    );

    // Break the file: the error comes in the same answer, marked new.
    let main = root.join(s(&case["main"]));
    let broke = &case["break"];
    let result = patch(
        &daemon,
        &root,
        &s(&case["main"]),
        &s(&broke["search"]),
        &s(&broke["replace"]),
    );
    assert_every_server_current(&result, &main, &servers);
    let errors = items(file_report(&result, &main), "error");
    let wanted = case["break_message"].as_str().unwrap();
    assert!(
        errors
            .iter()
            .any(|e| e["message"].as_str().unwrap().contains(wanted) && e["new"] == true),
        "{language}: no new error naming {wanted:?}: {result}"
    );
    // The fix clears it.
    let result = patch(
        &daemon,
        &root,
        &s(&case["main"]),
        &s(&broke["replace"]),
        &s(&broke["search"]),
    );
    assert_every_server_current(&result, &main, &servers);
    assert!(
        items(file_report(&result, &main), "error").is_empty(),
        "{language}: {result}"
    );

    burst_never_shows_stale_findings(&daemon, &root, &case);
    kill_9_recovers(&daemon, &root, &case);
}

fn assert_servers_available(daemon: &Daemon, servers: &[Value]) {
    let info = daemon.ok("info", json!({}));
    for server in servers {
        let entry = info["language_servers"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == *server)
            .unwrap_or_else(|| panic!("{server} is not defined"));
        assert_ne!(
            entry["state"], "unavailable",
            "{server} is not installed: run scripts/install-language-servers.sh ({entry})"
        );
    }
}

/// The burst file's content for edit `n`: about half are broken, naming `undefined_{n}`.
fn burst_content(case: &Value, n: usize) -> (String, bool) {
    let bad = (n * 7 + n / 3) % 2 == 1;
    let template = case["burst"][if bad { "bad" } else { "good" }]
        .as_str()
        .unwrap();
    (template.replace("{n}", &n.to_string()), bad)
}

/// The edit numbers named by `undefined_N` in a server's errors, and whether it had any error.
fn named_versions(errors: &[Value], server: &str) -> (BTreeSet<usize>, bool) {
    let mine: Vec<&Value> = errors.iter().filter(|e| e["server"] == server).collect();
    let mut named = BTreeSet::new();
    for e in &mine {
        let message = e["message"].as_str().unwrap();
        if let Some(at) = message.find("undefined_") {
            let digits: String = message[at + 10..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = digits.parse() {
                named.insert(n);
            }
        }
    }
    (named, !mine.is_empty())
}

fn burst_never_shows_stale_findings(daemon: &Daemon, root: &Path, case: &Value) {
    let language = case["language"].as_str().unwrap();
    let servers: Vec<String> = case["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    let file = root.join(case["burst"]["file"].as_str().unwrap());
    let (mut stale, mut pendings, mut current) = (Vec::new(), 0, 0);
    let mut n = 0;
    let mut final_edit = 0;
    while n < BURST_EDITS {
        let burst: Vec<usize> = (n..(n + BURST_SIZE).min(BURST_EDITS)).collect();
        let last = *burst.last().unwrap();
        let handles: Vec<_> = burst
            .iter()
            .map(|&k| {
                let socket = daemon.socket.clone();
                let file = file.clone();
                let (content, _) = burst_content(case, k);
                std::thread::sleep(BURST_GAP);
                std::thread::spawn(move || {
                    let mut client = common::Client::connect(&socket);
                    (
                        k,
                        client.call(
                            "write",
                            json!({"file": file, "content": content, "backup": false}),
                        ),
                    )
                })
            })
            .collect();
        let answers: Vec<(usize, Value)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        // The daemon may commit a burst's edits in another order than they were sent (threads on
        // a loaded machine): the file's revision in each answer gives the real order.
        let revision = |response: &Value| response["result"]["revision"].as_u64().unwrap_or(0);
        final_edit = answers
            .iter()
            .max_by_key(|(k, response)| (revision(response), *k))
            .map(|(k, _)| *k)
            .unwrap();
        for (k, response) in &answers {
            let k = *k;
            let result = &response["result"];
            assert!(
                response.get("error").is_none(),
                "{language}: edit {k}: {response}"
            );
            let at_or_after: Vec<usize> = answers
                .iter()
                .filter(|(_, other)| revision(other) >= revision(response))
                .map(|(v, _)| *v)
                .collect();
            let report = file_report(result, &file);
            let errors = items(report, "error");
            let waiting: Vec<String> = pending(report)
                .iter()
                .filter(|p| !only_own_part_missing(p))
                .map(|p| p["server"].as_str().unwrap().to_string())
                .collect();
            for server in &servers {
                if waiting.contains(server) {
                    pendings += 1;
                    continue;
                }
                current += 1;
                let (named, any_error) = named_versions(&errors, server);
                // Current means: exactly what some version committed at or after this edit says.
                let fits = at_or_after.iter().any(|&v| {
                    let (_, bad) = burst_content(case, v);
                    match bad {
                        true => named == BTreeSet::from([v]),
                        false => !any_error,
                    }
                });
                if !fits {
                    stale.push(format!(
                        "edit {k} [{server}]: {named:?} any_error={any_error}"
                    ));
                }
            }
        }
        n = last + 1;
    }
    eprintln!("{language}: {BURST_EDITS} burst edits: {current} current answers, {pendings} pending, {} stale", stale.len());
    assert!(stale.is_empty(), "{language}: stale findings: {stale:#?}");
    assert!(
        pendings * 10 <= current,
        "{language}: too many pending answers ({pendings} pending, {current} current)"
    );
    // After the burst, the method agrees with the final content.
    let result = json!({"diagnostics": daemon.ok("diagnostics", json!({"files": [file]}))});
    let (_, bad) = burst_content(case, final_edit);
    let errors = items(file_report(&result, &file), "error");
    assert_eq!(!errors.is_empty(), bad, "{language}: {result}");
}

fn server_pid(daemon: &Daemon, server: &str) -> Option<u64> {
    let info = daemon.ok("info", json!({}));
    info["language_servers"]["servers"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == server)?["instances"][0]["pid"]
        .as_u64()
}

fn kill_9_recovers(daemon: &Daemon, root: &Path, case: &Value) {
    let language = case["language"].as_str().unwrap();
    let server = case["kill"].as_str().unwrap();
    let file = root.join(case["burst"]["file"].as_str().unwrap());
    let pid = server_pid(daemon, server).expect("a running server");
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let bad = |n: usize| {
        case["burst"]["bad"]
            .as_str()
            .unwrap()
            .replace("{n}", &n.to_string())
    };
    // The first edit after the kill answers within its deadline, whatever the server's state.
    let started = Instant::now();
    let result = daemon.ok(
        "write",
        json!({"file": file, "content": bad(1000), "backup": false}),
    );
    assert!(
        started.elapsed() < Duration::from_secs(95),
        "{language}: an edit hung after kill -9"
    );
    let report = file_report(&result, &file).expect("a report");
    let (named, _) = named_versions(&items(Some(report), "error"), server);
    assert!(
        named.is_empty() || named == BTreeSet::from([1000]),
        "{language}: {result}"
    );
    // Back within the restart backoff and a cold start.
    let deadline = Instant::now() + Duration::from_secs(150);
    let mut n = 1001;
    loop {
        let result = daemon.ok(
            "write",
            json!({"file": file, "content": bad(n), "backup": false}),
        );
        let report = file_report(&result, &file).unwrap();
        let (named, _) = named_versions(&items(Some(report), "error"), server);
        let waiting = pending(Some(report)).iter().any(|p| p["server"] == server);
        if !waiting && named == BTreeSet::from([n]) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{language}: diagnostics did not come back after kill -9: {result}"
        );
        n += 1;
        std::thread::sleep(Duration::from_millis(200));
    }
    let new_pid = server_pid(daemon, server).unwrap();
    assert_ne!(new_pid, pid, "{language}: the server was not restarted");
    let info = daemon.ok("info", json!({}));
    let entry = info["language_servers"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == server)
        .unwrap()
        .clone();
    assert_eq!(entry["state"], "ready", "{entry}");
    assert!(
        entry["instances"][0]["restarts_recent"].as_u64().unwrap() >= 1,
        "{entry}"
    );
    assert!(
        entry["instances"][0]["last_error"]
            .as_str()
            .unwrap()
            .contains("signal: 9"),
        "{entry}"
    );
}

#[test]
fn go_with_gopls_reports_current_diagnostics_after_every_edit() {
    check_language("go");
}

#[test]
fn python_with_pyright_and_ruff_reports_current_diagnostics_after_every_edit() {
    check_language("python");
}

/// rust-analyzer's native diagnostics and its `cargo check` on save: the broken caller and the
/// undefined function of the case are found by the check alone, so they are reported only when
/// the answer waits for the check its save started (and the burst shows none of an older save).
#[test]
fn rust_with_rust_analyzer_reports_current_diagnostics_after_every_edit() {
    // Where `rustup component add rust-analyzer` cannot work, the row must say so instead.
    let (_sandbox, daemon) = start("rust", TEST_CONFIG, &[]);
    let info = daemon.ok("info", json!({}));
    let row = info["language_servers"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "rust-analyzer")
        .unwrap()
        .clone();
    drop(daemon);
    if row["state"] == "unavailable" {
        assert!(row["install"]
            .as_str()
            .unwrap()
            .contains("rustup component add rust-analyzer"));
        eprintln!("rust-analyzer is unavailable here: {row}");
        return;
    }
    check_language("rust");
}

#[test]
fn c_with_clangd_reports_current_diagnostics_after_every_edit() {
    check_language("c");
}

#[test]
fn typescript_with_tsls_reports_current_diagnostics_after_every_edit() {
    check_language("typescript");
}

/// The servers of the languages with syntax and no types (JSON, YAML, TOML, Bash, PHP;
/// `tests/lsp/syntax.json`): a syntax error an edit makes is in the same answer, new, named by
/// that language's server; the edit back clears it. A server not installed fails the test (CI
/// installs them all).
#[test]
fn a_syntax_error_is_diagnosed_in_json_yaml_toml_bash_and_php() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/lsp/syntax.json"
    ))
    .unwrap();
    let cases: Value = serde_json::from_str(&text).unwrap();
    let (sandbox, daemon) = start("syntax", TEST_CONFIG, &[]);
    let root = sandbox.root.clone();
    let info = daemon.ok("info", json!({}));
    for case in cases["cases"].as_array().unwrap() {
        let s = |key: &str| case[key].as_str().unwrap().to_string();
        let (file, server) = (s("file"), case["server"].clone());
        assert_servers_available(&daemon, std::slice::from_ref(&server));
        // They run no workspace code: confined with nothing writable and no network.
        let row = info["language_servers"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == server)
            .unwrap();
        assert_eq!(row["network"], false, "{row}");
        assert_eq!(row["writable"], json!([]), "{row}");
        let path = root.join(&file);

        let result = patch(&daemon, &root, &file, &s("search"), &s("replace"));
        assert_every_server_current(&result, &path, std::slice::from_ref(&server));
        let errors = items(file_report(&result, &path), "error");
        assert!(
            errors.iter().any(|e| e["server"] == server
                && e["new"] == true
                && e["message"].as_str().unwrap().contains(&s("message"))),
            "{file}: no new error of {server} naming {:?}: {result}",
            s("message")
        );

        let result = patch(&daemon, &root, &file, &s("replace"), &s("search"));
        assert_every_server_current(&result, &path, std::slice::from_ref(&server));
        assert!(
            items(file_report(&result, &path), "error").is_empty(),
            "{file}: the fix left errors: {result}"
        );
    }
}

/// A daemon killed with SIGKILL runs no clean-up: its servers must still go (the kernel's
/// parent-death signal), not linger as orphans holding memory.
#[test]
fn servers_die_with_a_daemon_killed_by_sigkill() {
    // rust-analyzer, killed mid-load, is the server seen to outlive its daemon (others exit when
    // their stdin closes). A short cold deadline: the edit answers `pending` while it loads.
    let case = case("rust");
    let config = "lsp:\n  cold_deadline_ms: 1500\n";
    let (sandbox, mut daemon) = start(case["fixture"].as_str().unwrap(), config, &[]);
    let s = |v: &Value| v.as_str().unwrap().to_string();
    let broken = &case["break"];
    patch(
        &daemon,
        &sandbox.root,
        &s(&case["main"]),
        &s(&broken["search"]),
        &s(&broken["replace"]),
    );
    let Some(pid) = server_pid(&daemon, "rust-analyzer") else {
        eprintln!("rust-analyzer is unavailable here: nothing to check");
        return;
    };
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    // A zombie (state Z) holds nothing; whoever adopted it reaps it.
    let alive = || {
        std::fs::read_to_string(proc_dir.join("stat")).is_ok_and(|stat| {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        })
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while alive() {
        assert!(
            Instant::now() < deadline,
            "rust-analyzer (pid {pid}) outlived its daemon"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Writes `text(n)` to `file` for n = 0, 1, … until the answer is settled: the file's report
/// current (no server pending) and no other file reported. A server's late publishes about
/// earlier calls (the file `exec` created, say) land in whichever answer is open when they come;
/// a settled answer is what the assertions after it are about. Fails after 2 minutes.
fn settled_write(daemon: &Daemon, file: &Path, text: impl Fn(usize) -> String) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    for n in 0.. {
        let result = daemon.ok(
            "write",
            json!({"file": file, "content": text(n), "backup": false}),
        );
        let report = file_report(&result, file);
        let others = result["diagnostics"]["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["path"] != json!(file))
            .count();
        if report.is_some() && pending(report).is_empty() && others == 0 {
            return result;
        }
        assert!(Instant::now() < deadline, "never settled: {result}");
        std::thread::sleep(Duration::from_millis(200));
    }
    unreachable!()
}

/// Every mutating method takes `diagnostics: false` (and then answers without them); a wrong
/// type is C210 naming the field; config `autodiag: false` and the client's `CODER_AUTODIAG=off`
/// turn them off too; with them on, the client prints the `[DIAGNOSTICS]` block.
#[test]
fn the_off_switches_work_for_every_mutating_method() {
    let (sandbox, daemon) = start("go", TEST_CONFIG, &[]);
    let root = &sandbox.root;
    let go = |name: &str| root.join(name);
    // One call per method that may mutate; those `info` lists as mutating are made.
    let calls = [
        (
            "write",
            json!({"file": go("a.go"), "content": "package main\n\nvar a int = \"x\"\n"}),
        ),
        (
            "create-file",
            json!({"files": [{"file": go("b.go"), "content": "package main\n\nvar b int = \"x\"\n"}]}),
        ),
        (
            "patch",
            json!({"file": go("a.go"), "search": "var a", "replace": "var aa"}),
        ),
        (
            "multipatch",
            json!({"edits": [{"file": go("a.go"), "search": "var aa", "replace": "var a"}]}),
        ),
        (
            "rename",
            json!({"file": go("b.go"), "line": 3, "symbol": "b", "new_name": "bb"}),
        ),
        (
            "update-file",
            json!({"files": [{"path": go("a.go"), "ops": [{"op": "insert", "at_line": 1, "content": "// a"}]}]}),
        ),
        (
            "replace-symbol",
            json!({"file": go("a.go"), "symbol": "a", "content": "var a int = \"y\""}),
        ),
        (
            "insert-symbol",
            json!({"file": go("a.go"), "symbol": "a", "where": "after", "content": "var z int = \"x\""}),
        ),
        ("delete-symbol", json!({"file": go("a.go"), "symbol": "z"})),
        (
            "move",
            json!({"moves": [{"from": go("b.go"), "to": go("c.go")}]}),
        ),
        ("rollback", json!({"file": go("a.go")})),
        ("delete-file", json!({"files": [go("c.go")]})),
        ("clean", json!({"dir": root})),
        (
            "exec",
            json!({"cmd": "printf 'package main\\n\\nvar e int = \\\"x\\\"\\n' > e.go"}),
        ),
        ("test", json!({"dir": root, "timeout": 120})),
        ("todo", json!({"list": true})),
        ("checkpoint", json!({"list": true})),
        // `tool` runs the method it names: its switch governs that call's answer too.
        (
            "tool",
            json!({"cmd": "write", "args": {"file": go("t.go"), "content": "package main\n\nvar t int = \"x\"\n"}}),
        ),
    ];
    let methods: Vec<String> = daemon.ok("info", json!({}))["mutating_methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    for method in &methods {
        assert!(
            calls.iter().any(|(m, _)| m == method),
            "no call here for the mutating method {method}"
        );
    }
    for (method, params) in calls.iter().filter(|(m, _)| methods.iter().any(|x| x == m)) {
        let mut off = params.clone();
        off["diagnostics"] = json!(false);
        let response = daemon.call(method, off);
        let result = response
            .get("result")
            .unwrap_or_else(|| panic!("{method}: {response}"));
        assert!(
            !result.to_string().contains("\"diagnostics\""),
            "{method}: {result}"
        );
        let schema = daemon.ok("schema", json!({"method": method}));
        assert_eq!(
            schema["schema"]["params"]["properties"]["diagnostics"]["type"], "boolean",
            "{method}"
        );
    }
    let error = daemon.err(
        "write",
        json!({"file": go("a.go"), "content": "package main\n", "diagnostics": "no"}),
    );
    assert_eq!(error["data"]["code"], "C210", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("`diagnostics`"),
        "{error}"
    );

    // Through `tool`, the named method's answer carries them.
    let result = daemon.ok(
        "tool",
        json!({"cmd": "write", "args": {"file": go("t.go"), "content": "package main\n\nvar t int = \"y\"\n"}}),
    );
    assert!(
        file_report(&result["result"], &go("t.go")).is_some(),
        "{result}"
    );
    // The broken files the calls above left behind go: what gopls says of them comes when it
    // comes, and the answers below are about a.go alone.
    daemon.ok(
        "delete-file",
        json!({"files": [go("t.go"), go("e.go")], "diagnostics": false}),
    );

    // On by default: the answer carries them, and the client renders the block from it. (A text
    // no earlier call wrote, so its error is new whatever the server saw of the calls above.)
    let result = settled_write(&daemon, &go("a.go"), |n| {
        format!("package main\n\nvar a int = \"on{n}\"\n")
    });
    let errors = items(file_report(&result, &go("a.go")), "error");
    assert!(!errors.is_empty(), "{result}");
    let mut out = Vec::new();
    coder::render(
        &mut out,
        wire::answers::Answer::Edit,
        true,
        &result.to_string(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let block = &text[text.find("[DIAGNOSTICS]\n").expect("a block")..];
    assert!(
        block.contains(
            "a.go: 1 error, 1 new\n  error 3:13 new [gopls IncompatibleAssign] cannot use"
        ),
        "{block}"
    );
    // A clean file: no block at all.
    let result = settled_write(&daemon, &go("a.go"), |n| {
        format!("package main\n\nvar a int = {n}\n")
    });
    let mut out = Vec::new();
    coder::render(
        &mut out,
        wire::answers::Answer::Edit,
        true,
        &result.to_string(),
    )
    .unwrap();
    assert!(!String::from_utf8(out).unwrap().contains("[DIAGNOSTICS]"));

    // The client's switch: CODER_AUTODIAG=off sends `diagnostics: false`.
    for (setting, expect_diagnostics) in [("off", false), ("on", true)] {
        let output = std::process::Command::new(common::coder_bin())
            .env("CODER_AUTODIAG", setting)
            .args(["--socket", daemon.socket.to_str().unwrap(), "call", "write"])
            .arg(
                // Broken either way: only the switch decides whether the answer says so.
                json!({"file": go("a.go"), "content": format!("package main\n\nvar a int = {setting:?}\n")})
                    .to_string(),
            )
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            printed.get("diagnostics").is_some(),
            expect_diagnostics,
            "{setting}: {printed}"
        );
    }
    drop(daemon);

    // The config switch.
    let (sandbox, daemon) = start("go", "autodiag: false\n", &[]);
    let result = daemon.ok("write", json!({"file": sandbox.root.join("a.go"), "content": "package main\n\nvar a int = \"x\"\n"}));
    assert!(result.get("diagnostics").is_none(), "{result}");
}

/// A Rust file outside any Cargo project: rust-analyzer would find no project, analyse nothing
/// and never run its check, so every edit would wait the deadline for nothing. The answer comes
/// at once and says why nothing was looked at; no server is started.
#[test]
fn a_rust_file_outside_a_cargo_project_is_answered_at_once_as_not_analysed() {
    let (sandbox, daemon) = start("go", TEST_CONFIG, &[]);
    let file = sandbox.root.join("loose.rs");
    let started = Instant::now();
    let result = daemon.ok(
        "write",
        json!({"file": file, "content": "fn main() {\n    let x: i32 = \"a\";\n}\n"}),
    );
    // Not the 90 s cold deadline of TEST_CONFIG; the rest of "at once" is what the answer says.
    assert!(started.elapsed() < Duration::from_secs(45), "{result}");
    if result["diagnostics"]["unavailable"][0]["server"] == "rust-analyzer" {
        eprintln!("rust-analyzer is unavailable here: {result}");
        return;
    }
    let report = file_report(&result, &file).unwrap_or_else(|| panic!("{result}"));
    assert_eq!(
        report["unanalysed"][0]["server"], "rust-analyzer",
        "{result}"
    );
    let reason = report["unanalysed"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("no Cargo.toml or rust-project.json in this file's folder"),
        "{result}"
    );
    assert!(pending(Some(report)).is_empty(), "{result}");
    assert_eq!(server_pid(&daemon, "rust-analyzer"), None, "{result}");
    let mut out = Vec::new();
    coder::render(
        &mut out,
        wire::answers::Answer::Edit,
        true,
        &result.to_string(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("not analysed [rust-analyzer]: no Cargo.toml"),
        "{text}"
    );
}

/// A server whose binary is missing: the edit works, the answer names it `unavailable` with its
/// install hint, `info` says so, and the client prints no block.
#[test]
fn a_missing_server_is_unavailable_and_edits_still_work() {
    let empty = tempfile::tempdir().unwrap();
    let (sandbox, daemon) = start(
        "go",
        TEST_CONFIG,
        &[
            ("CODERD_SERVERS_DIR", empty.path().as_os_str()),
            ("PATH", empty.path().as_os_str()),
        ],
    );
    let file = sandbox.root.join("main.go");
    let result = daemon.ok(
        "patch",
        json!({"file": file, "search": "greet(\"world\")", "replace": "greet(42)"}),
    );
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("greet(42)"));
    let unavailable = &result["diagnostics"]["unavailable"][0];
    assert_eq!(unavailable["server"], "gopls", "{result}");
    assert!(
        unavailable["install"]
            .as_str()
            .unwrap()
            .contains("go install"),
        "{result}"
    );
    let mut out = Vec::new();
    coder::render(
        &mut out,
        wire::answers::Answer::Edit,
        true,
        &result.to_string(),
    )
    .unwrap();
    assert!(!String::from_utf8(out).unwrap().contains("[DIAGNOSTICS]"));
    let info = daemon.ok("info", json!({}));
    let gopls = info["language_servers"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "gopls")
        .unwrap()
        .clone();
    assert_eq!(gopls["state"], "unavailable", "{gopls}");
    // A file of a language without servers: no diagnostics at all, and info lists the language.
    let result = daemon.ok(
        "write",
        json!({"file": sandbox.root.join("notes.md"), "content": "# x\n"}),
    );
    assert!(result.get("diagnostics").is_none(), "{result}");
    assert!(info["language_servers"]["languages_without_servers"]
        .as_array()
        .unwrap()
        .contains(&json!("markdown")));
}

/// The server processes the daemon started (its children, or inside their sandbox wrapper and
/// namespace init) whose command is `name`.
fn child_processes(daemon: &Daemon, name: &str) -> usize {
    let daemon = daemon.child.id();
    // pid (comm) state ppid ...: the comm may hold spaces, so split after its ')'.
    let stat = |pid: u32| -> Option<(String, u32)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (comm, rest) = text.split_once('(')?.1.rsplit_once(')')?;
        let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
        Some((comm.to_string(), ppid))
    };
    // Below the daemon: a server runs inside its sandbox wrapper and the namespace's init. A
    // server's own children (gopls starts one to watch itself) are not servers.
    let below_daemon = |pid: u32| {
        let mut parent = stat(pid).map(|(_, ppid)| ppid);
        for _ in 0..3 {
            match parent {
                Some(ppid) if ppid == daemon => return true,
                Some(ppid) if ppid > 1 => match stat(ppid) {
                    Some((comm, _)) if comm.starts_with(name) => return false,
                    Some((_, next)) => parent = Some(next),
                    None => return false,
                },
                _ => return false,
            }
        }
        false
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| stat(*pid).is_some_and(|(comm, _)| comm.starts_with(name)))
        .filter(|pid| below_daemon(*pid))
        .count()
}

/// A server's instances in `info`, as (root, pid), once every one has a process.
fn started_instances(daemon: &Daemon, server: &str) -> Vec<(String, u64)> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let info = daemon.ok("info", json!({}));
        let servers = info["language_servers"]["servers"].as_array().unwrap();
        let entry = servers.iter().find(|s| s["name"] == server).unwrap();
        let instances = entry["instances"].as_array().unwrap();
        let started: Vec<(String, u64)> = instances
            .iter()
            .filter_map(|i| Some((i["root"].as_str()?.to_string(), i["pid"].as_u64()?)))
            .collect();
        if started.len() == instances.len() {
            return started;
        }
        assert!(Instant::now() < deadline, "{server} never started: {info}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Reads start one server per project, and a project is the outermost one holding the file: the
/// five member crates of a Cargo workspace share one rust-analyzer, the three modules a `go.work`
/// uses share one gopls, and a fourth module the `go.work` does not use gets its own.
#[test]
fn one_server_serves_a_whole_cargo_or_go_workspace() {
    let sandbox = Sandbox::empty();
    let crates = ["alpha", "beta", "gamma", "delta", "epsilon"];
    sandbox.write(
        "rs/Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    );
    for name in crates {
        sandbox.write(
            &format!("rs/crates/{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        );
        sandbox.write(
            &format!("rs/crates/{name}/src/lib.rs"),
            "pub fn answer() -> u32 {\n    42\n}\n",
        );
    }
    sandbox.write("go/go.work", "go 1.21\n\nuse (\n\t./a\n\t./b\n)\nuse ./c\n");
    for name in ["a", "b", "c", "d"] {
        sandbox.write(
            &format!("go/{name}/go.mod"),
            &format!("module example.com/{name}\n\ngo 1.21\n"),
        );
        sandbox.write(
            &format!("go/{name}/{name}.go"),
            &format!("package {name}\n\nfunc Answer() int {{ return 42 }}\n"),
        );
    }
    let daemon = Daemon::start_with_servers(&sandbox, TEST_CONFIG, &[]);
    for name in crates {
        let file = sandbox.root.join(format!("rs/crates/{name}/src/lib.rs"));
        daemon.ok("outline", json!({"file": file}));
    }
    for name in ["a", "b", "c", "d"] {
        let file = sandbox.root.join(format!("go/{name}/{name}.go"));
        daemon.ok("read", json!({"file": file}));
    }
    let root = |rel: &str| sandbox.root.join(rel).to_string_lossy().into_owned();
    let cases = [
        ("rust-analyzer", vec![root("rs")]),
        ("gopls", vec![root("go"), root("go/d")]),
    ];
    for (server, want) in cases {
        let info = daemon.ok("info", json!({}));
        let entry = &info["language_servers"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == server)
            .unwrap()
            .clone();
        if entry["state"] == "unavailable" {
            eprintln!("{server} is unavailable here: nothing to count");
            continue;
        }
        let mut roots: Vec<String> = started_instances(&daemon, server)
            .into_iter()
            .map(|(root, _)| root)
            .collect();
        roots.sort();
        assert_eq!(roots, want, "{server}");
        // Each wrapper execs its server a moment after its pid is known.
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut running = child_processes(&daemon, server);
        while running < want.len() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
            running = child_processes(&daemon, server);
        }
        assert_eq!(running, want.len(), "{server}");
    }
}
