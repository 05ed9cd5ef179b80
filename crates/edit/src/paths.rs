//! Edits of entries rather than contents: `delete-file`, `move`, and `clean` (remove `.bak` files).
//! An entry is named by its parent folder (resolved through the jail) and its own name, so a
//! symlink is deleted or moved as itself, never through to its target.

use super::commit::{self, Place, Publish};
use coderd_core::documents::{Event, EventKind};
use coderd_core::error::{Code, Error, Result};
use coderd_core::jail::Resolved;
use coderd_core::workspace::Workspace;
use rustix::fs::{AtFlags, FileType};
use schemars::JsonSchema;
use serde::Deserialize;
use std::ffi::OsStr;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// Resolves the entry a wire path names: its folder through the jail (symlinks there are
/// followed and must stay inside), its last component as written (a symlink stays itself).
pub fn entry(state: &Workspace, field: &str, wire: &str) -> Result<Resolved> {
    let trimmed = wire.trim_end_matches('/');
    let path = Path::new(trimmed);
    let name = match path.components().next_back() {
        Some(Component::Normal(name)) => name.to_os_string(),
        _ => {
            return Err(Error::bad_input(format!(
                "`{field}`: {wire} does not name an entry (it ends in `.`, `..` or is a root)"
            )))
        }
    };
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let folder = state
        .jail
        .resolve_visible(field, &parent.to_string_lossy())?;
    let resolved = Resolved {
        abs: folder.abs.join(&name),
        root: folder.root,
        rel: folder.rel.join(&name),
    };
    if state.jail.is_non_accessible(&resolved.rel) {
        return Err(Error::not_found(format!(
            "`{field}`: {wire} is non-accessible by workspace policy (non_accessible_globs)"
        ))
        .with_recovery("this path can be listed but never written, moved or deleted"));
    }
    // Deleting or moving an entry writes its folder: under `.git` that is the repository's.
    state.jail.check_edit(&resolved)?;
    Ok(resolved)
}

/// Whether a resolved entry is there, as itself (a symlink, dangling or not, is); a missing
/// parent folder is C211.
pub fn entry_exists(state: &Workspace, resolved: &Resolved) -> Result<bool> {
    Ok(commit::place(&state.jail, resolved, false)?
        .stat()?
        .is_some())
}

fn kind_of(st: &rustix::fs::Stat) -> FileType {
    FileType::from_raw_mode(st.st_mode)
}

fn open_child_dir(dir: &OwnedFd, name: &OsStr, shown: &Path) -> Result<OwnedFd> {
    commit::open_child_dir(dir, name).map_err(|e| Error::from_io(&e.into(), shown))
}

/// The entries of a folder opened by handle (never `.` or `..`).
fn children(dir: &OwnedFd, shown: &Path) -> Result<Vec<(std::ffi::OsString, FileType)>> {
    // A fresh open of `.` beneath the handle: a dup would share the handle's read offset, and a
    // second listing of the same folder would then see nothing (and a secret check would pass).
    let mut listing =
        rustix::fs::Dir::read_from(dir).map_err(|e| Error::from_io(&e.into(), shown))?;
    let mut out = Vec::new();
    while let Some(item) = listing.read() {
        let item = item.map_err(|e| Error::from_io(&e.into(), shown))?;
        let name = OsStr::from_bytes(item.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let kind = match item.file_type() {
            FileType::Unknown => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .map(|st| kind_of(&st))
                .unwrap_or(FileType::Unknown),
            known => known,
        };
        out.push((name.to_os_string(), kind));
    }
    Ok(out)
}

/// The first non-accessible entry under a folder, walking by handles (no symlink is followed).
fn find_non_accessible(
    state: &Workspace,
    dir: &OwnedFd,
    rel: &Path,
    shown: &Path,
) -> Result<Option<PathBuf>> {
    for (name, kind) in children(dir, shown)? {
        let child_rel = rel.join(&name);
        if state.jail.is_non_accessible(&child_rel) {
            return Ok(Some(shown.join(&name)));
        }
        if kind == FileType::Directory {
            let sub = open_child_dir(dir, &name, &shown.join(&name))?;
            if let Some(found) = find_non_accessible(state, &sub, &child_rel, &shown.join(&name))? {
                return Ok(Some(found));
            }
        }
    }
    Ok(None)
}

/// Removes a folder's contents by handles, then the folder.
fn remove_tree(parent: &OwnedFd, name: &OsStr, shown: &Path) -> Result<()> {
    let dir = open_child_dir(parent, name, shown)?;
    for (child, kind) in children(&dir, shown)? {
        let child_shown = shown.join(&child);
        if kind == FileType::Directory {
            remove_tree(&dir, &child, &child_shown)?;
        } else {
            rustix::fs::unlinkat(&dir, &child, AtFlags::empty())
                .map_err(|e| Error::from_io(&e.into(), &child_shown))?;
        }
    }
    rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR)
        .map_err(|e| Error::from_io(&e.into(), shown))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteParams {
    /// Files, symlinks or folders to remove.
    paths: Vec<String>,
    /// Required to remove a folder that is not empty.
    #[serde(default)]
    recursive: bool,
    /// Go on even when the removed bytes cannot be kept for `checkpoint --restore` (over
    /// `checkpoint_max_file_bytes`, or the checkpoint store fails); the answer lists them in
    /// `not_kept`. Without it such a call is refused and nothing changes.
    #[serde(default)]
    force: bool,
}

pub use wire::answers::edit::{DeleteResult, Deleted};

/// Every path is checked (exists, allowed, `recursive` where needed, no secret inside) before
/// the first one is removed.
pub fn delete_file(state: &Workspace, p: DeleteParams) -> Result<DeleteResult> {
    if p.paths.is_empty() {
        return Err(Error::bad_input("`paths` is empty"));
    }
    let mut checked: Vec<(Resolved, Place, FileType)> = Vec::new();
    let mut fields = Vec::new();
    for (i, wire) in p.paths.iter().enumerate() {
        let field = format!("paths[{i}]");
        let resolved = entry(state, &field, wire)?;
        if checked.iter().any(|(r, _, _)| r.abs == resolved.abs) {
            continue;
        }
        let place = commit::place(&state.jail, &resolved, false)?;
        let Some(st) = place.stat()? else {
            return Err(
                Error::not_found(format!("`{field}`: {wire} does not exist"))
                    .with_recovery("check the path with list-folder"),
            );
        };
        let kind = kind_of(&st);
        if kind == FileType::Directory {
            let dir = open_child_dir(&place.dir, &place.name, &resolved.abs)?;
            let empty = children(&dir, &resolved.abs)?.is_empty();
            if !empty && !p.recursive {
                return Err(Error::bad_input(format!(
                    "`{field}`: {wire} is a folder that is not empty"
                ))
                .with_data("not_empty", true)
                .with_recovery("pass `recursive: true` to delete it with its contents"));
            }
            if let Some(secret) = find_non_accessible(state, &dir, &resolved.rel, &resolved.abs)? {
                return Err(Error::not_found(format!(
                    "`{field}`: {wire} holds {}, which is non-accessible by workspace policy; nothing was deleted",
                    secret.display()
                ))
                .with_data("non_accessible", secret.display().to_string())
                .with_recovery("delete the other entries one by one"));
            }
        }
        checked.push((resolved, place, kind));
        fields.push(field);
    }
    let _held = state
        .locks
        .lock(checked.iter().map(|(r, _, _)| r.abs.clone()))?;
    let buffers = &state.documents.buffers;
    buffers.refuse_all(checked.iter().map(|(r, _, _)| r.abs.as_path()))?;
    let mut replaced = Vec::new();
    for ((_, place, _), field) in checked.iter().zip(&fields) {
        files_under(state, field, place, &mut replaced)?;
    }
    super::keep::before(state, "delete-file", replaced, p.force)?;
    let mut deleted = Vec::new();
    for (resolved, place, kind) in checked {
        let label = match kind {
            FileType::Directory => {
                remove_tree(&place.dir, &place.name, &resolved.abs)?;
                "dir"
            }
            FileType::Symlink => {
                place.unlink(false)?;
                "symlink"
            }
            _ => {
                place.unlink(false)?;
                "file"
            }
        };
        if state.limits().fsync {
            commit::sync_dir(&place.dir, &resolved.abs)?;
        }
        forget(state, &resolved.abs, EventKind::Deleted, None);
        deleted.push(Deleted {
            path: resolved.abs,
            kind: label.into(),
        });
    }
    Ok(DeleteResult { deleted })
}

/// The files and symlinks at or under `place`, read by folder handles beneath the root (never
/// following a symlink), each with its bytes: what removing it would lose.
fn files_under(
    state: &Workspace,
    field: &str,
    place: &Place,
    out: &mut Vec<super::keep::Replaced>,
) -> Result<()> {
    let Some(st) = place.stat()? else {
        return Ok(());
    };
    if kind_of(&st) != FileType::Directory {
        out.extend(super::keep::Replaced::at(state, field, place)?);
        return Ok(());
    }
    let dir = open_child_dir(&place.dir, &place.name, &place.abs)?;
    for (name, _) in children(&dir, &place.abs)? {
        let child = Place {
            dir: dir
                .try_clone()
                .map_err(|e| Error::from_io(&e, &place.abs))?,
            abs: place.abs.join(&name),
            name,
        };
        files_under(state, field, &child, out)?;
    }
    Ok(())
}

/// Tells the documents store a path is gone (deleted, or moved to `to`).
fn forget(state: &Workspace, path: &Path, kind: EventKind, to: Option<&Path>) {
    let old_revision = Some(state.documents.revision(path)).filter(|r| *r > 0);
    let event = Event {
        path: to.unwrap_or(path).to_path_buf(),
        old_revision,
        new_revision: None,
        kind,
        changes: Vec::new(),
    };
    state.documents.removed(path, event);
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveParams {
    /// The moves to make, all or none.
    moves: Vec<MoveItem>,
    /// Go on even when the bytes an `overwrite` replaces cannot be kept for `checkpoint --restore` (over
    /// `checkpoint_max_file_bytes`, or the checkpoint store fails); the answer lists them in
    /// `not_kept`. Without it such a call is refused and nothing changes.
    #[serde(default)]
    force: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveItem {
    /// The file or folder to move.
    from: String,
    /// Where it goes.
    to: String,
    /// Replace an existing destination (default false: C217).
    #[serde(default)]
    overwrite: bool,
    /// Create the destination's missing folders (default false).
    #[serde(default)]
    parents: bool,
}

pub use wire::answers::edit::{MoveResult, Moved};

/// Moves entries. Same root: one `renameat` (`RENAME_NOREPLACE` unless `overwrite`). Across
/// roots (files only): copy into a temp file, fsync, publish, then delete the source; if that
/// delete fails the copy is removed again.
pub fn move_entries(state: &Workspace, p: MoveParams) -> Result<MoveResult> {
    if p.moves.is_empty() {
        return Err(Error::bad_input("`moves` is empty"));
    }
    let mut plans = Vec::new();
    for (i, m) in p.moves.iter().enumerate() {
        let from = entry(state, &format!("moves[{i}].from"), &m.from)?;
        let to = entry(state, &format!("moves[{i}].to"), &m.to)?;
        if from.abs == to.abs {
            return Err(Error::bad_input(format!(
                "`moves[{i}]`: {} is moved onto itself",
                m.from
            )));
        }
        if to.abs.starts_with(&from.abs) {
            return Err(Error::bad_input(format!(
                "`moves[{i}]`: {} cannot move into itself ({})",
                m.from, m.to
            )));
        }
        plans.push((i, from, to, m.overwrite, m.parents));
    }
    let _held = state.locks.lock(
        plans
            .iter()
            .flat_map(|(_, f, t, _, _)| [f.abs.clone(), t.abs.clone()]),
    )?;
    let ends = plans.iter().flat_map(|(_, f, t, _, _)| [&f.abs, &t.abs]);
    state
        .documents
        .buffers
        .refuse_all(ends.map(PathBuf::as_path))?;
    // What an `overwrite` replaces is kept first (a folder can only be replaced when empty).
    let mut replaced = Vec::new();
    for (i, _, to, overwrite, _) in &plans {
        // A missing folder on the way: nothing there to replace (the move reports it).
        let Some(place) = commit::place(&state.jail, to, false)
            .ok()
            .filter(|_| *overwrite)
        else {
            continue;
        };
        if place
            .stat()?
            .is_some_and(|st| kind_of(&st) != FileType::Directory)
        {
            files_under(state, &format!("moves[{i}].to"), &place, &mut replaced)?;
        }
    }
    super::keep::before(state, "move", replaced, p.force)?;
    let mut moved = Vec::new();
    for (i, from, to, overwrite, parents) in plans {
        let how = move_one(state, i, &from, &to, overwrite, parents)?;
        forget(
            state,
            &from.abs,
            EventKind::Moved {
                from: from.abs.clone(),
            },
            Some(&to.abs),
        );
        moved.push(Moved {
            from: from.abs,
            to: to.abs,
            how: how.into(),
        });
    }
    Ok(MoveResult { moved })
}

fn move_one(
    state: &Workspace,
    i: usize,
    from: &Resolved,
    to: &Resolved,
    overwrite: bool,
    parents: bool,
) -> Result<&'static str> {
    let fsync = state.limits().fsync;
    let src = commit::place(&state.jail, from, false)?;
    let Some(st) = src.stat()? else {
        return Err(Error::not_found(format!(
            "`moves[{i}].from`: {} does not exist",
            from.abs.display()
        )));
    };
    if kind_of(&st) == FileType::Directory {
        let dir = open_child_dir(&src.dir, &src.name, &from.abs)?;
        if let Some(secret) = find_non_accessible(state, &dir, &from.rel, &from.abs)? {
            return Err(Error::not_found(format!(
                "`moves[{i}].from`: {} holds the non-accessible {}",
                from.abs.display(),
                secret.display()
            )));
        }
    }
    let dst = commit::place(&state.jail, to, parents)?;
    if from.root == to.root {
        let renamed = if overwrite {
            rustix::fs::renameat(&src.dir, &src.name, &dst.dir, &dst.name)
        } else {
            rustix::fs::renameat_with(
                &src.dir,
                &src.name,
                &dst.dir,
                &dst.name,
                rustix::fs::RenameFlags::NOREPLACE,
            )
        };
        match renamed {
            Ok(()) => {}
            Err(rustix::io::Errno::EXIST) => {
                return Err(super::write::exists(&format!("moves[{i}].to"), &to.abs))
            }
            Err(e) => return Err(Error::from_io(&e.into(), &to.abs)),
        }
        if fsync {
            commit::sync_dir(&dst.dir, &to.abs)?;
            commit::sync_dir(&src.dir, &from.abs)?;
        }
        return Ok("rename");
    }
    if kind_of(&st) != FileType::RegularFile {
        return Err(Error::refused(format!(
            "`moves[{i}].from`: {} is not a regular file; only files move across roots",
            from.abs.display()
        )));
    }
    let (mut file, meta) = state.jail.open_file(from)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::from_io(&e, &from.abs))?;
    let like = commit::Existing::of(&meta);
    let staged = commit::stage(&dst, &bytes, Some((&like, &file)), fsync, &state.journal)?;
    let how = if overwrite {
        Publish::Overwrite
    } else {
        Publish::CreateNew
    };
    staged.publish(how, None, fsync).map_err(|e| {
        if e.code == Code::Exists {
            super::write::exists(&format!("moves[{i}].to"), &to.abs)
        } else {
            e
        }
    })?;
    if let Err(e) = src.unlink(false) {
        let _ = dst.unlink(false);
        return Err(e);
    }
    if fsync {
        commit::sync_dir(&src.dir, &from.abs)?;
    }
    Ok("copy")
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CleanParams {
    /// Folder to clean (default: the primary root).
    dir: Option<String>,
    /// Remove the backups listed (without it, `clean` only lists them). It confirms the
    /// listing; it never widens what is removed (only backups coderd wrote).
    #[serde(default)]
    force: bool,
}

pub use wire::answers::edit::CleanResult;

/// How many of the `.bak` files coderd did not write an answer names.
const FOREIGN_SHOWN: usize = 100;

/// Whether a `clean` call removes nothing (it only lists without `force`): it needs no snapshot.
pub fn clean_changes_nothing(params: &serde_json::Value) -> bool {
    params.get("force").and_then(serde_json::Value::as_bool) != Some(true)
}

/// The `.bak` files coderd wrote under a folder (its backup journal, `backups`), each still the
/// file coderd published: listed, then removed with `force`. A `.bak` coderd did not write, or
/// that changed since, is never removed, only named. Each removal goes through a folder handle
/// beneath the root; never a symlink, never a non-accessible path.
pub fn clean(state: &Workspace, p: CleanParams) -> Result<CleanResult> {
    let dir = state
        .jail
        .resolve_visible("dir", p.dir.as_deref().unwrap_or("."))?;
    let mut journal = super::backups::recorded(state);
    let mut ours = Vec::new();
    for (path, recorded) in &journal {
        if !path.starts_with(&dir.abs) {
            continue;
        }
        let Some(resolved) = state.jail.locate(path) else {
            continue;
        };
        if state.jail.is_non_accessible(&resolved.rel) {
            continue;
        }
        let Ok(place) = commit::place(&state.jail, &resolved, false) else {
            continue;
        };
        // Checked by handle: only the regular file coderd published there, unchanged.
        let same = place.stat()?.is_some_and(|st| {
            kind_of(&st) == FileType::RegularFile
                && super::backups::Identity::of_stat(&st) == *recorded
        });
        if same {
            ours.push((path.clone(), place));
        }
    }
    let mut kept_not_ours = foreign_backups(state, &dir, &ours);
    let kept_not_ours_total = kept_not_ours.len();
    kept_not_ours.truncate(FOREIGN_SHOWN);
    let mut result = CleanResult {
        removed: Vec::new(),
        would_remove: Vec::new(),
        count: 0,
        kept_not_ours,
        kept_not_ours_total,
        kept_only_copy: Vec::new(),
        note: None,
    };
    if !super::backups::journaled(state) {
        result.note = Some(
            "no data folder ($XDG_DATA_HOME or $HOME): coderd keeps no journal of its backups, \
             so it removes none"
                .into(),
        );
    }
    if !p.force {
        result.would_remove = ours.into_iter().map(|(path, _)| path).collect();
        if !result.would_remove.is_empty() && result.note.is_none() {
            result.note = Some(
                "nothing removed yet: pass `force` to remove the backups listed in `would_remove`"
                    .into(),
            );
        }
    } else {
        let ours = last_copies_kept(state, ours, &mut result)?;
        for (path, place) in ours {
            place.unlink(false)?;
            result.removed.push(path);
        }
        result.count = result.removed.len();
    }
    // The journal keeps the backups still there as coderd wrote them.
    journal.retain(|path, recorded| {
        let now = std::fs::symlink_metadata(path).ok();
        now.is_some_and(|m| super::backups::Identity::of_metadata(&m) == *recorded)
    });
    super::backups::keep_only(state, &journal);
    Ok(result)
}

/// The backups `clean --force` may remove: their bytes are first kept in the checkpoint store
/// (`keep`); a backup whose bytes cannot be kept there (over `checkpoint_max_file_bytes`,
/// checkpoints off) is removed only when the file it backs up holds the same bytes, else it stays
/// and is named in `kept_only_copy`: no removal loses the last copy of anything.
fn last_copies_kept(
    state: &Workspace,
    ours: Vec<(PathBuf, Place)>,
    result: &mut CleanResult,
) -> Result<Vec<(PathBuf, Place)>> {
    let cap = state.limits().checkpoint_max_file_bytes;
    let size = |path: &Path| std::fs::symlink_metadata(path).map_or(0, |m| m.len());
    let (within, over): (Vec<_>, Vec<_>) = ours.into_iter().partition(|(p, _)| size(p) <= cap);
    let mut replaced = Vec::new();
    for (_, place) in &within {
        replaced.extend(super::keep::Replaced::at(state, "dir", place)?);
    }
    let kept = super::keep::before(state, "clean", replaced, false)?;
    let (mut removable, unkept) = match kept {
        true => (within, over),
        false => (Vec::new(), within.into_iter().chain(over).collect()),
    };
    for (path, place) in unkept {
        match same_as_backed_up_file(state, &path) {
            true => removable.push((path, place)),
            false => result.kept_only_copy.push(path),
        }
    }
    Ok(removable)
}

/// Whether a `<file>.bak` holds the same bytes as `<file>` (then removing it loses nothing). Both
/// are read through the jail; a secret or a missing file counts as different.
fn same_as_backed_up_file(state: &Workspace, bak: &Path) -> bool {
    let read = |path: &Path| -> Option<Vec<u8>> {
        let resolved = state.jail.locate(path)?;
        if state.jail.is_non_accessible(&resolved.rel) {
            return None;
        }
        let (mut file, _) = state.jail.open_file(&resolved).ok()?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        Some(bytes)
    };
    match (read(bak), read(&bak.with_extension(""))) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The `.bak` regular files under `dir` that are not in `ours`: named, so the answer says why
/// they stay.
fn foreign_backups(state: &Workspace, dir: &Resolved, ours: &[(PathBuf, Place)]) -> Vec<PathBuf> {
    let mut walker = state.jail.walk_builder(dir, false, true);
    let excludes = state.jail.default_excludes();
    walker.filter_entry(move |e| !coderd_core::globs::hit(&excludes, Path::new(e.file_name())));
    let mut found: Vec<PathBuf> = walker
        .build()
        .flatten()
        .filter(|item| item.path().extension().is_some_and(|e| e == "bak"))
        .filter(|item| item.file_type().is_some_and(|t| t.is_file()))
        .map(|item| item.into_path())
        .filter(|path| {
            let secret = state
                .jail
                .locate(path)
                .is_none_or(|r| state.jail.is_non_accessible(&r.rel));
            !secret && !ours.iter().any(|(p, _)| p == path)
        })
        .collect();
    found.sort();
    found
}
