//! `coderd lsp`, the editor face, driven two ways: by a scripted LSP client here (Content-Length
//! frames over the face's stdin/stdout), and by a real editor, headless Neovim with its built-in
//! LSP client (tests/editor/nvim_client.lua; installed by scripts/install-test-tools.sh). Both
//! against a daemon started by the harness, whose Ruby files are served by the scripted language
//! server of tests/it/lsp_fake.rs (one error per line containing BROKEN), added through the config.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lsp/fake_server.py");
/// A bound on every wait: the state asserted comes much sooner, even on a busy machine.
const PATIENCE: Duration = Duration::from_secs(60);

const SHAPES: &str = "class Shape\n  def area\n    0\n  end\nend\n\nclass Square < Shape\n  def initialize(side)\n    @side = side\n  end\n\n  def area\n    @side * @side\n  end\nend\n\ndef total(shapes)\n  shapes.sum(&:area)\nend\n";
const BROKEN: &str = "def oops\n  BROKEN\nend\n";

/// A workspace with two Ruby files and its daemon, the fake server serving Ruby.
fn workspace() -> (Sandbox, Daemon) {
    let sandbox = Sandbox::empty();
    sandbox.write("lib/shapes.rb", SHAPES);
    sandbox.write("lib/broken.rb", BROKEN);
    let config = sandbox.dir.path().join("coderd.yaml");
    let lsp = json!({"lsp": {
        "warm_deadline_ms": 8000,
        "cold_deadline_ms": 20000,
        "servers": [{"name": "fake", "command": FAKE, "languages": ["ruby"], "install": "tests/lsp/fake_server.py"}],
    }});
    std::fs::write(&config, lsp.to_string()).unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    (sandbox, daemon)
}

/// `coderd lsp` in front of a daemon, spoken to in LSP frames.
struct Editor {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Notifications received while waiting for something else.
    seen: Vec<Value>,
    next_id: u64,
}

impl Editor {
    fn start(daemon: &Daemon) -> Editor {
        let mut child = Command::new(env!("CARGO_BIN_EXE_coderd"))
            .arg("--socket")
            .arg(&daemon.socket)
            .args(["lsp", "--no-start"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn coderd lsp");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            while let Some(message) = read_frame(&mut stdout) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Editor {
            child,
            stdin,
            messages,
            seen: Vec::new(),
            next_id: 1,
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A request's whole response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
            self.seen.push(message);
        }
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params.clone());
        assert!(
            response.get("error").is_none(),
            "{method} {params}: {response}"
        );
        response["result"].clone()
    }

    /// The first notification of `method` whose params satisfy `wanted`.
    fn notification(&mut self, method: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let matches = |m: &Value| m["method"] == method && wanted(&m["params"]);
        if let Some(i) = self.seen.iter().position(matches) {
            return self.seen.remove(i)["params"].clone();
        }
        loop {
            let message = self.next();
            if matches(&message) {
                return message["params"].clone();
            }
            self.seen.push(message);
        }
    }

    fn next(&mut self) -> Value {
        self.messages
            .recv_timeout(PATIENCE)
            .expect("coderd lsp answered nothing within the patience bound")
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn initialized(daemon: &Daemon) -> Editor {
    let mut editor = Editor::start(daemon);
    let init = editor.result("initialize", json!({"capabilities": {}, "processId": null}));
    let caps = &init["capabilities"];
    assert_eq!(caps["documentSymbolProvider"], true, "{init}");
    assert_eq!(caps["workspaceSymbolProvider"], true, "{init}");
    assert_eq!(caps["experimental"]["coderd"]["map"], true, "{init}");
    editor.notify("initialized", json!({}));
    editor
}

#[test]
fn symbols_folding_and_the_map_come_from_the_daemons_structure() {
    let (sandbox, daemon) = workspace();
    let mut editor = initialized(&daemon);
    let shapes = sandbox.root.join("lib/shapes.rb");
    let doc = json!({"textDocument": {"uri": uri(&shapes)}});

    let symbols = editor.result("textDocument/documentSymbol", doc.clone());
    let tree: Vec<(String, Vec<String>)> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let children = s["children"].as_array().cloned().unwrap_or_default();
            let names = children
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_string());
            (s["name"].as_str().unwrap().to_string(), names.collect())
        })
        .collect();
    let expected = [
        ("Shape", vec!["area"]),
        ("Square", vec!["initialize", "area"]),
        ("total", vec![]),
    ];
    let expected: Vec<(String, Vec<String>)> = expected
        .iter()
        .map(|(n, c)| (n.to_string(), c.iter().map(|s| s.to_string()).collect()))
        .collect();
    assert_eq!(tree, expected, "{symbols:#}");
    // `class Square < Shape` is line 7; its name starts at column 6.
    let square = &symbols[1];
    assert_eq!(square["kind"], 5, "a class: {square}");
    assert_eq!(
        square["selectionRange"],
        json!({"start": {"line": 6, "character": 6}, "end": {"line": 6, "character": 12}})
    );
    assert_eq!(square["range"]["end"]["line"], 14);

    let folds = editor.result("textDocument/foldingRange", doc);
    let spans: Vec<(u64, u64)> = folds
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["startLine"].as_u64().unwrap(),
                f["endLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        spans.contains(&(6, 14)) && spans.contains(&(16, 18)),
        "{spans:?}"
    );

    let found = editor.result("workspace/symbol", json!({"query": "Square"}));
    assert_eq!(found[0]["name"], "Square", "{found:#}");
    assert_eq!(found[0]["location"]["uri"], uri(&shapes));
    assert_eq!(found[0]["location"]["range"]["start"]["line"], 6);

    let map = editor.result("coderd/map", json!({"budget": 2000, "mentions": ["total"]}));
    assert!(
        map["map"].as_str().unwrap().contains("lib/shapes.rb:"),
        "{map:#}"
    );
    let items = map["items"].as_array().unwrap();
    let total = items
        .iter()
        .find(|i| i["name"] == "total")
        .expect("total is shown");
    assert_eq!(total["location"]["uri"], uri(&shapes));
    assert_eq!(total["location"]["range"]["start"]["line"], 16);
    assert_eq!(items.len() as u64, map["items_shown"].as_u64().unwrap());
    // Ten files more than a small budget's items show: the rest named without them, as URIs
    // (once the daemon has seen the new files).
    for i in 0..10 {
        sandbox.write(
            &format!("lib/extra_{i}.rb"),
            &format!("def extra_{i}\n  {i}\nend\n"),
        );
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let small = loop {
        let small = editor.result("coderd/map", json!({"budget": 400}));
        if small["files"] == 12 || std::time::Instant::now() > deadline {
            break small;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let named = small["named"].as_array().unwrap();
    assert!(!named.is_empty(), "{small:#}");
    assert_eq!(named.len() as u64, small["files_named"].as_u64().unwrap());
    let mut files: Vec<String> = ["lib/shapes.rb".into(), "lib/broken.rb".into()].into();
    files.extend((0..10).map(|i| format!("lib/extra_{i}.rb")));
    let uris: Vec<Value> = files
        .iter()
        .map(|f| json!(uri(&sandbox.root.join(f))))
        .collect();
    assert!(named.iter().all(|n| uris.contains(n)), "{small:#}");
    // The fake server answers no definitions: they come from the tag index, by name. and references come from the tag index, by name.
    let at_call =
        json!({"textDocument": {"uri": uri(&shapes)}, "position": {"line": 17, "character": 15}});
    let found = editor.result("textDocument/definition", at_call.clone());
    let defined: Vec<u64> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(defined, [1, 11], "both `def area`: {found:#}");
    let mut refs_at = at_call.clone();
    refs_at["context"] = json!({"includeDeclaration": true});
    let refs = editor.result("textDocument/references", refs_at);
    let lines: Vec<u64> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [1, 11, 17], "{refs:#}");
    let hover = editor.result("textDocument/hover", at_call.clone());
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("def area"),
        "{hover:#}"
    );
    let rename = editor.request("textDocument/rename", json!({"textDocument": {"uri": uri(&shapes)}, "position": {"line": 17, "character": 15}, "newName": "size"}));
    assert_eq!(
        rename["error"]["data"]["code"], "C211",
        "no server, no rename: {rename}"
    );
    let bad = editor.request("coderd/map", json!({"budget": 0}));
    assert_eq!(bad["error"]["data"]["code"], "C210", "{bad}");
    // Issue 36: the hint was printed twice ("(hint: omit it …) (omit it …)").
    let message = bad["error"]["message"].as_str().unwrap();
    assert_eq!(message.matches("omit it for").count(), 1, "{message}");
}

/// Issue 36: `coderd/stats` refused `"params": []`, what Neovim sends for an empty table; and
/// `coderd lsp --help` named none of the navigation requests the face serves.
#[test]
fn stats_take_an_empty_list_and_the_help_names_every_request() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut editor = initialized(&daemon);
    for empty in [json!([]), json!({}), Value::Null] {
        let stats = editor.result("coderd/stats", empty.clone());
        assert!(stats["since_start"].is_object(), "{empty}: {stats}");
    }
    let help = Command::new(env!("CARGO_BIN_EXE_coderd"))
        .args(["lsp", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for request in [
        "symbols",
        "folding",
        "definition",
        "references",
        "hover",
        "rename",
        "coderd/map",
        "coderd/stats",
    ] {
        assert!(help.contains(request), "{request} in {help}");
    }
}

#[test]
fn diagnostics_are_relayed_and_unsaved_buffers_refuse_agent_edits() {
    let (sandbox, daemon) = workspace();
    let mut editor = initialized(&daemon);
    let broken = sandbox.root.join("lib/broken.rb");
    let broken_uri = uri(&broken);
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": broken_uri, "languageId": "ruby", "version": 1, "text": BROKEN}}),
    );
    let published = editor.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == broken_uri && p["diagnostics"].as_array().is_some_and(|d| !d.is_empty())
    });
    let finding = &published["diagnostics"][0];
    assert_eq!(finding["message"], "broken at line 2", "{published}");
    assert_eq!(finding["range"]["start"]["line"], 1);
    assert_eq!(finding["severity"], 1);

    // The person types in shapes.rb without saving: the agent's edit is refused, naming the
    // buffer's version, and the file stays as it was.
    let shapes = sandbox.root.join("lib/shapes.rb");
    let shapes_uri = uri(&shapes);
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": shapes_uri, "languageId": "ruby", "version": 1, "text": SHAPES}}),
    );
    let typed = SHAPES.replace("    0\n", "    1\n");
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": shapes_uri, "version": 2}, "contentChanges": [{"text": typed}]}),
    );
    // An edit whose search text is missing fails C211 once planned: it waits for the buffer.
    let probe = json!({"file": "lib/shapes.rb", "search": "no such text", "replace": "x"});
    wait_for_code(&daemon, &probe, |code| code == "C212");
    let agent_edit =
        json!({"file": "lib/shapes.rb", "search": "def total", "replace": "def sum_areas"});
    let refused = daemon.err("patch", agent_edit.clone());
    assert_eq!(refused["data"]["code"], "C212", "{refused}");
    assert_eq!(refused["data"]["buffer_version"], 2, "{refused}");
    assert_eq!(std::fs::read_to_string(&shapes).unwrap(), SHAPES);

    // Saved: the buffer matches the file again, and the agent's edit goes through.
    std::fs::write(&shapes, &typed).unwrap();
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": shapes_uri}, "text": typed}),
    );
    wait_for_code(&daemon, &probe, |code| code != "C212");
    daemon.ok("patch", agent_edit);
    let written = std::fs::read_to_string(&shapes).unwrap();
    assert!(written.contains("def sum_areas"));

    // The agent's edit of a file open in a clean buffer is shown in the editor: the new text,
    // for the buffer's version (the editor refuses it if the person typed meanwhile).
    let shown = editor.notification("workspace/applyEdit", |_| true);
    let change = &shown["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["uri"], shapes_uri);
    assert_eq!(change["textDocument"]["version"], 2, "{shown}");
    assert_eq!(change["edits"][0]["newText"], written.as_str());
}

/// Retries an agent's edit until its error code satisfies `wanted` (the face passes the editor's
/// notifications on asynchronously); the error.
fn wait_for_code(daemon: &Daemon, edit: &Value, wanted: impl Fn(&str) -> bool) -> Value {
    wait_for_method_code(daemon, "patch", edit, wanted)
}

/// Calls `method` until its error code is one `wanted` accepts: the editor face relays each
/// buffer to the daemon on its own, so a claim is in force only once an edit says so.
fn wait_for_method_code(
    daemon: &Daemon,
    method: &str,
    edit: &Value,
    wanted: impl Fn(&str) -> bool,
) -> Value {
    let start = Instant::now();
    loop {
        let reply = daemon.call(method, edit.clone());
        let code = reply["error"]["data"]["code"]
            .as_str()
            .unwrap_or("none")
            .to_string();
        if wanted(&code) {
            return reply["error"].clone();
        }
        assert!(start.elapsed() < PATIENCE, "still {code}: {reply}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn neovim_gets_symbols_a_relayed_diagnostic_and_the_map() {
    let nvim = Command::new("nvim").arg("--version").output();
    assert!(
        nvim.is_ok_and(|o| o.status.success()),
        "Neovim is not installed: run scripts/install-test-tools.sh (scripts/test.sh does)"
    );
    let (sandbox, daemon) = workspace();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/editor/nvim_client.lua");
    let out = sandbox.dir.path().join("nvim-out.json");
    let run = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("CODERD", env!("CARGO_BIN_EXE_coderd"))
        .env("SOCKET", &daemon.socket)
        .env("ROOT", &sandbox.root)
        .env("OUT", &out)
        .env("XDG_STATE_HOME", sandbox.dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("run nvim");
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!(
            "Neovim wrote no answers ({e}): {}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let got: Value = serde_json::from_str(&text).unwrap();
    assert!(got.get("error").is_none(), "{got:#}");
    assert_eq!(
        got["diagnostic"],
        json!({"message": "broken at line 2", "line": 1})
    );
    assert_eq!(
        got["document_symbols"],
        json!([
            {"name": "Shape", "children": ["area"]},
            {"name": "Square", "children": ["initialize", "area"]},
            {"name": "total", "children": []},
        ])
    );
    let shapes = uri(&sandbox.root.join("lib/shapes.rb"));
    assert_eq!(
        got["workspace_symbol"],
        json!({"name": "Square", "uri": shapes, "line": 6})
    );
    assert!(got["map"]["text"]
        .as_str()
        .unwrap()
        .contains("lib/shapes.rb:"));
    assert_eq!(got["map"]["total"], json!({"uri": shapes, "line": 16}));
}

/// The change of a count between two `stats` answers.
fn moved(before: &Value, after: &Value, pointer: &str) -> u64 {
    let at = |v: &Value| v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    at(after) - at(before)
}

#[test]
fn stats_count_each_call_exactly_on_every_face() {
    let sandbox = Sandbox::empty();
    sandbox.write("notes.txt", "one\ntwo\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let before = daemon.ok("stats", json!({}));
    let mut sent = 0;
    let mut call = |method: &str, params: Value| {
        sent += json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            .to_string()
            .len() as u64;
        daemon.call(method, params)
    };
    for _ in 0..3 {
        call("read", json!({"file": "notes.txt"}));
    }
    for _ in 0..2 {
        call("read", json!({"file": "missing.txt"}));
    }
    call("read", json!({"file": "/etc/hostname"}));
    call("no-such-method", json!({}));
    call(
        "patch",
        json!({"file": "notes.txt", "search": "absent", "replace": "x"}),
    );
    let after = daemon.ok("stats", json!({"minutes": 5}));
    let start = |p: &str| format!("/since_start{p}");
    assert_eq!(
        moved(&before, &after, &start("/methods/read/requests")),
        6,
        "{after:#}"
    );
    assert_eq!(moved(&before, &after, &start("/methods/read/errors")), 3);
    assert_eq!(
        moved(&before, &after, &start("/methods/read/errors_by_code/C211")),
        2
    );
    assert_eq!(
        moved(&before, &after, &start("/methods/read/errors_by_code/C215")),
        1
    );
    assert_eq!(
        moved(
            &before,
            &after,
            &start("/methods/(unknown method)/requests")
        ),
        1
    );
    assert_eq!(
        moved(&before, &after, &start("/methods/patch/errors")),
        1,
        "{after:#}"
    );
    // The first `stats` call is counted by the second; the second not by itself.
    assert_eq!(moved(&before, &after, &start("/methods/stats/requests")), 1);
    assert_eq!(moved(&before, &after, &start("/requests")), 9);
    assert_eq!(moved(&before, &after, &start("/errors")), 5);
    assert!(moved(&before, &after, &start("/bytes_in")) >= sent);
    assert!(moved(&before, &after, &start("/bytes_out")) > 0);
    // The window holds the same calls: the daemon is younger than it.
    assert_eq!(after["window"]["methods"]["read"]["requests"], 6);
    assert_eq!(after["window"]["errors_by_code"]["C211"], 2);
    assert_eq!(after["window"]["errors"], 5);
    let p99 = after["window"]["methods"]["read"]["p99_ms"]
        .as_f64()
        .unwrap();
    assert!(p99 > 0.0, "{after:#}");
    let bad = daemon.err("stats", json!({"minutes": 0}));
    assert_eq!(bad["data"]["code"], "C210");

    // `coder stats` renders the same counts as a table.
    let table = Command::new(common::coder_bin())
        .args(["--no-start", "--socket"])
        .arg(&daemon.socket)
        .args(["stats", "--minutes", "5"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    let read_row = table
        .lines()
        .find(|l| l.trim_start().starts_with("read "))
        .unwrap_or("");
    let cells: Vec<&str> = read_row.split_whitespace().collect();
    assert_eq!(cells.get(1..3), Some(&["6", "3"][..]), "{table}");
    assert!(table.contains("C211 2, C215 1"), "{table}");
    assert!(table.contains("last 5 min:"), "{table}");

    // The editor face answers the same numbers.
    let mut editor = initialized(&daemon);
    let through_lsp = editor.result("coderd/stats", json!({}));
    let reads = "/since_start/methods/read/requests";
    assert_eq!(through_lsp.pointer(reads), after.pointer(reads));
}

/// A person's unsaved buffer is theirs: no agent call changes the file under it (edits of a file
/// not on disk yet, deletes and moves of it or its folder, a restore, a rename, even a dry run),
/// no agent call lifts the claim (the `tool` envelope refuses `buffer`; another session's close
/// is not this one's), and positions in it are not taken for the file's. The editor's clean exit
/// lifts it.
#[test]
fn a_persons_unsaved_buffer_is_theirs_until_they_save_or_leave() {
    let (sandbox, daemon) = workspace();
    let snapshot = daemon.ok("checkpoint", json!({"create": true, "label": "before"}));
    let hash = snapshot["hash"]
        .as_str()
        .expect("a snapshot hash")
        .to_string();
    // Changed since the snapshot, so a restore would write it.
    let agents = format!("{SHAPES}# agent\n");
    daemon.ok("write", json!({"file": "lib/shapes.rb", "content": agents}));
    let mut editor = initialized(&daemon);
    let shapes = sandbox.root.join("lib/shapes.rb");
    let typed = SHAPES.replace("    0\n", "    1\n");
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&shapes), "languageId": "ruby", "version": 1, "text": typed}}),
    );
    let fresh = sandbox.root.join("lib/fresh.rb");
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&fresh), "languageId": "ruby", "version": 1, "text": "# new\n"}}),
    );
    let probe = json!({"file": "lib/shapes.rb", "search": "no such text", "replace": "x"});
    wait_for_code(&daemon, &probe, |code| code == "C212");
    // Both buffers' claims, not just the first one's: each open is relayed on its own.
    let fresh_probe = json!({"file": "lib/fresh.rb", "content": "# agent\n", "dry_run": true});
    wait_for_method_code(&daemon, "write", &fresh_probe, |code| code == "C212");
    let before = common::snapshot(&sandbox.root);

    let refused = [
        (
            "write",
            json!({"file": "lib/fresh.rb", "content": "# agent\n"}),
        ),
        (
            "create-file",
            json!({"files": [{"file": "lib/fresh.rb", "content": "x"}]}),
        ),
        ("delete-file", json!({"paths": ["lib/shapes.rb"]})),
        ("delete-file", json!({"paths": ["lib"], "recursive": true})),
        (
            "move",
            json!({"moves": [{"from": "lib/shapes.rb", "to": "shapes.rb"}]}),
        ),
        (
            "move",
            json!({"moves": [{"from": "lib/broken.rb", "to": "lib/shapes.rb", "overwrite": true}]}),
        ),
        ("checkpoint", json!({"restore": hash})),
        (
            "definition",
            json!({"file": "lib/shapes.rb", "line": 17, "symbol": "total"}),
        ),
        (
            "rename",
            json!({"file": "lib/shapes.rb", "line": 17, "symbol": "total", "new_name": "sum", "dry_run": true}),
        ),
        (
            "replace-symbol",
            json!({"file": "lib/shapes.rb", "symbol": "total", "content": "def total\n  0\nend"}),
        ),
        (
            "delete-symbol",
            json!({"file": "lib/shapes.rb", "symbol": "total", "dry_run": true, "force": true}),
        ),
    ];
    for (method, params) in refused {
        let error = daemon.err(method, params.clone());
        assert_eq!(error["data"]["code"], "C212", "{method} {params}: {error}");
    }
    // The restore's own undo snapshot may be taken; the files are what they were.
    assert_eq!(common::snapshot(&sandbox.root), before);

    // No agent lifts the claim: the envelope refuses `buffer`, and another session's report and
    // close are that session's own.
    let through_tool = daemon.err(
        "tool",
        json!({"cmd": "buffer", "args": {"file": "lib/shapes.rb", "editor": "x", "closed": true}}),
    );
    assert_eq!(through_tool["data"]["code"], "C214", "{through_tool}");
    for report in [
        json!({"file": "lib/shapes.rb", "editor": "agent", "version": 99, "text": SHAPES, "opened": true}),
        json!({"file": "lib/shapes.rb", "editor": "agent", "version": 99, "closed": true}),
    ] {
        daemon.ok("buffer", report);
    }
    let still = daemon.err("patch", probe.clone());
    assert_eq!(still["data"]["code"], "C212", "{still}");

    // The editor leaves cleanly: its buffers claim nothing any more.
    editor.result("shutdown", json!(null));
    wait_for_code(&daemon, &probe, |code| code == "C210");
    daemon.ok(
        "write",
        json!({"file": "lib/fresh.rb", "content": "# agent\n"}),
    );
}

#[test]
fn an_agents_edit_shows_its_new_findings_in_the_editor_without_a_save() {
    let (sandbox, daemon) = workspace();
    let mut editor = initialized(&daemon);
    let shapes = sandbox.root.join("lib/shapes.rb");
    let shapes_uri = uri(&shapes);
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": shapes_uri, "languageId": "ruby", "version": 1, "text": SHAPES}}),
    );
    // The open's relay (after the daemon knew the buffer): a clean file, no findings.
    editor.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == shapes_uri && p["diagnostics"].as_array().is_some_and(Vec::is_empty)
    });

    // The agent (through the socket, not the editor) breaks the file; nobody saves anything.
    daemon.ok(
        "patch",
        json!({"file": "lib/shapes.rb", "search": "    0\n", "replace": "    BROKEN\n"}),
    );
    let published = editor.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == shapes_uri && p["diagnostics"].as_array().is_some_and(|d| !d.is_empty())
    });
    assert_eq!(
        published["diagnostics"][0]["message"], "broken at line 3",
        "{published}"
    );
}
