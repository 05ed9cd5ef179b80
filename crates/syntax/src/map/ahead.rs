//! The unsteered ranking kept ready: after the tree changed so that a new snapshot is due, a thread
//! of its own takes the snapshot and ranks the last unsteered question again (no focus, no mention
//! the snapshot holds) before anyone asks it. Its ranking is a walk and a scoring of the whole
//! graph, after the new snapshot's graph is patched (or built anew) and its module structure kept
//! (or built anew when the change touched what it reads): at 200,000 files up to a second or more,
//! which the first question after a change would otherwise wait for.
//!
//! The pass is the question's own computation (`MapCache::rank_unsteered`), so its answer is the
//! one the question would have computed, byte for byte: a map does not depend on when it was
//! ranked. It runs once the changes have been quiet for `QUIET` (an agent's edit burst, a
//! checkout's thousands of events: one pass), one at a time, and gives up before the ranking when
//! a newer change arrived meanwhile (the next pass ranks the newer snapshot). A question asked
//! during a pass waits for the parts it shares (the snapshot, the graph, the unsteered ranking)
//! rather than computing them again. A pass runs only when a map without focus or mentions was
//! asked since the last pass: an agent asking only focus questions costs at most one.

use super::MapCache;
use coderd_core::jail::Resolved;
use coderd_core::workspace::Workspace;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// How long the changes must have been quiet before a pass starts.
const QUIET: Duration = Duration::from_millis(200);
/// How often the thread looks at the change count (an atomic load).
const POLL: Duration = Duration::from_millis(50);

/// What a pass keeps ready, and the thread's start.
#[derive(Default)]
pub struct Ahead {
    /// The folder and kind (with tests or not) of the last unsteered question ranked.
    question: Mutex<Option<(Resolved, bool)>>,
    /// Whether it was asked since the last pass: a pass ranks only then, so an agent that stopped
    /// asking it costs at most one ranking, not one per change.
    wanted: AtomicBool,
    /// Files the passes (re)tagged since the last question: that question's `parsed` counts them.
    tagged: AtomicUsize,
    started: OnceLock<()>,
}

impl Ahead {
    /// Notes a map without focus or mentions just answered: the question the next pass keeps
    /// ready.
    pub(super) fn asked(&self, dir: &Resolved, include_tests: bool) {
        let mut question = self.question.lock().unwrap_or_else(|e| e.into_inner());
        *question = Some((dir.clone(), include_tests));
        self.wanted.store(true, Ordering::Relaxed);
    }

    /// The files the passes tagged since the last call.
    pub(super) fn take_tagged(&self) -> usize {
        self.tagged.swap(0, Ordering::Relaxed)
    }

    fn question(&self) -> Option<(Resolved, bool)> {
        self.question
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Starts, once per daemon, the thread keeping `cache(state)`'s unsteered ranking ready. It holds
/// the state only during a pass, and ends with the daemon (the state dropped).
pub fn keep_ready<S>(state: &Arc<S>, cache: fn(&S) -> &MapCache)
where
    S: std::ops::Deref<Target = Workspace> + Send + Sync + 'static,
{
    let weak = Arc::downgrade(state);
    cache(state).ahead.started.get_or_init(move || {
        let spawned = std::thread::Builder::new()
            .name("map-ahead".into())
            .spawn(move || watch(weak, cache));
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "map: no thread to rank ahead");
        }
    });
}

/// The thread: a pass whenever the change count moved and then stayed for `QUIET`.
fn watch<S>(state: Weak<S>, cache: fn(&S) -> &MapCache)
where
    S: std::ops::Deref<Target = Workspace>,
{
    let Some(changed) = state.upgrade().map(|s| cache(&s).tree.change_count()) else {
        return;
    };
    // The count the last pass started at, and the last count seen with when it was first seen.
    let mut ranked_at = changed.load(Ordering::Relaxed);
    let mut seen = (ranked_at, Instant::now());
    loop {
        std::thread::sleep(POLL);
        let now = changed.load(Ordering::Relaxed);
        if now != seen.0 {
            seen = (now, Instant::now());
            continue;
        }
        if now == ranked_at || seen.1.elapsed() < QUIET {
            continue;
        }
        let Some(state) = state.upgrade() else {
            return;
        };
        ranked_at = now;
        pass(&state, cache(&state), &changed, now);
    }
}

/// One pass: the snapshot of the last unsteered question's folder, and its unsteered ranking
/// unless a change arrived since the pass started (`at`).
fn pass(state: &Workspace, cache: &MapCache, changed: &AtomicU64, at: u64) {
    if !cache.ahead.wanted.swap(false, Ordering::Relaxed) {
        return;
    }
    let Some((dir, include_tests)) = cache.ahead.question() else {
        return;
    };
    // A folder whose listing was forgotten since (other folders asked after it, past `LISTINGS`
    // or `map_max_tags`) would be listed, maybe tagged, again, pushing out the folders asked
    // since: its own next question does that, if it comes.
    if !cache.lists(&dir, include_tests) {
        return;
    }
    let started = Instant::now();
    let snapshot = match cache.snapshot(state, &dir, include_tests) {
        Ok(snapshot) => snapshot,
        Err(e) => {
            tracing::debug!(error = %e.message, "map: no snapshot ahead");
            return;
        }
    };
    cache
        .ahead
        .tagged
        .fetch_add(snapshot.tagged, Ordering::Relaxed);
    if changed.load(Ordering::Relaxed) != at {
        // A newer change: the next pass ranks it.
        cache.ahead.wanted.store(true, Ordering::Relaxed);
        return;
    }
    cache.rank_unsteered(&dir, &snapshot, include_tests);
    tracing::debug!(
        us = started.elapsed().as_micros() as u64,
        parsed = snapshot.tagged,
        fingerprint = snapshot.fingerprint,
        "map ranked ahead"
    );
}
