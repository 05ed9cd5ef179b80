//! `checkpoint --restore HASH`: the work tree's tracked files go back to a snapshot.
//!
//! A snapshot of the present is taken first, so a restore can itself be undone. The paths that
//! differ between that snapshot and the target are then written back, each through the jail
//! (folder opened beneath its root, atomic publish by `edit::commit`), under the per-file locks
//! edits take. Files the target does not have (created after it) are kept and listed; nothing is
//! ever deleted, and the user's repository (HEAD, refs, index) is not read or written at all.
//!
//! Nothing is overwritten that the undo snapshot does not hold: a file the target has and
//! snapshots leave out now (over the size cap, ignored since) is hashed into the undo snapshot
//! first, whatever its size (`Shadow::snapshot_with`), and listed in `undo_also_holds`.

use super::roots::{self, Tree};
use super::store::{Change, Extra, Locked, Shadow};
use coderd_core::error::{Error, Result};
use coderd_core::jail::{Jail, Resolved};
use coderd_core::workspace::Workspace;
use coderd_edit::commit::{self, Existing, Publish};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Instant;

/// Git's modes for the entries a restore writes.
const REGULAR: u32 = 0o100644;
const EXECUTABLE: u32 = 0o100755;
const SYMLINK: u32 = 0o120000;

/// What a restore did: the wire's types, shared with clients.
pub use wire::answers::checkpoint::{RestoreFailure as Failure, Restored};

/// Writes back every path where the present snapshot `now` differs from `target`.
pub fn restore(
    state: &Workspace,
    shadow: &Shadow,
    locked: &Locked,
    target: &str,
    now: &str,
    deadline: Instant,
) -> Result<Restored> {
    let git_error = |e: crate::command::GitError| Error::io(format!("checkpoint restore: {e}"));
    let changes = shadow.changes(now, target, deadline).map_err(git_error)?;
    let (writes, newer): (Vec<Change>, Vec<Change>) =
        changes.into_iter().partition(|c| c.mode != 0);
    let wanted: Vec<&Change> = writes
        .iter()
        .filter(|c| matches!(c.mode, REGULAR | EXECUTABLE | SYMLINK))
        .collect();
    let ids: Vec<&str> = wanted.iter().map(|c| c.blob.as_str()).collect();
    let contents = shadow.blobs(&ids, deadline).map_err(git_error)?;
    let targets: Vec<std::result::Result<Resolved, Error>> = wanted
        .iter()
        .map(|c| match roots::locate(&shadow.trees, &c.path) {
            Some((tree, rel)) => beneath_parent(&state.jail, &tree.work_tree, rel),
            None => Err(not_a_root(&c.path)),
        })
        .collect();
    let _held = state.locks.lock(
        targets
            .iter()
            .filter_map(|t| t.as_ref().ok())
            .map(|t| t.abs.clone()),
    )?;
    // A file an editor holds unsaved changes to is not restored under the person: none is.
    let resolved = targets.iter().filter_map(|t| t.as_ref().ok());
    state
        .documents
        .buffers
        .refuse_all(resolved.map(|t| t.abs.as_path()))?;
    let left_out = left_out(shadow, &wanted, &targets, deadline).map_err(git_error)?;
    let undo = match left_out.is_empty() {
        true => now.to_string(),
        false => {
            let label = format!(
                "before restore of {} (with files snapshots leave out)",
                &target[..12]
            );
            let extra: Vec<(usize, Extra)> = left_out
                .iter()
                .filter_map(|p| roots::position(&shadow.trees, p))
                .map(|(at, rel)| (at, Extra::FromTree(rel)))
                .collect();
            shadow
                .snapshot_with(locked, Some(now), &extra, &label, deadline)
                .map_err(|e| {
                    e.into_error()
                        .with_prefix("restore refused: the snapshot that would undo it failed: ")
                })?
                .0
        }
    };
    let fsync = state.limits().fsync;
    let mut result = Restored {
        restored_from: target.to_string(),
        undo,
        undo_also_holds: left_out.iter().map(|p| shown(&shadow.trees, p)).collect(),
        restored: Vec::new(),
        kept_newer: newer
            .iter()
            .map(|c| shown(&shadow.trees, &c.path))
            .collect(),
        failed: Vec::new(),
    };
    for ((change, bytes), resolved) in wanted.iter().zip(&contents).zip(targets) {
        let written = resolved.and_then(|r| write_back(state, &r, change.mode, bytes, fsync));
        match written {
            Ok(()) => result.restored.push(shown(&shadow.trees, &change.path)),
            Err(e) => result.failed.push(Failure {
                path: shown(&shadow.trees, &change.path),
                error: e.to_string(),
            }),
        }
    }
    Ok(result)
}

/// The paths a restore will overwrite that exist now but are not in the undo snapshot: the
/// roots' indexes do not hold them (snapshots left them out: over the size cap, ignored).
/// Secrets are not among them (their targets are refused before this).
fn left_out(
    shadow: &Shadow,
    wanted: &[&Change],
    targets: &[std::result::Result<Resolved, Error>],
    deadline: Instant,
) -> std::result::Result<Vec<Vec<u8>>, crate::command::GitError> {
    let mut tracked = Vec::with_capacity(shadow.trees.len());
    for tree in &shadow.trees {
        tracked.push(shadow.tracked(tree, deadline)?);
    }
    let mut out = Vec::new();
    for (change, resolved) in wanted.iter().zip(targets) {
        let (Ok(resolved), Some((tree, rel))) =
            (resolved, roots::locate(&shadow.trees, &change.path))
        else {
            continue;
        };
        let position = shadow.trees.iter().position(|t| std::ptr::eq(t, tree));
        let held = position.is_some_and(|i| tracked[i].contains(rel));
        // Only a file or a symlink has bytes to hold (a folder there is refused by the write).
        let present =
            std::fs::symlink_metadata(&resolved.abs).is_ok_and(|m| m.is_file() || m.is_symlink());
        if present && !held {
            out.push(change.path.clone());
        }
    }
    Ok(out)
}

/// A snapshot path as the wire shows it (see `roots`).
fn shown(trees: &[Tree], path: &[u8]) -> String {
    match roots::locate(trees, path) {
        Some((tree, rel)) => tree.show(rel),
        None => String::from_utf8_lossy(path).into_owned(),
    }
}

/// A path of a snapshot taken with other roots than the workspace's now.
fn not_a_root(path: &[u8]) -> Error {
    Error::not_found(format!(
        "{}: the snapshot's folder names no root of this workspace",
        String::from_utf8_lossy(path)
    ))
}

/// The entry itself (never what a symlink there points to): its folder resolved through the jail,
/// then the name joined on. Secrets by policy are refused.
fn beneath_parent(jail: &Jail, root: &Path, rel: &[u8]) -> Result<Resolved> {
    let rel = Path::new(OsStr::from_bytes(rel));
    let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
        return Err(Error::bad_input(format!(
            "{} is not a file path",
            rel.display()
        )));
    };
    let folder = root.join(parent);
    let Some(wire) = folder.to_str() else {
        return Err(Error::bad_input(format!(
            "{}: the name is not UTF-8; restore it with git directly",
            rel.display()
        )));
    };
    let folder = jail.resolve("restore", wire)?;
    let target = Resolved {
        abs: folder.abs.join(name),
        root: folder.root,
        rel: folder.rel.join(name),
    };
    if jail.is_non_accessible(&target.rel) {
        return Err(Error::not_found(format!(
            "{} is non-accessible by workspace policy",
            target.abs.display()
        )));
    }
    jail.check_edit(&target)?;
    Ok(target)
}

fn write_back(
    state: &Workspace,
    target: &Resolved,
    mode: u32,
    bytes: &[u8],
    fsync: bool,
) -> Result<()> {
    let place = commit::place(&state.jail, target, true)?;
    let existing = place.stat()?;
    if existing.is_some_and(|st| rustix::fs::FileType::from_raw_mode(st.st_mode).is_dir()) {
        return Err(Error::refused(format!(
            "{} is a folder now; it is left as it is",
            target.abs.display()
        )));
    }
    if mode == SYMLINK {
        return replace_with_symlink(&place, bytes);
    }
    let executable = mode == EXECUTABLE;
    let regular = existing.filter(|st| rustix::fs::FileType::from_raw_mode(st.st_mode).is_file());
    let opened = regular.and_then(|_| state.jail.open_file(target).ok());
    let staged = match &opened {
        Some((file, meta)) => {
            let mut like = Existing::of(meta);
            like.mode = with_exec_bits(like.mode, executable);
            commit::stage(&place, bytes, Some((&like, file)), fsync, &state.journal)?
        }
        None => {
            let staged = commit::stage(&place, bytes, None, fsync, &state.journal)?;
            staged.chmod(if executable { 0o755 } else { 0o644 })?;
            staged
        }
    };
    staged.publish(Publish::Overwrite, None, fsync)?;
    Ok(())
}

/// Git records only "executable or not": the other permission bits of the file stay.
fn with_exec_bits(mode: u32, executable: bool) -> u32 {
    if executable {
        mode | ((mode & 0o444) >> 2) | 0o100
    } else {
        mode & !0o111
    }
}

/// A symlink is made under a temporary name in the same folder, then renamed over the entry.
fn replace_with_symlink(place: &commit::Place, target: &[u8]) -> Result<()> {
    let temp = format!(
        ".coderd-restore-{}-{}",
        std::process::id(),
        fastrand_suffix()
    );
    let io = |e: rustix::io::Errno| Error::from_io(&e.into(), &place.abs);
    rustix::fs::symlinkat(OsStr::from_bytes(target), &place.dir, temp.as_str()).map_err(io)?;
    rustix::fs::renameat(&place.dir, temp.as_str(), &place.dir, &place.name).map_err(|e| {
        let _ = rustix::fs::unlinkat(&place.dir, temp.as_str(), rustix::fs::AtFlags::empty());
        io(e)
    })
}

fn fastrand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn exec_bits_follow_the_read_bits() {
        assert_eq!(super::with_exec_bits(0o644, true), 0o755);
        assert_eq!(super::with_exec_bits(0o600, true), 0o700);
        assert_eq!(super::with_exec_bits(0o755, false), 0o644);
    }
}
