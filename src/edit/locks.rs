//! Per-file locks, keyed by canonical path. A call that edits several files takes all its locks at
//! once, in sorted order, so two transactions over the same files can never deadlock.

use crate::error::{Code, Error, Result};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Longest a call waits for another call's locks before giving up (C218).
const WAIT_LIMIT: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct Locks {
    held: Mutex<HashSet<PathBuf>>,
    released: Condvar,
}

/// Holds the locks of one call; dropping it releases them.
pub struct Held<'a> {
    locks: &'a Locks,
    paths: Vec<PathBuf>,
}

impl Locks {
    /// Takes the locks of every path (duplicates allowed), in sorted order, waiting for holders.
    /// Runs on a thread handed over to blocking work, so waiting here blocks no other request.
    pub fn lock(&self, paths: impl IntoIterator<Item = PathBuf>) -> Result<Held<'_>> {
        let mut wanted: Vec<PathBuf> = paths.into_iter().collect();
        wanted.sort();
        wanted.dedup();
        let deadline = Instant::now() + WAIT_LIMIT;
        let mut held = Held {
            locks: self,
            paths: Vec::with_capacity(wanted.len()),
        };
        let mut set = self.held.lock().unwrap_or_else(|e| e.into_inner());
        for path in wanted {
            while set.contains(&path) {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Error::new(
                        Code::TimedOut,
                        format!(
                            "{} stayed locked by another edit for {WAIT_LIMIT:?}",
                            path.display()
                        ),
                    )
                    .with_recovery("retry when the other edit has finished"));
                }
                set = self
                    .released
                    .wait_timeout(set, left)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            set.insert(path.clone());
            held.paths.push(path);
        }
        Ok(held)
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut set = self.locks.held.lock().unwrap_or_else(|e| e.into_inner());
        for path in &self.paths {
            set.remove(path);
        }
        drop(set);
        self.locks.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn crossing_orders_never_deadlock() {
        let locks = Arc::new(Locks::default());
        let a = PathBuf::from("/a");
        let b = PathBuf::from("/b");
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let (locks, a, b) = (locks.clone(), a.clone(), b.clone());
                std::thread::spawn(move || {
                    for _ in 0..500 {
                        let order = if i % 2 == 0 {
                            [a.clone(), b.clone()]
                        } else {
                            [b.clone(), a.clone()]
                        };
                        let _held = locks.lock(order).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(locks.held.lock().unwrap().is_empty());
    }
}
