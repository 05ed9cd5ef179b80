//! `coderd mcp` driven by a client nobody here wrote: the official Python MCP SDK (installed by
//! scripts/install-mcp-client.sh, which scripts/test.sh runs first). The client spawns `coderd mcp`,
//! which starts the workspace's daemon on the socket it is given; the checks are in
//! tests/agent/mcp_client.py (list tools, read, patch, search, errors).

mod common;

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
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_coderd"))
            .arg("--socket")
            .arg(&daemon.socket)
            .args(["mcp", "--no-start"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
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
/// say what a call may do (src/protocol/keys.rs `hints`, data/agent.toml).
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
/// parser (bounded in src/exec by the policy work: on the agent branch alone this test fails until
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
