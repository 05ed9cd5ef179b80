//! Answers on their way out to one client: the connection's writer task, and what its unsent
//! answers cost. Every line queued for the client is charged to the connection's backlog and to
//! the daemon's (`memory::Backlog`) until it is written or dropped; the server holds back the
//! connection's reading and its next requests while its backlog is over budget.
//!
//! A client that takes nothing of an answer for `write_timeout_secs` is disconnected, with a log
//! line naming the connection: its queued answers are dropped (their charges given back) and the
//! reader of the connection stops (`closed`), so the socket closes.

use coderd_core::memory::{Backlog, Charge};
use coderd_core::outgoing::Outgoing;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Lines queued for the writer before a sender waits (answers are charged while they wait too).
const QUEUE: usize = 64;

/// One line for the client, and its bytes charged to both backlogs.
pub struct Charged {
    line: Outgoing,
    _charges: (Charge, Charge),
}

/// The sending side of one connection's writer; clones share it.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Charged>,
    /// This connection's answers not yet written.
    mine: Arc<Backlog>,
    /// Every connection's (`State::answers`).
    daemon: Arc<Backlog>,
}

/// Who the writer writes to, for the log line of a stalled client.
pub struct Peer {
    /// The connection's number in the registry (`connections`).
    pub connection: u64,
    /// The client's process, when the socket tells it (`SO_PEERCRED`).
    pub pid: Option<i32>,
}

impl Outbox {
    /// Starts the writer of `writer`; it ends when every `Outbox` clone is dropped and the queue
    /// is written, when the client goes away, or when it takes nothing for `stall`.
    pub fn open(
        writer: OwnedWriteHalf,
        daemon: Arc<Backlog>,
        stall: Duration,
        peer: Peer,
    ) -> (Outbox, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let mine = Arc::new(Backlog::default());
        let task = tokio::spawn(write_queue(writer, rx, stall, peer, mine.clone()));
        (Outbox { tx, mine, daemon }, task)
    }

    /// Queues a line, charged until written; waits while the queue is full. A line for a
    /// connection whose writer has ended is dropped.
    pub async fn send(&self, line: Outgoing) {
        self.queue(self.charge(line)).await
    }

    /// Queues a line charged earlier (`charge`); waits while the queue is full.
    pub async fn queue(&self, line: Charged) {
        let _ = self.tx.send(line).await;
    }

    /// Queues a line if there is room now (progress notifications: a client that does not read
    /// misses them); false if it was dropped.
    pub fn try_send(&self, line: Outgoing) -> bool {
        self.tx.try_send(self.charge(line)).is_ok()
    }

    /// Charges a line to both backlogs now, before it is queued: a heavy request's answer is
    /// counted before its connection's next heavy request may look at the backlog.
    pub fn charge(&self, line: Outgoing) -> Charged {
        let bytes = line.pieces().iter().map(|p| p.len() as u64).sum();
        Charged {
            line,
            _charges: (self.mine.charge(bytes), self.daemon.charge(bytes)),
        }
    }

    /// Returns once this connection's unsent answers are under `limit` bytes.
    pub async fn room(&self, limit: u64) {
        self.mine.room(limit).await
    }

    /// Bytes of this connection's lines not yet written.
    pub fn unsent(&self) -> u64 {
        self.mine.held()
    }

    /// Resolves when the writer has ended (the client went away or was disconnected).
    pub async fn closed(&self) {
        self.tx.closed().await
    }

    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

async fn write_queue(
    mut writer: OwnedWriteHalf,
    mut rx: mpsc::Receiver<Charged>,
    stall: Duration,
    peer: Peer,
    mine: Arc<Backlog>,
) {
    while let Some(queued) = rx.recv().await {
        let bytes = queued.line.pieces().iter().map(|p| p.len() as u64).sum();
        coderd_core::metrics::record(coderd_core::metrics::Event::BytesOut(bytes));
        match write_line(&mut writer, &queued.line, stall).await {
            Written::All => {}
            Written::Gone => break, // the client went away; its remaining answers are dropped
            Written::Stalled => {
                tracing::warn!(
                    connection = peer.connection,
                    pid = peer.pid,
                    "client took nothing for {} s with {} bytes of answers waiting \
                     (write_timeout_secs); connection closed, its answers dropped",
                    stall.as_secs(),
                    mine.held()
                );
                // The client reads end of file at once, whatever the reader is doing.
                let _ = writer.shutdown().await;
                break;
            }
        }
    }
}

enum Written {
    All,
    Gone,
    Stalled,
}

/// Writes one line; each write must take some bytes within `stall`, so a slow reader is fine and
/// one that reads nothing is not.
async fn write_line(writer: &mut OwnedWriteHalf, line: &Outgoing, stall: Duration) -> Written {
    for piece in line.pieces() {
        let mut rest = piece;
        while !rest.is_empty() {
            match tokio::time::timeout(stall, writer.write(rest)).await {
                Ok(Ok(0) | Err(_)) => return Written::Gone,
                Ok(Ok(n)) => rest = &rest[n..],
                Err(_) => return Written::Stalled,
            }
        }
    }
    Written::All
}
