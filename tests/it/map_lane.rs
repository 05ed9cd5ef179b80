//! The history's own lane in the map's first files (crates/syntax/src/map/rank.rs,
//! `neighbours_first`) over the real socket on a real repository: a file that changed together
//! with the focus file, but whose tie is weaker than the focus file's strong name ties, still gets
//! every third place among the first files instead of waiting behind all of them.

use crate::common;

use common::{git, Daemon, Sandbox};
use serde_json::json;

/// Files tied to the focus file by two specific names each (a tie of about 40: names of 8+
/// characters are worth 10, doubled for sharing the focus file's folder).
const NAMED: &[&str] = &["a1", "a2", "a3", "a4", "a5"];

struct Case {
    name: &'static str,
    config: &'static str,
    /// Commits of the focus file and the zeta file together, then of the focus file alone: the
    /// pair's tie is its share of the focus file's commits.
    together: usize,
    alone: usize,
    /// Where the map lists the zeta file among its files (1: first).
    want: usize,
}

const CASES: &[Case] = &[
    Case {
        // A share of 1 in 22 commits: a tie near 19, under every name tie.
        name: "a weak co-change among five strong name ties takes the third place",
        config: "",
        together: 1,
        alone: 20,
        want: 3,
    },
    Case {
        name: "a strong co-change is first, as before",
        config: "",
        together: 10,
        alone: 0,
        want: 1,
    },
    Case {
        // No tie at all: after every tied file.
        name: "history off by config: the names alone",
        config: "map:\n  history_commits: 0\n",
        together: 1,
        alone: 20,
        want: 6,
    },
];

fn build(sandbox: &Sandbox) {
    let mut uses = String::new();
    for (n, stem) in NAMED.iter().enumerate() {
        let (widget, gadget) = (format!("WidgetNo{n}"), format!("GadgetNo{n}"));
        sandbox.write(
            &format!("src/{stem}.rs"),
            &format!("pub struct {widget};\npub struct {gadget};\n"),
        );
        uses.push_str(&format!("    let _w = {widget};\n    let _g = {gadget};\n"));
    }
    sandbox.write("src/focus.rs", &format!("pub fn run() {{\n{uses}}}\n"));
    sandbox.write("src/zeta.rs", "pub fn unrelated_zeta() {}\n");
}

/// Commits `files` (a line appended to each) `times` times.
fn commit(root: &std::path::Path, files: &[&str], times: usize) {
    for n in 0..times {
        for rel in files {
            let path = root.join(rel);
            let mut text = std::fs::read_to_string(&path).unwrap();
            text.push_str(&format!("// change {n}\n"));
            std::fs::write(&path, text).unwrap();
        }
        git(root, &["commit", "-q", "-am", "change"]);
    }
}

#[test]
fn a_file_that_changed_with_the_focus_file_has_a_lane_among_the_first_files() {
    let mut problems = Vec::new();
    for case in CASES {
        let sandbox = Sandbox::empty();
        build(&sandbox);
        let root = &sandbox.root;
        git(root, &["init", "-q", "-b", "main"]);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "tree"]);
        commit(root, &["src/focus.rs", "src/zeta.rs"], case.together);
        commit(root, &["src/focus.rs"], case.alone);
        let config = sandbox.dir.path().join("coderd.yaml");
        std::fs::write(&config, case.config).unwrap();
        let args = ["--config", config.to_str().unwrap()];
        let daemon = Daemon::start(&sandbox, &args);
        let ask = json!({"focus": ["src/focus.rs"], "budget": 100_000});
        let result = daemon.ok("map", ask.clone());
        let text = result["map"].as_str().unwrap();
        let at = common::map_files(text)
            .iter()
            .position(|f| *f == "src/zeta.rs");
        if at.map(|at| at + 1) != Some(case.want) {
            problems.push(format!("{}: zeta at {at:?}\n{text}", case.name));
        }
        // The same map from a fresh daemon, byte for byte.
        drop(daemon);
        let again = Daemon::start(&sandbox, &args);
        assert_eq!(again.ok("map", ask)["map"], result["map"], "{}", case.name);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
