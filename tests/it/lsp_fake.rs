//! The language-server client against a scripted server (`tests/lsp/fake_server.py`): the protocol
//! edge cases real servers show only now and then (publishes without versions, stale publishes,
//! open progress, a crash mid-session, a server that cannot start, junk between frames), each on
//! demand. The fake is added through the config's `lsp.servers`, as a user would add a server.
//! tests/it/lsp.rs drives the real servers; this suite is in addition to it, never instead.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lsp/fake_server.py");

/// The config's `lsp` section with the fake serving Ruby, started with `flags`.
fn config(flags: &[&str], extra: Value) -> String {
    let mut server = json!({
        "name": "fake",
        "command": FAKE,
        "args": flags,
        "languages": ["ruby"],
        "install": "tests/lsp/fake_server.py",
    });
    if flags.contains(&"--check") {
        server["check_progress"] = json!("fake/check");
    }
    // A server writes only where its entry says (it runs in the sandbox): the fake's log folder.
    if let Some(log) = flags.iter().skip_while(|f| **f != "--log").nth(1) {
        let folder = Path::new(log).parent().unwrap();
        server["writable"] = json!([folder]);
    }
    let mut lsp = json!({
        "warm_deadline_ms": 4000,
        "cold_deadline_ms": 8000,
        "servers": [server],
    });
    if let (Some(lsp), Some(extra)) = (lsp.as_object_mut(), extra.as_object()) {
        lsp.extend(extra.clone());
    }
    // JSON is YAML.
    json!({ "lsp": lsp }).to_string()
}

struct Fake {
    sandbox: Sandbox,
    daemon: Daemon,
    config: PathBuf,
}

impl Fake {
    fn start(flags: &[&str], extra: Value) -> Fake {
        Fake::with_config(&self::config(flags, extra))
    }

    fn with_config(text: &str) -> Fake {
        let sandbox = Sandbox::empty();
        let config = sandbox.dir.path().join("coderd.yaml");
        std::fs::write(&config, text).unwrap();
        let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
        Fake {
            sandbox,
            daemon,
            config,
        }
    }

    fn path(&self) -> PathBuf {
        self.sandbox.root.join("app.rb")
    }

    /// Replaces the config as one step (a temp file renamed over it): an in-place write is seen
    /// truncated first, and the daemon would run a moment on the empty config, with no fake.
    fn replace_config(&self, text: &str) {
        let temp = self.config.with_extension("yaml.new");
        std::fs::write(&temp, text).unwrap();
        std::fs::rename(&temp, &self.config).unwrap();
    }

    /// Writes `app.rb`; the whole answer.
    fn write(&self, content: &str) -> Value {
        self.daemon.ok(
            "write",
            json!({"file": self.path(), "content": content, "backup": false}),
        )
    }

    fn report(&self, result: &Value) -> Value {
        file_report(result, &self.path())
            .unwrap_or_else(|| panic!("no report for app.rb: {result}"))
    }

    /// Writes edits `edits` in turn, each answer required to be current; the answers.
    fn writes_current(&self, edits: std::ops::RangeInclusive<usize>) -> Vec<Value> {
        edits
            .map(|n| {
                let result = self.write(&text(n));
                assert_current(self, &result, n);
                result
            })
            .collect()
    }

    /// Writes edits from `n` on, 200 ms apart, until one is answered without anything pending
    /// (which must then be current); the number of the next edit.
    fn write_until_current(&self, mut n: usize, what: &str) -> usize {
        eventually(what, Duration::from_secs(60), || {
            let result = self.write(&text(n));
            n += 1;
            match self.report(&result).get("pending") {
                None => {
                    assert_current(self, &result, n - 1);
                    Ok(())
                }
                Some(_) => Err(result.to_string()),
            }
        });
        n
    }

    /// Writes `text(0)`, `text(1)`, … 200 ms apart until an answer has nothing pending (the state
    /// a test waits for, such as the end of a first analysis); that answer.
    fn write_until_settled(&self, what: &str, text: impl Fn(usize) -> String) -> Value {
        let mut n = 0;
        eventually(what, Duration::from_secs(60), || {
            let result = self.write(&text(n));
            n += 1;
            match self.report(&result).get("pending") {
                None => Ok(result),
                Some(_) => Err(result.to_string()),
            }
        })
    }

    /// Asks `diagnostics` about `app.rb`, 200 ms apart, until it answers with exactly `expected`
    /// and nothing pending (a check run that ended, say).
    fn diagnostics_until(&self, what: &str, expected: &[&str]) {
        eventually(what, Duration::from_secs(60), || {
            let diagnostics = self
                .daemon
                .ok("diagnostics", json!({"files": [self.path()]}));
            let report = file_report(&json!({ "diagnostics": diagnostics }), &self.path());
            match report {
                Some(r) if messages(&r) == expected && r.get("pending").is_none() => Ok(()),
                _ => Err(diagnostics.to_string()),
            }
        })
    }

    /// Waits until the fake's instance is in `state`; its `info` entry.
    fn wait_for_state(&self, state: &str, within: Duration) -> Value {
        eventually(&format!("never {state}"), within, || {
            let info = self.fake_info();
            match info["instances"][0]["state"] == state {
                true => Ok(info),
                false => Err(info.to_string()),
            }
        })
    }

    fn fake_info(&self) -> Value {
        let info = self.daemon.ok("info", json!({}));
        info["language_servers"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "fake")
            .cloned()
            .unwrap_or_else(|| panic!("no fake server in info: {info}"))
    }
}

/// Tries `attempt` every 200 ms until it succeeds; fails after `within` with `what` and what the
/// last attempt saw.
fn eventually<T>(
    what: &str,
    within: Duration,
    mut attempt: impl FnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + within;
    loop {
        match attempt() {
            Ok(done) => return done,
            Err(seen) => assert!(Instant::now() < deadline, "{what}: {seen}"),
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn file_report(result: &Value, path: &Path) -> Option<Value> {
    result["diagnostics"]["files"]
        .as_array()?
        .iter()
        .find(|f| f["path"] == json!(path))
        .cloned()
}

fn messages(report: &Value) -> Vec<String> {
    report["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| i["message"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that a file's report has exactly these findings and no server pending (`answer` is
/// shown when it does not).
fn assert_complete(report: &Value, expected: &[&str], answer: &Value) {
    assert_eq!(messages(report), expected, "{answer}");
    assert!(report.get("pending").is_none(), "{answer}");
}

/// Asserts that a file's report lists `server` first among the pending, for a reason that
/// contains `why`; the reason, for more checks.
fn assert_pending(report: &Value, server: &str, why: &str, answer: &Value) -> String {
    assert_eq!(report["pending"][0]["server"], server, "{answer}");
    let reason = report["pending"][0]["reason"].as_str().unwrap();
    assert!(reason.contains(why), "{answer}");
    reason.to_string()
}

/// Edit `n`: odd ones have a BROKEN line (line 2), even ones are clean; every text is distinct.
fn text(n: usize) -> String {
    match n % 2 {
        1 => format!("# edit {n}\nBROKEN\n"),
        _ => format!("# edit {n}\nfine\n"),
    }
}

/// The findings of a current answer for edit `n`: exactly the BROKEN line's error, or none.
fn assert_current(fake: &Fake, result: &Value, n: usize) {
    let report = fake.report(result);
    assert!(report.get("pending").is_none(), "edit {n}: {result}");
    let expected: Vec<String> = match n % 2 {
        1 => vec!["broken at line 2".into()],
        _ => vec![],
    };
    assert_eq!(messages(&report), expected, "edit {n}: {result}");
}

#[test]
fn publishes_without_a_version_count_from_the_first_after_the_change() {
    let fake = Fake::start(&["--no-version", "--delay", "80"], json!({}));
    fake.writes_current(1..=8);
}

#[test]
fn a_set_published_again_for_the_same_text_is_new_against_the_text_before() {
    // Seen with intelephense on a busy machine: the second set's "before" was the first set, so
    // the edit's own error was answered as already there.
    let fake = Fake::start(&["--no-version", "--twice"], json!({}));
    for (n, result) in (1..=6).zip(fake.writes_current(1..=6)) {
        let report = fake.report(&result);
        for item in report["items"].as_array().into_iter().flatten() {
            assert_eq!(item["new"], true, "edit {n}: {result}");
        }
    }
}

#[test]
fn a_publish_for_an_older_version_is_never_shown() {
    // Each change: first a publish stamped with the version before (and its text's findings plus
    // a marker), then the current one.
    let fake = Fake::start(&["--stale-first", "--delay", "50"], json!({}));
    for result in fake.writes_current(1..=10) {
        assert!(!result.to_string().contains("stale finding"), "{result}");
    }
}

#[test]
fn an_open_progress_holds_the_answer_until_it_ends() {
    // An empty publish for the version comes at once, the real one 500 ms later inside a
    // progress: the 150 ms quiet period alone would answer "clean".
    let fake = Fake::start(&["--progress", "500"], json!({}));
    fake.write(&text(2));
    let started = Instant::now();
    let result = fake.write(&text(3));
    assert_current(&fake, &result, 3);
    assert!(started.elapsed() >= Duration::from_millis(500));
    let result = fake.write(&text(4));
    assert_current(&fake, &result, 4);
}

#[test]
fn pulled_diagnostics_follow_every_edit() {
    let fake = Fake::start(&["--pull"], json!({}));
    fake.writes_current(1..=6);
}

#[test]
fn junk_between_frames_is_skipped() {
    let fake = Fake::start(&["--junk"], json!({}));
    fake.writes_current(1..=4);
}

#[test]
fn a_server_that_never_answers_is_pending_by_the_deadline_never_stale() {
    let fake = Fake::start(
        &["--silent"],
        json!({"warm_deadline_ms": 600, "cold_deadline_ms": 1200}),
    );
    for n in 1..=2 {
        let started = Instant::now();
        let result = fake.write(&text(n));
        let report = fake.report(&result);
        assert_eq!(report["pending"][0]["server"], "fake", "{result}");
        assert!(messages(&report).is_empty(), "{result}");
        // By the 1.2 s deadline, not hanging (a hung pull would hold it for good).
        assert!(started.elapsed() < Duration::from_secs(30), "{result}");
        assert_eq!(
            std::fs::read_to_string(fake.path()).unwrap(),
            text(n),
            "the edit itself landed"
        );
    }
}

#[test]
fn a_crash_mid_session_restarts_the_server_and_replays_the_document() {
    let fake = Fake::start(&["--crash-on", "CRASH"], json!({}));
    assert_current(&fake, &fake.write(&text(1)), 1);
    let pid = fake.fake_info()["instances"][0]["pid"].clone();
    // The change that crashes it: the error of the text before must not be shown for it. (It
    // may be pending, or current from the restarted server if that came back by the deadline.)
    let result = fake.write("# CRASH\nfine\n");
    assert!(
        messages(&fake.report(&result)).is_empty(),
        "stale findings shown after a crash: {result}"
    );
    // After the 1 s backoff the server is back, with the document replayed.
    fake.write_until_current(2, "no restart");
    let info = fake.fake_info();
    let instance = &info["instances"][0];
    assert_eq!(instance["state"], "ready", "{info}");
    assert_ne!(instance["pid"], pid, "{info}");
    assert_eq!(instance["restarts_recent"], 1, "{info}");
    assert!(
        instance["last_error"]
            .as_str()
            .unwrap()
            .contains("crashing on CRASH"),
        "the crash's reason keeps the server's last words: {info}"
    );
}

#[test]
fn a_server_that_cannot_start_fails_after_five_tries_and_edits_still_work() {
    // Deadlines far longer than an answer takes: "at once" below is "not the deadline".
    let fake = Fake::start(
        &["--exit-at-start"],
        json!({"cold_deadline_ms": 30000, "warm_deadline_ms": 30000}),
    );
    let result = fake.write(&text(1));
    assert_eq!(fake.report(&result)["pending"][0]["server"], "fake");
    // Backoffs of 1, 2, 4 and 4 s between the five tries.
    let info = fake.wait_for_state("failed", Duration::from_secs(40));
    let instance = &info["instances"][0];
    assert_eq!(instance["restarts_recent"], 5, "{info}");
    assert!(
        instance["last_error"]
            .as_str()
            .unwrap()
            .contains("cannot start"),
        "{info}"
    );
    // A failed server answers at once, with its reason, and the edit lands.
    let started = Instant::now();
    let result = fake.write(&text(2));
    assert!(started.elapsed() < Duration::from_secs(15), "{result}");
    let pending = &fake.report(&result)["pending"][0];
    assert_eq!(pending["state"], "failed", "{result}");
    assert!(pending["reason"].as_str().unwrap().contains("cannot start"));
    assert_eq!(std::fs::read_to_string(fake.path()).unwrap(), text(2));
}

#[test]
fn config_servers_are_listed_chosen_and_applied_on_reload() {
    let fake = Fake::start(&["--silent"], json!({"warm_deadline_ms": 500}));
    let info = fake.fake_info();
    assert_eq!(info["source"], "config", "{info}");
    assert_eq!(info["languages"], json!(["ruby"]), "{info}");
    assert!(fake.report(&fake.write(&text(1))).get("pending").is_some());

    // A new definition replaces the running one: the next edit starts it.
    fake.replace_config(&config(&[], json!({})));
    let mut n = fake.write_until_current(2, "reload not applied");

    // `lsp.languages` choosing no server for Ruby: no diagnostics at all.
    fake.replace_config(&config(&[], json!({"languages": {"ruby": []}})));
    eventually("reload not applied", Duration::from_secs(20), || {
        let result = fake.write(&text(n));
        n += 1;
        match result.get("diagnostics") {
            None => Ok(()),
            Some(_) => Err(result.to_string()),
        }
    });
}

#[test]
fn a_check_run_adds_its_findings_once_it_ends_and_never_an_older_runs() {
    // Pull for its own findings; a 300 ms check on every save publishes the CHECKME lines.
    let fake = Fake::start(&["--pull", "--check", "300"], json!({}));
    let result = fake.write("BROKEN\nCHECKME\n");
    assert_complete(
        &fake.report(&result),
        &["broken at line 1", "check found line 2"],
        &result,
    );
    // The next save's run finds nothing and publishes nothing: the last run's finding, still the
    // latest published, is not this run's.
    let result = fake.write("fine\nfine too\n");
    assert!(messages(&fake.report(&result)).is_empty(), "{result}");
    let result = fake.write("CHECKME\n");
    assert_eq!(messages(&fake.report(&result)), ["check found line 1"]);
}

#[test]
fn a_project_only_server_leaves_files_outside_its_projects_at_once() {
    // rust-analyzer outside a Cargo project analyses nothing and never checks, so every edit
    // would wait for the deadline; the scripted server stands in for the rule's sake.
    // Deadlines far longer than an answer takes: "at once" is "not the deadline".
    let deadlines = json!({"warm_deadline_ms": 30000, "cold_deadline_ms": 30000});
    let mut config: Value =
        serde_json::from_str(&config(&["--pull", "--check", "300"], deadlines)).unwrap();
    config["lsp"]["servers"][0]["project_only"] = json!(true);
    config["lsp"]["servers"][0]["root_markers"] = json!(["fake.project"]);
    let fake = Fake::with_config(&config.to_string());
    let started = Instant::now();
    let result = fake.write("BROKEN\n");
    assert!(started.elapsed() < Duration::from_secs(15), "{result}");
    let report = fake.report(&result);
    assert_complete(&report, &[], &result);
    assert_eq!(report["unanalysed"][0]["server"], "fake", "{result}");
    let reason = report["unanalysed"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("no fake.project in this file's folder or above it"),
        "{result}"
    );
    assert_eq!(fake.fake_info()["instances"], json!([]));
    // In a project, the same server answers as always.
    let project = fake.sandbox.root.join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("fake.project"), "").unwrap();
    let file = project.join("app.rb");
    let result = fake.daemon.ok(
        "write",
        json!({"file": file, "content": "BROKEN\n", "backup": false}),
    );
    let report = file_report(&result, &file).unwrap_or_else(|| panic!("{result}"));
    assert_eq!(messages(&report), ["broken at line 1"], "{result}");
    assert!(report.get("unanalysed").is_none(), "{result}");
    assert_eq!(fake.fake_info()["instances"][0]["root"], json!(project));
    // A marker above the workspace root (a workspace rooted at a crate's `src/`): the project is
    // there, and the server gets the workspace root, as it finds the marker above it itself.
    std::fs::write(fake.sandbox.dir.path().join("fake.project"), "").unwrap();
    let file = fake.sandbox.root.join("other.rb");
    let result = fake.daemon.ok(
        "write",
        json!({"file": file, "content": "BROKEN\n", "backup": false}),
    );
    let report = file_report(&result, &file).unwrap_or_else(|| panic!("{result}"));
    assert_eq!(messages(&report), ["broken at line 1"], "{result}");
    let roots: Vec<Value> = fake.fake_info()["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["root"].clone())
        .collect();
    assert!(roots.contains(&json!(fake.sandbox.root)), "{roots:?}");
}

#[test]
fn a_long_load_holds_only_the_first_edit_for_the_cold_deadline() {
    // A first analysis of 20 s (rust-analyzer's of a big workspace takes 30 s and more), with
    // progress open meanwhile: the first edit waits the cold deadline, the next ones the warm.
    // The deadlines are far apart and the analysis outlasts them by far, so a slow machine
    // cannot blur one into the other.
    let fake = Fake::start(
        &["--pull", "--analysis", "20000"],
        json!({"warm_deadline_ms": 1000, "cold_deadline_ms": 10000}),
    );
    let started = Instant::now();
    let result = fake.write("BROKEN\n");
    assert!(started.elapsed() >= Duration::from_millis(9900), "{result}");
    assert_eq!(
        fake.report(&result)["pending"][0]["server"],
        "fake",
        "{result}"
    );
    for n in 2..=3 {
        let edit = Instant::now();
        let result = fake.write(&format!("BROKEN\n{n}\n"));
        assert!(edit.elapsed() < Duration::from_secs(5), "{result}");
        assert_eq!(
            fake.report(&result)["pending"][0]["server"],
            "fake",
            "{result}"
        );
    }
    // Loaded: answers are current again.
    let result = fake.write_until_settled("never loaded", |n| format!("BROKEN\nBROKEN\n{n}\n"));
    assert_complete(
        &fake.report(&result),
        &["broken at line 1", "broken at line 2"],
        &result,
    );
}

#[test]
fn a_check_that_ends_before_the_servers_first_analysis_answers_alone() {
    // The server's first analysis takes 20 s (rust-analyzer's of a project); its check 300 ms.
    // The deadlines are longer than the analysis: an answer that did not come from the check's
    // end would have both parts.
    let fake = Fake::start(
        &["--pull", "--check", "300", "--analysis", "20000"],
        json!({"warm_deadline_ms": 30000, "cold_deadline_ms": 30000}),
    );
    // Each edit made during that analysis is answered by its check (not by the warm deadline's
    // end, nor by the analysis').
    for (text, line) in [("BROKEN\nCHECKME\n", 2), ("BROKEN\nx\nCHECKME\n", 3)] {
        let edit = Instant::now();
        let result = fake.write(text);
        assert!(edit.elapsed() < Duration::from_secs(10), "{result}");
        let report = fake.report(&result);
        assert_eq!(
            messages(&report),
            [format!("check found line {line}")],
            "{result}"
        );
        assert_pending(&report, "fake", "own analysis was still running", &result);
    }
    // Once the analysis is done, both parts are in again.
    let result = fake.write_until_settled("the analysis never ended", |n| {
        format!("BROKEN\nCHECKME\nagain {n}\n")
    });
    assert_complete(
        &fake.report(&result),
        &["broken at line 1", "check found line 2"],
        &result,
    );
}

#[test]
fn a_check_cancelled_by_the_next_files_save_is_not_taken_for_the_first_files() {
    // A multipatch saves two files: the first one's run is cancelled by the second's save, and
    // only the run after both has the first file's finding.
    let fake = Fake::start(&["--pull", "--check", "300"], json!({}));
    let lib = fake.sandbox.root.join("lib.rb");
    std::fs::write(fake.path(), "start\n").unwrap();
    std::fs::write(&lib, "start\n").unwrap();
    let result = fake.daemon.ok(
        "multipatch",
        json!({"edits": [
            {"file": fake.path(), "search": "start", "replace": "CHECKME"},
            {"file": lib, "search": "start", "replace": "CHECKME"},
        ]}),
    );
    for path in [fake.path(), lib] {
        let report = file_report(&result, &path).unwrap_or_else(|| panic!("{result}"));
        assert_eq!(
            messages(&report),
            ["check found line 1"],
            "{path:?}: {result}"
        );
    }
}

#[test]
fn a_run_cancelled_by_another_clients_save_is_waited_past() {
    // The run app.rb's answer waits for is cancelled 200 ms in by a save of lib.rb from another
    // connection: its end is followed at once by the next run's begin, which is the one to wait
    // for (an end taken at face value would answer without app.rb's finding).
    let fake = Fake::start(&["--pull", "--check", "600"], json!({}));
    let lib = fake.sandbox.root.join("lib.rb");
    std::fs::write(&lib, "start\n").unwrap();
    let other = {
        let (socket, lib) = (fake.daemon.socket.clone(), lib.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            let mut client = common::Client::connect(&socket);
            client.call("write", json!({"file": lib, "content": "fine\n"}))
        })
    };
    let result = fake.write("CHECKME\n");
    assert_eq!(
        messages(&fake.report(&result)),
        ["check found line 1"],
        "{result}"
    );
    assert!(other.join().unwrap().get("error").is_none());
}

#[test]
fn a_check_still_running_at_the_deadline_leaves_the_servers_own_findings() {
    // A check of a minute: an answer that waited for it would take that long, and have its
    // finding.
    let fake = Fake::start(
        &["--pull", "--check", "60000"],
        json!({"warm_deadline_ms": 2000, "cold_deadline_ms": 10000}),
    );
    let started = Instant::now();
    let result = fake.write("BROKEN\nCHECKME\n");
    assert!(started.elapsed() < Duration::from_secs(30), "{result}");
    let report = fake.report(&result);
    assert_eq!(messages(&report), ["broken at line 1"], "{result}");
    assert_pending(
        &report,
        "fake (check)",
        "had not finished by the deadline",
        &result,
    );
}

#[test]
fn a_finding_a_check_clears_and_publishes_again_is_not_new() {
    // rust-analyzer's check clears the last run's findings when a run begins, then publishes
    // them again, without a version for files not open: the clear is not "before".
    let fake = Fake::start(
        &["--pull", "--check", "200", "--check-clears", "--no-version"],
        json!({}),
    );
    let new_flags = |result: &Value| -> Vec<(String, bool)> {
        let report = fake.report(result);
        assert!(report.get("pending").is_none(), "{result}");
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["message"].as_str().unwrap().into(), i["new"] == true))
            .collect()
    };
    let result = fake.write("CHECKME\n");
    assert_eq!(new_flags(&result), [("check found line 1".into(), true)]);
    let result = fake.write("CHECKME\nfine\n");
    assert_eq!(new_flags(&result), [("check found line 1".into(), false)]);
    let result = fake.write("CHECKME\nCHECKME\n");
    assert_eq!(
        new_flags(&result),
        [
            ("check found line 1".into(), false),
            ("check found line 2".into(), true)
        ]
    );
}

#[test]
fn a_finding_in_another_file_is_new_only_if_that_file_lacked_it_before_the_call() {
    // Each check covers every open document, so a finding in a file the call did not edit is
    // reported again and again; that file's version never changes, and it is not news.
    let fake = Fake::start(&["--pull", "--check", "200", "--check-clears"], json!({}));
    let other = fake.sandbox.root.join("other.rb");
    let write_other = |content: &str| {
        fake.daemon.ok(
            "write",
            json!({"file": other, "content": content, "backup": false}),
        )
    };
    write_other("CHECKME\n");
    let elsewhere = |result: &Value| -> Vec<(String, bool)> {
        let report = file_report(result, &other).unwrap_or_else(|| panic!("{result}"));
        assert_eq!(report["edited"], false, "{result}");
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["message"].as_str().unwrap().into(), i["new"] == true))
            .collect()
    };
    for content in ["fine\n", "fine\nagain\n"] {
        let result = fake.write(content);
        assert_eq!(elsewhere(&result), [("check found line 1".into(), false)]);
    }
    // Changed there by an earlier call: its findings were news of that call, not of this one.
    write_other("CHECKME\nCHECKME\n");
    let result = fake.write("fine\n");
    assert_eq!(
        elsewhere(&result),
        [
            ("check found line 1".into(), false),
            ("check found line 2".into(), false)
        ]
    );
}

#[test]
fn checks_that_never_begin_are_not_waited_for_again() {
    // A server whose checks on save are off (rust-analyzer with `checkOnSave = false` and
    // `check_progress` kept), here until the 5th save: the first edit waits the deadline for a
    // check, the next ones do not, until a check begins again. A run begins 300 ms after its
    // save, as rust-analyzer's some 60 ms after.
    let fake = Fake::start(
        &[
            "--pull",
            "--check",
            "200",
            "--checks-from",
            "5",
            "--check-late",
            "300",
        ],
        // Long enough for any machine to start the server within it, and to tell "waited for
        // the deadline" from "did not" by the clock.
        json!({"warm_deadline_ms": 10000, "cold_deadline_ms": 10000}),
    );
    let started = Instant::now();
    let result = fake.write("BROKEN\n");
    assert!(started.elapsed() >= Duration::from_millis(9900), "{result}");
    let report = fake.report(&result);
    assert_eq!(messages(&report), ["broken at line 1"], "{result}");
    let reason = report["pending"][0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("no check had begun"), "{result}");
    for n in 2..=3 {
        let edit = Instant::now();
        let result = fake.write(&format!("BROKEN\n{n}\n"));
        assert!(edit.elapsed() < Duration::from_secs(5), "{result}");
        let report = fake.report(&result);
        assert_eq!(messages(&report), ["broken at line 1"], "{result}");
        assert_pending(&report, "fake (check)", "no check has begun since", &result);
    }
    // The 4th save starts none either; the 5th does, late, so its edit is answered before (the
    // silence holds until a run begins); from then on checks are waited for: once one has
    // begun, an answer has the check's finding.
    fake.write("BROKEN\n4\n");
    fake.write("BROKEN\n5\n");
    let result = fake.write_until_settled("no check was waited for again", |n| {
        format!("BROKEN\nCHECKME\n{n}\n")
    });
    assert_complete(
        &fake.report(&result),
        &["broken at line 1", "check found line 2"],
        &result,
    );
}

#[test]
fn a_check_slower_than_the_deadline_is_not_waited_for_again() {
    // A workspace whose check takes 8 s: the first edit waits the 6 s cold deadline for it; once
    // a run has shown how long it takes, the next edits answer at once with the server's own
    // findings and say why the check is missing.
    let fake = Fake::start(
        &["--pull", "--check", "8000"],
        json!({"warm_deadline_ms": 1000, "cold_deadline_ms": 6000}),
    );
    let result = fake.write("BROKEN\nCHECKME\n");
    let report = fake.report(&result);
    assert_eq!(messages(&report), ["broken at line 1"], "{result}");
    let reason = report["pending"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("had not finished"), "{result}");
    fake.diagnostics_until(
        "the first check never ended",
        &["broken at line 1", "check found line 2"],
    );
    let started = Instant::now();
    let result = fake.write("fine\nBROKEN\nCHECKME\n");
    assert!(started.elapsed() < Duration::from_secs(4), "{result}");
    let report = fake.report(&result);
    assert_eq!(messages(&report), ["broken at line 2"], "{result}");
    let reason = assert_pending(&report, "fake (check)", "its last check took ", &result);
    // As the reason says, `diagnostics` once that check has ended adds its findings.
    assert!(reason.contains("`diagnostics` on the file"), "{result}");
    fake.diagnostics_until(
        "the second check never ended",
        &["broken at line 2", "check found line 3"],
    );
}

/// The document notifications the fake has received so far (`--log`).
fn received(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Waits until the fake has received a notification matching `wanted`.
fn wait_for(log: &Path, what: &str, wanted: impl Fn(&Value) -> bool) {
    eventually(
        &format!("never sent {what}"),
        Duration::from_secs(30),
        || {
            let seen = received(log);
            match seen.iter().any(&wanted) {
                true => Ok(()),
                false => Err(format!("{seen:?}")),
            }
        },
    );
}

#[test]
fn files_changed_by_others_moved_and_deleted_reach_the_server() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("received.jsonl");
    let fake = Fake::start(&["--log", log.to_str().unwrap()], json!({}));
    assert_current(&fake, &fake.write(&text(1)), 1);
    let uri = |name: &str| format!("file://{}", fake.sandbox.root.join(name).display());

    // Another program rewrites the open file: the server gets the new text with no call made.
    std::fs::write(fake.path(), "# written by another program\n").unwrap();
    wait_for(&log, "the outside change", |m| {
        m["method"] == "textDocument/didChange" && m["text"] == "# written by another program\n"
    });

    // A move closes the old name and opens the new one; a delete closes it.
    let moved = fake.sandbox.root.join("lib.rb");
    let result = fake.daemon.ok(
        "move",
        json!({"moves": [{"from": fake.path(), "to": moved}]}),
    );
    assert!(file_report(&result, &moved).is_some(), "{result}");
    wait_for(&log, "didClose of the old name", |m| {
        m["method"] == "textDocument/didClose" && m["uri"] == uri("app.rb")
    });
    wait_for(&log, "didOpen of the new name", |m| {
        m["method"] == "textDocument/didOpen" && m["uri"] == uri("lib.rb")
    });
    fake.daemon.ok("delete-file", json!({"files": [moved]}));
    wait_for(&log, "didClose of the deleted file", |m| {
        m["method"] == "textDocument/didClose" && m["uri"] == uri("lib.rb")
    });
}

#[test]
fn an_idle_server_is_stopped_and_the_next_edit_starts_it_again() {
    let fake = Fake::start(&[], json!({"idle_secs": 1}));
    assert_current(&fake, &fake.write(&text(1)), 1);
    // Servers are looked at every 10 s.
    let info = fake.wait_for_state("not_started", Duration::from_secs(60));
    assert!(info["instances"][0].get("pid").is_none(), "{info}");
    assert!(fake
        .daemon
        .log_text()
        .contains("stopping an idle language server"));
    assert_current(&fake, &fake.write(&text(2)), 2);
}

#[test]
fn servers_over_the_memory_budget_are_stopped() {
    let fake = Fake::start(&[], json!({"max_servers_rss_bytes": 1}));
    assert_current(&fake, &fake.write(&text(1)), 1);
    fake.wait_for_state("not_started", Duration::from_secs(60));
    assert!(fake
        .daemon
        .log_text()
        .contains("over max_servers_rss_bytes"));
    assert_current(&fake, &fake.write(&text(2)), 2);
}

#[test]
fn a_bad_server_entry_is_refused_naming_the_key() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(
        &config,
        r#"{"lsp": {"servers": [{"name": "x", "command": "x", "languages": ["cobol"]}]}}"#,
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_coderd"))
        .args(["--root", sandbox.root.to_str().unwrap(), "--config"])
        .arg(&config)
        .arg("--socket")
        .arg(sandbox.socket())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("lsp.servers[0].languages[0]"), "{stderr}");
}

#[test]
fn an_outline_starts_the_server_and_an_edit_during_its_first_analysis_waits_the_cold_deadline() {
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("received.jsonl");
    // Every answer takes 4 s: longer than the warm deadline, shorter than the cold one, and
    // longer than a slow machine takes from the warm-up's didOpen to the edit below.
    let fake = Fake::start(
        &["--delay", "4000", "--log", log.to_str().unwrap()],
        json!({"warm_deadline_ms": 600, "cold_deadline_ms": 20000}),
    );
    std::fs::write(fake.path(), text(0)).unwrap();
    std::fs::write(fake.sandbox.root.join("lib.rb"), "# lib\n").unwrap();
    fake.daemon.ok("outline", json!({"file": fake.path()}));
    let uri = format!("file://{}", fake.path().display());
    wait_for(&log, "didOpen of the outlined file", |m| {
        m["method"] == "textDocument/didOpen" && m["uri"] == uri && m["text"] == text(0)
    });
    // Ready, but its first answer (the warm-up's) is not in yet: the edit is still cold.
    fake.wait_for_state("ready", Duration::from_secs(30));
    let started = Instant::now();
    assert_current(&fake, &fake.write(&text(1)), 1);
    assert!(started.elapsed() >= Duration::from_millis(3900));
    // Running now: reading another file opens nothing more.
    fake.daemon
        .ok("read", json!({"file": fake.sandbox.root.join("lib.rb")}));
    std::thread::sleep(Duration::from_millis(500));
    let opened: Vec<Value> = received(&log)
        .into_iter()
        .filter(|m| m["method"] == "textDocument/didOpen")
        .collect();
    assert_eq!(opened.len(), 1, "{opened:?}");
}

#[test]
fn a_read_starts_the_server_unless_warm_on_read_is_off() {
    let fake = Fake::start(&[], json!({"warm_on_read": false}));
    std::fs::write(fake.path(), text(0)).unwrap();
    fake.daemon.ok("read", json!({"file": fake.path()}));
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(fake.fake_info()["instances"], json!([]));

    fake.replace_config(&config(&[], json!({})));
    eventually(
        "the read never started the server",
        Duration::from_secs(20),
        || {
            fake.daemon.ok("read", json!({"file": fake.path()}));
            let info = fake.fake_info();
            match info["instances"][0]["open_documents"] == 1 {
                true => Ok(()),
                false => Err(info.to_string()),
            }
        },
    );
}
