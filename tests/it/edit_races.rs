//! Edits under contention, over the real daemon: many clients multipatching overlapping sets of
//! files while another program keeps rewriting one of them.
//!
//! Every call inserts a token of its own into each file it names. Afterwards every file must be
//! well formed (never torn), every token of a call that succeeded must be there exactly once, and no
//! token of a call that failed may be there at all. Every call must come back (no deadlock).
//! The foreign writer checks, before each rewrite, that its previous rewrite is still on disk; a
//! regression is a foreign write an edit overwrote (the window between the final stamp check and
//! the rename), counted and reported.
//!
//! The run lasts `CODERD_RACE_SECS` seconds (30 by default, the bar).

use crate::common;

use common::{Client, Daemon, Rng, Sandbox};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Files every client draws from (plus the foreign one).
const FILES: usize = 16;
const CLIENTS: usize = 32;
/// Files per call.
const PER_CALL: usize = 8;
/// The file the foreign writer rewrites; it sorts last, so a stale compare-and-swap there comes
/// after the call's other files were published, and they must be restored.
const FOREIGN: &str = "z-foreign.txt";
/// No call may take longer than this (a deadlock would).
const CALL_LIMIT: Duration = Duration::from_secs(30);

fn run_seconds() -> u64 {
    std::env::var("CODERD_RACE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30)
}

fn file_name(i: usize) -> String {
    format!("f{i:02}.txt")
}

fn anchor(i: usize) -> String {
    format!("ANCHOR-{i:02}\n")
}

fn initial(i: usize) -> String {
    format!("// file {i:02}\n{}// end {i:02}\n", anchor(i))
}

/// What one call did.
struct Call {
    /// (file, token) pairs the call inserted or meant to insert.
    tokens: Vec<(String, String)>,
    ok: bool,
    /// The error code of a failed call.
    code: Option<String>,
    elapsed: Duration,
}

/// One client: calls until the deadline, each a multipatch over `PER_CALL` distinct files; one
/// call in six carries an anchor that does not exist, so the whole call must fail.
fn client(daemon_socket: &Path, id: usize, deadline: Instant) -> Vec<Call> {
    let mut client = Client::connect(daemon_socket);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((id as u64 + 1) * 0x1000_0001));
    let mut calls = Vec::new();
    let mut seq = 0;
    while Instant::now() < deadline {
        seq += 1;
        let mut chosen: Vec<usize> = Vec::new();
        while chosen.len() < PER_CALL {
            // Index FILES stands for the foreign file, drawn like the others.
            let i = rng.below(FILES + 1);
            if !chosen.contains(&i) {
                chosen.push(i);
            }
        }
        let doomed = (rng.below(6) == 0).then(|| rng.below(PER_CALL));
        let mut edits = Vec::new();
        let mut tokens = Vec::new();
        for (k, &i) in chosen.iter().enumerate() {
            let (file, anchor) = match i {
                FILES => (FOREIGN.to_string(), "ANCHOR-F\n".to_string()),
                _ => (file_name(i), anchor(i)),
            };
            let token = format!("tok c{id} n{seq} {file}");
            let search = match doomed == Some(k) {
                true => format!("MISSING-{anchor}"),
                false => anchor.clone(),
            };
            edits.push(
                json!({"file": file, "search": search, "replace": format!("{anchor}{token}\n")}),
            );
            tokens.push((file, token));
        }
        let params = json!({"edits": edits, "backup": rng.below(2) == 0});
        let started = Instant::now();
        let response = client.call("multipatch", params);
        let elapsed = started.elapsed();
        let code = response["error"]["data"]["code"]
            .as_str()
            .map(str::to_string);
        calls.push(Call {
            tokens,
            ok: response.get("result").is_some(),
            code,
            elapsed,
        });
    }
    calls
}

/// The foreign writer's tally.
#[derive(Default, Debug)]
struct Foreign {
    writes: u64,
    lost: u64,
}

/// Rewrites the foreign file every 10 ms, alternating an atomic rename with an in-place rewrite,
/// and counts rewrites that were gone (overwritten by an edit) by the time of the next one.
fn foreign_writer(root: &Path, stop: &AtomicBool) -> Foreign {
    let path = root.join(FOREIGN);
    let temp = root.join(".foreign-writer-temp");
    let mut tally = Foreign::default();
    let mut last = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let seen = text
            .lines()
            .find_map(|l| l.strip_prefix("FOREIGN-"))
            .and_then(|n| n.parse::<u64>().ok());
        if last > 0 && seen != Some(last) {
            tally.lost += 1;
            eprintln!("foreign write {last} lost: the file holds {seen:?}");
        }
        last += 1;
        let content = format!("ANCHOR-F\nFOREIGN-{last}\n");
        if last.is_multiple_of(2) {
            std::fs::write(&temp, &content).unwrap();
            std::fs::rename(&temp, &path).unwrap();
        } else {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .create(true)
                .open(&path)
                .unwrap();
            file.write_all(content.as_bytes()).unwrap();
        }
        tally.writes += 1;
        std::thread::sleep(Duration::from_millis(10));
    }
    tally
}

/// Checks every file is well formed and returns its token lines (with their counts).
fn token_lines(
    root: &Path,
    problems: &mut Vec<String>,
) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    for i in 0..FILES {
        let name = file_name(i);
        let text = std::fs::read_to_string(root.join(&name)).unwrap();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let well_formed = lines.len() >= 3
            && lines[0] == format!("// file {i:02}\n")
            && lines[1] == anchor(i)
            && lines[lines.len() - 1] == format!("// end {i:02}\n")
            && lines[2..lines.len() - 1]
                .iter()
                .all(|l| l.starts_with("tok c") && l.ends_with(&format!(" {name}\n")));
        if !well_formed {
            problems.push(format!("{name} is torn or malformed:\n{text}"));
        }
        let mut counts = BTreeMap::new();
        for line in &lines[2.min(lines.len())..] {
            if let Some(token) = line.strip_suffix('\n').filter(|l| l.starts_with("tok ")) {
                *counts.entry(token.to_string()).or_insert(0) += 1;
            }
        }
        out.insert(name, counts);
    }
    out
}

fn foreign_tokens(root: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(root.join(FOREIGN)).unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("tok "))
        .map(str::to_string)
        .collect()
}

#[test]
fn thirty_two_clients_multipatching_overlapping_files_never_tear_lose_or_deadlock() {
    let sandbox = Sandbox::empty();
    for i in 0..FILES {
        sandbox.write(&file_name(i), &initial(i));
    }
    sandbox.write(FOREIGN, "ANCHOR-F\nFOREIGN-0\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let seconds = run_seconds();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let stop = Arc::new(AtomicBool::new(false));
    let foreign = {
        let (root, stop) = (sandbox.root.clone(), stop.clone());
        std::thread::spawn(move || foreign_writer(&root, &stop))
    };
    let results: Arc<Mutex<Vec<Call>>> = Arc::default();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|id| {
            let (socket, results) = (daemon.socket.clone(), results.clone());
            std::thread::spawn(move || {
                let calls = client(&socket, id, deadline);
                results.lock().unwrap().extend(calls);
            })
        })
        .collect();
    for c in clients {
        c.join()
            .expect("a client thread failed (a call did not come back?)");
    }
    stop.store(true, Ordering::Relaxed);
    let foreign = foreign.join().unwrap();
    let calls = std::mem::take(&mut *results.lock().unwrap());

    let mut problems = Vec::new();
    let files = token_lines(&sandbox.root, &mut problems);
    let in_foreign = foreign_tokens(&sandbox.root);
    let mut codes: BTreeMap<String, usize> = BTreeMap::new();
    let mut slowest = Duration::ZERO;
    for call in &calls {
        slowest = slowest.max(call.elapsed);
        *codes
            .entry(call.code.clone().unwrap_or_else(|| "ok".into()))
            .or_default() += 1;
        for (file, token) in &call.tokens {
            if file == FOREIGN {
                // The foreign writer replaces the file whole: successes may be gone, but a failed
                // call's token must never be there.
                if !call.ok && in_foreign.contains(token) {
                    problems.push(format!("failed call's token {token:?} is in {file}"));
                }
                continue;
            }
            let count = files[file].get(token).copied().unwrap_or(0);
            match (call.ok, count) {
                (true, 1) | (false, 0) => {}
                (true, n) => problems.push(format!("successful token {token:?} found {n} times")),
                (false, n) => problems.push(format!(
                    "token {token:?} of a failed call ({:?}) found {n} times",
                    call.code
                )),
            }
        }
    }
    // Only two refusals are expected: the doomed anchor (C210) and a stale foreign file (C212).
    for code in codes.keys() {
        if !matches!(code.as_str(), "ok" | "C210" | "C212") {
            problems.push(format!("unexpected outcome {code}: {codes:?}"));
        }
    }
    if slowest > CALL_LIMIT {
        problems.push(format!("a call took {slowest:?}"));
    }
    let ok = codes.get("ok").copied().unwrap_or(0);
    eprintln!(
        "races: {seconds} s, {} calls ({codes:?}), slowest {slowest:?}; foreign writes {}, lost {} ({:.3} per 1,000)",
        calls.len(),
        foreign.writes,
        foreign.lost,
        foreign.lost as f64 * 1000.0 / foreign.writes.max(1) as f64
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        ok > 0 && codes.contains_key("C210"),
        "the race was not exercised: {codes:?}"
    );
    // The goal is under 1 lost foreign write in 1,000 (with a floor of 1, for short runs).
    assert!(
        foreign.lost * 1000 <= foreign.writes.max(1000),
        "{} of {} foreign writes were overwritten",
        foreign.lost,
        foreign.writes
    );
}
