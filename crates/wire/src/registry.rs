//! The registry of live daemons: one small JSON file per running `coderd` under
//! `<runtime dir>/daemons/<pid>.json`, naming its socket and roots. The daemon writes its entry
//! (mode 0600) once its socket is bound and removes it when it stops cleanly; `coder` reads the
//! entries to find a daemon whose roots hold the current folder before it starts a new one, and
//! removes entries whose daemon is gone (dead pid, or a socket that does not answer).

use serde::{Deserialize, Serialize};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

pub use crate::paths::runtime_dir;

/// What a daemon records about itself.
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Entry {
    pub pid: u32,
    pub socket: PathBuf,
    /// Canonical roots, the primary first.
    pub roots: Vec<PathBuf>,
    pub version: String,
}

/// The folder holding one `<pid>.json` per live daemon.
pub fn registry_dir() -> PathBuf {
    runtime_dir().join("daemons")
}

/// A daemon's own entry; removed from the registry when dropped (a clean stop).
pub struct Registration {
    path: PathBuf,
}

impl Registration {
    /// The entry's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes this process's entry (`version`: the daemon's), readable by this user only. The file
/// appears whole (written beside it, then renamed), so a client never reads half an entry.
pub fn register(socket: &Path, roots: &[PathBuf], version: &str) -> std::io::Result<Registration> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = registry_dir();
    crate::paths::create_private_dir(&dir)?;
    let pid = std::process::id();
    let entry = Entry {
        pid,
        socket: std::path::absolute(socket).unwrap_or_else(|_| socket.to_path_buf()),
        roots: roots.to_vec(),
        version: version.into(),
    };
    let path = dir.join(format!("{pid}.json"));
    let partial = dir.join(format!(".{pid}.json.partial"));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&partial)?;
    file.write_all(serde_json::to_string(&entry)?.as_bytes())?;
    drop(file);
    std::fs::rename(&partial, &path)?;
    Ok(Registration { path })
}

/// Why an entry was passed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// A `<pid>.json` that is not an entry, whose pid is gone.
    Unreadable,
    /// The process is gone.
    DeadPid,
    /// The process lives but its socket does not answer.
    NotAnswering,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stale::Unreadable => "not a registry entry",
            Stale::DeadPid => "its process is gone",
            Stale::NotAnswering => "its socket does not answer",
        })
    }
}

/// What a lookup found: the chosen live daemon and its root that holds the folder (if any), and
/// the stale entries it removed.
#[derive(Debug, Default)]
pub struct Lookup {
    /// The daemon chosen, and its root that holds the folder.
    pub found: Option<(Entry, PathBuf)>,
    /// The stale entries removed on the way, and why.
    pub removed: Vec<(PathBuf, Stale)>,
}

/// The live daemon whose roots hold `dir` most closely (the deepest root that is `dir` or one of
/// its ancestors), among those `accept` lets through. Stale entries met on the way are removed.
pub fn find(dir: &Path, accept: impl Fn(&Entry) -> bool) -> Lookup {
    let mut lookup = Lookup::default();
    let Ok(listing) = std::fs::read_dir(registry_dir()) else {
        return lookup;
    };
    let mut candidates: Vec<(PathBuf, PathBuf, Entry)> = Vec::new();
    for item in listing.flatten() {
        let path = item.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let entry = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Entry>(&bytes).ok());
        let Some(entry) = entry else {
            // A file named <pid>.json that is not an entry is left alone unless its pid is dead.
            if pid_of(&path).is_some_and(|pid| !pid_alive(pid)) {
                let _ = std::fs::remove_file(&path);
                lookup.removed.push((path, Stale::Unreadable));
            }
            continue;
        };
        if !pid_alive(entry.pid) {
            let _ = std::fs::remove_file(&path);
            lookup.removed.push((path, Stale::DeadPid));
            continue;
        }
        if !accept(&entry) {
            continue;
        }
        let Some(root) = entry
            .roots
            .iter()
            .filter(|root| dir.starts_with(root))
            .max_by_key(|root| root.components().count())
            .cloned()
        else {
            continue;
        };
        candidates.push((root, path, entry));
    }
    // Deepest root first; among equals, the lowest pid, so the choice is stable.
    candidates.sort_by(|a, b| {
        let depth = |c: &(PathBuf, PathBuf, Entry)| c.0.components().count();
        depth(b).cmp(&depth(a)).then(a.2.pid.cmp(&b.2.pid))
    });
    for (root, path, entry) in candidates {
        match liveness(&entry) {
            None => {
                lookup.found = Some((entry, root));
                break;
            }
            Some(why) => {
                let _ = std::fs::remove_file(&path);
                lookup.removed.push((path, why));
            }
        }
    }
    lookup
}

/// `None` when the daemon is alive and answering, else why not.
fn liveness(entry: &Entry) -> Option<Stale> {
    if !pid_alive(entry.pid) {
        return Some(Stale::DeadPid);
    }
    if UnixStream::connect(&entry.socket).is_err() {
        return Some(Stale::NotAnswering);
    }
    None
}

fn pid_of(path: &Path) -> Option<u32> {
    path.file_stem()?.to_str()?.parse().ok()
}

fn pid_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        // The process exists but belongs to someone else: alive, though not ours to use; the
        // socket check decides.
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_pids_are_dead_and_this_one_is_alive() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(0));
        assert!(!pid_alive(u32::MAX));
    }

    #[test]
    fn pid_comes_from_the_file_name() {
        assert_eq!(pid_of(Path::new("/x/daemons/4242.json")), Some(4242));
        assert_eq!(pid_of(Path::new("/x/daemons/.4242.json.partial")), None);
    }
}
