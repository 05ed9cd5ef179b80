//! The `coder` client as a person uses it: flags, human output, exit codes, auto-start.

use crate::common;

use common::{Daemon, Sandbox};
use std::path::Path;
use std::process::{Command, Output};

fn coder(socket: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(common::coder_bin())
        .arg("--socket")
        .arg(socket)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn subcommands_print_what_a_person_wants() {
    let sandbox = Sandbox::fixture("basic");
    let daemon = Daemon::start(&sandbox, &[]);
    let (s, root) = (&daemon.socket, &sandbox.root);

    let out = coder(
        s,
        root,
        &[
            "read",
            "--file",
            "src/main.rs",
            "--start",
            "9",
            "--end",
            "10",
        ],
    );
    assert!(out.status.success());
    assert_eq!(stdout(&out), "    // TODO: make this faster\n    x * 2\n");

    let out = coder(
        s,
        root,
        &["read", "src/main.rs", "--head", "1", "--numbered"],
    );
    assert_eq!(stdout(&out), "     1\tuse std::env;\n");

    // Paths typed in a shell are relative to the shell's folder.
    let out = coder(s, &root.join("src"), &["read", "lib.rs", "--head", "1"]);
    assert_eq!(
        stdout(&out),
        "pub fn add(a: i32, b: i32) -> i32 {\n",
        "{}",
        stderr(&out)
    );

    let out = coder(s, root, &["read", "docs/big.txt"]);
    assert!(
        stderr(&out).contains("continue with --start 2001"),
        "{}",
        stderr(&out)
    );

    let out = coder(s, root, &["read", "--stat", "src/main.rs"]);
    assert!(stdout(&out).contains("total_lines: 11"), "{}", stdout(&out));

    let out = coder(s, root, &["search", "hello", "--context", "0"]);
    let expected = format!(
        "{r}/src/lib.rs:6:    \"hello world\"\n{r}/src/main.rs:5:    println!(\"hello {{}}\", args.len());\n",
        r = root.display()
    );
    assert_eq!(stdout(&out), expected);

    let out = coder(
        s,
        root,
        &[
            "search",
            "--pattern",
            "TODO",
            "--before",
            "1",
            "--after",
            "0",
        ],
    );
    assert_eq!(
        stdout(&out),
        format!("{r}/src/main.rs-8-fn helper(x: u32) -> u32 {{\n{r}/src/main.rs:9:    // TODO: make this faster\n", r = root.display())
    );

    let out = coder(s, root, &["tree", "--depth", "1"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("ws/\n├── .env  [non-accessible]\n"),
        "{text}"
    );
    assert!(
        text.contains("├── node_modules/  [default_exclude]\n"),
        "{text}"
    );
    assert!(text.ends_with("└── src/  [depth]\n"), "{text}");

    let out = coder(s, root, &["list-folder", "--dir", "secrets"]);
    assert!(
        stdout(&out).contains("token.txt  [non-accessible]"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn json_call_and_errors() {
    let sandbox = Sandbox::fixture("basic");
    let daemon = Daemon::start(&sandbox, &[]);
    let (s, root) = (&daemon.socket, &sandbox.root);

    let out = coder(
        s,
        root,
        &["--json", "read", "--file", "src/main.rs", "--head", "1"],
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["content"], "use std::env;\n");
    assert_eq!(value["total_lines"], 11);

    let out = coder(
        s,
        root,
        &[
            "call",
            "read",
            r#"{"path": "src/lib.rs", "from_line": 1, "to_line": 1}"#,
        ],
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["content"], "pub fn add(a: i32, b: i32) -> i32 {\n");

    let out = coder(s, root, &["read", "nope.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error C211"), "{}", stderr(&out));

    let out = coder(s, root, &["read", "../outside/secret.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("C215"), "{}", stderr(&out));

    let out = coder(s, root, &["--json", "read", ".env"]);
    assert_eq!(out.status.code(), Some(1));
    let error: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["data"]["code"], "C211");

    let out = coder(s, root, &["call", "read", "{not json"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn starts_a_daemon_when_none_answers() {
    let sandbox = Sandbox::fixture("basic");
    let runtime = sandbox.dir.path().join("run");
    let run = |args: &[&str]| {
        Command::new(common::coder_bin())
            .args(args)
            .current_dir(sandbox.root.join("src"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("CODERD_SOCKET")
            .output()
            .unwrap()
    };
    // A daemon that cannot start is reported at once, with its log: the client saw it exit
    // (rather than wait its 10 s for a socket that never answers).
    let out = run(&["--root", "/nonexistent/coderd-cli-test", "info"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("coderd exited") && stderr(&out).contains("no usable workspace root"),
        "{}",
        stderr(&out)
    );

    let out = run(&["--no-start", "info"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));

    let out = run(&[
        "--root",
        sandbox.root.to_str().unwrap(),
        "read",
        "main.rs",
        "--head",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "use std::env;\n");

    // The same workspace finds the same daemon (same default socket).
    let out = run(&["--root", sandbox.root.to_str().unwrap(), "--json", "info"]);
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let socket = info["socket"].as_str().unwrap().to_string();
    assert!(socket.starts_with(runtime.to_str().unwrap()), "{socket}");
    use std::os::unix::fs::PermissionsExt;
    let folder = std::fs::metadata(Path::new(&socket).parent().unwrap()).unwrap();
    assert_eq!(
        folder.permissions().mode() & 0o777,
        0o700,
        "the socket's folder is not private"
    );
    assert_eq!(info["primary_root"], serde_json::json!(sandbox.root));

    // `shutdown` returns once the daemon is gone, so the next call starts a fresh one.
    let out = run(&["--root", sandbox.root.to_str().unwrap(), "shutdown"]);
    assert!(out.status.success());
    assert!(!Path::new(&socket).exists(), "shutdown returned early");
    let out = run(&["--root", sandbox.root.to_str().unwrap(), "--json", "info"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["--root", sandbox.root.to_str().unwrap(), "shutdown"]);
    assert!(out.status.success());
}

/// A daemon this test started itself; killed if the test fails before stopping it.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Stops, when dropped, every daemon registered under a test's runtime folder, so a failing test
/// leaves no daemon behind (all of them were started by that test).
struct StopRegistered<'a>(&'a Path);

impl Drop for StopRegistered<'_> {
    fn drop(&mut self) {
        for entry in registry_entries(self.0) {
            if let Some(pid) = entry.file_stem().and_then(|s| s.to_str()) {
                let _ = Command::new("kill").arg(pid).output();
            }
        }
    }
}

/// The registry files of live daemons under a runtime folder.
fn registry_entries(runtime: &Path) -> Vec<std::path::PathBuf> {
    let dir = runtime.join("coderd/daemons");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.retain(|p| p.extension().is_some_and(|e| e == "json"));
    entries.sort();
    entries
}

#[test]
fn finds_the_daemon_of_a_subfolder_instead_of_starting_another() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, Instant};
    let sandbox = Sandbox::fixture("basic");
    // The workspace is a git top level, so without the registry `coder` would start a daemon
    // for it rather than use the one serving the subfolder.
    std::fs::create_dir(sandbox.root.join(".git")).unwrap();
    let runtime = sandbox.dir.path().join("run");
    let _cleanup = StopRegistered(&runtime);
    let sub = sandbox.root.join("deep");
    let inner = sub.join("a/b");
    let log = std::fs::File::create(sandbox.dir.path().join("coderd.log")).unwrap();
    // `coderd --root .` started from the subfolder, on its default socket.
    let daemon = Command::new(env!("CARGO_BIN_EXE_coderd"))
        .args(["--root", "."])
        .current_dir(&sub)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("CODERD_SOCKET")
        .stdin(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut daemon = KillOnDrop(daemon);
    let entry_path = runtime
        .join("coderd/daemons")
        .join(format!("{}.json", daemon.0.id()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while !entry_path.exists() {
        assert!(Instant::now() < deadline, "coderd did not register");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mode = std::fs::metadata(&entry_path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "registry entry mode {mode:o}");
    let entry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&entry_path).unwrap()).unwrap();
    let socket = entry["socket"].as_str().unwrap().to_string();
    assert_eq!(entry["roots"], serde_json::json!([sub]));

    // Stale entries: a dead pid, and a live pid (this test) whose socket does not answer, with a
    // deeper root so it is tried first.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let stale = [
        (gone.id(), sub.clone()),
        (std::process::id(), sub.join("a")),
    ];
    for (pid, root) in &stale {
        let fake = serde_json::json!({"pid": pid, "socket": sandbox.dir.path().join("gone.sock"),
                                      "roots": [root], "version": "0"});
        std::fs::write(
            runtime.join(format!("coderd/daemons/{pid}.json")),
            fake.to_string(),
        )
        .unwrap();
    }

    let run = |cwd: &Path, args: &[&str]| {
        Command::new(common::coder_bin())
            .args(args)
            .current_dir(cwd)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("CODERD_SOCKET")
            .output()
            .unwrap()
    };
    let out = run(&inner, &["--verbose", "--json", "info"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["pid"], daemon.0.id(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!("socket {socket} (from the registry")),
        "{said}"
    );
    assert!(
        said.matches("removed stale registry entry").count() == 2,
        "{said}"
    );
    assert!(!said.contains("started"), "{said}");
    // No second daemon: one entry (the stale ones are gone), one socket in the runtime folder.
    assert_eq!(registry_entries(&runtime), vec![entry_path.clone()]);
    let sockets: Vec<_> = std::fs::read_dir(runtime.join("coderd"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "sock"))
        .collect();
    assert_eq!(sockets.len(), 1, "{sockets:?}");

    // Paths typed there are relative to that folder, through the same daemon.
    let out = run(&inner, &["read", "c/d/e/f.txt", "--head", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));

    // --socket still wins over the registry.
    let out = run(
        &inner,
        &[
            "--verbose",
            "--no-start",
            "--socket",
            "/nonexistent/x.sock",
            "info",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("socket /nonexistent/x.sock (from --socket)"),
        "{}",
        stderr(&out)
    );

    // Outside the daemon's root the workspace's own default socket is used (none answers there).
    let out = run(&sandbox.root, &["--verbose", "--no-start", "info"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains(&format!(
            "(the default socket of workspace {})",
            sandbox.root.display()
        )),
        "{}",
        stderr(&out)
    );

    // A clean stop removes the entry.
    let out = run(&inner, &["shutdown"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let deadline = Instant::now() + Duration::from_secs(5);
    while daemon.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "daemon did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(registry_entries(&runtime).is_empty());
}

#[test]
fn every_method_is_a_subcommand_with_flags_typed_by_its_schema() {
    let sandbox = Sandbox::fixture("basic");
    let daemon = Daemon::start(&sandbox, &[]);
    let (s, root) = (&daemon.socket, &sandbox.root);
    let src = root.join("src");

    // `write` has no clap struct: its flags come from its schema; the path is relative to the cwd.
    let out = coder(
        s,
        &src,
        &["write", "--file", "new.txt", "--content", "007\n"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(src.join("new.txt")).unwrap(),
        "007\n"
    );
    assert!(stdout(&out).contains("new.txt created: +1 -0, 4 bytes, version "));

    // A positional argument fills `file`; the client's own flags may follow the method's name.
    let out = coder(
        s,
        &src,
        &[
            "patch",
            "new.txt",
            "--search",
            "007",
            "--replace",
            "8",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["matched_with"], "exact");
    assert_eq!(std::fs::read_to_string(src.join("new.txt")).unwrap(), "8\n");

    // Lists of objects arrive as JSON, repeated or whole; nested paths are relative to the cwd too.
    let out = coder(
        s,
        &src,
        &[
            "multipatch",
            "--edits",
            r#"{"file": "new.txt", "search": "8", "replace": "9"}"#,
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(src.join("new.txt")).unwrap(), "9\n");

    // A bad value is the client's error (exit 2), naming the flag; nothing is sent.
    let out = coder(s, root, &["update-file", "--files", "{oops"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--files expects JSON"),
        "{}",
        stderr(&out)
    );

    // A missed search shows the closest candidate to a person.
    let out = coder(
        s,
        &src,
        &["patch", "new.txt", "--search", "10", "--replace", "x"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("closest: lines 1-1"),
        "{}",
        stderr(&out)
    );

    // `--help` lists the method's flags from its schema.
    let out = coder(s, root, &["patch", "--help"]);
    assert!(out.status.success());
    for flag in [
        "--search TEXT",
        "--occurrence N",
        "--replace-all [true|false]",
    ] {
        assert!(stdout(&out).contains(flag), "{flag} in {}", stdout(&out));
    }
    // And the bare words it takes, from its entry's `bare`.
    let out = coder(s, root, &["git-diff", "--help"]);
    assert!(
        stdout(&out).contains("usage: coder git-diff [FILE [DIR]] [--flag VALUE ...]"),
        "{}",
        stdout(&out)
    );

    // A leading word may name a mode flag, the way subcommands are written.
    let out = coder(s, root, &["todo", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("no todos"), "{}", stdout(&out));

    // Symbols print as jumpable `path:line:` lines, with what the limit left out.
    let out = coder(s, root, &["symbols", "add", "--limit", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(first.starts_with("src/lib.rs:"), "{}", stdout(&out));
    assert!(
        first.contains("function pub fn add(a: i32, b: i32)"),
        "{}",
        stdout(&out)
    );

    // An unknown method names the ones there are.
    let out = coder(s, root, &["frobnicate", "--x", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown method `frobnicate`"));
    assert!(stderr(&out).contains("multipatch"));
    // Issue 36: the hint was printed twice (in the message, then again on a line of its own).
    assert_eq!(
        stderr(&out).matches("methods: ").count(),
        1,
        "{}",
        stderr(&out)
    );
}

#[test]
fn search_text_is_what_rg_prints_for_every_context() {
    let sandbox = Sandbox::fixture("basic");
    let daemon = Daemon::start(&sandbox, &[]);
    // Matches on neighbouring lines, far apart, at the first and last line, in two files.
    let dir = sandbox.root.join("rg-case");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("a.txt"),
        "needle one\nplain\nplain\nneedle two\nneedle three\nplain\nplain\nplain\nplain\nneedle four\nplain\nneedle five\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.txt"), "plain\nneedle six\nplain\n").unwrap();
    let dir_arg = dir.to_str().unwrap();
    for n in 0..=3 {
        let context = n.to_string();
        let rg = Command::new("rg")
            .args(["-n", "--sort", "path", "-C", &context, "needle", dir_arg])
            .output()
            .expect("`rg` runs (scripts/install-test-tools.sh installs Debian's ripgrep)");
        assert!(rg.status.success(), "rg: {}", stderr(&rg));
        let out = coder(
            &daemon.socket,
            &sandbox.root,
            &["search", "needle", "--dir", dir_arg, "--context", &context],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&rg), "--context {n}");
    }
}

/// `coder --help` lists every method with its summary: from the daemon when one answers, and
/// (issue 36) from the `coderd` a call would start when none does (`coderd schema`), without
/// starting one.
#[test]
fn help_lists_every_method_with_its_summary_with_or_without_a_daemon() {
    let sandbox = Sandbox::fixture("basic");
    let daemon = Daemon::start(&sandbox, &[]);
    let info = daemon.ok("info", serde_json::json!({}));
    let methods = info["methods"].as_array().unwrap();
    assert!(methods.len() > 7, "{info}");
    let none = sandbox.dir.path().join("none.sock");
    for (socket, says) in [
        (&daemon.socket, "from the daemon on"),
        (&none, "no daemon is running"),
    ] {
        let out = coder(socket, &sandbox.root, &["--help"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let help = stdout(&out);
        assert!(help.contains(says), "{help}");
        for method in methods {
            let name = method.as_str().unwrap();
            assert!(
                help.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{name} "))),
                "{name} in {help}"
            );
        }
        assert!(help.contains("--socket PATH"), "{help}");
    }
    assert!(!none.exists(), "the help started a daemon");
}

/// What `coder M word ...` sends and what `tool {"cmd": "M word ..."}` runs, for every method that
/// takes bare words (`schema`'s `bare`, the one declaration both read): the same call.
const BARE_WORDS: &[(&str, &[&str])] = &[
    ("read", &["a.txt"]),
    ("write", &["new.txt", "--content", "x"]),
    ("patch", &["a.txt", "--search", "hello", "--replace", "bye"]),
    ("rollback", &["a.txt"]),
    ("clean", &["sub"]),
    ("outline", &["src/lib.rs"]),
    ("tree", &["sub"]),
    ("list-folder", &["sub"]),
    ("map", &["src"]),
    ("search", &["hello", "sub"]),
    ("symbols", &["add", "src"]),
    ("exec", &["ls", "sub"]),
    ("test", &["sub"]),
    ("git-status", &["sub"]),
    ("git-diff", &["a.txt"]),
    ("git-diff", &["a.txt", "sub"]),
    ("git-log", &["a.txt", "sub"]),
    ("git-changed", &["sub"]),
    ("git-branch", &["sub"]),
    ("checkpoint", &["create", "before"]),
    ("diagnostics", &["src"]),
    (
        "definition",
        &["src/lib.rs", "--line", "1", "--symbol", "add"],
    ),
    (
        "references",
        &["src/lib.rs", "--line", "1", "--symbol", "add"],
    ),
    ("hover", &["src/lib.rs", "--line", "1", "--symbol", "add"]),
    ("implementations", &["src/lib.rs", "--symbol", "add"]),
    (
        "type-definition",
        &["src/lib.rs", "--line", "1", "--symbol", "add"],
    ),
    ("callers", &["src/lib.rs", "--symbol", "add"]),
    ("callees", &["src/lib.rs", "--symbol", "add"]),
    (
        "rename",
        &[
            "src/lib.rs",
            "--line",
            "1",
            "--symbol",
            "add",
            "--new-name",
            "plus",
        ],
    ),
    ("replace-symbol", &["src/lib.rs", "add", "--content", "x"]),
    (
        "insert-symbol",
        &["src/lib.rs", "add", "--where", "after", "--content", "x"],
    ),
    ("delete-symbol", &["src/lib.rs", "add"]),
    // A leading word naming a flag is that flag, in both.
    ("todo", &["list"]),
];

/// Methods whose bare words only `coder` reads: an editor's (`buffer`) and the envelope itself.
const NOT_THROUGH_THE_ENVELOPE: &[&str] = &["buffer", "tool"];

/// A socket in front of the daemon that passes `schema` through and keeps every other request
/// `coder` sends (answered with an error, so nothing runs): the params the client built.
fn recording_proxy(daemon: &Path, at: &Path) -> std::sync::mpsc::Receiver<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixListener;
    let listener = UnixListener::bind(at).unwrap();
    let (sent, received) = std::sync::mpsc::channel();
    let daemon = daemon.to_path_buf();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let mut upstream = common::Client::connect(&daemon);
            let mut writer = client.try_clone().unwrap();
            for line in BufReader::new(client).lines() {
                let Ok(line) = line else { break };
                let request: serde_json::Value = serde_json::from_str(&line).unwrap();
                let answer = match request["method"].as_str() {
                    Some("schema") => upstream.call("schema", request["params"].clone()),
                    _ => {
                        let _ = sent.send(request.clone());
                        serde_json::json!({"jsonrpc": "2.0", "id": request["id"],
                            "error": {"code": -32000, "message": "recorded"}})
                    }
                };
                let mut answer = answer;
                answer["id"] = request["id"].clone();
                if writeln!(writer, "{answer}").is_err() {
                    break;
                }
            }
        }
    });
    received
}

/// `coder`'s params as the envelope holds them: `coder` makes the paths a person typed absolute
/// from its folder (the root here); the envelope keeps them as written.
fn as_written(params: &serde_json::Value, root: &Path) -> serde_json::Value {
    use serde_json::Value;
    let prefix = format!("{}/", root.display());
    let relative = |v: &mut Value| {
        if let Some(rest) = v.as_str().and_then(|s| s.strip_prefix(&prefix)) {
            *v = Value::String(rest.to_string());
        }
    };
    let mut params = params.clone();
    for value in params.as_object_mut().unwrap().values_mut() {
        match value {
            Value::Array(items) => items.iter_mut().for_each(relative),
            other => relative(other),
        }
    }
    params
}

#[test]
fn a_bare_word_means_the_same_to_coder_and_to_the_tool_envelope() {
    use serde_json::json;
    let sandbox = Sandbox::empty();
    let root = &sandbox.root;
    sandbox.write("a.txt", "hello\n");
    sandbox.write("sub/b.txt", "hello from sub\n");
    sandbox.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    common::git(root, &["init", "-q"]);
    common::git(root, &["add", "."]);
    common::git(root, &["commit", "-qm", "start"]);
    let daemon = Daemon::start(&sandbox, &[]);
    let proxy = sandbox.dir.path().join("proxy.sock");
    let recorded = recording_proxy(&daemon.socket, &proxy);

    // Every method that takes bare words has a case (a new one fails here until it has).
    let described = daemon.ok("schema", json!({}));
    let mut with_bare: Vec<&str> = described["methods"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, d)| d["bare"].as_array().is_some_and(|b| !b.is_empty()))
        .map(|(name, _)| name.as_str())
        .filter(|name| !NOT_THROUGH_THE_ENVELOPE.contains(name))
        .collect();
    let mut covered: Vec<&str> = BARE_WORDS.iter().map(|(m, _)| *m).collect();
    covered.retain(|m| *m != "todo");
    covered.sort();
    covered.dedup();
    with_bare.sort();
    assert_eq!(with_bare, covered, "a case per method with bare words");
    assert!(covered.len() >= 12, "{covered:?}");

    for (method, words) in BARE_WORDS {
        let out = coder(&proxy, root, &[&["--json", method], *words].concat());
        let request = recorded
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("coder {method} {words:?} sent nothing: {}", stderr(&out)));
        assert_eq!(request["method"], *method, "{words:?}");
        let from_coder = as_written(&request["params"], root);
        let line = format!("{method} {}", words.join(" "));
        let call = daemon.ok("tool", json!({"cmd": line, "dry_run": true}));
        assert_eq!(call["method"], *method, "{line}");
        assert_eq!(call["params"], from_coder, "{line}");
        // What reads only answers the same through both (what edits or runs is compared above),
        // once the first call has warmed the caches an answer reports (`parse: cached`).
        if described["methods"][method]["mutates"] == false && *method != "todo" {
            daemon.ok(method, from_coder.clone());
            let direct = daemon.ok(method, from_coder.clone());
            let through = daemon.ok("tool", json!({"cmd": line}));
            assert_eq!(through["result"], direct, "{line}");
        }
    }
}

/// The one alias system: every alias a method's entry declares (`schema`'s `param_aliases`) is the
/// same flag to `coder` and to the envelope's CLI-style words, and becomes the canonical param.
#[test]
fn every_param_alias_means_its_param_to_coder_and_to_the_tool_envelope() {
    use serde_json::json;
    let sandbox = Sandbox::empty();
    let root = &sandbox.root;
    let daemon = Daemon::start(&sandbox, &[]);
    let proxy = sandbox.dir.path().join("proxy.sock");
    let recorded = recording_proxy(&daemon.socket, &proxy);
    let described = daemon.ok("schema", json!({}));
    let mut checked = 0;
    for (method, entry) in described["methods"].as_object().unwrap() {
        if NOT_THROUGH_THE_ENVELOPE.contains(&method.as_str()) {
            continue;
        }
        for (alias, canonical) in entry["param_aliases"].as_object().unwrap() {
            let canonical = canonical.as_str().unwrap();
            // A value the param's type takes (a nested param is text).
            let kind = entry["params"]["properties"][canonical].to_string();
            let value = match () {
                _ if kind.contains("\"boolean\"") => "true",
                _ if kind.contains("integer") || kind.contains("number") => "1",
                _ => "x",
            };
            let flag = format!("--{}", alias.replace('_', "-"));
            let out = coder(&proxy, root, &["--json", method, &flag, value]);
            let request = recorded
                .recv_timeout(std::time::Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("coder {method} {flag}: {}", stderr(&out)));
            let from_coder = as_written(&request["params"], root);
            assert!(
                from_coder.get(canonical).is_some(),
                "{method} {flag}: {from_coder}"
            );
            let line = format!("{method} {flag} {value}");
            let call = daemon.ok("tool", json!({"cmd": line, "dry_run": true}));
            assert_eq!(call["params"], from_coder, "{line}");
            // The same alias as a JSON key, on the socket: renamed before the method sees it.
            let call = daemon.ok(
                "tool",
                json!({"cmd": method, "args": {(alias.as_str()): from_coder[canonical]}, "dry_run": true}),
            );
            assert_eq!(call["params"], from_coder, "{method} {{{alias}: …}}");
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} aliases");
}
