//! One server for one root, across its process's restarts: its state (not started, starting,
//! ready, crashed, failed), the documents it has open and at which version, the restart policy,
//! and the settling rule that decides when a document's diagnostics are current.
//!
//! Versions are daemon-owned: one counter for all documents, so every `didOpen`/`didChange`
//! carries a number higher than any before it, across restarts too.

use super::client::{Client, Findings};
use super::servers::ServerDef;
use super::uri;
use crate::config::LspConfig;
use crate::documents::Document;
use lsp_types::Diagnostic;
use serde::Serialize;
use serde_json::json;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

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

/// What settling found for one document on one server.
#[derive(Debug)]
pub enum Outcome {
    Current {
        items: Vec<Diagnostic>,
        before: Vec<Diagnostic>,
        /// A part of the answer `items` lack, and why.
        missing: Option<Missing>,
    },
    /// Not current by the deadline (or the server cannot answer): nothing is shown for it.
    Pending { state: Status, reason: String },
}

/// A part of a check server's answer that is not in it.
#[derive(Debug)]
pub struct Missing {
    pub part: Part,
    pub reason: String,
}

/// The two parts of a check server's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// What the server finds itself (rust-analyzer's native diagnostics, by pull).
    Own,
    /// What its check of saved files finds (rust-analyzer's `cargo check`).
    Check,
}

/// How a wait for a version's check run ended.
enum CheckWait {
    /// With the publish count at the run's begin: what was published after it is the run's.
    Ended { began_at_seq: u64 },
    /// The document changed meanwhile.
    Changed,
    /// The last run took this long, longer than the deadline leaves.
    CannotEnd(Duration),
    /// No run has begun since a save whose run had not begun by its deadline.
    NeverBegins,
    /// Whether the save's run had begun.
    Deadline { began: bool },
}

/// How a pull of the server's own findings ended.
enum Own {
    Items(Vec<Diagnostic>),
    Again,
    Answer(Outcome),
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
    pub fn new(def: Arc<ServerDef>, root: PathBuf, executable: PathBuf) -> Arc<Instance> {
        Arc::new(Instance {
            def,
            root,
            executable,
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
            let outcome = Client::start(
                self.def.clone(),
                &self.executable,
                &self.root,
                self.tick.clone(),
            )
            .await;
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

    /// Waits until the server's diagnostics for `path` are current (see the README's settling
    /// rule), or the deadline passes: warm when the server is ready, has settled once and reports
    /// no work in progress, cold otherwise, once per load.
    pub async fn settle(self: Arc<Self>, path: PathBuf, deadlines: Deadlines) -> Outcome {
        // Cold also while the server reports work in progress: rust-analyzer and tsserver are
        // "ready" long before they have loaded the project.
        let cold = {
            let inner = self.lock();
            let warm = inner.status == Status::Ready
                && inner.settled_once
                && inner.client.as_ref().is_some_and(|c| !c.activity().1);
            !warm && !inner.cold_spent
        };
        let deadline = Instant::now()
            + match cold {
                true => deadlines.cold,
                false => deadlines.warm,
            };
        let outcome = self.settle_by(&path, deadline, deadlines.quiet).await;
        // A check that answered alone says nothing of the server's own analysis.
        let analysed = match &outcome {
            Outcome::Current { missing, .. } => !matches!(missing, Some(m) if m.part == Part::Own),
            Outcome::Pending { state, .. } => *state == Status::Ready,
        };
        let mut inner = self.lock();
        inner.settled_once |= analysed;
        match outcome {
            Outcome::Current { .. } => inner.cold_spent = false,
            Outcome::Pending { .. } => inner.cold_spent |= cold,
        }
        drop(inner);
        outcome
    }

    async fn settle_by(&self, path: &Path, deadline: Instant, quiet: Duration) -> Outcome {
        let mut ticks = self.tick.subscribe();
        loop {
            let (status, client, target) = {
                let inner = self.lock();
                let target = inner
                    .docs
                    .get(path)
                    .map(|d| (d.version, d.sent_seq, d.opened));
                (inner.status, inner.client.clone(), target)
            };
            if status == Status::Failed {
                return self.pending(status);
            }
            let Some((version, sent_seq, true)) = target else {
                if wait(&mut ticks, deadline, None).await.is_err() {
                    return self.pending(status);
                }
                continue;
            };
            let Some(client) = client else {
                if wait(&mut ticks, deadline, None).await.is_err() {
                    return self.pending(status);
                }
                continue;
            };
            if client.offers_pull() {
                let own = self.pull_own(&client, path, version, &mut ticks, deadline);
                let first_analysis = !self.lock().settled_once;
                let own = match client.def.check_progress {
                    // The server's first analysis can take seconds longer than its check
                    // (rust-analyzer's resolves the standard library): once the check of this
                    // version has ended, the answer does not wait for it. Later ones are quick.
                    Some(_) if first_analysis => {
                        let mut check_ticks = self.tick.subscribe();
                        let check = self.wait_for_check(
                            &client,
                            path,
                            version,
                            &mut check_ticks,
                            deadline,
                            quiet,
                        );
                        tokio::select! {
                            own = own => own,
                            CheckWait::Ended { began_at_seq } = check => {
                                return self.check_alone(&client, path, began_at_seq);
                            }
                        }
                    }
                    _ => own.await,
                };
                match own {
                    Own::Items(items) => {
                        let before = client.pulled(path).map(|f| f.before).unwrap_or_default();
                        match self
                            .add_check(
                                &client, path, version, items, before, &mut ticks, deadline, quiet,
                            )
                            .await
                        {
                            Some(outcome) => return outcome,
                            None => continue, // Changed meanwhile: settle the newer version.
                        }
                    }
                    Own::Again => continue,
                    Own::Answer(outcome) => return outcome,
                }
            }
            match client.findings(path) {
                Some(found)
                    if is_about(&found, version, sent_seq) || self.same_text(path, &found) =>
                {
                    let (last_publish, busy) = client.activity();
                    // A final publish for this very version needs no quiet period after it.
                    let final_one = client.def.final_publish && found.version == Some(version);
                    let wait_quiet = if final_one { Duration::ZERO } else { quiet };
                    let quiet_at = last_publish.map_or(Instant::now(), |t| t + wait_quiet);
                    if !busy && Instant::now() >= quiet_at {
                        if self.version_of(path) != Some(version) {
                            continue;
                        }
                        return Outcome::Current {
                            items: found.items,
                            before: found.before,
                            missing: None,
                        };
                    }
                    let wake = if busy { None } else { Some(quiet_at) };
                    if wait(&mut ticks, deadline, wake).await.is_err() {
                        return self.pending(status);
                    }
                }
                _ => {
                    if wait(&mut ticks, deadline, None).await.is_err() {
                        return self.pending(status);
                    }
                }
            }
        }
    }

    /// Pulls the server's own findings for `version`: `Again` when the document changed
    /// meanwhile or the server asks to be asked again.
    async fn pull_own(
        &self,
        client: &Client,
        path: &Path,
        version: i32,
        ticks: &mut watch::Receiver<u64>,
        deadline: Instant,
    ) -> Own {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let refreshes = client.refreshes();
        let pulled = client.pull(path, version, remaining).await;
        tracing::debug!(
            server = %self.def.name,
            version,
            items = pulled.as_ref().and_then(|p| p.as_ref().ok()).map(Vec::len),
            busy = client.activity().1,
            "pulled"
        );
        match pulled {
            Some(Ok(items)) => {
                if self.version_of(path) != Some(version) {
                    return Own::Again; // Changed meanwhile: settle the newer version.
                }
                // An empty answer while the server is still loading may just mean "not analysed
                // yet" (rust-analyzer answers so for its first ~30 s): ask again after its
                // refresh or the end of its progress, never report it clean.
                if items.is_empty() && client.activity().1 {
                    loop {
                        if wait(ticks, deadline, None).await.is_err() {
                            return Own::Answer(Outcome::Pending {
                                state: Status::Starting,
                                reason: "the server was still loading the project at the deadline"
                                    .into(),
                            });
                        }
                        if !client.activity().1 || client.refreshes() != refreshes {
                            return Own::Again;
                        }
                    }
                }
                Own::Items(items)
            }
            Some(Err(super::transport::TransportError::Closed)) => {
                if wait(ticks, deadline, None).await.is_err() {
                    return Own::Answer(self.pending(self.status()));
                }
                Own::Again
            }
            // ContentModified / ServerCancelled (rust-analyzer, when a newer change arrives
            // mid-pull): ask again, for whatever version is current then.
            Some(Err(super::transport::TransportError::Rpc {
                code: -32801 | -32802,
                ..
            })) => {
                let soon = Instant::now() + Duration::from_millis(20);
                if wait(ticks, deadline, Some(soon)).await.is_err() {
                    return Own::Answer(self.pending(self.status()));
                }
                Own::Again
            }
            Some(Err(_)) => Own::Answer(self.pending(self.status())),
            None => Own::Again, // Pulls were unregistered meanwhile.
        }
    }

    /// Adds to a version's own findings those of the server's first check run that began after
    /// the version was saved to it (see `wait_for_check`). By the deadline, the own findings
    /// alone, with why the check is missing; at once so, when the last run took longer than the
    /// deadline leaves (a big workspace: every edit would otherwise wait the whole deadline for a
    /// run that cannot end in time). `None` when the document changed meanwhile.
    #[allow(clippy::too_many_arguments)]
    async fn add_check(
        &self,
        client: &Client,
        path: &Path,
        version: i32,
        mut items: Vec<Diagnostic>,
        mut before: Vec<Diagnostic>,
        ticks: &mut watch::Receiver<u64>,
        deadline: Instant,
        quiet: Duration,
    ) -> Option<Outcome> {
        let reason = match client.def.check_progress {
            None => None,
            Some(_) => match self
                .wait_for_check(client, path, version, ticks, deadline, quiet)
                .await
            {
                CheckWait::Ended { began_at_seq } => {
                    if let Some(found) = check_findings(client, path, began_at_seq) {
                        items.extend(found.items);
                        before.extend(found.before);
                    }
                    None
                }
                CheckWait::Changed => return None,
                CheckWait::CannotEnd(took) => Some(format!(
                    "not waited for: its last check took {:.1} s, longer than the deadline leaves",
                    took.as_secs_f64()
                )),
                CheckWait::NeverBegins => Some(
                    "not waited for: no check has begun since one that a save should have \
                    started had not begun by its deadline (are the server's checks on save off?)"
                        .into(),
                ),
                CheckWait::Deadline { began: true } => {
                    Some("the check the save started had not finished by the deadline".into())
                }
                CheckWait::Deadline { began: false } => {
                    // Idle, and still no run: the server does not check saves (while it loads,
                    // it may only be holding them back).
                    if !client.activity().1 {
                        self.lock().checks_silent_at = Some(client.checks().begun);
                    }
                    Some("no check had begun after the save by the deadline".into())
                }
            },
        };
        Some(Outcome::Current {
            items,
            before,
            missing: reason.map(|r| Missing {
                part: Part::Check,
                reason: format!(
                    "{r}; findings shown are the server's own (`diagnostics` on the file once \
                    the check has ended adds the check's)"
                ),
            }),
        })
    }

    /// The answer when the check of a version ended before the server's own analysis of it: the
    /// check's findings, the server's own listed as pending.
    fn check_alone(&self, client: &Client, path: &Path, began_at_seq: u64) -> Outcome {
        let found = check_findings(client, path, began_at_seq).unwrap_or_default();
        Outcome::Current {
            items: found.items,
            before: found.before,
            missing: Some(Missing {
                part: Part::Own,
                reason: "its own analysis was still running when its check of this version \
                    ended; findings shown are the check's"
                    .into(),
            }),
        }
    }

    /// Waits for the server's first check run that began after `version` was saved to it to
    /// end, and for its publishes to be quiet for `quiet`.
    async fn wait_for_check(
        &self,
        client: &Client,
        path: &Path,
        version: i32,
        ticks: &mut watch::Receiver<u64>,
        deadline: Instant,
        quiet: Duration,
    ) -> CheckWait {
        loop {
            let mark = self
                .lock()
                .docs
                .get(path)
                .map(|d| (d.version, d.check_mark));
            let Some((_, mark)) = mark.filter(|(v, _)| *v == version) else {
                return CheckWait::Changed;
            };
            let checks = client.checks();
            let silent = self.lock().checks_silent_at == Some(checks.begun);
            if silent && checks.begun <= mark {
                return CheckWait::NeverBegins;
            }
            if let Some(took) = checks.cannot_end_by(mark, deadline) {
                return CheckWait::CannotEnd(took);
            }
            // Quiet after the run's last publish and after its end (a cancelled run's end is
            // followed at once by the next run's begin).
            let last = client.activity().0.max(checks.ended_at);
            let quiet_at = last.map_or(Instant::now(), |t| t + quiet);
            let ended = checks.begun > mark && !checks.open;
            if ended && Instant::now() >= quiet_at {
                return CheckWait::Ended {
                    began_at_seq: checks.began_at_seq,
                };
            }
            if wait(ticks, deadline, ended.then_some(quiet_at))
                .await
                .is_err()
            {
                let began = client.checks().begun > mark;
                return CheckWait::Deadline { began };
            }
        }
    }

    fn pending(&self, state: Status) -> Outcome {
        let reason = match state {
            Status::Ready => "the server had not answered for this version by the deadline".into(),
            Status::Failed => self
                .lock()
                .last_error
                .clone()
                .unwrap_or_else(|| "failed".into()),
            other => format!("the server is {}", other.as_str().replace('_', " ")),
        };
        Outcome::Pending { state, reason }
    }

    /// Whether versioned findings are for an older version whose text is the current text.
    fn same_text(&self, path: &Path, found: &Findings) -> bool {
        let Some(version) = found.version else {
            return false;
        };
        self.lock()
            .docs
            .get(path)
            .is_some_and(|d| d.same_text_as(version))
    }

    fn version_of(&self, path: &Path) -> Option<i32> {
        self.lock().docs.get(path).map(|d| d.version)
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

/// Whether findings describe `version`: stamped with it (or later), or, from a server that sends
/// no version, published after the change was sent.
fn is_about(found: &Findings, version: i32, sent_seq: u64) -> bool {
    match found.version {
        Some(v) => v >= version,
        None => found.seq > sent_seq,
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

/// What the server published about a document after a check run began (publish count
/// `began_at_seq`): that run's findings; anything older is dropped.
fn check_findings(client: &Client, path: &Path, began_at_seq: u64) -> Option<Findings> {
    client.findings(path).filter(|f| f.seq > began_at_seq)
}
