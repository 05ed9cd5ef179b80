//! The shadow repository: a git directory under the daemon's data folder whose work tree is the
//! workspace root. The user's `.git` is never opened: every command runs with `GIT_DIR` and
//! `GIT_WORK_TREE` pointing here, with no system or global config (`Isolation::Shadow`).
//!
//! A snapshot is built with plumbing, so no hook, signing or filter ever runs:
//! `diff-files` and `ls-files --others` list what changed since the last snapshot (the persistent
//! index is the stat cache that makes this incremental), coderd filters that list (secrets by the
//! jail's own matcher, untracked files over the size cap, nested repositories), then
//! `update-index --stdin` hashes exactly what passed, `write-tree`, `commit-tree`, and
//! `update-ref` with the old value (a compare-and-swap). Nothing that was filtered out is ever
//! hashed into the store.
//!
//! Every writer takes `lock` (an `flock`, which the kernel drops when a process dies), so a lock
//! file git left behind when it was killed is stale by construction and removed before the next run.

use super::roots::Tree;
use crate::command::{nul_records, Git, GitError, Isolation};
use coderd_core::error::{Code, Error};
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod snapshot;

pub use snapshot::Extra;

/// The ref that holds the newest snapshot; older ones are its ancestors.
pub const REF: &str = "refs/heads/checkpoints";

/// The identity on every snapshot commit (the user's own identity is never needed or read).
const IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "coderd"),
    ("GIT_AUTHOR_EMAIL", "coderd@localhost"),
    ("GIT_COMMITTER_NAME", "coderd"),
    ("GIT_COMMITTER_EMAIL", "coderd@localhost"),
];

/// Settings of the shadow repository, appended to its config at creation.
const SHADOW_CONFIG: &str = "[core]\n\tbare = false\n\tautocrlf = false\n\tsafecrlf = false\n\
\tsymlinks = true\n\tfilemode = true\n\tuntrackedCache = true\n\tlogAllRefUpdates = false\n\
[gc]\n\tauto = 0\n[index]\n\tversion = 4\n";

/// The shadow repository's `info/attributes`, which outranks every `.gitattributes` of the work
/// tree: no attribute that converts content applies, so a blob is the file's exact bytes and a
/// restore gives them back unchanged (`eol=crlf`, `ident`, a filter, an encoding are all the
/// workspace's business, not the snapshot's).
const RAW_ATTRIBUTES: &str = "* -text !eol -ident -filter -working-tree-encoding\n";

/// Caps a snapshot works under.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Untracked files larger than this are skipped (and reported).
    pub max_file_bytes: u64,
    /// A tree with more files than this is not snapshotted at all.
    pub max_files: u64,
}

/// Why a snapshot did not happen.
#[derive(Debug)]
pub enum SnapshotError {
    Git(GitError),
    TooManyFiles {
        files: u64,
        cap: u64,
    },
    Io(String),
    /// Refused before git ran (a file git would read is not a regular file).
    Refused(Error),
}

impl From<GitError> for SnapshotError {
    fn from(e: GitError) -> Self {
        SnapshotError::Git(e)
    }
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotError::Git(e) => write!(f, "{e}"),
            SnapshotError::TooManyFiles { files, cap } => write!(
                f,
                "the workspace has more than {cap} files to snapshot ({files} found); \
                 checkpoint_max_files caps it"
            ),
            SnapshotError::Io(e) => write!(f, "{e}"),
            SnapshotError::Refused(e) => write!(f, "{}", e.message),
        }
    }
}

impl SnapshotError {
    /// The wire error for an explicit request.
    pub fn into_error(self) -> Error {
        match self {
            SnapshotError::Refused(e) => e,
            SnapshotError::Git(GitError::TimedOut(after)) => Error::new(
                Code::TimedOut,
                format!("the snapshot did not finish in {} s", after.as_secs()),
            )
            .with_recovery("ignore large generated folders in .gitignore, then retry"),
            e @ SnapshotError::TooManyFiles { .. } => Error::too_large(e.to_string())
                .with_recovery(
                    "ignore generated folders in .gitignore, or raise checkpoint_max_files",
                ),
            SnapshotError::Git(GitError::NotInstalled) => {
                Error::not_found("git is not installed; checkpoints need it")
                    .with_recovery("install git and retry")
            }
            e => Error::io(format!("checkpoint: {e}")),
        }
    }
}

/// What one snapshot did, and one entry of `list`: the wire's types, shared with clients.
pub use wire::answers::checkpoint::{Entry, Snapshot};

/// The shadow repository of a workspace: one git directory for all its roots (see `roots`).
pub struct Shadow {
    pub git_dir: PathBuf,
    /// The roots, the primary first.
    pub trees: Vec<Tree>,
    /// Which ignore rules pick this daemon's new files (see `snapshot::Rules`).
    rules: snapshot::Rules,
}

/// Held while a snapshot or restore writes the shadow repository.
pub struct Locked {
    _file: File,
}

impl Shadow {
    /// The shadow repository of the workspace `roots` (the primary first) under `data_dir`, not
    /// created until the first snapshot. It is named by a hash of the roots in order (for one
    /// root, of that root), so another set of roots gets a store of its own.
    pub fn new(data_dir: &Path, roots: &[PathBuf]) -> Shadow {
        let tag = wire::tag::of_paths(roots);
        let git_dir = data_dir.join("checkpoints").join(tag);
        Shadow {
            trees: Tree::all(&git_dir, roots),
            git_dir,
            rules: snapshot::Rules::default(),
        }
    }

    /// The primary root.
    pub fn primary(&self) -> &Path {
        &self.trees[0].work_tree
    }

    /// A git command on the shadow repository's objects and refs.
    pub fn git(&self, deadline: Instant) -> Git {
        self.tree_git(&self.trees[0], deadline)
    }

    /// A git command on one root: its work tree and its own index.
    fn tree_git(&self, tree: &Tree, deadline: Instant) -> Git {
        self.index_git(tree, &tree.index, deadline)
    }

    /// A git command on one root with the index file `index`.
    fn index_git(&self, tree: &Tree, index: &Path, deadline: Instant) -> Git {
        let mut git = Git::new(&tree.work_tree, Isolation::Shadow, deadline)
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &tree.work_tree)
            .env("GIT_INDEX_FILE", index);
        for (key, value) in IDENTITY {
            git = git.env(key, value);
        }
        git
    }

    fn exists(&self) -> bool {
        self.git_dir.join("HEAD").is_file()
    }

    /// Takes the writer lock (waiting for another daemon's snapshot of the same root), creating
    /// the repository first if needed, and clears what a killed run left behind.
    pub fn lock(&self, deadline: Instant) -> Result<Locked, SnapshotError> {
        use std::os::unix::fs::DirBuilderExt;
        let io = |what: &str, e: std::io::Error| {
            SnapshotError::Io(format!("{what} {}: {e}", self.git_dir.display()))
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.git_dir)
            .map_err(|e| io("creating", e))?;
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.git_dir.join("coderd.lock"))
            .map_err(|e| io("opening the lock of", e))?;
        wait_for_flock(&file, deadline).map_err(|e| io("locking", e))?;
        if !self.exists() {
            self.init(deadline)?;
        }
        self.keep_bytes_raw()
            .map_err(|e| io("writing info/attributes of", e))?;
        self.clear_stale_locks();
        Ok(Locked { _file: file })
    }

    fn init(&self, deadline: Instant) -> Result<(), SnapshotError> {
        // No template: sample hooks and a description are files nobody here reads.
        self.git(deadline)
            .args(["init", "--quiet", "--template="])
            .run()?;
        let config = self.git_dir.join("config");
        let mut text = std::fs::read_to_string(&config).unwrap_or_default();
        text.push_str(SHADOW_CONFIG);
        std::fs::write(&config, text).map_err(|e| SnapshotError::Io(e.to_string()))
    }

    /// Writes `RAW_ATTRIBUTES` (also into stores made before it existed).
    fn keep_bytes_raw(&self) -> std::io::Result<()> {
        let info = self.git_dir.join("info");
        let file = info.join("attributes");
        if std::fs::read(&file).is_ok_and(|now| now == RAW_ATTRIBUTES.as_bytes()) {
            return Ok(());
        }
        std::fs::create_dir_all(&info)?;
        std::fs::write(file, RAW_ATTRIBUTES)
    }

    /// Under the lock nobody else writes here, so any git lock file is a killed run's leftover.
    fn clear_stale_locks(&self) {
        self.clear_index_copies();
        let mut locks: Vec<PathBuf> = self.trees.iter().map(|t| lock_of(&t.index)).collect();
        locks.push(self.git_dir.join(format!("{REF}.lock")));
        if !locks.iter().any(|l| l.exists()) {
            return;
        }
        tracing::info!(
            "checkpoint: removing lock files left by an interrupted snapshot in {}",
            self.git_dir.display()
        );
        locks.extend(["HEAD.lock", "packed-refs.lock"].map(|l| self.git_dir.join(l)));
        for lock in locks {
            let _ = std::fs::remove_file(lock);
        }
        remove_temp_objects(&self.git_dir.join("objects"));
    }

    /// Removes the index copies a killed `keep` left (`<index>.hold-N` and its lock): the numbers
    /// start again in the next daemon, whose git would find the old lock and refuse.
    fn clear_index_copies(&self) {
        for tree in &self.trees {
            let (Some(dir), Some(name)) = (tree.index.parent(), tree.index.file_name()) else {
                continue;
            };
            let mut prefix = name.to_owned();
            prefix.push(".hold-");
            let prefix = prefix.as_encoded_bytes();
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_name().as_encoded_bytes().starts_with(prefix) {
                    tracing::info!(
                        "checkpoint: removing {} left by an interrupted keep",
                        entry.path().display()
                    );
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }

    /// The newest snapshot's commit, if any (read from the ref file: refs are never packed here).
    pub fn head(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.git_dir.join(REF)).ok()?;
        let hash = text.trim();
        (!hash.is_empty()).then(|| hash.to_string())
    }

    /// Validates a hash the caller gave and returns the full commit id it names here.
    pub fn resolve_commit(&self, hash: &str, deadline: Instant) -> Result<String, Error> {
        let valid = (4..=64).contains(&hash.len())
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !valid {
            return Err(Error::bad_input(format!(
                "`restore`: {hash:?} is not a checkpoint hash (4 to 64 lowercase hex digits)"
            ))
            .with_recovery("take the hash from `checkpoint --list`"));
        }
        let not_found = || {
            Error::not_found(format!("`restore`: no checkpoint {hash}"))
                .with_recovery("take the hash from `checkpoint --list`")
        };
        if !self.exists() {
            return Err(not_found());
        }
        let output = self
            .git(deadline)
            .args(["rev-parse", "--verify", "--quiet"])
            .arg(format!("{hash}^{{commit}}"))
            .output()
            .map_err(|e| Error::io(format!("checkpoint: {e}")))?;
        if !output.status.success() {
            return Err(not_found());
        }
        Ok(text_of(output))
    }

    /// The newest snapshots first, at most `limit`.
    pub fn list(&self, limit: usize, deadline: Instant) -> Result<Vec<Entry>, GitError> {
        let Some(head) = self.head() else {
            return Ok(Vec::new());
        };
        let output = self
            .git(deadline)
            .args(["log", "--no-renames", "--name-only", "-z"])
            .arg("--format=%x1e%H%x00%ct%x00%s")
            .arg(format!("--max-count={limit}"))
            .arg(head)
            .run()?;
        Ok(parse_log(&output.stdout))
    }

    /// The paths that differ between two snapshots, with what each is in `to`.
    pub fn changes(
        &self,
        from: &str,
        to: &str,
        deadline: Instant,
    ) -> Result<Vec<Change>, GitError> {
        let output = self
            .git(deadline)
            .args(["diff-tree", "-r", "-z", "--no-renames", from, to])
            .run()?;
        Ok(parse_diff_tree(&output.stdout))
    }

    /// The contents of blobs, in the order asked.
    pub fn blobs(&self, ids: &[&str], deadline: Instant) -> Result<Vec<Vec<u8>>, GitError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = ids.join("\n");
        input.push('\n');
        let output = self
            .git(deadline)
            .args(["cat-file", "--batch"])
            .input(input.into_bytes())
            .run()?;
        parse_batch(&output.stdout, ids.len()).ok_or_else(|| GitError::Failed {
            code: None,
            stderr: "cat-file --batch answered in an unexpected format".into(),
        })
    }
}

/// One path that differs between two snapshots.
#[derive(Debug, Clone)]
pub struct Change {
    pub path: Vec<u8>,
    /// Git's mode in the target (`0` when the path is absent there).
    pub mode: u32,
    pub blob: String,
}

/// The lock file git takes for an index file (`index` → `index.lock`).
fn lock_of(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

fn text_of(output: crate::command::Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// Waits for an exclusive `flock` until the deadline.
fn wait_for_flock(file: &File, deadline: Instant) -> std::io::Result<()> {
    use rustix::fs::{flock, FlockOperation};
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::WOULDBLOCK) if Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Removes `tmp_obj_*` and `tmp_pack_*` files a killed git left in the object store.
fn remove_temp_objects(objects: &Path) {
    let Ok(folders) = std::fs::read_dir(objects) else {
        return;
    };
    for folder in folders.flatten() {
        let Ok(files) = std::fs::read_dir(folder.path()) else {
            continue;
        };
        for file in files.flatten() {
            let name = file.file_name();
            let name = name.as_bytes();
            if name.starts_with(b"tmp_obj_")
                || name.starts_with(b"tmp_pack_")
                || name.starts_with(b"tmp_idx_")
            {
                let _ = std::fs::remove_file(file.path());
            }
        }
    }
}

/// `log --name-only -z --format=%x1e%H%x00%ct%x00%s`: per commit, the header fields, then the
/// names (the first one after a newline).
fn parse_log(bytes: &[u8]) -> Vec<Entry> {
    bytes
        .split(|b| *b == 0x1e)
        .filter(|r| !r.is_empty())
        .filter_map(|record| {
            let mut fields = record.split(|b| *b == 0);
            let hash = String::from_utf8_lossy(fields.next()?).into_owned();
            let time = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
            let label = String::from_utf8_lossy(fields.next()?).into_owned();
            let files_changed = fields.filter(|f| !f.is_empty() && *f != b"\n").count();
            Some(Entry {
                hash,
                time,
                label,
                files_changed,
            })
        })
        .collect()
}

/// `diff-tree -r -z`: `:oldmode newmode oldblob newblob status\0path\0`.
fn parse_diff_tree(bytes: &[u8]) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut records = nul_records(bytes);
    while let (Some(meta), Some(path)) = (records.next(), records.next()) {
        let meta = String::from_utf8_lossy(meta);
        let fields: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [_, new_mode, _, new_blob, _] = fields[..] else {
            continue;
        };
        changes.push(Change {
            path: path.to_vec(),
            mode: u32::from_str_radix(new_mode, 8).unwrap_or(0),
            blob: new_blob.to_string(),
        });
    }
    changes
}

/// `cat-file --batch`: per object `<id> <type> <size>\n<bytes>\n`.
fn parse_batch(mut bytes: &[u8], expected: usize) -> Option<Vec<Vec<u8>>> {
    let mut blobs = Vec::with_capacity(expected);
    while !bytes.is_empty() {
        let newline = memchr::memchr(b'\n', bytes)?;
        let header = std::str::from_utf8(&bytes[..newline]).ok()?;
        let size: usize = header.rsplit(' ').next()?.parse().ok()?;
        let start = newline + 1;
        blobs.push(bytes.get(start..start + size)?.to_vec());
        bytes = bytes.get(start + size + 1..).unwrap_or_default();
    }
    (blobs.len() == expected).then_some(blobs)
}

#[cfg(test)]
mod tests;
