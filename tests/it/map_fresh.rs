//! The map stays fresh without walking the tree on every question (crates/syntax/src/map/tree.rs,
//! crates/syntax/src/map/watch.rs): what another program changes, adds, deletes or renames, and
//! a `git checkout`, show in the map, which then equals a fresh daemon's walk of the same tree; the
//! daemon's own edits show in the very next map; a tree the watcher cannot cover is walked (and the
//! answer says so); a tree over `map_max_files` is refused with C213; after a change the map
//! without focus is ranked ahead.

use crate::common;

use common::{git, Daemon, Sandbox};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

const BUDGET: u64 = 100_000;

/// A Go file defining `name`, and calling `calls`.
fn go(name: &str, calls: &str) -> String {
    format!("package p\n\nfunc {name}() {{\n\t{calls}()\n}}\n")
}

/// Go files calling each other in folders, and sixteen more folders: a change in a few folders
/// re-lists those (past a quarter of the folders the map walks everything instead).
fn tree(sandbox: &Sandbox) {
    sandbox.write("a/one.go", &go("One", "Two"));
    sandbox.write("a/two.go", &go("Two", "Three"));
    sandbox.write("b/three.go", &go("Three", "One"));
    sandbox.write("b/c/four.go", &go("Four", "One"));
    for i in 0..16 {
        sandbox.write(&format!("z{i}/z{i}.go"), &go(&format!("Z{i}"), "One"));
    }
}

fn map(daemon: &Daemon) -> Value {
    daemon.ok("map", json!({ "budget": BUDGET }))
}

fn text(answer: &Value) -> String {
    answer["map"].as_str().unwrap().to_owned()
}

/// Maps until `done` holds (the watcher's event arrives a moment after the change), at most 60 s
/// (a debug daemon on a busy machine).
fn map_until(daemon: &Daemon, what: &str, done: impl Fn(&str) -> bool) -> Value {
    ask_until(daemon, map, what, done)
}

/// `map_until` for any map question (`ask`).
fn ask_until(
    daemon: &Daemon,
    ask: fn(&Daemon) -> Value,
    what: &str,
    done: impl Fn(&str) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let answer = ask(daemon);
        if done(&text(&answer)) {
            return answer;
        }
        assert!(Instant::now() < deadline, "{what}: never shown\n{answer}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The map a daemon started now gives of the same tree: a whole walk.
fn walked_map(sandbox: &Sandbox, running: Daemon, extra: &[&str]) -> String {
    drop(running);
    let fresh = Daemon::start(sandbox, extra);
    text(&map(&fresh))
}

type Change = fn(&Path);

const NOTHING: &str = "\u{0}";

/// What another program does to the tree, and a name the map must show after it and one it
/// must not (none: `NOTHING`, found in no map).
const CHANGES: &[(&str, Change, &str, &str)] = &[
    (
        "a definition renamed in place",
        |r| std::fs::write(r.join("a/one.go"), go("OneRenamed", "Two")).unwrap(),
        "OneRenamed",
        "func One()",
    ),
    (
        "a file added to a folder",
        |r| std::fs::write(r.join("b/five.go"), go("Five", "One")).unwrap(),
        "b/five.go",
        NOTHING,
    ),
    (
        "a file in new folders",
        |r| {
            std::fs::create_dir_all(r.join("d/e/f")).unwrap();
            std::fs::write(r.join("d/e/f/six.go"), go("Six", "Two")).unwrap();
        },
        "d/e/f/six.go",
        NOTHING,
    ),
    (
        "a file deleted",
        |r| std::fs::remove_file(r.join("a/two.go")).unwrap(),
        "a/one.go",
        "a/two.go",
    ),
    (
        "a file renamed (an editor's save-by-rename)",
        |r| std::fs::rename(r.join("b/three.go"), r.join("b/drei.go")).unwrap(),
        "b/drei.go",
        "b/three.go",
    ),
    (
        "a folder renamed",
        |r| std::fs::rename(r.join("b/c"), r.join("b/moved")).unwrap(),
        "b/moved/four.go",
        "b/c/four.go",
    ),
    (
        "a folder deleted",
        |r| std::fs::remove_dir_all(r.join("d")).unwrap(),
        "a/one.go",
        "d/e/f/six.go",
    ),
    (
        "a folder ignored by a new .gitignore",
        |r| std::fs::write(r.join(".gitignore"), "b/moved/\n").unwrap(),
        "b/drei.go",
        "b/moved/four.go",
    ),
];

#[test]
fn what_another_program_changes_shows_in_the_map_as_a_fresh_walk_would_show_it() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    let daemon = Daemon::start(&sandbox, &[]);
    let cold = map(&daemon);
    assert_eq!(cold["freshness"], "watched", "{cold}");
    for (what, change, shown, gone) in CHANGES {
        change(&sandbox.root);
        let answer = map_until(&daemon, what, |t| t.contains(shown) && !t.contains(gone));
        assert_eq!(answer["freshness"], "watched", "{what}: {answer}");
    }
    let warm = text(&map(&daemon));
    assert_eq!(
        warm,
        walked_map(&sandbox, daemon, &[]),
        "the kept listing differs from a walk"
    );
}

/// Maps of the tree with each of `focus`, in turn.
fn focused(daemon: &Daemon, focus: &[&str]) -> Vec<String> {
    let one = |f: &&str| text(&daemon.ok("map", json!({ "budget": BUDGET, "focus": [f] })));
    focus.iter().map(one).collect()
}

/// A new focus after another program changed files is ranked over the files as they are now, not
/// over the reference graph of the files as they were: each focus's map equals a fresh daemon's.
#[test]
fn a_new_focus_after_another_programs_change_is_ranked_as_a_fresh_walk_ranks_it() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    let daemon = Daemon::start(&sandbox, &[]);
    let focus = ["a/one.go", "b/five.go", "a/two.go", "b/c/four.go"];
    let before = focused(&daemon, &focus[..1]);
    std::fs::write(sandbox.root.join("b/five.go"), go("FiveNew", "Two")).unwrap();
    std::fs::write(sandbox.root.join("a/one.go"), go("OneNew", "FiveNew")).unwrap();
    std::fs::write(sandbox.root.join("b/c/four.go"), go("FourNew", "FiveNew")).unwrap();
    map_until(&daemon, "the changed files", |t| {
        ["OneNew", "FiveNew", "FourNew"]
            .iter()
            .all(|n| t.contains(n))
    });
    let kept = focused(&daemon, &focus);
    assert_ne!(kept[0], before[0], "the focus's neighbours changed");
    drop(daemon);
    let fresh = Daemon::start(&sandbox, &[]);
    assert_eq!(kept, focused(&fresh, &focus));
}

#[test]
fn a_git_checkout_of_another_branch_shows_in_the_map() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    git(&sandbox.root, &["init", "-q", "-b", "main"]);
    git(&sandbox.root, &["add", "-A"]);
    git(&sandbox.root, &["commit", "-qm", "main"]);
    git(&sandbox.root, &["checkout", "-qb", "other"]);
    sandbox.write("a/one.go", &go("OneOther", "Two"));
    sandbox.write("g/h/seven.go", &go("Seven", "One"));
    std::fs::remove_file(sandbox.root.join("b/three.go")).unwrap();
    git(&sandbox.root, &["add", "-A"]);
    git(&sandbox.root, &["commit", "-qm", "other"]);
    git(&sandbox.root, &["checkout", "-q", "main"]);

    let daemon = Daemon::start(&sandbox, &[]);
    let on_main = text(&map(&daemon));
    assert!(on_main.contains("b/three.go") && !on_main.contains("seven"));
    git(&sandbox.root, &["checkout", "-q", "other"]);
    map_until(&daemon, "checkout of other", |t| {
        t.contains("OneOther") && t.contains("g/h/seven.go") && !t.contains("b/three.go")
    });
    git(&sandbox.root, &["checkout", "-q", "main"]);
    let back = map_until(&daemon, "checkout of main", |t| {
        t.contains("func One()") && !t.contains("seven") && t.contains("b/three.go")
    });
    assert_eq!(
        text(&back),
        on_main,
        "back on main, the map is main's again"
    );
    assert_eq!(text(&back), walked_map(&sandbox, daemon, &[]));
}

#[test]
fn the_daemons_own_edits_show_in_the_very_next_map() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    let daemon = Daemon::start(&sandbox, &[]);
    map(&daemon);
    // No waiting: the documents store tells the map before the edit answers.
    daemon.ok(
        "write",
        json!({"file": "a/one.go", "content": go("OneWritten", "Two")}),
    );
    let after = map(&daemon);
    assert!(text(&after).contains("OneWritten"), "{after}");
    assert_eq!(after["parsed"], 1, "only the written file is tagged again");
    daemon.ok(
        "move",
        json!({"moves": [{"from": "a/two.go", "to": "b/two.go"}]}),
    );
    let moved = text(&map(&daemon));
    assert!(
        moved.contains("b/two.go") && !moved.contains("a/two.go"),
        "{moved}"
    );
    daemon.ok("delete-file", json!({"paths": ["b/two.go"]}));
    assert!(!text(&map(&daemon)).contains("two.go"));
    daemon.ok(
        "create-file",
        json!({"files": [{"path": "n/e/w/eight.go", "content": go("Eight", "One"), "parents": true}]}),
    );
    let created = text(&map(&daemon));
    assert!(created.contains("n/e/w/eight.go"), "{created}");
}

/// How many lines of the daemon's debug log hold every one of `parts`, once at least `count` do
/// (at most 60 s: a debug daemon on a busy machine).
fn logged(daemon: &Daemon, parts: &[&str], count: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = daemon.log_text();
        let seen = (text.lines())
            .filter(|l| parts.iter().all(|p| l.contains(p)))
            .count();
        if seen >= count {
            return seen;
        }
        let near: Vec<&str> = text.lines().filter(|l| l.contains("map")).collect();
        assert!(
            Instant::now() < deadline,
            "{parts:?} logged {seen} times, not {count}: {near:#?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// After a change the unsteered question is ranked on a thread of its own before it is asked
/// (crates/syntax/src/map/ahead.rs): the next map ranks nothing, counts the files tagged for it,
/// and is the map a fresh daemon gives of the same tree; a focus question still ranks on demand.
#[test]
fn after_a_change_the_unsteered_map_is_ranked_ahead_and_is_a_fresh_daemons_map() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    let daemon = Daemon::start_env(&sandbox, &[], &[("CODERD_LOG", "coderd=debug")]);
    map(&daemon);
    // A pass that tagged the changed file (a pass after a stray event tags none).
    const AHEAD: &[&str] = &["map ranked ahead", "parsed=1"];
    const RANKED: &[&str] = &[" rank reached="];
    let changes: [(&str, Change); 2] = [
        ("the daemon's own write", |_| {}),
        ("another program's write", |r| {
            std::fs::write(r.join("b/three.go"), go("ThreeAhead", "One")).unwrap()
        }),
    ];
    for (n, (what, change)) in changes.iter().enumerate() {
        if n == 0 {
            let content = go("OneAhead", "Two");
            daemon.ok("write", json!({"file": "a/one.go", "content": content}));
        }
        change(&sandbox.root);
        logged(&daemon, AHEAD, n + 1);
        let ranked = logged(&daemon, RANKED, 1);
        let answer = map(&daemon);
        assert_eq!(answer["parsed"], 1, "{what}: the file tagged ahead counts");
        assert!(
            text(&answer).contains(["OneAhead", "ThreeAhead"][n]),
            "{what}"
        );
        assert_eq!(logged(&daemon, RANKED, 1), ranked, "{what}: ranked again");
    }
    let focus = focused(&daemon, &["a/two.go"]);
    let ranked = logged(&daemon, RANKED, 1);
    let warm = text(&map(&daemon));
    drop(daemon);
    let fresh = Daemon::start(&sandbox, &[]);
    assert_eq!(warm, text(&map(&fresh)), "the map ranked ahead differs");
    assert_eq!(focus, focused(&fresh, &["a/two.go"]));
    assert!(ranked >= 3, "the focus question ranked on demand");
}

/// The map asked right after a write changed definitions (no pass ahead yet) ranks a graph patched
/// from the last snapshot's for the written file (crates/syntax/src/map/graph/patch.rs; a debug
/// daemon also checks it against a rebuild), and is the map a fresh daemon gives, with and without
/// a focus: a name added that another file calls, then a name others call removed and a new one
/// defined, then a name added after every other and dropped.
#[test]
fn the_map_right_after_a_write_ranks_a_patched_graph_and_is_a_fresh_daemons_map() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    sandbox.write("a/calls.go", &go("Calls", "Seven"));
    let daemon = Daemon::start_env(&sandbox, &[], &[("CODERD_LOG", "coderd=debug")]);
    map(&daemon);
    let writes = [
        ("b/c/four.go", go("Four", "One") + "\nfunc Seven() {}\n"),
        ("a/two.go", go("Other", "Seven")),
        // The last file in path order: a name after every other, added and dropped.
        ("z9/z9.go", go("Z9", "One") + "\nfunc Zlast() {}\n"),
        ("z9/z9.go", go("Z9", "One")),
    ];
    for (file, content) in writes {
        daemon.ok("write", json!({"file": file, "content": content}));
        let answer = text(&map(&daemon));
        assert!(answer.contains("func Seven()"), "{answer}");
    }
    assert!(text(&map(&daemon)).contains("func Other()"));
    logged(&daemon, &["map graph after a change", "patched=true"], 1);
    let warm = text(&map(&daemon));
    let focus = focused(&daemon, &["a/one.go", "a/calls.go"]);
    drop(daemon);
    let fresh = Daemon::start(&sandbox, &[]);
    assert_eq!(warm, text(&map(&fresh)), "the map after the writes differs");
    assert_eq!(focus, focused(&fresh, &["a/one.go", "a/calls.go"]));
}

/// A daemon whose config file holds `config`.
fn with_config(sandbox: &Sandbox, config: &str) -> Daemon {
    let path = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&path, config).unwrap();
    Daemon::start(sandbox, &["--config", path.to_str().unwrap()])
}

#[test]
fn a_tree_the_watcher_cannot_cover_is_walked_on_every_map_and_the_answer_says_why() {
    for (config, why) in [
        ("map_watch_max_folders: 2\n", "map_watch_max_folders"),
        ("map_watch_max_folders: 0\n", "map_watch_max_folders"),
    ] {
        let sandbox = Sandbox::empty();
        tree(&sandbox);
        let daemon = with_config(&sandbox, config);
        let cold = map(&daemon);
        assert_eq!(cold["freshness"], "walked", "{config}: {cold}");
        let note = cold["freshness_note"].as_str().unwrap_or_default();
        assert!(note.contains(why), "{config}: {cold}");
        // A walk sees every change at once: no waiting for an event.
        for (what, change, shown, gone) in &CHANGES[..4] {
            change(&sandbox.root);
            let t = text(&map(&daemon));
            assert!(
                t.contains(shown) && !t.contains(gone),
                "{config} {what}\n{t}"
            );
        }
    }
}

#[test]
fn a_tree_over_map_max_files_is_refused_with_the_key_that_raises_it() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    let daemon = with_config(&sandbox, "map_max_files: 3\n");
    for (method, params) in [("map", json!({})), ("symbols", json!({"query": "One"}))] {
        let error = daemon.err(method, params);
        assert_eq!(error["data"]["code"], "C213", "{method}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("map_max_files"), "{method}: {error}");
    }
    // A folder under the limit is mapped.
    let b = daemon.ok("map", json!({"dir": "b"}));
    assert_eq!(b["files"], 2, "{b}");
    // A lookup by name reads the whole root's index: its way out is not a folder below.
    let error = daemon.err("definition", json!({"symbol": "One"}));
    assert_eq!(error["data"]["code"], "C213", "{error}");
    let recovery = error["data"]["recovery"].as_str().unwrap();
    assert!(
        recovery.contains("map_max_files") && recovery.contains("language server"),
        "{error}"
    );
    assert!(!recovery.contains("folder below"), "{error}");
}

/// A Go file of `n` functions, each calling the next: `n` items and `n` names used, 2n tags.
fn many(prefix: &str, n: usize) -> String {
    let body: String = (0..n)
        .map(|i| format!("func {prefix}{i}() {{\n\t{prefix}{}()\n}}\n\n", i + 1))
        .collect();
    format!("package p\n\n{body}")
}

/// Whether an answer is the refusal that names `map_max_tags` (C213, the key that raises it).
fn over_max_tags(answer: &Value) -> bool {
    let error = &answer["error"];
    error["data"]["code"] == "C213"
        && error["data"]["limit"] == "map_max_tags"
        && error["message"].as_str().unwrap().contains("map_max_tags")
}

/// `map_max_tags` bounds what a folder's files may hold, however few the files: the tree's 20
/// files hold 40 tags (one function and one name used each), a file of 40 functions 80. Under 70
/// the tree maps; its tests of 40 functions more are refused to a map with tests (on every face:
/// `symbols` too) and leave the map without them as it was; a file of 16 tags written again and
/// again is counted once (a change re-lists its folder: the old version's tags go, its other
/// files' stay), so another file of 16 makes the next map a refusal (once the watcher tells);
/// their removal makes it a map again; a folder under the limit maps throughout.
#[test]
fn a_folder_whose_files_hold_more_tags_than_map_max_tags_is_refused_with_the_key_that_raises_it() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    sandbox.write("a/many_test.go", &many("TestMany", 40));
    let daemon = with_config(&sandbox, "map_max_tags: 70\n");
    let before = text(&map(&daemon));
    let with_tests = json!({"budget": BUDGET, "include_tests": true});
    let refused = daemon.call("map", with_tests.clone());
    assert!(over_max_tags(&refused), "{refused}");
    assert_eq!(text(&map(&daemon)), before, "the map without tests");
    let symbols = json!({"query": "TestMany1", "include_tests": true});
    let refused = daemon.call("symbols", symbols);
    assert!(over_max_tags(&refused), "{refused}");

    // A file of 16 tags written again and again: the listing counts each version once (56).
    for prefix in ["Eight", "Again", "Once"] {
        sandbox.write("b/eight.go", &many(prefix, 8));
        let shown = format!("{prefix}7");
        let answer = map_until(&daemon, &shown, |m| m.contains(&shown));
        assert_eq!(answer["freshness"], "watched", "{answer}");
    }
    // 16 more make 72: refused, which only a count that kept every file's tags tells.
    sandbox.write("b/more.go", &many("More", 8));
    reply_until(&daemon, "refused", over_max_tags);
    let a = daemon.ok("map", json!({"dir": "a"}));
    assert_eq!(a["files"], 2, "{a}");

    for gone in ["b/more.go", "b/eight.go"] {
        std::fs::remove_file(sandbox.root.join(gone)).unwrap();
    }
    // Refused, or a map with either file still there, until the watcher has told of both.
    reply_until(&daemon, "the map before", |reply| {
        reply.get("error").is_none() && text(&reply["result"]) == before
    });
}

/// Asks the unsteered map until `done` holds of the whole reply (a change reaches the daemon a
/// moment after it is made), at most 60 s; each reply before must be a map or the refusal.
fn reply_until(daemon: &Daemon, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reply = daemon.call("map", json!({ "budget": BUDGET }));
        if done(&reply) {
            return reply;
        }
        assert!(
            reply.get("error").is_none() || over_max_tags(&reply),
            "{what}: {reply}"
        );
        assert!(Instant::now() < deadline, "{what}: never\n{reply}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A refusal past `map_max_tags` is given again, walking nothing, while nothing below its folder
/// changes (the log says so each time); a question about another folder is asked anew and leaves
/// it kept; a change below the folder asks again (a smaller file: a map), and so does a new limit
/// (the config reloaded).
#[test]
fn a_refusal_past_map_max_tags_is_given_again_until_something_below_its_folder_changes() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    sandbox.write("b/more.go", &many("More", 20));
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "map_max_tags: 70\n").unwrap();
    let args = ["--config", config.to_str().unwrap()];
    let daemon = Daemon::start_env(&sandbox, &args, &[("CODERD_LOG", "coderd=debug")]);
    const AGAIN: &[&str] = &["map refused again, nothing changed"];
    for _ in 0..3 {
        assert!(over_max_tags(&daemon.call("map", json!({}))));
    }
    assert_eq!(logged(&daemon, AGAIN, 2), 2);
    let a = daemon.ok("map", json!({"dir": "a"}));
    assert_eq!(a["files"], 2, "{a}");
    assert!(over_max_tags(&daemon.call("map", json!({}))));
    assert_eq!(logged(&daemon, AGAIN, 3), 3);

    sandbox.write("b/more.go", &many("More", 10));
    reply_until(&daemon, "a map of 60 tags", |r| r.get("error").is_none());
    sandbox.write("b/more.go", &many("More", 20));
    reply_until(&daemon, "refused at 80 tags", over_max_tags);
    let raised = config.with_extension("tmp");
    std::fs::write(&raised, "map_max_tags: 1000\n").unwrap();
    std::fs::rename(&raised, &config).unwrap();
    let map = reply_until(&daemon, "a map under the new limit", |r| {
        r.get("error").is_none()
    });
    assert!(text(&map["result"]).contains("More19"), "{map}");
}

/// What the daemon keeps is bounded by `map_max_tags` too, not only each question: two folders of
/// 30 tags each, mapped in turn, hold 60 together. Under a limit of 50 the first folder's listing
/// and tags are forgotten once the second is mapped, so mapping it again tags its file again;
/// under 1,000 both are kept and nothing is tagged again.
#[test]
fn folders_mapped_in_turn_keep_their_tags_only_while_they_fit_map_max_tags_together() {
    for (limit, tagged_again) in [(50, 1), (1000, 0)] {
        let sandbox = Sandbox::empty();
        sandbox.write("x/x.go", &many("X", 15));
        sandbox.write("y/y.go", &many("Y", 15));
        let daemon = with_config(&sandbox, &format!("map_max_tags: {limit}\n"));
        for dir in ["x", "y"] {
            let first = daemon.ok("map", json!({ "dir": dir }));
            assert_eq!(first["parsed"], 1, "{limit}: {dir}: {first}");
        }
        let again = daemon.ok("map", json!({ "dir": "x" }));
        assert_eq!(again["parsed"], tagged_again, "{limit}: {again}");
        assert!(text(&again).contains("X14"), "{limit}: {again}");
    }
}

/// The tree with test files: one by its name, one in a test folder, one in a nested test folder.
fn tree_with_tests(sandbox: &Sandbox) {
    tree(sandbox);
    sandbox.write("a/one_test.go", &go("TestOne", "One"));
    sandbox.write("tests/helper.go", &go("Helper", "Two"));
    sandbox.write("b/testdata/fake.go", &go("Fake", "Three"));
}

fn tests_map(daemon: &Daemon) -> Value {
    daemon.ok("map", json!({ "budget": BUDGET, "include_tests": true }))
}

/// The listing holds the test files from the first walk, marked but not tagged: a map without
/// tests tags no test file, the first map with tests tags exactly them (and walks nothing), the
/// next tags none; another program's change to a test file reaches the next map with tests and
/// no map without them, both equal a fresh daemon's, and a restarted daemon tags nothing again.
#[test]
fn test_files_are_listed_with_the_tree_and_their_changes_reach_the_next_map_with_tests() {
    let sandbox = Sandbox::empty();
    tree_with_tests(&sandbox);
    let daemon = Daemon::start(&sandbox, &[]);
    let cold = map(&daemon);
    assert_eq!(cold["files"], 20, "{cold}");
    assert_eq!(cold["parsed"], 20, "no test file tagged: {cold}");
    assert!(!text(&cold).contains("Test"), "{cold}");
    let with = tests_map(&daemon);
    assert_eq!(with["parsed"], 3, "the test files, tagged now: {with}");
    assert_eq!(with["files"], 23, "{with}");
    assert_eq!(tests_map(&daemon)["parsed"], 0);
    for shown in ["a/one_test.go", "tests/helper.go", "b/testdata/fake.go"] {
        assert!(text(&with).contains(shown), "{shown}: {with}");
    }
    std::fs::write(sandbox.root.join("a/one_test.go"), go("TestRenamed", "One")).unwrap();
    sandbox.write("b/testdata/more/extra_test.go", &go("TestExtra", "Two"));
    let changed = ask_until(&daemon, tests_map, "the test files' change", |t| {
        t.contains("TestRenamed") && t.contains("b/testdata/more/extra_test.go")
    });
    assert!(!text(&changed).contains("func TestOne()"), "{changed}");
    let without = map(&daemon);
    assert_eq!(without["files"], 20, "{without}");
    assert_eq!(
        text(&without),
        text(&cold),
        "a test file's change reaches no map without tests"
    );
    drop(daemon);
    let fresh = Daemon::start(&sandbox, &[]);
    assert_eq!(text(&tests_map(&fresh)), text(&changed));
    assert_eq!(text(&map(&fresh)), text(&without));
}

/// The saved tag index's base (`tags.jsonl`) and journal, once the base exists.
fn saved_index(sandbox: &Sandbox) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let base = common::files_under(&sandbox.dir.path().join("state"))
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == "tags.jsonl"))?;
    let journal = base.with_file_name("tags.journal.jsonl");
    Some((base, journal))
}

/// The paths the saved tag index holds: its base's, then its journal's changes in order (each
/// file after a header line).
fn saved_paths(sandbox: &Sandbox) -> Option<BTreeSet<String>> {
    let (base, journal) = saved_index(sandbox)?;
    let lines = |path: &Path| -> Vec<Value> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines = text.lines().skip(1);
        lines.filter_map(|l| serde_json::from_str(l).ok()).collect()
    };
    let mut paths = BTreeSet::new();
    for line in lines(&base).into_iter().chain(lines(&journal)) {
        match line["removed"].as_str() {
            Some(removed) => paths.remove(removed),
            None => paths.insert(line["path"].as_str().unwrap().to_owned()),
        };
    }
    Some(paths)
}

/// Waits until the saved tag index holds `count` files (it is written a moment after a map).
fn saved_index_holds(sandbox: &Sandbox, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let held = saved_paths(sandbox).map(|paths| paths.len());
        if held == Some(count) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the saved index never held {count} files: {held:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// After the first save, a change is appended to the saved index's journal and the base is not
/// written again; a restarted daemon reads both and re-tags nothing.
#[test]
fn a_change_is_saved_to_the_journal_and_a_restarted_daemon_retags_nothing() {
    let sandbox = Sandbox::empty();
    tree(&sandbox);
    let changed = {
        let daemon = Daemon::start(&sandbox, &[]);
        map(&daemon);
        saved_index_holds(&sandbox, 20);
        let (base, journal) = saved_index(&sandbox).unwrap();
        let first_base = std::fs::read(&base).unwrap();
        sandbox.write("a/one.go", &go("Uno", "Two"));
        let changed = map_until(&daemon, "the renamed function", |m| m.contains("Uno"));
        let deadline = Instant::now() + Duration::from_secs(60);
        while !std::fs::read_to_string(&journal).is_ok_and(|j| j.contains("Uno")) {
            assert!(
                Instant::now() < deadline,
                "the change never reached the journal"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            std::fs::read(&base).unwrap(),
            first_base,
            "the base is rewritten"
        );
        changed
    };
    let restarted = Daemon::start(&sandbox, &[]);
    let again = map(&restarted);
    assert_eq!(again["parsed"], 0, "{again}");
    assert_eq!(again["map"], changed["map"]);
}

/// A map without tests saves no test file's tags; once a map with tests tagged them, a restarted
/// daemon tags nothing again, whichever kind of map it is asked first.
#[test]
fn a_restarted_daemon_tags_no_test_file_again_with_or_without_tests() {
    let sandbox = Sandbox::empty();
    tree_with_tests(&sandbox);
    let (without, with) = {
        let daemon = Daemon::start(&sandbox, &[]);
        let without = map(&daemon);
        saved_index_holds(&sandbox, 20);
        let with = tests_map(&daemon);
        assert_eq!(with["parsed"], 3, "{with}");
        saved_index_holds(&sandbox, 23);
        (without, with)
    };
    let restarted = Daemon::start(&sandbox, &[]);
    let (again_without, again_with) = (map(&restarted), tests_map(&restarted));
    assert_eq!(again_without["parsed"], 0, "{again_without}");
    assert_eq!(again_with["parsed"], 0, "{again_with}");
    assert_eq!(again_without["map"], without["map"]);
    assert_eq!(again_with["map"], with["map"]);
    drop(restarted);
    let restarted = Daemon::start(&sandbox, &[]);
    let first_with = tests_map(&restarted);
    assert_eq!(first_with["parsed"], 0, "{first_with}");
    assert_eq!(first_with["map"], with["map"]);
}

/// `map_max_files` counts what a question lists: a tree under it without its tests but over it
/// with them is mapped without tests and refused with them.
#[test]
fn map_max_files_counts_the_test_files_only_for_a_map_with_tests() {
    let sandbox = Sandbox::empty();
    tree_with_tests(&sandbox);
    let daemon = with_config(&sandbox, "map_max_files: 21\n");
    let without = map(&daemon);
    assert_eq!(without["files"], 20, "{without}");
    let error = daemon.err("map", json!({ "include_tests": true }));
    assert_eq!(error["data"]["code"], "C213", "{error}");
    assert_eq!(map(&daemon)["map"], without["map"]);
}
