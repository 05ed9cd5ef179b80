//! The iii engine for tests: found (`iii` on PATH, else `shared/iii/iii` beside the repository or
//! one of its parent folders), started on a free port with a temp config, and called with its own
//! CLI (`iii trigger`), a client independent of coderd. Used by tests/it/iii_engine.rs and
//! tests/it/iii_worker.rs.

use serde_json::{json, Value};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a registration or a reconnect may take on a busy machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The engine binary: `$CODERD_III`, `iii` on PATH, else `shared/iii/iii` in the repository's
/// parent folder or one above it.
pub fn engine_binary() -> PathBuf {
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

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// What the engine 0.23 logs (at debug level, `iii::engine`) when a worker's result finds no
/// pending invocation: the result is dropped and its caller waits out its timeout (docs/iii.md,
/// "Where the reply can go").
pub const DROPPED_RESULT: &str = "Did not find caller for invocation";

/// What it logs (same level) for each invocation it routes.
pub const ROUTED: &str = "Remembering invocation";

/// A running engine; killed when dropped.
pub struct Engine {
    child: Child,
    pub port: u16,
    pub dir: PathBuf,
}

impl Engine {
    pub fn start(dir: &Path, port: u16) -> Engine {
        Engine::start_with(dir, port, "")
    }

    /// `start`, with the engine's routing (`iii::engine`) logged at debug level: each invocation
    /// it remembers, and each worker result it could not match ([`DROPPED_RESULT`]).
    pub fn start_tracing_routes(dir: &Path, port: u16) -> Engine {
        let observability = "  - name: iii-observability\n    config:\n      \
                             level: \"info,iii::engine=debug\"\n";
        Engine::start_with(dir, port, observability)
    }

    fn start_with(dir: &Path, port: u16, more_workers: &str) -> Engine {
        let config = dir.join("engine.yaml");
        std::fs::write(
            &config,
            format!(
                "workers:\n  - name: iii-worker-manager\n    config:\n      host: 127.0.0.1\n      port: {port}\n{more_workers}"
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

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("engine.log")).unwrap_or_default()
    }

    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// One call through the engine with its CLI: the result, or iii's `{code, message}` error.
    pub fn trigger(
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
    pub fn when_ready(&self, namespace: Option<&str>, function: &str, payload: Value) -> Value {
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
