//! The agent surface through the real daemon: ChatCLI's documented `@coder` examples replayed
//! through the `tool` envelope, the malformed-call corpus (exact call or exact refusal), and schema
//! errors as JSON Pointers for every method.

use crate::common;

use common::{matches, Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::Path;

fn data(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agent")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The subcommand an example names (its `cmd`, or the first word of a CLI line).
fn subcommand_of(raw: &str) -> String {
    let text = raw.trim();
    if !text.starts_with('{') {
        return text.split_whitespace().next().unwrap_or("").to_string();
    }
    let v: Value = serde_json::from_str(text).expect("the document's JSON examples are valid");
    let cmd = v["cmd"].as_str().unwrap_or("");
    cmd.split_whitespace().next().unwrap_or("").to_string()
}

/// Every @coder example of the ChatCLI document (JSON and CLI style) goes through the envelope on
/// a fixture workspace. For a registered method: the dry run names it, and the real call is not
/// refused for its params (it may still fail for what the fixture holds, e.g. a search text the
/// previous example replaced). For a method not registered yet: it must be listed as pending, and
/// it is refused as unknown; once it lands, the test says to move it out of the list.
#[test]
fn every_chatcli_example_is_understood_or_pending() {
    let examples = data("chatcli_examples.json");
    let pending: Vec<&str> = examples["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = Daemon::start(&sandbox, &[]);
    let registered: Vec<String> = daemon.ok("info", json!({}))["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let mut failures = Vec::new();
    let (mut understood, mut waiting) = (0, 0);
    for example in examples["examples"].as_array().unwrap() {
        let raw = example["raw"].as_str().unwrap();
        let sub = subcommand_of(raw);
        let dry = daemon.call("tool", json!({"raw": raw, "dry_run": true}));
        if !registered.contains(&sub) {
            waiting += 1;
            if !pending.contains(&sub.as_str()) {
                failures.push(format!(
                    "{raw}: `{sub}` is not registered and not listed as pending"
                ));
            }
            continue;
        }
        if pending.contains(&sub.as_str()) {
            failures.push(format!(
                "{raw}: `{sub}` is registered now: remove it from \"pending\""
            ));
        }
        if dry["result"]["method"] != json!(sub) {
            failures.push(format!("{raw}: dry run gave {dry}"));
            continue;
        }
        let real = daemon.call("tool", json!({"raw": raw}));
        let message = real["error"]["message"].as_str().unwrap_or("");
        if message.contains("invalid params") || real["error"]["data"].get("violations").is_some() {
            failures.push(format!("{raw}: params refused: {message}"));
            continue;
        }
        understood += 1;
    }
    eprintln!("chatcli examples: {understood} understood, {waiting} pending");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(understood > 0);
}

/// The malformed corpus (tests/agent/malformed.json, from scripts/gen-agent-corpus.py): each input
/// either becomes exactly the intended call (method and params, compared whole) with the named
/// strategy among `recovered_by`, or is refused with the expected message. Reports the recovery
/// rate where recovery is defined and the count of calls recovered into a different call (must
/// be 0).
#[test]
fn malformed_calls_become_the_intended_call_or_are_refused() {
    let corpus = data("malformed.json");
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = Daemon::start(&sandbox, &[]);
    let cases = corpus["cases"].as_array().unwrap();
    assert!(cases.len() >= 200, "{} cases", cases.len());
    let (mut recoverable, mut recovered, mut wrong_call) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut input = case["input"].clone();
        input["dry_run"] = json!(true);
        let response = daemon.call("tool", input);
        if let Some(expected) = case.get("expect") {
            recoverable += 1;
            let Some(result) = response.get("result") else {
                failures.push(format!("{name}: expected {expected}, got {response}"));
                continue;
            };
            let got = json!({"method": result["method"], "params": result["params"]});
            if &got != expected {
                wrong_call += 1;
                failures.push(format!("{name}: expected {expected}, got {got}"));
                continue;
            }
            if let Some(strategy) = case.get("strategy") {
                let steps = result["recovered_by"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                if !steps.contains(strategy) {
                    failures.push(format!("{name}: recovered_by {steps:?} lacks {strategy}"));
                    continue;
                }
            }
            recovered += 1;
        } else {
            let mut problems = Vec::new();
            match response.get("error") {
                Some(error) => {
                    let view = json!({"message": error["message"]});
                    matches(&case["expect_error"], &view, name, &mut problems);
                    if error["data"]["code"] != "C210" {
                        problems.push(format!("{name}: expected C210, got {error}"));
                    }
                }
                None => problems.push(format!("{name}: expected a refusal, got {response}")),
            }
            failures.extend(problems);
        }
    }
    eprintln!(
        "malformed corpus: {recovered}/{recoverable} recovered exactly ({:.1}%), {wrong_call} into a different call, {} refusals",
        100.0 * recovered as f64 / recoverable as f64,
        cases.len() - recoverable
    );
    assert_eq!(wrong_call, 0, "{}", failures.join("\n"));
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every method's schema refuses unknown keys (with a suggestion) and wrong types, all at once,
/// each at its JSON Pointer, over the plain socket.
#[test]
fn every_method_reports_every_violation_with_a_pointer() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = Daemon::start(&sandbox, &[]);
    let schemas = daemon.ok("schema", json!({}))["methods"].clone();
    let mut failures = Vec::new();
    for (name, described) in schemas.as_object().unwrap() {
        if name == "tool" || name.starts_with("coder::") || name == "shutdown" {
            continue;
        }
        let properties = described["params"]["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut params = json!({"zzz_unknown": 1});
        // A wrong type for the first property that has a declared type.
        let typed = properties.iter().find_map(|(k, p)| {
            let t = p.get("type")?;
            let wants_string =
                t == "string" || t.as_array().is_some_and(|a| a.contains(&json!("string")));
            Some((
                k.clone(),
                if wants_string {
                    json!(12)
                } else {
                    json!("twelve")
                },
            ))
        });
        if let Some((key, wrong)) = &typed {
            params[key] = wrong.clone();
        }
        let response = daemon.call(name, params);
        let Some(violations) = response["error"]["data"]["violations"].as_array() else {
            failures.push(format!("{name}: no violations in {response}"));
            continue;
        };
        let pointers: Vec<&str> = violations
            .iter()
            .filter_map(|v| v["pointer"].as_str())
            .collect();
        if !pointers.contains(&"/zzz_unknown") {
            failures.push(format!("{name}: unknown key not reported: {response}"));
        }
        if let Some((key, _)) = &typed {
            let at = format!("/{key}");
            let reported = violations.iter().any(|v| {
                v["pointer"] == at.as_str()
                    && v["message"].as_str().unwrap_or("").contains("expected")
            });
            if !reported {
                failures.push(format!(
                    "{name}: wrong type at {at} not reported: {response}"
                ));
            }
        }
        if response["error"]["data"]["code"] != "C210" {
            failures.push(format!("{name}: not C210: {response}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// In iii's terms an error is `{"code": "C2xx", "message": ...}`: the JSON-RPC error's `data` is
/// that object (plus the recovery hint), whichever name the method was called by.
#[test]
fn errors_carry_iii_error_objects() {
    let sandbox = Sandbox::fixture("iii");
    let daemon = Daemon::start(&sandbox, &[]);
    for method in ["coder::read-file", "read"] {
        let error = daemon.err(method, json!({"path": "missing.txt"}));
        assert_eq!(error["data"]["code"], "C211", "{error}");
        let message = error["data"]["message"].as_str().unwrap_or("");
        assert!(message.contains("missing.txt"), "{error}");
        assert!(
            !message.starts_with("C211"),
            "the object's message is the bare message: {error}"
        );
    }
}

/// The atomic tools' output caps are budgets: @read 80,000, @search 60,000, @tree 50,000 characters,
/// each result cut to fit and saying so, never an error. Dry runs say whether a call only reads.
#[test]
fn atomic_tools_keep_their_output_caps() {
    let sandbox = Sandbox::empty();
    let line = "a line of text that is forty chars long\n";
    sandbox.write("big.txt", &line.repeat(5000));
    for f in 0..300 {
        sandbox.write(
            &format!("hits/f{f:03}.txt"),
            &"needle in a haystack of words\n".repeat(10),
        );
    }
    for f in 0..2500 {
        sandbox.write(&format!("wide/entry-with-a-long-name-{f:05}.txt"), "x\n");
    }
    let daemon = Daemon::start(&sandbox, &[]);

    let read = daemon.ok(
        "tool",
        json!({"tool": "@read", "raw": "{\"file\": \"big.txt\"}"}),
    );
    assert!(read["read_only"] == true, "{read}");
    let content = read["result"]["content"].as_str().unwrap();
    assert!(
        content.len() <= 80_000 && content.len() > 70_000,
        "{}",
        content.len()
    );
    assert_eq!(read["result"]["truncated"], true);
    assert!(read["result"]["next_start"].as_u64().unwrap() > 1);

    let search = daemon.ok(
        "tool",
        json!({"tool": "@search", "args": {"term": "needle", "max_results": 5000}}),
    );
    let text = search["result"].to_string();
    assert!(text.len() <= 60_000, "{}", text.len());
    assert_eq!(search["result"]["truncated"], true);
    assert!(search["result"]["truncation_note"]
        .as_str()
        .unwrap()
        .contains("60000"));
    assert!(!search["result"]["files"].as_array().unwrap().is_empty());
    // The text form is cut after a whole line.
    let search = daemon.ok(
        "tool",
        json!({"tool": "@search", "args": {"term": "needle", "max_results": 5000, "format": "text"}}),
    );
    let text = search["result"]["text"].as_str().unwrap();
    assert!(search["result"].to_string().len() <= 60_000);
    assert!(text.len() > 50_000 && text.ends_with("needle in a haystack of words\n"));
    assert_eq!(search["result"]["truncated_reason"], "output_cap");

    let tree = daemon.ok("tool", json!({"tool": "@tree", "args": {"dir": "wide", "per_folder_limit": 5000, "max_entries": 5000}}));
    let text = tree["result"].to_string();
    assert!(text.len() <= 50_000, "{}", text.len());
    assert_eq!(tree["result"]["truncated"], true);
    assert!(tree["result"]["truncation_note"]
        .as_str()
        .unwrap()
        .contains("50000"));

    // The same calls through @coder are not capped by the atomic budgets.
    let plain = daemon.ok(
        "tool",
        json!({"cmd": "search", "args": {"term": "needle", "max_results": 5000}}),
    );
    assert!(plain["result"].to_string().len() > 60_000);
    let write = daemon.ok(
        "tool",
        json!({"cmd": "write", "args": {"file": "w.txt", "content": "x"}, "dry_run": true}),
    );
    assert_eq!(write["read_only"], false);
}

/// Curly quotes in model text become straight only in code files that hold none; markdown and files
/// that already use curly quotes are written as sent; the answer counts the replacements.
#[test]
fn curly_quotes_are_straightened_only_where_they_cannot_be_meant() {
    let sandbox = Sandbox::empty();
    sandbox.write(
        "main.go",
        "package main\n\nfunc main() {\n\tprintln(\"old\")\n}\n",
    );
    sandbox.write("i18n.go", "package main\n\nvar quote = \"«x» “y”\"\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let read = |file: &str| std::fs::read_to_string(sandbox.root.join(file)).unwrap();

    let write = daemon.ok(
        "tool",
        json!({"cmd": "write", "args": {"file": "new.py", "content": "print(“hi”, ‘x’)\n"}}),
    );
    assert_eq!(write["quotes_straightened"], 4, "{write}");
    assert_eq!(read("new.py"), "print(\"hi\", 'x')\n");

    let patch = daemon.ok("tool", json!({"cmd": "patch", "args": {"file": "main.go", "search": "println(\"old\")", "replace": "println(“new”)"}}));
    assert_eq!(patch["quotes_straightened"], 2, "{patch}");
    assert!(read("main.go").contains("println(\"new\")"));

    let kept = daemon.ok("tool", json!({"cmd": "patch", "args": {"file": "i18n.go", "search": "var quote", "replace": "var said = “z”\nvar quote"}}));
    assert!(kept.get("quotes_straightened").is_none(), "{kept}");
    assert!(read("i18n.go").contains("var said = “z”"));

    let prose = daemon.ok(
        "tool",
        json!({"cmd": "write", "args": {"file": "notes.md", "content": "She said “hi”.\n"}}),
    );
    assert!(prose.get("quotes_straightened").is_none(), "{prose}");
    assert_eq!(read("notes.md"), "She said “hi”.\n");

    let multi = daemon.ok("tool", json!({"cmd": "multipatch", "args": {"edits": [
        {"file": "main.go", "search": "func main()", "replace": "func main() { _ = ‘a’ }\nfunc other()"}]}}));
    assert_eq!(multi["quotes_straightened"], 2, "{multi}");
}

/// A deep value as request text: `prefix`, `open` × depth, `middle`, `close` × depth, `suffix`.
fn deep_text(case: &Value) -> String {
    let part = |key: &str| case[key].as_str().unwrap_or("").to_string();
    let depth = case["depth"].as_u64().unwrap() as usize;
    let mut text = part("prefix");
    text.push_str(&part("open").repeat(depth));
    text.push_str(&part("middle"));
    text.push_str(&part("close").repeat(depth));
    text.push_str(&part("suffix"));
    text
}

/// The request line of a deep case: `@DEEP` replaced by the deep text, as JSON or as string content.
fn deep_request(case: &Value) -> String {
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": case["method"], "params": case["params"]});
    let line = request.to_string();
    let text = deep_text(case);
    match case["in_string"].as_bool().unwrap_or(false) {
        true => {
            let escaped = serde_json::to_string(&text).unwrap();
            line.replace("@DEEP", &escaped[1..escaped.len() - 1])
        }
        false => line.replace("\"@DEEP\"", &text),
    }
}

/// Asserts the daemon process still runs and answers `info` on a new connection.
fn assert_alive(daemon: &mut Daemon, after: &str) {
    assert!(
        daemon.child.try_wait().unwrap().is_none(),
        "the daemon died after {after}; log:\n{}",
        daemon.log_text()
    );
    let info = daemon.call("info", json!({}));
    assert!(info["result"]["pid"].is_u64(), "after {after}: {info}");
}

/// Issue 21: one ~50 KB request nested 10,000 deep aborted the daemon (a stack overflow in JSON
/// recovery, not a panic). Every entry point (socket params, an iii id, `tool`'s raw text, its
/// `args` as text and as JSON, a CLI flag's value, an atomic tool's args) is held to 64 levels:
/// C210 naming the limit and where, and the daemon answers the next request. tests/agent/deep.json.
#[test]
fn requests_nested_100k_deep_are_refused_naming_the_limit_and_the_daemon_lives() {
    let sandbox = Sandbox::empty();
    let mut daemon = Daemon::start(&sandbox, &[]);
    let cases = data("deep.json");
    let mut failures = common::Failures::default();
    let total = cases["cases"].as_array().unwrap().len();
    for case in cases["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut client = daemon.client();
        client.send_line(&deep_request(case));
        let answer = client.recv();
        let error = &answer["error"];
        let mut problems = Vec::new();
        if error["code"] != case["rpc"] || error["data"]["code"] != "C210" {
            problems.push(format!("expected {} C210, got {answer}", case["rpc"]));
        }
        let says = case["says"].as_str().unwrap();
        if !error["message"].as_str().unwrap_or("").contains(says) {
            problems.push(format!("the message does not say `{says}`: {answer}"));
        }
        failures.record(name, &problems);
        assert_alive(&mut daemon, name);
    }
    failures.assert_none("deep requests", total);
}

/// Issue 21: `exec` with a command nested 5,000 deep (`${a:-${a:-…}}`) took the daemon down in the
/// bash parser. The parser's own bound lives in crates/exec/src (the policy work, C214 `parse-error`), so
/// on the agent branch alone this test fails until that branch is merged; it holds the socket to
/// it: whatever the answer (a decision, a refusal, an error), the daemon lives.
#[test]
fn an_exec_command_nested_5000_deep_is_answered_and_the_daemon_lives() {
    let sandbox = Sandbox::empty();
    let mut daemon = Daemon::start(&sandbox, &[]);
    let case = json!({"method": "exec", "params": {"cmd": "@DEEP", "dry_run": true}, "in_string": true,
        "prefix": "echo ", "open": "${a:-", "middle": "x", "close": "}", "depth": 5000});
    let mut client = daemon.client();
    client.send_line(&deep_request(&case));
    let answer = client.recv();
    assert!(
        answer.get("result").is_some() || answer["error"]["data"]["code"].is_string(),
        "{answer}"
    );
    assert_alive(&mut daemon, "a deep exec command");
}

/// Issue 21: `dry_run` inside `tool`'s raw text was dropped, so the call ran (it wrote the file).
/// In every form of tests/agent/dry_run.json it is honoured or refused; nothing is written, and a
/// dry run takes no automatic checkpoint. The same text without `dry_run` does write (the control).
#[test]
fn dry_run_in_a_tool_calls_text_is_honoured_or_refused_in_every_form() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let made = sandbox.root.join("made.txt");
    let cases = data("dry_run.json");
    let mut failures = common::Failures::default();
    let total = cases["cases"].as_array().unwrap().len();
    for case in cases["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let taken = || daemon.ok("checkpoint", json!({}))["auto"]["taken"].clone();
        let taken_before = taken();
        let answer = daemon.call("tool", case["params"].clone());
        let mut problems = Vec::new();
        match case["expect"].as_str().unwrap() {
            "dry_run" => {
                let result = &answer["result"];
                if result["method"] != case["method"]
                    || !result["params"].is_object()
                    || result.get("result").is_some()
                {
                    problems.push(format!("not a dry run of `{}`: {answer}", case["method"]));
                }
                if taken() != taken_before {
                    problems.push("a dry run took an automatic checkpoint".into());
                }
            }
            "decision" => {
                let result = &answer["result"];
                if result["method"] != case["method"] || !result["result"]["allowed"].is_boolean() {
                    problems.push(format!("not `{}`'s decision: {answer}", case["method"]));
                }
            }
            "preview" => {
                let result = &answer["result"];
                let diff = result["result"]["diff"].as_str().unwrap_or_default();
                if result["method"] != case["method"] || !diff.contains("+x") {
                    problems.push(format!("not `{}`'s diff: {answer}", case["method"]));
                }
                if taken() != taken_before {
                    problems.push("a dry run took an automatic checkpoint".into());
                }
            }
            _ => {
                let says = case["says"].as_str().unwrap();
                let message = answer["error"]["message"].as_str().unwrap_or("");
                if answer["error"]["data"]["code"] != "C210" || !message.contains(says) {
                    problems.push(format!("not refused saying `{says}`: {answer}"));
                }
            }
        }
        if made.exists() {
            problems.push("made.txt was created: the call ran".into());
            std::fs::remove_file(&made).unwrap();
        }
        failures.record(name, &problems);
    }
    failures.assert_none("dry_run forms", total);
    // The control: the same text without the switch runs.
    let ran = daemon.ok(
        "tool",
        json!({"raw": "{'cmd': 'write', 'args': {'file': 'made.txt', 'content': 'x'}}"}),
    );
    assert_eq!(ran["method"], "write", "{ran}");
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "x");
}

/// Issue 21: `test` was labelled read-only though it runs project code: a Makefile `test:` target
/// deleted a file and no automatic checkpoint was taken. `test` mutates: `tool` says it is not
/// read-only, the automatic checkpoint runs before it, and that snapshot brings the file back.
#[test]
fn test_runs_project_code_so_it_is_snapshotted_first_and_never_read_only() {
    let sandbox = Sandbox::empty();
    sandbox.write("Makefile", "test:\n\trm -f keep.txt\n");
    sandbox.write("keep.txt", "precious\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let info = daemon.ok("info", json!({}));
    assert!(
        info["mutating_methods"]
            .as_array()
            .unwrap()
            .contains(&json!("test")),
        "{info}"
    );
    let dry = daemon.ok("tool", json!({"cmd": "test", "dry_run": true}));
    assert_eq!(dry["read_only"], false, "{dry}");
    let todo = daemon.ok("tool", json!({"cmd": "todo", "dry_run": true}));
    assert_eq!(todo["read_only"], false, "todo writes the plan: {todo}");

    let ran = daemon.ok("test", json!({}));
    assert_eq!(ran["framework"], "make", "{ran}");
    assert!(!sandbox.root.join("keep.txt").exists(), "{ran}");
    let listing = daemon.ok("checkpoint", json!({}));
    let auto = listing["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "auto: before test")
        .unwrap_or_else(|| panic!("no automatic snapshot before `test`: {listing}"));
    daemon.ok("checkpoint", json!({"restore": auto["hash"]}));
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join("keep.txt")).unwrap(),
        "precious\n"
    );
}
