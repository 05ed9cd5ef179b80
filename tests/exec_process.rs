//! Process control of `exec`, through a real daemon: timeouts end the whole process group,
//! background grandchildren never hang a call, nothing leaks, output is capped exactly, secrets
//! stay out of the child's environment, stdin is at EOF, and the Landlock sandbox holds.

mod common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The processes whose process group is `pgid`, from `/proc`.
fn group_members(pgid: i64) -> Vec<i64> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i64>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command name (which may hold spaces) start with state, ppid, pgrp.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = after.split(' ').collect();
        // Zombies are dead: they wait for init to reap them and run nothing.
        if fields[2].parse::<i64>() == Ok(pgid) && fields[0] != "Z" {
            out.push(pid);
        }
    }
    out
}

/// The group id the command printed as `pgid=N` (its shell's pid: it leads its own session).
fn printed_pgid(result: &Value) -> i64 {
    let stdout = result["stdout"].as_str().unwrap();
    let line = stdout.lines().find(|l| l.starts_with("pgid=")).unwrap();
    line["pgid=".len()..].trim().parse().unwrap()
}

/// Waits for a group to empty (the kernel reaps orphans asynchronously; slowly on a busy machine).
fn assert_group_gone(pgid: i64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !group_members(pgid).is_empty() {
        assert!(
            Instant::now() < deadline,
            "processes of group {pgid} are still alive: {:?}",
            group_members(pgid)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn exec(daemon: &Daemon, params: Value) -> Value {
    daemon.ok("exec", params)
}

#[test]
fn a_timeout_ends_the_group_even_when_a_grandchild_holds_stdout() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let started = Instant::now();
    let result = exec(
        &daemon,
        json!({"cmd": "echo pgid=$$; (sleep 300; echo never) & sleep 300", "timeout": 2}),
    );
    let elapsed = started.elapsed();
    // The 2 s timeout, not the grandchild's 300 s.
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    assert_eq!(result["timed_out"], json!(true), "{result}");
    assert_group_gone(printed_pgid(&result));
}

/// A daemon killed with SIGKILL takes the commands it was running with it, grandchildren
/// included: its watchdog ends their group when the daemon's pipe closes.
#[test]
fn a_killed_daemon_leaves_no_command_running() {
    let sandbox = Sandbox::empty();
    let mut daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    client.send_line(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "exec", "params": {
            "cmd": "(sleep 300) & echo $$ > pgid.txt; sleep 300", "timeout": 600}})
        .to_string(),
    );
    let pgid_file = sandbox.root.join("pgid.txt");
    let deadline = Instant::now() + Duration::from_secs(10);
    let pgid: i64 = loop {
        let text = std::fs::read_to_string(&pgid_file).unwrap_or_default();
        if let Ok(pgid) = text.trim().parse() {
            break pgid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    // The background sleep and the shell (or the sleep it became).
    let deadline = Instant::now() + Duration::from_secs(5);
    while group_members(pgid).len() < 2 {
        assert!(Instant::now() < deadline, "{:?}", group_members(pgid));
        std::thread::sleep(Duration::from_millis(20));
    }
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    assert_group_gone(pgid);
}

#[test]
fn processes_that_ignore_sigterm_are_killed_after_the_grace_period() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let started = Instant::now();
    let result = exec(
        &daemon,
        json!({"cmd": "trap '' TERM; echo pgid=$$; sleep 300 & sleep 300", "timeout": 1}),
    );
    let elapsed = started.elapsed();
    // 1 s timeout + 2 s grace + the SIGKILL round, not the 300 s sleeps.
    assert!(elapsed >= Duration::from_secs(3), "took {elapsed:?}");
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    assert_eq!(result["timed_out"], json!(true));
    assert_eq!(result["signal"], json!(9), "{result}");
    assert_group_gone(printed_pgid(&result));
}

#[test]
fn a_background_process_left_holding_the_pipes_does_not_hang_a_finished_command() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let started = Instant::now();
    let result = exec(
        &daemon,
        json!({"cmd": "echo pgid=$$; sleep 300 & echo done", "timeout": 120}),
    );
    // Neither the background sleep's 300 s nor the 120 s timeout.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(result["exit_code"], json!(0), "{result}");
    assert_eq!(result["timed_out"], json!(false));
    assert_eq!(result["background_killed"], json!(true), "{result}");
    assert!(result["stdout"].as_str().unwrap().contains("done"));
    assert_group_gone(printed_pgid(&result));
}

/// Open descriptors and live children of the daemon.
fn daemon_footprint(pid: u32) -> (usize, usize) {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    let children = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|stat| {
                let after = &stat[stat.rfind(')').unwrap() + 2..];
                after.split(' ').nth(1) == Some(&pid.to_string())
            })
        })
        .count();
    (fds, children)
}

#[test]
fn a_hundred_runs_leak_no_process_and_no_descriptor() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    let mut run = |cmd: &str| {
        let r = client.call("exec", json!({"cmd": cmd}));
        assert!(r.get("error").is_none(), "{r}");
    };
    for _ in 0..5 {
        run("echo warm-up");
    }
    let before = daemon_footprint(daemon.child.id());
    for i in 0..100 {
        match i % 4 {
            0 => run("echo out; echo err >&2"),
            1 => run("sleep 0.01 & true"),
            2 => run("exit 3"),
            _ => run("ls / | head -n 2"),
        }
    }
    let after = daemon_footprint(daemon.child.id());
    assert_eq!(before, after, "(descriptors, children) before and after");
}

#[test]
fn ten_megabytes_of_output_arrive_as_head_and_tail_with_the_exact_omitted_count() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "max_output_bytes: 65536\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let result = exec(
        &daemon,
        json!({"cmd": "head -c 10000000 /dev/zero | tr '\\0' a; head -c 10000000 /dev/zero | tr '\\0' b >&2"}),
    );
    for (stream, letter) in [("stdout", 'a'), ("stderr", 'b')] {
        let omitted = result[format!("{stream}_omitted_bytes")].as_u64().unwrap();
        let marker = format!("\n…[{omitted} bytes omitted]…\n");
        let text = result[stream].as_str().unwrap();
        assert_eq!(text.matches(&marker).count(), 1, "{stream}");
        let kept = text
            .replace(&marker, "")
            .chars()
            .filter(|c| *c == letter)
            .count() as u64;
        assert_eq!(kept, 32768, "{stream}: each stream keeps half the cap");
        assert_eq!(kept + omitted, 10_000_000, "{stream}");
    }
    assert_eq!(
        result["omitted_bytes"].as_u64().unwrap(),
        2 * (10_000_000 - 32768)
    );
}

#[test]
fn secrets_in_the_daemon_environment_do_not_reach_commands() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "exec:\n  env_passthrough: [NPM_TOKEN]\n").unwrap();
    // Set in the test process so the daemon inherits them.
    for (name, value) in [
        ("FOO_TOKEN", "secret-foo-token"),
        ("AWS_SECRET_ACCESS_KEY", "secret-aws"),
        ("OPENAI_API_KEY", "secret-openai"),
        ("DB_PASSWORD", "secret-db"),
        ("NPM_TOKEN", "passed-npm-token"),
    ] {
        std::env::set_var(name, value);
    }
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let result = exec(&daemon, json!({"cmd": "env"}));
    let env = result["stdout"].as_str().unwrap();
    assert!(!env.contains("secret-"), "{env}");
    assert!(env.contains("NPM_TOKEN=passed-npm-token"), "{env}");
    for fixed in [
        "TERM=dumb",
        "PAGER=cat",
        "GIT_PAGER=cat",
        "GIT_TERMINAL_PROMPT=0",
    ] {
        assert!(env.lines().any(|l| l == fixed), "{fixed} in {env}");
    }
}

#[test]
fn stdin_is_at_eof_at_once_and_there_is_no_terminal() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let started = Instant::now();
    let result = exec(
        &daemon,
        json!({"cmd": "cat; read -r line; echo read=$?; tty; true", "timeout": 120}),
    );
    // A stdin left open would hold `cat` until the timeout.
    assert_eq!(result["timed_out"], json!(false), "{result}");
    assert!(started.elapsed() < Duration::from_secs(60));
    let stdout = result["stdout"].as_str().unwrap();
    assert!(stdout.contains("read=1"), "{stdout}");
    assert!(stdout.contains("not a tty"), "{stdout}");
}

#[test]
fn exit_codes_signals_dir_and_timeout_bounds_are_reported() {
    let sandbox = Sandbox::empty();
    sandbox.write("sub/marker.txt", "x\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let failed = exec(&daemon, json!({"cmd": "echo oops >&2; exit 7"}));
    assert_eq!(failed["exit_code"], json!(7));
    assert_eq!(failed["stderr"], json!("oops\n"));
    let killed = exec(&daemon, json!({"cmd": "kill -9 $$"}));
    assert_eq!(killed["signal"], json!(9), "{killed}");
    assert_eq!(killed["exit_code"], Value::Null);
    let listed = exec(&daemon, json!({"command": "ls", "dir": "sub"}));
    assert_eq!(listed["stdout"], json!("marker.txt\n"));
    let outside = daemon.err("exec", json!({"cmd": "ls", "dir": "/"}));
    assert_eq!(outside["data"]["code"], "C215", "{outside}");
    let too_long = daemon.err("exec", json!({"cmd": "ls", "timeout": 999999}));
    assert_eq!(too_long["data"]["code"], "C210", "{too_long}");
}

#[test]
fn the_landlock_sandbox_keeps_writes_inside_the_roots_where_the_kernel_supports_it() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "exec:\n  sandbox: landlock\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let info = daemon.ok("info", json!({}));
    let outside = sandbox.outside.join("escaped.txt");
    let cmd = format!(
        "touch inside.txt && echo tmp > \"$TMPDIR/t\" && echo ok; touch '{}'",
        outside.display()
    );
    if info["exec"]["landlock_abi"].is_null() {
        assert_eq!(info["exec"]["sandbox_enforced"], json!(false), "{info}");
        let error = daemon.err("exec", json!({"cmd": cmd}));
        assert_eq!(error["data"]["code"], "C214", "{error}");
        return;
    }
    assert_eq!(info["exec"]["sandbox_enforced"], json!(true), "{info}");
    let result = exec(&daemon, json!({"cmd": cmd}));
    assert_eq!(result["sandbox"], json!("landlock"));
    assert!(
        result["stdout"].as_str().unwrap().contains("ok"),
        "{result}"
    );
    assert!(sandbox.root.join("inside.txt").exists());
    assert!(
        !outside.exists(),
        "a sandboxed command wrote outside the roots"
    );
    assert_ne!(result["exit_code"], json!(0), "{result}");
}

#[test]
fn stream_true_sends_output_as_progress_notifications_before_the_result() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let mut client = daemon.client();
    client.send_line(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "exec", "params": {
            "cmd": "for i in 1 2 3; do echo line$i; sleep 0.3; done; echo oops >&2",
            "stream": true
        }})
        .to_string(),
    );
    let mut streamed = String::new();
    let mut notifications = 0;
    let response = loop {
        let message = client.recv();
        if message.get("id").is_some() {
            break message;
        }
        assert_eq!(message["method"], "exec/progress", "{message}");
        assert_eq!(message["params"]["request_id"], json!(7), "{message}");
        if message["params"]["stream"] == "stdout" {
            streamed.push_str(message["params"]["text"].as_str().unwrap());
        }
        notifications += 1;
    };
    assert_eq!(streamed, "line1\nline2\nline3\n");
    assert!(
        (2..=20).contains(&notifications),
        "{notifications} notifications"
    );
    assert_eq!(response["result"]["stdout"], json!("line1\nline2\nline3\n"));
    assert_eq!(response["result"]["streamed"], json!(true));
    // Without `stream` the response is the only line.
    let plain = client.call("exec", json!({"cmd": "echo once"}));
    assert_eq!(plain["result"]["stdout"], json!("once\n"));
}
