//! How many commands run at once (`exec.max_concurrent`): a run takes a slot before it starts
//! and gives it back when it ends; a call over the limit waits for one, at most as long as its
//! own timeout, then is answered C218. Language servers take none (they are few and long-lived).

use coderd_core::error::{Code, Error, Result};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The runs in progress, daemon-wide.
static RUNNING: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

/// A slot, given back when dropped.
pub struct Slot(());

impl Drop for Slot {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        *running -= 1;
        FREED.notify_one();
    }
}

/// The limit in force: the config's, else twice the cores.
pub fn limit(configured: Option<usize>) -> usize {
    configured.unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Waits for one of `max` slots, at most `wait`.
pub fn take(max: usize, wait: Duration) -> Result<Slot> {
    let deadline = Instant::now() + wait;
    let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    while *running >= max.max(1) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::new(Code::TimedOut, format!(
                "{running} commands are running, the most `exec.max_concurrent` allows ({max}); \
                 this one waited {} s for a slot",
                wait.as_secs()
            ))
            .with_recovery("retry when the running commands have ended, or raise `exec.max_concurrent` in the daemon config"));
        }
        running = FREED
            .wait_timeout(running, left)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    *running += 1;
    Ok(Slot(()))
}
