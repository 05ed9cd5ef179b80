//! Shared by the benchmark programs (`benches/roundtrip.rs`, `examples/rpc_bench.rs`): finding the
//! built binaries, running a daemon on a private socket, and a persistent JSON-RPC connection.
//!
//! Std only, so the numbers measure coderd and not a client library.
#![allow(dead_code)] // each program uses a different part of this module

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Finds a built binary of this package. An explicit env var wins (to benchmark another build);
/// then the binary cargo built alongside this program, so a stale `target/release` copy is never
/// measured by mistake; then the usual target folders.
pub fn find_bin(name: &str, env_var: &str, built_with_bench: Option<&str>) -> PathBuf {
    if let Some(path) = std::env::var_os(env_var).filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(path) = built_with_bench {
        candidates.push(PathBuf::from(path));
    }
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        candidates.push(PathBuf::from(dir).join("release").join(name));
    }
    candidates.push(PathBuf::from("target/release").join(name));
    // target/release/examples/x and target/release/deps/x both sit one level below release/.
    if let Ok(exe) = std::env::current_exe() {
        if let Some(release) = exe.parent().and_then(Path::parent) {
            candidates.push(release.join(name));
        }
    }
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .unwrap_or_else(|| {
            fail(&format!(
                "no `{name}` binary found (tried {candidates:?}); run `cargo build --release --workspace` or set {env_var}"
            ))
        })
}

pub fn fail(msg: &str) -> ! {
    eprintln!("bench: {msg}");
    std::process::exit(1);
}

/// A daemon started for the benchmark; stopped (politely, then by force) when dropped.
pub struct Daemon {
    child: Child,
    pub socket: PathBuf,
    pub log: PathBuf,
    /// Time from spawn until the socket accepted a connection.
    pub ready_after: Duration,
}

impl Daemon {
    pub fn start(bin: &Path, roots: &[&Path], socket: &Path, log: &Path) -> Daemon {
        let _ = std::fs::remove_file(socket);
        let started = Instant::now();
        let mut cmd = Command::new(bin);
        for root in roots {
            cmd.arg("--root").arg(root);
        }
        let mut child = cmd
            .arg("--socket")
            .arg(socket)
            .arg("--log-file")
            .arg(log)
            // Debug logging would put formatting on the measured path.
            .arg("--log")
            .arg("warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| fail(&format!("cannot start {}: {e}", bin.display())));
        let deadline = started + Duration::from_secs(10);
        loop {
            if UnixStream::connect(socket).is_ok() {
                break;
            }
            if let Ok(Some(status)) = child.try_wait() {
                fail(&format!(
                    "coderd exited ({status}) before listening; see {}",
                    log.display()
                ));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                fail(&format!(
                    "coderd did not listen on {} within 10 s",
                    socket.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Daemon {
            ready_after: started.elapsed(),
            child,
            socket: socket.to_path_buf(),
            log: log.to_path_buf(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident and peak resident memory in KiB, from /proc.
    pub fn memory_kib(&self) -> (u64, u64) {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// Sends `shutdown` on a fresh connection and waits for the process to exit.
    pub fn shutdown(mut self) -> Duration {
        if let Ok(stream) = UnixStream::connect(&self.socket) {
            let mut client = Client::from_stream(stream);
            let _ = client.call("shutdown", "{}");
        }
        self.wait_exit()
    }

    /// Waits for a daemon that was told to stop; kills it if it lingers.
    pub fn wait_exit(&mut self) -> Duration {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return started.elapsed();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        eprintln!("bench: coderd did not exit within 5 s of `shutdown`; killing it");
        let _ = self.child.kill();
        let _ = self.child.wait();
        started.elapsed()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One persistent connection, used strictly request-then-response.
pub struct Client {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
    next_id: u64,
    request: Vec<u8>,
    pub response: Vec<u8>,
}

impl Client {
    pub fn connect(socket: &Path) -> Client {
        let stream = UnixStream::connect(socket)
            .unwrap_or_else(|e| fail(&format!("connecting to {}: {e}", socket.display())));
        Client::from_stream(stream)
    }

    pub fn from_stream(stream: UnixStream) -> Client {
        let reader = stream
            .try_clone()
            .unwrap_or_else(|e| fail(&format!("cloning the socket: {e}")));
        Client {
            writer: stream,
            reader: BufReader::with_capacity(256 * 1024, reader),
            next_id: 1,
            request: Vec::with_capacity(512),
            response: Vec::with_capacity(256 * 1024),
        }
    }

    /// Frames a request with a fresh id into the internal buffer; `send` then puts it on the wire.
    /// Kept apart so a timer can bracket just the round trip.
    pub fn prepare(&mut self, method: &str, params_json: &str) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.request.clear();
        let _ = write!(
            self.request,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params_json}}}"#
        );
        self.request.push(b'\n');
        id
    }

    /// Writes the prepared request and reads one response line into `self.response`.
    pub fn send(&mut self) {
        self.response.clear();
        if let Err(e) = self.writer.write_all(&self.request) {
            fail(&format!("sending a request: {e}"));
        }
        match self.reader.read_until(b'\n', &mut self.response) {
            Ok(0) => fail("the daemon closed the connection"),
            Ok(_) => {}
            Err(e) => fail(&format!("reading a response: {e}")),
        }
    }

    /// A checked call: the response must carry our id and a `result`; returns the result as JSON.
    pub fn call(&mut self, method: &str, params_json: &str) -> serde_json::Value {
        let id = self.prepare(method, params_json);
        self.send();
        self.check(id)
    }

    /// Parses the last response and checks it answers request `id` without an error.
    pub fn check(&self, id: u64) -> serde_json::Value {
        let mut value: serde_json::Value = serde_json::from_slice(&self.response)
            .unwrap_or_else(|e| fail(&format!("response is not JSON: {e}")));
        if value["id"] != id {
            fail(&format!("response id {} for request {id}", value["id"]));
        }
        if let Some(error) = value.get("error") {
            fail(&format!("daemon answered an error: {error}"));
        }
        value["result"].take()
    }
}

/// Nearest-rank percentile of sorted samples (`p` in 0..=100).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    percentile(&sorted, 50.0)
}

pub fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| fail(&format!("{name}={v:?} is not a number"))),
        Err(_) => default,
    }
}

pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
