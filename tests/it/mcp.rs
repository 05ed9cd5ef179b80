//! `coderd mcp` driven by a client nobody here wrote: the official Python MCP SDK (installed by
//! scripts/install-mcp-client.sh, which scripts/test.sh runs first). The client spawns `coderd mcp`,
//! which starts the workspace's daemon on the socket it is given; the checks are in
//! tests/agent/mcp_client.py (list tools, read, patch, search, errors).

use crate::common;

use common::Sandbox;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

#[test]
fn the_python_mcp_sdk_lists_and_calls_coderd_tools() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = manifest.join("target/mcp-client-venv/bin/python");
    assert!(
        python.exists(),
        "the MCP client is not installed: run scripts/install-mcp-client.sh (scripts/test.sh does)"
    );
    let sandbox = Sandbox::fixture("chatcli");
    let socket = sandbox.socket();
    let out = Command::new(&python)
        .arg(manifest.join("tests/agent/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_coderd"))
        .arg(&sandbox.root)
        .arg(&socket)
        .output()
        .expect("run the MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The daemon `coderd mcp` started for the workspace is stopped with the sandbox's socket.
    let _ = Command::new(common::coder_bin())
        .args(["--no-start", "--socket"])
        .arg(&socket)
        .arg("shutdown")
        .output();
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "MCP client failed:\n{stdout}\n{stderr}"
    );
    eprintln!("{stdout}");
}

/// `coderd mcp` driven line by line over its stdin/stdout (no SDK: these tests send what no SDK
/// would, a cut line, a request nested 100,000 deep), in front of a daemon started by the harness.
struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Mcp {
    fn start(daemon: &common::Daemon) -> Mcp {
        let mut command = Command::new(env!("CARGO_BIN_EXE_coderd"));
        command
            .arg("--socket")
            .arg(&daemon.socket)
            .args(["mcp", "--no-start"])
            .stderr(std::process::Stdio::null());
        Mcp::spawn(command)
    }

    /// `coderd mcp` as `command` runs it (its stdin and stdout become the session's).
    fn spawn(mut command: Command) -> Mcp {
        use std::io::BufRead;
        let mut child = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn coderd mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
        };
        let init = mcp.call(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "tests/mcp.rs", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "coderd", "{init}");
        mcp.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    fn send(&mut self, line: &str) {
        use std::io::Write;
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line `coderd mcp` writes. An answer that never comes is the failure this file
    /// looks for, so the wait is bounded (generously: it is a failure bound, not a pace).
    fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("coderd mcp wrote no answer");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.recv()
    }

    fn tool(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.call(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a tool result (its first content block).
fn tool_text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no tool result: {answer}"))
        .to_string()
}

/// Issue 21: a cut JSON line got no answer from `coderd mcp` (rmcp drops lines that do not parse),
/// so the client waited for ever. JSON-RPC's answer is -32700 with a null id; the session goes on.
#[test]
fn a_cut_line_is_answered_with_a_parse_error_and_the_session_goes_on() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = common::Daemon::start(&sandbox, &[]);
    let mut mcp = Mcp::start(&daemon);
    mcp.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","argu"#);
    let answer = mcp.recv();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["data"]["code"], "C210", "{answer}");
    let read = mcp.tool(2, "read", json!({"file": "main.go", "start": 1, "end": 1}));
    assert_eq!(read["id"], 2, "{read}");
    assert!(tool_text(&read).contains("package main"), "{read}");
}

/// Issue 21: `test` was announced `readOnlyHint: true, destructiveHint: false` though it runs
/// project code, and `todo` as read-only though it writes the plan. Every tool's annotations now
/// say what a call may do (src/protocol/keys.rs `hints`, from each entry's `mutates` and `hints`).
#[test]
fn tool_annotations_are_true_to_what_each_tool_does() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = common::Daemon::start(&sandbox, &[]);
    let mut mcp = Mcp::start(&daemon);
    let list = mcp.call(1, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let hints = |name: &str| {
        let tool = tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}"));
        let a = &tool["annotations"];
        [
            a["readOnlyHint"].clone(),
            a["destructiveHint"].clone(),
            a["idempotentHint"].clone(),
            a["openWorldHint"].clone(),
        ]
    };
    let (t, f) = (json!(true), json!(false));
    // [read-only, destructive, idempotent, open world]
    let expected = [
        ("read", [&t, &f, &t, &f]),
        ("search", [&t, &f, &t, &f]),
        ("git-status", [&t, &f, &t, &f]),
        ("patch", [&f, &t, &f, &f]),
        ("write", [&f, &t, &t, &f]),
        ("checkpoint", [&f, &t, &f, &f]),
        ("exec", [&f, &t, &f, &t]),
        ("test", [&f, &t, &f, &t]),
        ("todo", [&f, &t, &t, &f]),
    ];
    for (name, want) in expected {
        let got = hints(name);
        let want: Vec<Value> = want.iter().map(|v| (*v).clone()).collect();
        assert_eq!(got.to_vec(), want, "{name}");
    }
}

/// Issue 21: requests nested deep through MCP. A line nested 100,000 deep stops the parser: -32700
/// naming the limit. Arguments nested 100 deep parse, and the daemon refuses them (C210 naming the
/// limit and the pointer) as a tool error. Both `coderd mcp` and the daemon answer the next call.
#[test]
fn arguments_nested_deep_are_refused_naming_the_limit_and_both_processes_live() {
    let sandbox = Sandbox::fixture("chatcli");
    let mut daemon = common::Daemon::start(&sandbox, &[]);
    let mut mcp = Mcp::start(&daemon);
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let line = |id: u64, n: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read","arguments":{{"file":{}}}}}}}"#,
            deep(n)
        )
    };
    mcp.send(&line(1, 100_000));
    let answer = mcp.recv();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("nested deeper than 64 levels"), "{answer}");

    mcp.send(&line(2, 100));
    let answer = mcp.recv();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        tool_text(&answer)
            .contains("the params of `read`: nested deeper than 64 levels (at /file/0/0"),
        "{answer}"
    );
    assert_eq!(answer["result"]["structuredContent"]["code"], "C210");

    let info = mcp.tool(3, "info", json!({}));
    assert!(tool_text(&info).contains("\"pid\""), "{info}");
    assert!(
        daemon.child.try_wait().unwrap().is_none(),
        "the daemon died"
    );
}

/// Issue 21: `exec` with a command nested 5,000 deep through MCP took the daemon down in the bash
/// parser (bounded in crates/exec/src by the policy work: on the agent branch alone this test fails until
/// that branch is merged). Whatever the answer, the daemon lives.
#[test]
fn an_exec_command_nested_5000_deep_through_mcp_leaves_the_daemon_alive() {
    let sandbox = Sandbox::fixture("chatcli");
    let mut daemon = common::Daemon::start(&sandbox, &[]);
    let mut mcp = Mcp::start(&daemon);
    let cmd = format!("echo {}x{}", "${a:-".repeat(5000), "}".repeat(5000));
    let answer = mcp.tool(1, "exec", json!({"cmd": cmd, "dry_run": true}));
    assert_eq!(answer["id"], 1, "{answer}");
    let info = mcp.tool(2, "info", json!({}));
    let text = info["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        text.contains("\"pid\""),
        "the daemon no longer answers after a deep exec command: {info}"
    );
    assert!(
        daemon.child.try_wait().unwrap().is_none(),
        "the daemon died"
    );
}

/// The JSON-RPC line of an answer, as `coderd mcp` wrote it (its length is what a client reads).
fn line_of(answer: &Value) -> usize {
    answer.to_string().len()
}

/// Issue 36: `patch` had no `dry_run` (C210), so an MCP client could not preview an edit. Every
/// content edit (`patch`, `multipatch`, `write`, `update-file`) now answers a dry run with each
/// file's unified diff and changes nothing: the file stays byte-identical and no automatic
/// checkpoint is taken; the same call without `dry_run` then makes exactly that change.
#[test]
fn an_mcp_client_previews_every_content_edit_as_a_diff_and_nothing_changes() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = common::Daemon::start(&sandbox, &[]);
    let mut mcp = Mcp::start(&daemon);
    let main = sandbox.root.join("main.go");
    let before = std::fs::read(&main).unwrap();
    let line = String::from_utf8_lossy(&before)
        .lines()
        .find(|l| l.contains("package main"))
        .unwrap()
        .to_string();
    let taken = || daemon.ok("checkpoint", json!({}))["auto"]["taken"].clone();
    let taken_before = taken();
    let edits = [
        (
            "patch",
            json!({"file": "main.go", "search": line, "replace": "package preview"}),
        ),
        (
            "multipatch",
            json!({"edits": [{"file": "main.go", "search": line, "replace": "package preview"}]}),
        ),
        (
            "write",
            json!({"file": "main.go", "content": "package preview\n"}),
        ),
        (
            "update-file",
            json!({"files": [{"path": "main.go", "ops": [{"op": "update_lines", "from_line": 1, "to_line": 1, "content": "package preview"}]}]}),
        ),
    ];
    for (id, (name, mut arguments)) in edits.into_iter().enumerate() {
        arguments["dry_run"] = json!(true);
        let answer = mcp.tool(id as u64 + 1, name, arguments);
        assert_eq!(answer["result"]["isError"], false, "{name}: {answer}");
        let text = tool_text(&answer);
        let result: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let file = result.get("files").map_or(&result, |files| &files[0]);
        let diff = file["diff"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no diff: {text}"));
        assert!(diff.contains("+package preview"), "{name}: {diff}");
        assert!(diff.contains(&format!("-{line}")), "{name}: {diff}");
        assert_eq!(
            std::fs::read(&main).unwrap(),
            before,
            "{name} changed the file"
        );
    }
    assert_eq!(
        taken(),
        taken_before,
        "a dry run took an automatic checkpoint"
    );
    // The control: the same patch without `dry_run` changes the file.
    let ran = mcp.tool(
        9,
        "patch",
        json!({"file": "main.go", "search": line, "replace": "package preview"}),
    );
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    assert!(String::from_utf8_lossy(&std::fs::read(&main).unwrap()).contains("package preview"));
}

/// A file of real source text (quotes, backslashes, tabs: what JSON escapes) of about `bytes`.
fn source_text(bytes: usize) -> String {
    let real =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/read/mod.rs"))
            .unwrap();
    let mut text = String::new();
    for line in real.lines().cycle() {
        if text.len() + line.len() + 1 > bytes {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Issue 36: every answer was sent twice (pretty-printed JSON text, plus the same JSON as
/// `structuredContent`): a 100 KB read answered 203 KB, and a line window over a bigger file
/// 202 KB though a whole read of it is refused above `max_output_bytes`. An answer is now sent
/// once, as compact text, and a window is capped by the whole read's budget (`truncated`,
/// `next_start`).
#[test]
fn an_answer_is_sent_once_and_a_window_never_exceeds_a_whole_reads_budget() {
    let sandbox = Sandbox::fixture("chatcli");
    let hundred = source_text(100_000);
    sandbox.write("hundred.rs", &hundred);
    sandbox.write("big.rs", &source_text(400_000));
    let daemon = common::Daemon::start(&sandbox, &[]);
    let budget = daemon.ok("info", json!({}))["limits"]["max_output_bytes"]
        .as_u64()
        .unwrap();
    let mut mcp = Mcp::start(&daemon);

    // Every line of it (a read with no range stops at 2000 lines; this file has more).
    let read = mcp.tool(
        1,
        "read",
        json!({"file": "hundred.rs", "start": 1, "end": 100000}),
    );
    assert!(
        read["result"].get("structuredContent").is_none(),
        "sent twice: {}",
        &read.to_string()[..300]
    );
    let result: Value = serde_json::from_str(&tool_text(&read)).unwrap();
    let content = result["content"].as_str().unwrap();
    assert!(
        content == hundred,
        "not the whole file: {} of {} bytes",
        content.len(),
        hundred.len()
    );
    let sent = line_of(&read);
    eprintln!(
        "a read of {} bytes answers {sent} bytes over MCP",
        hundred.len()
    );
    assert!(sent <= 130_000, "a 100 KB read answered {sent} bytes");

    // A window over a file too big to read whole: cut at a line within the same budget.
    let refused = mcp.tool(2, "read", json!({"file": "big.rs"}));
    assert_eq!(
        refused["result"]["isError"],
        true,
        "{}",
        &refused.to_string()[..300]
    );
    let window = mcp.tool(
        3,
        "read",
        json!({"file": "big.rs", "start": 1, "end": 100000}),
    );
    let result: Value = serde_json::from_str(&tool_text(&window)).unwrap();
    assert_eq!(result["truncated"], true, "{}", &result.to_string()[..300]);
    assert!(result["next_start"].as_u64().unwrap() > 1);
    let content = result["content"].as_str().unwrap();
    assert!(
        content.len() as u64 <= budget,
        "a window of {} bytes over a budget of {budget}",
        content.len()
    );
    assert!(content.ends_with('\n'), "cut at a line boundary");
}

/// Issue 36: `exec` whose command exited 3 was `isError: false`, so a client took a failure for a
/// success. A command that fails (a non-zero exit) is a tool error that still carries its output;
/// one that exits 0, and a `dry_run` decision, are not.
#[test]
fn a_command_that_fails_is_a_tool_error_with_its_output() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = common::Daemon::start(&sandbox, &[]);
    let mut mcp = Mcp::start(&daemon);
    let failed = mcp.tool(
        1,
        "exec",
        json!({"cmd": "echo to-stdout; echo to-stderr >&2; exit 3"}),
    );
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let result: Value = serde_json::from_str(&tool_text(&failed)).unwrap();
    assert_eq!(result["exit_code"], 3, "{result}");
    assert!(
        result["stdout"].as_str().unwrap().contains("to-stdout"),
        "{result}"
    );
    assert!(
        result["stderr"].as_str().unwrap().contains("to-stderr"),
        "{result}"
    );
    let passed = mcp.tool(2, "exec", json!({"cmd": "echo fine"}));
    assert_eq!(passed["result"]["isError"], false, "{passed}");
    let decided = mcp.tool(3, "exec", json!({"cmd": "exit 3", "dry_run": true}));
    assert_eq!(decided["result"]["isError"], false, "{decided}");
}

/// Issue 36: the logs on stderr carried ANSI colour codes into files and clients' captures. A
/// daemon that `coderd mcp` starts logs to a file through its stderr: plain text. So does
/// `coderd mcp` itself, whose stderr the client captures.
#[test]
fn logs_on_a_stderr_that_is_no_terminal_are_plain_text() {
    let sandbox = Sandbox::fixture("chatcli");
    let socket = sandbox.socket();
    let dir = sandbox.dir.path();
    let mcp_log = dir.join("mcp-stderr.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_coderd"));
    command
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("CODERD_SERVERS_DIR", dir.join("no-servers"))
        .env("CODERD_SERVERS_PATH", dir.join("no-servers"))
        .args(["--log", "debug", "--root"])
        .arg(&sandbox.root)
        .arg("--socket")
        .arg(&socket)
        .arg("mcp")
        .stderr(std::fs::File::create(&mcp_log).unwrap());
    /// Stops the daemon `coderd mcp` started, whatever the test's outcome.
    struct Stop(std::path::PathBuf);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = Command::new(common::coder_bin())
                .args(["--no-start", "--socket"])
                .arg(&self.0)
                .arg("shutdown")
                .output();
        }
    }
    let _stop = Stop(socket.clone());
    let mut mcp = Mcp::spawn(command);
    let info = mcp.tool(1, "info", json!({}));
    assert!(tool_text(&info).contains("\"pid\""), "{info}");
    drop(mcp);
    // The daemon's stderr is its log file beside the socket (wire::client::start_daemon).
    let mut daemon_log = socket.clone().into_os_string();
    daemon_log.push(".log");
    let daemon_log = std::fs::read_to_string(&daemon_log).unwrap();
    assert!(daemon_log.contains("serving"), "{daemon_log}");
    assert!(
        !daemon_log.contains('\x1b'),
        "colour codes in the daemon's log: {daemon_log:?}"
    );
    let mcp_log = std::fs::read_to_string(&mcp_log).unwrap();
    assert!(
        !mcp_log.contains('\x1b'),
        "colour codes in coderd mcp's stderr: {mcp_log:?}"
    );
}
