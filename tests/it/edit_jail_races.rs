//! The jail for writes under races, over the real daemon.
//!
//! - A folder (and a file) on the edited paths is atomically exchanged with a symlink to outside
//!   (`renameat2(RENAME_EXCHANGE)`, so the path always exists) while clients run every mutating
//!   method through it; outside, a mirror holds the same names. Not one byte outside may change,
//!   and no entry may appear or vanish there.
//! - `create-file` with `overwrite: false` races another program creating the same file with
//!   `O_EXCL`: exactly one of them wins, and the file holds the winner's bytes.

use crate::common;

use common::{snapshot, Client, Daemon, Sandbox};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The names the raced folder holds, inside and in the outside mirror.
const NAMES: [&str; 9] = [
    "a.txt",
    "a.txt.bak",
    "p.txt",
    "q.txt",
    "u.txt",
    "m.txt",
    "victim.txt",
    "c-1.txt",
    "f.txt",
];

fn exchange(root: &Path, a: &str, b: &str) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        root.join(a),
        rustix::fs::CWD,
        root.join(b),
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .unwrap();
}

/// Every mutating method, aimed at the raced folder `d` and the raced file `f.txt`.
fn mutating_calls(n: u64) -> Vec<(&'static str, Value)> {
    vec![
        (
            "write",
            json!({"file": "d/a.txt", "content": format!("inside {n}\n")}),
        ),
        (
            "write",
            json!({"file": "f.txt", "content": format!("inside {n}\n"), "backup": false}),
        ),
        (
            "write",
            json!({"file": "d/a.txt", "content": "appended\n", "append": true, "backup": false}),
        ),
        (
            "create-file",
            json!({"files": [{"path": format!("d/c-{n}.txt"), "content": "new\n"}]}),
        ),
        (
            "create-file",
            json!({"files": [{"path": "d/victim.txt", "content": "v\n", "overwrite": true}]}),
        ),
        (
            "patch",
            json!({"file": "d/p.txt", "search": "one", "replace": "two"}),
        ),
        (
            "patch",
            json!({"file": "d/p.txt", "search": "two", "replace": "one"}),
        ),
        (
            "patch",
            json!({"diff": "--- a/d/q.txt\n+++ b/d/q.txt\n@@ @@\n-one\n+two\n"}),
        ),
        (
            "patch",
            json!({"diff": "--- a/d/q.txt\n+++ b/d/q.txt\n@@ @@\n-two\n+one\n"}),
        ),
        (
            "multipatch",
            json!({"edits": [
            {"file": "d/p.txt", "search": "one", "replace": "two"},
            {"file": "d/q.txt", "search": "one", "replace": "two"}]}),
        ),
        (
            "multipatch",
            json!({"edits": [
            {"file": "d/p.txt", "search": "two", "replace": "one"},
            {"file": "d/q.txt", "search": "two", "replace": "one"}]}),
        ),
        (
            "update-file",
            json!({"files": [{"path": "d/u.txt", "ops": [
            {"op": "update_lines", "from_line": 1, "to_line": 1, "content": format!("u {n}")}]}]}),
        ),
        ("rollback", json!({"file": "d/a.txt"})),
        (
            "delete-file",
            json!({"paths": ["d/victim.txt", format!("d/c-{n}.txt")]}),
        ),
        (
            "move",
            json!({"moves": [{"from": "d/m.txt", "to": "d/m2.txt"}]}),
        ),
        (
            "move",
            json!({"moves": [{"from": "d/m2.txt", "to": "d/m.txt"}]}),
        ),
        ("clean", json!({"dir": "d"})),
    ]
}

/// The methods that have not yet both succeeded and been refused: every method must, or the race
/// was not run for it.
fn unraced(outcomes: &BTreeMap<String, u64>) -> Vec<&'static str> {
    let mut methods: Vec<&'static str> = mutating_calls(0).iter().map(|(m, _)| *m).collect();
    methods.dedup();
    methods.retain(|method| {
        let ok = outcomes.contains_key(&format!("{method} ok"));
        let refused = outcomes
            .keys()
            .any(|k| k.starts_with(&format!("{method} C")));
        !(ok && refused)
    });
    methods
}

#[test]
fn a_symlink_swapped_in_during_any_mutating_method_never_lets_a_byte_out() {
    let sandbox = Sandbox::empty();
    let mirror = sandbox.outside.join("d");
    std::fs::create_dir_all(&mirror).unwrap();
    for name in NAMES {
        std::fs::write(mirror.join(name), format!("OUTSIDE {name}\n")).unwrap();
        sandbox.write(&format!("d/{name}"), "one\n");
    }
    std::fs::write(sandbox.outside.join("f.txt"), "OUTSIDE f\n").unwrap();
    sandbox.write("f.txt", "inside\n");
    let root = sandbox.root.clone();
    std::os::unix::fs::symlink(&mirror, root.join("dir_link")).unwrap();
    std::os::unix::fs::symlink(sandbox.outside.join("f.txt"), root.join("file_link")).unwrap();
    let outside_before = snapshot(&sandbox.outside);
    let daemon = Daemon::start(&sandbox, &[]);

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), root.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                // Real for a while, so calls start there, then briefly links, so some are
                // caught between resolving and writing.
                std::thread::sleep(Duration::from_micros(300 + swaps % 7 * 100));
                exchange(&root, "d", "dir_link");
                exchange(&root, "f.txt", "file_link");
                std::thread::sleep(Duration::from_micros(swaps % 5 * 50));
                exchange(&root, "d", "dir_link");
                exchange(&root, "f.txt", "file_link");
                swaps += 1;
            }
            swaps
        })
    };
    let outcomes: Arc<Mutex<BTreeMap<String, u64>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..3u64)
        .map(|id| {
            let (socket, outcomes, done) = (daemon.socket.clone(), outcomes.clone(), done.clone());
            std::thread::spawn(move || {
                let mut client = Client::connect(&socket);
                let mut n = id * 1_000_000;
                while !done.load(Ordering::Relaxed) {
                    n += 1;
                    for (method, params) in mutating_calls(n) {
                        let response = client.call(method, params);
                        let outcome = match response["error"]["data"]["code"].as_str() {
                            Some(code) => format!("{method} {code}"),
                            None => format!("{method} ok"),
                        };
                        *outcomes.lock().unwrap().entry(outcome).or_default() += 1;
                    }
                }
            })
        })
        .collect();
    // 4 s of racing, and on until every method was raced (a busy machine runs fewer rounds a
    // second), for at most 2 minutes.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(4)
        || (!unraced(&outcomes.lock().unwrap()).is_empty()
            && started.elapsed() < Duration::from_secs(120))
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    done.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }
    let outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("write race: {swaps} swaps; {outcomes:?}");
    let outside_after = snapshot(&sandbox.outside);
    for (name, bytes) in &outside_before {
        match outside_after.get(name) {
            Some(now) if now == bytes => {}
            Some(now) => panic!("outside {name} changed: {:?}", String::from_utf8_lossy(now)),
            None => panic!("outside {name} vanished"),
        }
    }
    for name in outside_after.keys() {
        assert!(outside_before.contains_key(name), "{name} appeared outside");
    }
    assert!(swaps > 100, "the swapper barely ran ({swaps} swaps)");
    let unraced = unraced(&outcomes);
    assert!(unraced.is_empty(), "{unraced:?} not raced: {outcomes:?}");
    // Only the jail's refusals and the ordinary ones of these calls may come back.
    for key in outcomes.keys() {
        let code = key.rsplit(' ').next().unwrap();
        assert!(
            ["ok", "C210", "C211", "C212", "C215", "C217"].contains(&code),
            "unexpected outcome {key}: {outcomes:?}"
        );
    }
}

#[test]
fn create_file_without_overwrite_races_another_creator_and_exactly_one_wins() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let (mut ours, mut theirs) = (0, 0);
    for n in 0..300 {
        let name = format!("race-{n}.txt");
        let path = sandbox.root.join(&name);
        // The other creator starts 0 to 2 ms after the call is sent, so either may come first.
        let delay = Duration::from_micros(n % 20 * 100);
        let creator = std::thread::spawn(move || {
            std::thread::sleep(delay);
            let created = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
            match created {
                Ok(mut file) => {
                    file.write_all(b"THEIRS\n").unwrap();
                    true
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
                Err(e) => panic!("{e}"),
            }
        });
        let response = daemon.call(
            "create-file",
            json!({"files": [{"path": name, "content": "OURS\n", "overwrite": false}]}),
        );
        let they_won = creator.join().unwrap();
        let we_won = response.get("result").is_some();
        let code = response["error"]["data"]["code"].as_str().unwrap_or("");
        assert!(
            we_won != they_won,
            "{name}: both or neither created it: {response}"
        );
        let bytes = std::fs::read(sandbox.root.join(&name)).unwrap();
        if we_won {
            assert_eq!(bytes, b"OURS\n", "{name}");
            ours += 1;
        } else {
            assert_eq!(code, "C217", "{name}: {response}");
            assert_eq!(bytes, b"THEIRS\n", "{name}");
            theirs += 1;
        }
    }
    eprintln!("create race: the daemon won {ours}, the other creator {theirs}");
    assert!(ours > 0 && theirs > 0, "the race was not exercised");
}

/// `move` from one root into another copies (mode kept) and deletes the source; into a
/// non-accessible path of the other root, or out of every root, it is refused and nothing moves.
#[test]
fn move_across_roots_copies_then_deletes_and_never_lands_outside_or_in_a_secret() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::empty();
    let second = sandbox.dir.path().canonicalize().unwrap().join("second");
    std::fs::create_dir_all(&second).unwrap();
    sandbox.write("run.sh", "echo hi\n");
    std::fs::set_permissions(
        sandbox.root.join("run.sh"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    sandbox.write("keep.txt", "keep\n");
    let daemon = Daemon::start(&sandbox, &["--root", second.to_str().unwrap()]);
    let outside_before = snapshot(&sandbox.outside);

    let moved = daemon.ok(
        "move",
        json!({"moves": [{"from": "run.sh", "to": second.join("bin/run.sh"), "parents": true}]}),
    );
    assert_eq!(moved["moved"][0]["how"], "copy", "{moved}");
    assert!(!sandbox.root.join("run.sh").exists());
    let landed = second.join("bin/run.sh");
    assert_eq!(std::fs::read(&landed).unwrap(), b"echo hi\n");
    let mode = std::fs::metadata(&landed).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);

    for (to, code) in [
        (second.join(".env"), "C211"),
        (second.join("secrets/k.txt"), "C211"),
        (sandbox.outside.join("keep.txt"), "C215"),
        (second.join("../outside/keep.txt"), "C215"),
    ] {
        let error = daemon.err("move", json!({"moves": [{"from": "keep.txt", "to": to}]}));
        assert_eq!(error["data"]["code"], code, "{}: {error}", to.display());
        assert_eq!(
            std::fs::read(sandbox.root.join("keep.txt")).unwrap(),
            b"keep\n"
        );
    }
    assert_eq!(snapshot(&sandbox.outside), outside_before);
    assert!(!second.join(".env").exists() && !second.join("secrets").exists());
}
