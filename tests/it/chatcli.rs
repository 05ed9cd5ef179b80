//! coderd as ChatCLI's `@coder` (docs/chatcli.md), tested by playing ChatCLI's part as its
//! source does (diillson/chatcli 1.188.0: `cli/plugins/plugin.go`, `manager.go`, and
//! `buildArgvFromJSONMap` in `cli/agent_tool_sanitizer.go`): the plugins are installed by `coder
//! chatcli install` into a temporary HOME, probed with `--metadata`, run as a child process in
//! the workspace (ChatCLI's working folder) with the argv ChatCLI flattens from a model's JSON
//! envelope, and judged by exit code, stdout and stderr. ChatCLI itself cannot be installed here.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a plugin run gives back: ChatCLI reads both streams and treats a non-zero exit as failure.
struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn run(entry: &Path, socket: &Path, cwd: &Path, argv: &[String]) -> Run {
    let out = Command::new(entry)
        .args(argv)
        .current_dir(cwd)
        .env("CODERD_SOCKET", socket)
        .output()
        .unwrap();
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `coder chatcli install` into `home/.chatcli/plugins` (HOME overridden); the plugins folder.
fn install(home: &Path) -> PathBuf {
    let out = Command::new(common::coder_bin())
        .args(["chatcli", "install"])
        .env("HOME", home)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("CHATCLI_ALLOW_UNSIGNED_PLUGINS") && text.contains(".sig"));
    // What keeps delegated work on coderd and reads unprompted (issue 36).
    assert!(
        text.contains("export CHATCLI_AGENT_PARALLEL_MODE=false"),
        "{text}"
    );
    for tool in ["@read", "@search", "@tree"] {
        assert!(
            text.contains(&format!("/config security allow \"{tool}\"")),
            "{text}"
        );
    }
    home.join(".chatcli/plugins")
}

/// The signing recipe `install` prints, run as printed (HOME overridden), gives every entry point a
/// `.sig` that ChatCLI's `VerifyPlugin` accepts: the first line is the base64 Ed25519 signature of
/// the SHA-256 of the file's bytes, by the key whose PKIX PEM is in `trusted-keys/*.pub`.
#[test]
fn the_printed_signing_recipe_signs_as_chatcli_verifies() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(common::coder_bin())
        .args(["chatcli", "install"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let recipe: String = text
        .lines()
        .skip_while(|l| !l.contains("mkdir -p ~/.chatcli/trusted-keys"))
        .take_while(|l| !l.starts_with("Sign again"))
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    assert!(recipe.contains("openssl pkeyutl -sign"), "{text}");
    let recipe = recipe.replace(
        "/tmp/coder.sha256",
        &home.path().join("h").to_string_lossy(),
    );
    let ran = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &recipe])
        .env("HOME", home.path())
        .output()
        .expect("bash");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let plugins = home.path().join(".chatcli/plugins");
    let public = home.path().join(".chatcli/trusted-keys/coder.pub");
    for entry in [
        "coder",
        "coder-read",
        "coder-search",
        "coder-tree",
        "coder-todo",
    ] {
        let sig = std::fs::read_to_string(plugins.join(format!("{entry}.sig"))).unwrap();
        let sig = sig.lines().next().unwrap().trim().to_string();
        let digest = home.path().join("digest");
        let bytes = std::fs::read(plugins.join(entry)).unwrap();
        let hashed = Command::new("openssl")
            .args(["dgst", "-sha256", "-binary", "-out"])
            .arg(&digest)
            .arg(plugins.join(entry))
            .status()
            .unwrap();
        assert!(hashed.success() && !bytes.is_empty());
        let raw_sig = home.path().join("sig.bin");
        let decoded = Command::new("bash")
            .args([
                "-c",
                &format!("echo '{sig}' | base64 -d > '{}'", raw_sig.display()),
            ])
            .status()
            .unwrap();
        assert!(decoded.success());
        let verified = Command::new("openssl")
            .args(["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey"])
            .arg(&public)
            .arg("-in")
            .arg(&digest)
            .arg("-sigfile")
            .arg(&raw_sig)
            .output()
            .unwrap();
        assert!(
            verified.status.success(),
            "{entry}: {}",
            String::from_utf8_lossy(&verified.stdout)
        );
    }
}

/// ChatCLI's flattening of a JSON tool call into argv (`buildArgvFromJSONMap`): the subcommand
/// from `cmd` (or `argv`), then every arg — keys outside the envelope, then `args`, then `flags`,
/// `command` read as `cmd` — in sorted key order: `true` as the bare flag, `false` and null
/// dropped, numbers as Go prints a float64, each item of a list as the flag repeated, an object as
/// JSON text; `positional` and `_` last. Without a subcommand, the whole object is one word.
fn flatten(call: &Value) -> Vec<String> {
    let map = call.as_object().expect("a JSON object");
    let cmd = map.get("cmd").and_then(Value::as_str).unwrap_or_default();
    if let Some(Value::Array(words)) = map.get("argv") {
        let mut argv: Vec<String> = words.iter().map(|w| w.as_str().unwrap().into()).collect();
        if !cmd.is_empty() && argv.first().map(String::as_str) != Some(cmd) {
            argv.insert(0, cmd.into());
        }
        return argv;
    }
    if cmd.is_empty() {
        return vec![go_json(call)];
    }
    let mut args = std::collections::BTreeMap::new();
    let mut put = |k: &str, v: &Value| {
        args.insert(
            if k == "command" { "cmd" } else { k }.to_string(),
            v.clone(),
        );
    };
    for (k, v) in map {
        if !["cmd", "argv", "args", "flags", "positional", "_"].contains(&k.as_str()) {
            put(k, v);
        }
    }
    for envelope in ["args", "flags"] {
        if let Some(Value::Object(inner)) = map.get(envelope) {
            inner.iter().for_each(|(k, v)| put(k, v));
        }
    }
    let mut argv = vec![cmd.to_string()];
    for (k, v) in &args {
        flag_value(&mut argv, k, v);
    }
    for key in ["positional", "_"] {
        match map.get(key) {
            Some(Value::String(s)) => argv.push(s.clone()),
            Some(Value::Array(items)) => {
                argv.extend(items.iter().filter_map(|i| i.as_str().map(String::from)))
            }
            _ => {}
        }
    }
    argv
}

fn flag_value(argv: &mut Vec<String>, key: &str, value: &Value) {
    let flag = match key.starts_with('-') {
        true => key.to_string(),
        false => format!("--{key}"),
    };
    match value {
        Value::Null | Value::Bool(false) => {}
        Value::Bool(true) => argv.push(flag),
        Value::String(s) => argv.extend([flag, s.clone()]),
        Value::Number(n) => argv.extend([flag, go_float(n.as_f64().unwrap())]),
        Value::Array(items) => items.iter().for_each(|i| flag_value(argv, key, i)),
        Value::Object(_) => argv.extend([flag, go_json(value)]),
    }
}

/// `fmt.Sprint(float64)`: `%g` with the shortest digits, an exponent from 1e+06 up (`1e+06`).
fn go_float(f: f64) -> String {
    if f.fract() != 0.0 || f.abs() < 1e6 {
        return format!("{f}");
    }
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `json.Marshal`: compact, keys sorted, `<`, `>` and `&` escaped.
fn go_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// ChatCLI's split of a CLI-style line (`splitToolArgsMultiline`): whitespace outside quotes,
/// single and double quotes, a backslash escapes the next byte outside single quotes.
fn split_line(line: &str) -> Vec<String> {
    let (mut words, mut word) = (Vec::new(), String::new());
    let (mut single, mut double, mut escaped, mut any) = (false, false, false, false);
    for c in line.chars() {
        match c {
            _ if escaped => {
                word.push(c);
                escaped = false;
            }
            '\\' if !single => escaped = true,
            '\'' if !double => {
                single = !single;
                any = true
            }
            '"' if !single => {
                double = !double;
                any = true
            }
            ' ' | '\t' | '\n' | '\r' if !single && !double => {
                if !word.is_empty() || any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            _ => word.push(c),
        }
    }
    if !word.is_empty() || any {
        words.push(word);
    }
    words
}

/// The argv ChatCLI gives the plugin for one of the document's examples.
fn argv_of(example: &Value) -> Vec<String> {
    let raw = example["raw"].as_str().unwrap();
    match serde_json::from_str::<Value>(raw) {
        Ok(call @ Value::Object(_)) => flatten(&call),
        _ => split_line(raw),
    }
}

fn data(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn flattening_is_chatclis() {
    let call = json!({"cmd": "multipatch", "args": {"edits": [{"file": "a<b", "search": "x"}, {"file": "c"}],
        "regex": true, "staged": false, "max_bytes": 1000000, "limit": 5, "term": "("}});
    assert_eq!(
        flatten(&call),
        [
            "multipatch",
            "--edits",
            r#"{"file":"a\u003cb","search":"x"}"#,
            "--edits",
            r#"{"file":"c"}"#,
            "--limit",
            "5",
            "--max_bytes",
            "1e+06",
            "--regex",
            "--term",
            "("
        ]
    );
    assert_eq!(flatten(&json!({"file": "x"})), [r#"{"file":"x"}"#]);
    assert_eq!(
        split_line(r#"write --file a --content "Hello, World!" --x 'it''s'"#),
        [
            "write",
            "--file",
            "a",
            "--content",
            "Hello, World!",
            "--x",
            "its"
        ]
    );
}

/// ChatCLI's loading and calling of the plugins: the metadata probe of every entry point (exit 0,
/// the four fields, the name ChatCLI files it under), `--schema` as valid JSON, and calls with the
/// argv ChatCLI flattens, judged by exit code, stdout and stderr — from a subfolder, so that
/// relative paths resolve from the plugin's working folder.
#[test]
fn chatcli_loads_and_runs_the_plugins() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = Daemon::start(&sandbox, &[]);
    let plugins = install(sandbox.dir.path());
    let socket = &daemon.socket;
    let root = &sandbox.root;
    for (entry, name) in [
        ("coder", "@coder"),
        ("coder-read", "@read"),
        ("coder-search", "@search"),
        ("coder-tree", "@tree"),
        ("coder-todo", "@todo"),
    ] {
        let probe = run(&plugins.join(entry), socket, root, &["--metadata".into()]);
        assert!(probe.ok, "{entry} --metadata: {}", probe.stderr);
        let meta: Value = serde_json::from_str(&probe.stdout).unwrap();
        assert_eq!(meta["name"], name);
        for field in ["description", "usage", "version"] {
            assert!(
                meta[field].as_str().is_some_and(|s| !s.is_empty()),
                "{meta}"
            );
        }
        let schema = run(&plugins.join(entry), socket, root, &["--schema".into()]);
        let schema: Value = serde_json::from_str(&schema.stdout).expect("--schema is JSON");
        assert!(!schema["subcommands"].as_array().unwrap().is_empty());
    }
    let coder = plugins.join("coder");
    let call =
        |entry: &Path, cwd: &Path, envelope: Value| run(entry, socket, cwd, &flatten(&envelope));

    // Relative paths from the working folder, in a subcommand and through the whole-call word.
    let internal = root.join("internal");
    let sub = std::fs::read_dir(&internal)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let first = std::fs::read_dir(&sub)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let first = first.to_str().unwrap();
    let r = call(
        &coder,
        &sub,
        json!({"cmd": "read", "args": {"file": first, "head": 1}}),
    );
    assert!(r.ok && !r.stdout.is_empty(), "{}", r.stderr);
    let r = run(
        &coder,
        socket,
        &sub,
        &[format!("read --file {first} --head 1")],
    );
    assert!(r.ok && !r.stdout.is_empty(), "{}", r.stderr);

    // Text that looks like JSON, or like a flag, stays the text the schema says it is.
    for content in [r#"{"a": 1}"#, "[1, 2]", "--not-a-flag", "true", "1e+06"] {
        let r = call(
            &coder,
            &sub,
            json!({"cmd": "write", "args": {"file": "t.txt", "content": content}}),
        );
        assert!(r.ok, "{content}: {}", r.stderr);
        assert_eq!(std::fs::read_to_string(sub.join("t.txt")).unwrap(), content);
    }

    // A failed command is a failed call, its output still printed.
    let r = call(
        &coder,
        root,
        json!({"cmd": "exec", "args": {"cmd": "echo out; echo err >&2; exit 3"}}),
    );
    assert!(!r.ok);
    assert!(
        r.stdout.contains("out") && r.stdout.contains("err") && r.stdout.contains("exit 3"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("failed"), "{}", r.stderr);
    // A refused call: non-zero, the reason on stderr.
    let r = call(
        &coder,
        root,
        json!({"cmd": "patch", "args": {"file": "main.go", "search": "no such text", "replace": "x"}}),
    );
    assert!(!r.ok && r.stderr.contains("C2"), "{}", r.stderr);
    // Regex search: `--regex` bare, before `--term` (sorted keys).
    let r = call(
        &coder,
        root,
        json!({"cmd": "search", "args": {"term": "func (main|Handle)", "regex": true}}),
    );
    assert!(
        r.ok && r.stdout.contains("main.go"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    let r = call(
        &coder,
        root,
        json!({"cmd": "search", "args": {"term": "(", "regex": true}}),
    );
    assert!(!r.ok && r.stderr.contains("regex"), "{}", r.stderr);

    // The atomic tools: flat JSON args as one word (ChatCLI's flattening of a call without `cmd`).
    let read = plugins.join("coder-read");
    let r = call(
        &read,
        &sub,
        json!({"file": first, "from_line": 1, "to_line": 1}),
    );
    assert!(
        r.ok && r.stdout.lines().count() == 1,
        "{}{}",
        r.stdout,
        r.stderr
    );
    let r = call(
        &plugins.join("coder-search"),
        root,
        json!({"term": "HandleRequest", "include": "*.go"}),
    );
    assert!(
        r.ok && r
            .stdout
            .lines()
            .any(|l| l.contains("handler.go:") && l.contains("HandleRequest")),
        "the search prints rg's lines, not JSON: {}{}",
        r.stdout,
        r.stderr
    );
    let r = call(&plugins.join("coder-tree"), &internal, json!({"depth": 1}));
    assert!(r.ok, "{}", r.stderr);
    let r = call(
        &plugins.join("coder-tree"),
        root,
        json!({"dir": "./internal", "depth": 1}),
    );
    assert!(
        r.ok && r
            .stdout
            .contains(sub.file_name().unwrap().to_str().unwrap()),
        "{}",
        r.stdout
    );
    let todo = plugins.join("coder-todo");
    let plan = json!({"cmd": "write", "args": {"todos": [
        {"description": "Investigate bug", "status": "completed"},
        {"description": "Apply fix", "status": "in_progress"},
        {"description": "Add tests", "status": "pending"}]}});
    let r = call(&todo, root, plan);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    let r = call(
        &todo,
        root,
        json!({"cmd": "mark", "args": {"id": 2, "status": "completed"}}),
    );
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    let r = call(&todo, root, json!({"cmd": "list"}));
    assert!(
        r.ok && r.stdout.contains("Apply fix"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

/// Every flag of ChatCLI's `@coder` schema (tests/chatcli/schema_flags.json) reaches the method
/// it names (whatever the call then answers), except the few refused on purpose, which the daemon
/// refuses as unknown keys, naming them (listed with the reason in docs/chatcli.md).
#[test]
fn every_flag_of_chatclis_schema_is_understood_or_refused_on_purpose() {
    let flags = data("chatcli/schema_flags.json");
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = Daemon::start(&sandbox, &[]);
    let coder = install(sandbox.dir.path()).join("coder");
    let words = |argv: &Value| -> Vec<String> {
        argv.as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().into())
            .collect()
    };
    let misread = ["invalid params", "expects", "needs a value", "unexpected"];
    let mut problems = Vec::new();
    for argv in flags["accepted"].as_array().unwrap() {
        let r = run(&coder, &daemon.socket, &sandbox.root, &words(argv));
        if misread.iter().any(|m| r.stderr.contains(m)) {
            problems.push(format!("{argv}: {}", r.stderr));
        }
    }
    for refused in flags["refused"].as_array().unwrap() {
        let r = run(
            &coder,
            &daemon.socket,
            &sandbox.root,
            &words(&refused["argv"]),
        );
        let key = refused["key"].as_str().unwrap();
        if r.ok || !r.stderr.contains(&format!("unknown field `{key}`")) {
            problems.push(format!(
                "{}: expected `{key}` refused, got {}",
                refused["argv"], r.stderr
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every `@coder` example of ChatCLI's plugin document (tests/agent/chatcli_examples.json, 51
/// tool calls and the CLI lines and JSON block beside them) runs twice, on two copies of the
/// fixture: through the `tool` envelope, and as the argv ChatCLI gives the plugin. The answers
/// (result, or error code) and the files they leave must be the same, and the plugin's exit code
/// must say what the answer says.
#[test]
fn the_documents_examples_answer_the_same_through_the_plugin_and_tool() {
    let examples = data("agent/chatcli_examples.json");
    let (via_tool, via_plugin) = (Sandbox::fixture("chatcli"), Sandbox::fixture("chatcli"));
    let tool_daemon = Daemon::start(&via_tool, &[]);
    let plugin_daemon = Daemon::start(&via_plugin, &[]);
    let coder = install(via_plugin.dir.path()).join("coder");
    let mut differences = Vec::new();
    let (mut same, mut tool_calls_same) = (0, 0);
    let examples = examples["examples"].as_array().unwrap();
    for example in examples {
        let raw = example["raw"].as_str().unwrap();
        let expected = tool_daemon.call("tool", json!({"raw": raw}));
        let expected = match expected.get("result") {
            Some(r) => normalize(&r["result"], &via_tool.root),
            None => json!({"error": expected["error"]["data"]["code"]}),
        };
        let mut argv = vec!["--json".to_string()];
        argv.extend(argv_of(example));
        let r = run(&coder, &plugin_daemon.socket, &via_plugin.root, &argv);
        let mut got: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|_| json!({"client_error": r.stderr.trim()}));
        if got.get("code").is_some() && got.get("message").is_some() {
            got = json!({"error": got["data"]["code"]});
        } else if got.get("method").is_some() && got.get("read_only").is_some() {
            got = got["result"].take(); // the whole call as one word went through `tool`
        }
        let mut got = normalize(&got, &via_plugin.root);
        let mut expected = expected;
        if raw.contains("ps aux") {
            // The process table of the moment: which processes, in which state.
            for answer in [&mut got, &mut expected] {
                if answer.get("stdout").is_some() {
                    answer["stdout"] = json!("-");
                }
            }
        }
        let failed = expected.get("error").is_some()
            || (["exec", "test"].contains(&example_method(&argv[1..]).as_str())
                && expected["exit_code"] != json!(0));
        let files_same = common::snapshot(&via_tool.root) == common::snapshot(&via_plugin.root);
        if got == expected && r.ok != failed && files_same {
            same += 1;
            tool_calls_same += (example["form"] == "tool_call") as usize;
        } else {
            differences.push(format!(
                "{raw}\n  argv {:?}\n  tool:   {expected}\n  plugin: {got} (exit ok: {}, files same: {files_same})",
                &argv[1..],
                r.ok
            ));
        }
    }
    let tool_calls = examples.iter().filter(|e| e["form"] == "tool_call").count();
    eprintln!(
        "chatcli examples: {same} of {} the same ({tool_calls_same} of {tool_calls} tool calls)",
        examples.len()
    );
    assert_eq!(tool_calls, 51);
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

fn example_method(argv: &[String]) -> String {
    let first = argv.first().cloned().unwrap_or_default();
    first
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// An answer with what differs between two runs made equal: the workspace's path, durations,
/// versions (hashes of content and time), checkpoint ids.
fn normalize(value: &Value, root: &Path) -> Value {
    let root = root.to_str().unwrap();
    match value {
        Value::String(s) => Value::String(s.replace(root, "$ROOT")),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| normalize(v, Path::new(root)))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match k.as_str() {
                    "duration_ms" | "elapsed_ms" | "version" | "hash" | "id" | "created"
                    | "modified" | "mtime" | "date" | "time" | "restored_from" | "snapshot"
                    | "store" => (k.clone(), json!("-")),
                    // The automatic snapshot is named after the call that took it (`tool` there).
                    "label" if v.as_str().is_some_and(|l| l.starts_with("auto: before ")) => {
                        (k.clone(), json!("auto"))
                    }
                    // `ps aux` and `ls -la` print sizes, memory and link counts of the moment.
                    "stdout" => (
                        k.clone(),
                        json!(v
                            .as_str()
                            .unwrap_or_default()
                            .replace(root, "$ROOT")
                            .replace(|c: char| c.is_ascii_digit(), "#")),
                    ),
                    _ => (k.clone(), normalize(v, Path::new(root))),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// ChatCLI's engine tests (tests/chatcli/engine_cases.json, 56 cases ported from
/// `pkg/coder/engine/*_test.go`): each case's argv run as the plugin in its own folder of one
/// workspace, its exit code, output and files as ChatCLI's test expects, except the cases marked
/// `deliberate`, which hold coderd's stricter expectation (listed in docs/chatcli.md).
#[test]
fn chatclis_engine_tests_agree_through_the_plugin() {
    let cases = data("chatcli/engine_cases.json");
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let coder = install(sandbox.dir.path()).join("coder");
    let cases = cases["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut deliberate = 0;
    for (n, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let dir = sandbox.root.join(format!("case{n:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (path, content) in case["files"].as_object().into_iter().flatten() {
            let at = dir.join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, content.as_str().unwrap()).unwrap();
        }
        let expand = |argv: &Value| -> Vec<String> {
            argv.as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap().replace("$DIR", dir.to_str().unwrap()))
                .collect()
        };
        let mut problems = Vec::new();
        for step in case["steps"].as_array().unwrap() {
            if let Some(sequences) = step["parallel"].as_array() {
                std::thread::scope(|s| {
                    for sequence in sequences {
                        let sequence: Vec<Vec<String>> =
                            sequence.as_array().unwrap().iter().map(expand).collect();
                        let (coder, socket, dir) = (&coder, &daemon.socket, &dir);
                        s.spawn(move || {
                            for argv in sequence {
                                run(coder, socket, dir, &argv);
                            }
                        });
                    }
                });
                continue;
            }
            let argv = expand(&step["argv"]);
            let r = run(&coder, &daemon.socket, &dir, &argv);
            check_step(step, &r, &argv, &mut problems);
            check_files(&dir, &step["files"], &mut problems);
        }
        check_files(&dir, &case["files_after"], &mut problems);
        for (path, allowed) in case["files_after_one_of"].as_object().into_iter().flatten() {
            let content = std::fs::read_to_string(dir.join(path)).unwrap_or_default();
            if !allowed.as_array().unwrap().contains(&json!(content)) {
                problems.push(format!("{path}: tangled content {content:?}"));
            }
        }
        deliberate += case.get("deliberate").is_some() as usize;
        if !problems.is_empty() {
            failures.push(format!("{name}: {}", problems.join("; ")));
        }
    }
    eprintln!(
        "chatcli engine tests: {} of {} agree, {deliberate} kept with coderd's stricter expectation, {} failing",
        cases.len() - deliberate - failures.len(),
        cases.len(),
        failures.len()
    );
    assert_eq!(cases.len(), 56);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check_step(step: &Value, r: &Run, argv: &[String], problems: &mut Vec<String>) {
    let said = format!("{argv:?}: stdout {:?} stderr {:?}", r.stdout, r.stderr);
    if step["ok"] != json!(r.ok) {
        problems.push(format!("expected ok={}, {said}", step["ok"]));
    }
    let output = format!("{}{}", r.stdout, r.stderr).to_lowercase();
    for (key, text) in [("stdout_has", &r.stdout), ("output_has", &output)] {
        for want in step[key].as_array().into_iter().flatten() {
            if !text.contains(want.as_str().unwrap()) {
                problems.push(format!("{key} {want}: {said}"));
            }
        }
    }
    if let Some(exact) = step["stdout"].as_str() {
        if r.stdout != exact {
            problems.push(format!("stdout should be {exact:?}: {said}"));
        }
    }
    if let Some(end) = step["stdout_ends"].as_str() {
        if !r.stdout.ends_with(end) {
            problems.push(format!("stdout should end {end:?}: {said}"));
        }
    }
}

/// Each listed file's content (null: absent).
fn check_files(dir: &Path, files: &Value, problems: &mut Vec<String>) {
    for (path, want) in files.as_object().into_iter().flatten() {
        let got = std::fs::read_to_string(dir.join(path)).ok();
        if got.as_deref() != want.as_str() {
            problems.push(format!("{path}: expected {want}, found {got:?}"));
        }
    }
}

/// Issue 36: over the socket, the `tool` envelope answered `exec "exit 3"` as a plain success
/// (only the plugin, reading the exit code itself, failed the call). Its answer now says
/// `failed: true` beside the command's output, and nothing for a command that succeeded or a
/// decision; the plugin still exits non-zero (`chatcli_loads_and_runs_the_plugins`).
#[test]
fn the_tool_envelope_marks_a_failed_command_as_failed() {
    let sandbox = Sandbox::fixture("chatcli");
    let daemon = Daemon::start(&sandbox, &[]);
    let cases = [
        (
            json!({"cmd": "exec", "args": {"cmd": "echo out; exit 3"}}),
            true,
        ),
        (json!({"raw": "exec --cmd 'exit 3'"}), true),
        (json!({"cmd": "exec", "args": {"cmd": "echo out"}}), false),
        (
            json!({"tool": "@exec", "raw": "{'cmd': 'exit 3', 'dry_run': True}"}),
            false,
        ),
        (
            json!({"cmd": "read", "args": {"file": "main.go", "end": 1}}),
            false,
        ),
    ];
    for (call, failed) in cases {
        let answer = daemon.ok("tool", call.clone());
        assert_eq!(
            answer.get("failed") == Some(&json!(true)),
            failed,
            "{call}: {answer}"
        );
        if failed {
            assert_eq!(answer["result"]["exit_code"], 3, "{answer}");
        }
    }
}

/// Issue 36: loading the plugins started a daemon that kept running after ChatCLI exited. A
/// daemon a client starts (here a plugin call, with no daemon for the workspace) gets
/// `--idle-exit` and stops once no client has been connected that long (1800 s; the client's
/// `CODERD_IDLE_EXIT_SECS` shortens it here); a daemon started as `coderd` runs on.
#[test]
fn a_daemon_a_plugin_call_started_stops_when_no_client_is_left() {
    let sandbox = Sandbox::fixture("chatcli");
    let plugins = install(sandbox.dir.path());
    let socket = sandbox.socket();
    let dir = sandbox.dir.path();
    let person = Sandbox::fixture("chatcli");
    let mut kept = Daemon::start(&person, &[]);
    let out = Command::new(plugins.join("coder-read"))
        .arg(r#"{"file": "main.go", "end": 1}"#)
        .current_dir(&sandbox.root)
        .env("CODERD_SOCKET", &socket)
        .env("CODERD_IDLE_EXIT_SECS", "2")
        .env("XDG_RUNTIME_DIR", dir.join("run"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("CODERD_SERVERS_DIR", dir.join("no-servers"))
        .env("CODERD_SERVERS_PATH", dir.join("no-servers"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("package main"));
    let answers = || {
        Command::new(common::coder_bin())
            .args(["--no-start", "--socket"])
            .arg(&socket)
            .arg("info")
            .output()
            .unwrap()
            .status
            .success()
    };
    // Watched without connecting (a connection is a client): a stopping daemon removes its socket.
    let started = std::time::Instant::now();
    while socket.exists() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the daemon the plugin started is still up"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(!answers(), "the socket is gone but a daemon answers");
    assert!(
        kept.child.try_wait().unwrap().is_none(),
        "the daemon started as coderd stopped"
    );
    assert!(kept.ok("info", json!({}))["pid"].is_u64());
}
