//! The map's history ties (crates/git/src/history.rs, crates/syntax/src/map/cochange.rs) over the
//! real socket on real repositories: files with no name in common, whose only tie is that they
//! changed together. Without history the map lists them by path (a1 first); each case builds a
//! history, moves HEAD, and says which file a map focused on the tree's focus file lists first.

use crate::common;

use common::{git, Daemon, Sandbox};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every file of a case's tree, each defining a name no other file uses.
const FILES: &[&str] = &[
    "src/a1.rs",
    "src/a2.rs",
    "src/a3.rs",
    "src/a4.rs",
    "src/a5.rs",
    "src/focus.rs",
    "src/yak.rs",
    "src/zeta.rs",
];

/// One step of a case: commit each list of files (changed together), the same then pack the refs
/// (a fresh clone's branch lives in `packed-refs`, not a file of its own), or check out a revision;
/// then the file the map lists first.
enum Step {
    Commit(&'static [&'static [&'static str]]),
    CommitAndPack(&'static [&'static [&'static str]]),
    Checkout(&'static str),
    /// `git reset --soft`: HEAD moves, every file stays as it is.
    MoveHead(&'static str),
    /// A new root commit (an orphan branch) of these files and as many others no map lists.
    Root(&'static [&'static str], usize),
}

struct Case {
    name: &'static str,
    /// The repository's folder under the root (`""`: the root); `None`: no repository at all.
    repo: Option<&'static str>,
    /// The daemon's config file.
    config: &'static str,
    steps: &'static [(Step, &'static str)],
}

/// Five commits of `yak.rs` with the focus file and four others (a different one left out each
/// time): six files each, over a bound of 5. Under a bound of 6, `yak.rs` changed with the focus
/// file five times, every other file four.
const HUGE: &[&[&str]] = &[
    &[
        "src/focus.rs",
        "src/yak.rs",
        "src/a2.rs",
        "src/a3.rs",
        "src/a4.rs",
        "src/a5.rs",
    ],
    &[
        "src/focus.rs",
        "src/yak.rs",
        "src/a1.rs",
        "src/a3.rs",
        "src/a4.rs",
        "src/a5.rs",
    ],
    &[
        "src/focus.rs",
        "src/yak.rs",
        "src/a1.rs",
        "src/a2.rs",
        "src/a4.rs",
        "src/a5.rs",
    ],
    &[
        "src/focus.rs",
        "src/yak.rs",
        "src/a1.rs",
        "src/a2.rs",
        "src/a3.rs",
        "src/a5.rs",
    ],
    &[
        "src/focus.rs",
        "src/yak.rs",
        "src/a1.rs",
        "src/a2.rs",
        "src/a3.rs",
        "src/a4.rs",
    ],
];
const PAIR: &[&[&str]] = &[&["src/focus.rs", "src/zeta.rs"]];

const CASES: &[Case] = &[
    Case {
        name: "two files that changed together: the other is first",
        repo: Some(""),
        config: "",
        steps: &[
            (Step::Commit(&[]), "src/a1.rs"),
            (
                Step::Commit(&[&["src/focus.rs", "src/zeta.rs"], &["src/a1.rs"]]),
                "src/zeta.rs",
            ),
        ],
    },
    Case {
        name: "HEAD moving refreshes the history, forward and back",
        repo: Some(""),
        config: "",
        steps: &[
            (
                Step::Commit(&[&["src/focus.rs", "src/zeta.rs"]]),
                "src/zeta.rs",
            ),
            (
                Step::Commit(&[
                    &["src/focus.rs", "src/a4.rs"],
                    &["src/focus.rs", "src/a4.rs"],
                ]),
                "src/a4.rs",
            ),
            (Step::Checkout("HEAD~2"), "src/zeta.rs"),
        ],
    },
    Case {
        name: "HEAD moving alone (the files as they were) weighs the ties again",
        repo: Some(""),
        config: "",
        steps: &[
            (
                Step::Commit(&[
                    &["src/focus.rs", "src/zeta.rs"],
                    &["src/focus.rs", "src/a4.rs"],
                    &["src/focus.rs", "src/a4.rs"],
                ]),
                "src/a4.rs",
            ),
            (Step::MoveHead("HEAD~2"), "src/zeta.rs"),
        ],
    },
    Case {
        // Once each, so only their age tells them apart (by path alone `a2` would be first).
        name: "a recent pair outranks an old one",
        repo: Some(""),
        config: "",
        steps: &[(
            Step::Commit(&[
                &["src/focus.rs", "src/a2.rs"],
                &["src/a5.rs"],
                &["src/focus.rs", "src/zeta.rs"],
            ]),
            "src/zeta.rs",
        )],
    },
    Case {
        name: "a branch whose ref is packed: HEAD is read from packed-refs",
        repo: Some(""),
        config: "",
        steps: &[
            (Step::Commit(PAIR), "src/zeta.rs"),
            (
                Step::CommitAndPack(&[
                    &["src/focus.rs", "src/a4.rs"],
                    &["src/focus.rs", "src/a4.rs"],
                ]),
                "src/a4.rs",
            ),
        ],
    },
    Case {
        name: "a huge commit ties nothing",
        repo: Some(""),
        config: "map:\n  history_max_files: 5\n",
        steps: &[
            (Step::Commit(HUGE), "src/a1.rs"),
            (Step::Commit(PAIR), "src/zeta.rs"),
        ],
    },
    Case {
        name: "the same commits under a bound they fit are ties",
        repo: Some(""),
        config: "map:\n  history_max_files: 6\n",
        steps: &[
            (Step::Commit(HUGE), "src/yak.rs"),
            (Step::Commit(PAIR), "src/yak.rs"),
        ],
    },
    Case {
        name: "a root commit within the bound ties its files",
        repo: Some(""),
        config: "",
        steps: &[(
            Step::Root(&["src/focus.rs", "src/zeta.rs"], 0),
            "src/zeta.rs",
        )],
    },
    Case {
        // 2,000 paths: git is stopped after the first few kilobytes of the root commit's tree.
        name: "a root commit over the bound ties nothing, the next commits do",
        repo: Some(""),
        config: "map:\n  history_max_files: 2\n",
        steps: &[
            (
                Step::Root(&["src/focus.rs", "src/zeta.rs"], 2000),
                "src/a1.rs",
            ),
            (Step::Commit(PAIR), "src/zeta.rs"),
        ],
    },
    Case {
        name: "history off by config",
        repo: Some(""),
        config: "map:\n  history_commits: 0\n",
        steps: &[(Step::Commit(PAIR), "src/a1.rs")],
    },
    Case {
        name: "only the last commits count",
        repo: Some(""),
        config: "map:\n  history_commits: 2\n",
        steps: &[(
            Step::Commit(&[
                &["src/focus.rs", "src/zeta.rs"],
                &["src/a5.rs"],
                &["src/a3.rs"],
            ]),
            "src/a1.rs",
        )],
    },
    Case {
        name: "a repository in a folder under the root",
        repo: Some("sub"),
        config: "",
        steps: &[(Step::Commit(PAIR), "sub/src/zeta.rs")],
    },
    Case {
        name: "a folder in no repository is mapped by the graph alone",
        repo: None,
        config: "",
        steps: &[(Step::Commit(&[]), "src/a1.rs")],
    },
];

/// Writes the tree (under `repo`), and commits it as the first commit when there is a repository.
fn build(sandbox: &Sandbox, repo: Option<&str>) -> PathBuf {
    let top = sandbox.root.join(repo.unwrap_or(""));
    for (n, rel) in FILES.iter().enumerate() {
        let path = top.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("pub fn unrelated_name_{n}() {{}}\n")).unwrap();
    }
    if repo.is_some() {
        git(&top, &["init", "-q", "-b", "main"]);
        // The first commit adds every file: a weak tie of each to each under the default bound,
        // none under the bounds the cases set.
        git(&top, &["add", "-A"]);
        git(&top, &["commit", "-q", "-m", "tree"]);
    }
    top
}

/// Each commit changes its files (a line appended to each) and nothing else.
fn commit(top: &Path, commits: &[&[&str]]) {
    for (n, files) in commits.iter().enumerate() {
        for rel in *files {
            let path = top.join(rel);
            let mut text = std::fs::read_to_string(&path).unwrap();
            text.push_str(&format!("// change {n}\n"));
            std::fs::write(&path, text).unwrap();
        }
        git(top, &["commit", "-q", "-am", "change"]);
    }
}

/// A new branch `name` whose only commit holds `files` and `others` files no map lists.
fn root_commit(top: &Path, name: &str, files: &[&str], others: usize) {
    git(top, &["checkout", "-q", "--orphan", name]);
    git(top, &["rm", "-r", "-q", "--cached", "."]);
    let filler = top.join("filler");
    std::fs::create_dir_all(&filler).unwrap();
    for n in 0..others {
        std::fs::write(filler.join(format!("f{n:04}")), "\n").unwrap();
    }
    let mut add = vec!["add", "--"];
    add.extend(files);
    git(top, &add);
    if others > 0 {
        git(top, &["add", "filler"]);
    }
    git(top, &["commit", "-q", "-m", "root"]);
}

fn first_listed(daemon: &Daemon, focus: &str) -> (String, String) {
    let result = daemon.ok("map", json!({"focus": [focus], "budget": 100_000}));
    let text = result["map"].as_str().unwrap().to_owned();
    let first = common::map_files(&text)
        .first()
        .map(|f| f.to_string())
        .unwrap_or_default();
    (first, text)
}

#[test]
fn files_that_changed_together_with_the_focus_file_are_listed_first() {
    for case in CASES {
        let sandbox = Sandbox::empty();
        let top = build(&sandbox, case.repo);
        let config = sandbox.dir.path().join("coderd.yaml");
        std::fs::write(&config, case.config).unwrap();
        let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
        let prefix = case.repo.map_or(String::new(), |r| match r {
            "" => String::new(),
            r => format!("{r}/"),
        });
        for (at, (step, want)) in case.steps.iter().enumerate() {
            match step {
                Step::Commit(commits) => commit(&top, commits),
                Step::CommitAndPack(commits) => {
                    commit(&top, commits);
                    git(&top, &["pack-refs", "--all", "--prune"]).truncate(0);
                    let branch = git(&top, &["symbolic-ref", "HEAD"]);
                    assert!(
                        !top.join(".git").join(branch.trim()).exists(),
                        "{branch} still loose"
                    );
                }
                Step::Checkout(rev) => git(&top, &["checkout", "-q", "--detach", rev]).truncate(0),
                Step::MoveHead(rev) => git(&top, &["reset", "-q", "--soft", rev]).truncate(0),
                Step::Root(files, others) => {
                    root_commit(&top, &format!("root{at}"), files, *others)
                }
            }
            let (first, text) = first_listed(&daemon, &format!("{prefix}src/focus.rs"));
            assert_eq!(first, *want, "{}, step {at}\n{text}", case.name);
        }
    }
}

/// The saved histories of the sandbox's daemon, once there is one.
fn wait_for_saved_history(state: &Path) -> Vec<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let saved: Vec<PathBuf> = common::files_under(state)
            .into_iter()
            .filter(|p| {
                p.extension().is_some_and(|e| e == "json")
                    && p.parent().is_some_and(|d| d.ends_with("history"))
            })
            .collect();
        if !saved.is_empty() {
            return saved;
        }
        assert!(Instant::now() < deadline, "no history was saved");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_history_is_saved_by_head_and_maps_are_byte_identical_across_fresh_daemons() {
    let sandbox = Sandbox::empty();
    let top = build(&sandbox, Some(""));
    commit(
        &top,
        &[
            &["src/focus.rs", "src/zeta.rs"],
            &["src/focus.rs", "src/a3.rs"],
        ],
    );
    let first = {
        let daemon = Daemon::start(&sandbox, &[]);
        first_listed(&daemon, "src/focus.rs").1
    };
    let state = sandbox.dir.path().join("state");
    let saved = wait_for_saved_history(&state);
    let head = git(&top, &["rev-parse", "HEAD"]);
    let text = std::fs::read_to_string(&saved[0]).unwrap();
    assert!(
        text.contains(head.trim()),
        "saved under another HEAD: {text}"
    );
    // A restarted daemon reads the saved history; its map is the same, byte for byte.
    {
        let daemon = Daemon::start(&sandbox, &[]);
        assert_eq!(first_listed(&daemon, "src/focus.rs").1, first);
    }
    // So is a daemon with nothing saved.
    std::fs::remove_dir_all(&state).unwrap();
    let daemon = Daemon::start(&sandbox, &[]);
    let (listed_first, text) = first_listed(&daemon, "src/focus.rs");
    assert_eq!(text, first);
    assert!(
        ["src/zeta.rs", "src/a3.rs"].contains(&listed_first.as_str()),
        "{text}"
    );
}
