//! One server for one root, across its process's restarts: its state (not started, starting,
//! ready, crashed, failed), the documents it has open and at which version, the restart policy,
//! and the settling rule that decides when a document's diagnostics are current.
//!
//! Versions are daemon-owned: one counter for all documents, so every `didOpen`/`didChange`
//! carries a number higher than any before it, across restarts too.

use super::client::Client;
use super::confine::Confine;
use super::servers::ServerDef;
use super::uri;
use coderd_core::config::LspConfig;
use coderd_core::documents::Document;
use serde::Serialize;
use serde_json::json;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

mod settle;

pub use settle::{Missing, Outcome, Part};

static NEXT_VERSION: AtomicI32 = AtomicI32::new(1);

/// Restarts allowed within `CRASH_WINDOW` before the server is marked failed.
const MAX_CRASHES: usize = 5;
const CRASH_WINDOW: Duration = Duration::from_secs(180);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    NotStarted,
    Starting,
    Ready,
    Crashed,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::NotStarted => "not_started",
            Status::Starting => "starting",
            Status::Ready => "ready",
            Status::Crashed => "crashed",
            Status::Failed => "failed",
        }
    }
}

/// A document the server has open (or will be given once it is ready).
struct OpenDoc {
    document: Arc<Document>,
    language_id: String,
    version: i32,
    /// The client's publish counter when this version was sent: a publish without a version
    /// after it is about this version.
    sent_seq: u64,
    /// Whether the current process has it open (false until replayed after a (re)start).
    opened: bool,
    /// The client's count of check runs begun when this version was saved to the server: the
    /// next run to begin checks it (see `ServerDef::check_progress`).
    check_mark: u64,
    /// The content hash of recent versions: findings for an older version of the same text are
    /// findings for this one (clangd does not publish again when nothing changed).
    history: VecDeque<(i32, [u8; 32])>,
    /// The version the server's latest findings are stamped with, and that version's text, kept
    /// after it leaves `history`: clangd publishes nothing when a burst ends on the text it last
    /// built, so its findings can stay stamped with a version far older than `HISTORY`.
    pinned: Option<(i32, [u8; 32])>,
}

/// Versions remembered per document for `history`.
const HISTORY: usize = 32;

impl OpenDoc {
    fn new_version(&mut self) {
        self.version = NEXT_VERSION.fetch_add(1, Ordering::Relaxed);
        self.history
            .push_back((self.version, self.document.stamp.hash));
        if self.history.len() > HISTORY {
            self.history.pop_front();
        }
    }

    /// Whether findings stamped `found` describe the current text.
    fn same_text_as(&self, found: i32) -> bool {
        let current = self.document.stamp.hash;
        self.history
            .iter()
            .chain(&self.pinned)
            .any(|(version, sha)| *version == found && *sha == current)
    }

    /// Remembers the text of the version the server's latest findings are for, while `history`
    /// still knows it.
    fn pin(&mut self, found: Option<i32>) {
        let Some(found) = found else { return };
        if self.pinned.is_some_and(|(v, _)| v == found) {
            return;
        }
        if let Some(entry) = self.history.iter().find(|(v, _)| *v == found) {
            self.pinned = Some(*entry);
        }
    }
}

struct Inner {
    status: Status,
    client: Option<Arc<Client>>,
    docs: BTreeMap<PathBuf, OpenDoc>,
    crashes: VecDeque<Instant>,
    last_error: Option<String>,
    last_used: Instant,
    /// Whether a settle on the running process has ended, current or by its deadline. Until one
    /// has, the server is cold whatever it reports: rust-analyzer says it is quiescent seconds
    /// before its first analysis of a project is done (an edit made while a read's warm-up
    /// waits for that analysis gets the cold deadline too).
    settled_once: bool,
    /// Whether a settle has run out the cold deadline on this process since the server last
    /// answered one in time. Later settles then wait only the warm deadline: rust-analyzer loads
    /// a big workspace for 30 s and more, and each edit meanwhile would otherwise be held for
    /// the whole cold deadline to end `pending` all the same.
    cold_spent: bool,
    /// The count of check runs begun when a save's run had not begun by its deadline, with the
    /// server idle: while no run begins after it, saves are not waited for (a server given
    /// `check_progress` whose checks are off would hold every edit to the deadline).
    checks_silent_at: Option<u64>,
}

pub struct Instance {
    pub def: Arc<ServerDef>,
    pub root: PathBuf,
    executable: PathBuf,
    /// What the server runs confined by (`None`: the daemon set up none, and it does not start).
    confine: Option<Arc<Confine>>,
    inner: Mutex<Inner>,
    /// Bumped on every change a waiter may care about (findings, progress, state).
    tick: watch::Sender<u64>,
}

/// How long settling waits: the deadlines and the quiet period of the config's `lsp` section.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    warm: Duration,
    cold: Duration,
    quiet: Duration,
}

impl Deadlines {
    pub fn of(config: &LspConfig) -> Deadlines {
        Deadlines {
            warm: Duration::from_millis(config.warm_deadline_ms),
            cold: Duration::from_millis(config.cold_deadline_ms),
            quiet: Duration::from_millis(config.settle_ms),
        }
    }
}

/// What `info` shows of an instance.
#[derive(Serialize)]
pub struct InstanceInfo {
    pub root: PathBuf,
    pub state: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uptime_ms: Option<u64>,
    pub open_documents: usize,
    pub restarts_recent: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub idle_ms: u64,
}

impl Instance {
    pub fn new(
        def: Arc<ServerDef>,
        root: PathBuf,
        executable: PathBuf,
        confine: Option<Arc<Confine>>,
    ) -> Arc<Instance> {
        Arc::new(Instance {
            def,
            root,
            executable,
            confine,
            inner: Mutex::new(Inner {
                status: Status::NotStarted,
                client: None,
                docs: BTreeMap::new(),
                crashes: VecDeque::new(),
                last_error: None,
                last_used: Instant::now(),
                settled_once: false,
                cold_spent: false,
                checks_silent_at: None,
            }),
            tick: watch::channel(0).0,
        })
    }

    pub fn status(&self) -> Status {
        self.lock().status
    }

    pub fn client(&self) -> Option<Arc<Client>> {
        self.lock().client.clone()
    }

    pub fn last_used(&self) -> Instant {
        self.lock().last_used
    }

    /// Starts the server process unless it is running, starting, or has failed.
    pub fn ensure_started(self: &Arc<Self>) {
        let mut inner = self.lock();
        inner.last_used = Instant::now();
        if inner.status != Status::NotStarted {
            return;
        }
        inner.status = Status::Starting;
        drop(inner);
        tokio::spawn(self.clone().run());
    }

    /// Starts the process, keeps it, and restarts it after a crash with 1/2/4 s backoff, until
    /// it is stopped on purpose or fails `MAX_CRASHES` times within `CRASH_WINDOW`.
    async fn run(self: Arc<Self>) {
        loop {
            let outcome = match &self.confine {
                Some(confine) => {
                    let (def, tick) = (self.def.clone(), self.tick.clone());
                    Client::start(def, &self.executable, &self.root, confine, tick).await
                }
                None => Err("no sandbox is set up for language servers".into()),
            };
            let reason = match outcome {
                Ok((client, exited)) => {
                    if !self.became_ready(&client) {
                        client.stop().await;
                        return;
                    }
                    let reason = exited.await.unwrap_or_else(|_| "lost".into());
                    let tail = client.stderr_tail();
                    let still_ours = self
                        .lock()
                        .client
                        .as_ref()
                        .is_some_and(|c| Arc::ptr_eq(c, &client));
                    if !still_ours {
                        return; // Stopped on purpose.
                    }
                    match tail.is_empty() {
                        true => reason,
                        false => format!("{reason}; stderr: {tail}"),
                    }
                }
                Err(reason) => reason,
            };
            let Some(backoff) = self.crashed(reason) else {
                return;
            };
            tokio::time::sleep(backoff).await;
            let mut inner = self.lock();
            if inner.status != Status::Crashed {
                return;
            }
            inner.status = Status::Starting;
            drop(inner);
            self.changed();
        }
    }

    /// Installs a freshly initialized client and replays the open documents into it. False when
    /// the instance was stopped while the process started.
    fn became_ready(&self, client: &Arc<Client>) -> bool {
        let mut inner = self.lock();
        if inner.status != Status::Starting {
            return false;
        }
        inner.status = Status::Ready;
        inner.client = Some(client.clone());
        inner.settled_once = false;
        inner.cold_spent = false;
        inner.checks_silent_at = None;
        for (path, doc) in inner.docs.iter_mut() {
            did_open(client, path, doc);
        }
        drop(inner);
        self.changed();
        true
    }

    /// Records a crash: its diagnostics are gone with the process. Returns the backoff before the
    /// next start, or `None` when the server is now `failed`.
    fn crashed(&self, reason: String) -> Option<Duration> {
        tracing::warn!(server = self.def.name, root = %self.root.display(), "language server {reason}");
        let mut inner = self.lock();
        inner.client = None;
        for doc in inner.docs.values_mut() {
            doc.opened = false;
        }
        let now = Instant::now();
        inner.crashes.push_back(now);
        while inner
            .crashes
            .front()
            .is_some_and(|t| now.duration_since(*t) > CRASH_WINDOW)
        {
            inner.crashes.pop_front();
        }
        let n = inner.crashes.len();
        inner.last_error = Some(reason);
        inner.status = match n >= MAX_CRASHES {
            true => Status::Failed,
            false => Status::Crashed,
        };
        let failed = inner.status == Status::Failed;
        drop(inner);
        if !failed {
            coderd_core::metrics::record(coderd_core::metrics::Event::ServerRestart);
        }
        self.changed();
        (!failed).then(|| Duration::from_secs(1 << (n - 1).min(2)))
    }

    /// Stops the process (`shutdown`, `exit`, kill) and forgets its documents; the next file of
    /// its language starts it again.
    pub async fn stop(&self) {
        let client = {
            let mut inner = self.lock();
            inner.docs.clear();
            if inner.status != Status::Failed {
                inner.status = Status::NotStarted;
            }
            inner.client.take()
        };
        self.changed();
        if let Some(client) = client {
            client.stop().await;
        }
    }

    /// Brings the server's copy of a document up to date: `didOpen` the first time, then a
    /// full-text `didChange` and a `didSave` when its content differs. Returns the version.
    pub fn sync(&self, document: &Arc<Document>, language_id: &str) -> i32 {
        let mut inner = self.lock();
        inner.last_used = Instant::now();
        let client = inner.client.clone();
        let path = document.path.clone();
        if let Some(doc) = inner.docs.get_mut(&path) {
            if doc.document.stamp.hash == document.stamp.hash {
                return doc.version;
            }
            doc.pin(
                client
                    .as_ref()
                    .and_then(|c| c.findings(&path))
                    .and_then(|f| f.version),
            );
            doc.document = document.clone();
            doc.new_version();
            if let Some(client) = client.as_ref().filter(|_| doc.opened) {
                did_change(client, &path, doc);
            } else if let Some(client) = &client {
                did_open(client, &path, doc);
            }
            let version = doc.version;
            drop(inner);
            // Waiters for an older version now wait for this one.
            self.changed();
            return version;
        }
        let mut doc = OpenDoc {
            document: document.clone(),
            language_id: language_id.to_string(),
            version: 0,
            sent_seq: 0,
            opened: false,
            check_mark: 0,
            history: VecDeque::new(),
            pinned: None,
        };
        doc.new_version();
        if let Some(client) = &client {
            did_open(client, &path, &mut doc);
        }
        let version = doc.version;
        inner.docs.insert(path, doc);
        version
    }

    /// Closes a document (deleted, moved away).
    pub fn close(&self, path: &Path) {
        let mut inner = self.lock();
        let Some(doc) = inner.docs.remove(path) else {
            return;
        };
        if let (Some(client), true) = (&inner.client, doc.opened) {
            client.notify(
                "textDocument/didClose",
                json!({ "textDocument": { "uri": uri::from_path(path) } }),
            );
        }
    }

    pub fn has_open(&self, path: &Path) -> bool {
        self.lock().docs.contains_key(path)
    }

    /// The paths of the open documents.
    pub fn open_paths(&self) -> Vec<PathBuf> {
        self.lock().docs.keys().cloned().collect()
    }

    pub fn info(&self) -> InstanceInfo {
        let inner = self.lock();
        let client = inner.client.as_ref();
        InstanceInfo {
            root: self.root.clone(),
            state: inner.status,
            pid: client.map(|c| c.pid),
            rss_bytes: client.and_then(|c| c.rss_bytes()),
            uptime_ms: client.map(|c| c.started.elapsed().as_millis() as u64),
            open_documents: inner.docs.len(),
            restarts_recent: inner.crashes.len(),
            last_error: inner.last_error.clone(),
            idle_ms: inner.last_used.elapsed().as_millis() as u64,
        }
    }

    fn changed(&self) {
        self.tick.send_modify(|n| *n += 1);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Waits for a tick, or until `wake`, or fails at the deadline.
async fn wait(
    ticks: &mut watch::Receiver<u64>,
    deadline: Instant,
    wake: Option<Instant>,
) -> Result<(), ()> {
    let until = wake.map_or(deadline, |w| w.min(deadline));
    let timed_out = tokio::time::timeout_at(until.into(), ticks.changed())
        .await
        .is_err();
    if timed_out && until >= deadline {
        return Err(());
    }
    Ok(())
}

fn did_open(client: &Client, path: &Path, doc: &mut OpenDoc) {
    doc.sent_seq = client.publish_seq();
    client.sent(&uri::from_path(path));
    doc.check_mark = client.checks().begun;
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": {
            "uri": uri::from_path(path),
            "languageId": doc.language_id,
            "version": doc.version,
            "text": text_of(&doc.document),
        }}),
    );
    doc.opened = true;
    // A server that checks saved files checks on `didSave` only: the file on disk is this text.
    if client.def.check_progress.is_some() {
        client.notify(
            "textDocument/didSave",
            json!({ "textDocument": { "uri": uri::from_path(path) } }),
        );
    }
}

fn did_change(client: &Client, path: &Path, doc: &mut OpenDoc) {
    doc.sent_seq = client.publish_seq();
    doc.check_mark = client.checks().begun;
    let uri = uri::from_path(path);
    client.sent(&uri);
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": doc.version },
            "contentChanges": [{ "text": text_of(&doc.document) }],
        }),
    );
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri } }),
    );
}

fn text_of(document: &Document) -> String {
    String::from_utf8_lossy(&document.bytes()).into_owned()
}
