//! `stats`'s answer (`Answer::Stats`): the daemon's metrics since start and over a window, built
//! by coderd-core's `metrics` and rendered by `coder` from these fields. The fields are in
//! alphabetical order: the answer was a `serde_json::Value` (a sorted map) before it was typed,
//! and its bytes stay those.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A count per name: C2xx codes, settle outcomes.
pub type Counts = BTreeMap<Cow<'static, str>, u64>;

/// `stats`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Everything since the daemon started.
    pub since_start: Period,
    /// How long ago that was.
    pub uptime_ms: u64,
    /// The last `minutes`, when asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Period>,
}

/// The counts over one period.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Period {
    /// Request bytes read.
    pub bytes_in: u64,
    /// Answer bytes written.
    pub bytes_out: u64,
    /// Automatic checkpoints that failed.
    pub checkpoint_failures: u64,
    /// Requests answered with an error.
    pub errors: u64,
    /// Those errors by code.
    pub errors_by_code: Counts,
    /// Each method called, by name.
    pub methods: BTreeMap<Cow<'static, str>, MethodStats>,
    /// The window only: older events were dropped, so it covers less than asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<bool>,
    /// Requests answered.
    pub requests: u64,
    /// The window only: its length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<u64>,
    /// Language servers restarted.
    pub server_restarts: u64,
    /// How waits for language servers to settle ended.
    pub settle: Counts,
}

/// One method's counts over a period.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MethodStats {
    /// Calls answered with an error.
    pub errors: u64,
    /// Those errors by code.
    pub errors_by_code: Counts,
    /// Median latency (from a histogram since start; exact over a window).
    pub p50_ms: f64,
    /// 99th percentile latency.
    pub p99_ms: f64,
    /// Calls.
    pub requests: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer as a `Value` wrote it (keys sorted, floats as floats), read back the same.
    #[test]
    fn the_stats_answer_keeps_the_bytes_of_the_sorted_map_it_was() {
        let code: Counts = [("C211".into(), 2)].into_iter().collect();
        let method = MethodStats {
            errors: 2,
            errors_by_code: code.clone(),
            p50_ms: 1.5,
            p99_ms: 0.0,
            requests: 3,
        };
        let period = Period {
            bytes_in: 10,
            bytes_out: 20,
            errors: 2,
            errors_by_code: code,
            methods: [("read".into(), method)].into_iter().collect(),
            requests: 3,
            ..Period::default()
        };
        let stats = Stats {
            since_start: period.clone(),
            uptime_ms: 7,
            window: Some(Period {
                partial: Some(false),
                seconds: Some(60),
                ..period
            }),
        };
        let text = serde_json::to_string(&stats).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(text, serde_json::to_string(&value).unwrap(), "keys sorted");
        assert!(text.starts_with(r#"{"since_start":{"bytes_in":10,"bytes_out":20,"checkpoint_failures":0,"errors":2,"errors_by_code":{"C211":2},"methods":{"read":{"errors":2,"errors_by_code":{"C211":2},"p50_ms":1.5,"p99_ms":0.0,"requests":3}},"requests":3,"server_restarts":0,"settle":{}},"uptime_ms":7,"window":{"#), "{text}");
        assert!(text.contains(r#""methods":{"read":{"errors":2,"errors_by_code":{"C211":2},"p50_ms":1.5,"p99_ms":0.0,"requests":3}},"partial":false,"requests":3,"seconds":60,"#), "{text}");
        assert_eq!(serde_json::from_str::<Stats>(&text).unwrap(), stats);
    }
}
