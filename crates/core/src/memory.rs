//! The daemon-wide memory policy: whatever the clients do, the daemon stays under
//! `max_memory_bytes`.
//!
//! - **Heavy requests** (search, tree, batch reads, stat hashing, large reads) run through one
//!   daemon-wide gate of `heavy_slots`. The gate is a FIFO semaphore, and each connection may have
//!   at most `heavy_per_connection` heavy requests in it (running or waiting for a slot), so the
//!   queue for the slots is round-robin across connections: a flood on one connection cannot starve
//!   another. Light requests (a small ranged `read`, `info`, `list-folder`) never wait on it.
//! - **Per-request heap budget**: half of `max_memory_bytes` is divided among the slots; a search
//!   divides its share among its walker threads, and that is grep-searcher's `heap_limit`: a file
//!   with a line longer than that is skipped and reported, never buffered whole.
//! - **Request frames**: a frame's buffer past its connection's first 64 KiB grows only with
//!   budget from `FrameBudget` (a quarter of `max_memory_bytes`, shared by every connection), so
//!   many half-written frames cannot hold many frame limits at once.
//! - **Answers on their way out**: an answer produced and not yet written to its client is charged
//!   to its connection's `Backlog` and to the daemon's (`answer_budget_bytes`, an eighth of
//!   `max_memory_bytes`). An answer exists before it can be counted, so it is never refused; what
//!   a full backlog holds back is the next request's start: no request of a connection starts
//!   while its backlog is over `answer_bytes_per_connection`, and while the daemon's is over its
//!   budget no heavy request starts, nor any of a connection with answers unsent (one that reads
//!   its answers still gets `info`). One answer larger than either still goes through alone.
//! - **Giving memory back**: large buffers are allocated with `mmap` (a fixed glibc mmap threshold,
//!   so they are unmapped the moment they are freed), and once heavy work goes quiet the allocator
//!   is asked to return its free pages (`malloc_trim`). docs/daemon.md, "Memory", has the measurements
//!   behind that choice.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

const MIB: u64 = 1024 * 1024;
/// The smallest `max_memory_bytes` a config may set.
pub const MIN_MEMORY_BYTES: u64 = 16 * MIB;
/// Allocations at least this large get their own mapping and go back to the system when freed.
const MMAP_THRESHOLD: usize = 256 * 1024;
/// How long heavy work must have been quiet before free memory is handed back.
const QUIET_BEFORE_TRIM: Duration = Duration::from_millis(200);
/// Searches read files up to this size whole; the buffer comes out of the request's heap budget.
const SEARCH_SLURP_BYTES: u64 = 4 * MIB;

/// The numbers the policy derives from `max_memory_bytes` (reported by `info`).
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub max_memory_bytes: u64,
    /// Heavy requests running at once, daemon-wide.
    pub heavy_slots: usize,
    /// Heavy requests one connection may have running or queued for a slot; its others wait on
    /// the connection, which keeps the slot queue fair between connections.
    pub heavy_per_connection: usize,
    /// Working memory of one heavy request.
    pub request_heap_bytes: u64,
    /// Walker threads of one search.
    pub search_threads: usize,
    /// grep-searcher's `heap_limit` for each search thread: the longest line a search buffers.
    pub search_heap_limit_bytes: u64,
    /// Request frames being read or handled, on every connection together (`FrameBudget`).
    pub frame_budget_bytes: u64,
    /// Answers produced and not yet written, on every connection together: no heavy request
    /// starts while they are over it (`Backlog`).
    pub answer_budget_bytes: u64,
    /// Answers one connection may have produced and not yet written before it stops reading and
    /// starting requests.
    pub answer_bytes_per_connection: u64,
}

impl Policy {
    pub fn new(max_memory_bytes: u64) -> Policy {
        static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let cpus =
            *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
        Policy::for_machine(max_memory_bytes, cpus)
    }

    fn for_machine(max_memory_bytes: u64, cpus: usize) -> Policy {
        let max_memory_bytes = max_memory_bytes.max(MIN_MEMORY_BYTES);
        // Half the budget is the heavy requests' working memory; the other half covers the
        // baseline (runtime, caches), light requests, responses on their way out, allocator slack.
        let heavy = max_memory_bytes / 2;
        // More heavy requests than cores only share the cores; each slot gets at least 16 MiB.
        let heavy_slots = cpus.clamp(2, 8).min((heavy / (16 * MIB)).max(1) as usize);
        let request_heap_bytes = heavy / heavy_slots as u64;
        let search_threads = cpus.clamp(1, 8);
        let per_thread = request_heap_bytes / search_threads as u64;
        let search_heap_limit_bytes = per_thread
            .saturating_sub(SEARCH_SLURP_BYTES)
            .max(per_thread / 2);
        Policy {
            max_memory_bytes,
            heavy_slots,
            heavy_per_connection: (heavy_slots / 2).max(1),
            request_heap_bytes,
            search_threads,
            search_heap_limit_bytes,
            // A quarter: the rest of the baseline half covers the runtime, caches and answers.
            frame_budget_bytes: max_memory_bytes / 4,
            // An eighth, out of the half that covers responses on their way out; a connection may
            // fill an eighth of that before it waits, and at least 1 MiB so small answers pipeline.
            answer_budget_bytes: max_memory_bytes / 8,
            answer_bytes_per_connection: (max_memory_bytes / 64).max(MIB),
        }
    }
}

/// The daemon-wide gate for heavy requests.
pub struct Gate {
    /// FIFO: waiters are served in arrival order.
    slots: Arc<Semaphore>,
    /// Slots the semaphore currently stands for (a reload can change it).
    size: AtomicUsize,
    running: AtomicUsize,
    queued: AtomicUsize,
    /// Bumped whenever a heavy request starts: a pending trim sees that work resumed.
    epoch: AtomicU64,
    /// The daemon's runtime, for the timers (a reload arrives on the file watcher's thread).
    runtime: Option<tokio::runtime::Handle>,
}

/// Held while a heavy request runs.
pub struct HeavyPermit {
    _slot: OwnedSemaphorePermit,
    _turn: OwnedSemaphorePermit,
    gate: Arc<Gate>,
}

impl Gate {
    pub fn new(policy: &Policy) -> Gate {
        Gate {
            slots: Arc::new(Semaphore::new(policy.heavy_slots)),
            size: AtomicUsize::new(policy.heavy_slots),
            running: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            epoch: AtomicU64::new(0),
            runtime: tokio::runtime::Handle::try_current().ok(),
        }
    }

    /// A connection's own turn-taker: at most `heavy_per_connection` of its heavy requests are in
    /// the daemon-wide queue at once.
    pub fn connection_turns(policy: &Policy) -> Arc<Semaphore> {
        Arc::new(Semaphore::new(policy.heavy_per_connection))
    }

    /// Waits for the connection's turn, then for `room` (the answers' backlogs: waited for with
    /// the turn held, so the connection's next heavy request cannot start past it, and without a
    /// slot, so a client that does not read holds no slot), then for a daemon-wide slot.
    pub async fn enter(
        self: &Arc<Self>,
        turns: &Arc<Semaphore>,
        room: impl std::future::Future<Output = ()>,
    ) -> Option<HeavyPermit> {
        self.queued.fetch_add(1, Ordering::SeqCst);
        let turn = turns.clone().acquire_owned().await;
        let slot = match turn {
            Ok(_) => {
                room.await;
                self.slots.clone().acquire_owned().await.ok()
            }
            Err(_) => None,
        };
        self.queued.fetch_sub(1, Ordering::SeqCst);
        let (turn, slot) = (turn.ok()?, slot?);
        self.running.fetch_add(1, Ordering::SeqCst);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        Some(HeavyPermit {
            _slot: slot,
            _turn: turn,
            gate: self.clone(),
        })
    }

    /// Follows a reload that changed `max_memory_bytes`.
    pub fn resize(self: &Arc<Self>, policy: &Policy) {
        let old = self.size.swap(policy.heavy_slots, Ordering::SeqCst);
        resize(&self.slots, old, policy.heavy_slots, self.runtime.as_ref());
    }

    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }
}

impl Drop for HeavyPermit {
    fn drop(&mut self) {
        if self.gate.running.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        // The last heavy request finished: once nothing heavy has started for a moment, hand the
        // free memory back. A burst trims once at its end, not after every request.
        let Some(runtime) = &self.gate.runtime else {
            return;
        };
        let gate = self.gate.clone();
        let epoch = gate.epoch.load(Ordering::SeqCst);
        runtime.spawn(async move {
            tokio::time::sleep(QUIET_BEFORE_TRIM).await;
            if gate.running() == 0 && gate.epoch.load(Ordering::SeqCst) == epoch {
                let _ = tokio::task::spawn_blocking(release_free_memory).await;
            }
        });
    }
}

/// Grows a semaphore at once, or shrinks it by taking the surplus as it frees up and keeping it.
fn resize(
    semaphore: &Arc<Semaphore>,
    old: usize,
    new: usize,
    runtime: Option<&tokio::runtime::Handle>,
) {
    if new > old {
        semaphore.add_permits(new - old);
    } else if let (true, Some(runtime)) = (new < old, runtime) {
        let (semaphore, surplus) = (semaphore.clone(), (old - new) as u32);
        runtime.spawn(async move {
            if let Ok(permits) = semaphore.acquire_many_owned(surplus).await {
                permits.forget();
            }
        });
    }
}

/// The bytes of request frames, daemon-wide: a connection's half-written frame holds its buffer
/// until its newline arrives, so without a shared budget many slow connections could hold many
/// frame limits at once. Counted in KiB (a semaphore's permits are `u32`s when taken together).
pub struct FrameBudget {
    kib: Arc<Semaphore>,
    size_kib: AtomicUsize,
    runtime: Option<tokio::runtime::Handle>,
}

/// Budget held by one frame's buffer; given back when dropped.
pub type FrameBytes = OwnedSemaphorePermit;

const KIB: usize = 1024;

impl FrameBudget {
    pub fn new(policy: &Policy) -> FrameBudget {
        let size_kib = (policy.frame_budget_bytes / KIB as u64) as usize;
        FrameBudget {
            kib: Arc::new(Semaphore::new(size_kib)),
            size_kib: AtomicUsize::new(size_kib),
            runtime: tokio::runtime::Handle::try_current().ok(),
        }
    }

    /// Budget for `bytes` more, now or never: a frame that cannot have it is refused rather than
    /// left waiting, since frames waiting on each other's budget would wait forever.
    pub fn try_take(&self, bytes: usize) -> Option<FrameBytes> {
        let kib = u32::try_from(bytes.div_ceil(KIB)).ok()?;
        self.kib.clone().try_acquire_many_owned(kib).ok()
    }

    /// Follows a reload that changed `max_memory_bytes`.
    pub fn resize(&self, policy: &Policy) {
        let new = (policy.frame_budget_bytes / KIB as u64) as usize;
        let old = self.size_kib.swap(new, Ordering::SeqCst);
        resize(&self.kib, old, new, self.runtime.as_ref());
    }

    /// The whole budget, in bytes.
    pub fn size(&self) -> u64 {
        (self.size_kib.load(Ordering::SeqCst) * KIB) as u64
    }

    /// Bytes frames hold now.
    pub fn in_use(&self) -> u64 {
        let size = self.size_kib.load(Ordering::SeqCst);
        (size.saturating_sub(self.kib.available_permits()) * KIB) as u64
    }
}

/// Bytes of answers produced and not yet written to their client: one per connection, one for the
/// daemon. A charge is taken when an answer is made and given back when it is written or dropped.
#[derive(Default)]
pub struct Backlog {
    held: AtomicU64,
    freed: Notify,
}

/// One answer's bytes in a backlog, given back when dropped.
pub struct Charge {
    backlog: Arc<Backlog>,
    bytes: u64,
}

impl Backlog {
    /// Charges an answer that already exists: never refused (see the module doc).
    pub fn charge(self: &Arc<Self>, bytes: u64) -> Charge {
        self.held.fetch_add(bytes, Ordering::SeqCst);
        Charge {
            backlog: self.clone(),
            bytes,
        }
    }

    /// Returns once fewer than `limit` bytes are held: with nothing held, any answer may start.
    pub async fn room(&self, limit: u64) {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a charge given back in between still wakes us.
            freed.as_mut().enable();
            if self.held() < limit {
                return;
            }
            freed.await;
        }
    }

    pub fn held(&self) -> u64 {
        self.held.load(Ordering::SeqCst)
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.backlog.held.fetch_sub(self.bytes, Ordering::SeqCst);
        self.backlog.freed.notify_waiters();
    }
}

/// Current resident set size, from /proc/self/statm.
pub fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * rustix::param::page_size() as u64)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use std::os::raw::c_int;
    extern "C" {
        pub fn malloc_trim(pad: usize) -> c_int;
        pub fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    pub const M_TRIM_THRESHOLD: c_int = -1;
    pub const M_MMAP_THRESHOLD: c_int = -3;
}

/// Sets the allocator up to give memory back: allocations of `MMAP_THRESHOLD` and more get their
/// own mapping (returned when freed; setting it turns off glibc's habit of raising the threshold
/// after each large free, which strands big buffers in the heap), and the heap top is trimmed past
/// twice that. Called once at daemon start.
pub fn configure_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tunables; called before the daemon's threads start.
    unsafe {
        glibc::mallopt(glibc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as _);
        glibc::mallopt(glibc::M_TRIM_THRESHOLD, (2 * MMAP_THRESHOLD) as _);
    }
}

/// Returns the allocator's free pages to the system (every arena, not only the heap top).
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim is thread-safe; it only releases memory that is already free.
    unsafe {
        glibc::malloc_trim(0);
    }
}

/// What `info` says about the allocator.
pub const ALLOCATOR: &str = if cfg!(all(target_os = "linux", target_env = "gnu")) {
    "glibc malloc (tree-sitter's parses: mimalloc); mmap threshold fixed at 256 KiB; malloc_trim(0) 200 ms after heavy work goes quiet"
} else {
    "system allocator"
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_budget_on_two_cores() {
        let p = Policy::for_machine(512 * MIB, 2);
        assert_eq!(p.heavy_slots, 2);
        assert_eq!(p.heavy_per_connection, 1);
        assert_eq!(p.request_heap_bytes, 128 * MIB);
        assert_eq!(p.search_threads, 2);
        assert_eq!(p.search_heap_limit_bytes, 60 * MIB);
        // Heavy requests at their limits fit in half the budget.
        assert!(p.heavy_slots as u64 * p.request_heap_bytes <= p.max_memory_bytes / 2);
    }

    #[test]
    fn small_budgets_still_allow_one_heavy_request() {
        let p = Policy::for_machine(MIN_MEMORY_BYTES, 16);
        assert_eq!(p.heavy_slots, 1);
        assert!(p.search_heap_limit_bytes > 0);
        let big = Policy::for_machine(8192 * MIB, 16);
        assert_eq!((big.heavy_slots, big.heavy_per_connection), (8, 4));
    }

    #[tokio::test]
    async fn connections_take_turns_for_the_slots() {
        let gate = Arc::new(Gate::new(&Policy::for_machine(64 * MIB, 2)));
        let flood = Gate::connection_turns(&Policy::for_machine(64 * MIB, 2));
        let other = Gate::connection_turns(&Policy::for_machine(64 * MIB, 2));
        let now = || std::future::ready(());
        let a = gate.enter(&flood, now()).await.unwrap();
        let b = gate.enter(&flood, now());
        // The flood's second request waits for its connection's turn; the other connection gets
        // the free slot.
        let c = tokio::time::timeout(Duration::from_millis(100), gate.enter(&other, now()))
            .await
            .expect("another connection is not starved")
            .unwrap();
        assert_eq!(gate.running(), 2);
        drop((a, c));
        assert!(b.await.is_some());
    }

    #[tokio::test]
    async fn a_backlog_holds_back_until_its_answers_are_written() {
        let backlog = Arc::new(Backlog::default());
        let limit = MIB;
        // One answer larger than the limit is charged whole: it goes through alone.
        let big = backlog.charge(3 * MIB);
        let small = backlog.charge(1024);
        assert_eq!(backlog.held(), 3 * MIB + 1024);
        let waiting = tokio::spawn({
            let backlog = backlog.clone();
            async move { backlog.room(limit).await }
        });
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert!(!waiting.is_finished(), "no room while 3 MiB are held");
        drop(big);
        tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("room once the big answer is written")
            .unwrap();
        drop(small);
        assert_eq!(backlog.held(), 0);
    }
}
