//! The git methods on real repositories built by real git (tests/fixtures/git/*.sh), through a
//! real daemon: every change kind and odd file names, the text rendering, and a repository whose
//! config names programs that must never run.

use crate::common;

use common::{git, Daemon, Sandbox, FIXTURES};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn build(script: &str, args: &[&Path]) {
    let out = Command::new("sh")
        .arg(Path::new(FIXTURES).join("git").join(script))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn odd_repo() -> (Sandbox, Daemon) {
    let sandbox = Sandbox::empty();
    build("odd-repo.sh", &[&sandbox.root]);
    let daemon = Daemon::start(&sandbox, &[]);
    (sandbox, daemon)
}

/// `coder`'s rendering of a git method's answer, by the kind its entry declares.
fn rendered(method: &str, result: &Value) -> String {
    use wire::answers::Answer;
    let answer = match method {
        "git-status" => Answer::GitStatus,
        "git-diff" => Answer::GitDiff,
        "git-log" => Answer::GitLog,
        "git-changed" => Answer::GitChanged,
        _ => Answer::GitBranch,
    };
    let mut out = Vec::new();
    coder::render(&mut out, answer, false, &result.to_string()).unwrap();
    String::from_utf8(out).unwrap()
}

/// path → porcelain code, for every entry.
fn codes(result: &Value, list: &str) -> BTreeMap<String, String> {
    result[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn git_status_reports_every_change_kind_and_odd_names_exactly() {
    let (_sandbox, daemon) = odd_repo();
    let status = daemon.ok("git-status", json!({}));
    assert_eq!(status["branch"]["head"], "main");
    assert_eq!(status["branch"]["upstream"], "origin/main");
    assert_eq!(status["branch"]["ahead"], 1);
    assert_eq!(status["branch"]["behind"], 0);
    let expected: BTreeMap<String, String> = [
        (".env", ".M"),
        ("kept.txt", ".M"),
        ("renamed.txt", "R."),
        ("staged.txt", "MM"),
        ("to-delete.txt", "D."),
        ("-dash.txt", "??"),
        ("café.txt", "??"),
        ("new\nline.txt", "??"),
        ("quote\"and\\back.txt", "??"),
    ]
    .iter()
    .map(|(p, c)| (p.to_string(), c.to_string()))
    .collect();
    assert_eq!(codes(&status, "entries"), expected);
    let entries = status["entries"].as_array().unwrap();
    let renamed = entries.iter().find(|e| e["path"] == "renamed.txt").unwrap();
    assert_eq!(renamed["orig_path"], "to-rename.txt");
    assert_eq!(renamed["index"], "renamed");
    assert_eq!(renamed["worktree"], "unmodified");
    let secret = entries.iter().find(|e| e["path"] == ".env").unwrap();
    assert_eq!(secret["non_accessible"], true);
    let text = rendered("git-status", &status);
    assert!(
        text.starts_with("## main...origin/main [ahead 1]\n"),
        "{text}"
    );
    assert!(
        text.contains("\nR  to-rename.txt -> renamed.txt\n"),
        "{text}"
    );
    assert!(text.contains("\nMM staged.txt\n"), "{text}");
    assert!(text.contains("\n?? new\nline.txt\n"), "{text}");
}

#[test]
fn git_changed_lists_each_file_once_and_staged_only_on_request() {
    let (_sandbox, daemon) = odd_repo();
    let all = daemon.ok("git-changed", json!({}));
    assert_eq!(codes(&all, "files").len(), 9);
    let staged = daemon.ok("git-changed", json!({"staged": true}));
    let names: Vec<&str> = staged["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["renamed.txt", "staged.txt", "to-delete.txt"]);
    let text = rendered("git-changed", &staged);
    assert_eq!(
        text,
        "to-rename.txt -> renamed.txt\nstaged.txt\nto-delete.txt\n"
    );
}

#[test]
fn git_diff_shows_work_tree_or_staged_changes_and_withholds_secrets() {
    let (sandbox, daemon) = odd_repo();
    let work = daemon.ok("git-diff", json!({}));
    let diff = work["diff"].as_str().unwrap();
    assert!(diff.contains("+two"), "{diff}");
    assert!(diff.contains("+again"), "{diff}");
    assert!(
        !diff.contains("SECRET"),
        "a secret's content leaked: {diff}"
    );
    assert_eq!(work["withheld"], json!([".env"]));
    let staged = daemon.ok("git-diff", json!({"staged": true}));
    let files: Vec<&str> = staged["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["renamed.txt", "staged.txt", "to-delete.txt"]);
    assert_eq!(staged["files"][0]["orig_path"], "to-rename.txt");
    assert!(staged["diff"]
        .as_str()
        .unwrap()
        .contains("rename from to-rename.txt"));
    let one = daemon.ok("git-diff", json!({"file": "kept.txt"}));
    assert_eq!(one["files"].as_array().unwrap().len(), 1);
    // The secret itself cannot be asked for.
    let error = daemon.err("git-diff", json!({"file": ".env"}));
    assert_eq!(error["data"]["code"], "C211");
    // A diff over the output cap is cut, with the exact count of what was left out.
    let big: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(sandbox.root.join("kept.txt"), &big).unwrap();
    let full = daemon.ok("git-diff", json!({"file": "kept.txt"}));
    let full_len = full["diff"].as_str().unwrap().len() as u64;
    let config = sandbox.dir.path().join("small.yaml");
    std::fs::write(&config, "max_output_bytes: 1000\n").unwrap();
    drop(daemon);
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let cut = daemon.ok("git-diff", json!({"file": "kept.txt"}));
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["diff"].as_str().unwrap().len(), 1000);
    assert_eq!(cut["omitted_bytes"].as_u64().unwrap(), full_len - 1000);
}

#[test]
fn git_log_and_git_branch_give_records_and_familiar_text() {
    let (_sandbox, daemon) = odd_repo();
    let log = daemon.ok("git-log", json!({"oneline": true, "limit": 1}));
    let commits = log["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 1);
    assert_eq!(commits[0]["subject"], "second: with a subject line");
    assert_eq!(commits[0]["author"], "Fixture Author");
    assert_eq!(commits[0]["email"], "fixture@example.com");
    assert_eq!(commits[0]["hash"].as_str().unwrap().len(), 40);
    let short = commits[0]["short_hash"].as_str().unwrap();
    assert_eq!(
        rendered("git-log", &log),
        format!("{short} second: with a subject line\n")
    );
    let all = daemon.ok("git-log", json!({}));
    assert_eq!(all["commits"].as_array().unwrap().len(), 2);
    let error = daemon.err("git-log", json!({"limit": 0}));
    assert_eq!(error["data"]["code"], "C210");

    let local = daemon.ok("git-branch", json!({}));
    assert_eq!(local["current"], "main");
    let names: Vec<&str> = local["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["feature", "main"]);
    let main = &local["branches"][1];
    assert_eq!(main["current"], true);
    assert_eq!(main["upstream"], "origin/main");
    assert_eq!(main["ahead"], 1);
    let all = daemon.ok("git-branch", json!({"all": true}));
    let remote = all["branches"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(remote["name"], "origin/main");
    assert_eq!(remote["remote"], true);
    let text = rendered("git-branch", &local);
    assert!(text.contains("* main "), "{text}");
    assert!(text.contains("[origin/main: ahead 1] second"), "{text}");
}

#[test]
fn a_folder_that_is_not_a_repository_is_c211() {
    let sandbox = Sandbox::fixture("basic");
    let daemon = Daemon::start(&sandbox, &[]);
    for method in [
        "git-status",
        "git-diff",
        "git-log",
        "git-changed",
        "git-branch",
    ] {
        let error = daemon.err(method, json!({}));
        assert_eq!(error["data"]["code"], "C211", "{method}: {error}");
        assert!(error["message"]
            .as_str()
            .unwrap()
            .contains("not a git repository"));
    }
    let error = daemon.err("git-status", json!({"dir": "/"}));
    assert_eq!(error["data"]["code"], "C215");
}

fn markers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_repository_whose_config_names_programs_gets_none_of_them_run() {
    let sandbox = Sandbox::empty();
    let marks = sandbox.dir.path().join("markers");
    build("hostile-repo.sh", &[&sandbox.root, &marks]);
    // The control: the same calls through plain git run the repository's programs.
    let control = sandbox.dir.path().join("control");
    let control_marks = sandbox.dir.path().join("control-markers");
    std::fs::create_dir_all(&control).unwrap();
    build("hostile-repo.sh", &[&control, &control_marks]);
    for args in [&["status"][..], &["diff"], &["diff", "--no-ext-diff"]] {
        Command::new("git")
            .args(args)
            .current_dir(&control)
            .output()
            .unwrap();
    }
    assert_eq!(
        markers(&control_marks),
        ["extdiff", "filter", "fsmonitor", "hook", "textconv"],
        "the fixture no longer makes plain git run its programs"
    );

    let daemon = Daemon::start(&sandbox, &[]);
    assert!(markers(&marks).is_empty());
    daemon.ok("git-status", json!({}));
    daemon.ok("git-changed", json!({}));
    let diff = daemon.ok("git-diff", json!({}));
    assert!(diff["diff"].as_str().unwrap().contains("+two"));
    daemon.ok("git-diff", json!({"staged": true}));
    daemon.ok("git-log", json!({"limit": 5}));
    daemon.ok("git-branch", json!({"all": true}));
    // The map reads the focus file's history (`git log --name-only`) through the same pin.
    daemon.ok("map", json!({"focus": ["a.txt"]}));
    let created = daemon.ok("checkpoint", json!({"create": true}));
    std::fs::write(sandbox.root.join("a.txt"), "three\n").unwrap();
    daemon.ok("checkpoint", json!({"restore": created["hash"]}));
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert!(
        markers(&marks).is_empty(),
        "programs named by the repository ran: {:?}",
        markers(&marks)
    );
}

#[test]
fn a_submodules_filter_and_a_filter_named_in_non_utf8_never_run() {
    let sandbox = Sandbox::empty();
    let marks = sandbox.dir.path().join("markers");
    build("hostile-nested.sh", &[&sandbox.root, &marks]);
    // The control: plain git runs both programs (on a copy, so the daemon's repository is as built).
    let control = sandbox.dir.path().join("control");
    let control_marks = sandbox.dir.path().join("control-markers");
    std::fs::create_dir_all(&control).unwrap();
    build("hostile-nested.sh", &[&control, &control_marks]);
    for args in [&["status"][..], &["diff"]] {
        Command::new("git")
            .args(args)
            .current_dir(&control)
            .output()
            .unwrap();
    }
    assert_eq!(
        markers(&control_marks),
        ["non-utf8", "submodule"],
        "the fixture no longer makes plain git run its programs"
    );

    let daemon = Daemon::start(&sandbox, &[]);
    let status = daemon.ok("git-status", json!({}));
    let listed = codes(&status, "entries");
    assert_eq!(
        listed.get("a.md").map(String::as_str),
        Some(".M"),
        "{status}"
    );
    daemon.ok("git-changed", json!({}));
    let diff = daemon.ok("git-diff", json!({}));
    assert!(diff["diff"].as_str().unwrap().contains("+ONE"), "{diff}");
    assert!(
        markers(&marks).is_empty(),
        "programs named by the repository ran: {:?}",
        markers(&marks)
    );
}

/// `include.path`, `includeIf`, `core.excludesFile` naming a FIFO (or a device): git would block
/// opening it until the call's deadline. Every git method refuses at once, naming the file.
#[test]
fn a_fifo_or_device_among_the_files_git_reads_is_refused_up_front() {
    let sandbox = Sandbox::empty();
    build("odd-repo.sh", &[&sandbox.root]);
    // Inside the root: a repository's config may name only files inside the roots (outside is
    // C215, `the_repository_is_pinned_inside_the_roots_*`).
    let fifo = sandbox.root.join("config-fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let fifo_text = fifo.to_str().unwrap();
    // Written into the config as text: plain git would hang on it too. A device cannot be made
    // inside the roots without privileges, and `/dev/zero` is outside them: C215 comes first.
    let config = sandbox.root.join(".git/config");
    let original = std::fs::read_to_string(&config).unwrap();
    let settings: [(&str, &str, &str); 3] = [
        ("[include]\n\tpath = ", fifo_text, "C214"),
        ("[includeIf \"gitdir:/\"]\n\tpath = ", fifo_text, "C214"),
        ("[core]\n\texcludesFile = ", "/dev/zero", "C215"),
    ];
    let daemon = Daemon::start(&sandbox, &[]);
    for (setting, value, code) in settings {
        std::fs::write(&config, format!("{original}{setting}{value}\n")).unwrap();
        for method in [
            "git-status",
            "git-diff",
            "git-changed",
            "git-log",
            "git-branch",
        ] {
            let error = daemon.err(method, json!({}));
            assert_eq!(error["data"]["code"], code, "{setting} {method}: {error}");
            assert_eq!(error["data"]["path"], value, "{setting} {method}: {error}");
        }
    }
    std::fs::write(&config, original).unwrap();
    daemon.ok("git-status", json!({}));
}

/// Secrets whose names are not UTF-8 are excluded from the diff by their exact bytes.
#[test]
fn git_diff_withholds_secrets_whose_names_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let sandbox = Sandbox::empty();
    let names: [&[u8]; 2] = [b"secrets/k\xff.txt", b"id_rsa\xfe"];
    std::fs::create_dir_all(sandbox.root.join("secrets")).unwrap();
    let file = |name: &[u8]| sandbox.root.join(std::ffi::OsStr::from_bytes(name));
    for name in names {
        std::fs::write(file(name), "SECRET-BEFORE\n").unwrap();
    }
    std::fs::write(sandbox.root.join("plain.txt"), "before\n").unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "core.hooksPath=/dev/null"])
            .args(args)
            .current_dir(&sandbox.root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&[
        "-c",
        "user.name=F",
        "-c",
        "user.email=f@x",
        "commit",
        "-qm",
        "secrets",
    ]);
    for name in names {
        std::fs::write(file(name), "SECRET-AFTER\n").unwrap();
    }
    std::fs::write(sandbox.root.join("plain.txt"), "after\n").unwrap();
    let daemon = Daemon::start(&sandbox, &[]);
    for params in [json!({}), json!({"staged": false, "context": 1})] {
        let diff = daemon.ok("git-diff", params);
        let text = diff["diff"].as_str().unwrap();
        assert!(text.contains("+after"), "{text}");
        assert!(
            !text.contains("SECRET"),
            "a secret's content leaked: {text}"
        );
        let withheld = diff["withheld"].as_array().unwrap();
        assert_eq!(withheld.len(), 2, "{diff}");
    }
}

const GIT_METHODS: [&str; 5] = [
    "git-status",
    "git-diff",
    "git-changed",
    "git-log",
    "git-branch",
];

/// Every git method's answer in the workspace's root, each checked to hold no byte of the outside
/// repository (`OUTSIDE-`): `context` names the case in a failure.
fn git_answers_without_outside_bytes(daemon: &Daemon, context: &str) -> Vec<(&'static str, Value)> {
    GIT_METHODS
        .iter()
        .map(|method| {
            let response = daemon.call(method, json!({}));
            let text = response.to_string();
            assert!(!text.contains("OUTSIDE-"), "{context} {method}: {text}");
            (*method, response)
        })
        .collect()
}

/// A repository outside the roots with one commit whose subject and file hold the outside secret.
fn outside_repository(sandbox: &Sandbox) -> std::path::PathBuf {
    let repo = sandbox.outside.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("secret.txt"), "OUTSIDE-SECRET-7f3a\n").unwrap();
    git(&repo, &["add", "secret.txt"]);
    git(&repo, &["commit", "-qm", "OUTSIDE-COMMIT"]);
    std::fs::write(repo.join("secret.txt"), "OUTSIDE-SECRET-7f3a changed\n").unwrap();
    repo
}

/// Writes `bytes` as a loose object of `repo`; its hash.
fn hash_object(repo: &Path, bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(["hash-object", "-w", "--stdin"])
        .current_dir(repo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// A branch of the workspace's repository naming the outside repository's commit, which only an
/// object store outside the roots holds.
fn steal_head(sandbox: &Sandbox, repo: &Path) {
    let outside = git(&sandbox.outside.join("repo"), &["rev-parse", "HEAD"]);
    git(repo, &["update-ref", "refs/heads/stolen", outside.trim()]);
}

/// Issue 32: git follows the repository's own pointers, and each one can lead out of the roots.
/// Each layout is laid out in a fresh workspace, shown to leak through plain git (the control),
/// then every git method (and a checkpoint, which reads the root's repository for its excludes)
/// is refused with C215 naming what points out, and no answer carries the outside secret.
#[test]
fn the_repository_is_pinned_inside_the_roots_whatever_points_out() {
    type Layout = fn(&Sandbox, &Path);
    let layouts: [(&str, Layout, &str); 8] = [
        (
            "core.worktree",
            |_, repo| {
                // The issue's attack: an index entry and a loose object for an outside file, and the
                // repository's work tree moved to the outside folder.
                let blob = hash_object(repo, b"x\n");
                let entry = format!("100644,{},secret.txt", blob.trim());
                git(repo, &["update-index", "--add", "--cacheinfo", &entry]);
                git(repo, &["config", "core.worktree", "../../outside/repo"]);
            },
            "core.worktree",
        ),
        (
            "a .git file",
            |s, _| {
                let root = &s.root;
                std::fs::remove_dir_all(root.join(".git")).unwrap();
                let named = s.outside.join("repo/.git");
                std::fs::write(root.join(".git"), format!("gitdir: {}\n", named.display()))
                    .unwrap();
            },
            "the `.git` file",
        ),
        (
            "a .git symlink",
            |s, _| {
                let root = &s.root;
                std::fs::remove_dir_all(root.join(".git")).unwrap();
                std::os::unix::fs::symlink(s.outside.join("repo/.git"), root.join(".git")).unwrap();
            },
            "the `.git` symlink",
        ),
        (
            "commondir",
            |s, repo| {
                let named = s.outside.join("repo/.git");
                std::fs::write(
                    repo.join(".git/commondir"),
                    format!("{}\n", named.display()),
                )
                .unwrap();
            },
            "commondir",
        ),
        (
            "objects/info/alternates",
            |s, repo| {
                let named = s.outside.join("repo/.git/objects");
                let file = repo.join(".git/objects/info/alternates");
                std::fs::write(file, format!("{}\n", named.display())).unwrap();
                steal_head(s, repo);
            },
            "alternates",
        ),
        (
            "a symlinked objects folder",
            |s, repo| {
                // The inside commit goes with the objects: HEAD moves to the stolen branch.
                let head = git(repo, &["symbolic-ref", "HEAD"]);
                std::fs::remove_file(repo.join(".git").join(head.trim())).unwrap();
                git(repo, &["symbolic-ref", "HEAD", "refs/heads/stolen"]);
                std::fs::remove_dir_all(repo.join(".git/objects")).unwrap();
                std::os::unix::fs::symlink(
                    s.outside.join("repo/.git/objects"),
                    repo.join(".git/objects"),
                )
                .unwrap();
                steal_head(s, repo);
            },
            "objects is a symlink",
        ),
        (
            "include.path",
            |s, repo| {
                let named = s.outside.join("repo/.git/config");
                git(repo, &["config", "include.path", named.to_str().unwrap()]);
            },
            "`include.path`",
        ),
        (
            "core.excludesFile",
            |s, repo| {
                let named = s.outside.join("repo/secret.txt");
                git(
                    repo,
                    &["config", "core.excludesFile", named.to_str().unwrap()],
                );
            },
            "`core.excludesfile`",
        ),
    ];
    for (name, lay_out, named) in layouts {
        let sandbox = Sandbox::empty();
        outside_repository(&sandbox);
        let root = sandbox.root.clone();
        git(&root, &["init", "-q"]);
        std::fs::write(root.join("inside.txt"), "inside\n").unwrap();
        git(&root, &["add", "inside.txt"]);
        git(&root, &["commit", "-qm", "inside commit"]);
        lay_out(&sandbox, &root);
        if name != "core.excludesFile" && name != "include.path" {
            // The control: plain git, run where the agent's repository is, shows outside content.
            let out = Command::new("git")
                .args(["log", "--all", "--format=%s", "-p"])
                .current_dir(&root)
                .output()
                .unwrap();
            let shown = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(
                    &Command::new("git")
                        .args(["diff"])
                        .current_dir(&root)
                        .output()
                        .unwrap()
                        .stdout,
                );
            assert!(
                shown.contains("OUTSIDE-"),
                "{name}: the layout no longer leads plain git outside: {shown}"
            );
        }
        let daemon = Daemon::start(&sandbox, &[]);
        for (method, response) in git_answers_without_outside_bytes(&daemon, name) {
            let error = &response["error"];
            assert_eq!(error["data"]["code"], "C215", "{name} {method}: {response}");
            let message = error["message"].as_str().unwrap();
            assert!(message.contains(named), "{name} {method}: {message}");
        }
        let snapshot = daemon.call("checkpoint", json!({"create": true}));
        assert!(
            !snapshot.to_string().contains("OUTSIDE-"),
            "{name}: {snapshot}"
        );
    }
}

/// A workspace inside a larger repository: the repository above the root is outside the jail, so
/// git does not find it (C211), and nothing of it is shown.
#[test]
fn a_repository_above_the_root_is_not_found() {
    let sandbox = Sandbox::empty();
    let base = sandbox.dir.path().canonicalize().unwrap();
    git(&base, &["init", "-q"]);
    std::fs::write(base.join("above.txt"), "OUTSIDE-ABOVE\n").unwrap();
    git(&base, &["add", "above.txt"]);
    git(&base, &["commit", "-qm", "OUTSIDE-ABOVE-COMMIT"]);
    let daemon = Daemon::start(&sandbox, &[]);
    for (method, response) in git_answers_without_outside_bytes(&daemon, "") {
        assert_eq!(
            response["error"]["data"]["code"], "C211",
            "{method}: {response}"
        );
    }
}

/// What stays inside the roots keeps working: a linked work tree (`.git` file, `commondir`), a
/// repository kept apart by `--separate-git-dir`, a nested repository, each with its own
/// history and changes.
#[test]
fn linked_work_trees_and_gitdir_files_inside_the_roots_still_work() {
    let sandbox = Sandbox::empty();
    let root = sandbox.root.clone();
    let main = root.join("main");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q", "-b", "trunk"]);
    std::fs::write(main.join("a.txt"), "a\n").unwrap();
    git(&main, &["add", "a.txt"]);
    git(&main, &["commit", "-qm", "main commit"]);
    git(&main, &["worktree", "add", "-q", "-b", "side", "../linked"]);
    std::fs::write(root.join("linked/a.txt"), "a changed\n").unwrap();
    let apart = root.join("apart");
    std::fs::create_dir_all(&apart).unwrap();
    let store = root.join("store.git");
    git(
        &apart,
        &[
            "init",
            "-q",
            "-b",
            "solo",
            "--separate-git-dir",
            store.to_str().unwrap(),
        ],
    );
    std::fs::write(apart.join("b.txt"), "b\n").unwrap();
    git(&apart, &["add", "b.txt"]);
    git(&apart, &["commit", "-qm", "apart commit"]);
    std::fs::write(apart.join("new.txt"), "new\n").unwrap();
    let daemon = Daemon::start(&sandbox, &[]);

    let linked = daemon.ok("git-status", json!({"dir": "linked"}));
    assert_eq!(linked["branch"]["head"], "side", "{linked}");
    assert_eq!(
        codes(&linked, "entries").get("a.txt").map(String::as_str),
        Some(".M")
    );
    let diff = daemon.ok("git-diff", json!({"dir": "linked"}));
    assert!(
        diff["diff"].as_str().unwrap().contains("+a changed"),
        "{diff}"
    );
    let log = daemon.ok("git-log", json!({"dir": "linked"}));
    assert_eq!(log["commits"][0]["subject"], "main commit", "{log}");
    let branches = daemon.ok("git-branch", json!({"dir": "main"}));
    assert_eq!(branches["current"], "trunk", "{branches}");

    let apart_status = daemon.ok("git-status", json!({"dir": "apart"}));
    assert_eq!(apart_status["branch"]["head"], "solo", "{apart_status}");
    let listed = codes(&apart_status, "entries");
    assert_eq!(
        listed.get("new.txt").map(String::as_str),
        Some("??"),
        "{apart_status}"
    );
    let changed = daemon.ok("git-changed", json!({"dir": "apart"}));
    assert!(changed.to_string().contains("new.txt"), "{changed}");
    let log = daemon.ok("git-log", json!({"dir": "apart"}));
    assert_eq!(log["commits"][0]["subject"], "apart commit", "{log}");
}

/// A token in a remote URL (issue 33) is masked in every answer that would show the config:
/// `read` (text, batch; base64 refused), content search, and inside the sandbox (`git remote -v`,
/// `cat .git/config` see a masked copy). The file itself keeps its token.
#[test]
fn a_token_in_a_remote_url_is_masked_in_every_answer() {
    let sandbox = Sandbox::empty();
    let root = &sandbox.root;
    git(root, &["init", "-q", "-b", "main"]);
    let remote = "https://bot:TOKEN-8241@github.com/org/repo.git";
    git(root, &["remote", "add", "origin", remote]);
    git(
        root,
        &["remote", "add", "cache", "redis://:TOKEN-8242@cache/0"],
    );
    let daemon = Daemon::start(&sandbox, &[]);
    let shown = [
        daemon.ok("read", json!({"file": ".git/config"})),
        daemon.ok("read", json!({"paths": [".git/config"]})),
        daemon.ok("exec", json!({"cmd": "git remote -v"})),
        daemon.ok("exec", json!({"cmd": "cat .git/config"})),
        daemon.ok("git-status", json!({})),
        daemon.ok("git-branch", json!({})),
    ];
    for answer in &shown {
        assert!(!answer.to_string().contains("TOKEN-"), "{answer}");
    }
    for answer in &shown[..4] {
        let text = answer.to_string();
        assert!(
            text.contains("https://***@github.com/org/repo.git"),
            "{text}"
        );
        assert!(text.contains("redis://***@cache/0"), "{text}");
    }
    assert_eq!(shown[2]["sandbox"], json!("namespaces"), "{}", shown[2]);
    let bytes = daemon.err("read", json!({"file": ".git/config", "encoding": "base64"}));
    assert_eq!(bytes["data"]["code"], json!("C214"), "{bytes}");
    let found = daemon.ok(
        "search",
        json!({"pattern": "TOKEN-", "use_default_excludes": false}),
    );
    assert_eq!(found["match_count"], json!(0), "{found}");
    let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
    assert!(config.contains(remote), "{config}");
}

/// A secret renamed under a name no glob matches is still withheld from a diff and left out of
/// checkpoints: it is known by its identity.
#[test]
fn a_renamed_secret_stays_out_of_diffs_and_checkpoints() {
    let sandbox = Sandbox::empty();
    let root = &sandbox.root;
    git(root, &["init", "-q", "-b", "main"]);
    sandbox.write(".env", "API_KEY=SECRET-ENV-1\n");
    sandbox.write("kept.txt", "one\n");
    git(root, &["add", "-f", ".env", "kept.txt"]);
    git(
        root,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ],
    );
    let daemon = Daemon::start(&sandbox, &[]);
    // A first command: the walk before it knows the secret by identity.
    daemon.ok("exec", json!({"cmd": "true"}));
    std::fs::rename(root.join(".env"), root.join("settings.txt")).unwrap();
    git(root, &["add", "settings.txt"]);
    std::fs::write(root.join("settings.txt"), "API_KEY=SECRET-ENV-2\n").unwrap();
    let diff = daemon.ok("git-diff", json!({}));
    assert!(!diff.to_string().contains("SECRET-"), "{diff}");
    assert_eq!(diff["withheld"], json!([".env", "settings.txt"]), "{diff}");
    let created = daemon.ok("checkpoint", json!({"create": true}));
    assert_eq!(created["skipped_secrets"], 1, "{created}");
    let store = daemon.ok("checkpoint", json!({}))["store"]
        .as_str()
        .unwrap()
        .to_string();
    let listed = Command::new("git")
        .args(["ls-tree", "-r", "--name-only", "refs/heads/checkpoints"])
        .env("GIT_DIR", &store)
        .output()
        .unwrap();
    let names = String::from_utf8_lossy(&listed.stdout);
    assert!(
        names.contains("kept.txt") && !names.contains("settings.txt"),
        "{names}"
    );
    assert_eq!(
        daemon.err("read", json!({"file": "settings.txt"}))["data"]["code"],
        json!("C211")
    );
}

/// A linked work tree as the root, its main repository elsewhere (a `git worktree` checkout): the
/// git methods are C215 naming the `.git` file, with the way out (add that folder as a root);
/// checkpoints still work, without that repository's excludes; with the main repository as a
/// second root, git works there.
#[test]
fn a_linked_work_tree_needs_its_main_repository_among_the_roots() {
    let sandbox = Sandbox::empty();
    let main = sandbox.outside.join("main");
    std::fs::create_dir_all(&main).unwrap();
    git(&main, &["init", "-q", "-b", "trunk"]);
    std::fs::write(main.join("a.txt"), "a\n").unwrap();
    git(&main, &["add", "a.txt"]);
    git(&main, &["commit", "-qm", "OUTSIDE-COMMIT"]);
    std::fs::remove_dir(&sandbox.root).unwrap();
    let root = sandbox.root.to_str().unwrap();
    git(&main, &["worktree", "add", "-q", "-b", "side", root]);
    std::fs::write(sandbox.root.join("a.txt"), "a changed\n").unwrap();

    let daemon = Daemon::start(&sandbox, &[]);
    for (method, response) in git_answers_without_outside_bytes(&daemon, "") {
        let error = &response["error"]["data"];
        assert_eq!(error["code"], "C215", "{method}: {response}");
        assert!(error["message"]
            .as_str()
            .unwrap()
            .contains("the `.git` file"));
        assert!(error["recovery"].as_str().unwrap().contains("as a root"));
    }
    let created = daemon.ok("checkpoint", json!({"create": true}));
    assert!(created["hash"].is_string(), "{created}");
    drop(daemon);

    let both = Daemon::start(&sandbox, &["--root", main.to_str().unwrap()]);
    let status = both.ok("git-status", json!({}));
    assert_eq!(status["branch"]["head"], "side", "{status}");
    assert_eq!(
        codes(&status, "entries").get("a.txt").map(String::as_str),
        Some(".M")
    );
    let log = both.ok("git-log", json!({}));
    assert_eq!(log["commits"][0]["subject"], "OUTSIDE-COMMIT", "{log}");
}

/// Roots may nest: a `dir` in the inner root finds the repository at the outer one.
#[test]
fn a_repository_at_an_outer_root_serves_a_nested_root() {
    let sandbox = Sandbox::empty();
    let root = sandbox.root.clone();
    git(&root, &["init", "-q", "-b", "outer"]);
    std::fs::create_dir_all(root.join("inner")).unwrap();
    std::fs::write(root.join("inner/x.txt"), "x\n").unwrap();
    let inner = root.join("inner");
    let daemon = Daemon::start(&sandbox, &["--root", inner.to_str().unwrap()]);
    let status = daemon.ok("git-status", json!({"dir": inner.to_str().unwrap()}));
    assert_eq!(status["branch"]["head"], "outer", "{status}");
    let listed = codes(&status, "entries");
    // Porcelain v2 paths are relative to the work tree's top.
    assert_eq!(
        listed.get("inner/x.txt").map(String::as_str),
        Some("??"),
        "{status}"
    );
}
