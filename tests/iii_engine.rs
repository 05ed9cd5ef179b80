//! `coderd iii` against the real iii engine: the engine on a free port with a temp config,
//! `coderd iii` registered with it, and every call made THROUGH the engine by a second,
//! independent client (`iii trigger`, the engine's own CLI). The engine binary: `iii` on PATH,
//! else `shared/iii/iii` beside the repository (or beside one of its parent folders, as on the
//! machines of this project; see /work/shared/iii/README.md). No engine is a failure, not a skip.

mod common;

use common::{Daemon, Sandbox};
use serde_json::{json, Value};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a registration or a reconnect may take on a busy machine.
const PATIENCE: Duration = Duration::from_secs(60);

/// The engine binary: `$CODERD_III`, `iii` on PATH, else `shared/iii/iii` in the repository's
/// parent folder or one above it.
fn engine_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("CODERD_III") {
        return PathBuf::from(path);
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("iii"))
        .find(|p| p.is_file());
    let beside = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .map(|dir| dir.join("shared/iii/iii"))
        .find(|p| p.is_file());
    on_path.or(beside).unwrap_or_else(|| {
        panic!(
            "no iii engine: put `iii` on PATH, set CODERD_III, or place the engine at \
             ../shared/iii/iii beside this repository (it is built from iii-hq/iii, see docs/iii.md)"
        )
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running engine; killed when dropped.
struct Engine {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Engine {
    fn start(dir: &Path, port: u16) -> Engine {
        let config = dir.join("engine.yaml");
        std::fs::write(
            &config,
            format!(
                "workers:\n  - name: iii-worker-manager\n    config:\n      host: 127.0.0.1\n      port: {port}\n"
            ),
        )
        .unwrap();
        let log = std::fs::File::create(dir.join("engine.log")).unwrap();
        let child = Command::new(engine_binary())
            .arg("--config")
            .arg(&config)
            .arg("--no-update-check")
            .env("III_TELEMETRY_ENABLED", "false")
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("spawn the iii engine");
        let engine = Engine {
            child,
            port,
            dir: dir.to_path_buf(),
        };
        let deadline = Instant::now() + PATIENCE;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the engine did not listen on {port}; log:\n{}",
                engine.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        engine
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("engine.log")).unwrap_or_default()
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// One call through the engine with its CLI: the result, or iii's `{code, message}` error.
    fn trigger(
        &self,
        namespace: Option<&str>,
        function: &str,
        payload: Value,
    ) -> Result<Value, Value> {
        let mut command = Command::new(engine_binary());
        command.arg("trigger").arg(function);
        command.arg("--json").arg(payload.to_string());
        command.args(["--address", "127.0.0.1", "--port", &self.port.to_string()]);
        if let Some(namespace) = namespace {
            command.args(["-n", namespace]);
        }
        let out = command
            .env("III_TELEMETRY_ENABLED", "false")
            .output()
            .expect("run iii trigger");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.success() {
            true => Ok(serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("iii trigger printed no JSON ({e}): {stdout}"))),
            false => {
                let body = stderr.trim().trim_start_matches("Error:").trim();
                Err(serde_json::from_str(body)
                    .unwrap_or_else(|_| json!({"code": "?", "message": stderr})))
            }
        }
    }

    /// Calls until the function answers (it is registered, or registered again after a restart).
    fn when_ready(&self, namespace: Option<&str>, function: &str, payload: Value) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.trigger(namespace, function, payload.clone()) {
                Ok(answer) => return answer,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => panic!(
                    "{function} never answered through the engine: {e}\n{}",
                    self.log()
                ),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `coderd iii` for a sandbox, against an engine, in a namespace.
fn worker(sandbox: &Sandbox, engine: &Engine, namespace: &str) -> Daemon {
    let config = sandbox.dir.path().join("coderd.yaml");
    std::fs::write(
        &config,
        "non_accessible_globs: [\"**/.env\"]\ncheckpoints: false\n",
    )
    .unwrap();
    Daemon::start(
        sandbox,
        &[
            "--config",
            config.to_str().unwrap(),
            "iii",
            "--engine",
            &engine.url(),
            "--namespace",
            namespace,
        ],
    )
}

fn code(error: Result<Value, Value>) -> String {
    match error {
        Ok(answer) => panic!("expected an error, got {answer}"),
        Err(e) => e["code"].as_str().unwrap_or("").to_string(),
    }
}

#[test]
fn coderd_serves_its_coder_functions_through_the_engine() {
    let sandbox = Sandbox::empty();
    sandbox.write("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    sandbox.write(".env", "TOKEN=1\n");
    let engine = Engine::start(sandbox.dir.path(), free_port());
    let daemon = worker(&sandbox, &engine, "ws-a");
    let ns = Some("ws-a");

    let read = engine.when_ready(ns, "coder::read-file", json!({"path": "src/lib.rs"}));
    assert_eq!(read["content"], "pub fn one() -> u32 {\n    1\n}\n");
    assert_eq!(read["is_utf8"], true);

    // The socket serves the same documents beside the engine.
    let over_socket = daemon.ok("coder::read-file", json!({"path": "src/lib.rs"}));
    assert_eq!(over_socket["version"], read["version"]);

    let found = engine
        .trigger(ns, "coder::search", json!({"query": "fn one"}))
        .unwrap();
    let root = sandbox.root.display().to_string();
    assert_eq!(
        found["content_matches"][0]["path"],
        format!("{root}/src/lib.rs")
    );
    assert_eq!(found["content_matches"][0]["line"], 1);

    let tree = engine
        .trigger(ns, "coder::tree", json!({"path": "."}))
        .unwrap();
    let names: Vec<&str> = tree["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [".env", "src"], "{tree}");

    // A patch-like batch: the good file commits beside the refused one.
    let updated = engine
        .trigger(
            ns,
            "coder::update-file",
            json!({"files": [
                {"path": "src/lib.rs", "ops": [{"op": "replace", "pattern": "\\b1\\b", "replacement": "2", "expect_matches": 1}]},
                {"path": "src/missing.rs", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}),
        )
        .unwrap();
    assert_eq!(updated["results"][0]["success"], true, "{updated}");
    assert_eq!(updated["results"][1]["error"]["code"], "C211", "{updated}");
    let bytes = std::fs::read_to_string(sandbox.root.join("src/lib.rs")).unwrap();
    assert_eq!(bytes, "pub fn one() -> u32 {\n    2\n}\n");

    let created = engine
        .trigger(
            ns,
            "coder::create-file",
            json!({"files": [{"path": "notes/a.md", "content": "# a\n", "mode": "0644"}]}),
        )
        .unwrap();
    assert_eq!(created["results"][0]["bytes_written"], 4, "{created}");
    assert!(sandbox.root.join("notes/a.md").is_file());
    let deleted = engine
        .trigger(
            ns,
            "coder::delete-file",
            json!({"paths": ["notes"], "recursive": true}),
        )
        .unwrap();
    assert_eq!(deleted["results"][0]["removed"], true, "{deleted}");
    assert!(!sandbox.root.join("notes").exists());

    // The jail holds through the engine: errors come back as iii's {code, message}.
    let escape = engine.trigger(
        ns,
        "coder::read-file",
        json!({"path": "../outside/secret.txt"}),
    );
    assert_eq!(code(escape), "C215");
    let secret = engine.trigger(ns, "coder::read-file", json!({"path": ".env"}));
    let secret = secret.unwrap_err();
    assert_eq!(secret["code"], "C211");
    assert!(!secret.to_string().contains("TOKEN"), "{secret}");

    // The engine restarts: the worker reconnects and registers again.
    let port = engine.port;
    let dir = engine.dir.clone();
    drop(engine);
    let engine = Engine::start(&dir, port);
    let again = engine.when_ready(ns, "coder::read-file", json!({"path": "src/lib.rs"}));
    assert_eq!(again["content"], "pub fn one() -> u32 {\n    2\n}\n");

    // A clean stop unregisters every function.
    daemon.ok("shutdown", json!({}));
    let deadline = Instant::now() + PATIENCE;
    loop {
        match engine.trigger(ns, "coder::info", json!({})) {
            Err(e) if e["code"] == "function_not_found" => break,
            _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            other => panic!("coder::info still answers after the worker stopped: {other:?}"),
        }
    }
}

#[test]
fn two_workspaces_on_one_engine_answer_only_their_own_namespace() {
    let a = Sandbox::empty();
    a.write("who.txt", "A\n");
    let b = Sandbox::empty();
    b.write("who.txt", "B\n");
    let engine = Engine::start(a.dir.path(), free_port());
    let _wa = worker(&a, &engine, "ws-a");
    let _wb = worker(&b, &engine, "ws-b");
    let who = json!({"path": "who.txt"});
    assert_eq!(
        engine.when_ready(Some("ws-a"), "coder::read-file", who.clone())["content"],
        "A\n"
    );
    assert_eq!(
        engine.when_ready(Some("ws-b"), "coder::read-file", who.clone())["content"],
        "B\n"
    );
    // Neither answers in the engine's default namespace: routing by namespace is strict.
    let default = engine.trigger(None, "coder::read-file", who);
    assert_eq!(code(default), "function_not_found");
}
