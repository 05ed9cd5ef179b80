//! The secrets a sandboxed command must not see: every path inside the roots that the jail's
//! non-accessible globs match, and every entry that *is* one of the jail's secrets by identity
//! under another name (renamed, moved, hard-linked: see `jail::identities`), found by walking the
//! roots before each run (the masks are mounts, so they cover what exists when the run starts). A
//! folder whose every entry is a secret (`secrets/**`) is masked whole. Each walk renews the jail's
//! set of identities: the secrets it masked, and what lies inside the secret folders.
//!
//! A folder's names change only with its modification time, so each folder's findings are kept
//! with its identity and time, and a later walk lists again only the folders whose time moved: one
//! `stat` per folder instead of a listing. A folder changed within the last two seconds is listed
//! again every time, since two changes within one tick of a coarse file-system clock leave the
//! same time. The noise folders of `default_exclude_globs` (`.git`, `node_modules`, `target`,
//! `.venv`, ...), which hold most folders of a big tree and no hand-placed secret, are checked at
//! most every 30 seconds: what they held at their last check is masked meanwhile — unless a known
//! secret left the place it was found at or gained a hard link: then the secret may be anywhere,
//! and the walk checks the noise folders again at once.

use coderd_core::jail::{Identity, Jail};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// A name no real file has: when the globs match it inside a folder, they match every entry.
const PROBE: &str = ".coderd-mask-probe\u{1}";

/// How recent a folder's change must be for its findings not to be trusted next time.
const RACY: Duration = Duration::from_secs(2);

/// How long the findings in a noise folder (`node_modules`, `target`) are kept unchecked.
const NOISE_RECHECK: Duration = Duration::from_secs(30);

/// Findings of folders not walked for this long are forgotten (when the memory has grown).
const FORGET: Duration = Duration::from_secs(300);

/// Entries looked at inside one secret folder for their identities.
const INSIDE_SECRET_FOLDER: usize = 10_000;

/// What to mask, as absolute paths, and how answers name them (root-relative).
#[derive(Default, Debug)]
pub struct Secrets {
    pub files: Vec<PathBuf>,
    pub dirs: Vec<PathBuf>,
    pub shown: Vec<String>,
}

/// A mask: the root, the root-relative path, and whether it is (or points to) a folder.
type Mask = (PathBuf, PathBuf, bool);

/// What one folder held when it was last listed.
struct Folder {
    /// Device, inode and modification time; `None` when it changed too recently to trust.
    stamp: Option<(u64, u64, i64, i64)>,
    /// Entries to walk into.
    subfolders: Vec<OsString>,
    /// Entries to mask: name and whether it is (or points to) a folder.
    secrets: Vec<(OsString, bool)>,
    /// When a walk last went through it.
    seen: Instant,
}

/// What the walks remember, by absolute path.
#[derive(Default)]
struct Memory {
    folders: HashMap<PathBuf, Folder>,
    /// The masks inside each noise folder, and when they were last checked.
    noise: HashMap<PathBuf, (Instant, Vec<Mask>)>,
    /// The link count of each secret at the last walk: a new hard link can be anywhere.
    links: HashMap<Identity, u64>,
}

static MEMORY: LazyLock<Mutex<Memory>> = LazyLock::new(Default::default);

/// Walks every root of `jail` for paths its non-accessible globs match, or whose identity is one
/// of its secrets, and renews the jail's set of identities.
pub fn find(jail: &Jail) -> Secrets {
    let mut memory = MEMORY.lock().unwrap_or_else(|e| e.into_inner());
    let known = jail.secret_ids.snapshot();
    let mut masks = walk(jail, &mut memory, &known, false);
    let mut found = identities(&masks);
    let moved = known.iter().any(|id| !found.contains_key(id));
    let linked = found
        .iter()
        .any(|(id, links)| memory.links.get(id).is_some_and(|before| links > before));
    if moved || linked {
        // A secret left its place or gained a name, which may be in a noise folder: look there too.
        masks = walk(jail, &mut memory, &known, true);
        found = identities(&masks);
    }
    jail.secret_ids.replace(found.keys().copied().collect());
    memory.links = found;
    shown(masks)
}

/// One walk over every root; `recheck` looks into noise folders whatever their last check.
fn walk(jail: &Jail, memory: &mut Memory, known: &HashSet<Identity>, recheck: bool) -> Vec<Mask> {
    let mut walk = Walk {
        jail,
        memory,
        known,
        inodes: known.iter().map(Identity::inode).collect(),
        recheck,
        visited: 0,
    };
    let mut masks = Vec::new();
    for root in jail.roots() {
        walk.subtree(&root.path, PathBuf::new(), &mut masks);
    }
    let visited = walk.visited;
    if memory.folders.len() > 2 * visited + 1024 {
        memory.folders.retain(|_, f| f.seen.elapsed() < FORGET);
        memory
            .noise
            .retain(|_, (checked, _)| checked.elapsed() < FORGET);
    }
    masks
}

/// The identities (and link counts) of the masked files and folders and of what the folders
/// hold. A link named like a secret makes its target no secret: it is left out.
fn identities(masks: &[Mask]) -> HashMap<Identity, u64> {
    let mut found = HashMap::new();
    for (root, rel, is_dir) in masks {
        let abs = root.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&abs) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            continue;
        }
        found.insert(Identity::of(&meta), meta.nlink());
        if *is_dir {
            inside(&abs, &mut found);
        }
    }
    found
}

/// The identities of what a secret folder holds, so a file moved out of it stays a secret.
fn inside(folder: &Path, found: &mut HashMap<Identity, u64>) {
    let mut pending = vec![folder.to_path_buf()];
    let mut looked = 0;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            looked += 1;
            if looked > INSIDE_SECRET_FOLDER {
                return;
            }
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                continue;
            }
            if meta.is_dir() {
                pending.push(entry.path());
            }
            found.insert(Identity::of(&meta), meta.nlink());
        }
    }
}

/// What to mask, and how answers name it.
fn shown(masks: Vec<Mask>) -> Secrets {
    let mut found = Secrets::default();
    for (root, rel, is_dir) in masks {
        let shown = rel.display().to_string();
        match is_dir {
            true => {
                found.dirs.push(root.join(&rel));
                found.shown.push(format!("{shown}/"));
            }
            false => {
                found.files.push(root.join(&rel));
                found.shown.push(shown);
            }
        }
    }
    found
}

struct Walk<'a> {
    jail: &'a Jail,
    memory: &'a mut Memory,
    /// The secrets by identity before this walk, and their inodes (what a listing shows).
    known: &'a HashSet<Identity>,
    inodes: HashSet<u64>,
    /// Look into noise folders whatever their last check.
    recheck: bool,
    visited: usize,
}

impl Walk<'_> {
    /// Adds the masks below `root/start` to `masks`.
    fn subtree(&mut self, root: &Path, start: PathBuf, masks: &mut Vec<Mask>) {
        let mut pending = vec![start.clone()];
        while let Some(rel) = pending.pop() {
            if rel != start && self.jail.is_default_excluded(&rel) {
                self.noise_folder(root, rel, masks);
            } else {
                self.folder(root, rel, &mut pending, masks);
            }
        }
    }

    /// A noise folder: its masks as last checked, or checked now when that is too long ago.
    fn noise_folder(&mut self, root: &Path, rel: PathBuf, masks: &mut Vec<Mask>) {
        let abs = root.join(&rel);
        if let Some((checked, inside)) = self.memory.noise.get(&abs) {
            if !self.recheck && checked.elapsed() < NOISE_RECHECK {
                masks.extend(inside.iter().cloned());
                return;
            }
        }
        let mut inside = Vec::new();
        self.subtree(root, rel, &mut inside);
        masks.extend(inside.iter().cloned());
        self.memory.noise.insert(abs, (Instant::now(), inside));
    }

    /// One folder: its masks into `masks`, its subfolders into `pending`.
    fn folder(
        &mut self,
        root: &Path,
        rel: PathBuf,
        pending: &mut Vec<PathBuf>,
        masks: &mut Vec<Mask>,
    ) {
        let abs = root.join(&rel);
        let Ok(meta) = std::fs::symlink_metadata(&abs) else {
            return;
        };
        self.visited += 1;
        let stamp = (meta.dev(), meta.ino(), meta.mtime(), meta.mtime_nsec());
        let known = self.memory.folders.get_mut(&abs);
        let folder = match known {
            Some(folder) if folder.stamp == Some(stamp) => folder,
            _ => {
                let listed = self.list(root, &rel, stamp, &meta);
                self.memory.folders.insert(abs.clone(), listed);
                self.memory.folders.get_mut(&abs).expect("just inserted")
            }
        };
        folder.seen = Instant::now();
        for (name, is_dir) in &folder.secrets {
            masks.push((root.to_path_buf(), rel.join(name), *is_dir));
        }
        pending.extend(folder.subfolders.iter().map(|name| rel.join(name)));
    }

    /// Lists one folder: its secrets and the folders to walk into.
    fn list(
        &self,
        root: &Path,
        rel: &Path,
        stamp: (u64, u64, i64, i64),
        meta: &std::fs::Metadata,
    ) -> Folder {
        let settled = meta
            .modified()
            .ok()
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age > RACY);
        let mut folder = Folder {
            stamp: settled.then_some(stamp),
            subfolders: Vec::new(),
            secrets: Vec::new(),
            seen: Instant::now(),
        };
        let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
            return folder;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let child = rel.join(&name);
            if self.jail.is_non_accessible(&child) {
                // A link named like a secret is masked where it points (that is what a reader
                // gets); a dangling one hides nothing.
                let abs = root.join(&child);
                if kind.is_symlink() && !abs.exists() {
                    continue;
                }
                let is_dir = kind.is_dir() || (kind.is_symlink() && abs.is_dir());
                folder.secrets.push((name, is_dir));
            } else if self.is_known(&entry, &kind) {
                folder.secrets.push((name, kind.is_dir()));
            } else if kind.is_dir() {
                if self.jail.is_non_accessible(&child.join(PROBE)) {
                    folder.secrets.push((name, true));
                } else {
                    folder.subfolders.push(name);
                }
            }
        }
        folder
    }

    /// Whether a listed entry is a known secret under another name: its inode first (the listing
    /// has it), then its whole identity.
    fn is_known(&self, entry: &std::fs::DirEntry, kind: &std::fs::FileType) -> bool {
        !kind.is_symlink()
            && self.inodes.contains(&entry.ino())
            && std::fs::symlink_metadata(entry.path())
                .is_ok_and(|meta| self.known.contains(&Identity::of(&meta)))
    }
}
