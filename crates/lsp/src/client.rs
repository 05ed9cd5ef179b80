//! One running language-server process: spawning it, the `initialize` handshake, answering its
//! requests (`workspace/configuration`, capability registration, progress creation, diagnostic
//! refresh), and recording what it reports: published and pulled diagnostics per document,
//! open work-done progress, refreshes. Whoever waits on that record is woken through the
//! instance's `tick` (see `instance`); the client knows nothing about edits or settling.

use super::confine::Confine;
use super::servers::ServerDef;
use super::transport::{Incoming, Reply, Transport, TransportError};
use super::uri;
use lsp_types::{Diagnostic, ProgressParams, ProgressParamsValue, PublishDiagnosticsParams};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot, watch};

/// How long `initialize` may take (a cold pyright or rust-analyzer is slow; a hung one is not).
const INITIALIZE_TIMEOUT: Duration = Duration::from_secs(45);
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);
/// Lines of the server's stderr kept for `info`'s last error.
const STDERR_TAIL: usize = 8;

/// One document's latest diagnostics from this server.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// The document version they are for (`None`: the server did not say).
    pub version: Option<i32>,
    /// The client's publish counter when they arrived (orders them against sent changes).
    pub seq: u64,
    pub items: Vec<Diagnostic>,
    /// The findings for the version before (what `new` compares against).
    pub before: Vec<Diagnostic>,
}

impl Record {
    /// How to pull: the static offer, else any live registration.
    fn pull_identifier(&self) -> Option<Option<String>> {
        self.pull
            .clone()
            .or_else(|| self.pull_registrations.values().next().cloned())
    }
}

/// The state of a server's check runs (`cargo check` inside rust-analyzer).
#[derive(Clone, Copy, Debug, Default)]
pub struct Checks {
    pub begun: u64,
    pub open: bool,
    /// `publish_seq` when the latest run began: what it publishes comes after.
    pub began_at_seq: u64,
    /// When the latest run ended. A run cancelled by a newer save ends just before the next
    /// begins, so an end counts only once no begin has followed it for the quiet period.
    pub ended_at: Option<Instant>,
    /// When the latest run began, and how long the last one to end took (what the next will
    /// likely take: a workspace too big to check within the deadline is not waited for).
    pub began_at: Option<Instant>,
    pub last_took: Option<Duration>,
}

impl Checks {
    /// How long the last run took, when the run that checks a save made at `mark` (begun or
    /// still to begin) would by that measure end after `deadline`.
    pub fn cannot_end_by(&self, mark: u64, deadline: Instant) -> Option<Duration> {
        let took = self.last_took?;
        let started = match self.begun > mark {
            true if !self.open => return None, // It has ended.
            true => self.began_at.unwrap_or_else(Instant::now),
            false => Instant::now(),
        };
        (started + took > deadline).then_some(took)
    }
}

#[derive(Default)]
struct Record {
    /// Pull diagnostics offered in the server's capabilities: `Some(identifier)`.
    pull: Option<Option<String>>,
    /// Pull diagnostics registered dynamically, by registration id (pyright registers several
    /// and unregisters all but one).
    pull_registrations: HashMap<String, Option<String>>,
    /// Published findings per document URI.
    findings: HashMap<String, Findings>,
    /// Pulled findings per document URI, apart from the published ones: a server that answers
    /// pulls can publish other findings too (rust-analyzer's `cargo check`).
    pulled: HashMap<String, Findings>,
    publish_seq: u64,
    /// `publish_seq` when a new text of each document was last sent (`sent`): a set without a
    /// version is about that text when it came after it.
    sent: HashMap<String, u64>,
    /// The server's check runs (see `ServerDef::check_progress`): how many have begun, whether
    /// the latest is still open, and the publish counter at its begin.
    checks: Checks,
    last_publish: Option<Instant>,
    /// Open work-done progress, the check runs' excepted.
    progress: HashSet<String>,
    /// Still loading its workspace, by the server's own `experimental/serverStatus`
    /// (`quiescent: false`); see `ServerDef::quiescent_status`.
    loading: bool,
    /// The `capabilities` the server declared in its `initialize` answer.
    capabilities: Value,
    refreshes: u64,
    stderr: VecDeque<String>,
}

pub struct Client {
    pub def: Arc<ServerDef>,
    pub pid: u32,
    pub started: Instant,
    transport: Transport,
    record: Mutex<Record>,
    tick: watch::Sender<u64>,
    exited: AtomicBool,
    /// Its sandbox's private temp folder (and Landlock ruleset), gone with the client.
    _sandbox: coderd_exec::sandbox::Helper,
}

#[derive(Deserialize)]
struct PullReport {
    #[serde(default)]
    items: Vec<Diagnostic>,
}

impl Client {
    /// Starts the server in `root`, completes `initialize`, and returns it with a receiver that
    /// fires (with the reason) when the process exits.
    pub async fn start(
        def: Arc<ServerDef>,
        executable: &Path,
        root: &Path,
        confine: &Confine,
        tick: watch::Sender<u64>,
    ) -> Result<(Arc<Client>, oneshot::Receiver<String>), String> {
        let def = super::confine::effective(&def, executable)?;
        let confined = super::confine::command(confine, &def, executable, root)?;
        let in_namespaces = confined.in_namespaces();
        let mut child = super::spawn::spawn(confined.command)
            .await
            .map_err(|e| format!("starting {}: {e}", executable.display()))?;
        drop(confined.places_fd);
        let pid = child.id().unwrap_or(0);
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let (incoming_tx, incoming) = mpsc::unbounded_channel();
        let loading = def.quiescent_status;
        let client = Arc::new(Client {
            def,
            pid,
            started: Instant::now(),
            transport: Transport::start(BufReader::new(stdout), stdin, incoming_tx),
            record: Mutex::new(Record {
                loading,
                ..Record::default()
            }),
            tick,
            exited: AtomicBool::new(false),
            _sandbox: confined.helper,
        });
        tokio::spawn(keep_stderr(Arc::downgrade(&client), stderr));
        tokio::spawn(serve_incoming(Arc::downgrade(&client), incoming));
        let (exit_tx, exit_rx) = oneshot::channel();
        let watched = Arc::downgrade(&client);
        tokio::spawn(async move {
            let status = child.wait().await;
            let reason = match status {
                Ok(s) => format!("exited ({s})"),
                Err(e) => format!("lost ({e})"),
            };
            if let Some(client) = watched.upgrade() {
                client.exited.store(true, Ordering::SeqCst);
            }
            let _ = exit_tx.send(reason);
        });
        client
            .initialize(root, in_namespaces)
            .await
            .inspect_err(|_| client.kill())?;
        Ok((client, exit_rx))
    }

    async fn initialize(&self, root: &Path, in_namespaces: bool) -> Result<(), String> {
        let mut params = initialize_params(&self.def, root);
        if in_namespaces {
            // The daemon's pid does not exist in the server's PID namespace (a server exits when
            // that pid is gone); it dies with the daemon through the wrapper instead.
            params["processId"] = Value::Null;
        }
        let result = self
            .transport
            .request("initialize", params, INITIALIZE_TIMEOUT)
            .await
            .map_err(|e| format!("initialize: {e}{}", self.stderr_suffix()))?;
        self.lock().capabilities = result["capabilities"].clone();
        let provider = &result["capabilities"]["diagnosticProvider"];
        if !provider.is_null() {
            let identifier = provider["identifier"].as_str().map(str::to_string);
            self.lock().pull = Some(identifier);
        }
        self.transport.notify("initialized", json!({}));
        let settings = self.def.settings.clone().unwrap_or(json!({}));
        self.transport.notify(
            "workspace/didChangeConfiguration",
            json!({ "settings": settings }),
        );
        Ok(())
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.transport.notify(method, params);
    }

    /// One request to the server (`definition`, `references`, ... see `navigate`).
    pub async fn request(&self, method: &str, params: Value, timeout: Duration) -> Reply {
        self.transport.request(method, params, timeout).await
    }

    /// The current diagnostics of a document by pull (`textDocument/diagnostic`); `None` when the
    /// server does not offer pulls. The answer is recorded as the findings for `version`.
    pub async fn pull(
        &self,
        path: &Path,
        version: i32,
        timeout: Duration,
    ) -> Option<Result<Vec<Diagnostic>, TransportError>> {
        if self.def.pull == Some(super::servers::PullVia::TsserverRequest) {
            let uri = uri::from_path(path);
            let reply = super::tsserver::diagnostics(&self.transport, &uri, timeout).await;
            return Some(reply.inspect(|items| {
                self.record_pulled(uri, Some(version), items.clone());
            }));
        }
        let identifier = self.lock().pull_identifier()?;
        let uri = uri::from_path(path);
        let mut params = json!({ "textDocument": { "uri": uri } });
        if let Some(identifier) = identifier {
            params["identifier"] = json!(identifier);
        }
        let reply = self
            .transport
            .request("textDocument/diagnostic", params, timeout)
            .await;
        Some(reply.map(|value| {
            let items = serde_json::from_value::<PullReport>(value)
                .map(|r| r.items)
                .unwrap_or_default();
            self.record_pulled(uri, Some(version), items.clone());
            items
        }))
    }

    /// Whether the server declared a capability (`implementationProvider`, ...): present and
    /// not `false`.
    pub fn offers(&self, capability: &str) -> bool {
        let record = self.lock();
        let declared = &record.capabilities[capability];
        !declared.is_null() && *declared != Value::Bool(false)
    }

    pub fn offers_pull(&self) -> bool {
        self.def.pull.is_some() || self.lock().pull_identifier().is_some()
    }

    /// The latest published findings for a document.
    pub fn findings(&self, path: &Path) -> Option<Findings> {
        self.lock().findings.get(&uri::from_path(path)).cloned()
    }

    /// The latest pulled findings for a document.
    pub fn pulled(&self, path: &Path) -> Option<Findings> {
        self.lock().pulled.get(&uri::from_path(path)).cloned()
    }

    pub fn checks(&self) -> Checks {
        self.lock().checks
    }

    /// Notes that a new text of the document `uri` is being sent (`didOpen`, `didChange`): a set
    /// without a version that arrives after this is about that text.
    pub fn sent(&self, uri: &str) {
        let mut record = self.lock();
        let seq = record.publish_seq;
        record.sent.insert(uri.to_string(), seq);
    }

    /// Every document's findings that arrived after publish number `after` (files the server
    /// reports on its own, such as callers an edit broke).
    pub fn findings_since(&self, after: u64) -> Vec<(PathBuf, Findings)> {
        self.lock()
            .findings
            .iter()
            .filter(|(_, f)| f.seq > after)
            .filter_map(|(u, f)| Some((uri::to_path(u)?, f.clone())))
            .collect()
    }

    /// What the server has published about each document so far: what a call's findings in
    /// files it did not edit are new against (their version does not change, so a set's
    /// `before` says nothing of the time before the call).
    pub fn published(&self) -> HashMap<PathBuf, Vec<Diagnostic>> {
        self.lock()
            .findings
            .iter()
            .filter_map(|(u, f)| Some((uri::to_path(u)?, f.items.clone())))
            .collect()
    }

    /// The publish counter now: findings with a higher `seq` arrived after this moment.
    pub fn publish_seq(&self) -> u64 {
        self.lock().publish_seq
    }

    /// When the server last published anything, and whether it is busy: work-done progress
    /// open, or still loading its workspace by its own status.
    pub fn activity(&self) -> (Option<Instant>, bool) {
        let record = self.lock();
        (
            record.last_publish,
            !record.progress.is_empty() || record.loading,
        )
    }

    pub fn refreshes(&self) -> u64 {
        self.lock().refreshes
    }

    /// Resident memory of the server: its process and every descendant (a sandboxed server is
    /// the wrapper's grandchild), from /proc.
    pub fn rss_bytes(&self) -> Option<u64> {
        let rss = |pid: u32| -> Option<u64> {
            let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
            let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
            Some(pages * rustix::param::page_size() as u64)
        };
        let mut total = rss(self.pid)?;
        let mut queue = vec![self.pid];
        while let Some(pid) = queue.pop() {
            let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
            for child in children.iter().flat_map(|c| c.split_whitespace()) {
                let Ok(child) = child.parse() else { continue };
                total += rss(child).unwrap_or(0);
                queue.push(child);
            }
        }
        Some(total)
    }

    /// The last lines the server wrote to stderr, for error reports.
    pub fn stderr_tail(&self) -> String {
        self.lock()
            .stderr
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `shutdown` (at most 2 s), `exit`, then a kill if the process is still there a second later.
    pub async fn stop(&self) {
        let _ = self
            .transport
            .request("shutdown", Value::Null, SHUTDOWN_TIMEOUT)
            .await;
        self.transport.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(1);
        while !self.exited.load(Ordering::SeqCst) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.kill();
    }

    /// SIGKILL, unless the process has already been reaped (its pid could then be someone else's).
    pub fn kill(&self) {
        if self.pid != 0 && !self.exited.load(Ordering::SeqCst) {
            if let Some(pid) = rustix::process::Pid::from_raw(self.pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }

    fn stderr_suffix(&self) -> String {
        let tail = self.stderr_tail();
        match tail.is_empty() {
            true => String::new(),
            false => format!(" (stderr: {tail})"),
        }
    }

    fn record_published(&self, uri: String, version: Option<i32>, items: Vec<Diagnostic>) {
        self.record(uri, version, items, false);
    }

    fn record_pulled(&self, uri: String, version: Option<i32>, items: Vec<Diagnostic>) {
        self.record(uri, version, items, true);
    }

    fn record(&self, uri: String, version: Option<i32>, items: Vec<Diagnostic>, pulled: bool) {
        tracing::debug!(server = %self.def.name, %uri, ?version, items = items.len(), pulled, "findings");
        let mut record = self.lock();
        record.publish_seq += 1;
        let seq = record.publish_seq;
        let sent_at = record.sent.get(&uri).copied();
        // The quiet period counts from what the server sends on its own, not from our pulls.
        if !pulled {
            record.last_publish = Some(Instant::now());
        }
        let run_began = (record.checks.begun > 0).then_some(record.checks.began_at_seq);
        let entry = match pulled {
            true => record.pulled.entry(uri).or_default(),
            false => record.findings.entry(uri).or_default(),
        };
        // A set for an older version than the one held is late news: dropped, never shown.
        if let (Some(new), Some(held)) = (version, entry.version) {
            if new < held {
                return;
            }
        }
        // The sets a check run publishes about a file are one answer: rust-analyzer's begins by
        // clearing the last run's (an empty set, without a version for files not open), and
        // "before" is what the file had before the run, not that empty set.
        let same_run = !pulled && run_began.is_some_and(|began| entry.seq > began);
        // A set without a version is about a newer text only when one was sent since the last
        // set: intelephense publishes a file's findings again, unversioned, once its index is
        // built, and that second set's "before" must still be the text before the change, not the
        // first set.
        let newer_text = match version {
            Some(_) => version != entry.version,
            None => sent_at.is_none_or(|sent| entry.seq <= sent),
        };
        let newer_version = !same_run && newer_text;
        let before = match newer_version {
            true => std::mem::take(&mut entry.items),
            false => std::mem::take(&mut entry.before),
        };
        *entry = Findings {
            version,
            seq,
            items,
            before,
        };
        drop(record);
        self.changed();
    }

    fn changed(&self) {
        self.tick.send_modify(|n| *n += 1);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn on_notification(&self, method: &str, params: Value) {
        match method {
            "textDocument/publishDiagnostics" => {
                let Ok(p) = serde_json::from_value::<PublishDiagnosticsParams>(params) else {
                    return;
                };
                self.record_published(p.uri.as_str().to_string(), p.version, p.diagnostics);
            }
            "$/progress" => {
                let Ok(p) = serde_json::from_value::<ProgressParams>(params) else {
                    return;
                };
                let token = match p.token {
                    lsp_types::NumberOrString::Number(n) => n.to_string(),
                    lsp_types::NumberOrString::String(s) => s,
                };
                let ProgressParamsValue::WorkDone(value) = p.value;
                // The timeline of a cold start (`CODERD_LOG=coderd=debug`): which loading stage
                // a settle waited on.
                tracing::debug!(server = %self.def.name, %token, ?value, "progress");
                let mut record = self.lock();
                let is_check = (self.def.check_progress.as_deref())
                    .is_some_and(|prefix| token.starts_with(prefix));
                match (value, is_check) {
                    (lsp_types::WorkDoneProgress::Begin(_), true) => {
                        record.checks = Checks {
                            begun: record.checks.begun + 1,
                            open: true,
                            began_at_seq: record.publish_seq,
                            ended_at: None,
                            began_at: Some(Instant::now()),
                            last_took: record.checks.last_took,
                        }
                    }
                    (lsp_types::WorkDoneProgress::End(_), true) => {
                        let now = Instant::now();
                        let checks = &mut record.checks;
                        checks.open = false;
                        checks.ended_at = Some(now);
                        checks.last_took = checks.began_at.map(|t| now - t);
                    }
                    (lsp_types::WorkDoneProgress::Begin(_), false) => {
                        record.progress.insert(token);
                    }
                    (lsp_types::WorkDoneProgress::End(_), false) => {
                        record.progress.remove(&token);
                    }
                    (lsp_types::WorkDoneProgress::Report(_), _) => {}
                }
                drop(record);
                self.changed();
            }
            // rust-analyzer: not quiescent while it loads the workspace, and an empty pull then
            // means "not analysed yet", not "clean".
            "experimental/serverStatus" => {
                let Some(quiescent) = params["quiescent"].as_bool() else {
                    return;
                };
                tracing::debug!(server = %self.def.name, quiescent, "server status");
                self.lock().loading = !quiescent;
                self.changed();
            }
            _ => {}
        }
    }

    fn on_request(&self, id: Value, method: &str, params: Value) {
        let answer = match method {
            "workspace/configuration" => Ok(Value::Array(
                params["items"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|item| self.def.setting(item["section"].as_str()))
                    .collect(),
            )),
            "client/registerCapability" => {
                self.registrations(&params, true);
                Ok(Value::Null)
            }
            "client/unregisterCapability" => {
                self.registrations(&params, false);
                Ok(Value::Null)
            }
            "workspace/diagnostic/refresh" => {
                tracing::debug!(server = %self.def.name, "diagnostic refresh");
                self.lock().refreshes += 1;
                self.changed();
                Ok(Value::Null)
            }
            "window/workDoneProgress/create" | "window/showMessageRequest" => Ok(Value::Null),
            "workspace/workspaceFolders" => Ok(Value::Null),
            "workspace/applyEdit" => Ok(json!({ "applied": false })),
            other => Err((-32601, format!("coderd does not handle {other}"))),
        };
        self.transport.respond(id, answer);
    }

    /// Dynamic registration of pull diagnostics (pyright and ty register after `initialized`).
    fn registrations(&self, params: &Value, register: bool) {
        let list = params
            .get("registrations")
            .or_else(|| params.get("unregisterations"))
            .and_then(Value::as_array);
        for registration in list.into_iter().flatten() {
            if registration["method"] != "textDocument/diagnostic" {
                continue;
            }
            let id = registration["id"].as_str().unwrap_or_default().to_string();
            let mut record = self.lock();
            match register {
                true => {
                    let identifier = registration["registerOptions"]["identifier"]
                        .as_str()
                        .map(str::to_string);
                    record.pull_registrations.insert(id, identifier)
                }
                false => record.pull_registrations.remove(&id),
            };
            drop(record);
            self.changed();
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn serve_incoming(
    client: std::sync::Weak<Client>,
    mut incoming: mpsc::UnboundedReceiver<Incoming>,
) {
    while let Some(message) = incoming.recv().await {
        let Some(client) = client.upgrade() else {
            return;
        };
        match message {
            Incoming::Request { id, method, params } => client.on_request(id, &method, params),
            Incoming::Notification { method, params } => client.on_notification(&method, params),
        }
    }
}

async fn keep_stderr(client: std::sync::Weak<Client>, stderr: tokio::process::ChildStderr) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Some(client) = client.upgrade() else {
            return;
        };
        tracing::debug!(server = client.def.name, "{line}");
        let mut record = client.lock();
        record.stderr.push_back(line);
        if record.stderr.len() > STDERR_TAIL {
            record.stderr.pop_front();
        }
    }
}

/// What coderd tells a server it can do: versioned publishes, pull diagnostics with dynamic
/// registration and refresh, work-done progress, configuration requests.
fn initialize_params(def: &ServerDef, root: &Path) -> Value {
    let root_uri = uri::from_path(root);
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({
        "processId": std::process::id(),
        "clientInfo": { "name": "coderd", "version": env!("CARGO_PKG_VERSION") },
        "rootUri": root_uri,
        "rootPath": root,
        "workspaceFolders": [{ "uri": root_uri, "name": name }],
        "initializationOptions": def.initialization_options,
        "capabilities": {
            "general": { "positionEncodings": ["utf-16"] },
            "experimental": { "serverStatusNotification": true },
            "window": { "workDoneProgress": true },
            "workspace": {
                "configuration": true,
                "workspaceFolders": true,
                "didChangeConfiguration": { "dynamicRegistration": true },
                "diagnostics": { "refreshSupport": true },
            },
            "textDocument": {
                "synchronization": { "didSave": true, "dynamicRegistration": false },
                "publishDiagnostics": {
                    "versionSupport": true,
                    "relatedInformation": false,
                    "codeDescriptionSupport": false,
                },
                "diagnostic": { "dynamicRegistration": true, "relatedDocumentSupport": false },
            },
        },
    })
}
