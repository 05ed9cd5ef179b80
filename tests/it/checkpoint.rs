//! Checkpoints through a real daemon and real git: a seeded property test of restores over random
//! edit sequences, what snapshots leave out, the automatic snapshot before each change, backoff, off
//! switches and `$HOME` refusal, and a snapshot killed with SIGKILL.

use crate::common;

use common::{git, Daemon, Rng, Sandbox};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Paths the random edits use (folders `dir` and `dir/sub` are only ever folders).
const POOL: &[&str] = &[
    "a.txt",
    "b.md",
    "dir/c.rs",
    "dir/sub/d",
    "with space.txt",
    "ünïcode.txt",
    "dir/-dash",
    "quote\"q.txt",
    "run.sh",
];
/// Paths a restore must never touch: a secret (never captured) and an ignored file.
const UNTOUCHABLE: &[&str] = &[".env", "build.log"];

/// path → (bytes, permission bits)
type Files = BTreeMap<String, (Vec<u8>, u32)>;

/// Random file content: `prefix`, then up to 200 bytes, some of them newlines, NULs and non-UTF-8.
fn content(rng: &mut Rng, prefix: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz\n\0\xff ";
    let mut bytes = prefix.as_bytes().to_vec();
    for _ in 0..rng.below(200) {
        bytes.push(ALPHABET[rng.below(ALPHABET.len())]);
    }
    bytes
}

/// A workspace that is a user's repository with one commit, an ignored-files rule and a secret.
fn user_repo() -> Sandbox {
    let sandbox = Sandbox::empty();
    std::fs::write(sandbox.root.join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(sandbox.root.join("a.txt"), "first\n").unwrap();
    git(&sandbox.root, &["init", "-q"]);
    git(&sandbox.root, &["add", "-A"]);
    git(&sandbox.root, &["commit", "-qm", "user commit"]);
    sandbox
}

/// Every file under the root except the user's `.git`, with its bytes and permission bits.
fn files(root: &Path) -> Files {
    let mut out = Files::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(root.join(&rel)).unwrap().flatten() {
            let child = rel.join(entry.file_name());
            let meta = entry.path().symlink_metadata().unwrap();
            if child == Path::new(".git") {
                continue;
            }
            if meta.is_dir() {
                stack.push(child);
            } else {
                let bytes = std::fs::read(entry.path()).unwrap();
                let key = child.to_string_lossy().into_owned();
                out.insert(key, (bytes, meta.permissions().mode() & 0o777));
            }
        }
    }
    out
}

/// A digest of a folder tree: names, kinds, modes, contents.
fn tree_digest(dir: &Path) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = Vec::new();
    while let Some(path) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&path).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let meta = entry.path().symlink_metadata().unwrap();
            seen.push((entry.path(), meta.permissions().mode()));
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                hasher.update(entry.path().as_os_str().as_encoded_bytes());
                hasher.update(std::fs::read(entry.path()).unwrap_or_default());
            }
        }
    }
    hasher.update(format!("{seen:?}"));
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn write_file(root: &Path, rel: &str, bytes: &[u8], mode: u32) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// One random edit: create, modify, delete, rename or chmod.
fn random_edit(rng: &mut Rng, root: &Path) {
    let exists = |rel: &str| root.join(rel).exists();
    let all: Vec<&str> = POOL.iter().chain(UNTOUCHABLE).copied().collect();
    let path = all[rng.below(all.len())];
    let prefix = match path {
        ".env" => "SECRET-",
        "build.log" => "LOG-",
        _ => "",
    };
    match (rng.below(5), exists(path)) {
        (0, false) | (1, _) => {
            let mode = if rng.below(2) == 0 { 0o644 } else { 0o755 };
            write_file(root, path, &content(rng, prefix), mode);
        }
        (2, true) => std::fs::remove_file(root.join(path)).unwrap(),
        (3, true) if prefix.is_empty() => {
            let to = POOL[rng.below(POOL.len())];
            if !exists(to) {
                std::fs::create_dir_all(root.join(to).parent().unwrap()).unwrap();
                std::fs::rename(root.join(path), root.join(to)).unwrap();
            }
        }
        (4, true) => {
            let mode = std::fs::metadata(root.join(path))
                .unwrap()
                .permissions()
                .mode()
                & 0o777;
            let flipped = if mode == 0o755 { 0o644 } else { 0o755 };
            std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(flipped))
                .unwrap();
        }
        _ => {}
    }
}

fn captured(files: &Files) -> Files {
    files
        .iter()
        .filter(|(p, _)| !UNTOUCHABLE.contains(&p.as_str()))
        .map(|(p, v)| (p.clone(), v.clone()))
        .collect()
}

#[test]
fn restores_over_200_random_edit_sequences_bring_back_bytes_and_modes_and_keep_newer_files() {
    let sandbox = user_repo();
    let root = &sandbox.root;
    let user_git = tree_digest(&root.join(".git"));
    let user_head = git(root, &["rev-parse", "HEAD"]);
    let daemon = Daemon::start(&sandbox, &[]);
    let mut rng = Rng(0x5eed_c0de_2026);
    let mut snapshots: BTreeMap<String, Files> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for sequence in 0..200 {
        for _ in 0..1 + rng.below(4) {
            random_edit(&mut rng, root);
        }
        let created = daemon.ok(
            "checkpoint",
            json!({"create": true, "label": format!("s{sequence}")}),
        );
        let hash = created["hash"].as_str().unwrap().to_string();
        snapshots.insert(hash.clone(), captured(&files(root)));
        order.push(hash);
        for _ in 0..1 + rng.below(4) {
            random_edit(&mut rng, root);
        }
        // Mostly the latest snapshot, sometimes an older one.
        let back = rng.below(order.len().min(5));
        let target = order[order.len() - 1 - back].clone();
        let before = files(root);
        let restored = daemon.ok("checkpoint", json!({"restore": &target[..10]}));
        let after = files(root);
        let wanted = &snapshots[&target];
        let at = format!("sequence {sequence}, restore of {target}");
        for (path, expected) in wanted {
            assert_eq!(
                after.get(path),
                Some(expected),
                "{at}: {path} not restored exactly"
            );
        }
        let mut kept_newer = BTreeSet::new();
        for (path, was) in &before {
            if !wanted.contains_key(path) {
                assert_eq!(
                    after.get(path),
                    Some(was),
                    "{at}: {path} (not in the snapshot) was touched"
                );
                if !UNTOUCHABLE.contains(&path.as_str()) {
                    kept_newer.insert(path.clone());
                }
            }
        }
        for path in after.keys() {
            assert!(
                before.contains_key(path) || wanted.contains_key(path),
                "{at}: {path} appeared"
            );
        }
        let listed: BTreeSet<String> = restored["kept_newer"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect();
        assert_eq!(listed, kept_newer, "{at}: kept_newer");
        let undo = restored["undo"].as_str().unwrap().to_string();
        snapshots.insert(undo.clone(), captured(&before));
        order.push(undo);
    }
    assert_eq!(
        tree_digest(&root.join(".git")),
        user_git,
        "the user's .git changed"
    );
    assert_eq!(git(root, &["rev-parse", "HEAD"]), user_head);
    // Secrets and ignored files were never hashed into the store.
    let listing = daemon.ok("checkpoint", json!({"limit": 1000}));
    let store = PathBuf::from(listing["store"].as_str().unwrap());
    let objects = Command::new("git")
        .args(["cat-file", "--batch-all-objects", "--batch"])
        .env("GIT_DIR", &store)
        .output()
        .unwrap();
    assert!(objects.status.success());
    let text = String::from_utf8_lossy(&objects.stdout);
    assert!(!text.contains("SECRET-"), "a secret was captured");
    assert!(!text.contains("LOG-"), "an ignored file was captured");
    assert!(listing["checkpoints"].as_array().unwrap().len() > 200);
}

#[test]
fn snapshots_honour_ignore_files_not_info_exclude_and_report_large_files_and_nested_repositories() {
    let sandbox = user_repo();
    let root = &sandbox.root;
    // Not followed: a command could write it to hide every new file from the snapshots.
    std::fs::write(root.join(".git/info/exclude"), "private/\n").unwrap();
    // The user's global `core.excludesFile`, outside the roots: theirs to name (the repository's
    // own config may name only files inside the roots, tests/it/git.rs).
    let excludes = sandbox.dir.path().join("global-ignore");
    std::fs::write(&excludes, "*.tmp\n").unwrap();
    let xdg = sandbox.dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("git")).unwrap();
    let global = format!("[core]\n\texcludesFile = {}\n", excludes.display());
    std::fs::write(xdg.join("git/config"), global).unwrap();
    write_file(root, "private/p.txt", b"p", 0o644);
    write_file(root, "scratch.tmp", b"t", 0o644);
    write_file(root, "big.bin", &[7u8; 2000], 0o644);
    write_file(root, "keep.txt", b"k", 0o644);
    write_file(root, "server.key", b"k", 0o644);
    std::fs::create_dir_all(root.join("nested")).unwrap();
    git(&root.join("nested"), &["init", "-q"]);
    write_file(root, "nested/inner.txt", b"i", 0o644);
    let config = sandbox.dir.path().join("caps.yaml");
    std::fs::write(&config, "checkpoint_max_file_bytes: 1000\n").unwrap();
    let daemon = Daemon::start_env(
        &sandbox,
        &["--config", config.to_str().unwrap()],
        &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())],
    );
    let created = daemon.ok("checkpoint", json!({"create": true}));
    assert_eq!(created["skipped_large"], json!(["big.bin"]));
    assert_eq!(created["skipped_nested_repos"], json!(["nested/"]));
    assert_eq!(created["skipped_secrets"], 1);
    let store = daemon.ok("checkpoint", json!({}))["store"]
        .as_str()
        .unwrap()
        .to_string();
    let out = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", "refs/heads/checkpoints"])
        .env("GIT_DIR", &store)
        .output()
        .unwrap();
    let names = String::from_utf8_lossy(&out.stdout);
    assert_eq!(names, ".gitignore\na.txt\nkeep.txt\nprivate/p.txt\n");
    // A second snapshot with nothing changed makes no commit.
    let again = daemon.ok("checkpoint", json!({"create": true}));
    assert_eq!(again["created"], false);
    assert_eq!(again["hash"], created["hash"]);
    // Bad hashes: option-like, not hex, unknown.
    for bad in ["--orphan", "-p", "xyz1", "abc", "ABCDEF12"] {
        let error = daemon.err("checkpoint", json!({"restore": bad}));
        assert_eq!(error["data"]["code"], "C210", "{bad}: {error}");
    }
    let error = daemon.err("checkpoint", json!({"restore": "deadbeef"}));
    assert_eq!(error["data"]["code"], "C211");
    let error = daemon.err("checkpoint", json!({"create": true, "restore": "abcd"}));
    assert_eq!(error["data"]["code"], "C210");
}

#[test]
fn every_root_is_in_each_snapshot_and_one_restore_rewinds_them_all() {
    let sandbox = user_repo();
    let root = &sandbox.root;
    let lib = std::fs::canonicalize(sandbox.dir.path())
        .unwrap()
        .join("lib");
    write_file(&lib, "src/b.rs", b"fn b() {}\n", 0o644);
    write_file(&lib, "private/p.txt", b"p", 0o644);
    write_file(&lib, ".env", b"SECRET-lib", 0o644);
    git(&lib, &["init", "-q"]);
    // The second root's `info/exclude` is not followed (a command could write it to hide files).
    std::fs::write(lib.join(".git/info/exclude"), "private/\n").unwrap();
    write_file(root, "private/kept.txt", b"k", 0o644);
    let lib_git = tree_digest(&lib.join(".git"));
    let daemon = Daemon::start(&sandbox, &["--root", lib.to_str().unwrap()]);
    let created = daemon.ok("checkpoint", json!({"create": true, "label": "both"}));
    assert_eq!(created["created"], true);
    assert_eq!(created["skipped_secrets"], 1, "{created}");
    let hash = created["hash"].as_str().unwrap().to_string();
    let store = daemon.ok("checkpoint", json!({}))["store"]
        .as_str()
        .unwrap()
        .to_string();
    let out = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", &hash])
        .env("GIT_DIR", &store)
        .output()
        .unwrap();
    let primary = root.file_name().unwrap().to_str().unwrap();
    let expected = format!(
        "0-{primary}/.gitignore\n0-{primary}/a.txt\n0-{primary}/private/kept.txt\n1-lib/private/p.txt\n1-lib/src/b.rs\n"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    // Edits in both roots, and a new file in the second; one restore rewinds both.
    std::fs::write(root.join("a.txt"), "changed\n").unwrap();
    std::fs::write(lib.join("src/b.rs"), "changed\n").unwrap();
    std::fs::write(lib.join("new.txt"), "new\n").unwrap();
    let restored = daemon.ok("checkpoint", json!({"restore": &hash}));
    let lib_b = lib.join("src/b.rs").to_string_lossy().into_owned();
    let lib_new = lib.join("new.txt").to_string_lossy().into_owned();
    assert_eq!(restored["restored"], json!(["a.txt", lib_b]), "{restored}");
    assert_eq!(restored["kept_newer"], json!([lib_new]), "{restored}");
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"first\n");
    assert_eq!(std::fs::read(lib.join("src/b.rs")).unwrap(), b"fn b() {}\n");
    assert_eq!(std::fs::read(lib.join("new.txt")).unwrap(), b"new\n");
    // The snapshot taken before the restore undoes it, in both roots.
    daemon.ok("checkpoint", json!({"restore": restored["undo"]}));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"changed\n");
    assert_eq!(std::fs::read(lib.join("src/b.rs")).unwrap(), b"changed\n");
    // `list` shows workspace snapshots, newest first, counting files of every root.
    let listing = daemon.ok("checkpoint", json!({}));
    let entries = listing["checkpoints"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "{listing}");
    assert_eq!(entries[2]["label"], "both");
    assert_eq!(entries[2]["files_changed"], 5);
    assert_eq!(entries[1]["files_changed"], 3, "{listing}");
    // An edit in the second root only is snapshotted automatically too.
    daemon.ok(
        "write",
        json!({"file": lib.join("w.txt").to_str().unwrap(), "content": "w"}),
    );
    assert_eq!(auto_labels(&daemon), ["auto: before write"]);
    assert_eq!(
        tree_digest(&lib.join(".git")),
        lib_git,
        "the second root's .git changed"
    );
}

fn auto_labels(daemon: &Daemon) -> Vec<String> {
    daemon.ok("checkpoint", json!({}))["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .filter(|l| l.starts_with("auto:"))
        .collect()
}

fn write(daemon: &Daemon, n: usize) {
    daemon.ok(
        "write",
        json!({"file": "w.txt", "content": format!("{n}\n")}),
    );
}

/// No clock decides before a call that may change files it does not name (`exec`): each one
/// that follows a change is snapshotted first, and one with nothing changed since makes no
/// commit. An edit keeps the bytes it replaces itself, so its snapshot is a restore point taken
/// at most once per interval: a burst of edits makes one.
#[test]
fn every_change_is_snapshotted_before_the_next_command() {
    let sandbox = user_repo();
    let daemon = Daemon::start(&sandbox, &[]);
    for n in 0..4 {
        write(&daemon, n);
    }
    assert_eq!(auto_labels(&daemon), ["auto: before write"]);
    // The writes since are held by the snapshot before the command; then nothing changed.
    daemon.ok("exec", json!({"cmd": "true"}));
    daemon.ok("exec", json!({"cmd": "true"}));
    assert_eq!(
        auto_labels(&daemon),
        ["auto: before exec", "auto: before write"]
    );
    // A change by another program is snapshotted before the next command too.
    std::fs::write(sandbox.root.join("w.txt"), "saved by the user\n").unwrap();
    daemon.ok("exec", json!({"cmd": "true"}));
    assert_eq!(auto_labels(&daemon).len(), 3);
    let auto = &daemon.ok("checkpoint", json!({}))["auto"];
    assert_eq!(auto["taken"], 4);
    assert_eq!(auto["enabled"], true);
}

#[test]
fn a_dry_run_exec_runs_nothing_and_so_takes_no_automatic_snapshot() {
    let sandbox = user_repo();
    let daemon = Daemon::start(&sandbox, &[]);
    // Both spellings of the switch (agent keys are made canonical before the method sees them).
    for switch in ["dry_run", "dryRun"] {
        let decided = daemon.ok("exec", json!({"cmd": "touch made.txt", switch: true}));
        assert_eq!(decided["allowed"], true, "{decided}");
    }
    assert!(!sandbox.root.join("made.txt").exists());
    assert!(auto_labels(&daemon).is_empty());
    assert_eq!(daemon.ok("checkpoint", json!({}))["auto"]["taken"], 0);
    // The same command run for real is snapshotted first.
    daemon.ok("exec", json!({"cmd": "touch made.txt"}));
    assert!(sandbox.root.join("made.txt").exists());
    assert_eq!(auto_labels(&daemon), ["auto: before exec"]);
}

/// A FIFO named by the user's `include.path`: git would hang reading it. Each automatic snapshot
/// is refused at once instead, every edit's answer says it ran without one (however many failed
/// before), and snapshots resume as soon as the cause is gone.
#[test]
fn failing_automatic_snapshots_never_switch_off_and_each_edit_says_so() {
    let sandbox = user_repo();
    // Inside the roots (where `git status` lists nothing): outside them the include is C215.
    let fifo = sandbox.root.join(".git/include-fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let config_file = sandbox.root.join(".git/config");
    let original = std::fs::read_to_string(&config_file).unwrap();
    let hostile = format!("{original}[include]\n\tpath = {}\n", fifo.display());
    std::fs::write(&config_file, hostile).unwrap();
    let config = sandbox.dir.path().join("c.yaml");
    std::fs::write(&config, "checkpoint_interval_ms: 0\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    for n in 0..5 {
        let answer = daemon.ok(
            "write",
            json!({"file": "w.txt", "content": format!("{n}\n")}),
        );
        let warning = answer["checkpoint_warning"].as_str().unwrap_or_default();
        assert!(
            warning.contains(&format!("the last {} attempt(s) failed", n + 1))
                && warning.contains("a FIFO"),
            "write {n}: {answer}"
        );
    }
    let auto = daemon.ok("checkpoint", json!({}))["auto"].clone();
    assert_eq!(auto["enabled"], true, "{auto}");
    assert_eq!(auto["failures_in_a_row"], 5);
    assert_eq!(auto["taken"], 0);
    assert!(auto["last_error"]
        .as_str()
        .unwrap()
        .contains("include-fifo"));
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("w.txt")).unwrap(),
        "4\n"
    );
    // The cause gone, the next edit is snapshotted and carries no warning.
    std::fs::write(&config_file, original).unwrap();
    let answer = daemon.ok("write", json!({"file": "w.txt", "content": "5\n"}));
    assert!(answer.get("checkpoint_warning").is_none(), "{answer}");
    assert_eq!(auto_labels(&daemon), ["auto: before write"]);
    let auto = daemon.ok("checkpoint", json!({}))["auto"].clone();
    assert_eq!(
        (auto["taken"].as_u64(), auto["failures_in_a_row"].as_u64()),
        (Some(1), Some(0))
    );
}

#[test]
fn home_and_its_ancestors_are_never_snapshotted() {
    let sandbox = user_repo();
    let home = sandbox.root.join("me");
    std::fs::create_dir_all(&home).unwrap();
    for home in [sandbox.root.clone(), home] {
        let daemon = Daemon::start_env(&sandbox, &[], &[("HOME", home.to_str().unwrap())]);
        write(&daemon, 1);
        let listing = daemon.ok("checkpoint", json!({}));
        assert_eq!(listing["checkpoints"], json!([]));
        assert_eq!(listing["auto"]["enabled"], false);
        assert!(listing["auto"]["reason"]
            .as_str()
            .unwrap()
            .contains("$HOME"));
        let error = daemon.err("checkpoint", json!({"create": true}));
        assert_eq!(error["data"]["code"], "C214");
    }
}

/// Only the daemon's environment and config switch automatic snapshots off; a client's
/// environment does not (`coder` sends nothing; a request member is refused, see
/// tests/it/no_work_lost.rs).
#[test]
fn each_off_switch_stops_automatic_snapshots() {
    let sandbox = user_repo();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut command = Command::new(common::coder_bin());
    command
        .arg("--socket")
        .arg(&daemon.socket)
        .args(["call", "write", r#"{"file":"w.txt","content":"y"}"#])
        .env("CODER_CHECKPOINTS", "off");
    assert!(command.output().unwrap().status.success());
    assert_eq!(auto_labels(&daemon).len(), 1);
    drop(daemon);
    // The daemon's environment, and its config.
    let off_env = Daemon::start_env(&sandbox, &[], &[("CODER_CHECKPOINTS", "off")]);
    write(&off_env, 2);
    assert_eq!(auto_labels(&off_env).len(), 1);
    drop(off_env);
    let config = sandbox.dir.path().join("off.yaml");
    std::fs::write(&config, "checkpoints: false\n").unwrap();
    let off_config = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    write(&off_config, 3);
    let listing = off_config.ok("checkpoint", json!({}));
    assert_eq!(listing["checkpoints"].as_array().unwrap().len(), 1);
    assert!(listing["auto"]["reason"]
        .as_str()
        .unwrap()
        .contains("checkpoints: false"));
}

/// Processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let after_name = stat.rsplit(')').next().unwrap_or("");
        let ppid = after_name
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            found.push(child);
        }
    }
    found
}

#[test]
fn a_snapshot_killed_mid_way_leaves_nothing_that_blocks_the_next() {
    let sandbox = user_repo();
    for n in 0..1000 {
        write_file(
            &sandbox.root,
            &format!("many/{}/{n}.txt", n % 10),
            format!("{n}\n").as_bytes(),
            0o644,
        );
    }
    let mut daemon = Daemon::start(&sandbox, &[]);
    let store = PathBuf::from(
        daemon.ok("checkpoint", json!({}))["store"]
            .as_str()
            .unwrap(),
    );
    let socket = daemon.socket.clone();
    let request = std::thread::spawn(move || {
        let mut client = common::Client::connect(&socket);
        client.send_line(
            r#"{"jsonrpc":"2.0","id":1,"method":"checkpoint","params":{"create":true}}"#,
        );
        let mut line = String::new();
        use std::io::BufRead;
        let _ = std::io::BufReader::new(client.stream.try_clone().unwrap()).read_line(&mut line);
    });
    // Kill the daemon and its git as soon as git is at work.
    let pid = daemon.child.id();
    let started = Instant::now();
    while children(pid).is_empty() && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(Duration::from_millis(15));
    let gits = children(pid);
    for git in &gits {
        let _ = Command::new("kill").args(["-9", &git.to_string()]).status();
    }
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    let _ = request.join();
    // Whatever the kill left, plus the leftovers of a run killed at its worst moment.
    std::fs::write(store.join("index.lock"), b"").unwrap();
    std::fs::create_dir_all(store.join("objects/ab")).unwrap();
    std::fs::write(store.join("objects/ab/tmp_obj_XYZ"), b"partial").unwrap();
    // A keep killed mid-way leaves its copy of the index and that copy's lock; the next daemon
    // numbers its copies from the start again.
    for leftover in ["index.hold-0", "index.hold-0.lock", "index.hold-1.lock"] {
        std::fs::write(store.join(leftover), b"").unwrap();
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let created = daemon.ok(
        "checkpoint",
        json!({"create": true, "label": "after the kill"}),
    );
    assert_eq!(created["created"], true);
    assert!(!store.join("index.lock").exists());
    assert!(!store.join("objects/ab/tmp_obj_XYZ").exists());
    let listing = daemon.ok("checkpoint", json!({}));
    assert_eq!(listing["checkpoints"][0]["label"], "after the kill");
    // The snapshot is whole: restoring it after deleting files brings them all back.
    std::fs::remove_dir_all(sandbox.root.join("many/7")).unwrap();
    let restored = daemon.ok("checkpoint", json!({"restore": created["hash"]}));
    assert_eq!(restored["restored"].as_array().unwrap().len(), 100);
    assert!(sandbox.root.join("many/7/997.txt").exists());
    // Edits keep what they replace through copies of the index: none is blocked by the leftovers.
    for n in 0..3 {
        let file = format!("many/{n}/{n}.txt");
        daemon.ok("write", json!({"file": file, "content": "kept first\n"}));
    }
    assert!(!store.join("index.hold-0.lock").exists());
    assert!(!store.join("index.hold-1.lock").exists());
}

/// The workspace's attributes convert content for its own repository, never for snapshots: each
/// file comes back from a restore byte for byte (CRLF endings, an expanded `$Id$`, content a
/// filter would change, UTF-16).
#[test]
fn restores_are_byte_identical_whatever_the_workspaces_attributes_say() {
    let files: &[(&str, &[u8])] = &[
        ("crlf.txt", b"one\r\ntwo\r\n"),
        ("lf-under-crlf.txt", b"one\ntwo\n"),
        ("mixed.txt", b"one\r\ntwo\nthree\r\n"),
        (
            "ident.c",
            b"/* $Id: 0123456789abcdef0123456789abcdef01234567 $ */\n",
        ),
        ("filtered.up", b"lower case\n"),
        ("wide.u16", b"h\0i\0\n\0"),
    ];
    let sandbox = user_repo();
    std::fs::write(
        sandbox.root.join(".gitattributes"),
        "* text eol=crlf\n*.c ident\n*.up filter=up\n*.u16 text working-tree-encoding=UTF-16LE\n",
    )
    .unwrap();
    git(&sandbox.root, &["config", "filter.up.clean", "tr a-z A-Z"]);
    git(&sandbox.root, &["config", "filter.up.smudge", "cat"]);
    for (name, bytes) in files {
        std::fs::write(sandbox.root.join(name), bytes).unwrap();
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let created = daemon.ok("checkpoint", json!({"create": true}));
    for (name, _) in files {
        std::fs::write(sandbox.root.join(name), "changed\n").unwrap();
    }
    let restored = daemon.ok("checkpoint", json!({"restore": created["hash"]}));
    assert!(restored.get("failed").is_none(), "{restored}");
    for (name, bytes) in files {
        let now = std::fs::read(sandbox.root.join(name)).unwrap();
        assert_eq!(
            now,
            *bytes,
            "{name}: {:?} came back as {:?}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&now)
        );
    }
}

/// A file the target snapshot has and snapshots now leave out (over the size cap, ignored since)
/// is overwritten by a restore only once the undo snapshot holds its bytes: undoing the restore
/// gives them back.
#[test]
fn a_restore_never_overwrites_what_its_undo_snapshot_does_not_hold() {
    let sandbox = user_repo();
    let config = sandbox.dir.path().join("caps.yaml");
    std::fs::write(&config, "checkpoint_max_file_bytes: 1000\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let root = &sandbox.root;
    std::fs::write(root.join("data.bin"), b"small then\n").unwrap();
    std::fs::write(root.join("build.out"), b"built then\n").unwrap();
    let then = daemon.ok("checkpoint", json!({"create": true}));
    // Both go away and a snapshot records it; then they come back as files snapshots leave out.
    std::fs::remove_file(root.join("data.bin")).unwrap();
    std::fs::remove_file(root.join("build.out")).unwrap();
    daemon.ok("checkpoint", json!({"create": true}));
    let big: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(root.join("data.bin"), &big).unwrap();
    std::fs::write(root.join("build.out"), b"precious, made since\n").unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\nbuild.out\n").unwrap();

    let restored = daemon.ok("checkpoint", json!({"restore": then["hash"]}));
    let mut held: Vec<&str> = restored["undo_also_holds"]
        .as_array()
        .unwrap_or_else(|| panic!("{restored}"))
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    held.sort();
    // `build.out` is ignored by a `.gitignore` changed since the daemon's first snapshot, which
    // snapshots no longer follow (their own rules pick it), so the undo snapshot holds it anyway.
    assert_eq!(held, ["data.bin"], "{restored}");
    assert_eq!(
        std::fs::read(root.join("data.bin")).unwrap(),
        b"small then\n"
    );
    assert_eq!(
        std::fs::read(root.join("build.out")).unwrap(),
        b"built then\n"
    );

    let undone = daemon.ok("checkpoint", json!({"restore": restored["undo"]}));
    assert!(undone.get("failed").is_none(), "{undone}");
    assert_eq!(std::fs::read(root.join("data.bin")).unwrap(), big);
    assert_eq!(
        std::fs::read(root.join("build.out")).unwrap(),
        b"precious, made since\n"
    );
}

/// A snapshot killed after hashing into its index but before its commit leaves the index ahead of
/// the last snapshot. The next snapshot is what the index holds even though nothing changed since,
/// so a restore's undo still holds the file's present bytes.
#[test]
fn a_snapshot_after_an_index_left_ahead_of_the_last_one_holds_what_the_index_holds() {
    let sandbox = user_repo();
    let daemon = Daemon::start(&sandbox, &[]);
    let root = &sandbox.root;
    std::fs::write(root.join("a.txt"), "v0\n").unwrap();
    let v0 = daemon.ok("checkpoint", json!({"create": true}));
    std::fs::write(root.join("a.txt"), "v1\n").unwrap();
    daemon.ok("checkpoint", json!({"create": true}));
    std::fs::write(root.join("a.txt"), "v2\n").unwrap();
    // What a snapshot killed between `update-index` and `update-ref` leaves behind.
    let store = daemon.ok("checkpoint", json!({}))["store"]
        .as_str()
        .unwrap()
        .to_string();
    let hashed = Command::new("git")
        .env("GIT_DIR", &store)
        .env("GIT_WORK_TREE", root)
        .env("GIT_INDEX_FILE", format!("{store}/index"))
        .args(["update-index", "--add", "--", "a.txt"])
        .current_dir(root)
        .status()
        .unwrap();
    assert!(hashed.success());
    let restored = daemon.ok("checkpoint", json!({"restore": v0["hash"]}));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"v0\n");
    daemon.ok("checkpoint", json!({"restore": restored["undo"]}));
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"v2\n");
}
