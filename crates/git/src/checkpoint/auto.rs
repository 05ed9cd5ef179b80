//! The automatic snapshot before every mutating call. Best effort by design: it never fails the
//! call it precedes and never makes it wait on another snapshot.
//!
//! - Before every call that may change files it does not name (`exec`, `test`, `tool`), not on
//!   a clock: such a call that follows a change (an edit, a command, another program's save)
//!   finds it snapshotted; with nothing changed since the last snapshot no commit is made
//!   (`created: false`), which costs the two index scans. An edit changes only the files it
//!   names and keeps their bytes first (`edit::keep`), so no byte depends on its automatic
//!   snapshot: that one is a restore point, at most one per `checkpoint_interval_ms` (15 s).
//! - Each attempt has a 10 s deadline; git's process group is killed at it (the store clears the
//!   lock files a killed run leaves).
//! - A failure backs off (interval × 2^failures, at most × 16: the time is taken
//!   before the attempt, so a slow or failing one is not retried at once) and is never final: snapshots are
//!   tried again after the back-off, however many failed before. Until one succeeds, the answer
//!   of every mutating call that ran without its snapshot says so (`checkpoint_warning`: the
//!   error, the failures in a row, when the next attempt is), so a workspace never loses its
//!   safety net silently.
//! - Off with config `checkpoints: false` or `CODER_CHECKPOINTS=off` in the daemon's environment
//!   only: a request cannot switch them off (`"checkpoints": false` is refused, C210). Never for
//!   `/`, `$HOME` or its ancestors; a no-op without git.

use super::store::SnapshotError;
use super::{caps, Checkpoints};
use crate::command::GitError;
use coderd_core::workspace::Workspace;
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(10);
/// The longest back-off after failures, as a power of two of the interval.
const MAX_BACKOFF_DOUBLINGS: u32 = 4;
/// Methods that take their own snapshot (or none) and so get no automatic one.
const SELF_SNAPSHOTTING: &[&str] = &["checkpoint"];

pub struct Auto {
    last_attempt: Option<Instant>,
    retry_at: Option<Instant>,
    failures: u32,
    /// Why automatic snapshots are off for the daemon's life (the environment, or no git).
    off: Option<String>,
    last_error: Option<String>,
    taken: u64,
}

/// How automatic snapshots fare, for `checkpoint --list`: the wire's type.
pub use wire::answers::checkpoint::AutoReport as Report;

impl Auto {
    /// Off from the start when the daemon's environment says `CODER_CHECKPOINTS=off`.
    pub fn from_env() -> Auto {
        let off = std::env::var("CODER_CHECKPOINTS")
            .ok()
            .filter(|v| is_off(v))
            .map(|v| format!("CODER_CHECKPOINTS={v} in the daemon's environment"));
        Auto {
            last_attempt: None,
            retry_at: None,
            failures: 0,
            off,
            last_error: None,
            taken: 0,
        }
    }
}

/// The values of `CODER_CHECKPOINTS` that switch snapshots off (the rule every switch shares).
pub use wire::switches::is_off;

impl Checkpoints {
    /// Called by the server before a mutating method runs. `only_named`: the call changes only
    /// files it names and keeps their bytes itself (`edit::keep`), so its snapshot is a restore
    /// point taken at most once per interval.
    pub fn before_mutation(&self, state: &Workspace, method: &str, only_named: bool) {
        if SELF_SNAPSHOTTING.contains(&method) || !state.limits().checkpoints {
            return;
        }
        let (Some(shadow), None) = (&self.shadow, &self.refusal) else {
            return;
        };
        // Another call is snapshotting right now: this one goes ahead without waiting.
        let Ok(mut auto) = self.auto.try_lock() else {
            return;
        };
        let now = Instant::now();
        let interval = Duration::from_millis(state.limits().checkpoint_interval_ms);
        if auto.off.is_some() {
            return;
        }
        // No clock before a call that may change files it does not name: it always gets one (a
        // tree unchanged since the last makes no commit). Only after failures does the next
        // attempt wait (the back-off).
        if auto.failures > 0 && auto.retry_at.is_some_and(|t| now < t) {
            return warn(auto.warning(now));
        }
        let recent = auto.last_attempt.is_some_and(|t| now < t + interval);
        if only_named && recent && auto.failures == 0 {
            return;
        }
        auto.last_attempt = Some(now);
        let deadline = now + DEADLINE;
        let label = format!("auto: before {method}");
        let outcome = shadow.lock(deadline).and_then(|locked| {
            shadow.snapshot(&locked, &state.jail, caps(state), &label, deadline)
        });
        match outcome {
            Ok(_) => {
                auto.taken += 1;
                auto.failures = 0;
                auto.retry_at = None;
                auto.last_error = None;
            }
            Err(SnapshotError::Git(GitError::NotInstalled)) => {
                auto.off = Some("git is not installed".into());
            }
            Err(e) => {
                coderd_core::metrics::record(coderd_core::metrics::Event::CheckpointFailure);
                auto.failed(e.to_string(), now, interval);
                warn(auto.warning(now));
            }
        }
    }

    /// Why checkpoints are off for this workspace (config, environment, `$HOME`, no data folder,
    /// no git), if they are.
    pub fn off_reason(&self, state: &Workspace) -> Option<String> {
        let auto = self.auto.lock().unwrap_or_else(|e| e.into_inner());
        if !state.limits().checkpoints {
            Some("config `checkpoints: false`".to_string())
        } else if let Some(why) = &self.refusal {
            Some(why.clone())
        } else if self.shadow.is_none() {
            Some("no data folder ($XDG_DATA_HOME or $HOME)".to_string())
        } else {
            auto.off.clone()
        }
    }

    pub fn auto_report(&self, state: &Workspace) -> Report {
        let reason = self.off_reason(state);
        let auto = self.auto.lock().unwrap_or_else(|e| e.into_inner());
        Report {
            enabled: reason.is_none(),
            reason,
            taken: auto.taken,
            failures_in_a_row: auto.failures,
            last_error: auto.last_error.clone(),
        }
    }
}

impl Auto {
    fn failed(&mut self, error: String, now: Instant, interval: Duration) {
        self.failures += 1;
        tracing::warn!(
            "automatic checkpoint failed ({} in a row): {error}",
            self.failures
        );
        self.last_error = Some(error);
        let doublings = self.failures.min(MAX_BACKOFF_DOUBLINGS);
        self.retry_at = Some(now + interval * 2u32.pow(doublings));
    }

    /// What the answer of a call that ran without its snapshot says.
    fn warning(&self, now: Instant) -> String {
        let next = self
            .retry_at
            .map_or(0, |t| t.saturating_duration_since(now).as_secs());
        format!(
            "no automatic checkpoint before this call: the last {} attempt(s) failed ({}); \
             the next attempt is in {next} s; `checkpoint --create` shows the error",
            self.failures,
            self.last_error.as_deref().unwrap_or("unknown error")
        )
    }
}

/// Leaves the warning for the call about to run on this thread, in its request context.
fn warn(warning: String) {
    coderd_core::request::set_checkpoint_warning(warning);
}

/// Adds `checkpoint_warning` to an object answer.
pub fn attach(
    result: Box<serde_json::value::RawValue>,
    warning: &str,
) -> coderd_core::error::Result<Box<serde_json::value::RawValue>> {
    let warning = serde_json::Value::from(warning).to_string();
    coderd_core::outgoing::with_field(result, "checkpoint_warning", &warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_back_off_up_to_a_cap_and_never_turn_snapshots_off() {
        let mut auto = Auto::from_env();
        auto.off = None;
        let now = Instant::now();
        let interval = Duration::from_secs(15);
        auto.failed("x".into(), now, interval);
        assert_eq!(auto.retry_at, Some(now + Duration::from_secs(30)));
        auto.failed("y".into(), now, interval);
        assert_eq!(auto.retry_at, Some(now + Duration::from_secs(60)));
        for _ in 0..10 {
            auto.failed("z".into(), now, interval);
        }
        assert_eq!(auto.retry_at, Some(now + Duration::from_secs(240)));
        assert!(auto.off.is_none());
        let warning = auto.warning(now);
        assert!(warning.contains("12 attempt(s) failed (z)"), "{warning}");
    }

    #[test]
    fn off_values_are_recognised() {
        assert!(is_off("off") && is_off("0") && is_off("FALSE") && is_off(" no "));
        assert!(!is_off("on") && !is_off(""));
    }
}
