//! What the daemon holds while it runs: the workspace (jail, live budgets, documents, locks,
//! journal), every subsystem's state (caches, language servers, checkpoints, todo lists), and the
//! shutdown signal. Every method handler receives a `&State`; nothing below the method table does.

use crate::connections::Connections;
use crate::read;
use crate::todo::Todos;
use coderd_core::config::{Config, JailSettings, Limits};
use coderd_core::documents::commit::Journal;
use coderd_core::documents::Documents;
use coderd_core::jail::Jail;
use coderd_core::memory::{FrameBudget, Gate, Policy};
use coderd_core::workspace::Workspace;
use coderd_git::checkpoint::Checkpoints;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

pub struct State {
    /// The jail, budgets, documents, locks and journal: what the subsystems work in. `State`
    /// derefs to it, so `state.jail` reads as before.
    pub workspace: Arc<Workspace>,
    /// The jail fields as the config file had them at startup; reloads that change them are refused.
    startup_jail: JailSettings,
    /// The last reload warning logged, so a repeat of it is not logged again.
    last_warning: Mutex<String>,
    pub config_path: Option<PathBuf>,
    pub socket: PathBuf,
    pub line_counts: read::LineCounts,
    /// Syntax trees and outlines per document version (see `syntax::cache`).
    pub syntax: coderd_syntax::Cache,
    /// The map's tag index and last ranking (see `map`).
    pub map: coderd_syntax::map::MapCache,
    /// The repositories' recent history the map reads (see `history`).
    pub history: coderd_git::history::HistoryCache,
    /// The history's ties weighed so far, per (HEAD, focus, file set) (see `map::cochange`).
    pub co_changed: coderd_syntax::map::cochange::Memo,
    /// The language servers (see `lsp`).
    pub lsp: Arc<coderd_lsp::Lsp>,
    /// The daemon-wide gate for heavy requests (see `memory`).
    pub heavy: Arc<Gate>,
    /// The daemon-wide budget of request frames being read or handled (see `memory`).
    pub frames: FrameBudget,
    /// Answers produced and not yet written, on every connection (see `memory`, `outbox`).
    pub answers: Arc<coderd_core::memory::Backlog>,
    /// The open connections and their cap (see `connections`).
    pub connections: Connections,
    pub started: Instant,
    pub shutdown: Notify,
    pub checkpoints: Arc<Checkpoints>,
    pub todos: Todos,
}

impl State {
    pub fn new(jail: Jail, config: Config, config_path: Option<PathBuf>, socket: PathBuf) -> State {
        let journal = Journal::open(state_dir(&socket).as_deref());
        let history = coderd_git::history::HistoryCache::new(
            state_dir(&socket).map(|d| d.join("history")).as_deref(),
        );
        let policy = Policy::new(config.limits.max_memory_bytes);
        let heavy = Arc::new(Gate::new(&policy));
        let frames = FrameBudget::new(&policy);
        let data = wire::paths::data_dir();
        let roots: Vec<PathBuf> = jail.roots().iter().map(|r| r.path.clone()).collect();
        for root in &roots {
            if !coderd_core::documents::timestamps::probe(root) {
                tracing::info!(
                    "{}: file times are coarse; edits within a few ms of a change re-read the file",
                    root.display()
                );
            }
        }
        let checkpoints = Arc::new(Checkpoints::new(data.as_deref(), &roots));
        let todos = Todos::open(data.as_deref(), jail.primary());
        let documents = Documents::default();
        let syntax = coderd_syntax::Cache::new(documents.subscribe());
        let map = coderd_syntax::map::MapCache::new(
            state_dir(&socket).map(|d| d.join("map")).as_deref(),
            Some(documents.subscribe()),
        );
        let lsp = Arc::new(coderd_lsp::Lsp::new(&config.limits.lsp));
        let workspace = Arc::new(Workspace::new(jail, config.limits, documents, journal));
        lsp.confine_with(workspace.clone(), socket.clone());
        // Every edit hands the bytes it replaces to the checkpoint store first.
        workspace.set_keeper(checkpoints.clone());
        let state = State {
            checkpoints,
            todos,
            workspace,
            heavy,
            frames,
            answers: Default::default(),
            connections: Connections::default(),
            startup_jail: config.jail,
            last_warning: Default::default(),
            config_path,
            socket,
            line_counts: read::LineCounts::default(),
            syntax,
            map,
            history,
            co_changed: Default::default(),
            lsp,
            started: Instant::now(),
            shutdown: Notify::new(),
        };
        let swept = state.journal.sweep(&state.jail);
        if swept > 0 {
            tracing::info!("removed {swept} temporary file(s) left by an interrupted edit");
        }
        state
    }

    /// Stops the daemon once no connection has been open for `--idle-exit` seconds (`flag`), else
    /// the config's `idle_exit_secs` (read live; 0: never). A client that starts a daemon passes
    /// `--idle-exit` (`wire::client`), so a plugin's first call does not leave one running for
    /// ever; a daemon a person or `scripts/run.sh` starts runs until stopped.
    pub async fn exit_when_idle(self: Arc<Self>, flag: Option<u64>) {
        loop {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let after = flag.unwrap_or(self.limits().idle_exit_secs);
            let idle = self.connections.idle_for();
            if after > 0 && idle.is_some_and(|idle| idle >= Duration::from_secs(after)) {
                tracing::info!("no client for {after} s (idle_exit_secs): stopping");
                self.shutdown.notify_one();
                return;
            }
        }
    }

    /// Stops the daemon shortly, after the current response had time to reach its client.
    pub fn request_shutdown(self: &Arc<Self>) {
        let state = self.clone();
        tokio::runtime::Handle::current().spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            state.shutdown.notify_one();
        });
    }

    /// Re-reads the config file: budgets swap in; jail changes and invalid files are refused.
    pub fn reload_config(&self) {
        let Some(path) = &self.config_path else {
            return;
        };
        // An editor that saves in place truncates the file before writing it: an empty file is
        // that moment, not a wish for the defaults (which would drop the `exec` rules in force).
        if std::fs::read(path).is_ok_and(|bytes| bytes.trim_ascii().is_empty()) {
            self.warn_once(format!(
                "config {} is empty (being saved?); keeping the previous settings",
                path.display()
            ));
            return;
        }
        match load_config(path) {
            Err(e) => self.warn_once(format!(
                "config reload rejected, keeping the previous settings: {e}"
            )),
            Ok(config) => {
                if config.jail != self.startup_jail {
                    self.warn_once(format!(
                        "config {}: jail fields ({}) changed; restart coderd to apply. \
                         Keeping the running jail.",
                        path.display(),
                        coderd_core::config::JAIL_KEYS.join(", ")
                    ));
                } else {
                    self.last_warning
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .clear();
                }
                self.workspace.set_limits(config.limits, |current, new| {
                    tracing::info!("config reloaded: budgets updated");
                    let lsp = (&new.lsp.servers, &new.lsp.languages);
                    if lsp != (&current.lsp.servers, &current.lsp.languages) {
                        self.lsp.configure(&new.lsp);
                    }
                    let policy = Policy::new(new.max_memory_bytes);
                    self.heavy.resize(&policy);
                    self.frames.resize(&policy);
                });
            }
        }
    }

    /// One save fires several file events; the same warning is logged once, not once per event.
    fn warn_once(&self, text: String) {
        let mut last = self.last_warning.lock().unwrap_or_else(|e| e.into_inner());
        if *last != text {
            tracing::warn!("{text}");
            *last = text;
        }
    }
}

impl std::ops::Deref for State {
    type Target = Workspace;

    fn deref(&self) -> &Workspace {
        &self.workspace
    }
}

/// Reads a config file, validating the sections the subsystems own as well as the budgets.
pub fn load_config(path: &std::path::Path) -> coderd_core::error::Result<Config> {
    Config::load(path, check_sections)
}

/// The checks of the `exec` and `lsp` sections, which only those subsystems can make.
pub fn check_sections(limits: &Limits) -> std::result::Result<(), String> {
    coderd_exec::policy::validate(&limits.exec)?;
    coderd_lsp::servers::Registry::new(&limits.lsp)?;
    Ok(())
}

/// Where a daemon keeps state that outlives it (the temp-file journal): beside its socket, in a
/// folder named for the socket, so two daemons never share one and a restart finds its own.
fn state_dir(socket: &std::path::Path) -> Option<PathBuf> {
    Some(wire::paths::state_dir()?.join(wire::tag::of_paths(&[socket])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The example file shipped beside the daemon is the defaults, and passes every section's
    /// checks (the core crate's own tests cannot run the exec and lsp ones).
    #[test]
    fn the_example_file_is_the_defaults() {
        std::env::set_var(
            "HOME",
            std::env::var("HOME").unwrap_or_else(|_| "/home/x".into()),
        );
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("coderd.example.yaml");
        let mut example = Config::load(&path, check_sections).unwrap();
        example.jail.base_paths.clear();
        assert_eq!(example, Config::default());
    }
}
