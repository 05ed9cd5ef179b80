//! Times one JSON-RPC request, repeated, against a coderd daemon; prints a one-line JSON summary.
//! Used by `scripts/bench-search.sh` for what hyperfine cannot measure: requests over a connection
//! that stays open (an agent's steady state), and the first request answered by a fresh daemon.
//!
//!   rpc_bench --socket S --method search --params '{"pattern":"x","dir":"/abs"}' [-n 20] [--warmup 3]
//!             [--prepare 'shell command, untimed, before each timed request']
//!             [--fresh-daemon --root DIR ...]   (start a daemon per run; time its first answer)
//!
//! Output: {"runs","median_ms","p90_ms","min_ms","max_ms","ready_median_ms"?,"result":{scalars}}

#[path = "../benches/support/mod.rs"]
mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::{fail, find_bin, median, ms, percentile, Client, Daemon};

struct Options {
    socket: PathBuf,
    method: String,
    params: String,
    runs: usize,
    warmup: usize,
    prepare: Option<String>,
    fresh_daemon: bool,
    roots: Vec<PathBuf>,
}

fn parse_args() -> Options {
    let mut o = Options {
        socket: PathBuf::new(),
        method: String::new(),
        params: "{}".into(),
        runs: 20,
        warmup: 3,
        prepare: None,
        fresh_daemon: false,
        roots: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(&format!("{flag} needs a value")))
        };
        match flag.as_str() {
            "--socket" => o.socket = value().into(),
            "--method" => o.method = value(),
            "--params" => o.params = value(),
            "-n" | "--runs" => o.runs = value().parse().unwrap_or_else(|_| fail("bad -n")),
            "--warmup" => o.warmup = value().parse().unwrap_or_else(|_| fail("bad --warmup")),
            "--prepare" => o.prepare = Some(value()),
            "--fresh-daemon" => o.fresh_daemon = true,
            "--root" => o.roots.push(value().into()),
            other => fail(&format!("unknown argument {other:?} (see the file header)")),
        }
    }
    if o.socket.as_os_str().is_empty() || o.method.is_empty() || o.runs == 0 {
        fail("usage: rpc_bench --socket S --method M [--params JSON] [-n N] [--warmup W] [--prepare CMD] [--fresh-daemon --root DIR]");
    }
    if serde_json::from_str::<Value>(&o.params).map_or(true, |v| !v.is_object()) {
        fail("--params must be a JSON object");
    }
    if o.fresh_daemon && o.roots.is_empty() {
        fail("--fresh-daemon needs at least one --root");
    }
    o
}

fn run_prepare(cmd: &Option<String>) {
    if let Some(cmd) = cmd {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .status()
            .unwrap_or_else(|e| fail(&format!("--prepare: {e}")));
        if !status.success() {
            fail(&format!("--prepare {cmd:?} failed: {status}"));
        }
    }
}

/// Timed requests over one connection to an already running daemon.
fn steady(o: &Options) -> (Vec<Duration>, Vec<Duration>, Value) {
    let mut client = Client::connect(&o.socket);
    for _ in 0..o.warmup {
        client.call(&o.method, &o.params);
    }
    let mut times = Vec::with_capacity(o.runs);
    let mut last = Value::Null;
    for _ in 0..o.runs {
        run_prepare(&o.prepare);
        let id = client.prepare(&o.method, &o.params);
        let t = Instant::now();
        client.send();
        times.push(t.elapsed());
        last = client.check(id);
    }
    (times, Vec::new(), last)
}

/// Each run starts a daemon, times its first answer, and stops it: the cost an agent pays when
/// `coder` has to start the daemon, minus the client's own start.
fn fresh(o: &Options) -> (Vec<Duration>, Vec<Duration>, Value) {
    let bin = find_bin("coderd", "CODERD_BIN", None);
    let roots: Vec<&Path> = o.roots.iter().map(PathBuf::as_path).collect();
    let log = o.socket.with_extension("log");
    let (mut times, mut ready) = (Vec::new(), Vec::new());
    let mut last = Value::Null;
    for run in 0..o.warmup + o.runs {
        run_prepare(&o.prepare);
        let daemon = Daemon::start(&bin, &roots, &o.socket, &log);
        let mut client = Client::connect(&o.socket);
        let id = client.prepare(&o.method, &o.params);
        let t = Instant::now();
        client.send();
        let elapsed = t.elapsed();
        last = client.check(id);
        if run >= o.warmup {
            times.push(elapsed);
            ready.push(daemon.ready_after);
        }
        drop(client);
        daemon.shutdown();
    }
    (times, ready, last)
}

fn main() {
    let o = parse_args();
    let (times, ready, last) = if o.fresh_daemon {
        fresh(&o)
    } else {
        steady(&o)
    };
    let mut sorted = times.clone();
    sorted.sort_unstable();
    // Only the scalar fields: enough to check what was searched, small enough for one line.
    let scalars: serde_json::Map<String, Value> = last
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(_, v)| !v.is_array() && !v.is_object())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let mut out = json!({
        "runs": times.len(),
        "median_ms": ms(percentile(&sorted, 50.0)),
        "p90_ms": ms(percentile(&sorted, 90.0)),
        "min_ms": ms(sorted[0]),
        "max_ms": ms(sorted[sorted.len() - 1]),
        "result": scalars,
    });
    if !ready.is_empty() {
        out["ready_median_ms"] = json!(ms(median(&ready)));
    }
    println!("{out}");
}
