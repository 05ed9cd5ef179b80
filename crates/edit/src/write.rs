//! Whole-content edits: `write` (with a `.bak`), `create-file`, and `rollback` (from the `.bak`).

use super::content::{decode, Encoding, Hardlinks};
use super::txn::{self, FileResult, Options, Target};
use coderd_core::error::{Error, Result};
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::Deserialize;
use std::io::Read;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteParams {
    /// The file to write (created with its folders when missing).
    file: String,
    /// The new content (all of it, or what `append` adds).
    content: String,
    /// Encoding of `content`: `text` (default) or `base64`.
    #[serde(default)]
    encoding: Encoding,
    /// Add to the end of the file instead of replacing it.
    #[serde(default)]
    append: bool,
    /// Keep the previous content as `<file>.bak` (default true).
    backup: Option<bool>,
    /// Refuse (C212) unless the file is still at this version (from `read`).
    expect_version: Option<String>,
    /// The client's session: the daemon remembers which version of each file it read, and a
    /// line-number edit based on an outdated read is refused (C212).
    session: Option<String>,
    /// A file with several hard links: `refuse` (default, C214) or `split` (the edited name gets
    /// its own inode; the other names keep the old content).
    hardlinks: Option<Hardlinks>,
    /// Go on even when the replaced bytes cannot be kept for `checkpoint --restore` (over
    /// `checkpoint_max_file_bytes`, or the checkpoint store fails); the answer lists them in
    /// `not_kept`. Without it such a call is refused and nothing changes.
    #[serde(default)]
    force: bool,
    /// Answer each file with the unified diff the call would make, and change nothing.
    #[serde(default)]
    dry_run: bool,
}

pub fn write(state: &Workspace, p: WriteParams) -> Result<FileResult> {
    let bytes = decode("content", &p.content, p.encoding)?;
    let mut target = target(state, "file", &p.file)?;
    target.expect_version = p.expect_version;
    target.parents = true;
    let path = target.resolved.abs.clone();
    let opts = Options {
        force: p.force,
        method: "write",
        ..Options::backed_up(p.session, p.hardlinks, p.backup, p.dry_run)
    };
    let mut results = txn::run(state, vec![target], &opts, |ws| {
        let new = if p.append && ws.exists(&path) {
            let mut whole = ws.current(&path)?.to_vec();
            whole.extend_from_slice(&bytes);
            whole
        } else {
            bytes.clone()
        };
        ws.set(&path, new);
        Ok(())
    })?;
    Ok(results.remove(0))
}

/// Resolves a path an edit writes: inside the jail and not non-accessible.
pub fn target(state: &Workspace, field: &str, wire: &str) -> Result<Target> {
    Ok(Target::new(field, state.jail.resolve(field, wire)?))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateParams {
    /// The files to create, all or none.
    files: Vec<NewFile>,
    /// The client's session: the daemon remembers which version of each file it read, and a
    /// line-number edit based on an outdated read is refused (C212).
    session: Option<String>,
    /// Go on even when the replaced bytes cannot be kept for `checkpoint --restore` (over
    /// `checkpoint_max_file_bytes`, or the checkpoint store fails); the answer lists them in
    /// `not_kept`. Without it such a call is refused and nothing changes.
    #[serde(default)]
    force: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewFile {
    /// The file to create.
    path: String,
    /// Its content (default empty).
    #[serde(default)]
    content: String,
    /// Encoding of `content`: `text` (default) or `base64`.
    #[serde(default)]
    encoding: Encoding,
    /// Replace an existing file (default false: an existing path is C217).
    #[serde(default)]
    overwrite: bool,
    /// Create missing parent folders (default false).
    #[serde(default)]
    parents: bool,
}

pub use wire::answers::edit::FilesResult;

/// Creates files: all of them or none. Without `overwrite`, an existing path is C217, decided by
/// the kernel at the rename (`RENAME_NOREPLACE`), so a racing creator cannot be overwritten.
pub fn create_file(state: &Workspace, p: CreateParams) -> Result<FilesResult> {
    if p.files.is_empty() {
        return Err(Error::bad_input("`files` is empty")
            .with_recovery(r##"{"files": [{"path": "notes.md", "content": "# notes\n"}]}"##));
    }
    let mut targets: Vec<(Target, Vec<u8>)> = Vec::new();
    for (i, f) in p.files.iter().enumerate() {
        let mut t = target(state, &format!("files[{i}].path"), &f.path)?;
        if targets
            .iter()
            .any(|(o, _)| o.resolved.abs == t.resolved.abs)
        {
            return Err(Error::bad_input(format!(
                "`{}`: {} is named twice",
                t.field, f.path
            )));
        }
        t.create_only = !f.overwrite;
        t.parents = f.parents;
        let bytes = decode(&format!("files[{i}].content"), &f.content, f.encoding)?;
        targets.push((t, bytes));
    }
    let opts = Options {
        session: p.session,
        force: p.force,
        method: "create-file",
        ..Options::default()
    };
    let results = txn::run(
        state,
        targets.iter().map(|(t, _)| t.clone()).collect(),
        &opts,
        |ws| {
            for (t, bytes) in &targets {
                if t.create_only && ws.exists(&t.resolved.abs) {
                    return Err(exists(&t.field, &t.resolved.abs));
                }
                ws.set(&t.resolved.abs, bytes.clone());
            }
            Ok(())
        },
    )?;
    Ok(FilesResult { files: results })
}

pub fn exists(field: &str, path: &std::path::Path) -> Error {
    Error::new(
        coderd_core::error::Code::Exists,
        format!("`{field}`: {} already exists", path.display()),
    )
    .with_recovery("pass `overwrite: true` to replace it, or choose another path")
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RollbackParams {
    /// The file to restore from its `.bak`.
    file: String,
    /// The client's session: the daemon remembers which version of each file it read, and a
    /// line-number edit based on an outdated read is refused (C212).
    session: Option<String>,
    /// Go on even when the replaced bytes cannot be kept for `checkpoint --restore` (over
    /// `checkpoint_max_file_bytes`, or the checkpoint store fails); the answer lists them in
    /// `not_kept`. Without it such a call is refused and nothing changes.
    #[serde(default)]
    force: bool,
}

/// Restores a file from its `.bak`, and the replaced content becomes the `.bak`: rollback swaps
/// the two. The `.bak` is opened beneath the root without following
/// symlinks, so a planted `.bak` link is refused, never read through.
pub fn rollback(state: &Workspace, p: RollbackParams) -> Result<FileResult> {
    let target = target(state, "file", &p.file)?;
    let bak = txn::backup_of(&target.resolved);
    let limits = state.limits();
    let (mut file, meta) = state.jail.open_file(&bak).map_err(|e| {
        if e.code == coderd_core::error::Code::NotFound {
            Error::not_found(format!(
                "`file`: no backup {} to restore",
                bak.abs.display()
            ))
            .with_recovery(
                "backups are made by write and patch; see git or checkpoint for older versions",
            )
        } else {
            e
        }
    })?;
    if meta.len() > limits.max_write_bytes {
        return Err(Error::too_large(format!(
            "{} is over max_write_bytes",
            bak.abs.display()
        )));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::from_io(&e, &bak.abs))?;
    let path = target.resolved.abs.clone();
    // The save it replaces becomes the `.bak` (a second rollback gives it back), and is kept in
    // the checkpoint store first, as every replaced byte is (`edit::keep`).
    let opts = Options {
        session: p.session,
        force: p.force,
        method: "rollback",
        backup: true,
        ..Options::default()
    };
    let mut results = txn::run(state, vec![target], &opts, |ws| {
        ws.set(&path, bytes.clone());
        Ok(())
    })?;
    Ok(results.remove(0))
}
