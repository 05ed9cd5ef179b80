//! Eager refresh, the store's side: the folder of every held document is watched (inotify
//! through `notify`); the watcher and the refresher that re-reads a changed document are the
//! workspace's (`workspace::watch`), since a refresh goes through the jail and the budgets.
//!
//! The folder is watched, not the file: editors save by renaming a new file over the old one,
//! which would end a watch on the file itself.

use notify::{RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Folders watched at most; beyond this, documents still refresh at their next use.
const MAX_FOLDERS: usize = 4096;

/// The watched folders, and the watcher once the daemon started it.
#[derive(Default)]
pub struct Watch {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    watcher: Option<notify::RecommendedWatcher>,
    folders: HashSet<PathBuf>,
}

impl Watch {
    /// Hands the store the watcher that feeds the refresher (`workspace::watch`), and watches
    /// the folders of the documents held already.
    pub fn install(&self, watcher: notify::RecommendedWatcher, held: &[PathBuf]) {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).watcher = Some(watcher);
        for path in held {
            self.folder_of(path);
        }
    }

    /// Watches the folder holding `path`, if it is not watched yet.
    pub fn folder_of(&self, path: &Path) {
        let Some(folder) = path.parent() else { return };
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.folders.contains(folder) || inner.folders.len() >= MAX_FOLDERS {
            return;
        }
        let Some(watcher) = inner.watcher.as_mut() else {
            return;
        };
        match watcher.watch(folder, RecursiveMode::NonRecursive) {
            Ok(()) => {
                inner.folders.insert(folder.to_path_buf());
            }
            Err(e) => tracing::debug!("not watching {}: {e}", folder.display()),
        }
    }
}
