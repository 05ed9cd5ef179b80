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
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// How many changes the kernel reported since the start (`ahead` waits for it to move and
    /// settle). The daemon's own edits are reported too; `note` does not count them again, as it
    /// runs inside a map, which has them.
    count: Arc<AtomicU64>,
    /// Why the tree is not watched (then every map walks it), with the cap it was decided under:
    /// a new cap in the config tries again.
    broken: Option<(String, u64)>,
    /// How many times the watches were given up: a listing made before the last time missed
    /// changes since.
    epoch: u64,
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

    /// The count of changes noted so far, read without the tree's lock.
    pub fn count(&self) -> Arc<AtomicU64> {
        self.count.clone()
    }

    /// Changes since the start of a listing made at this epoch are all known when it still is.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    fn start(&mut self) -> notify::Result<&mut RecommendedWatcher> {
        let (pending, count) = (self.pending.clone(), self.count.clone());
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let mut pending = pending.lock().unwrap_or_else(|e| e.into_inner());
            match event {
                Ok(event) if event.kind.is_access() && !event.need_rescan() => return,
                Ok(event) if !event.need_rescan() => {
                    event.paths.into_iter().for_each(|p| pending.add(p))
                }
                _ => pending.lost(),
            }
            count.fetch_add(1, Ordering::Relaxed);
        })?;
        Ok(self.watcher.insert(watcher))
    }

    fn give_up(&mut self, why: String, cap: u64) -> bool {
        tracing::info!("map: {why}");
        self.watcher = None;
        self.folders.clear();
        self.broken = Some((why, cap));
        self.epoch += 1;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_past_the_cap_become_one_overflow_and_hold_no_paths() {
        let mut changes = Changes::default();
        for i in 0..MAX_PENDING {
            changes.add(PathBuf::from(format!("/w/{i}")));
        }
        assert!(!changes.overflow);
        assert_eq!(changes.paths.len(), MAX_PENDING);
        changes.add(PathBuf::from("/w/one-more"));
        assert!(changes.overflow);
        assert!(changes.paths.is_empty());
        changes.add(PathBuf::from("/w/after"));
        assert!(changes.paths.is_empty(), "nothing kept once lost");
    }

    #[test]
    fn a_folder_cap_of_zero_watches_nothing_and_a_new_cap_tries_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = Watch::default();
        assert!(!watch.folder(dir.path(), 0));
        assert!(watch.broken(0).unwrap().contains("map_watch_max_folders"));
        assert_eq!(watch.epoch(), 1);
        assert!(watch.broken(10).is_none(), "a new cap tries again");
        assert!(watch.folder(dir.path(), 10));
        std::fs::write(dir.path().join("f.go"), "package f\n").unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !watch.take().paths.contains(&dir.path().join("f.go")) {
            assert!(std::time::Instant::now() < deadline, "no event");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
