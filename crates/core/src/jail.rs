//! The path jail. Every file operation goes through here.
//!
//! Two steps, for two different jobs:
//! 1. `resolve` decides *policy*: it resolves a wire path the way the kernel would (`..`, symlinks
//!    anywhere in the path, dangling ones too) and refuses anything that lands outside every root or
//!    on a non-accessible file. It never looks outside the roots: the walk stops as soon as the path
//!    so far leaves them, so no answer reveals anything about the rest of the machine. It yields the
//!    canonical path, relative to the root that holds it.
//! 2. `open_*` does the *use*: it opens that canonical relative path with `openat2` beneath the root's
//!    directory handle, with `RESOLVE_NO_SYMLINKS`. The canonical path has no symlinks, so if one
//!    appears between the check and the open (a swap race), the open fails instead of following it.

mod broad;
mod identities;

pub use identities::{Identities, Identity};

use crate::error::{Error, Result};
use crate::globs;
use globset::GlobSet;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The fields that shape the jail. They are read once at startup; a reload that changes them is refused.
#[derive(Clone, Debug, PartialEq)]
pub struct JailSettings {
    pub base_paths: Vec<PathBuf>,
    pub non_accessible_globs: Vec<String>,
    /// Match `non_accessible_globs` ignoring case (`.ENV`, `Server.KEY`), as case-insensitive file
    /// systems and tools that read either spelling would.
    pub non_accessible_case_insensitive: bool,
    pub default_exclude_globs: Vec<String>,
    /// Refuse reads of regular files with more than one hard link. A jail setting, not a budget:
    /// like `non_accessible_globs` it decides *what* may be read (a hard link is another name for a
    /// file that may live outside the roots or be a secret, which no path rule can see), it is
    /// enforced where the jail opens files (`Jail::open_file`, for reads and search alike), and a
    /// security posture should not be relaxed by a live edit of the file: a reload that changes it
    /// is refused until restart. `Limits` are sizes and counts that can change safely at any time.
    pub refuse_hardlinked_reads: bool,
    /// `edit.allow_git_dir`: let coderd's own edit methods write under a `.git` folder. Off by
    /// default: hooks and config there run programs at the user's next plain `git` (see
    /// `Jail::check_edit`). A jail setting for the same reason as the one above.
    pub allow_git_dir: bool,
    /// `allow_broad_roots`: serve `/` or a folder holding another user's home (see `broad`). Off
    /// by default: a jail setting, since it decides what every caller may see.
    pub allow_broad_roots: bool,
}

/// Longest wire path accepted (Linux PATH_MAX).
const MAX_PATH_BYTES: usize = 4096;
/// Symlinks followed in one resolution before giving up (Linux uses 40 too).
const MAX_SYMLINK_HOPS: usize = 40;

pub struct Root {
    /// Canonical absolute path.
    pub path: PathBuf,
    dir: OwnedFd,
}

pub struct Jail {
    roots: Vec<Root>,
    non_accessible: GlobSet,
    excludes: GlobSet,
    /// The patterns as configured, for `info`.
    pub non_accessible_globs: Vec<String>,
    pub non_accessible_case_insensitive: bool,
    pub default_exclude_globs: Vec<String>,
    /// Refuse regular files with more than one hard link (see `JailSettings`).
    pub refuse_hardlinked_reads: bool,
    /// Edits may write under `.git` (see `JailSettings`).
    pub allow_git_dir: bool,
    /// The secrets by identity, kept current by the secrets walk (see `identities`).
    pub secret_ids: Identities,
}

/// A path that passed policy: canonical, inside `root`, with no symlinks left in it.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub abs: PathBuf,
    pub root: usize,
    /// Relative to the root; empty for the root itself.
    pub rel: PathBuf,
}

impl Jail {
    /// Canonicalizes and opens each root (`roots`, which take the place of `settings.base_paths`).
    /// Unreachable roots are skipped with a warning; none at all is an error.
    pub fn new(roots: &[PathBuf], settings: &JailSettings) -> Result<Jail> {
        let non_accessible = &settings.non_accessible_globs;
        let excludes = &settings.default_exclude_globs;
        let mut opened: Vec<Root> = Vec::new();
        for root in roots {
            match open_root(root) {
                Ok(r) if opened.iter().any(|o| o.path == r.path) => {}
                Ok(r) => opened.push(r),
                Err(e) => tracing::warn!("skipping root {}: {e}", root.display()),
            }
        }
        if opened.is_empty() {
            return Err(Error::bad_input(format!(
                "no usable workspace root among {:?}",
                roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
            ))
            .with_recovery(
                "pass --root DIR with an existing directory, or set base_paths in the config",
            ));
        }
        if !settings.allow_broad_roots {
            broad::check(&opened.iter().map(|r| r.path.clone()).collect::<Vec<_>>())?;
        }
        Ok(Jail {
            roots: opened,
            non_accessible: globs::compile_policy(
                "non_accessible_globs",
                non_accessible,
                settings.non_accessible_case_insensitive,
            )?,
            non_accessible_case_insensitive: settings.non_accessible_case_insensitive,
            refuse_hardlinked_reads: settings.refuse_hardlinked_reads,
            allow_git_dir: settings.allow_git_dir,
            excludes: globs::compile("default_exclude_globs", excludes)?,
            non_accessible_globs: non_accessible.to_vec(),
            default_exclude_globs: excludes.to_vec(),
            secret_ids: Identities::default(),
        })
    }

    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    pub fn primary(&self) -> &Path {
        &self.roots[0].path
    }

    /// Resolves a wire path and checks it is inside the jail and accessible.
    /// `field` names the request field, for the error message.
    pub fn resolve(&self, field: &str, wire: &str) -> Result<Resolved> {
        let resolved = self.resolve_visible(field, wire)?;
        let lexical = self.lexical_rel(wire);
        let hidden = self.is_non_accessible(&resolved.rel)
            || lexical
                .as_deref()
                .is_some_and(|rel| self.is_non_accessible(rel));
        if hidden {
            return Err(Error::not_found(format!(
                "`{field}`: {wire} is non-accessible by workspace policy (non_accessible_globs)"
            ))
            .with_recovery(
                "this file can be listed but never read or written; `info` shows the globs",
            ));
        }
        if self.is_secret_by_identity(&resolved) {
            return Err(secret_identity_error(&format!("`{field}`: {wire}")));
        }
        Ok(resolved)
    }

    /// Refuses (C214) an edit of a path under a `.git` folder unless `edit.allow_git_dir` is set:
    /// hooks, `config` (`core.fsmonitor`, `core.hooksPath`) and `info/` there make the user's next
    /// plain `git` run what an agent wrote, outside any sandbox. `resolved` is canonical, so a
    /// symlink into `.git` is caught by where it lands; the name is compared ignoring case, as a
    /// case-insensitive file system would open `.GIT` as `.git`.
    pub fn check_edit(&self, resolved: &Resolved) -> Result<()> {
        let under_git = resolved
            .rel
            .components()
            .any(|c| c.as_os_str().as_bytes().eq_ignore_ascii_case(b".git"));
        if !under_git || self.allow_git_dir {
            return Ok(());
        }
        Err(Error::refused(format!(
            "{} is inside a `.git` folder: coderd's edit methods do not write there \
             (hooks and config run programs at the next git command)",
            resolved.abs.display()
        ))
        .with_recovery(
            "change the repository with git itself (`exec`), or set `edit.allow_git_dir: true` \
             in the daemon config",
        )
        .with_data("path", resolved.abs.to_string_lossy().into_owned()))
    }

    /// Whether a canonical path inside a root is a secret, by name or by identity: for lists of
    /// paths the jail did not resolve (git's, the checkpoints').
    pub fn is_secret(&self, abs: &Path) -> bool {
        self.locate(abs).is_some_and(|resolved| {
            self.is_non_accessible(&resolved.rel) || self.is_secret_by_identity(&resolved)
        })
    }

    /// Whether the file at a resolved path, or a folder above it inside its root, is a secret by
    /// identity (renamed, moved or hard-linked from a path the globs match). One `lstat` per
    /// component, and none while no secret is known.
    pub fn is_secret_by_identity(&self, resolved: &Resolved) -> bool {
        if self.secret_ids.is_empty() {
            return false;
        }
        let mut path = self.roots[resolved.root].path.clone();
        for component in resolved.rel.components() {
            path.push(component);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if self.secret_ids.contains(&meta) => return true,
                Ok(_) => {}
                // Not there (yet): nothing below it exists either.
                Err(_) => return false,
            }
        }
        false
    }

    /// Like `resolve` but lets non-accessible paths through: for listings, which show them flagged.
    pub fn resolve_visible(&self, field: &str, wire: &str) -> Result<Resolved> {
        validate_wire(field, wire)?;
        let real = realpath(&self.roots, wire).map_err(|e| match e {
            RealpathError::Loop => Error::bad_input(format!(
                "`{field}`: {wire}: too many levels of symbolic links"
            )),
            RealpathError::Outside { at } => self.outside_error(field, wire, at),
            RealpathError::NotDir => {
                Error::not_found(format!("`{field}`: {wire}: not a directory")).with_recovery(
                    "a file name followed by `/` (or `/.`, `/..`, `/more`) asks for a directory; \
                 drop the trailing part to name the file",
                )
            }
            RealpathError::Io(e) => Error::from_io(&e, Path::new(wire)),
        })?;
        self.locate(&real)
            .ok_or_else(|| self.outside_error(field, wire, None))
    }

    /// The metadata of a resolved path that must exist (C211 otherwise). Taken through a handle
    /// opened beneath the root, so a swap race cannot make it describe something outside (C215).
    pub fn metadata(&self, resolved: &Resolved) -> Result<std::fs::Metadata> {
        let handle = File::from(self.open_beneath(resolved, OFlags::PATH)?);
        handle
            .metadata()
            .map_err(|e| Error::from_io(&e, &resolved.abs))
    }

    /// Whether an entry a walker listed by path is really inside the jail right now (a symlink
    /// entry counts as itself). Walkers list folders by path, so under a symlink-swap race they may
    /// see an outside folder's names; this keeps those names out of answers.
    pub fn holds_entry(&self, abs: &Path) -> bool {
        self.locate(abs).is_some_and(|r| {
            self.open_beneath(&r, OFlags::PATH | OFlags::NOFOLLOW)
                .is_ok()
        })
    }

    /// Finds the root holding a canonical path; the innermost wins when roots nest.
    pub fn locate(&self, abs: &Path) -> Option<Resolved> {
        self.roots
            .iter()
            .enumerate()
            .filter(|(_, root)| abs.starts_with(&root.path))
            .max_by_key(|(_, root)| root.path.as_os_str().len())
            .map(|(i, root)| Resolved {
                abs: abs.to_path_buf(),
                root: i,
                rel: abs
                    .strip_prefix(&root.path)
                    .unwrap_or(Path::new(""))
                    .to_path_buf(),
            })
    }

    /// The answer for a path that leaves the jail. It says only what the caller wrote: the path, and
    /// (as `leaves_at`) its first component whose resolution left every root. Nothing outside is
    /// looked at to build it, so it is the same whether the outside target exists or not.
    fn outside_error(&self, field: &str, wire: &str, at: Option<usize>) -> Error {
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|r| r.path.display().to_string())
            .collect();
        let mut error = Error::outside_jail(format!(
            "`{field}`: {wire} is outside the workspace roots {roots:?}"
        ))
        .with_recovery(format!(
            "use a path inside one of the roots; relative paths resolve against {}",
            roots[0]
        ))
        .with_data("roots", roots);
        if let Some(at) = at {
            error = error.with_data("leaves_at", wire_prefix(wire, at));
        }
        error
    }

    /// The root-relative path as written, before symlinks are followed, if it stays inside a root.
    /// Checked against the non-accessible globs too, so `.env -> notes.txt` is refused by its name.
    fn lexical_rel(&self, wire: &str) -> Option<PathBuf> {
        let normal = lexical_normalize(&self.roots[0].path.join(wire));
        self.locate(&normal).map(|r| r.rel)
    }

    /// A walker over a resolved folder with the workspace's walking policy: symlinks are listed,
    /// never followed; ignore files (`.gitignore`, `.ignore`, `.git/info/exclude`, also outside a
    /// git repository, never the user's global one) apply when `gitignore` is set.
    pub fn walk_builder(
        &self,
        dir: &Resolved,
        gitignore: bool,
        hidden: bool,
    ) -> ignore::WalkBuilder {
        let mut builder = ignore::WalkBuilder::new(&dir.abs);
        builder
            .hidden(!hidden)
            .git_ignore(gitignore)
            .git_exclude(gitignore)
            .ignore(gitignore)
            .parents(gitignore)
            .git_global(false)
            .require_git(false)
            .follow_links(false);
        builder
    }

    /// A copy of the default-exclude matcher, for walkers that need to own it.
    pub fn default_excludes(&self) -> GlobSet {
        self.excludes.clone()
    }

    /// Whether a root-relative path is a secret by policy: it matches a non-accessible glob, or lies
    /// below a folder that does (case-insensitively unless configured otherwise).
    pub fn is_non_accessible(&self, rel: &Path) -> bool {
        !rel.as_os_str().is_empty() && self.non_accessible.is_match(rel)
    }

    /// Default-excluded noise (`.git`, `node_modules`, ...): matched on the name and the relative path.
    pub fn is_default_excluded(&self, rel: &Path) -> bool {
        globs::hit(&self.excludes, rel)
    }

    /// Opens a resolved regular file for reading, race-free (see the module docs).
    /// Returns the metadata taken to check it, so callers need not ask again.
    ///
    /// The kind is checked through an `O_PATH` handle first, which opens nothing: a socket, FIFO or
    /// device is refused (C214) without ever being opened for reading (opening a device can act on
    /// it; opening a socket fails with ENXIO). The read handle is then `O_NONBLOCK`, so a FIFO
    /// swapped in between the two opens cannot block, and its kind is checked again.
    pub fn open_file(&self, resolved: &Resolved) -> Result<(File, std::fs::Metadata)> {
        let probe = File::from(self.open_beneath(resolved, OFlags::PATH)?);
        let meta = probe
            .metadata()
            .map_err(|e| Error::from_io(&e, &resolved.abs))?;
        check_regular(resolved, &meta)?;
        self.open_walked_file(resolved)
    }

    /// `open_file` for a file a walker has just listed as regular (from the folder entry's type, at
    /// no cost): the `O_PATH` probe is skipped, saving three syscalls a file in a search. Only a
    /// swap of that entry for a device node in between (which takes someone allowed to create
    /// device nodes) could get a device opened; the kind is still checked after the open.
    pub fn open_walked_file(&self, resolved: &Resolved) -> Result<(File, std::fs::Metadata)> {
        let fd = self
            .openat_beneath(resolved, OFlags::RDONLY | OFlags::NONBLOCK)
            .map_err(|errno| match errno {
                // A socket took the file's place since the probe.
                rustix::io::Errno::NXIO => not_regular(resolved, "a socket"),
                _ => open_error(resolved, errno),
            })?;
        let file = File::from(fd);
        let meta = file
            .metadata()
            .map_err(|e| Error::from_io(&e, &resolved.abs))?;
        check_regular(resolved, &meta)?;
        if self.secret_ids.contains(&meta) {
            return Err(secret_identity_error(&resolved.abs.display().to_string()));
        }
        self.check_links(resolved, &meta)?;
        Ok((file, meta))
    }

    /// A hard link is another name for the same file, and that name may be outside the roots or
    /// non-accessible: path rules cannot see it. With `refuse_hardlinked_reads`, such files are
    /// refused (checked on the open handle, so it is the file actually read).
    fn check_links(&self, resolved: &Resolved, meta: &std::fs::Metadata) -> Result<()> {
        use std::os::unix::fs::MetadataExt;
        let links = meta.nlink();
        if !self.refuse_hardlinked_reads || links <= 1 {
            return Ok(());
        }
        Err(Error::refused(format!(
            "{} has {links} hard links; refuse_hardlinked_reads refuses it (another name of \
             this file may be outside the roots or non-accessible)",
            resolved.abs.display()
        ))
        .with_recovery(
            "read a copy that is not hard-linked (`cp` it in the workspace), or set \
             refuse_hardlinked_reads: false if this workspace's hard links are trusted",
        )
        .with_data("links", links))
    }

    /// Opens a resolved directory, race-free, for listing.
    pub fn open_dir(&self, resolved: &Resolved) -> Result<OwnedFd> {
        self.open_beneath(resolved, OFlags::RDONLY | OFlags::DIRECTORY)
            .map_err(|e| {
                if e.code == crate::error::Code::NotFound && resolved.abs.is_file() {
                    Error::bad_input(format!(
                        "`dir`: {} is not a directory",
                        resolved.abs.display()
                    ))
                    .with_recovery("use read for files")
                } else {
                    e
                }
            })
    }

    pub(crate) fn open_beneath(&self, resolved: &Resolved, flags: OFlags) -> Result<OwnedFd> {
        self.openat_beneath(resolved, flags)
            .map_err(|errno| open_error(resolved, errno))
    }

    fn openat_beneath(
        &self,
        resolved: &Resolved,
        flags: OFlags,
    ) -> std::result::Result<OwnedFd, rustix::io::Errno> {
        let root = &self.roots[resolved.root];
        let rel: &Path = if resolved.rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &resolved.rel
        };
        let how = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        // openat2 rejects O_PATH combined with anything but a few flags (EINVAL).
        let extra = if flags.contains(OFlags::PATH) {
            OFlags::CLOEXEC
        } else {
            OFlags::CLOEXEC | OFlags::NOCTTY
        };
        rustix::fs::openat2(&root.dir, rel, flags | extra, Mode::empty(), how)
    }
}

/// A secret found by its identity under a name the globs do not match.
fn secret_identity_error(what: &str) -> Error {
    Error::not_found(format!(
        "{what} is non-accessible by workspace policy: it is a secret (or lies in one) that was \
         renamed, moved or hard-linked from a path non_accessible_globs match"
    ))
    .with_recovery("a secret stays one whatever its name; `info` shows the globs")
}

fn open_error(resolved: &Resolved, errno: rustix::io::Errno) -> Error {
    // ELOOP/EXDEV: a symlink appeared in a path that had none when it was checked.
    if matches!(errno, rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) {
        Error::outside_jail(format!(
            "{} changed while it was being opened (a symlink was swapped in)",
            resolved.abs.display()
        ))
        .with_recovery("retry; if it persists, the path now leads outside the jail")
    } else {
        Error::from_io(&io::Error::from(errno), &resolved.abs)
    }
}

/// Only regular files are read: a folder is bad input, anything else is refused by policy (C214).
fn check_regular(resolved: &Resolved, meta: &std::fs::Metadata) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(
            Error::bad_input(format!("{} is a directory", resolved.abs.display()))
                .with_recovery("use list-folder or tree for directories"),
        );
    }
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_socket() {
        "a socket"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    Err(not_regular(resolved, what))
}

fn not_regular(resolved: &Resolved, what: &str) -> Error {
    Error::refused(format!(
        "{} is not a regular file ({what}); only regular files are read",
        resolved.abs.display()
    ))
    .with_recovery("nothing to read here; list-folder and tree show such entries as kind `other`")
    .with_data("kind", what.trim_start_matches("a "))
}

fn open_root(path: &Path) -> io::Result<Root> {
    let canonical = std::fs::canonicalize(path)?;
    let dir = rustix::fs::open(
        &canonical,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(Root {
        path: canonical,
        dir,
    })
}

fn validate_wire(field: &str, wire: &str) -> Result<()> {
    if wire.is_empty() {
        return Err(
            Error::bad_input(format!("`{field}` is empty")).with_recovery(
                "pass a path relative to the primary root, or an absolute path inside a root",
            ),
        );
    }
    if wire.contains('\0') {
        return Err(Error::bad_input(format!("`{field}` contains a NUL byte")));
    }
    if wire.len() > MAX_PATH_BYTES {
        return Err(Error::bad_input(format!(
            "`{field}` is {} bytes long; paths are limited to {MAX_PATH_BYTES}",
            wire.len()
        )));
    }
    Ok(())
}

/// `.` and `..` resolved on the text alone.
pub fn lexical_normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for comp in path.components() {
        match comp {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

enum RealpathError {
    Loop,
    /// The walk reached a path outside every root. `at` is the index (among the wire path's
    /// non-empty components) of the component that led there.
    Outside {
        at: Option<usize>,
    },
    /// A component follows something that exists and is not a directory (`file.txt/`,
    /// `file.txt/..`, `file.txt/x`): the kernel's ENOTDIR.
    NotDir,
    Io(io::Error),
}

/// Pending components of a path as written: its non-empty components, then a `.` when it ends with
/// a `/`, because a trailing slash asks for a directory (the kernel says ENOTDIR for `file.txt/`).
fn components(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    let trailing = path.len() > 1 && path.ends_with(b"/");
    split(path).chain(trailing.then_some(&b"."[..]))
}

/// The components of a path as written: split on `/`, empty ones (`a//b`, a trailing `/`) dropped.
fn split(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.split(|b| *b == b'/').filter(|c| !c.is_empty())
}

/// The wire path up to and including its `at`-th non-empty component, as the caller wrote it.
fn wire_prefix(wire: &str, at: usize) -> String {
    let parts: Vec<&str> = wire.split('/').filter(|c| !c.is_empty()).collect();
    let lead = if wire.starts_with('/') { "/" } else { "" };
    format!("{lead}{}", parts[..(at + 1).min(parts.len())].join("/"))
}

/// Where a canonical path stands with respect to the roots.
enum Place {
    /// Inside a root (or a root itself): it may be looked at.
    Inside,
    /// A proper ancestor of a root: a real folder (roots are canonical), so nothing needs looking at.
    OnTheWay,
    /// Neither: the walk has left the jail.
    Outside,
}

fn place(roots: &[Root], path: &Path) -> Place {
    if roots.iter().any(|r| path.starts_with(&r.path)) {
        Place::Inside
    } else if roots.iter().any(|r| r.path.starts_with(path)) {
        Place::OnTheWay
    } else {
        Place::Outside
    }
}

/// Resolves a wire path (relative to the primary root, or absolute) as the kernel would, following
/// every symlink (dangling ones too) and keeping the part that does not exist yet, so that a path to
/// be created is judged by where it lands.
///
/// The walk never looks outside the roots: before a component is `lstat`ed (or its link read), the
/// path so far must be inside a root. A path that is on the way to a root (`/`, the root's parents)
/// is a known real folder and is passed through without a look, so `..` out of a root and back in
/// (`link -> ../ws/b`) still works; any other place is outside and the walk stops there. Nothing
/// about the machine outside the roots can then show in an answer: not a link target, not whether
/// something exists, not a permission.
fn realpath(roots: &[Root], wire: &str) -> Result<PathBuf, RealpathError> {
    // Each pending component carries the index of the wire component it came from (a link's
    // target inherits the link's), to name where a path leaves the jail.
    let mut pending: VecDeque<(OsString, Option<usize>)> = VecDeque::new();
    if !wire.starts_with('/') {
        let primary = roots[0].path.as_os_str().as_bytes();
        pending.extend(split(primary).map(|c| (OsStr::from_bytes(c).to_os_string(), None)));
    }
    pending.extend(
        components(wire.as_bytes())
            .enumerate()
            .map(|(i, c)| (OsStr::from_bytes(c).to_os_string(), Some(i))),
    );
    let mut current = PathBuf::from("/");
    let mut hops = 0;
    let mut missing = false;
    // Whether `current` is a folder; only known while nothing is missing.
    let mut is_dir = true;
    while let Some((comp, origin)) = pending.pop_front() {
        if !missing && !is_dir {
            return Err(RealpathError::NotDir);
        }
        match comp.as_bytes() {
            b"." => continue,
            b".." => {
                current.pop();
                continue;
            }
            _ => {}
        }
        let next = current.join(&comp);
        match place(roots, &next) {
            Place::Inside => {}
            Place::OnTheWay => {
                current = next;
                continue;
            }
            Place::Outside => return Err(RealpathError::Outside { at: origin }),
        }
        if missing {
            current = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(RealpathError::Loop);
                }
                let target = match std::fs::read_link(&next) {
                    Ok(target) => target,
                    // No longer a symlink (swapped since the lstat): look at this component again.
                    Err(e) if e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) => {
                        pending.push_front((comp, origin));
                        continue;
                    }
                    Err(e) => return Err(RealpathError::Io(e)),
                };
                let target = target.as_os_str().as_bytes();
                if target.starts_with(b"/") {
                    current = PathBuf::from("/");
                }
                let parts: Vec<&[u8]> = components(target).collect();
                for part in parts.into_iter().rev() {
                    pending.push_front((OsStr::from_bytes(part).to_os_string(), origin));
                }
            }
            Ok(meta) => {
                is_dir = meta.is_dir();
                current = next;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                missing = true;
                current = next;
            }
            Err(e) => return Err(RealpathError::Io(e)),
        }
    }
    Ok(current)
}
