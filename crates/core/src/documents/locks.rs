//! Per-file locks, keyed by canonical path. A call that edits several files takes all its locks at
//! once: it waits until none of its paths is held and no earlier waiter wants any of them, then
//! takes them together. Two transactions over the same files can never deadlock (nobody holds a
//! lock while waiting for another), and waiters are served first come, first served among those
//! that conflict, so a call naming many files is never starved by a stream of smaller ones.

use crate::error::{Code, Error, Result};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Longest a call waits for another call's locks before giving up (C218).
const WAIT_LIMIT: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct Locks {
    inner: Mutex<Inner>,
    released: Condvar,
}

#[derive(Default)]
struct Inner {
    held: HashSet<PathBuf>,
    /// Waiting calls by arrival ticket, with the paths each wants.
    waiting: BTreeMap<u64, Vec<PathBuf>>,
    next_ticket: u64,
}

impl Inner {
    /// Whether the waiter with `ticket` may take `paths` now: none is held, and no earlier waiter
    /// wants one of them.
    fn may_take(&self, ticket: u64, paths: &[PathBuf]) -> bool {
        if paths.iter().any(|p| self.held.contains(p)) {
            return false;
        }
        !self
            .waiting
            .range(..ticket)
            .any(|(_, earlier)| earlier.iter().any(|p| paths.contains(p)))
    }
}

/// Holds the locks of one call; dropping it releases them.
pub struct Held<'a> {
    locks: &'a Locks,
    paths: Vec<PathBuf>,
}

impl Locks {
    /// Takes the locks of every path (duplicates allowed) together, waiting for holders and for
    /// earlier waiters on the same paths. Runs on a thread handed over to blocking work, so
    /// waiting here blocks no other request.
    pub fn lock(&self, paths: impl IntoIterator<Item = PathBuf>) -> Result<Held<'_>> {
        let mut wanted: Vec<PathBuf> = paths.into_iter().collect();
        wanted.sort();
        wanted.dedup();
        let deadline = Instant::now() + WAIT_LIMIT;
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let ticket = inner.next_ticket;
        inner.next_ticket += 1;
        inner.waiting.insert(ticket, wanted.clone());
        while !inner.may_take(ticket, &wanted) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                inner.waiting.remove(&ticket);
                drop(inner);
                // Later waiters may have been held back by this one.
                self.released.notify_all();
                return Err(Error::new(
                    Code::TimedOut,
                    format!(
                        "{} stayed locked by other edits for {WAIT_LIMIT:?}",
                        wanted
                            .first()
                            .map_or(String::new(), |p| p.display().to_string())
                    ),
                )
                .with_recovery("retry when the other edits have finished"));
            }
            inner = self
                .released
                .wait_timeout(inner, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        inner.waiting.remove(&ticket);
        inner.held.extend(wanted.iter().cloned());
        Ok(Held {
            locks: self,
            paths: wanted,
        })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut inner = self.locks.inner.lock().unwrap_or_else(|e| e.into_inner());
        for path in &self.paths {
            inner.held.remove(path);
        }
        drop(inner);
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
        let inner = locks.inner.lock().unwrap();
        assert!(inner.held.is_empty() && inner.waiting.is_empty());
    }

    #[test]
    fn an_earlier_waiter_goes_before_a_later_one_on_the_same_file() {
        let locks = Locks::default();
        let (a, b) = (PathBuf::from("/a"), PathBuf::from("/b"));
        let holding_a = locks.lock([a.clone()]).unwrap();
        let mut inner = locks.inner.lock().unwrap();
        // A call wanting a and b arrived first; a later call wanting only b must wait for it,
        // though b is free.
        inner.waiting.insert(0, vec![a.clone(), b.clone()]);
        assert!(!inner.may_take(1, std::slice::from_ref(&b)));
        assert!(inner.may_take(1, &[PathBuf::from("/c")]));
        inner.waiting.clear();
        assert!(inner.may_take(1, std::slice::from_ref(&b)));
        drop(inner);
        drop(holding_a);
    }
}
