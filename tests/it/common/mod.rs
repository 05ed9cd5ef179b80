//! Test harness: real workspaces in temp folders, a real `coderd` on a real socket.

#[cfg(feature = "iii")]
pub mod iii;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// Where scripts/install-language-servers.sh put the language servers (`CODERD_SERVERS_DIR`,
/// else `$XDG_DATA_HOME/coderd/servers`, else `~/.local/share/coderd/servers`).
pub fn servers_dir() -> PathBuf {
    match std::env::var_os("CODERD_SERVERS_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let data = std::env::var_os("XDG_DATA_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap()).join(".local/share")
                });
            data.join("coderd/servers")
        }
    }
}

/// A temporary folder holding the workspace `ws/`, a sibling `ws-evil/` (prefix confusion) and an
/// `outside/` folder with a secret that must never be read.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
}

/// The `coder` client binary. It belongs to another package of the workspace (crates/coder), so
/// Cargo gives this test no `CARGO_BIN_EXE_coder`: it is found beside `coderd`, in the same
/// target folder and profile, where `cargo build --workspace` (scripts/test.sh) puts it.
pub fn coder_bin() -> PathBuf {
    let coder = Path::new(env!("CARGO_BIN_EXE_coderd")).with_file_name("coder");
    assert!(
        coder.exists(),
        "no `coder` binary at {}: build the workspace first (`cargo build --workspace`, as \
         scripts/test.sh does; add `--release` for release tests)",
        coder.display()
    );
    coder
}

pub const OUTSIDE_SECRET: &str = "OUTSIDE-SECRET-7f3a";

impl Sandbox {
    pub fn empty() -> Sandbox {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        for d in [&root, &outside, &base.join("ws-evil")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(outside.join("secret.txt"), format!("{OUTSIDE_SECRET}\n")).unwrap();
        std::fs::write(
            base.join("ws-evil/secret.txt"),
            format!("{OUTSIDE_SECRET}\n"),
        )
        .unwrap();
        Sandbox { dir, root, outside }
    }

    /// Copies `tests/fixtures/workspaces/NAME/` in (a leading `dot.` in a name becomes `.`, so the
    /// fixture's .gitignore and .env do not act on this repository), then applies `NAME.setup.json`.
    pub fn fixture(name: &str) -> Sandbox {
        let sandbox = Sandbox::empty();
        let src = Path::new(FIXTURES).join("workspaces").join(name);
        if src.is_dir() {
            copy_tree(&src, &sandbox.root);
        }
        let setup = Path::new(FIXTURES)
            .join("workspaces")
            .join(format!("{name}.setup.json"));
        if let Ok(text) = std::fs::read_to_string(&setup) {
            let setup: Value = serde_json::from_str(&text).expect("setup json");
            sandbox.apply_setup(&setup);
        }
        sandbox
    }

    fn apply_setup(&self, setup: &Value) {
        for gen in setup["generate"].as_array().into_iter().flatten() {
            let template = gen["path"].as_str().unwrap();
            if template.contains("{n}") {
                // Many small files: `count` of them, each holding one line.
                for n in 1..=gen["count"].as_u64().unwrap() {
                    let path = self.root.join(template.replace("{n}", &n.to_string()));
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(
                        path,
                        format!(
                            "{}\n",
                            gen["line"].as_str().unwrap().replace("{n}", &n.to_string())
                        ),
                    )
                    .unwrap();
                }
                continue;
            }
            let path = self.root.join(template);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let bytes = if let Some(chunks) = gen["chunks"].as_array() {
                // `[[text, repeat], ...]`: exact bytes, e.g. a file that turns CRLF after 16 KiB.
                let mut bytes = Vec::new();
                for chunk in chunks {
                    let text = chunk[0].as_str().unwrap();
                    let repeat = chunk[1].as_u64().unwrap_or(1) as usize;
                    bytes.extend_from_slice(text.repeat(repeat).as_bytes());
                }
                bytes
            } else if let Some(hex) = gen["hex"].as_str() {
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                    .collect()
            } else {
                let line = gen["line"].as_str().unwrap();
                let count = gen["count"].as_u64().unwrap();
                let mut text = String::new();
                for n in 1..=count {
                    text.push_str(&line.replace("{n}", &n.to_string()));
                    text.push('\n');
                }
                text.into_bytes()
            };
            std::fs::write(path, bytes).unwrap();
        }
        for fifo in setup["fifos"].as_array().into_iter().flatten() {
            let at = self.root.join(fifo.as_str().unwrap());
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &at,
                rustix::fs::FileType::Fifo,
                rustix::fs::Mode::from_raw_mode(0o644),
                0,
            )
            .unwrap();
        }
        for socket in setup["sockets"].as_array().into_iter().flatten() {
            // Bound and dropped: the socket file stays behind, with nobody listening.
            let at = self.root.join(socket.as_str().unwrap());
            drop(std::os::unix::net::UnixListener::bind(at).unwrap());
        }
        for link in setup["hardlinks"].as_array().into_iter().flatten() {
            let at = self.root.join(link[0].as_str().unwrap());
            let target = self.expand(link[1].as_str().unwrap());
            let target = self.root.join(target); // absolute targets stay as they are
            std::fs::hard_link(target, at).unwrap();
        }
        for link in setup["links"].as_array().into_iter().flatten() {
            let at = self.root.join(link[0].as_str().unwrap());
            let target = self.expand(link[1].as_str().unwrap());
            std::os::unix::fs::symlink(target, at).unwrap();
        }
    }

    /// Replaces `$ROOT` and `$OUTSIDE` in a string.
    pub fn expand(&self, s: &str) -> String {
        s.replace("$ROOT", self.root.to_str().unwrap())
            .replace("$OUTSIDE", self.outside.to_str().unwrap())
    }

    pub fn expand_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.expand(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.expand_value(x)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), self.expand_value(x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("coderd.sock")
    }

    pub fn write(&self, rel: &str, content: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

fn copy_tree(src: &Path, dst: &Path) {
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().replacen("dot.", ".", 1);
        let to = dst.join(name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
            copy_tree(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), to).unwrap();
        }
    }
}

/// A running daemon; killed when dropped.
pub struct Daemon {
    pub child: Child,
    pub socket: PathBuf,
    pub log: PathBuf,
}

impl Daemon {
    pub fn start(sandbox: &Sandbox, extra: &[&str]) -> Daemon {
        let socket = sandbox.socket();
        let mut args: Vec<String> = vec!["--root".into(), sandbox.root.to_string_lossy().into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        Daemon::start_with(&args, &socket, sandbox.dir.path())
    }

    pub fn start_with(args: &[String], socket: &Path, logdir: &Path) -> Daemon {
        // No language servers unless a test asks (tests/it/lsp.rs): edits of .go/.py/.rs fixtures
        // must not start gopls, pyright or rust-analyzer.
        let no_servers = logdir.join("no-servers");
        Daemon::start_with_env(
            args,
            socket,
            logdir,
            &[
                ("CODERD_SERVERS_DIR", no_servers.as_os_str()),
                ("CODERD_SERVERS_PATH", no_servers.as_os_str()),
            ],
        )
    }

    /// `start` with extra environment variables for the daemon (e.g. `HOME`); no language servers.
    pub fn start_env(sandbox: &Sandbox, extra: &[&str], env: &[(&str, &str)]) -> Daemon {
        let mut args: Vec<String> = vec!["--root".into(), sandbox.root.to_string_lossy().into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let no_servers = sandbox.dir.path().join("no-servers");
        let mut all: Vec<(&str, &std::ffi::OsStr)> = env
            .iter()
            .map(|(k, v)| (*k, std::ffi::OsStr::new(*v)))
            .collect();
        all.push(("CODERD_SERVERS_DIR", no_servers.as_os_str()));
        all.push(("CODERD_SERVERS_PATH", no_servers.as_os_str()));
        Daemon::start_with_env(&args, &sandbox.socket(), sandbox.dir.path(), &all)
    }

    /// A daemon with extra environment (tests/it/lsp.rs: where its language servers are).
    pub fn start_with_env(
        args: &[String],
        socket: &Path,
        logdir: &Path,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Daemon {
        let log = logdir.join("coderd.log");
        let child = Command::new(env!("CARGO_BIN_EXE_coderd"))
            .envs(env.iter().copied())
            // The daemon registry (and default sockets) of test daemons stay in the test's folder.
            .env("XDG_RUNTIME_DIR", logdir.join("run"))
            // Checkpoints and todo lists of test daemons stay in the test's folder too.
            .env("XDG_DATA_HOME", logdir.join("data"))
            // So does the state that outlives a daemon (the temp-file journal).
            .env("XDG_STATE_HOME", logdir.join("state"))
            .args(args)
            .arg("--socket")
            .arg(socket)
            .arg("--log-file")
            .arg(&log)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn coderd");
        let daemon = Daemon {
            child,
            socket: socket.to_path_buf(),
            log,
        };
        daemon.wait_ready();
        daemon
    }

    /// The sandbox's daemon with this config (file text) and the language servers
    /// scripts/install-language-servers.sh installed (`servers_dir`), plus `env`.
    pub fn start_with_servers(
        sandbox: &Sandbox,
        config: &str,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Daemon {
        let config_path = sandbox.dir.path().join("coderd.yaml");
        std::fs::write(&config_path, config).unwrap();
        let args: Vec<String> = vec![
            "--root".into(),
            sandbox.root.to_string_lossy().into(),
            "--config".into(),
            config_path.to_string_lossy().into(),
        ];
        let servers = servers_dir();
        let mut all_env = vec![("CODERD_SERVERS_DIR", servers.as_os_str())];
        all_env.extend_from_slice(env);
        Daemon::start_with_env(&args, &sandbox.socket(), sandbox.dir.path(), &all_env)
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while UnixStream::connect(&self.socket).is_err() {
            assert!(
                Instant::now() < deadline,
                "coderd did not come up; log:\n{}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn client(&self) -> Client {
        Client::connect(&self.socket)
    }

    /// One request on a fresh connection; the whole response.
    pub fn call(&self, method: &str, params: Value) -> Value {
        self.client().call(method, params)
    }

    pub fn ok(&self, method: &str, params: Value) -> Value {
        let r = self.call(method, params.clone());
        assert!(r.get("error").is_none(), "{method} {params} failed: {r}");
        r["result"].clone()
    }

    /// The C2xx code of a failing call.
    pub fn err(&self, method: &str, params: Value) -> Value {
        let r = self.call(method, params.clone());
        assert!(
            r.get("error").is_some(),
            "{method} {params} should fail but returned {r}"
        );
        r["error"].clone()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A persistent connection.
pub struct Client {
    pub stream: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
}

impl Client {
    pub fn connect(socket: &Path) -> Client {
        let stream = UnixStream::connect(socket).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client {
            stream,
            reader,
            next_id: 1,
        }
    }

    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let response = self.recv();
        assert_eq!(
            response["id"],
            json!(id),
            "response id mismatch: {response}"
        );
        response
    }

    pub fn send_line(&mut self, line: &str) {
        self.stream.write_all(line.as_bytes()).unwrap();
        self.stream.write_all(b"\n").unwrap();
    }

    pub fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("read response");
        assert!(!line.is_empty(), "connection closed");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("bad response {line:?}: {e}"))
    }
}

/// The failed cases of a data-driven suite, collected so that one run reports every one of them.
#[derive(Default)]
pub struct Failures(Vec<String>);

impl Failures {
    /// Records a case's problems (nothing when it has none).
    pub fn record(&mut self, case: &str, problems: &[String]) {
        if !problems.is_empty() {
            self.0
                .push(format!("[{case}]:\n    {}", problems.join("\n    ")));
        }
    }

    /// Fails the test listing every failed case, or says how many passed.
    pub fn assert_none(&self, suite: &str, total: usize) {
        assert!(
            self.0.is_empty(),
            "{suite}: {} of {total} cases failed:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
        eprintln!("{suite}: {total} cases passed");
    }
}

/// Subset matching for expected responses. Objects: every expected key must match (extra actual keys
/// are fine). Arrays: same length, element-wise. Special objects: `{"$contains": "s"}` (substring),
/// `{"$lacks": "s"}` (a string without it),
/// `{"$len": n}` (array/string length), `{"$absent": true}` (key missing or null),
/// `{"$gte": n}` / `{"$lte": n}`, `{"$any": true}` (present, any value), `{"$set": [...]}` (an array
/// holding exactly these elements in any order: for lists whose order is not part of the contract),
/// `{"$has": [...]}` / `{"$hasnt": [...]}` (an array with, or without, an element matching each
/// spec), `{"$all": [...]}` (every spec matches).
pub fn matches(expected: &Value, actual: &Value, at: &str, problems: &mut Vec<String>) {
    if let Value::Object(spec) = expected {
        if let Some(special) = special_match(spec, actual) {
            if !special {
                problems.push(format!("{at}: expected {expected}, got {actual}"));
            }
            return;
        }
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, want) in e {
                let got = a.get(key).unwrap_or(&Value::Null);
                if want.get("$absent").is_some() {
                    if !got.is_null() {
                        problems.push(format!("{at}.{key}: expected absent, got {got}"));
                    }
                    continue;
                }
                if !a.contains_key(key) {
                    problems.push(format!("{at}.{key}: missing (expected {want})"));
                    continue;
                }
                matches(want, got, &format!("{at}.{key}"), problems);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                problems.push(format!(
                    "{at}: expected {} elements, got {}: {actual}",
                    e.len(),
                    a.len()
                ));
                return;
            }
            for (i, (want, got)) in e.iter().zip(a).enumerate() {
                matches(want, got, &format!("{at}[{i}]"), problems);
            }
        }
        (e, a) if e == a => {}
        (e, a) => problems.push(format!("{at}: expected {e}, got {a}")),
    }
}

fn special_match(spec: &serde_json::Map<String, Value>, actual: &Value) -> Option<bool> {
    if spec.len() != 1 {
        return None;
    }
    let (key, arg) = spec.iter().next().unwrap();
    Some(match key.as_str() {
        "$contains" => actual
            .as_str()
            .is_some_and(|s| s.contains(arg.as_str().unwrap())),
        "$lacks" => actual
            .as_str()
            .is_some_and(|s| !s.contains(arg.as_str().unwrap())),
        "$len" => {
            let len = match actual {
                Value::Array(a) => a.len(),
                Value::String(s) => s.len(),
                _ => return Some(false),
            };
            len as u64 == arg.as_u64().unwrap()
        }
        "$gte" => actual.as_f64().is_some_and(|n| n >= arg.as_f64().unwrap()),
        "$lte" => actual.as_f64().is_some_and(|n| n <= arg.as_f64().unwrap()),
        "$any" => !actual.is_null(),
        "$set" => same_elements(arg, actual),
        "$has" => each_found(arg, actual, true),
        "$hasnt" => each_found(arg, actual, false),
        "$all" => arg.as_array().unwrap().iter().all(|spec| {
            let mut problems = Vec::new();
            matches(spec, actual, "", &mut problems);
            problems.is_empty()
        }),
        _ => return None,
    })
}

/// `$has` (`found`): for each spec, some element of the array matches it; `$hasnt`: none does.
fn each_found(specs: &Value, actual: &Value, found: bool) -> bool {
    let Some(items) = actual.as_array() else {
        return false;
    };
    specs.as_array().unwrap().iter().all(|spec| {
        let hit = items.iter().any(|item| {
            let mut problems = Vec::new();
            matches(spec, item, "", &mut problems);
            problems.is_empty()
        });
        hit == found
    })
}

fn same_elements(expected: &Value, actual: &Value) -> bool {
    let (Some(want), Some(got)) = (expected.as_array(), actual.as_array()) else {
        return false;
    };
    let sorted = |items: &Vec<Value>| {
        let mut texts: Vec<String> = items.iter().map(Value::to_string).collect();
        texts.sort();
        texts
    };
    sorted(want) == sorted(got)
}

/// Checks a response against a case's `expect` (a subset of the result) or `expect_error` (a
/// subset of `error.data`, plus `message` and `rpc_code`). Returns false when the case has neither.
pub fn check_response(
    case: &Value,
    response: &Value,
    sandbox: &Sandbox,
    problems: &mut Vec<String>,
) -> bool {
    if let Some(expected) = case.get("expect") {
        match response.get("result") {
            Some(result) => matches(&sandbox.expand_value(expected), result, "result", problems),
            None => problems.push(format!("expected a result, got {response}")),
        }
    } else if let Some(expected) = case.get("expect_error") {
        match response.get("error") {
            Some(error) => {
                let mut view = error["data"].clone();
                view["message"] = error["message"].clone();
                view["rpc_code"] = error["code"].clone();
                matches(&sandbox.expand_value(expected), &view, "error", problems)
            }
            None => problems.push(format!("expected an error, got {response}")),
        }
    } else {
        return false;
    }
    true
}

/// xorshift64*: a small seeded generator, so a failing randomized test replays with its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every file under `dir` (a folder that is missing or unreadable has none), to find what a daemon
/// saved in its state folder.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Every entry under `dir`: relative path → bytes (symlinks as "-> target", folders as "/" with
/// no bytes), to compare a tree before and after.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, format!("-> {}", target.display()).into_bytes());
            } else if kind.is_dir() {
                out.insert(rel + "/", Vec::new());
                stack.push(path);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Runs git in `dir` as a test author, without the machine's global and system config (a
/// developer's `init.defaultBranch` or `url.*.insteadOf` must not change an answer); its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The files a map shows with their items, in order: the lines heading a file's items (`path:`).
pub fn map_blocks(text: &str) -> Vec<&str> {
    let items = text.split("⋮ next files").next().unwrap_or_default();
    let heads = items.lines().filter(|l| !l.starts_with([' ', '⋮']));
    heads.filter_map(|l| l.strip_suffix(':')).collect()
}

/// The files a map lists, in order: the lines heading a file's items (`path:`), then the files
/// named without their items after the `⋮ next files` line (`folder/{a.rs,b.rs}` or `path`).
pub fn map_files(text: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut named = false;
    for line in text.lines() {
        if line.starts_with("⋮ next files") {
            named = true;
            continue;
        }
        if line.starts_with([' ', '⋮']) {
            continue;
        }
        if !named {
            files.extend(line.strip_suffix(':').map(str::to_owned));
            continue;
        }
        // A group's braces open its last path segment and close the line.
        let (folder, last) = line.rsplit_once('/').unwrap_or(("", line));
        match last.strip_prefix('{').and_then(|l| l.strip_suffix('}')) {
            Some(names) => files.extend(names.split(',').map(|n| format!("{folder}/{n}"))),
            None => files.push(line.to_owned()),
        }
    }
    files
}
