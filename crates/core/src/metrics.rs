//! The daemon's live metrics, read by the `stats` method: requests and their C2xx errors by
//! method and code, latency per method, bytes in and out, language-server restarts and settle
//! outcomes, failed automatic checkpoints. Each place where such a thing happens records it here
//! once (the server for requests and bytes, `lsp` for servers, `checkpoint` for snapshots);
//! nothing else reads or writes these numbers.
//!
//! Totals since start are counters; latencies since start are a histogram of quarter-octave
//! buckets per method (a percentile within 19% of the true one). The last hour's events are also
//! kept one by one (at most `RECENT_MAX`), so a window's counts and percentiles are exact.
//! **Invariant:** knows no module of coderd.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};
use wire::answers::stats::{Counts, MethodStats, Period, Stats};

/// Events kept for windows; beyond it the oldest go first (a window then says it is partial).
const RECENT_MAX: usize = 100_000;
/// The longest window `stats` answers.
pub const MAX_WINDOW: Duration = Duration::from_secs(3600);
/// Histogram buckets: quarter octaves of microseconds, up to 2^40 µs.
const BUCKETS: usize = 160;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A request answered: its method (`None`: a name no method has), time taken, error code.
    Call {
        method: Option<&'static str>,
        micros: u64,
        error: Option<&'static str>,
    },
    BytesIn(u64),
    BytesOut(u64),
    /// A language server restarted after a crash.
    ServerRestart,
    /// A wait for a server's findings: `current` or `pending` at its deadline.
    Settle(&'static str),
    /// An automatic checkpoint that could not be taken.
    CheckpointFailure,
}

#[derive(Default)]
struct Totals {
    calls: BTreeMap<&'static str, MethodTotals>,
    bytes_in: u64,
    bytes_out: u64,
    server_restarts: u64,
    settle: BTreeMap<&'static str, u64>,
    checkpoint_failures: u64,
}

struct MethodTotals {
    count: u64,
    errors: BTreeMap<&'static str, u64>,
    histogram: [u64; BUCKETS],
}

impl Default for MethodTotals {
    fn default() -> Self {
        MethodTotals {
            count: 0,
            errors: BTreeMap::new(),
            histogram: [0; BUCKETS],
        }
    }
}

struct Metrics {
    started: Instant,
    totals: Totals,
    recent: VecDeque<(Instant, Event)>,
    /// Events dropped from `recent` by count (not by age).
    dropped: bool,
}

static METRICS: LazyLock<Mutex<Metrics>> = LazyLock::new(|| {
    Mutex::new(Metrics {
        started: Instant::now(),
        totals: Totals::default(),
        recent: VecDeque::new(),
        dropped: false,
    })
});

/// A request's name for metrics: unknown methods are counted together.
const UNKNOWN: &str = "(unknown method)";

/// Records one event.
pub fn record(event: Event) {
    let now = Instant::now();
    let mut m = METRICS.lock().unwrap_or_else(|e| e.into_inner());
    m.totals.add(&event);
    while m
        .recent
        .front()
        .is_some_and(|(at, _)| now.duration_since(*at) > MAX_WINDOW)
    {
        m.recent.pop_front();
    }
    if m.recent.len() >= RECENT_MAX {
        m.recent.pop_front();
        m.dropped = true;
    }
    m.recent.push_back((now, event));
}

/// A request answered (the server calls this once per request).
pub fn call(method: Option<&'static str>, elapsed: Duration, error: Option<&'static str>) {
    record(Event::Call {
        method,
        micros: elapsed.as_micros() as u64,
        error,
    });
}

impl Totals {
    fn add(&mut self, event: &Event) {
        match *event {
            Event::Call {
                method,
                micros,
                error,
            } => {
                let totals = self.calls.entry(method.unwrap_or(UNKNOWN)).or_default();
                totals.count += 1;
                totals.histogram[bucket(micros)] += 1;
                if let Some(code) = error {
                    *totals.errors.entry(code).or_default() += 1;
                }
            }
            Event::BytesIn(n) => self.bytes_in += n,
            Event::BytesOut(n) => self.bytes_out += n,
            Event::ServerRestart => self.server_restarts += 1,
            Event::Settle(outcome) => *self.settle.entry(outcome).or_default() += 1,
            Event::CheckpointFailure => self.checkpoint_failures += 1,
        }
    }
}

/// The bucket of a duration: quarter octaves, so bucket `b` holds [2^(b/4), 2^((b+1)/4)) µs.
fn bucket(micros: u64) -> usize {
    let x = micros.max(1) as f64;
    ((x.log2() * 4.0).floor() as usize).min(BUCKETS - 1)
}

/// The upper bound of a bucket, in milliseconds.
fn bucket_ms(b: usize) -> f64 {
    2f64.powf((b + 1) as f64 / 4.0) / 1000.0
}

/// The `q` quantile (0..1) of a histogram, as its bucket's upper bound.
fn histogram_quantile(histogram: &[u64; BUCKETS], q: f64) -> f64 {
    let total: u64 = histogram.iter().sum();
    let rank = ((total as f64) * q).ceil().max(1.0) as u64;
    let mut seen = 0;
    for (b, n) in histogram.iter().enumerate() {
        seen += n;
        if seen >= rank {
            return bucket_ms(b);
        }
    }
    0.0
}

/// The `q` quantile of sorted samples (nearest rank), in milliseconds.
fn exact_quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64) * q).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1] as f64 / 1000.0
}

fn round(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// What `stats` answers: everything since start, and over the last `window` when given.
pub fn snapshot(window: Option<Duration>) -> Stats {
    let m = METRICS.lock().unwrap_or_else(|e| e.into_inner());
    let mut answer = Stats {
        since_start: period(&m.totals),
        uptime_ms: m.started.elapsed().as_millis() as u64,
        window: None,
    };
    if let Some(window) = window {
        let now = Instant::now();
        let mut totals = Totals::default();
        let mut samples: BTreeMap<&'static str, Vec<u64>> = BTreeMap::new();
        let recent = m
            .recent
            .iter()
            .filter(|(at, _)| now.duration_since(*at) <= window);
        for (_, event) in recent {
            totals.add(event);
            if let Event::Call { method, micros, .. } = *event {
                samples
                    .entry(method.unwrap_or(UNKNOWN))
                    .or_default()
                    .push(micros);
            }
        }
        let mut recent = period(&totals);
        // Over a window the samples are at hand: exact quantiles instead of the histogram's.
        for (name, mut micros) in samples {
            micros.sort_unstable();
            let method = recent.methods.entry(name.into()).or_default();
            method.p50_ms = round(exact_quantile(&micros, 0.5));
            method.p99_ms = round(exact_quantile(&micros, 0.99));
        }
        let oldest = m.recent.front().map(|(at, _)| now.duration_since(*at));
        recent.seconds = Some(window.as_secs());
        recent.partial = Some(m.dropped && oldest.is_some_and(|o| o < window));
        answer.window = Some(recent);
    }
    answer
}

/// The counts as a `Counts`, names borrowed.
fn counts(map: &BTreeMap<&'static str, u64>) -> Counts {
    map.iter().map(|(k, n)| (Cow::Borrowed(*k), *n)).collect()
}

fn period(totals: &Totals) -> Period {
    let methods = totals
        .calls
        .iter()
        .map(|(name, t)| {
            let method = MethodStats {
                errors: t.errors.values().sum(),
                errors_by_code: counts(&t.errors),
                p50_ms: round(histogram_quantile(&t.histogram, 0.5)),
                p99_ms: round(histogram_quantile(&t.histogram, 0.99)),
                requests: t.count,
            };
            (Cow::Borrowed(*name), method)
        })
        .collect();
    let mut by_code: BTreeMap<&'static str, u64> = BTreeMap::new();
    for t in totals.calls.values() {
        for (code, n) in &t.errors {
            *by_code.entry(code).or_default() += n;
        }
    }
    Period {
        bytes_in: totals.bytes_in,
        bytes_out: totals.bytes_out,
        checkpoint_failures: totals.checkpoint_failures,
        errors: by_code.values().sum(),
        errors_by_code: counts(&by_code),
        methods,
        partial: None,
        requests: totals.calls.values().map(|t| t.count).sum(),
        seconds: None,
        server_restarts: totals.server_restarts,
        settle: counts(&totals.settle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_bound_their_samples_within_a_quarter_octave() {
        for micros in [1u64, 3, 999, 1000, 1500, 25_000, 4_000_000] {
            let upper = bucket_ms(bucket(micros)) * 1000.0;
            assert!(
                upper > micros as f64 && upper <= micros as f64 * 1.19 + 1.0,
                "{micros}: {upper}"
            );
        }
        let mut histogram = [0; BUCKETS];
        for micros in 1..=100u64 {
            histogram[bucket(micros * 1000)] += 1;
        }
        let p50 = histogram_quantile(&histogram, 0.5);
        assert!((50.0..=60.0).contains(&p50), "{p50}");
        assert_eq!(exact_quantile(&[1000, 2000, 3000, 4000], 0.5), 2.0);
        assert_eq!(exact_quantile(&[1000, 2000, 3000, 4000], 0.99), 4.0);
    }
}
