//! Which repository a git call works on: found by coderd, pinned inside the jail.
//!
//! Left to itself git finds its repository by walking up from the folder it runs in and then
//! follows what that repository says: a `.git` *file* (`gitdir: PATH`) or a `.git` symlink, a
//! `commondir`, `objects/info/alternates`, `core.worktree`. Each can lead outside the roots, so a
//! file the jail refuses to `read` would show up in a `git-diff`, or another repository's history
//! in a `git-log`. coderd therefore finds the repository itself, from `dir` up to its root and no
//! further, resolves every one of those through the jail (which never looks outside the roots), and
//! refuses with C215 naming the one that leads out. git is then run with that `--git-dir` and
//! `--work-tree` (see `Git::pinned`), so it never searches on its own.

use coderd_core::error::{Code, Error, Result};
use coderd_core::jail::{Jail, Resolved};
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A repository whose every part git will use lies inside the roots. Paths are canonical.
#[derive(Clone, Debug)]
pub struct Pinned {
    /// `--git-dir`: the `.git` folder, or the folder a `.git` file or symlink names.
    pub git_dir: PathBuf,
    /// The shared repository of a linked work tree (`commondir`); else `git_dir` again.
    pub common_dir: PathBuf,
    /// The folder holding `.git`, until the config check (`config_files::check`) applies a
    /// `core.worktree` that stays inside the roots.
    pub work_tree: PathBuf,
    /// `GIT_CEILING_DIRECTORIES`: the parent of the outermost root holding the repository.
    pub ceiling: PathBuf,
}

/// Entries of a git folder that git opens and that a symlink could point outside the roots.
const ENTRIES: &[&str] = &[
    "HEAD",
    "index",
    "packed-refs",
    "config",
    "config.worktree",
    "objects",
    "refs",
    "info",
    "shallow",
];

/// The largest `.git` file, `commondir` or `alternates` read (git's own are a line or a few).
const MAX_POINTER_BYTES: u64 = 64 * 1024;

/// The repository holding `dir`, looked for from `dir` up to its root: `Ok(None)` when there is
/// none inside the roots (a repository above a root is outside the jail), C215 when the one found
/// leads outside.
pub fn find(jail: &Jail, dir: &Resolved) -> Result<Option<Pinned>> {
    // Up to the outermost root holding `dir` (roots may nest), never above it.
    let inside_roots = || {
        dir.abs
            .ancestors()
            .take_while(|folder| jail.locate(folder).is_some())
    };
    let top = inside_roots().last().unwrap_or(&dir.abs);
    let Some((holder, dot_git)) = inside_roots().find_map(|folder| {
        let dot_git = folder.join(".git");
        let meta = std::fs::symlink_metadata(&dot_git).ok()?;
        Some((folder.to_path_buf(), (dot_git, meta)))
    }) else {
        return Ok(None);
    };
    let (dot_git, meta) = dot_git;
    let git_dir = if meta.is_file() {
        gitdir_of_file(jail, &holder, &dot_git)?
    } else {
        inside(jail, &dot_git, || {
            format!("the `.git` symlink {} leads to a path", dot_git.display())
        })?
    };
    let common_dir = match read_inside(jail, &git_dir.join("commondir"))? {
        Some(text) => {
            let named = git_dir.join(OsStr::from_bytes(text.trim_ascii()));
            inside(jail, &named, || {
                format!("{}/commondir names {}", git_dir.display(), named.display())
            })?
        }
        None => git_dir.clone(),
    };
    check_entries(jail, &git_dir)?;
    if common_dir != git_dir {
        check_entries(jail, &common_dir)?;
    }
    let ceiling = top.parent().unwrap_or(top).to_path_buf();
    Ok(Some(Pinned {
        git_dir,
        common_dir,
        work_tree: holder,
        ceiling,
    }))
}

/// The folder a `.git` file names (`gitdir: PATH`, relative to the file's folder).
fn gitdir_of_file(jail: &Jail, holder: &Path, dot_git: &Path) -> Result<PathBuf> {
    let text = read_inside(jail, dot_git)?.unwrap_or_default();
    let Some(named) = text.strip_prefix(b"gitdir:").map(<[u8]>::trim_ascii) else {
        return Err(Error::bad_input(format!(
            "{} is a file but not a `gitdir: PATH` pointer",
            dot_git.display()
        ))
        .with_recovery("remove the file, or make it name the repository's folder"));
    };
    let named = holder.join(OsStr::from_bytes(named));
    inside(jail, &named, || {
        format!(
            "the `.git` file {} names {}",
            dot_git.display(),
            named.display()
        )
    })
}

/// Every entry of a git folder that a symlink could lead out of the roots, and the object stores
/// `objects/info/alternates` adds.
fn check_entries(jail: &Jail, base: &Path) -> Result<()> {
    for entry in ENTRIES {
        let path = base.join(entry);
        inside(jail, &path, || {
            format!("{} is a symlink to a path", path.display())
        })?;
    }
    let objects = base.join("objects");
    let alternates = objects.join("info/alternates");
    let Some(text) = read_inside(jail, &alternates)? else {
        return Ok(());
    };
    for line in text.split(|b| *b == b'\n').map(<[u8]>::trim_ascii) {
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        let named = objects.join(OsStr::from_bytes(line));
        inside(jail, &named, || {
            format!("{} names {}", alternates.display(), named.display())
        })?;
    }
    Ok(())
}

/// `path` resolved through the jail (symlinks inside followed); C215 saying `what` when it leads
/// outside the roots. Nothing outside is looked at to decide.
pub fn inside(jail: &Jail, path: &Path, what: impl Fn() -> String) -> Result<PathBuf> {
    let outside = || {
        Error::outside_jail(format!(
            "{}, which is outside the workspace roots; git is not run",
            what()
        ))
        .with_recovery(
            "git runs only on a repository inside the roots: point it back inside, or add the \
             folder it names as a root (a linked work tree needs its main repository's folder)",
        )
        .with_data("path", path.to_string_lossy().into_owned())
    };
    let Some(wire) = path.to_str() else {
        return Err(Error::bad_input(format!(
            "{}: the path is not UTF-8",
            path.display()
        )));
    };
    match jail.resolve_visible("dir", wire) {
        Ok(resolved) => Ok(resolved.abs),
        Err(e) if e.code == Code::OutsideJail => Err(outside()),
        Err(e) => Err(e),
    }
}

/// A small file inside the roots, read through the jail; `None` when it does not exist.
pub(crate) fn read_inside(jail: &Jail, path: &Path) -> Result<Option<Vec<u8>>> {
    let Some(wire) = path.to_str() else {
        return Ok(None);
    };
    let resolved = match jail.resolve_visible("dir", wire) {
        Ok(resolved) => resolved,
        Err(e) if e.code == Code::OutsideJail => {
            return Err(Error::outside_jail(format!(
                "{} leads outside the workspace roots: git is not run",
                path.display()
            ))
            .with_data("path", path.to_string_lossy().into_owned()))
        }
        Err(_) => return Ok(None),
    };
    let Ok((file, meta)) = jail.open_file(&resolved) else {
        return Ok(None);
    };
    if !meta.is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(MAX_POINTER_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::from_io(&e, path))?;
    Ok(Some(bytes))
}
