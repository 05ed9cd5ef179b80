//! `.git` is not the command's: what of a repository inside the roots a sandboxed command may
//! change.
//!
//! A repository's `hooks/`, `config` (`core.fsmonitor`, `core.hooksPath`, aliases) and `info/`
//! name programs the user's next plain `git` runs, outside any sandbox. So inside the namespace
//! sandbox they are read-only binds, while the rest of the git folder stays writable: `git commit`,
//! `git branch`, `git checkout -b` write objects, refs, logs, `index`, `HEAD`, `packed-refs` and
//! `COMMIT_EDITMSG`, and replace most of them by renaming a lock file beside them, so the git
//! folder itself must take new files. The git folder is also bound onto itself (writable), which
//! makes it a mount point: it cannot be renamed away and replaced by one the command wrote. A
//! bind is a mount point too, so the protected entries cannot be renamed, removed or replaced by
//! a `config.lock` either.
//!
//! A missing `hooks/` or `info/` is created empty first (as `git init` makes them), since only
//! something that exists can be bound over. What does not exist cannot be bound over either: a
//! `commondir` file, which makes git read another folder's config and hooks, could be created in
//! the writable git folder. One that a run created is removed when the run ends (`remove_planted`).

use std::path::{Path, PathBuf};

/// Entries of a git folder that run or steer programs at the next git command.
const PROTECTED: &[&str] = &["config", "hooks", "info"];

/// Folders `PROTECTED` needs, created when missing so they can be bound read-only.
const MADE_IF_MISSING: &[&str] = &["hooks", "info"];

/// Files a git folder may lack, that would steer git elsewhere if a command created them.
const POINTERS: &[&str] = &["commondir"];

/// The git folders of the repositories at each root, one level below it, and between the run's
/// folder and its root, as binds: the git folders themselves (bound writable, so they are mount
/// points) and their protected entries (bound read-only on top).
#[derive(Default, Debug, PartialEq)]
pub struct GitBinds {
    pub folders: Vec<PathBuf>,
    pub read_only: Vec<PathBuf>,
    /// `POINTERS` missing before the run: any of them there after it was planted by it.
    pub absent: Vec<PathBuf>,
}

pub fn binds(roots: &[PathBuf], cwd: &Path) -> GitBinds {
    let mut binds = GitBinds::default();
    let around_cwd = cwd
        .ancestors()
        .take_while(|folder| roots.iter().any(|root| folder.starts_with(root)))
        .map(Path::to_path_buf);
    let holders = roots
        .iter()
        .flat_map(|root| std::iter::once(root.clone()).chain(children(root)))
        .chain(around_cwd);
    for holder in holders {
        if let Some(git_dir) = git_folder(&holder) {
            binds.add(&git_dir);
        }
    }
    binds
}

impl GitBinds {
    fn add(&mut self, git_dir: &Path) {
        if self.folders.iter().any(|f| f == git_dir) {
            return;
        }
        for name in MADE_IF_MISSING {
            // Best effort: a folder that cannot be made (a read-only repository) cannot be
            // written by the command either.
            let _ = std::fs::create_dir(git_dir.join(name));
        }
        self.folders.push(git_dir.to_path_buf());
        for name in PROTECTED {
            let path = git_dir.join(name);
            if std::fs::symlink_metadata(&path).is_ok() {
                self.read_only.push(path);
            }
        }
        for name in POINTERS {
            let path = git_dir.join(name);
            if std::fs::symlink_metadata(&path).is_err() {
                self.absent.push(path);
            }
        }
    }
}

/// Removes the pointers of `absent` that a run created; the ones removed. Called once the run
/// is over, before the next git command can read them.
pub fn remove_planted(absent: &[PathBuf]) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for path in absent {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        let gone = match meta.is_dir() {
            true => std::fs::remove_dir_all(path),
            false => std::fs::remove_file(path),
        };
        match gone {
            Ok(()) => removed.push(path.clone()),
            Err(e) => tracing::warn!("could not remove {} a command created: {e}", path.display()),
        }
    }
    removed
}

/// The folders directly inside `root` (a repository per project folder is common).
fn children(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// The `.git` folder in `holder`, when it is a real folder (not a symlink: a linked work tree's
/// `.git` file names a git folder whose hooks and config are its main repository's).
fn git_folder(holder: &Path) -> Option<PathBuf> {
    let dot_git = holder.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    meta.is_dir().then_some(dot_git)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repositories_at_a_root_a_level_down_and_around_the_run_are_bound() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::create_dir_all(root.join("sub/.git")).unwrap();
        std::fs::create_dir_all(root.join("deep/er/.git")).unwrap();
        std::fs::create_dir_all(root.join("deep/er/src")).unwrap();
        std::fs::write(root.join("linked"), "").unwrap();
        let binds = binds(std::slice::from_ref(&root), &root.join("deep/er/src"));
        assert_eq!(
            binds.folders,
            [
                root.join(".git"),
                root.join("sub/.git"),
                root.join("deep/er/.git")
            ]
        );
        let mut read_only = binds.read_only.clone();
        read_only.sort();
        assert_eq!(
            read_only,
            [
                root.join(".git/config"),
                root.join(".git/hooks"),
                root.join(".git/info"),
                root.join("deep/er/.git/hooks"),
                root.join("deep/er/.git/info"),
                root.join("sub/.git/hooks"),
                root.join("sub/.git/info"),
            ]
        );
        assert!(root.join("sub/.git/hooks").is_dir());
        assert_eq!(binds.absent.len(), 3);
        std::fs::write(root.join("sub/.git/commondir"), "/elsewhere\n").unwrap();
        assert_eq!(
            remove_planted(&binds.absent),
            [root.join("sub/.git/commondir")]
        );
        assert!(!root.join("sub/.git/commondir").exists());
    }
}
