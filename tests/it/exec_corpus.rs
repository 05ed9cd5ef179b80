//! The exec safety corpora, decided by a real daemon over its socket with `dry_run` (nothing in
//! them is ever run): every destructive command refused, at most 1% of everyday commands refused.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::Path;

/// The commands of a corpus file with the class each belongs to. `%%` lines open and close a
/// multi-line command; `## name` lines start a class; `#` lines are comments.
fn corpus(file: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/exec")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = Vec::new();
    let mut class = String::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        if line == "%%" {
            match block.take() {
                Some(lines) => out.push((class.clone(), lines.join("\n"))),
                None => block = Some(Vec::new()),
            }
            continue;
        }
        if let Some(lines) = block.as_mut() {
            lines.push(line);
            continue;
        }
        if let Some(name) = line.strip_prefix("## ") {
            class = name.to_string();
        } else if !line.is_empty() && !line.starts_with('#') {
            out.push((class.clone(), line.to_string()));
        }
    }
    assert!(block.is_none(), "{file}: a `%%` block is not closed");
    out
}

fn decide(daemon: &mut common::Client, command: &str) -> Value {
    let response = daemon.call("exec", json!({"cmd": command, "dry_run": true}));
    assert!(
        response.get("error").is_none(),
        "dry_run of {command:?} failed: {response}"
    );
    response["result"].clone()
}

#[test]
fn every_destructive_command_in_the_corpus_is_refused_by_dry_run() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    let commands = corpus("destructive.txt");
    assert!(commands.len() >= 150, "only {} commands", commands.len());
    let mut allowed = Vec::new();
    for (class, command) in &commands {
        let decision = decide(&mut client, command);
        if decision["allowed"] != json!(false) {
            allowed.push(format!("[{class}] {command}: {decision}"));
        }
        assert!(
            decision["rule"].is_string() || decision["allowed"] == json!(true),
            "{command}: a refusal names its rule: {decision}"
        );
        // Refused for what it does, not because the parser gave up (except in that class).
        if !class.starts_with("parse errors") {
            assert_ne!(decision["rule"], "parse-error", "{command}: {decision}");
        }
    }
    assert!(
        allowed.is_empty(),
        "{} of {} destructive commands allowed:\n{}",
        allowed.len(),
        commands.len(),
        allowed.join("\n")
    );
}

#[test]
fn at_most_one_percent_of_everyday_commands_are_refused() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    let commands = corpus("everyday.txt");
    assert!(commands.len() >= 300, "only {} commands", commands.len());
    let refused: Vec<String> = commands
        .iter()
        .filter_map(|(class, command)| {
            let decision = decide(&mut client, command);
            (decision["allowed"] != json!(true)).then(|| format!("[{class}] {command}: {decision}"))
        })
        .collect();
    eprintln!(
        "everyday corpus: {} of {} refused\n{}",
        refused.len(),
        commands.len(),
        refused.join("\n")
    );
    assert!(
        refused.len() * 100 <= commands.len(),
        "{} of {} everyday commands refused (over 1%):\n{}",
        refused.len(),
        commands.len(),
        refused.join("\n")
    );
}

#[test]
fn dry_run_lists_the_parsed_simple_commands_with_their_wrappers() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let decision = daemon.ok(
        "exec",
        json!({"cmd": "sudo bash -c 'ls -la' | wc -l", "dry_run": true}),
    );
    assert_eq!(decision["allowed"], json!(true));
    let commands = decision["commands"].as_array().unwrap();
    let argvs: Vec<&Value> = commands.iter().map(|c| &c["argv"]).collect();
    assert!(argvs.contains(&&json!(["ls", "-la"])), "{decision}");
    assert!(argvs.contains(&&json!(["wc", "-l"])), "{decision}");
    let ls = commands.iter().find(|c| c["argv"][0] == "ls").unwrap();
    assert_eq!(ls["via"], json!(["sudo", "bash -c"]));
}

#[test]
fn a_refused_command_is_c214_naming_the_rule_and_the_simple_command() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    // `kill -0 -1` only probes (signal 0), so even a wrong answer here would harm nothing.
    let error = daemon.err("exec", json!({"cmd": "echo ok; kill -0 -1"}));
    assert_eq!(error["data"]["code"], "C214", "{error}");
    assert_eq!(error["data"]["rule"], "kill-all", "{error}");
    assert_eq!(error["data"]["command"], "kill -0 -1", "{error}");
    assert!(error["data"]["recovery"].is_string(), "{error}");
}

#[test]
fn allow_rules_cannot_be_smuggled_past_with_chains_substitutions_or_wrappers() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(
        &config,
        "exec:\n  allow: [\"ls *\", \"git status *\", \"cargo test *\"]\n",
    )
    .unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let mut client = daemon.client();
    let commands = corpus("smuggling.txt");
    assert!(commands.len() >= 40, "only {} commands", commands.len());
    for (_, command) in &commands {
        let decision = decide(&mut client, command);
        assert_eq!(decision["allowed"], json!(false), "{command}: {decision}");
    }
    for allowed in ["ls -la", "git status --short", "cargo test -q"] {
        assert_eq!(
            decide(&mut client, allowed)["allowed"],
            json!(true),
            "{allowed}"
        );
    }
}

#[test]
fn config_deny_and_allow_rules_apply_per_simple_command_and_requests_cannot_loosen_them() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(
        &config,
        "exec:\n  deny: [\"git push *\"]\n  allow: [\"ls *\", \"git *\", \"echo *\"]\n",
    )
    .unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let rule = |cmd: &str| {
        daemon.ok("exec", json!({"cmd": cmd, "dry_run": true}))["rule"]
            .as_str()
            .map(String::from)
    };
    assert_eq!(rule("ls -la"), None);
    assert_eq!(rule("ls; touch x").as_deref(), Some("not-allowed"));
    assert_eq!(rule("echo $(touch x)").as_deref(), Some("not-allowed"));
    assert_eq!(rule("git push origin main").as_deref(), Some("config-deny"));
    assert_eq!(rule("git status"), None);
    // No request field can turn the policy off: unknown fields are refused outright.
    for field in ["allow_unsafe", "unsafe", "policy", "allow"] {
        let error = daemon.err(
            "exec",
            json!({"cmd": "rm -rf /", field: true, "dry_run": true}),
        );
        assert_eq!(error["data"]["code"], "C210", "{field}: {error}");
    }
}

/// `exec` commands nested far deeper than any real one (issue 21): each is refused, deep syntax
/// as a `parse-error` naming the depth limit, and the daemon still answers afterwards. Before
/// the walk was bounded, 5,000 nested `${a:-` overflowed the daemon's stack and aborted it.
#[test]
fn deeply_nested_commands_are_refused_and_the_daemon_keeps_answering() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    let nest = |open: &str, middle: &str, close: &str, n: usize| {
        format!("{}{middle}{}", open.repeat(n), close.repeat(n))
    };
    let syntax = [
        nest("${a:-", "x", "}", 64),
        nest("${a:-", "x", "}", 5_000),
        nest("echo ${a:-", "x", "}", 100_000),
        nest("echo $(", "ls", ")", 100_000),
        nest("(", "ls", ")", 100_000),
        nest("{ ", "ls;", " };", 100_000),
        nest("echo \"$(echo ", "x", ")\"", 100_000),
        nest("$((1+", "1", "))", 100_000),
    ];
    let short = |v: &dyn std::fmt::Display| v.to_string().chars().take(300).collect::<String>();
    for command in &syntax {
        let decision = decide(&mut client, &format!("echo {command}"));
        let shown = short(&decision);
        assert_eq!(decision["allowed"], json!(false), "{shown}");
        assert_eq!(decision["rule"], "parse-error", "{shown}");
    }
    let limit = decide(&mut client, &format!("echo {}", syntax[0]));
    let reasons = limit["refusals"].to_string();
    assert!(reasons.contains("deeper than 64"), "{}", short(&reasons));
    // Wrappers, `eval` and shell strings nested without end are refused too, by their own limits.
    let mut shell_strings = String::from("rm -rf /tmp/x");
    for _ in 0..12 {
        shell_strings = format!("bash -c '{}'", shell_strings.replace('\'', r"'\''"));
    }
    for command in [
        // 20,000 deep: far past any limit and any stack, yet each a few seconds in a debug build
        // on a busy machine (100,000 took 8 s each on a quiet one, near the client's timeout under load).
        format!("{}ls", "sudo ".repeat(20_000)),
        format!("{}ls", "eval ".repeat(20_000)),
        shell_strings,
        vec!["true"; 100_000].join(" && "),
    ] {
        let decision = decide(&mut client, &command);
        assert_eq!(decision["allowed"], json!(false), "{}", short(&decision));
    }
    // Long words and many groups are decided in linear time (each of these took minutes when
    // paths were normalized and brace groups scanned quadratically): the answer itself is the test.
    for command in [
        format!("rm -rf {}", "a/".repeat(100_000)),
        format!("rm -rf {}", "/*".repeat(50_000)),
        format!("echo {}x{}", "{".repeat(50_000), "}".repeat(50_000)),
        format!("cd {} && rm -rf x", "a/".repeat(100_000)),
    ] {
        let decision = decide(&mut client, &command);
        assert!(decision["allowed"].is_boolean(), "{}", short(&decision));
    }
    // Real nesting stays well inside the limits.
    for command in [
        nest("echo ${a:-", "x", "}", 10),
        nest("echo $(", "ls", ")", 10),
        vec!["true"; 40].join(" && "),
    ] {
        assert_eq!(
            decide(&mut client, &command)["allowed"],
            json!(true),
            "{command}"
        );
    }
    let info = daemon.ok("info", json!({}));
    assert!(info["exec"]["rules"].is_array(), "{info}");
}

/// Issue 22's false refusals: a name-filtered `find` acting on what it finds in the workspace root
/// (as `-delete` already was), and a chain of more than 32 `&&` (a list, not nesting).
#[test]
fn name_filtered_find_exec_and_long_and_chains_are_allowed() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    for command in [
        "find . -type d -name __pycache__ -exec rm -rf {} +".to_string(),
        "find . -name node_modules -type d -prune -exec rm -rf {} +".to_string(),
        "find . -name .pytest_cache -type d | xargs rm -rf".to_string(),
        vec!["true"; 40].join(" && "),
    ] {
        let decision = decide(&mut client, &command);
        assert_eq!(decision["allowed"], json!(true), "{command}: {decision}");
    }
    // Without the name filter the same commands still empty the root.
    for command in [
        "find . -type d -exec rm -rf {} +",
        "find . -type d | xargs rm -rf",
    ] {
        let decision = decide(&mut client, command);
        assert_eq!(decision["allowed"], json!(false), "{command}: {decision}");
    }
}
