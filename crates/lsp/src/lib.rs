//! Language servers kept warm inside the daemon, and the diagnostics an edit's answer carries.
//!
//! `servers` reads the definitions (`data/servers.toml`); `transport` frames JSON-RPC over a
//! server's stdio; `client` is one process and what it reported; `instance` is one server for one
//! root across restarts, with document sync and the settling rule; `report` is the structured
//! answer (its types and the `[DIAGNOSTICS]` block are the wire crate's).
//!
//! Two ways in: every mutating method's answer goes through `after_edit` (from the method table,
//! with the events the call published), which syncs the changed files into their servers,
//! starting them if needed, and waits until each server's findings are current; and a background
//! task follows the documents store's events, so writes made with diagnostics off, or by other
//! programs, reach servers that have the file open. Never does an answer show findings for an
//! older version of a file than the one on disk: a server that is not current by the deadline is
//! listed as `pending` instead.
//!
//! The crate stands on coderd-core, coderd-syntax (a file's language) and coderd-exec (the sandbox
//! a server runs in); it knows no method and no face: the method table asks it for the report.

pub mod calls;
mod client;
mod confine;
mod diagnostics;
mod instance;
pub mod navigate;
pub mod report;
mod roots;
pub mod servers;
mod spawn;
mod transport;
mod tsserver;
mod uri;

pub use diagnostics::{diagnostics, DiagnosticsParams, GroupBy};

use coderd_core::config::LspConfig;
use coderd_core::documents::{Document, Event, EventKind};
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use coderd_syntax::languages::{self, Language};
use instance::{Deadlines, Instance, Missing, Outcome, Part, Status};
use report::{FileReport, FileReportExt, Report, Unanalysed, Unavailable};
use roots::{project_root, root_for};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use servers::{Registry, ServerDef};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

/// How often idle servers and the memory budget are looked at.
const REAP_EVERY: Duration = Duration::from_secs(10);

type Instances = HashMap<(String, PathBuf), Arc<Instance>>;

/// One server's published findings per file.
type Findings = Arc<HashMap<PathBuf, Vec<lsp_types::Diagnostic>>>;

/// What each running server (by name and root) had published when a mutating call began: what
/// the call's findings in files it did not edit are new against. It is taken before the call
/// writes anything because the call's own edit, followed in the background (`on_event`), can
/// reach a server before `after_edit` plans it, and a check run that begins by clearing every
/// file (rust-analyzer's) would then make a snapshot taken at planning time empty, and every
/// old finding elsewhere new.
#[derive(Default)]
pub struct PublishedAtStart(HashMap<(String, PathBuf), Findings>);

/// The servers in force, and their running (and stopped) instances by server name and root.
pub struct Lsp {
    registry: RwLock<Arc<Registry>>,
    instances: Mutex<Instances>,
    /// The daemon's runtime, for stopping servers from threads outside it (a config reload).
    runtime: OnceLock<tokio::runtime::Handle>,
    /// Held from reading a file's current content to sending it: two calls committing the same
    /// file back to back could otherwise send their snapshots in the wrong order, leaving the
    /// server on the older text (seen with rust-analyzer in the burst test).
    syncing: Mutex<()>,
    /// What servers run confined by, set once the workspace exists (`confine_with`).
    confine: OnceLock<Arc<confine::Confine>>,
}

/// One (instance, file) whose findings an answer waits for, and the instance's publish counter
/// and published findings before the file was sent (what it publishes after that is news of
/// this call, new against those).
struct Wanted {
    instance: Arc<Instance>,
    path: PathBuf,
    seq_before: u64,
    published_before: Findings,
}

/// The files a call touched, the servers to ask, the servers that could not run, and those that
/// do not look at a file.
#[derive(Default)]
struct Plan {
    /// What the servers had published when the call began (empty for `diagnostics`).
    at_start: PublishedAtStart,
    files: Vec<PathBuf>,
    wanted: Vec<Wanted>,
    unavailable: Vec<Unavailable>,
    unanalysed: Vec<(PathBuf, Unanalysed)>,
}

/// Why a server of a file's language does not look at the file.
enum NotServed {
    Unavailable(Unavailable),
    OutsideProject(Unanalysed),
}

impl Lsp {
    /// The servers of the config's `lsp` section (already checked when the config was read).
    pub fn new(config: &LspConfig) -> Lsp {
        let registry = Registry::new(config).unwrap_or_else(|e| {
            tracing::warn!("lsp: {e}; using the built-in servers");
            Registry::new(&LspConfig::default()).unwrap_or_default()
        });
        Lsp {
            registry: RwLock::new(Arc::new(registry)),
            instances: Default::default(),
            runtime: OnceLock::new(),
            syncing: Mutex::new(()),
            confine: OnceLock::new(),
        }
    }

    /// Servers start inside the sandbox of `workspace`'s `exec.sandbox`, the daemon's `socket`
    /// hidden; until this is called none starts.
    pub fn confine_with(&self, workspace: Arc<Workspace>, socket: PathBuf) {
        let _ = self
            .confine
            .set(Arc::new(confine::Confine { workspace, socket }));
    }

    /// The servers in force now.
    pub fn registry(&self) -> Arc<Registry> {
        self.registry
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Applies a reloaded config's servers: instances whose definition changed, or that serve no
    /// language any more, are stopped and forgotten, so the next file starts the new definition.
    pub fn configure(&self, config: &LspConfig) {
        let registry = match Registry::new(config) {
            Ok(registry) => Arc::new(registry),
            Err(e) => return tracing::warn!("lsp: {e}; keeping the servers in force"),
        };
        *self.registry.write().unwrap_or_else(|e| e.into_inner()) = registry.clone();
        let in_use = |def: &ServerDef| {
            languages::all()
                .iter()
                .any(|l| registry.for_language(l).iter().any(|d| **d == *def))
        };
        let stale: Vec<Arc<Instance>> = {
            let mut instances = self.lock();
            let keys: Vec<_> = instances
                .iter()
                .filter(|(_, i)| !in_use(&i.def))
                .map(|(k, _)| k.clone())
                .collect();
            keys.iter().filter_map(|k| instances.remove(k)).collect()
        };
        if stale.is_empty() {
            return;
        }
        tracing::info!(
            count = stale.len(),
            "config reloaded: stopping language servers whose definition changed"
        );
        if let Some(runtime) = self.runtime.get() {
            runtime.spawn(async move {
                for instance in stale {
                    instance.stop().await;
                }
            });
        }
    }

    /// The diagnostics for an edit's answer: `None` when none of the files it changed has a
    /// language with servers, or autodiag is off. Runs on the request's (blocking) thread.
    pub fn after_edit(
        &self,
        state: &Workspace,
        events: &[Event],
        at_start: PublishedAtStart,
    ) -> Option<Report> {
        let limits = state.limits();
        if !limits.autodiag {
            return None;
        }
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let mut plan = Plan {
            at_start,
            ..Plan::default()
        };
        for event in events {
            match &event.kind {
                EventKind::Deleted => {
                    self.close_everywhere(&event.path);
                    continue;
                }
                EventKind::Moved { from } => self.close_everywhere(from),
                _ => {}
            }
            self.plan_file(state, &event.path, &mut plan);
        }
        if plan.wanted.is_empty() && plan.unavailable.is_empty() && plan.unanalysed.is_empty() {
            return None;
        }
        Some(runtime.block_on(collect(plan, Deadlines::of(&limits.lsp))))
    }

    /// What every running server has published now; see `PublishedAtStart`. Nothing when
    /// diagnostics after edits are off.
    pub fn published_at_start(&self, state: &Workspace) -> PublishedAtStart {
        if !state.limits().autodiag {
            return PublishedAtStart::default();
        }
        let running = self.all().into_iter().filter_map(|instance| {
            let published = instance.client()?.published();
            let key = (instance.def.name.clone(), instance.root.clone());
            Some((key, Arc::new(published)))
        });
        PublishedAtStart(running.collect())
    }

    /// The `diagnostics` method: sync the files, settle, report (nothing is edited).
    pub fn check(&self, state: &Workspace, paths: &[PathBuf]) -> Report {
        let mut plan = Plan::default();
        for path in paths {
            self.plan_file(state, path, &mut plan);
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Report::default();
        };
        runtime.block_on(collect(plan, Deadlines::of(&state.limits().lsp)))
    }

    /// Adds one file to a plan: each server of its language is started if needed and given the
    /// file's current content.
    fn plan_file(&self, state: &Workspace, path: &Path, plan: &mut Plan) {
        let _in_order = self.syncing.lock().unwrap_or_else(|e| e.into_inner());
        let Some((document, language)) = self.document_with_servers(state, path) else {
            return;
        };
        if !plan.files.iter().any(|f| f == path) {
            plan.files.push(path.to_path_buf());
        }
        for instance in self.instances_for(state, path, language) {
            let instance = match instance {
                Ok(instance) => instance,
                Err(NotServed::Unavailable(unavailable)) => {
                    plan.unavailable.push(unavailable);
                    continue;
                }
                Err(NotServed::OutsideProject(skipped)) => {
                    plan.unanalysed.push((path.to_path_buf(), skipped));
                    continue;
                }
            };
            instance.ensure_started();
            let client = instance.client();
            let seq_before = client.as_ref().map_or(0, |c| c.publish_seq());
            // What it had published when the call began (`PublishedAtStart`); for a server that
            // was not running then, or the `diagnostics` method, what it has published now,
            // taken once per server and call (a multipatch plans several files).
            let key = (instance.def.name.clone(), instance.root.clone());
            let published_before = (plan.at_start.0.get(&key).cloned())
                .or_else(|| {
                    let planned = plan.wanted.iter();
                    let mut same = planned.filter(|w| Arc::ptr_eq(&w.instance, &instance));
                    same.next().map(|w| w.published_before.clone())
                })
                .unwrap_or_else(|| Arc::new(client.map(|c| c.published()).unwrap_or_default()));
            instance.sync(&document, &language_id(language, path));
            plan.wanted.push(Wanted {
                instance,
                path: path.to_path_buf(),
                seq_before,
                published_before,
            });
        }
    }

    /// Starts the servers of a file an agent reads or outlines, when they are not running: an
    /// agent reads before it edits, and the seconds a server needs to load a project (its first
    /// analysis included) then pass while the agent thinks, not while its first edit waits. The
    /// file is opened in them and settled in the background, as an edit's would be; files read
    /// later, or while they run, change nothing.
    pub fn warm(self: &Arc<Self>, state: &Arc<Workspace>, file: &str) {
        let limits = state.limits();
        if !limits.autodiag || !limits.lsp.warm_on_read {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Ok(resolved) = state.jail.resolve("file", file) else {
            return;
        };
        let path = resolved.abs;
        // Decided from the name first: most reads find their servers running, and pay nothing.
        let Some(language) = languages::for_path(&path, None) else {
            return;
        };
        let idle: Vec<Arc<Instance>> = self
            .instances_for(state, &path, language)
            .into_iter()
            .flatten()
            .filter(|i| i.status() == Status::NotStarted)
            .collect();
        if idle.is_empty() {
            return;
        }
        // The rest (loading the document, spawning the processes) after the read has answered.
        let state = state.clone();
        let lsp = self.clone();
        let deadlines = Deadlines::of(&limits.lsp);
        runtime.clone().spawn_blocking(move || {
            let _in_order = lsp.syncing.lock().unwrap_or_else(|e| e.into_inner());
            let Some(document) = current_document(&state, &path) else {
                return;
            };
            let _context = runtime.enter();
            // Another read's warm-up, or an edit, may have started one meanwhile.
            for instance in idle.iter().filter(|i| i.status() == Status::NotStarted) {
                tracing::debug!(server = instance.def.name, path = %path.display(), "warming");
                instance.ensure_started();
                instance.sync(&document, &language_id(language, &path));
                runtime.spawn(instance.clone().settle(path.clone(), deadlines));
            }
        });
    }

    /// A file's current document and its language, when the language has servers.
    fn document_with_servers(
        &self,
        state: &Workspace,
        path: &Path,
    ) -> Option<(Arc<Document>, &'static Language)> {
        let document = current_document(state, path)?;
        let language = language_of(&document)?;
        let has_servers = !self.registry().for_language(language).is_empty();
        has_servers.then_some((document, language))
    }

    /// The instances that serve a file (each started by whoever asks), or why a server of its
    /// language does not look at it.
    fn instances_for(
        &self,
        state: &Workspace,
        path: &Path,
        language: &Language,
    ) -> Vec<std::result::Result<Arc<Instance>, NotServed>> {
        let registry = self.registry();
        registry
            .for_language(language)
            .iter()
            .map(|def| {
                let Some(executable) = servers::executable(def) else {
                    return Err(NotServed::Unavailable(Unavailable {
                        server: def.name.clone(),
                        language: language.name.clone(),
                        install: def.install.clone(),
                    }));
                };
                let root = match def.project_only {
                    true => project_root(state, def, path)
                        .ok_or_else(|| NotServed::OutsideProject(outside_project(def)))?,
                    false => root_for(state, def, language, path),
                };
                Ok(self.instance(def.clone(), root, executable))
            })
            .collect()
    }

    fn instance(&self, def: Arc<ServerDef>, root: PathBuf, executable: PathBuf) -> Arc<Instance> {
        self.lock()
            .entry((def.name.clone(), root.clone()))
            .or_insert_with(|| {
                let confine = self.confine.get().cloned();
                Instance::new(def, root, executable, confine)
            })
            .clone()
    }

    fn all(&self) -> Vec<Arc<Instance>> {
        self.lock().values().cloned().collect()
    }

    fn close_everywhere(&self, path: &Path) {
        for instance in self.all() {
            instance.close(path);
        }
    }

    /// Follows a documents-store event in the background: files servers have open are re-synced
    /// (edits made with diagnostics off, writes by other programs); deleted ones closed.
    fn on_event(&self, state: &Workspace, event: &Event) {
        match &event.kind {
            EventKind::Deleted => return self.close_everywhere(&event.path),
            EventKind::Moved { from } => self.close_everywhere(from),
            _ => {}
        }
        self.resync(state, &event.path);
    }

    fn resync(&self, state: &Workspace, path: &Path) {
        let holders: Vec<Arc<Instance>> = self
            .all()
            .into_iter()
            .filter(|i| i.has_open(path))
            .collect();
        if holders.is_empty() {
            return;
        }
        let _in_order = self.syncing.lock().unwrap_or_else(|e| e.into_inner());
        let Some(document) = current_document(state, path) else {
            return;
        };
        let Some(language) = language_of(&document) else {
            return;
        };
        for instance in holders {
            instance.sync(&document, &language_id(language, path));
        }
    }

    /// Every open document of every server, re-synced (after the event stream lagged).
    fn resync_all(&self, state: &Workspace) {
        for instance in self.all() {
            for path in instance.open_paths() {
                self.resync(state, &path);
            }
        }
    }

    /// Stops servers unused for `idle_secs`, then the least recently used while the servers'
    /// memory together is over `max_servers_rss_bytes`.
    async fn reap(&self, limits: &LspConfig) {
        let idle = Duration::from_secs(limits.idle_secs);
        let mut live: Vec<Arc<Instance>> = self
            .all()
            .into_iter()
            .filter(|i| matches!(i.status(), Status::Ready | Status::Starting))
            .collect();
        for instance in live.iter().filter(|i| i.last_used().elapsed() > idle) {
            tracing::info!(
                server = instance.def.name,
                "stopping an idle language server"
            );
            instance.stop().await;
        }
        live.retain(|i| i.status() == Status::Ready);
        live.sort_by_key(|i| i.last_used());
        let rss = |i: &Arc<Instance>| i.client().and_then(|c| c.rss_bytes()).unwrap_or(0);
        let mut total: u64 = live.iter().map(rss).sum();
        for instance in live {
            if total <= limits.max_servers_rss_bytes {
                break;
            }
            total -= rss(&instance);
            tracing::info!(
                server = instance.def.name,
                "stopping a language server: over max_servers_rss_bytes"
            );
            instance.stop().await;
        }
    }

    /// Stops every server (daemon shutdown).
    pub async fn stop_all(&self) {
        let mut set = tokio::task::JoinSet::new();
        for instance in self.all() {
            set.spawn(async move { instance.stop().await });
        }
        while set.join_next().await.is_some() {}
    }

    /// What `info` says about language servers: each definition, whether it can run here, and
    /// its instances; and the languages that have none.
    pub fn info(&self) -> Value {
        let instances = self.all();
        let registry = self.registry();
        let servers: Vec<Value> = registry
            .all()
            .iter()
            .map(|def| {
                let executable = servers::executable(def);
                let running: Vec<_> = instances
                    .iter()
                    .filter(|i| i.def.name == def.name)
                    .map(|i| i.info())
                    .collect();
                let state = match (&executable, running.first()) {
                    (None, _) => "unavailable",
                    (Some(_), None) => "not_started",
                    (Some(_), Some(first)) => first.state.as_str(),
                };
                let built_in = registry.is_built_in(def);
                json!({
                    "name": def.name,
                    "source": if built_in { "built-in" } else { "config" },
                    "switched_off": registry.switched_off(def),
                    "writable": def.writable,
                    "network": def.network,
                    "languages": def.languages,
                    "command": def.command,
                    "executable": executable,
                    "state": state,
                    "install": def.install,
                    "instances": running,
                })
            })
            .collect();
        let without: Vec<&str> = languages::all()
            .iter()
            .filter(|l| registry.for_language(l).is_empty())
            .map(|l| l.name.as_str())
            .collect();
        json!({
            "trust": registry.trust(),
            "sandbox": self.sandbox_in_force(),
            "servers": servers,
            "languages_without_servers": without,
            "install_dir": servers::install_dir(),
        })
    }

    /// The sandbox servers start in (`exec.sandbox`'s, in force), or why none can be had.
    fn sandbox_in_force(&self) -> Value {
        let Some(confine) = self.confine.get() else {
            return json!({ "refused": "no sandbox is set up for language servers" });
        };
        let limits = confine.workspace.limits();
        match coderd_exec::sandbox::in_force(&limits.exec.sandbox) {
            Ok(kind) => json!({ "in_force": kind }),
            Err(why) => json!({ "refused": why }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Instances> {
        self.instances.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Starts the background tasks: following document events, and reaping idle servers.
pub fn watch(lsp: &Arc<Lsp>, state: &Arc<Workspace>) {
    let _ = lsp.runtime.set(tokio::runtime::Handle::current());
    let mut events = state.documents.subscribe();
    let weak: (Weak<Lsp>, Weak<Workspace>) = (Arc::downgrade(lsp), Arc::downgrade(state));
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            let received = events.recv().await;
            let (Some(lsp), Some(state)) = (weak.0.upgrade(), weak.1.upgrade()) else {
                return;
            };
            // Reading a file the store dropped is synchronous I/O: off the async workers.
            let go_on = tokio::task::block_in_place(|| match received {
                Ok(event) => {
                    lsp.on_event(&state, &event);
                    true
                }
                Err(RecvError::Lagged(_)) => {
                    lsp.resync_all(&state);
                    true
                }
                Err(RecvError::Closed) => false,
            });
            if !go_on {
                return;
            }
        }
    });
    let weak: (Weak<Lsp>, Weak<Workspace>) = (Arc::downgrade(lsp), Arc::downgrade(state));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(REAP_EVERY).await;
            let (Some(lsp), Some(state)) = (weak.0.upgrade(), weak.1.upgrade()) else {
                return;
            };
            let limits = state.limits();
            lsp.reap(&limits.lsp).await;
        }
    });
}

/// Waits for every wanted (server, file) to settle, then builds the report: the edited files in
/// order, then files the servers reported on their own since the call's changes were sent.
async fn collect(plan: Plan, deadlines: Deadlines) -> Report {
    let mut set = tokio::task::JoinSet::new();
    for (i, wanted) in plan.wanted.iter().enumerate() {
        let (instance, path) = (wanted.instance.clone(), wanted.path.clone());
        set.spawn(async move { (i, instance.settle(path, deadlines).await) });
    }
    let mut outcomes: Vec<Option<Outcome>> = plan.wanted.iter().map(|_| None).collect();
    while let Some(joined) = set.join_next().await {
        if let Ok((i, outcome)) = joined {
            outcomes[i] = Some(outcome);
        }
    }
    let mut files: Vec<FileReport> = plan
        .files
        .iter()
        .map(|p| FileReport::new(p.clone(), true))
        .collect();
    let mut others: Vec<FileReport> = Vec::new();
    for (wanted, outcome) in plan.wanted.iter().zip(outcomes) {
        let name = wanted.instance.def.name.as_str();
        let Some(file) = files.iter_mut().find(|f| f.path == wanted.path) else {
            continue;
        };
        match outcome {
            Some(Outcome::Current {
                items,
                before,
                missing,
            }) => {
                file.add(name, &items, &before);
                match missing {
                    Some(Missing {
                        part: Part::Check,
                        reason,
                    }) => file.add_pending(&format!("{name} (check)"), Status::Ready, reason),
                    Some(Missing {
                        part: Part::Own,
                        reason,
                    }) => file.add_pending(name, Status::Ready, reason),
                    None => {}
                }
                if let Some(client) = wanted.instance.client() {
                    // A check run's findings elsewhere count from its begin: a run that began
                    // before the save may still publish, about older text.
                    let after = match client.def.check_progress {
                        Some(_) => wanted.seq_before.max(client.checks().began_at_seq),
                        None => wanted.seq_before,
                    };
                    let before = &wanted.published_before;
                    add_reported_elsewhere(&client, after, &plan.files, before, &mut others);
                }
            }
            Some(Outcome::Pending { state, reason }) => file.add_pending(name, state, reason),
            None => file.add_pending(name, Status::Crashed, "the wait was lost".into()),
        }
    }
    for (path, skipped) in plan.unanalysed {
        if let Some(file) = files.iter_mut().find(|f| f.path == path) {
            file.unanalysed.push(skipped);
        }
    }
    files.extend(others);
    for file in &mut files {
        file.finish();
    }
    Report {
        files,
        unavailable: plan.unavailable,
    }
}

/// Findings a server published since `after` for files the call did not touch, with errors in
/// them: what an edit broke elsewhere.
fn add_reported_elsewhere(
    client: &client::Client,
    after: u64,
    edited: &[PathBuf],
    before: &HashMap<PathBuf, Vec<lsp_types::Diagnostic>>,
    others: &mut Vec<FileReport>,
) {
    for (path, found) in client.findings_since(after) {
        if edited.contains(&path) {
            continue;
        }
        let has_error = found.items.iter().any(|d| {
            d.severity
                .is_none_or(|s| s == lsp_types::DiagnosticSeverity::ERROR)
        });
        if !has_error {
            continue;
        }
        let index = match others.iter().position(|f| f.path == path) {
            Some(i) => i,
            None => {
                others.push(FileReport::new(path.clone(), false));
                others.len() - 1
            }
        };
        let before = before.get(&path).map_or(&[][..], Vec::as_slice);
        others[index].add(&client.def.name, &found.items, before);
    }
}

/// The document as the daemon holds it, else read through the jail.
fn current_document(state: &Workspace, path: &Path) -> Option<Arc<Document>> {
    if let Some(document) = state.documents.current(path) {
        return Some(document);
    }
    let resolved = state.jail.locate(path)?;
    state.load(&resolved).ok()
}

/// The document's language, by name, extension, or its `#!` line.
fn language_of(document: &Document) -> Option<&'static Language> {
    let head = document.text.to_bytes();
    let first_line = &head[..head.len().min(256)];
    languages::for_path(&document.path, Some(first_line))
}

/// What a `project_only` server says of a file outside its projects.
fn outside_project(def: &ServerDef) -> Unanalysed {
    Unanalysed {
        server: def.name.clone(),
        reason: format!(
            "no {} in this file's folder or above it: {} analyses only the files of such a project",
            def.root_markers.join(" or "),
            def.name
        ),
    }
}

/// The LSP language id: the registry's name, except where LSP names flavours apart (JSX; JSON
/// with comments, which the JSON server would otherwise report as errors).
fn language_id(language: &Language, path: &Path) -> String {
    match path.extension().and_then(|e| e.to_str()) {
        Some("tsx") => "typescriptreact".into(),
        Some("jsx") => "javascriptreact".into(),
        Some("jsonc") => "jsonc".into(),
        _ => language.name.clone(),
    }
}

/// Takes the `diagnostics` switch out of a mutating method's params (it belongs to the method
/// table, not to any one method): absent means on.
pub fn take_switch(params: &mut Value) -> Result<bool> {
    let Some(map) = params.as_object_mut() else {
        return Ok(true);
    };
    match map.get("diagnostics") {
        None => Ok(true),
        Some(&Value::Bool(on)) => {
            map.remove("diagnostics");
            Ok(on)
        }
        // Left in place, so the caller can report it beside the params' other problems.
        Some(other) => Err(Error::bad_input(format!(
            "`diagnostics` must be true or false, not {other}"
        ))
        .with_recovery("pass `diagnostics: false` to skip language-server diagnostics")),
    }
}

/// The JSON Schema of the switch, added to every mutating method's params schema.
pub fn switch_schema() -> Value {
    json!({
        "type": "boolean",
        "default": true,
        "description": "Attach language-server diagnostics for the files the call changed (default on; off with config `autodiag: false` or client env CODER_AUTODIAG=off)."
    })
}

/// Appends `"diagnostics": {...}` to a serialized result object.
pub fn attach(result: Box<RawValue>, report: &Report) -> Result<Box<RawValue>> {
    let report = serde_json::to_string(report)
        .map_err(|e| Error::io(format!("serializing diagnostics: {e}")))?;
    coderd_core::outgoing::with_field(result, "diagnostics", &report)
}
