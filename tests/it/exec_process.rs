//! Process control of `exec`, through a real daemon: timeouts end the whole process group,
//! background grandchildren never hang a call, nothing leaks, output is capped exactly, secrets
//! stay out of the child's environment, stdin is at EOF, and the Landlock sandbox holds. The
//! process-control tests run twice: in the default namespace sandbox and with `sandbox: off`.

use crate::common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How each process-control test runs: in the default namespace sandbox, where the shell is
/// PID 2 of a namespace whose init reports for it, and unsandboxed.
const MODES: [(&str, &str); 2] = [("namespaces", ""), ("off", "exec:\n  sandbox: off\n")];

fn daemon_in(mode: &str) -> (Sandbox, Daemon) {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    let text = MODES.iter().find(|(m, _)| *m == mode).unwrap().1;
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    (sandbox, daemon)
}

/// A `sleep` duration no other process uses: it names the command's processes in `/proc`,
/// whatever PID namespace they run in (`$$` inside a sandbox is 2, not their group).
fn marker(test: u32, mode: &str) -> String {
    let mode = MODES.iter().position(|(m, _)| *m == mode).unwrap();
    format!("300.{}{test}{mode}", std::process::id())
}

/// Live processes (zombies aside) with `marker` among their arguments.
fn marked(marker: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i64>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let state = stat[stat.rfind(')').unwrap() + 2..].split(' ').next();
        if state != Some("Z") && cmdline.split(|b| *b == 0).any(|a| a == marker.as_bytes()) {
            out.push(pid);
        }
    }
    out
}

/// Waits for the marked processes to be gone (the kernel reaps orphans asynchronously; slowly on a
/// busy machine).
fn assert_gone(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !marked(marker).is_empty() {
        assert!(
            Instant::now() < deadline,
            "processes marked {marker} are still alive: {:?}",
            marked(marker)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn exec(daemon: &Daemon, params: Value) -> Value {
    daemon.ok("exec", params)
}

#[test]
fn a_timeout_ends_the_group_even_when_a_grandchild_holds_stdout() {
    for (mode, _) in MODES {
        let (_sandbox, daemon) = daemon_in(mode);
        let mark = marker(1, mode);
        let started = Instant::now();
        let result = exec(
            &daemon,
            json!({"cmd": format!("(sleep {mark}; echo never) & sleep {mark}"), "timeout": 2}),
        );
        let elapsed = started.elapsed();
        // The 2 s timeout, not the grandchild's 300 s.
        assert!(
            elapsed < Duration::from_secs(60),
            "{mode}: took {elapsed:?}"
        );
        assert_eq!(result["timed_out"], json!(true), "{result}");
        assert_eq!(result["sandbox"], json!(mode), "{result}");
        assert_gone(&mark);
    }
}

/// A daemon killed with SIGKILL takes the commands it was running with it, grandchildren
/// included: its watchdog ends their group when the daemon's pipe closes (and a sandbox's init
/// dies with the daemon's thread that started it).
#[test]
fn a_killed_daemon_leaves_no_command_running() {
    for (mode, _) in MODES {
        let (_sandbox, mut daemon) = daemon_in(mode);
        let mark = marker(2, mode);
        let mut client = daemon.client();
        client.send_line(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "exec", "params": {
                "cmd": format!("(sleep {mark}) & sleep {mark}"), "timeout": 600}})
            .to_string(),
        );
        // The background sleep and the foreground one.
        let deadline = Instant::now() + Duration::from_secs(10);
        while marked(&mark).len() < 2 {
            assert!(Instant::now() < deadline, "{mode}: {:?}", marked(&mark));
            std::thread::sleep(Duration::from_millis(20));
        }
        daemon.child.kill().unwrap();
        daemon.child.wait().unwrap();
        assert_gone(&mark);
    }
}

#[test]
fn processes_that_ignore_sigterm_are_killed_after_the_grace_period() {
    for (mode, _) in MODES {
        let (_sandbox, daemon) = daemon_in(mode);
        let mark = marker(3, mode);
        let started = Instant::now();
        let result = exec(
            &daemon,
            json!({"cmd": format!("trap '' TERM; sleep {mark} & sleep {mark}"), "timeout": 1}),
        );
        let elapsed = started.elapsed();
        // 1 s timeout + 2 s grace + the SIGKILL round, bounded.
        assert!(
            elapsed >= Duration::from_secs(3),
            "{mode}: took {elapsed:?}"
        );
        assert!(
            elapsed < Duration::from_secs(60),
            "{mode}: took {elapsed:?}"
        );
        assert_eq!(result["timed_out"], json!(true));
        assert_eq!(result["signal"], json!(9), "{result}");
        assert_gone(&mark);
    }
}

#[test]
fn a_background_process_left_holding_the_pipes_does_not_hang_a_finished_command() {
    for (mode, _) in MODES {
        let (_sandbox, daemon) = daemon_in(mode);
        let mark = marker(4, mode);
        let started = Instant::now();
        // Neither the background sleep's 300 s nor the 120 s timeout.
        let result = exec(
            &daemon,
            json!({"cmd": format!("sleep {mark} & echo done"), "timeout": 120}),
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{mode}: {:?}",
            started.elapsed()
        );
        assert_eq!(result["exit_code"], json!(0), "{result}");
        assert_eq!(result["timed_out"], json!(false));
        assert_eq!(result["background_killed"], json!(true), "{result}");
        assert!(result["stdout"].as_str().unwrap().contains("done"));
        assert_gone(&mark);
    }
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

/// The footprint once it holds still for 100 ms (a sandbox's init is reaped a moment after its
/// answer), at most 5 s.
fn settled_footprint(pid: u32) -> (usize, usize) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut last = daemon_footprint(pid);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = daemon_footprint(pid);
        if now == last || Instant::now() > deadline {
            return now;
        }
        last = now;
    }
}

#[test]
fn a_hundred_runs_leak_no_process_and_no_descriptor() {
    for (mode, _) in MODES {
        a_hundred_runs_in(mode);
    }
}

fn a_hundred_runs_in(mode: &str) {
    let (_sandbox, daemon) = daemon_in(mode);
    let mut client = daemon.client();
    let mut run = |cmd: &str| {
        let r = client.call("exec", json!({"cmd": cmd}));
        assert!(r.get("error").is_none(), "{r}");
    };
    for _ in 0..5 {
        run("echo warm-up");
    }
    let before = settled_footprint(daemon.child.id());
    for i in 0..100 {
        match i % 4 {
            0 => run("echo out; echo err >&2"),
            1 => run("sleep 0.01 & true"),
            2 => run("exit 3"),
            _ => run("ls / | head -n 2"),
        }
    }
    // A sandbox's init is reaped off the request's path, a moment after its answer.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut after = daemon_footprint(daemon.child.id());
    while after != before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        after = daemon_footprint(daemon.child.id());
    }
    assert_eq!(
        before, after,
        "{mode}: (descriptors, children) before and after"
    );
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
    std::fs::write(
        &config,
        "exec:\n  env_passthrough: [NPM_TOKEN, PASSED_URL]\n",
    )
    .unwrap();
    // The daemon's own environment (not the test process's: its other tests share it).
    let secrets = [
        ("FOO_TOKEN", "secret-foo-token"),
        ("AWS_SECRET_ACCESS_KEY", "secret-aws"),
        ("OPENAI_API_KEY", "secret-openai"),
        ("DB_PASSWORD", "secret-db"),
        ("NPM_TOKEN", "passed-npm-token"),
        ("DATABASE_URL", "postgres://app:secret-db-url@db/prod"),
        ("GH_HOST", "secret-gh-host"),
        ("GITLAB_PAT", "secret-pat"),
        ("SSH_AUTH_SOCK", "/tmp/secret-agent.sock"),
        ("DOCKER_AUTH_CONFIG", "secret-docker"),
        ("GIT_AUTHOR_NAME", "kept-author"),
        // Issue 33: by name (password words, DSN, webhook, JWT, Vault) and by value.
        ("DB_PASS", "secret-1"),
        ("MYSQL_PWD", "secret-2"),
        ("PGPASS", "secret-3"),
        ("DB_PW", "secret-4"),
        ("DOCKER_PASS", "secret-5"),
        ("JWT", "secret-6"),
        ("STRIPE_SK", "sk_live_abcdefgh-secret-7"),
        ("VAULT_ROLE_ID", "secret-8"),
        ("SENTRY_DSN", "https://secret-9@o1.ingest.sentry.io/1"),
        (
            "SLACK_WEBHOOK_URL",
            "https://hooks.slack.com/services/secret-10",
        ),
        ("REDIS_URL", "redis://:secret-11@cache:6379"),
        ("DEPLOY_WITH", "ghp_abcdefghijklmnopqrstuv-secret-12"),
        ("PASSED_URL", "https://bot:passed-url@example.com/"),
    ];
    let daemon = Daemon::start_env(&sandbox, &["--config", config.to_str().unwrap()], &secrets);
    let result = exec(&daemon, json!({"cmd": "env"}));
    let env = result["stdout"].as_str().unwrap();
    assert!(!env.contains("secret-"), "{env}");
    assert!(env.contains("NPM_TOKEN=passed-npm-token"), "{env}");
    assert!(env.contains("PASSED_URL=https://bot:passed-url@"), "{env}");
    assert!(env.contains("GIT_AUTHOR_NAME=kept-author"), "{env}");
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
    for (mode, _) in MODES {
        let (_sandbox, daemon) = daemon_in(mode);
        let started = Instant::now();
        let result = exec(
            &daemon,
            json!({"cmd": "cat; read -r line; echo read=$?; tty; true", "timeout": 120}),
        );
        // A stdin left open would hold `cat` until the timeout.
        assert_eq!(result["timed_out"], json!(false), "{result}");
        assert!(started.elapsed() < Duration::from_secs(60));
        let stdout = result["stdout"].as_str().unwrap();
        assert!(stdout.contains("read=1"), "{mode}: {stdout}");
        assert!(stdout.contains("not a tty"), "{mode}: {stdout}");
    }
}

#[test]
fn exit_codes_signals_dir_and_timeout_bounds_are_reported() {
    for (mode, _) in MODES {
        let (sandbox, daemon) = daemon_in(mode);
        sandbox.write("sub/marker.txt", "x\n");
        exit_codes_in(&daemon);
    }
}

fn exit_codes_in(daemon: &Daemon) {
    let failed = exec(daemon, json!({"cmd": "echo oops >&2; exit 7"}));
    assert_eq!(failed["exit_code"], json!(7));
    assert_eq!(failed["stderr"], json!("oops\n"));
    let killed = exec(daemon, json!({"cmd": "kill -9 $$"}));
    assert_eq!(killed["signal"], json!(9), "{killed}");
    assert_eq!(killed["exit_code"], Value::Null);
    let listed = exec(daemon, json!({"command": "ls", "dir": "sub"}));
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
    if info["exec"]["sandbox"]["landlock_abi"].is_null() {
        assert_eq!(info["exec"]["sandbox"]["in_force"], Value::Null, "{info}");
        let error = daemon.err("exec", json!({"cmd": cmd}));
        assert_eq!(error["data"]["code"], "C214", "{error}");
        return;
    }
    assert_eq!(
        info["exec"]["sandbox"]["in_force"],
        json!("landlock"),
        "{info}"
    );
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
