//! Eager refresh: the folder of every held document is watched (inotify through `notify`, see
//! `documents::watch`), and a document another program changed or removed is re-read at once,
//! publishing its `External` event then rather than at its next use. The stamp check before every
//! use stays the guarantee; the watcher only makes the store and its subscribers current sooner.
//!
//! The folder is watched, not the file: editors save by renaming a new file over the old one,
//! which would end a watch on the file itself.

use super::Workspace;
use crate::documents::{Event, EventKind};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Weak};
use std::time::Duration;

/// Changes arriving within this delay are refreshed together (an editor's save is several events).
const SETTLE: Duration = Duration::from_millis(20);

/// One more file to watch with the same watcher (the daemon's config file), and what to do
/// when it changes: the daemon has one `notify` watcher, not one per concern.
pub struct Also {
    pub file: PathBuf,
    /// Called on the watcher's thread for every event that touches `file`.
    pub on_change: Box<dyn Fn() + Send + Sync>,
}

/// Starts watching for the daemon: a `notify` watcher feeding a refresher thread that lives as
/// long as the workspace, and calling `also`'s hook. Without inotify (or over its limits)
/// documents refresh at their next use (and the config is not reloaded).
pub fn start(workspace: &Arc<Workspace>, also: Option<Also>) {
    let (tx, rx) = mpsc::channel::<PathBuf>();
    let also_folder = also
        .as_ref()
        .and_then(|a| Some(a.file.parent()?.to_path_buf()));
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if event.kind.is_access() {
            return;
        }
        if let Some(also) = &also {
            if event.paths.iter().any(|p| p == &also.file) {
                (also.on_change)();
            }
        }
        for path in event.paths {
            let _ = tx.send(path);
        }
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            if also_folder.is_some() {
                tracing::warn!("config hot reload disabled: {e}");
            }
            tracing::warn!("documents refresh at their next use only: {e}");
            return;
        }
    };
    if let Some(folder) = also_folder {
        use notify::{RecursiveMode, Watcher};
        // Watch the folder, not the file: editors save by renaming a new file over the old one.
        if let Err(e) = watcher.watch(&folder, RecursiveMode::NonRecursive) {
            tracing::warn!("config hot reload disabled: {e}");
        }
    }
    let held = workspace.documents.paths();
    workspace.documents.watch.install(watcher, &held);
    let weak = Arc::downgrade(workspace);
    let spawned = std::thread::Builder::new()
        .name("documents-watch".into())
        .spawn(move || refresher(&weak, &rx));
    if let Err(e) = spawned {
        tracing::warn!("documents refresh at their next use only: {e}");
    }
}

/// Refreshes the held documents named by watcher events until the workspace is gone.
fn refresher(workspace: &Weak<Workspace>, rx: &mpsc::Receiver<PathBuf>) {
    while let Ok(first) = rx.recv() {
        let mut paths = BTreeSet::from([first]);
        while let Ok(path) = rx.recv_timeout(SETTLE) {
            paths.insert(path);
        }
        let Some(workspace) = workspace.upgrade() else {
            return;
        };
        for path in paths {
            refresh(&workspace, &path);
        }
    }
}

/// Re-reads one held document (its stamp check decides whether it changed), or forgets it when
/// it is gone.
fn refresh(workspace: &Workspace, path: &Path) {
    if workspace.documents.revision(path) == 0 {
        return; // not held: another file in a watched folder, or one of our temp files
    }
    let Some(resolved) = workspace.jail.locate(path) else {
        return;
    };
    let loaded = workspace.load(&resolved);
    match loaded {
        Ok(_) => {}
        Err(e) if e.code == crate::error::Code::NotFound => {
            let revision = workspace.documents.revision(path);
            workspace.documents.removed(
                path,
                Event {
                    path: path.to_path_buf(),
                    old_revision: Some(revision),
                    new_revision: None,
                    kind: EventKind::External,
                    changes: Vec::new(),
                },
            );
        }
        // Too large now, a folder now, non-accessible: the next use reports it.
        Err(e) => tracing::debug!("refreshing {}: {e}", path.display()),
    }
}
