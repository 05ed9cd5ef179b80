//! Versions and sessions over the real daemon: `read` returns the version an edit can expect, a
//! session remembers what it read, and line-number edits from an outdated read are refused.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::json;
use sha2::Digest;

fn replace_file(path: &std::path::Path, text: &str) {
    let temp = path.with_extension("swap");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, path).unwrap();
}

#[test]
fn read_returns_the_version_that_edits_expect() {
    let sandbox = Sandbox::empty();
    sandbox.write("a.txt", "one\ntwo\nthree\n");
    let daemon = Daemon::start(&sandbox, &[]);

    let window = daemon.ok("read", json!({"file": "a.txt", "start": 2, "end": 2}));
    let stat = daemon.ok("read", json!({"file": "a.txt", "stat": true}));
    let base64 = daemon.ok("read", json!({"file": "a.txt", "encoding": "base64"}));
    let batch = daemon.ok("read", json!({"paths": ["a.txt"]}));
    let version = window["version"].as_str().expect("a version").to_string();
    assert_eq!(version.len(), 16);
    assert_eq!(stat["version"], version);
    // `sha256` is what sha256sum prints; the version comes from the documents' own hash.
    let sha256: String = sha2::Sha256::digest(b"one\ntwo\nthree\n")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(stat["sha256"], sha256);
    assert_eq!(base64["version"], version);
    assert_eq!(batch["results"][0]["version"], version);

    // The version from the read is what an edit expects; the edit answers the next one.
    let edited = daemon.ok(
        "patch",
        json!({"file": "a.txt", "search": "two", "replace": "TWO", "expect_version": version, "backup": false}),
    );
    let next = edited["version"].as_str().unwrap().to_string();
    assert_ne!(next, version);
    assert_eq!(daemon.ok("read", json!({"file": "a.txt"}))["version"], next);

    // Another program changes the file: the old version is refused, with what changed.
    replace_file(&sandbox.root.join("a.txt"), "one\nTWO\nthree\nfour\n");
    let error = daemon.err(
        "patch",
        json!({"file": "a.txt", "search": "one", "replace": "1", "expect_version": next}),
    );
    assert_eq!(error["data"]["code"], "C212", "{error}");
    assert!(
        error["data"]["diff"].as_str().unwrap().contains("+four"),
        "{error}"
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("a.txt")).unwrap(),
        "one\nTWO\nthree\nfour\n"
    );
}

#[test]
fn a_line_edit_from_an_outdated_session_read_is_refused_until_it_reads_again() {
    let sandbox = Sandbox::empty();
    sandbox.write("a.txt", "one\ntwo\nthree\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let update = |session: &str| {
        daemon.call(
            "update-file",
            json!({"session": session, "files": [{"path": "a.txt", "ops": [
                {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "second"}]}]}),
        )
    };

    daemon.ok("read", json!({"file": "a.txt", "session": "s1"}));
    // Lines move under the session's feet.
    replace_file(&sandbox.root.join("a.txt"), "zero\none\ntwo\nthree\n");
    let refused = update("s1");
    assert_eq!(refused["error"]["data"]["code"], "C212", "{refused}");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("session `s1`"));
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("a.txt")).unwrap(),
        "zero\none\ntwo\nthree\n"
    );

    // A batch read counts as a read too; then the same edit lands.
    daemon.ok("read", json!({"paths": ["a.txt"], "session": "s1"}));
    assert!(update("s1").get("result").is_some());
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("a.txt")).unwrap(),
        "zero\nsecond\ntwo\nthree\n"
    );
    // The session's own edit counts as its read: a second line edit needs no new read.
    assert!(update("s1").get("result").is_some());
    // A session that never read the file may edit it (require_read_before_edit is off).
    assert!(update("s2").get("result").is_some());
}

#[test]
fn require_read_before_edit_refuses_an_unread_file() {
    let sandbox = Sandbox::empty();
    sandbox.write("a.txt", "one\n");
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "require_read_before_edit: true\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let patch = json!({"file": "a.txt", "search": "one", "replace": "two", "session": "s", "backup": false});
    let error = daemon.err("patch", patch.clone());
    assert_eq!(error["data"]["code"], "C212", "{error}");
    daemon.ok(
        "read",
        json!({"file": "a.txt", "stat": true, "session": "s"}),
    );
    daemon.ok("patch", patch);
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("a.txt")).unwrap(),
        "two\n"
    );
}

/// The store's use as `info` reports it: (documents, bytes).
fn held(daemon: &Daemon) -> (u64, u64) {
    let info = daemon.ok("info", json!({}));
    let docs = &info["documents"];
    (
        docs["documents"].as_u64().unwrap(),
        docs["bytes"].as_u64().unwrap(),
    )
}

/// Polls `info` (never touching the file) until `done`, for at most 30 s.
fn eventually(daemon: &Daemon, what: &str, done: impl Fn((u64, u64)) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let now = held(daemon);
        if done(now) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: still {now:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_watcher_refreshes_a_held_document_another_program_changes_or_removes() {
    let sandbox = Sandbox::empty();
    sandbox.write("a.txt", "small\n");
    let daemon = Daemon::start(&sandbox, &[]);
    daemon.ok("read", json!({"file": "a.txt"}));
    assert_eq!(held(&daemon), (1, 6));
    // Another program replaces it: the store holds the new content (and the old one as history)
    // without any request naming the file.
    replace_file(&sandbox.root.join("a.txt"), &"x".repeat(5000));
    eventually(&daemon, "refresh after a rename over it", |(_, bytes)| {
        bytes == 5006
    });
    // Rewritten in place, like a plain `>` redirect.
    std::fs::write(sandbox.root.join("a.txt"), "y".repeat(7000)).unwrap();
    eventually(&daemon, "refresh after an in-place write", |(_, bytes)| {
        bytes == 7000 + 5000 + 6
    });
    std::fs::remove_file(sandbox.root.join("a.txt")).unwrap();
    eventually(&daemon, "forgotten after removal", |(docs, _)| docs == 0);
}

/// The temp-file journal records names only while their files are staged: after the edits it is
/// empty again, however many edits ran.
#[test]
fn the_temp_file_journal_is_empty_between_edits() {
    let sandbox = Sandbox::empty();
    sandbox.write("a.txt", "0\n");
    let daemon = Daemon::start(&sandbox, &[]);
    for n in 1..=20 {
        daemon.ok(
            "write",
            json!({"file": "a.txt", "content": format!("{n}\n")}),
        );
    }
    let state = sandbox.dir.path().join("state/coderd");
    let journals: Vec<_> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().path().join("temp-files.journal"))
        .collect();
    assert_eq!(journals.len(), 1, "{journals:?}");
    assert_eq!(std::fs::metadata(&journals[0]).unwrap().len(), 0);
}
