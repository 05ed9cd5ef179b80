//! Writing a snapshot with plumbing: list what changed since the last one, filter it, hash
//! exactly what passed (in bulk when git can), write the trees and move the ref with a
//! compare-and-swap.

use super::{text_of, Caps, Locked, Shadow, Snapshot, SnapshotError, REF};
use crate::checkpoint::roots::Tree;
use crate::command::{nul_records, Git, GitError, Isolation};
use crate::repository::Pinned;
use coderd_core::jail::Jail;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

impl Shadow {
    /// Records every root as one new snapshot (unless nothing changed since the last one).
    pub fn snapshot(
        &self,
        _locked: &Locked,
        jail: &Jail,
        caps: Caps,
        label: &str,
        deadline: Instant,
    ) -> Result<Snapshot, SnapshotError> {
        // Stores made before the user's excludes were passed per root held a copy of them here.
        let _ = std::fs::remove_file(self.git_dir.join("info").join("exclude"));
        let mut plan = Plan::default();
        let mut files = 0;
        let mut changed = Vec::with_capacity(self.trees.len());
        for tree in &self.trees {
            let before = plan.paths.len();
            self.plan_tree(tree, jail, caps, &mut plan, deadline)?;
            files += index_entries(&tree.index);
            changed.push(plan.paths.len() - before);
        }
        let files = files + plan.added as u64;
        if files > caps.max_files {
            return Err(SnapshotError::TooManyFiles {
                files,
                cap: caps.max_files,
            });
        }
        // Even with nothing to hash, the tree is written from the indexes and compared with the
        // last snapshot's: a snapshot killed after `update-index` left an index ahead of the ref,
        // and a restore's undo snapshot may hold files the indexes leave out. Either way the
        // snapshot must be what the indexes hold, since a restore trusts them (`restore`).
        let parent = self.head();
        let mut at = 0;
        let mut root_trees = Vec::with_capacity(self.trees.len());
        for (tree, count) in self.trees.iter().zip(changed) {
            let paths = &plan.paths[at..at + count];
            at += count;
            root_trees.push(self.write_tree(tree, paths, deadline)?);
        }
        let tree = self.top_tree(&root_trees, deadline)?;
        if let Some(parent) = &parent {
            let same = self
                .git(deadline)
                .args(["rev-parse", "--verify", "--quiet"])
                .arg(format!("{parent}^{{tree}}"))
                .run()
                .map(text_of)
                .is_ok_and(|parent_tree| parent_tree == tree);
            if same {
                return Ok(plan.into_snapshot(parent.clone(), false));
            }
        }
        let mut commit = self.git(deadline).args(["commit-tree", &tree, "-m", label]);
        if let Some(parent) = &parent {
            commit = commit.args(["-p", parent]);
        }
        let hash = text_of(commit.run()?);
        let old = parent.clone().unwrap_or_default();
        self.git(deadline)
            .args(["update-ref", "-m", "checkpoint", REF, &hash, &old])
            .run()?;
        Ok(plan.into_snapshot(hash, true))
    }

    /// Adds to `plan` what changed in one root since its last snapshot: `diff-files` against its
    /// index (the stat cache), `ls-files --others` under its excludes, each path filtered.
    fn plan_tree(
        &self,
        tree: &Tree,
        jail: &Jail,
        caps: Caps,
        plan: &mut Plan,
        deadline: Instant,
    ) -> Result<(), SnapshotError> {
        // The user's config is read for `core.excludesFile`: a FIFO it includes would hang here,
        // and the root's own repository is found inside the root only (`repository::find`).
        let pinned = user_repository(tree, jail, deadline).map_err(SnapshotError::Refused)?;
        let own_rules = self.rules.own.load(Ordering::Relaxed);
        let untracked = self.untracked(tree, jail, pinned.as_ref(), own_rules, deadline);
        // The two scans (an `lstat` per tracked file; a read of every folder) only read the
        // index, so they run side by side: on a large tree they are most of an incremental
        // snapshot.
        let (modified, untracked) = std::thread::scope(|scope| {
            let modified = scope.spawn(|| {
                self.tree_git(tree, deadline)
                    .args(["diff-files", "-z", "--name-only", "--ignore-submodules"])
                    .run()
            });
            let untracked = untracked.run();
            let modified = modified.join().unwrap_or_else(|_| {
                Err(GitError::Failed {
                    code: None,
                    stderr: "the diff-files thread panicked".into(),
                })
            });
            (modified, untracked)
        });
        let (modified, mut untracked) = (modified?, untracked?);
        // A `.gitignore` written since this daemon's first snapshot could hide any new file:
        // from now on new files are picked by the snapshots' own rules.
        let rules_changed = nul_records(&modified.stdout)
            .chain(nul_records(&untracked.stdout))
            .any(is_gitignore);
        let first = !self.rules.baseline.swap(true, Ordering::Relaxed);
        if rules_changed && !first && !own_rules {
            tracing::info!(
                "checkpoint: a .gitignore changed in {}; snapshots pick new files by their own \
                 rules (default_exclude_globs) until the daemon restarts",
                tree.work_tree.display()
            );
            self.rules.own.store(true, Ordering::Relaxed);
            untracked = self
                .untracked(tree, jail, pinned.as_ref(), true, deadline)
                .run()?;
        }
        for path in nul_records(&modified.stdout) {
            plan.consider(jail, tree, path, None);
        }
        for path in nul_records(&untracked.stdout) {
            plan.consider(jail, tree, path, Some(caps.max_file_bytes));
        }
        plan.own_rules = self.rules.own.load(Ordering::Relaxed);
        Ok(())
    }

    /// The listing of one root's new files. Every `.gitignore` is listed, even one that ignores
    /// itself, so a changed rule is always seen. The `.gitignore` files and the user's
    /// `core.excludesFile` pick the rest, until a `.gitignore` changes (`own_rules`): then only
    /// the jail's `default_exclude_globs` do. The repository's `.git/info/exclude` never applies:
    /// a command could write it to hide every new file.
    fn untracked(
        &self,
        tree: &Tree,
        jail: &Jail,
        pinned: Option<&Pinned>,
        own_rules: bool,
        deadline: Instant,
    ) -> Git {
        let mut git = self.tree_git(tree, deadline);
        if !own_rules {
            if let Some(path) = user_excludes_file(tree, pinned, deadline) {
                git = git.arg("-c").arg(format!("core.excludesFile={path}"));
            }
        }
        git = git.args(["ls-files", "-z", "--others"]);
        match own_rules {
            true => {
                for glob in &jail.default_exclude_globs {
                    git = git.arg(format!("--exclude={glob}"));
                }
                git
            }
            // The shadow repository's own `info/exclude` (which `--exclude-standard` reads) is
            // removed before every snapshot, so this is the `.gitignore` files and the user's
            // `core.excludesFile`.
            false => git.args(["--exclude-standard", "--exclude=!.gitignore"]),
        }
    }

    /// Hashes `paths` of one root into its index, then writes the root's tree.
    fn write_tree(
        &self,
        tree: &Tree,
        paths: &[Vec<u8>],
        deadline: Instant,
    ) -> Result<String, SnapshotError> {
        if !paths.is_empty() {
            self.tree_git(tree, deadline)
                .args(bulk_checkin(paths.len(), deadline))
                .args([
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ])
                .input(nul_terminated(paths))
                .run()?;
        }
        Ok(text_of(
            self.tree_git(tree, deadline).arg("write-tree").run()?,
        ))
    }

    /// The snapshot's tree: the root's own with one root, else a folder per root.
    fn top_tree(&self, root_trees: &[String], deadline: Instant) -> Result<String, SnapshotError> {
        if let [only] = root_trees {
            return Ok(only.clone());
        }
        let mut listing = Vec::new();
        for (tree, id) in self.trees.iter().zip(root_trees) {
            let name = tree.entry.as_deref().unwrap_or_default();
            listing.extend_from_slice(format!("040000 tree {id}\t{name}").as_bytes());
            listing.push(0);
        }
        let made = self
            .git(deadline)
            .args(["mktree", "-z"])
            .input(listing)
            .run()?;
        Ok(text_of(made))
    }

    /// The paths (relative to its root) one root's index holds: what snapshots keep of it.
    pub fn tracked(&self, tree: &Tree, deadline: Instant) -> Result<HashSet<Vec<u8>>, GitError> {
        let listed = self
            .tree_git(tree, deadline)
            .args(["ls-files", "-z", "--cached"])
            .run()?;
        Ok(nul_records(&listed.stdout).map(<[u8]>::to_vec).collect())
    }

    /// A snapshot on top of `base` that also holds `extra` (paths relative to the root of the
    /// tree at that position in `trees`), hashed as they are now, whatever the snapshots' rules
    /// say of them (over the size cap, ignored). Built on copies of the indexes, so later
    /// snapshots go on leaving those files out. With no `base` (an empty store) it is the first
    /// commit. Returns the hash and whether a commit was made (none when the tree is the base's).
    pub fn snapshot_with(
        &self,
        _locked: &Locked,
        base: Option<&str>,
        extra: &[(usize, Extra)],
        label: &str,
        deadline: Instant,
    ) -> Result<(String, bool), SnapshotError> {
        let mut root_trees = Vec::with_capacity(self.trees.len());
        for (position, tree) in self.trees.iter().enumerate() {
            let here: Vec<&Extra> = extra
                .iter()
                .filter(|(at, _)| *at == position)
                .map(|(_, e)| e)
                .collect();
            root_trees.push(self.tree_with(tree, &here, deadline)?);
        }
        let tree = self.top_tree(&root_trees, deadline)?;
        if let Some(base) = base {
            let same = self
                .git(deadline)
                .args(["rev-parse", "--verify", "--quiet"])
                .arg(format!("{base}^{{tree}}"))
                .run()
                .map(text_of)
                .is_ok_and(|base_tree| base_tree == tree);
            if same {
                return Ok((base.to_string(), false));
            }
        }
        let mut commit = self.git(deadline).args(["commit-tree", &tree, "-m", label]);
        if let Some(base) = base {
            commit = commit.args(["-p", base]);
        }
        let hash = text_of(commit.run()?);
        self.git(deadline)
            .args([
                "update-ref",
                "-m",
                "checkpoint",
                REF,
                &hash,
                base.unwrap_or_default(),
            ])
            .run()?;
        Ok((hash, true))
    }

    /// One root's tree as its index holds it plus `extra` (on a copy of the index, which is
    /// removed after).
    fn tree_with(
        &self,
        tree: &Tree,
        extra: &[&Extra],
        deadline: Instant,
    ) -> Result<String, SnapshotError> {
        if extra.is_empty() {
            return Ok(text_of(
                self.tree_git(tree, deadline).arg("write-tree").run()?,
            ));
        }
        let mut copy = tree.index.as_os_str().to_owned();
        copy.push(format!(".hold-{}", hold_suffix()));
        let copy = PathBuf::from(copy);
        match std::fs::copy(&tree.index, &copy) {
            // A root never snapshotted has no index yet: the copy starts empty.
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                let shown = tree.index.display();
                return Err(SnapshotError::Io(format!("copying {shown}: {e}")));
            }
            _ => {}
        }
        let mut paths = Vec::new();
        let mut info = Vec::new();
        for entry in extra {
            match entry {
                Extra::FromTree(rel) => paths.push(rel.clone()),
                Extra::Blob { rel, mode, id } => {
                    info.extend_from_slice(format!("{mode:o} {id}\t").as_bytes());
                    info.extend_from_slice(rel);
                    info.push(0);
                }
            }
        }
        let git = || self.index_git(tree, &copy, deadline);
        let built = (!paths.is_empty())
            .then(|| {
                git()
                    .args(["update-index", "--add", "-z", "--stdin"])
                    .input(nul_terminated(&paths))
                    .run()
            })
            .transpose()
            .and_then(|_| {
                (!info.is_empty())
                    .then(|| {
                        git()
                            .args(["update-index", "-z", "--index-info"])
                            .input(info)
                            .run()
                    })
                    .transpose()
            })
            .and_then(|_| git().arg("write-tree").run());
        let _ = std::fs::remove_file(&copy);
        Ok(text_of(built?))
    }

    /// Writes `contents` as blobs of the store (through files in its private folder, one `git
    /// hash-object` for all), and returns their ids in order.
    pub fn write_blobs(
        &self,
        _locked: &Locked,
        contents: &[&[u8]],
        deadline: Instant,
    ) -> Result<Vec<String>, SnapshotError> {
        let io = |e: std::io::Error| SnapshotError::Io(format!("keeping bytes: {e}"));
        let mut files = Vec::with_capacity(contents.len());
        let mut listing = Vec::new();
        for bytes in contents {
            let file = self
                .git_dir
                .join(format!("keep-{}-{}", std::process::id(), hold_suffix()));
            files.push(file.clone());
            if let Err(e) = std::fs::write(&file, bytes) {
                files.iter().for_each(|f| drop(std::fs::remove_file(f)));
                return Err(io(e));
            }
            listing.extend_from_slice(file.as_os_str().as_bytes());
            listing.push(b'\n');
        }
        let hashed = self
            .git(deadline)
            .args(["hash-object", "-w", "--no-filters", "--stdin-paths"])
            .input(listing)
            .run();
        files.iter().for_each(|f| drop(std::fs::remove_file(f)));
        let ids: Vec<String> = String::from_utf8_lossy(&hashed?.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        match ids.len() == contents.len() {
            true => Ok(ids),
            false => Err(SnapshotError::Io("hash-object answered too few ids".into())),
        }
    }
}

/// A file a snapshot holds beyond what its rules pick.
pub enum Extra {
    /// Hashed from the work tree as it is now (a restore's undo).
    FromTree(Vec<u8>),
    /// A blob already in the store, at `rel` with git's `mode` (kept bytes).
    Blob { rel: Vec<u8>, mode: u32, id: String },
}

/// A name part no other copy of an index uses at the same time (the store's lock serializes
/// writers; this only keeps a copy a killed run left from being reused).
fn hold_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Whether the new files of this daemon's snapshots are picked by the `.gitignore` files as they
/// were at its first snapshot (the baseline) or, once one changed, by the snapshots' own rules.
#[derive(Default)]
pub(super) struct Rules {
    /// The first snapshot of this daemon has listed the roots.
    baseline: AtomicBool,
    /// A `.gitignore` changed since: own rules until the daemon restarts.
    own: AtomicBool,
}

/// A path whose last component is `.gitignore`.
fn is_gitignore(path: &[u8]) -> bool {
    path.rsplit(|b| *b == b'/').next() == Some(b".gitignore")
}

/// What a snapshot will hand to git, and what it left out.
#[derive(Default)]
struct Plan {
    paths: Vec<Vec<u8>>,
    added: usize,
    skipped_large: Vec<String>,
    skipped_secrets: usize,
    skipped_nested_repos: Vec<String>,
    own_rules: bool,
}

impl Plan {
    /// `size_cap` is set for untracked files (which the cap applies to). Paths stay relative to
    /// their root (the jail's matcher and `update-index` both take them so).
    fn consider(&mut self, jail: &Jail, tree: &Tree, path: &[u8], size_cap: Option<u64>) {
        let rel = Path::new(OsStr::from_bytes(path));
        let root = &tree.work_tree;
        let shown = || tree.show(path);
        if jail.is_non_accessible(rel) || jail.is_secret(&root.join(rel)) {
            self.skipped_secrets += 1;
            return;
        }
        if let Some(cap) = size_cap {
            if path.ends_with(b"/") {
                // `ls-files --others` names a nested repository as its folder.
                self.skipped_nested_repos.push(shown());
                return;
            }
            let size = std::fs::symlink_metadata(root.join(rel)).map_or(0, |m| m.len());
            if size > cap {
                self.skipped_large.push(shown());
                return;
            }
            self.added += 1;
        }
        self.paths.push(path.to_vec());
    }

    fn into_snapshot(self, hash: String, created: bool) -> Snapshot {
        Snapshot {
            hash,
            created,
            files_changed: self.paths.len(),
            skipped_large: self.skipped_large,
            skipped_secrets: self.skipped_secrets,
            skipped_nested_repos: self.skipped_nested_repos,
            own_rules: self.own_rules,
        }
    }
}

/// The entry count in an index file's header (`DIRC`, version, count); 0 when there is none.
pub(super) fn index_entries(index: &Path) -> u64 {
    use std::io::Read;
    let mut header = [0u8; 12];
    let read = File::open(index).and_then(|mut f| f.read_exact(&mut header));
    match read {
        Ok(()) if &header[..4] == b"DIRC" => {
            u32::from_be_bytes(header[8..12].try_into().unwrap()) as u64
        }
        _ => 0,
    }
}

/// The repository of a root, pinned inside the roots, its config files checked (C214 for a FIFO);
/// `None` when the root holds none, or one that leads outside the roots: its excludes are then not
/// read (a linked work tree whose main repository is not a root still gets snapshots).
fn user_repository(
    tree: &Tree,
    jail: &Jail,
    deadline: Instant,
) -> coderd_core::error::Result<Option<Pinned>> {
    let Some(root) = jail.locate(&tree.work_tree) else {
        return Ok(None);
    };
    let outside = |e: coderd_core::error::Error| {
        tracing::warn!(
            "checkpoint: the repository's excludes are not read: {}",
            e.message
        );
        Ok(None)
    };
    let mut pinned = match crate::repository::find(jail, &root) {
        Err(e) if e.code == coderd_core::error::Code::OutsideJail => return outside(e),
        found => found?,
    };
    match crate::config_files::check(jail, pinned.as_mut(), Isolation::User, deadline) {
        Err(e) if e.code == coderd_core::error::Code::OutsideJail => outside(e),
        Err(e) => Err(e),
        Ok(()) => Ok(pinned),
    }
}

/// `core.excludesFile` as the user's own config for the root sets it (the shadow repository reads
/// no user config, so it is passed on explicitly). Git's default (`$XDG_CONFIG_HOME/git/ignore`)
/// applies without it.
fn user_excludes_file(tree: &Tree, pinned: Option<&Pinned>, deadline: Instant) -> Option<String> {
    let root = &tree.work_tree;
    let git = Git::new(root, Isolation::User, deadline);
    let git = match pinned {
        Some(pinned) => git.pinned(pinned),
        None => git.no_repository(),
    };
    let output = git
        .args(["config", "--type=path", "--get", "core.excludesFile"])
        .output()
        .ok()?;
    let path = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (output.status.success() && !path.is_empty()).then_some(path)
}

/// Settings for `update-index` when it hashes `paths` files. Many new objects go into one pack
/// file instead of one loose file each: git streams every blob over `core.bigFileThreshold` into
/// a single pack per command (its bulk check-in). On a first snapshot that is one file created
/// instead of ~10,000, which is where `git add -A` spends most of its time. Few objects stay loose,
/// so incremental snapshots do not pile up small packs (the store never repacks: `gc.auto=0`).
/// The threshold is set on this one command only: elsewhere it would make git treat blobs as
/// binary, and the shadow repository's reads (`diff-tree`, `log --name-only`, `cat-file`) never
/// look inside blobs anyway (no attribute converts content here, see `RAW_ATTRIBUTES`). Only with git 2.37 or later: before it, `update-index` did not group
/// its objects into one transaction, and each blob would get a pack of its own.
fn bulk_checkin(paths: usize, deadline: Instant) -> &'static [&'static str] {
    if paths >= BULK_CHECKIN_MIN && git_at_least((2, 37), deadline) {
        &["-c", "core.bigFileThreshold=1"]
    } else {
        &[]
    }
}

/// Whether the installed git is at least `wanted` (asked once per daemon).
fn git_at_least(wanted: (u32, u32), deadline: Instant) -> bool {
    static VERSION: std::sync::OnceLock<Option<(u32, u32)>> = std::sync::OnceLock::new();
    let version = VERSION.get_or_init(|| {
        let output = Git::new(Path::new("/"), Isolation::Shadow, deadline)
            .arg("--version")
            .output()
            .ok()?;
        parse_version(&String::from_utf8_lossy(&output.stdout))
    });
    version.is_some_and(|v| v >= wanted)
}

/// `git version 2.39.5` (also `2.39.5.windows.1`, `2.40.0-rc1`) → (2, 39).
pub(super) fn parse_version(text: &str) -> Option<(u32, u32)> {
    let number = text.trim().strip_prefix("git version ")?;
    let mut parts = number.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// From how many paths a snapshot writes its objects into one pack (see `bulk_checkin`).
const BULK_CHECKIN_MIN: usize = 256;

fn nul_terminated(paths: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(paths.iter().map(|p| p.len() + 1).sum());
    for path in paths {
        bytes.extend_from_slice(path);
        bytes.push(0);
    }
    bytes
}
