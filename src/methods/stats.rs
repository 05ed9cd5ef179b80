//! `stats`: the daemon's live metrics (see `metrics`), since start and over the last minutes.

use super::{method, Method};
use coderd_core::error::{Error, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use std::time::Duration;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatsParams {
    /// Also count over the last this many minutes (1 to 60).
    #[serde(default)]
    minutes: Option<u64>,
}

pub fn methods() -> Vec<Method> {
    vec![method(
        "stats",
        &[],
        "Live metrics: requests and C2xx errors by method and code, latency p50/p99, bytes in/out, server restarts, settle outcomes, checkpoint failures; since start and over the last `minutes`.",
        false,
        |_, p| stats(p),
    )
    .answers(wire::answers::Answer::Stats)]
}

fn stats(p: StatsParams) -> Result<wire::answers::stats::Stats> {
    let most = coderd_core::metrics::MAX_WINDOW.as_secs() / 60;
    let window = match p.minutes {
        None => None,
        Some(m) if (1..=most).contains(&m) => Some(Duration::from_secs(m * 60)),
        Some(m) => {
            return Err(
                Error::bad_input(format!("`minutes` must be 1..={most}, not {m}"))
                    .with_recovery("omit it for the totals since start only"),
            )
        }
    };
    Ok(coderd_core::metrics::snapshot(window))
}
