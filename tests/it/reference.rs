//! The reference documents' own calls, replayed unchanged: every JSON-form `@coder` example of
//! ChatCLI's coder plugin document (copied verbatim into tests/reference/chatcli-calls.txt) for
//! the read side is sent as its method with its args as params, on a workspace holding the files
//! the examples name, and must be understood (no error) and honoured (the window, the caps, the
//! glob it asks for).

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::Value;

/// The read-side subcommands this suite replays; the others are the envelope's (tests/agent).
const READ_SIDE: &[&str] = &["read", "tree", "search", "list-folder"];

/// `(cmd, args)` of each JSON-form call in the document, in order.
fn chatcli_calls() -> Vec<(String, Value)> {
    let text = include_str!("../reference/chatcli-calls.txt");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let args = line
                .split_once("args='")
                .and_then(|(_, rest)| rest.rsplit_once("'/>"))
                .map(|(args, _)| args)
                .unwrap_or_else(|| panic!("not a tool call: {line}"));
            let call: Value = serde_json::from_str(args).unwrap_or_else(|e| panic!("{line}: {e}"));
            let cmd = call["cmd"].as_str().expect("cmd").to_string();
            (cmd, call.get("args").cloned().unwrap_or(Value::Null))
        })
        .collect()
}

fn workspace() -> Sandbox {
    let sandbox = Sandbox::empty();
    let numbered =
        |prefix: &str, n: usize| -> String { (1..=n).map(|i| format!("{prefix} {i}\n")).collect() };
    let go = |n: usize| -> String {
        let mut text = String::from("package main\n\nimport \"fmt\"\n\nfunc main() {\n");
        for i in 6..n {
            text.push_str(&format!("\tfmt.Println(\"line {i}\") // TODO {i}\n"));
        }
        text + "}\n"
    };
    sandbox.write("main.go", &go(80));
    sandbox.write(
        "handler.go",
        &go(60).replace("func main() {", "func HandleRequest(name string) error {"),
    );
    sandbox.write("README.md", "# Project\n\nSome words.\n");
    sandbox.write("config.yaml", &numbered("key:", 40));
    sandbox.write("app.log", &numbered("error: event", 100));
    sandbox.write("internal/a.go", &go(10));
    sandbox.write("pkg/b.go", &numbered("// error", 50));
    std::fs::write(
        sandbox.root.join("image.png"),
        [0x89u8, b'P', b'N', b'G', 0, 1, 2, 255],
    )
    .unwrap();
    sandbox
}

#[test]
fn the_documents_read_side_examples_work_unchanged() {
    let calls = chatcli_calls();
    assert_eq!(calls.len(), 51, "the document has 51 @coder calls");
    let read_side: Vec<&(String, Value)> = calls
        .iter()
        .filter(|(cmd, args)| READ_SIDE.contains(&cmd.as_str()) && args.is_object())
        .collect();
    assert!(read_side.len() >= 16, "{read_side:?}");

    let sandbox = workspace();
    let daemon = Daemon::start(&sandbox, &[]);
    for (cmd, args) in read_side {
        let answer = daemon.call(cmd, args.clone());
        let result = answer
            .get("result")
            .unwrap_or_else(|| panic!("{cmd} {args}: {answer}"));
        honoured(cmd, args, result);
    }
}

/// The parts of each example's params that must visibly shape its answer.
fn honoured(cmd: &str, args: &Value, result: &Value) {
    let at = format!("{cmd} {args}");
    let arg = |k: &str| args.get(k).and_then(Value::as_u64);
    match cmd {
        "read" => {
            if let (Some(start), Some(end)) = (arg("start"), arg("end")) {
                assert_eq!(
                    (result["start"].as_u64(), result["end"].as_u64()),
                    (Some(start), Some(end)),
                    "{at}"
                );
            }
            if let Some(n) = arg("head").or(arg("tail")) {
                assert_eq!(
                    result["content"].as_str().unwrap().lines().count() as u64,
                    n,
                    "{at}"
                );
            }
            if args["encoding"] == "base64" {
                assert_eq!(result["encoding"], "base64", "{at}");
            }
        }
        "tree" => {
            let text = result.to_string();
            if args["glob"] == "*.go" {
                assert!(
                    text.contains("main.go") && !text.contains("README.md"),
                    "{at}: {text}"
                );
            }
        }
        "search" => {
            let count = result["match_count"]
                .as_u64()
                .unwrap_or_else(|| panic!("{at}: {result}"));
            assert!(count > 0, "{at}: {result}");
            let shown: usize = result["files"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|f| f["lines"].as_array().into_iter().flatten())
                .filter(|l| l["match"] == true)
                .count();
            if let Some(cap) = arg("max-results") {
                assert_eq!(
                    (shown as u64, &result["truncated_reason"]),
                    (cap, &Value::from("max_results")),
                    "{at}"
                );
            }
            if let Some(context) = arg("context") {
                let first = &result["files"][0]["lines"];
                let before = first
                    .as_array()
                    .unwrap()
                    .iter()
                    .take_while(|l| l["match"] == false)
                    .count();
                assert!(before as u64 <= context && before > 0, "{at}: {first}");
            }
            if args["glob"] == "*.go" {
                let paths = result["files"].as_array().unwrap();
                assert!(
                    paths
                        .iter()
                        .all(|f| f["path"].as_str().unwrap().ends_with(".go")),
                    "{at}"
                );
            }
        }
        _ => {}
    }
}
