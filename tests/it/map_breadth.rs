//! How the map spends its budget on the focus file's neighbours (crates/syntax/src/map/rank.rs,
//! `neighbours_first`), over the real socket: each neighbour is shown first by a top-level item,
//! one line under its path, not by a method or field nested under its type (two lines and a gap),
//! so the same budget lists more of the files a change needs. Twelve files each define a method
//! (or field) the focus file uses; at a budget where twelve one-line files fit and twelve
//! two-line ones do not, every one of them is listed.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::json;

struct Case {
    name: &'static str,
    /// The path and text of the n-th neighbour.
    neighbour: fn(usize) -> (String, String),
    /// The focus file's path and text, using every neighbour's nested name.
    focus: fn(usize) -> (String, String),
}

const NEIGHBOURS: usize = 12;
/// Twelve neighbours of one line each (about 40 characters with the path) fit; of two lines and
/// a gap each (about 80) they do not.
const BUDGET: usize = 800;

const CASES: &[Case] = &[
    Case {
        name: "rust: a method inside an impl",
        neighbour: |n| {
            (
                format!("src/holder{n:02}.rs"),
                format!("pub struct Holder{n};\n\nimpl Holder{n} {{\n    pub fn method_number_{n}(&self) {{}}\n}}\n"),
            )
        },
        focus: |count| {
            let calls: String = (0..count)
                .map(|n| format!("    x.method_number_{n}();\n"))
                .collect();
            (
                "src/focus.rs".into(),
                format!("pub fn run(x: X) {{\n{calls}}}\n"),
            )
        },
    },
    Case {
        name: "python: a method inside a class",
        neighbour: |n| {
            (
                format!("pkg/holder{n:02}.py"),
                format!("class Holder{n}:\n    def method_number_{n}(self):\n        return {n}\n"),
            )
        },
        focus: |count| {
            let calls: String = (0..count)
                .map(|n| format!("    x.method_number_{n}()\n"))
                .collect();
            ("pkg/focus.py".into(), format!("def run(x):\n{calls}"))
        },
    },
];

#[test]
fn a_neighbour_is_shown_by_a_top_level_item_so_the_budget_lists_more_files() {
    let mut problems = Vec::new();
    for case in CASES {
        let sandbox = Sandbox::empty();
        let mut neighbours = Vec::new();
        for n in 0..NEIGHBOURS {
            let (rel, text) = (case.neighbour)(n);
            sandbox.write(&rel, &text);
            neighbours.push(rel);
        }
        let (focus, text) = (case.focus)(NEIGHBOURS);
        sandbox.write(&focus, &text);
        let daemon = Daemon::start(&sandbox, &[]);
        let result = daemon.ok("map", json!({"focus": [focus], "budget": BUDGET}));
        let text = result["map"].as_str().unwrap();
        let files = common::map_files(text);
        let missing: Vec<&String> = neighbours
            .iter()
            .filter(|n| !files.contains(&n.as_str()))
            .collect();
        if !missing.is_empty() {
            problems.push(format!("{}: {missing:?} not listed\n{text}", case.name));
        }
        // With room to spare, the nested names themselves are shown too.
        let wide = daemon.ok("map", json!({"focus": [focus], "budget": 100_000}));
        let wide = wide["map"].as_str().unwrap();
        if !wide.contains("method_number_0") {
            problems.push(format!(
                "{}: no nested name at a wide budget\n{wide}",
                case.name
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
