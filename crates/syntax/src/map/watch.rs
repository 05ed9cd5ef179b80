//! The map's change signal: every folder a map walked is watched (inotify through `notify`, one
//! watch per folder, never per file: the kernel's limit is per user and counts watches), and the
//! paths that changed since the last map wait here, so a warm map re-lists only their folders
//! (`tree`). When the watcher cannot cover the tree — the folder cap (`map_watch_max_folders`)
//! or the kernel's watch limit reached, no inotify, an event queue overflow — it says why, and the
//! map walks the whole tree as before: correct, slower.
//!
//! Its own `notify` watcher, not the documents store's: those watches follow the held documents
//! and come and go with them, these follow the walked tree and stay.

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Changed paths kept between two maps before the next one walks the whole tree instead (a
/// `git checkout` of a far branch, a build writing thousands of files): the set stays bounded.
pub const MAX_PENDING: usize = 50_000;

/// What changed since the last `take`.
#[derive(Default)]
pub struct Changes {
    pub paths: HashSet<PathBuf>,
    /// Some changes were lost (the kernel's queue overflowed, too many to keep): walk everything.
    pub overflow: bool,
}

impl Changes {
    /// Notes one changed path, giving up on the list (`overflow`) past `MAX_PENDING`.
    pub fn add(&mut self, path: PathBuf) {
        if self.overflow {
            return;
        }
        self.paths.insert(path);
        if self.paths.len() > MAX_PENDING {
            self.lost();
        }
    }

    pub fn lost(&mut self) {
        self.overflow = true;
        self.paths = HashSet::new();
    }
}

/// The watcher and the folders it watches.
#[derive(Default)]
pub struct Watch {
    watcher: Option<RecommendedWatcher>,
    folders: HashSet<PathBuf>,
    pending: Arc<Mutex<Changes>>,
    /// Why the tree is not watched (then every map walks it), with the cap it was decided under:
    /// a new cap in the config tries again.
    broken: Option<(String, u64)>,
}

impl Watch {
    /// Why the watcher cannot cover the tree, if it cannot; tries again when `cap` changed.
    pub fn broken(&mut self, cap: u64) -> Option<&str> {
        if self.broken.as_ref().is_some_and(|(_, at)| *at != cap) {
            self.broken = None;
        }
        self.broken.as_ref().map(|(why, _)| why.as_str())
    }

    /// Watches one more folder, unless it is watched; false (and the watcher gone, its watches
    /// given back to the kernel) when it cannot.
    pub fn folder(&mut self, folder: &Path, cap: u64) -> bool {
        if self.broken.is_some() {
            return false;
        }
        if self.folders.contains(folder) {
            return true;
        }
        if self.folders.len() as u64 >= cap {
            let why = match cap {
                0 => "map_watch_max_folders is 0: every map walks the tree".to_owned(),
                _ => format!(
                    "the tree has more than {cap} folders (map_watch_max_folders): every map walks it"
                ),
            };
            return self.give_up(why, cap);
        }
        let watcher = match self.watcher.as_mut() {
            Some(w) => w,
            None => match self.start() {
                Ok(w) => w,
                Err(e) => return self.give_up(format!("no watcher ({e}): every map walks"), cap),
            },
        };
        if let Err(e) = watcher.watch(folder, RecursiveMode::NonRecursive) {
            // ENOSPC: the kernel's watch limit (fs.inotify.max_user_watches) is reached.
            let why = format!(
                "cannot watch {} ({e}; the limit is fs.inotify.max_user_watches): every map walks",
                folder.display()
            );
            return self.give_up(why, cap);
        }
        self.folders.insert(folder.to_path_buf());
        true
    }

    /// Everything that changed since the last call.
    pub fn take(&self) -> Changes {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Notes changes the daemon made itself (its edits' events): they count at once, not when
    /// the kernel's event arrives.
    pub fn note(&self, paths: impl IntoIterator<Item = PathBuf>) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        for path in paths {
            pending.add(path);
        }
    }

    pub fn folders(&self) -> usize {
        self.folders.len()
    }

    fn start(&mut self) -> notify::Result<&mut RecommendedWatcher> {
        let pending = self.pending.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let mut pending = pending.lock().unwrap_or_else(|e| e.into_inner());
            match event {
                Ok(event) if event.need_rescan() => pending.lost(),
                Ok(event) if event.kind.is_access() => {}
                Ok(event) => event.paths.into_iter().for_each(|p| pending.add(p)),
                Err(_) => pending.lost(),
            }
        })?;
        Ok(self.watcher.insert(watcher))
    }

    fn give_up(&mut self, why: String, cap: u64) -> bool {
        tracing::info!("map: {why}");
        self.watcher = None;
        self.folders.clear();
        self.broken = Some((why, cap));
        false
    }
}
