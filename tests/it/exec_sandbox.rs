//! The namespace sandbox `exec` and `test` run in by default, through a real daemon: secrets
//! inside the roots read as empty whatever reads them, writes land only in the roots, the tool
//! caches and the run's private temp folder (never in `$HOME`, `/tmp`, `/etc`, outside folders or
//! the daemon's checkpoints), `network: false` cuts the network, `info` and `dry_run` say what
//! is in force, and without user namespaces `auto` falls back to Landlock while `namespaces`
//! is refused with C214.

use crate::common;

use common::{git, Daemon, Sandbox};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Secret files of the workspace (by the default `non_accessible_globs`) and a word each holds.
const SECRETS: &[(&str, &str)] = &[
    (".env", "API_KEY=SECRET-ENV-1111"),
    ("sub/.env.local", "TOKEN=SECRET-ENVLOCAL-2222"),
    ("secrets/prod.txt", "SECRET-DIR-3333"),
    ("config/server.key", "SECRET-KEY-4444"),
    ("deploy/id_rsa", "SECRET-RSA-5555"),
    ("home/.ssh/id_ed25519", "SECRET-SSH-6666"),
    ("home/.aws/credentials", "SECRET-AWS-7777"),
    ("home/.netrc", "SECRET-NETRC-8888"),
    ("home/.docker/config.json", "SECRET-DOCKER-9999"),
    ("certs/client.p12", "SECRET-P12-0000"),
];

/// Ways a command reads files; none may print a secret.
const READERS: &[&str] = &[
    "cat .env",
    "cat sub/.env.local secrets/prod.txt config/server.key deploy/id_rsa",
    "grep -r SECRET . ; true",
    "tar c . 2>/dev/null | cat",
    "python3 -c \"print(open('.env').read())\"",
    "find . -type f -exec cat {} +",
    "ls -la secrets; cat secrets/*; true",
];

fn secret_workspace() -> Sandbox {
    let sandbox = Sandbox::empty();
    for (path, secret) in SECRETS {
        sandbox.write(path, &format!("{secret}\n"));
    }
    sandbox.write("src/main.rs", "fn main() {}\n");
    sandbox.write("home/.ssh/id_ed25519.pub", "ssh-ed25519 AAAA-public\n");
    sandbox
}

#[test]
fn secrets_inside_the_roots_read_as_empty_whatever_reads_them() {
    let sandbox = secret_workspace();
    let daemon = Daemon::start(&sandbox, &[]);
    for reader in READERS {
        let result = daemon.ok("exec", json!({"cmd": reader}));
        assert_eq!(result["sandbox"], json!("namespaces"), "{result}");
        let output = format!("{}{}", result["stdout"], result["stderr"]);
        assert!(
            !output.contains("SECRET-"),
            "`{reader}` printed a secret: {result}"
        );
        assert!(
            result["note"].as_str().unwrap().contains("masked"),
            "{result}"
        );
        let masked: Vec<&str> = result["masked"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        for shown in [".env", "sub/.env.local", "secrets/", "config/server.key"] {
            assert!(masked.contains(&shown), "{shown} in {masked:?}");
        }
    }
    // A model's call through `tool` (the agent envelope) runs in the same sandbox.
    let raw = r#"{"cmd":"exec","args":{"cmd":"cat .env home/.netrc"}}"#;
    let through_tool = daemon.ok("tool", json!({"raw": raw}));
    assert_eq!(
        through_tool["result"]["sandbox"],
        json!("namespaces"),
        "{through_tool}"
    );
    assert!(
        !through_tool.to_string().contains("SECRET-"),
        "{through_tool}"
    );
    // The files themselves are untouched by writes through the masks.
    let wrote = daemon.ok(
        "exec",
        json!({"cmd": "echo replaced > .env; rm -f .env; true"}),
    );
    assert_eq!(wrote["exit_code"], json!(0), "{wrote}");
    let env = std::fs::read_to_string(sandbox.root.join(".env")).unwrap();
    assert_eq!(env, "API_KEY=SECRET-ENV-1111\n");
    // Ordinary files are read as they are.
    let plain = daemon.ok(
        "exec",
        json!({"cmd": "cat src/main.rs home/.ssh/id_ed25519.pub"}),
    );
    assert_eq!(
        plain["stdout"],
        json!("fn main() {}\nssh-ed25519 AAAA-public\n"),
        "{plain}"
    );
}

/// The secret walk remembers each folder by its modification time: a secret created in a folder
/// the last run saw (and trusted, its time being old) is masked in the next run; so are secrets
/// inside noise folders like `node_modules`.
#[test]
fn a_secret_created_between_runs_is_masked_in_the_next_run() {
    let sandbox = Sandbox::empty();
    sandbox.write("app/main.py", "print(1)\n");
    sandbox.write("node_modules/pkg/.env", "SECRET-NOISE-1212\n");
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    for folder in ["", "app", "node_modules", "node_modules/pkg"] {
        let dir = std::fs::File::open(sandbox.root.join(folder)).unwrap();
        dir.set_modified(an_hour_ago).unwrap();
    }
    let daemon = Daemon::start(&sandbox, &[]);
    let first = daemon.ok("exec", json!({"cmd": "cat node_modules/pkg/.env; ls app"}));
    assert_eq!(first["stdout"], json!("main.py\n"), "{first}");
    sandbox.write("app/.env", "SECRET-LATER-3434\n");
    let next = daemon.ok("exec", json!({"cmd": "cat app/.env"}));
    assert_eq!(next["stdout"], json!(""), "{next}");
    assert!(next["masked"].to_string().contains("app/.env"), "{next}");
}

/// A secret is a file, not a name (issue 33): moved by a command, it stays masked for the next
/// command and non-accessible to every method, whatever it is called now. Each case on a fresh
/// daemon: the secrets, a first run (so the walk has seen and cached every folder, noise folders
/// included), the command that moves them, then each new name read by a command, by `read` and
/// by `search`.
#[test]
fn a_secret_moved_by_a_command_stays_a_secret_under_any_name() {
    // In the namespace sandbox a masked secret is a mount point (`mv .env x` is EBUSY, `ln` is
    // EXDEV), so a command there moves the folders above it; unsandboxed, it moves the secret.
    const CASES: &[(&str, &str, &str, &[&str])] = &[
        (
            "rename",
            "namespaces",
            "mv home/.aws aws_bak && mv home hidden",
            &["aws_bak/credentials", "hidden/.ssh/id_ed25519"],
        ),
        (
            "noise-move",
            "namespaces",
            "mv config node_modules/pkg/conf",
            &["node_modules/pkg/conf/server.key"],
        ),
        (
            // Inside the namespace sandbox the move itself fails (the git folder is a mount of
            // its own): `a_secret_moved_under_git_is_masked_inside_the_sandbox`.
            "gitdir-hide",
            "off",
            "mkdir -p .git/x && mv certs .git/x/certs",
            &[".git/x/certs/cert.pem"],
        ),
        (
            "rename-unsandboxed",
            "off",
            "mv .env settings.txt && mv secrets node_modules/pkg/hidden \
             && echo SECRET-LATER > node_modules/pkg/hidden/new.txt",
            &[
                "settings.txt",
                "node_modules/pkg/hidden/prod.txt",
                "node_modules/pkg/hidden/new.txt",
            ],
        ),
        (
            "hard-link",
            "off",
            "ln config/server.key notes.txt && ln certs/cert.pem node_modules/pkg/readme",
            &["notes.txt", "node_modules/pkg/readme"],
        ),
    ];
    for (case, mode, command, moved) in CASES {
        let sandbox = Sandbox::empty();
        sandbox.write(".env", "API_KEY=SECRET-ENV-1111\n");
        sandbox.write("secrets/prod.txt", "SECRET-DIR-3333\n");
        sandbox.write("config/server.key", "SECRET-KEY-4444\n");
        sandbox.write("home/.aws/credentials", "SECRET-AWS-7777\n");
        sandbox.write("home/.ssh/id_ed25519", "SECRET-SSH-6666\n");
        sandbox.write("certs/cert.pem", "SECRET-PEM-5555\n");
        sandbox.write("node_modules/pkg/index.js", "module.exports = 1;\n");
        sandbox.write(".git/HEAD", "ref: refs/heads/main\n");
        let config = sandbox.dir.path().join("coderd.yaml");
        std::fs::write(&config, format!("exec:\n  sandbox: {mode}\n")).unwrap();
        let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
        let first = daemon.ok("exec", json!({"cmd": "ls node_modules/pkg"}));
        assert_eq!(first["stdout"], json!("index.js\n"), "{case}: {first}");
        let ran = daemon.ok("exec", json!({"cmd": command}));
        assert_eq!(ran["exit_code"], json!(0), "{case}: {ran}");
        for path in *moved {
            assert!(sandbox.root.join(path).exists(), "{case}: {path} exists");
            let shown = daemon.ok("exec", json!({"cmd": format!("cat {path}")}));
            assert!(
                *mode == "off" || !shown.to_string().contains("SECRET-"),
                "{case}: `cat {path}` printed a secret: {shown}"
            );
            let read = daemon.err("read", json!({"file": path}));
            assert_eq!(
                read["data"]["code"],
                json!("C211"),
                "{case}: {path}: {read}"
            );
        }
        let found = daemon.ok(
            "search",
            json!({"pattern": "SECRET-", "use_default_excludes": false}),
        );
        assert_eq!(found["match_count"], json!(0), "{case}: {found}");
    }
}

/// A secret folder moved under `.git` (by the user, or by a command run unsandboxed) is masked in
/// the next sandboxed command and refused to every method; a sandboxed command cannot move it
/// there at all (the git folder is bound onto itself, and a masked file cannot be copied).
#[test]
fn a_secret_moved_under_git_is_masked_inside_the_sandbox() {
    let sandbox = Sandbox::empty();
    sandbox.write("certs/cert.pem", "SECRET-PEM-5555\n");
    git(&sandbox.root, &["init", "-q"]);
    let daemon = Daemon::start(&sandbox, &[]);
    let tried = daemon.ok(
        "exec",
        json!({"cmd": "mkdir -p .git/x && mv certs .git/x/certs"}),
    );
    assert_ne!(tried["exit_code"], json!(0), "{tried}");
    assert!(sandbox.root.join("certs/cert.pem").exists(), "{tried}");
    std::fs::rename(
        sandbox.root.join("certs"),
        sandbox.root.join(".git/x/certs"),
    )
    .unwrap();
    let shown = daemon.ok("exec", json!({"cmd": "cat .git/x/certs/cert.pem"}));
    assert_eq!(shown["stdout"], json!(""), "{shown}");
    let read = daemon.err("read", json!({"file": ".git/x/certs/cert.pem"}));
    assert_eq!(read["data"]["code"], json!("C211"), "{read}");
}

/// A copy made inside the sandbox holds nothing: the command read the secret as empty. The copy
/// is an ordinary new file, readable (it is not the secret).
#[test]
fn a_copy_of_a_secret_made_by_a_command_holds_nothing() {
    let sandbox = Sandbox::empty();
    sandbox.write(".env", "API_KEY=SECRET-ENV-1111\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let ran = daemon.ok("exec", json!({"cmd": "cp .env copy.txt"}));
    assert_eq!(ran["exit_code"], json!(0), "{ran}");
    let copy = daemon.ok("read", json!({"file": "copy.txt"}));
    assert_eq!(copy["content"], json!(""), "{copy}");
}

/// A daemon whose `$HOME` is a folder of the test (so a write that escapes lands there, not in
/// the real home), with one tool cache in it.
fn daemon_with_home(sandbox: &Sandbox, extra: &[&str]) -> (Daemon, PathBuf) {
    let home = sandbox.dir.path().join("home");
    std::fs::create_dir_all(home.join(".npm")).unwrap();
    let daemon = Daemon::start_env(sandbox, extra, &[("HOME", home.to_str().unwrap())]);
    (daemon, home)
}

/// Every file below `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type().unwrap().is_dir() {
                true => pending.push(path),
                false => out.push((path.clone(), std::fs::read(&path).unwrap_or_default())),
            }
        }
    }
    out.sort();
    out
}

#[test]
fn writes_land_only_in_the_roots_the_tool_caches_and_the_private_temp() {
    let sandbox = secret_workspace();
    let (daemon, home) = daemon_with_home(&sandbox, &[]);
    // The writes come from a script, whose text the rules never see (they refuse `> /etc/…`
    // written plainly): what a missed rule lets through, the sandbox must stop.
    sandbox.write("escape.sh", "echo x > \"$1\"\n");
    // A checkpoint, so the daemon's data folder holds undo history a command could destroy.
    daemon.ok("checkpoint", json!({"create": true}));
    let data = sandbox.dir.path().join("data/coderd");
    let history = snapshot(&data);
    assert!(
        !history.is_empty(),
        "no checkpoint data in {}",
        data.display()
    );
    let escape = format!("coderd-sandbox-escape-{}", std::process::id());
    let refused: Vec<PathBuf> = vec![
        home.join(&escape),
        Path::new("/tmp").join(&escape),
        Path::new("/etc").join(&escape),
        sandbox.outside.join(&escape),
        data.join(&escape),
        sandbox.dir.path().join(&escape),
    ];
    for target in &refused {
        let write = format!("bash escape.sh '{}'", target.display());
        let result = daemon.ok("exec", json!({"cmd": write}));
        assert_ne!(result["exit_code"], json!(0), "{write}: {result}");
        assert!(!target.exists(), "{write} wrote {}", target.display());
    }
    // The checkpoints survive a command that tries to delete them.
    let cmd = format!("rm -rf '{}'/* ; ls -A '{}'", data.display(), data.display());
    let result = daemon.ok("exec", json!({"cmd": cmd}));
    assert_eq!(result["stdout"], json!(""), "hidden, not listed: {result}");
    assert_eq!(snapshot(&data), history, "the undo history changed");
    let listed = daemon.ok("checkpoint", json!({"list": true}));
    assert!(listed.to_string().contains("manual"), "{listed}");
    // The roots, the caches and the private temp folder take writes.
    let result = daemon.ok(
        "exec",
        json!({"cmd": "echo root > made.txt && echo cache > ~/.npm/made.txt \
                && echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\""}),
    );
    assert_eq!(result["exit_code"], json!(0), "{result}");
    assert_eq!(result["stdout"], json!("tmp\n"));
    assert!(sandbox.root.join("made.txt").exists());
    assert!(home.join(".npm/made.txt").exists());
}

#[test]
fn the_daemon_socket_cannot_be_reached_from_inside() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let cmd = format!(
        "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); print('connected')\"",
        daemon.socket.display()
    );
    let result = daemon.ok("exec", json!({"cmd": cmd}));
    assert_ne!(result["exit_code"], json!(0), "{result}");
    assert!(!result["stdout"].as_str().unwrap().contains("connected"));
}

/// `/dev` holds only harmless devices (and pseudo-terminals of its own), and `/proc` shows only the
/// command's own namespace: the namespace's init, the shell and what it started.
#[test]
fn dev_is_minimal_and_proc_shows_only_the_commands_namespace() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let devices = daemon.ok("exec", json!({"cmd": "ls /dev"}));
    let listed: Vec<&str> = devices["stdout"].as_str().unwrap().lines().collect();
    assert_eq!(
        listed,
        [
            "fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout",
            "tty", "urandom", "zero"
        ],
        "{devices}"
    );
    let processes = daemon.ok(
        "exec",
        json!({"cmd": "ls /proc | grep -cE '^[0-9]+$'; echo $$; \
                python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))'"}),
    );
    let lines: Vec<&str> = processes["stdout"].as_str().unwrap().lines().collect();
    let count: usize = lines[0].parse().unwrap();
    assert!(count <= 4, "{count} processes visible: {processes}");
    assert_eq!(lines[1], "2", "the shell is PID 2: {processes}");
    assert!(lines[2].starts_with("/dev/pts/"), "{processes}");
}

/// Connects to `port` on the machine's loopback from inside; whether it got through.
fn reaches(daemon: &Daemon, port: u16) -> bool {
    let cmd = format!("echo hello > /dev/tcp/127.0.0.1/{port} && echo connected");
    let result = daemon.ok("exec", json!({"cmd": cmd, "timeout": 10}));
    result["stdout"].as_str().unwrap().contains("connected")
}

#[test]
fn network_false_cuts_the_network_and_keeps_a_loopback_of_its_own() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let sandbox = Sandbox::empty();
    let on = Daemon::start(&sandbox, &[]);
    assert!(reaches(&on, port), "network is on by default");
    drop(on);
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "exec:\n  sandbox:\n    network: false\n").unwrap();
    let off = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    assert!(
        !reaches(&off, port),
        "network: false still reached the machine"
    );
    let info = off.ok("info", json!({}));
    assert_eq!(info["exec"]["sandbox"]["network"], json!(false), "{info}");
    // Its own loopback is up: a server and a client inside talk.
    let own = off.ok(
        "exec",
        json!({"cmd": "python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); \
                s.listen(); c = socket.create_connection(s.getsockname()); print('loopback ok')\""}),
    );
    assert_eq!(own["stdout"], json!("loopback ok\n"), "{own}");
}

#[test]
fn info_and_dry_run_report_the_sandbox_and_where_a_command_could_write() {
    let sandbox = Sandbox::empty();
    let (daemon, home) = daemon_with_home(&sandbox, &[]);
    let info = daemon.ok("info", json!({}));
    let reported = &info["exec"]["sandbox"];
    assert_eq!(reported["mode"], json!("auto"), "{info}");
    assert_eq!(reported["in_force"], json!("namespaces"), "{info}");
    assert_eq!(reported["secrets_masked"], json!(true), "{info}");
    let dry = daemon.ok("exec", json!({"cmd": "touch x", "dry_run": true}));
    assert_eq!(dry["allowed"], json!(true), "{dry}");
    assert_eq!(dry["sandbox"]["in_force"], json!("namespaces"), "{dry}");
    let writable: Vec<&str> = dry["sandbox"]["writable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(writable.contains(&sandbox.root.to_str().unwrap()), "{dry}");
    let npm = home.join(".npm");
    assert!(writable.contains(&npm.to_str().unwrap()), "{dry}");
    assert!(!sandbox.root.join("x").exists(), "dry_run ran the command");
}

/// A daemon in a user namespace of its own that may create no further one (a machine where
/// unprivileged user namespaces are off), with `config`.
fn daemon_without_namespaces(sandbox: &Sandbox, config: &str) -> Daemon {
    let config_path = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config_path, config).unwrap();
    let socket = sandbox.socket();
    let log = sandbox.dir.path().join("coderd.log");
    let child = Command::new("unshare")
        .args(["-Ur", "sh", "-c"])
        .arg("echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_coderd"))
        .arg("--root")
        .arg(&sandbox.root)
        .arg("--config")
        .arg(&config_path)
        .arg("--socket")
        .arg(&socket)
        .arg("--log-file")
        .arg(&log)
        .env("XDG_RUNTIME_DIR", sandbox.dir.path().join("run"))
        .env("XDG_DATA_HOME", sandbox.dir.path().join("data"))
        .env("XDG_STATE_HOME", sandbox.dir.path().join("state"))
        .stdin(Stdio::null())
        .spawn()
        .expect("unshare");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < deadline, "coderd did not come up");
        std::thread::sleep(Duration::from_millis(10));
    }
    Daemon { child, socket, log }
}

#[test]
fn without_user_namespaces_auto_falls_back_to_landlock_and_namespaces_is_refused() {
    let sandbox = secret_workspace();
    let auto = daemon_without_namespaces(&sandbox, "");
    let info = auto.ok("info", json!({}));
    let landlock = !info["exec"]["sandbox"]["landlock_abi"].is_null();
    if landlock {
        assert_eq!(
            info["exec"]["sandbox"]["in_force"],
            json!("landlock"),
            "{info}"
        );
        let result = auto.ok("exec", json!({"cmd": "touch made.txt"}));
        assert_eq!(result["sandbox"], json!("landlock"), "{result}");
        assert!(sandbox.root.join("made.txt").exists());
    } else {
        let error = auto.err("exec", json!({"cmd": "true"}));
        assert_eq!(error["data"]["code"], json!("C214"), "{error}");
    }
    drop(auto);
    let insisting = daemon_without_namespaces(&sandbox, "exec:\n  sandbox: namespaces\n");
    let error = insisting.err("exec", json!({"cmd": "touch refused.txt"}));
    assert_eq!(error["data"]["code"], json!("C214"), "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("user namespaces"), "{error}");
    assert!(
        error["data"]["recovery"].as_str().unwrap().contains("off"),
        "{error}"
    );
    assert!(!sandbox.root.join("refused.txt").exists());
    drop(insisting);
    let off = daemon_without_namespaces(&sandbox, "exec:\n  sandbox: off\n");
    let result = off.ok("exec", json!({"cmd": "cat .env"}));
    assert_eq!(result["sandbox"], json!("off"), "{result}");
}

#[test]
fn test_runs_in_the_same_sandbox() {
    let sandbox = secret_workspace();
    sandbox.write(
        "py/test_env.py",
        "def test_env_is_masked():\n    assert open('../.env').read() == ''\n",
    );
    sandbox.write("py/pytest.ini", "[pytest]\n");
    let daemon = Daemon::start(&sandbox, &[]);
    let result: Value = daemon.ok("test", json!({"dir": "py", "timeout": 120}));
    assert_eq!(result["sandbox"], json!("namespaces"), "{result}");
    assert_eq!(result["exit_code"], json!(0), "{result}");
}

/// No Unix-domain socket outside is reachable from a command: not another daemon's (started
/// with `--socket` elsewhere), not a listener of the machine's, with or without a network; the
/// command's own processes still talk over socket pairs.
#[test]
fn other_daemons_and_unix_sockets_outside_are_unreachable() {
    let other = Sandbox::empty();
    let other_daemon = Daemon::start(&other, &[]);
    let sandbox = Sandbox::empty();
    let listener_path = sandbox.outside.join("listener.sock");
    let listener = std::os::unix::net::UnixListener::bind(&listener_path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "exec:\n  sandbox:\n    network: false\n").unwrap();
    for extra in [vec![], vec!["--config", config.to_str().unwrap()]] {
        let daemon = Daemon::start(&sandbox, &extra);
        let planted = other.root.join("planted.txt");
        for target in [&other_daemon.socket, &listener_path] {
            let request = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"create-file","params":{{"path":"{}","content":"x"}}}}"#,
                planted.display()
            );
            let cmd = format!(
                "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{}'); \
                 s.sendall(b'{}\\n'); print('connected', s.recv(100))\"",
                target.display(),
                request.replace('"', "\\\"")
            );
            let result = daemon.ok("exec", json!({"cmd": cmd}));
            assert_ne!(result["exit_code"], json!(0), "{extra:?} {result}");
            let stderr = result["stderr"].as_str().unwrap();
            assert!(stderr.contains("PermissionError"), "{extra:?} {result}");
            assert!(
                !planted.exists(),
                "{extra:?}: a command reached the other daemon"
            );
            // The command has ended: anything it sent has arrived by now.
            assert!(
                listener.accept().is_err(),
                "{extra:?}: the listener outside was reached"
            );
        }
        let pair = daemon.ok(
            "exec",
            json!({"cmd": "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())\""}),
        );
        assert_eq!(pair["stdout"], json!("ok\n"), "{pair}");
    }
    other_daemon.ok("info", json!({}));
}

/// A command cannot leave a set-id file in the roots, whatever way it sets the bits: the
/// files on disk keep no set-id bit.
#[test]
fn no_command_leaves_a_set_id_file_behind() {
    let sandbox = Sandbox::empty();
    let daemon = Daemon::start(&sandbox, &[]);
    let attempts = [
        "cp /bin/sh suid-sh && chmod 4755 suid-sh",
        "cp /bin/sh sgid-sh && chmod g+s sgid-sh",
        "install -m 4755 /bin/sh installed-sh",
        "python3 -c \"import os, shutil; shutil.copy('/bin/sh', 'py-sh'); os.chmod('py-sh', 0o6755)\"",
        "python3 -c \"import os; os.close(os.open('created', os.O_CREAT | os.O_WRONLY, 0o4755))\"",
        "mkdir -p d && touch d/f && chmod -R u+s d",
    ];
    // From scripts, whose text the rules never read: the sandbox must hold where they miss.
    for (i, cmd) in attempts.iter().enumerate() {
        let script = format!("attempt-{i}.sh");
        sandbox.write(&script, cmd);
        daemon.ok("exec", json!({"cmd": format!("bash {script}")}));
    }
    use std::os::unix::fs::PermissionsExt;
    let mut seen = 0;
    for (path, _) in snapshot(&sandbox.root) {
        seen += 1;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o6000, 0, "{} has mode {mode:o}", path.display());
    }
    assert!(
        seen >= 4 + attempts.len(),
        "the commands made their files ({seen})"
    );
}

/// Credentials in the home folder are empty to commands; public keys and known hosts are not.
#[test]
fn credentials_in_the_home_folder_are_hidden_from_commands() {
    let sandbox = Sandbox::empty();
    let home = sandbox.outside.join("home");
    let files = [
        (".ssh/id_rsa", true),
        (".ssh/my_deploy_key", true),
        (".ssh/config", true),
        (".ssh/id_rsa.pub", false),
        (".ssh/known_hosts", false),
        (".aws/credentials", true),
        (".aws/config", true),
        (".netrc", true),
        (".git-credentials", true),
        (".docker/config.json", true),
        (".kube/config", true),
        (".cargo/credentials.toml", true),
        (".config/gh/hosts.yml", true),
        (".npmrc", true),
        (".pypirc", true),
        (".gnupg/private-keys-v1.d/k.key", true),
        (".bashrc", false),
    ];
    for (i, (name, _)) in files.iter().enumerate() {
        let path = home.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("CREDENTIAL-{i}\n")).unwrap();
    }
    let daemon = Daemon::start_env(&sandbox, &[], &[("HOME", home.to_str().unwrap())]);
    for (i, (name, hidden)) in files.iter().enumerate() {
        let cmd = format!("cat ~/{name}");
        let result = daemon.ok("exec", json!({"cmd": cmd}));
        let shown = result["stdout"]
            .as_str()
            .unwrap()
            .contains(&format!("CREDENTIAL-{i}"));
        assert_eq!(shown, !hidden, "{name}: {result}");
    }
    let info = daemon.ok("info", json!({}));
    let hidden = info["exec"]["sandbox"]["hidden"].to_string();
    assert!(hidden.contains("~/.ssh/*"), "{info}");
}

/// `exec.sandbox.limits`: a run over its memory is ended and says so, a run cannot start more
/// processes than `pids`, `$TMPDIR` holds at most `tmp`; the daemon goes on answering.
#[test]
fn a_run_over_its_limits_is_ended_and_says_which() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(
        &config,
        "exec:\n  sandbox:\n    limits: {memory: 200MiB, pids: 64, tmp: 4MiB}\n",
    )
    .unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let info = daemon.ok("info", json!({}));
    let limits = &info["exec"]["sandbox"]["limits"];
    assert_eq!(limits["memory"], json!(200 * 1024 * 1024), "{info}");
    assert_eq!(limits["pids"], json!(64), "{info}");
    let enforced = limits["enforced_by"].as_str().unwrap().to_string();
    // One GiB, every page written.
    let hog = daemon.ok(
        "exec",
        json!({"cmd": "python3 -c \"b = b'x' * (1 << 30); print('survived', len(b))\""}),
    );
    assert!(
        !hog["stdout"].as_str().unwrap().contains("survived"),
        "{hog}"
    );
    if enforced.starts_with("cgroup") {
        assert_eq!(hog["killed_by"], json!("memory"), "{hog}");
    }
    // 200 children: the forks past the limit are refused.
    // The rules refuse a fork loop they can read: this one they cannot (a missed rule).
    sandbox.write("run.sh", "exec python3 \"$1\"\n");
    sandbox.write(
        "forks.txt",
        "import os, signal, time\nkids = []\ntry:\n    for i in range(200):\n        pid = os.fork()\n        \
         if pid == 0:\n            time.sleep(60)\n            os._exit(0)\n        kids.append(pid)\n\
         except OSError as e:\n    print('refused', e.errno)\nprint(len(kids))\n\
         for k in kids:\n    os.kill(k, signal.SIGKILL)\n",
    );
    let fork = daemon.ok("exec", json!({"cmd": "bash run.sh forks.txt"}));
    let lines: Vec<&str> = fork["stdout"].as_str().unwrap().lines().collect();
    assert!(lines[0].starts_with("refused"), "{fork}");
    let started: usize = lines[1].parse().unwrap();
    assert!(started < 64, "{started} children: {fork}");
    if enforced.starts_with("cgroup") {
        assert_eq!(fork["limits_hit"], json!(["pids"]), "{fork}");
    }
    let tmp = daemon.ok(
        "exec",
        json!({"cmd": "head -c 8388608 /dev/zero > \"$TMPDIR/big\""}),
    );
    assert_ne!(tmp["exit_code"], json!(0), "{tmp}");
    assert!(
        tmp["stderr"].as_str().unwrap().contains("No space left"),
        "{tmp}"
    );
    // The daemon lives, and the next run is as usual.
    let next = daemon.ok("exec", json!({"cmd": "echo fine"}));
    assert_eq!(next["stdout"], json!("fine\n"), "{next}");
}

/// `exec.max_concurrent`: with that many runs going, the next waits, and is answered C218 when
/// its timeout passes first; once a run ends, the next one runs.
#[test]
fn runs_over_max_concurrent_wait_for_a_slot() {
    let sandbox = Sandbox::empty();
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(&config, "exec:\n  max_concurrent: 4\n").unwrap();
    let daemon = Daemon::start(&sandbox, &["--config", config.to_str().unwrap()]);
    let info = daemon.ok("info", json!({}));
    assert_eq!(info["exec"]["max_concurrent"], json!(4), "{info}");
    let socket = daemon.socket.clone();
    let running: Vec<_> = (0..4)
        .map(|i| {
            let socket = socket.clone();
            std::thread::spawn(move || {
                let cmd = format!(
                    "touch started-{i}; while [ ! -e release ]; do sleep 0.05; done; echo done"
                );
                common::Client::connect(&socket).call("exec", json!({"cmd": cmd, "timeout": 600}))
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    while (0..4).any(|i| !sandbox.root.join(format!("started-{i}")).exists()) {
        assert!(Instant::now() < deadline, "the four runs did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let fifth = daemon.err("exec", json!({"cmd": "touch fifth", "timeout": 1}));
    assert_eq!(fifth["data"]["code"], json!("C218"), "{fifth}");
    assert!(
        fifth["message"]
            .as_str()
            .unwrap()
            .contains("max_concurrent"),
        "{fifth}"
    );
    assert!(!sandbox.root.join("fifth").exists());
    std::fs::write(sandbox.root.join("release"), "").unwrap();
    for run in running {
        let answer = run.join().unwrap();
        assert_eq!(answer["result"]["stdout"], json!("done\n"), "{answer}");
    }
    let after = daemon.ok("exec", json!({"cmd": "echo next"}));
    assert_eq!(after["stdout"], json!("next\n"), "{after}");
}

/// The bytes of a repository's hooks, config and info, for comparison.
fn steering(git_dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all = snapshot(&git_dir.join("hooks"));
    all.extend(snapshot(&git_dir.join("info")));
    all.push((
        git_dir.join("config"),
        std::fs::read(git_dir.join("config")).unwrap(),
    ));
    all
}

/// Issue 32, item 4: inside `exec`, a repository's `hooks/`, `config` and `info/` cannot be
/// changed, replaced or moved away (they would run programs at the user's next plain `git`, outside
/// any sandbox), in the root's repository, a project folder's and a deeper one the run is in; `git
/// commit`, `git branch` and
/// `git checkout -b` still work. The attempts are scripts, whose text the rules never read.
#[test]
fn a_repositorys_hooks_config_and_info_are_read_only_while_commit_and_branch_work() {
    let sandbox = Sandbox::empty();
    let root = sandbox.root.clone();
    let nested = root.join("project");
    // Deeper than a folder below the root: protected when the run is in it.
    let deep = root.join("libs/deep");
    for repo in [&root, &nested, &deep] {
        std::fs::create_dir_all(repo).unwrap();
        git(repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        git(repo, &["add", "a.txt"]);
        git(repo, &["commit", "-qm", "first"]);
    }
    // A repository made without the usual template: no hooks/ nor info/ to bind over yet.
    std::fs::remove_dir_all(nested.join(".git/hooks")).unwrap();
    std::fs::remove_dir_all(nested.join(".git/info")).unwrap();
    let before: Vec<_> = [&root, &nested, &deep]
        .iter()
        .map(|r| steering(&r.join(".git")))
        .collect();
    let daemon = Daemon::start(&sandbox, &[]);
    let attempts = [
        "printf '#!/bin/sh\\ntouch pwned\\n' > $G/hooks/post-checkout",
        "echo x > $G/hooks/pre-commit.sample",
        "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> $G/config",
        "git -C $W config core.hooksPath /tmp",
        "echo '*' >> $G/info/exclude",
        "touch $G/info/attributes",
        "rm -rf $G/hooks",
        "mv $G/config $G/config.old",
        "cp $G/config c && echo '[alias]' >> c && mv -f c $G/config",
        "mv $G $W/.git-old && mkdir $G && cp -r $W/.git-old/. $G/",
    ];
    let script = root.join("attempt.sh");
    let cmd = format!("bash '{}'", script.display());
    for (work, name) in [(&root, "."), (&nested, "project"), (&deep, "libs/deep")] {
        for attempt in attempts {
            let script = format!("G='{0}/.git'; W='{0}'\n{attempt}\n", work.display());
            sandbox.write("attempt.sh", &script);
            let result = daemon.ok("exec", json!({"cmd": cmd, "dir": name}));
            assert_ne!(result["exit_code"], json!(0), "{name}: {attempt}: {result}");
        }
    }
    let after: Vec<_> = [&root, &nested, &deep]
        .iter()
        .map(|r| steering(&r.join(".git")))
        .collect();
    assert_eq!(
        after, before,
        "a repository's hooks, config or info changed"
    );
    // A `commondir` (git would read another folder's config and hooks) can be created in the
    // writable git folder, but it is gone when the run ends, and the answer says so.
    sandbox.write("evil/config", "[core]\n\tfsmonitor = touch pwned\n");
    let plant = format!("echo '{}/evil' > .git/commondir", root.display());
    sandbox.write("attempt.sh", &plant);
    let result = daemon.ok("exec", json!({"cmd": "bash attempt.sh"}));
    assert!(!root.join(".git/commondir").exists(), "{result}");
    assert!(
        result["note"]
            .as_str()
            .unwrap_or_default()
            .contains("commondir"),
        "{result}"
    );
    for repo in [&root, &nested, &deep] {
        assert!(!repo.join(".git-old").exists(), "{}", repo.display());
    }

    // What git itself needs to commit and branch is writable.
    let work = "echo more >> a.txt && git add a.txt \
                && git -c user.name=T -c user.email=t@example.com commit -qm inside \
                && git branch feature && git checkout -q -b topic && git tag v1";
    for dir in [".", "project", "libs/deep"] {
        let result = daemon.ok("exec", json!({"cmd": work, "dir": dir}));
        assert_eq!(result["exit_code"], json!(0), "{dir}: {result}");
    }
    for repo in [&root, &nested, &deep] {
        assert_eq!(git(repo, &["log", "-1", "--format=%s"]), "inside\n");
        assert_eq!(git(repo, &["symbolic-ref", "--short", "HEAD"]), "topic\n");
        assert_eq!(
            git(repo, &["rev-parse", "feature"]),
            git(repo, &["rev-parse", "HEAD"])
        );
    }
}
