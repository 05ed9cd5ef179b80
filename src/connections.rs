//! The daemon's connections: how many it keeps, and which one gives way when a new client comes.
//!
//! Each connection costs a file descriptor and `CONNECTION_BYTES`. The daemon keeps at most
//! `max_connections` (by default the descriptor limit, `RLIMIT_NOFILE`, less `FD_RESERVE` for the
//! files, pipes and children requests need, and at most what an eighth of `max_memory_bytes`
//! holds), so clients alone can exhaust neither the descriptors a request needs nor the memory.
//! When a client arrives at the cap, the connection that is doing the least gives way: the one
//! idle longest (no request running, no frame half-read), else the one whose half-written frame
//! is oldest. A connection with a request running is never closed for another; only when every
//! connection has one is the newcomer answered C213 and closed. So `info` and `shutdown` always
//! get through unless `max_connections` clients are all being served at that moment.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::Notify;

/// Descriptors kept for the daemon's own work: files a request opens, pipes and children of
/// `exec`, `git` and language servers, the watchers, the log.
pub const FD_RESERVE: usize = 64;

/// What the registry knows of one connection.
pub struct Conn {
    id: u64,
    /// Requests read and not yet answered.
    in_flight: AtomicUsize,
    /// Milliseconds since the registry began: last frame read or answer sent.
    last_active: AtomicU64,
    /// When the frame being read began (same clock), 0 when none is.
    frame_since: AtomicU64,
    /// Chosen to give way; set once.
    closing: AtomicBool,
    /// Wakes the connection's reader to close.
    close: Notify,
    registry: Arc<Inner>,
}

#[derive(Default)]
pub struct Connections {
    inner: Arc<Inner>,
}

struct Inner {
    open: Mutex<HashMap<u64, Arc<Conn>>>,
    next_id: AtomicU64,
    epoch: Instant,
    /// When the last connection closed (same clock), 0 before any did.
    last_left: AtomicU64,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            open: Default::default(),
            next_id: AtomicU64::new(1),
            epoch: Instant::now(),
            last_left: AtomicU64::new(0),
        }
    }
}

impl Inner {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }
}

/// A connection's place in the registry; leaving it (drop) frees the place.
pub struct Handle(Arc<Conn>);

impl Connections {
    /// A place for a new connection under `cap`, making one by closing the connection that does
    /// least (see the module doc); `None` when every connection is serving a request.
    pub fn admit(&self, cap: usize) -> Option<Handle> {
        let mut open = self.inner.open.lock().unwrap_or_else(|e| e.into_inner());
        if staying(&open) >= cap.max(1) {
            let victim = open
                .values()
                .filter(|c| !c.closing.load(Ordering::SeqCst) && c.in_flight() == 0)
                .min_by_key(|c| c.yield_order())?;
            victim.closing.store(true, Ordering::SeqCst);
            victim.close.notify_one();
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        let conn = Arc::new(Conn {
            id,
            in_flight: AtomicUsize::new(0),
            last_active: AtomicU64::new(self.inner.now()),
            frame_since: AtomicU64::new(0),
            closing: AtomicBool::new(false),
            close: Notify::new(),
            registry: self.inner.clone(),
        });
        open.insert(id, conn.clone());
        Some(Handle(conn))
    }

    /// Open connections, not counting those closing to make room.
    pub fn count(&self) -> usize {
        staying(&self.inner.open.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// How long no connection has been open (since the last one closed, or since the start);
    /// `None` while one is. Clients that connect for each call (`coder`, an editor's face, which
    /// renews its buffers every second) keep this short though none stays connected.
    pub fn idle_for(&self) -> Option<std::time::Duration> {
        let open = self.inner.open.lock().unwrap_or_else(|e| e.into_inner());
        if !open.is_empty() {
            return None;
        }
        let since = self.inner.last_left.load(Ordering::SeqCst);
        Some(std::time::Duration::from_millis(self.inner.now() - since))
    }
}

fn staying(open: &HashMap<u64, Arc<Conn>>) -> usize {
    open.values()
        .filter(|c| !c.closing.load(Ordering::SeqCst))
        .count()
}

impl Conn {
    fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// Idle ones first (longest idle first), then half-read frames (oldest first).
    fn yield_order(&self) -> (bool, u64) {
        match self.frame_since.load(Ordering::SeqCst) {
            0 => (false, self.last_active.load(Ordering::SeqCst)),
            since => (true, since),
        }
    }
}

impl Handle {
    /// The connection's number, for log lines.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// A frame began arriving.
    pub fn frame_started(&self) {
        let now = self.0.registry.now();
        self.0.frame_since.store(now, Ordering::SeqCst);
    }

    /// A frame was read whole (or dropped); it is a request in flight until `answered`.
    pub fn frame_read(&self, request: bool) {
        self.0.frame_since.store(0, Ordering::SeqCst);
        if request {
            self.0.in_flight.fetch_add(1, Ordering::SeqCst);
        }
        self.touch();
    }

    pub fn answered(&self) {
        // The idle time restarts before the connection counts as idle: a reader that saw no
        // request in flight must also see this answer's time, or it closes the connection at once.
        self.touch();
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    /// No request running: closing the connection loses nothing.
    pub fn is_idle(&self) -> bool {
        self.0.in_flight() == 0
    }

    /// Chosen to give way but busy again by the time it heard: it counts as staying.
    pub fn stays(&self) {
        self.0.closing.store(false, Ordering::SeqCst);
    }

    /// When the connection will have been idle `idle` long, counting from its last frame or
    /// answer.
    pub fn idle_deadline(&self, idle: std::time::Duration) -> Instant {
        let last = self.0.last_active.load(Ordering::SeqCst);
        self.0.registry.epoch + std::time::Duration::from_millis(last) + idle
    }

    /// Resolves when the connection was chosen to give way to a new one.
    pub async fn told_to_close(&self) {
        self.0.close.notified().await
    }

    fn touch(&self) {
        let now = self.0.registry.now();
        self.0.last_active.store(now, Ordering::SeqCst);
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let mut open = self
            .0
            .registry
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        open.remove(&self.0.id);
        let now = self.0.registry.now();
        self.0.registry.last_left.store(now, Ordering::SeqCst);
    }
}

/// What one connection costs in memory without budget: its read buffer and the part of a frame
/// it may hold unbudgeted (`server`), 64 KiB each.
pub const CONNECTION_BYTES: u64 = 128 * 1024;

/// The cap in force: the configured one, else the descriptor limit less the reserve, and no more
/// connections than an eighth of `max_memory_bytes` holds. Read at each new connection, so a
/// limit changed while the daemon runs (`prlimit`) counts at once.
pub fn cap(configured: Option<usize>, max_memory_bytes: u64) -> usize {
    configured.unwrap_or_else(|| {
        let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(u64::MAX);
        let by_memory = max_memory_bytes / 8 / CONNECTION_BYTES;
        let cap = soft.saturating_sub(FD_RESERVE as u64).min(by_memory).max(1);
        usize::try_from(cap).unwrap_or(usize::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_time_counts_from_the_last_connection_that_closed() {
        let c = Connections::default();
        assert!(c.idle_for().is_some(), "idle since the start");
        let first = c.admit(4).unwrap();
        assert_eq!(c.idle_for(), None);
        std::thread::sleep(std::time::Duration::from_millis(30));
        drop(first);
        let idle = c.idle_for().unwrap();
        assert!(idle < std::time::Duration::from_millis(30), "{idle:?}");
    }

    #[test]
    fn the_longest_idle_gives_way_and_busy_ones_never_do() {
        let connections = Connections::default();
        let a = connections.admit(2).unwrap();
        let b = connections.admit(2).unwrap();
        b.frame_read(true); // b serves a request
        let c = connections.admit(2).expect("a gives way");
        assert!(a.0.closing.load(Ordering::SeqCst));
        assert!(!b.0.closing.load(Ordering::SeqCst));
        drop(a);
        c.frame_read(true);
        assert!(connections.admit(2).is_none(), "every connection is busy");
        c.answered();
        c.frame_started(); // a half-read frame gives way when nothing is idle
        assert!(connections.admit(2).is_some());
        assert!(c.0.closing.load(Ordering::SeqCst));
    }
}
