//! Round-trip latency of a small `read` over one persistent connection, the daemon's memory, and the
//! `coder` client end to end against the shell tools an agent would otherwise spawn.
//!
//! `cargo bench --bench roundtrip` (release build). Knobs: CODERD_BIN / CODER_BIN (binaries to
//! measure), ROUNDTRIP_N (round trips, default 20000), ROUNDTRIP_WARMUP (default 1000),
//! ROUNDTRIP_K (process spawns per tool, default 200), ROUNDTRIP_LARGE_MIB (size of the file for
//! the window-cost row, default 32).
//!
//! Reference rows ride along: an echo process on a Unix socket (the floor any daemon pays on this
//! machine), `info` (no file I/O: the cost of coderd's dispatch alone), and the same 5-line window
//! out of a large file (what the read handler's per-file work adds).
//!
//! Everything runs in one process, one after the other, and the spawned tools round-robin, so
//! machine noise hits all sides alike: ratios are the figure to watch, absolute numbers depend on
//! the machine and on what else it is doing (the load average is printed first).

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{env_usize, fail, find_bin, median, percentile, us, Client, Daemon};

const READ_PARAMS: &str = r#"{"file":"small.txt","start":1,"end":5}"#;
const LARGE_PARAMS: &str = r#"{"file":"large.txt","start":1,"end":5}"#;
/// Requests for each reference row: enough for a stable median, few enough to stay quick.
const REFERENCE_N: usize = 2_000;
const LARGE_N: usize = 200;

fn main() {
    if let Some(socket) = std::env::var_os(ECHO_ENV) {
        run_echo(Path::new(&socket));
    }
    let n = env_usize("ROUNDTRIP_N", 20_000);
    let warmup = env_usize("ROUNDTRIP_WARMUP", 1_000);
    let k = env_usize("ROUNDTRIP_K", 200);
    let large_mib = env_usize("ROUNDTRIP_LARGE_MIB", 32);
    let coderd = find_bin("coderd", "CODERD_BIN", option_env!("CARGO_BIN_EXE_coderd"));
    let coder = find_bin("coder", "CODER_BIN", option_env!("CARGO_BIN_EXE_coder"));

    let scratch = tempfile::Builder::new()
        .prefix("coderd-roundtrip-")
        .tempdir()
        .unwrap_or_else(|e| fail(&format!("creating a temp dir: {e}")));
    let workspace = scratch.path().join("ws");
    std::fs::create_dir(&workspace)
        .unwrap_or_else(|e| fail(&format!("creating the workspace: {e}")));
    let small: String = (1..=40)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();
    std::fs::write(workspace.join("small.txt"), &small)
        .unwrap_or_else(|e| fail(&format!("writing small.txt: {e}")));
    let line = "large file line, long enough to look like code: let value = compute(index);\n";
    let large = line.repeat(large_mib * 1024 * 1024 / line.len());
    std::fs::write(workspace.join("large.txt"), large)
        .unwrap_or_else(|e| fail(&format!("writing large.txt: {e}")));
    let socket = scratch.path().join("d.sock");

    println!("coderd: {}", coderd.display());
    // Other work on the machine shows up as tail latency; say how busy it was.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at start: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let daemon = Daemon::start(
        &coderd,
        &[&workspace],
        &socket,
        &scratch.path().join("d.log"),
    );
    // Let the runtime's threads settle so the idle figure is not caught mid-start.
    std::thread::sleep(Duration::from_millis(200));
    let idle = daemon.memory_kib();
    println!(
        "daemon pid {} ready after {:.1} ms, idle RSS {} KiB",
        daemon.pid(),
        daemon.ready_after.as_secs_f64() * 1e3,
        idle.0
    );

    let mut client = Client::connect(&socket);
    let first = client.call("read", READ_PARAMS);
    let expected: String = small.lines().take(5).map(|l| format!("{l}\n")).collect();
    if first["content"] != expected.as_str() {
        fail(&format!("unexpected read result: {first}"));
    }
    for _ in 0..warmup {
        client.call("read", READ_PARAMS);
    }

    let run_started = Instant::now();
    let samples = time_requests(&mut client, "read", READ_PARAMS, n);
    let wall = run_started.elapsed();
    let after = daemon.memory_kib();
    println!(
        "{n} round trips in {:.2} s ({:.0} req/s including client-side checks)",
        wall.as_secs_f64(),
        n as f64 / wall.as_secs_f64()
    );

    let floor = echo_floor(&scratch.path().join("echo.sock"));
    let info = time_requests(&mut client, "info", "{}", REFERENCE_N);
    let large = time_requests(&mut client, "read", LARGE_PARAMS, LARGE_N);
    let spawns = compare_spawns(&coder, &socket, &workspace, k, &expected);
    let end = daemon.memory_kib();

    client.call("shutdown", "{}");
    drop(client);
    let mut daemon = daemon;
    let stop = daemon.wait_exit();
    println!(
        "daemon exited {:.1} ms after `shutdown`",
        stop.as_secs_f64() * 1e3
    );

    println!();
    println!("### read round trip, one persistent connection (n = {n}, µs)");
    println!();
    println!("| p50 | p90 | p99 | p99.9 | max |");
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
        us(percentile(&samples, 50.0)),
        us(percentile(&samples, 90.0)),
        us(percentile(&samples, 99.0)),
        us(percentile(&samples, 99.9)),
        us(*samples.last().unwrap_or(&Duration::ZERO)),
    );
    println!();
    println!("### reference rows, one persistent connection each (µs)");
    println!();
    println!("| request | n | p50 | p99 | p50 / small read |");
    println!("|---|---:|---:|---:|---:|");
    let base = us(percentile(&samples, 50.0));
    let rows = [
        ("read 1-5 of small.txt (above)", &samples),
        ("echo process, same request line (socket floor)", &floor),
        ("info (dispatch only, no file I/O)", &info),
        (&*format!("read 1-5 of a {large_mib} MiB file"), &large),
    ];
    for (label, s) in rows {
        let p50 = us(percentile(s, 50.0));
        println!(
            "| {label} | {} | {p50:.1} | {:.1} | {:.2} |",
            s.len(),
            us(percentile(s, 99.0)),
            p50 / base
        );
    }
    println!();
    println!("### daemon memory (KiB)");
    println!();
    println!("| RSS idle | RSS after the {n} reads | RSS at the end | peak RSS (VmHWM) |");
    println!("|---:|---:|---:|---:|");
    println!("| {} | {} | {} | {} |", idle.0, after.0, end.0, end.1);
    println!();
    println!("### process spawned per request (k = {k}, µs)");
    println!();
    println!("| command | median | p90 | ratio to sed |");
    println!("|---|---:|---:|---:|");
    let sed_median = us(median(&spawns[1].1));
    for (name, times) in &spawns {
        let mut sorted = times.clone();
        sorted.sort_unstable();
        let m = us(percentile(&sorted, 50.0));
        println!(
            "| {name} | {m:.0} | {:.0} | {:.2} |",
            us(percentile(&sorted, 90.0)),
            m / sed_median
        );
    }
}

/// Sends `n` identical requests one after another; returns the sorted round-trip times.
fn time_requests(client: &mut Client, method: &str, params: &str, n: usize) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let id = client.prepare(method, params);
        let t = Instant::now();
        client.send();
        samples.push(t.elapsed());
        // Checked outside the timed part: it costs the client, not the daemon.
        client.check(id);
    }
    samples.sort_unstable();
    samples
}

/// Set in the environment of the echo process this program starts of itself.
const ECHO_ENV: &str = "ROUNDTRIP_ECHO_SOCKET";

/// Round trips to a plain process that echoes each line back: the kernel and wake-up cost of a
/// request over a Unix socket between two processes, with no runtime and no work. The echoed
/// request passes the client's checks (same id, no error), so the timing loop is the very one
/// used against coderd.
fn echo_floor(socket: &Path) -> Vec<Duration> {
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&format!("current_exe: {e}")));
    let mut child = Command::new(exe)
        .env(ECHO_ENV, socket)
        .stdin(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("starting the echo process: {e}")));
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::os::unix::net::UnixStream::connect(socket).is_err() {
        if Instant::now() > deadline {
            let _ = child.kill();
            fail("the echo process did not listen");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut client = Client::connect(socket);
    time_requests(&mut client, "read", READ_PARAMS, REFERENCE_N / 4);
    let samples = time_requests(&mut client, "read", READ_PARAMS, REFERENCE_N);
    drop(client);
    let _ = child.kill();
    let _ = child.wait();
    samples
}

/// The echo process: serves connections one at a time, single-threaded, blocking I/O.
fn run_echo(socket: &Path) -> ! {
    use std::io::{BufRead, BufReader, Write};
    let _ = std::fs::remove_file(socket);
    let listener = std::os::unix::net::UnixListener::bind(socket)
        .unwrap_or_else(|e| fail(&format!("binding the echo socket: {e}")));
    for stream in listener.incoming().flatten() {
        let Ok(mut writer) = stream.try_clone() else {
            continue;
        };
        let mut reader = BufReader::new(stream);
        let mut line = Vec::new();
        while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
            if writer.write_all(&line).is_err() {
                break;
            }
            line.clear();
        }
    }
    std::process::exit(0)
}

/// Times `coder read` against `sed -n` and `cat` doing the same job, round-robin so that drift in
/// machine load is shared. Returns (label, samples) with sed second, as the ratio's base.
fn compare_spawns(
    coder: &Path,
    socket: &Path,
    workspace: &Path,
    k: usize,
    expected: &str,
) -> Vec<(String, Vec<Duration>)> {
    let coder_cmd = || {
        let mut c = Command::new(coder);
        c.arg("--socket").arg(socket).arg("--no-start");
        c.args(["read", "--file", "small.txt", "--start", "1", "--end", "5"]);
        c
    };
    let sed_cmd = || {
        let mut c = Command::new("sed");
        c.args(["-n", "1,5p", "small.txt"]);
        c
    };
    let cat_cmd = || {
        let mut c = Command::new("cat");
        c.arg("small.txt");
        c
    };
    let commands: [(&str, &dyn Fn() -> Command); 3] = [
        ("coder read --start 1 --end 5", &coder_cmd),
        ("sed -n 1,5p", &sed_cmd),
        ("cat", &cat_cmd),
    ];
    // The client's output must be the same window sed prints, or the comparison is meaningless.
    for (label, make) in &commands[..2] {
        let out = make()
            .current_dir(workspace)
            .output()
            .unwrap_or_else(|e| fail(&format!("running {label}: {e}")));
        if !out.status.success() || out.stdout != expected.as_bytes() {
            fail(&format!(
                "{label} printed {:?} (status {}, stderr {:?})",
                String::from_utf8_lossy(&out.stdout),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let mut results: Vec<(String, Vec<Duration>)> = commands
        .iter()
        .map(|(label, _)| (label.to_string(), Vec::with_capacity(k)))
        .collect();
    for round in 0..k + 10 {
        for (i, (label, make)) in commands.iter().enumerate() {
            let mut cmd = make();
            cmd.current_dir(workspace)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let t = Instant::now();
            let status = cmd
                .status()
                .unwrap_or_else(|e| fail(&format!("running {label}: {e}")));
            let elapsed = t.elapsed();
            if !status.success() {
                fail(&format!("{label} failed: {status}"));
            }
            // The first rounds only warm the binaries' pages into the cache.
            if round >= 10 {
                results[i].1.push(elapsed);
            }
        }
    }
    results
}
