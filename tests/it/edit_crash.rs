//! Crash safety over the real daemon: an edit (write, patch or multipatch) of files from 1 KB to
//! 10 MB is sent, the daemon is killed with SIGKILL at a random moment, and a new daemon is started
//! on the same socket. Every file must then be its old or its new content, never torn; no
//! temporary file may remain once the new daemon answers (its startup sweep); modes and symlinks
//! must be as they were; a `.bak` must be some earlier version of its file.
//!
//! `CODERD_CRASH_LOOPS` sets the number of kills (50 by default, for CI; `scripts/crash-edit.sh`
//! runs 500 over a release build). The kill delay is drawn up to the longest time the operation
//! has taken so far (doubled while none has been answered), so kills land before, during and
//! after the commit.

use crate::common;

use common::{Client, Daemon, Rng, Sandbox};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// The edited files: name, size, mode.
const FILES: [(&str, usize, u32); 4] = [
    ("small.txt", 1024, 0o644),
    ("src/mid.rs", 256 * 1024, 0o755),
    ("data/big.log", 10 * 1024 * 1024, 0o600),
    ("src/lib.rs", 64 * 1024, 0o640),
];
/// A symlink inside the workspace: edits go through it to its target, and it stays a link.
const LINK: (&str, &str) = ("link.rs", "src/lib.rs");
const TEMP_MARK: &str = ".coderd-tmp-";

fn loops() -> usize {
    std::env::var("CODERD_CRASH_LOOPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50)
}

/// Lines of 64 bytes, each starting with its unique number, so any line is a unique anchor.
fn content(size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size);
    let mut n = 0;
    while out.len() + 64 <= size {
        out.extend_from_slice(
            format!("{n:08} {:<54}\n", "original payload of the line").as_bytes(),
        );
        n += 1;
    }
    out
}

fn hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// One tracked file: its current bytes and every version it has had (for `.bak` checks).
struct Tracked {
    current: Vec<u8>,
    seen: HashSet<[u8; 32]>,
}

/// The line `n` of a content (without its newline), and its byte range.
fn line(bytes: &[u8], n: usize) -> (String, std::ops::Range<usize>) {
    let start = n * 64;
    (
        String::from_utf8(bytes[start..start + 63].to_vec()).unwrap(),
        start..start + 64,
    )
}

/// An edit of one line: its search text, replacement, and the file's content afterwards.
fn edit_line(bytes: &[u8], rng: &mut Rng, tag: &str) -> (String, String, Vec<u8>) {
    let n = rng.below(bytes.len() / 64);
    let (old, range) = line(bytes, n);
    let new = format!("{n:08} {:<54}", tag);
    let mut after = bytes.to_vec();
    after.splice(range, format!("{new}\n").into_bytes());
    (old, new, after)
}

/// What a loop sends, and what each touched file may hold afterwards.
struct Planned {
    method: &'static str,
    params: serde_json::Value,
    new: BTreeMap<&'static str, Vec<u8>>,
}

fn plan(files: &BTreeMap<&'static str, Tracked>, rng: &mut Rng, round: usize) -> Planned {
    let names: Vec<&'static str> = files.keys().copied().collect();
    let pick = |rng: &mut Rng| names[rng.below(names.len())];
    // Edits of src/lib.rs go through the link half of the time.
    let wire = |name: &str, rng: &mut Rng| match name == LINK.1 && rng.below(2) == 0 {
        true => LINK.0.to_string(),
        false => name.to_string(),
    };
    let tag = format!("edited in round {round}");
    let backup = rng.below(2) == 0;
    match rng.below(3) {
        0 => {
            let name = pick(rng);
            let (_, _, after) = edit_line(&files[name].current, rng, &tag);
            Planned {
                method: "write",
                params: json!({"file": wire(name, rng), "content": String::from_utf8(after.clone()).unwrap(), "backup": backup}),
                new: BTreeMap::from([(name, after)]),
            }
        }
        1 => {
            let name = pick(rng);
            let (search, replace, after) = edit_line(&files[name].current, rng, &tag);
            Planned {
                method: "patch",
                params: json!({"file": wire(name, rng), "search": search, "replace": replace, "backup": backup}),
                new: BTreeMap::from([(name, after)]),
            }
        }
        _ => {
            let mut new = BTreeMap::new();
            let mut edits = Vec::new();
            while new.len() < 3 {
                let name = pick(rng);
                if new.contains_key(name) {
                    continue;
                }
                let (search, replace, after) = edit_line(&files[name].current, rng, &tag);
                edits.push(json!({"file": wire(name, rng), "search": search, "replace": replace}));
                new.insert(name, after);
            }
            Planned {
                method: "multipatch",
                params: json!({"edits": edits, "backup": backup}),
                new,
            }
        }
    }
}

/// Every entry under `dir` whose name carries coderd's temp mark.
fn temp_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.contains(TEMP_MARK) {
            found.push(entry.path().display().to_string());
        }
        if entry.file_type().unwrap().is_dir() {
            found.extend(temp_files(&entry.path()));
        }
    }
    found
}

/// A started daemon that has finished starting (its sweep ran before it served the first call).
/// On a loaded machine the first connection after a `kill -9` is now and then reset, or the new
/// daemon finds the socket still taken; that is retried (twice, with the log shown), since what
/// this test checks is the files, not the restart.
fn restart(sandbox: &Sandbox) -> Daemon {
    let mut tries = 0;
    loop {
        tries += 1;
        let mut daemon = Daemon::start(sandbox, &[]);
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            daemon.ok("info", json!({}));
        }));
        if answered.is_ok() {
            return daemon;
        }
        let status = daemon.child.try_wait();
        let log = daemon.log_text();
        let tail: Vec<&str> = log.lines().rev().take(8).collect();
        assert!(tries < 3, "no restart answered: {status:?}\n{tail:#?}");
        eprintln!("restart {tries} did not answer ({status:?}); log tail: {tail:#?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn kill_9_during_edits_leaves_every_file_old_or_new_and_no_temp_files() {
    let sandbox = Sandbox::empty();
    let mut files: BTreeMap<&'static str, Tracked> = BTreeMap::new();
    for (name, size, mode) in FILES {
        let path = sandbox.root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = content(size);
        std::fs::write(&path, &bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        files.insert(
            name,
            Tracked {
                seen: HashSet::from([hash(&bytes)]),
                current: bytes,
            },
        );
    }
    std::os::unix::fs::symlink(LINK.1, sandbox.root.join(LINK.0)).unwrap();

    let mut rng = Rng(0x5eed_c0de_d00d_f00d);
    let mut longest: BTreeMap<&str, Duration> = BTreeMap::new();
    let mut answered: HashSet<&str> = HashSet::new();
    let (mut landed, mut kept, mut completed) = (0, 0, 0);
    let mut problems = Vec::new();
    let total = loops();
    let mut daemon = restart(&sandbox);
    for round in 0..total {
        let planned = plan(&files, &mut rng, round);
        for name in planned.new.keys() {
            files
                .get_mut(name)
                .unwrap()
                .seen
                .insert(hash(&planned.new[name]));
        }
        let longest_so_far = *longest
            .entry(planned.method)
            .or_insert(Duration::from_millis(300));
        let delay = longest_so_far.mul_f64(rng.below(1000) as f64 / 1000.0);
        let mut client = Client::connect(&daemon.socket);
        let started = Instant::now();
        client.send_line(
            &json!({"jsonrpc": "2.0", "id": 1, "method": planned.method, "params": planned.params})
                .to_string(),
        );
        client
            .stream
            .set_read_timeout(Some(delay.max(Duration::from_micros(1))))
            .unwrap();
        let mut answer = String::new();
        let finished =
            std::io::BufRead::read_line(&mut std::io::BufReader::new(&client.stream), &mut answer)
                .is_ok_and(|n| n > 0);
        if finished {
            completed += 1;
            answered.insert(planned.method);
            let took = started.elapsed();
            let entry = longest.get_mut(planned.method).unwrap();
            *entry = (*entry).max(took);
            if answer.contains("\"error\"") {
                problems.push(format!(
                    "round {round}: {} failed: {answer}",
                    planned.method
                ));
            }
        } else if !answered.contains(planned.method) {
            // Not one answered yet (a busy machine takes longer than the first guess): a longer
            // span next time, or no kill would land after the commit.
            let entry = longest.get_mut(planned.method).unwrap();
            *entry = (*entry * 2).min(Duration::from_secs(60));
        }
        daemon.child.kill().unwrap();
        daemon.child.wait().unwrap();
        drop(daemon);
        daemon = restart(&sandbox);
        check_round(
            &sandbox,
            &mut files,
            &planned,
            round,
            finished,
            &mut problems,
            &mut landed,
            &mut kept,
        );
        if problems.len() > 10 {
            break;
        }
    }
    let swept = daemon
        .log_text()
        .matches("left by an interrupted edit")
        .count();
    eprintln!(
        "crash: {total} kills, {completed} edits answered before the kill; touched files: {landed} new, {kept} old; {swept} restarts swept temp files"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The kills must land on both sides of the commit for the test to mean anything.
    assert!(landed > 0 && kept > 0, "{landed} new, {kept} old");
}

#[allow(clippy::too_many_arguments)]
fn check_round(
    sandbox: &Sandbox,
    files: &mut BTreeMap<&'static str, Tracked>,
    planned: &Planned,
    round: usize,
    finished: bool,
    problems: &mut Vec<String>,
    landed: &mut usize,
    kept: &mut usize,
) {
    let temps = temp_files(&sandbox.root);
    if !temps.is_empty() {
        problems.push(format!(
            "round {round}: temp files left after restart: {temps:?}"
        ));
    }
    for (name, _, mode) in FILES {
        let path = sandbox.root.join(name);
        let now = std::fs::read(&path).unwrap();
        let tracked = files.get_mut(name).unwrap();
        match planned.new.get(name) {
            Some(new) if &now == new => *landed += 1,
            Some(_) if now == tracked.current && !finished => *kept += 1,
            Some(_) if now == tracked.current => {
                problems.push(format!("round {round}: {name} answered but unchanged"))
            }
            _ if now == tracked.current => {}
            _ => problems.push(format!(
                "round {round}: {name} is neither old nor new ({} bytes)",
                now.len()
            )),
        }
        tracked.current = now;
        let actual = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        if actual != mode {
            problems.push(format!(
                "round {round}: {name} mode {actual:o}, expected {mode:o}"
            ));
        }
        let bak = sandbox.root.join(format!("{name}.bak"));
        if let Ok(bytes) = std::fs::read(&bak) {
            if !tracked.seen.contains(&hash(&bytes)) {
                problems.push(format!("round {round}: {name}.bak is no version of {name}"));
            }
        }
    }
    match std::fs::read_link(sandbox.root.join(LINK.0)) {
        Ok(target) if target == Path::new(LINK.1) => {}
        other => problems.push(format!(
            "round {round}: {} is no longer the link: {other:?}",
            LINK.0
        )),
    }
}
