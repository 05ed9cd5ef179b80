//! Drives a request storm at a running coderd and reports what it did to the daemon's memory and
//! to a small `read` on another connection. Used by `scripts/bench-memory.sh`.
//!
//!   memory_storm --socket S --pid PID --storm pipeline|connections|nonreading --n N
//!                --params '{"pattern":"needle"}' [--read-params '{"file":"small.txt","start":1,"end":5}']
//!                [--method search] [--hold-ms 15000] [--settle-ms 10000] [--below-mib 64]
//!
//! `pipeline`: one connection writes N requests (`--method`, `search` by default) back to back
//! (reading answers as they come). `connections`: N connections, one request each, all at once.
//! `nonreading`: N connections write 64 requests each and read nothing for `--hold-ms` (past the
//! daemon's `write_timeout_secs`), then read to the end: `answers` counts the whole lines the daemon
//! wrote before it closed them (none closed: the bench waits forever). Meanwhile a sampler reads
//! the daemon's RSS from /proc/PID/statm every 2 ms and a reader times a small `read`, one after
//! another, on its own connection. After the storm the RSS is watched for `--settle-ms`.
//!
//! Output, one JSON line: {"storm","n","answers","skipped_files","errors","seconds","peak_rss_mib",
//! "rss_at_end_mib","after_rss_mib","below_ms","reads","read_p50_ms","read_p99_ms","read_max_ms"}

#[path = "../benches/support/mod.rs"]
mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{fail, ms, percentile, Client};

struct Options {
    socket: PathBuf,
    pid: u32,
    storm: String,
    n: usize,
    params: String,
    read_params: String,
    settle: Duration,
    below: u64,
    method: String,
    hold: Duration,
}

fn parse_args() -> Options {
    let mut o = Options {
        socket: PathBuf::new(),
        pid: 0,
        storm: "pipeline".into(),
        n: 64,
        params: r#"{"pattern":"needle"}"#.into(),
        read_params: r#"{"file":"small.txt","start":1,"end":5}"#.into(),
        settle: Duration::from_secs(10),
        below: 64,
        method: "search".into(),
        hold: Duration::from_secs(15),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| fail(&format!("{flag} needs a value")))
        };
        let number = |v: String| -> u64 {
            v.parse()
                .unwrap_or_else(|_| fail(&format!("{v:?} is not a number")))
        };
        match flag.as_str() {
            "--socket" => o.socket = value().into(),
            "--pid" => o.pid = number(value()) as u32,
            "--storm" => o.storm = value(),
            "--n" => o.n = number(value()) as usize,
            "--params" => o.params = value(),
            "--read-params" => o.read_params = value(),
            "--settle-ms" => o.settle = Duration::from_millis(number(value())),
            "--below-mib" => o.below = number(value()),
            "--method" => o.method = value(),
            "--hold-ms" => o.hold = Duration::from_millis(number(value())),
            other => fail(&format!("unknown flag {other}")),
        }
    }
    if o.pid == 0 || o.socket.as_os_str().is_empty() {
        fail("--socket and --pid are required");
    }
    o
}

fn rss_bytes(pid: u32) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

const MIB: f64 = 1024.0 * 1024.0;

/// Tallies of the storm's answers.
#[derive(Default)]
struct Tally {
    answers: usize,
    skipped: usize,
    errors: usize,
}

impl Tally {
    fn add(&mut self, line: &[u8]) {
        let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
        self.answers += 1;
        if v.get("error").is_some() {
            self.errors += 1;
        }
        self.skipped += v["result"]["skipped"].as_array().map_or(0, Vec::len);
    }
}

fn request(id: usize, method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#) + "\n"
}

fn pipeline(o: &Options) -> Tally {
    let stream = UnixStream::connect(&o.socket).unwrap_or_else(|e| fail(&e.to_string()));
    let reader = stream.try_clone().unwrap();
    let n = o.n;
    let answers = std::thread::spawn(move || {
        let mut tally = Tally::default();
        let mut reader = BufReader::new(reader);
        let mut line = Vec::new();
        while tally.answers < n {
            line.clear();
            if reader.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
                break;
            }
            tally.add(&line);
        }
        tally
    });
    let mut writer = &stream;
    for id in 0..o.n {
        writer
            .write_all(request(id, &o.method, &o.params).as_bytes())
            .unwrap();
    }
    answers.join().unwrap()
}

fn connections(o: &Options) -> Tally {
    let start = Arc::new(std::sync::Barrier::new(o.n));
    let threads: Vec<_> = (0..o.n)
        .map(|id| {
            let line = request(id, &o.method, &o.params);
            let (socket, start) = (o.socket.clone(), start.clone());
            std::thread::spawn(move || {
                let stream = UnixStream::connect(&socket).unwrap_or_else(|e| fail(&e.to_string()));
                start.wait();
                (&stream).write_all(line.as_bytes()).unwrap();
                let mut line = Vec::new();
                BufReader::new(&stream)
                    .read_until(b'\n', &mut line)
                    .unwrap();
                let mut tally = Tally::default();
                tally.add(&line);
                tally
            })
        })
        .collect();
    let mut total = Tally::default();
    for t in threads {
        let t = t.join().unwrap();
        total.answers += t.answers;
        total.skipped += t.skipped;
        total.errors += t.errors;
    }
    total
}

/// Clients that pipeline and do not read: the daemon must stop them, not buffer their answers.
fn nonreading(o: &Options) -> Tally {
    let streams: Vec<UnixStream> = (0..o.n)
        .map(|_| {
            let stream = UnixStream::connect(&o.socket).unwrap_or_else(|e| fail(&e.to_string()));
            let lines: String = (0..64)
                .map(|id| request(id, &o.method, &o.params))
                .collect();
            (&stream).write_all(lines.as_bytes()).unwrap();
            stream
        })
        .collect();
    std::thread::sleep(o.hold);
    let mut tally = Tally::default();
    for stream in streams {
        let mut rest = Vec::new();
        std::io::Read::read_to_end(&mut &stream, &mut rest).unwrap();
        // The last line may be cut where the daemon gave up: only whole ones count.
        rest.split_inclusive(|&b| b == b'\n')
            .filter(|l| l.ends_with(b"\n"))
            .for_each(|l| tally.add(l));
    }
    tally
}

fn main() {
    let o = parse_args();
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (done, peak, pid) = (done.clone(), peak.clone(), o.pid);
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                peak.fetch_max(rss_bytes(pid), Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let reader = {
        let (done, socket, params) = (done.clone(), o.socket.clone(), o.read_params.clone());
        std::thread::spawn(move || {
            let mut client = Client::connect(&socket);
            let mut samples = Vec::new();
            while !done.load(Ordering::SeqCst) {
                let id = client.prepare("read", &params);
                let t = Instant::now();
                client.send();
                samples.push(t.elapsed());
                client.check(id);
                std::thread::sleep(Duration::from_millis(2));
            }
            samples
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    let started = Instant::now();
    let tally = match o.storm.as_str() {
        "pipeline" => pipeline(&o),
        "connections" => connections(&o),
        "nonreading" => nonreading(&o),
        other => fail(&format!("unknown storm {other}")),
    };
    let seconds = started.elapsed().as_secs_f64();
    done.store(true, Ordering::SeqCst);
    let mut reads = reader.join().unwrap();
    sampler.join().unwrap();
    let at_end = rss_bytes(o.pid);
    // Settling: how long until the RSS is back under the bar, and where it is at the deadline.
    let settle_start = Instant::now();
    let mut below_ms = None;
    loop {
        let rss = rss_bytes(o.pid);
        if below_ms.is_none() && rss < o.below * 1024 * 1024 {
            below_ms = Some(settle_start.elapsed().as_millis() as u64);
        }
        if settle_start.elapsed() >= o.settle {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let after = rss_bytes(o.pid);
    reads.sort_unstable();
    let out = serde_json::json!({
        "storm": o.storm,
        "n": o.n,
        "answers": tally.answers,
        "skipped_files": tally.skipped,
        "errors": tally.errors,
        "seconds": (seconds * 100.0).round() / 100.0,
        "peak_rss_mib": (peak.load(Ordering::SeqCst) as f64 / MIB).round(),
        "rss_at_end_mib": (at_end as f64 / MIB).round(),
        "after_rss_mib": (after as f64 / MIB).round(),
        "below_ms": below_ms,
        "reads": reads.len(),
        "read_p50_ms": (ms(percentile(&reads, 50.0)) * 100.0).round() / 100.0,
        "read_p99_ms": (ms(percentile(&reads, 99.0)) * 100.0).round() / 100.0,
        "read_max_ms": (ms(reads.last().copied().unwrap_or_default()) * 100.0).round() / 100.0,
    });
    println!("{out}");
}
