//! No user work lost: before an edit overwrites, deletes or moves over files, their current bytes
//! are handed to the keeper (the checkpoint store, see `workspace::keep`), tracked, untracked and
//! ignored files alike. The transaction (`txn`), `delete-file`, `move` and `clean` all call
//! `before`, so every way of losing bytes goes through this one gate.
//!
//! - A file over `checkpoint_max_file_bytes` (or a call replacing more than
//!   `checkpoint_max_files` files) is refused (C213) unless the call says `force`; with `force`
//!   it goes ahead and the answer lists the file in `not_kept`.
//! - When keeping fails (git, the store), the call is refused (C216, nothing changed) unless
//!   `force`, which again lists the files in `not_kept`.
//! - When checkpoints are off by the daemon's config or environment, nothing is kept, as
//!   configured, and nothing is said.
//! - Secrets (`non_accessible_globs`) are never kept: no snapshot holds them.

use coderd_core::documents::commit::Place;
use coderd_core::error::{Code, Error, Result};
use coderd_core::workspace::keep::{Bytes, Kept};
use coderd_core::workspace::Workspace;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

/// A file whose bytes a call is about to replace or remove.
pub struct Replaced {
    /// The request field that names it (or the folder holding it).
    pub field: String,
    pub path: PathBuf,
    pub size: u64,
    /// Git's mode: 0o100644, 0o100755, or 0o120000 for a symlink (`bytes` is its target).
    pub mode: u32,
    /// The bytes as read through the jail (empty when over the size cap: never read).
    pub bytes: Arc<Vec<u8>>,
}

impl Replaced {
    /// A regular file's bytes the caller holds already, with its permission bits.
    pub fn held(field: &str, path: PathBuf, bytes: Arc<Vec<u8>>, permissions: u32) -> Replaced {
        Replaced {
            field: field.to_string(),
            size: bytes.len() as u64,
            path,
            mode: git_mode(permissions),
            bytes,
        }
    }

    /// The entry at `place` as it is now, read by its folder's handle (a symlink as itself, never
    /// followed); `None` for a folder, another kind of entry, or nothing there. A file over
    /// `cap` is not read.
    pub fn at(state: &Workspace, field: &str, place: &Place) -> Result<Option<Replaced>> {
        use rustix::fs::{FileType, Mode, OFlags};
        let Some(st) = place.stat()? else {
            return Ok(None);
        };
        let io = |e: rustix::io::Errno| Error::from_io(&e.into(), &place.abs);
        let size = st.st_size as u64;
        let cap = state.limits().checkpoint_max_file_bytes;
        let (mode, bytes) = match FileType::from_raw_mode(st.st_mode) {
            FileType::Symlink => {
                let target = rustix::fs::readlinkat(&place.dir, &place.name, Vec::new());
                (SYMLINK, target.map_err(io)?.into_bytes())
            }
            FileType::RegularFile if size > cap => (git_mode(st.st_mode), Vec::new()),
            FileType::RegularFile => {
                let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let fd = rustix::fs::openat(&place.dir, &place.name, flags, Mode::empty());
                let mut bytes = Vec::with_capacity(size as usize);
                std::fs::File::from(fd.map_err(io)?)
                    .read_to_end(&mut bytes)
                    .map_err(|e| Error::from_io(&e, &place.abs))?;
                (git_mode(st.st_mode), bytes)
            }
            _ => return Ok(None),
        };
        Ok(Some(Replaced {
            field: field.to_string(),
            path: place.abs.clone(),
            size,
            mode,
            bytes: Arc::new(bytes),
        }))
    }
}

const SYMLINK: u32 = 0o120000;

/// Git records a file as executable or not.
fn git_mode(permissions: u32) -> u32 {
    match permissions & 0o111 {
        0 => 0o100644,
        _ => 0o100755,
    }
}

/// Keeps the current bytes of `replaced` before `method` changes them (see the module docs).
/// Returns whether they are kept (false: checkpoints are off, or `force` went past a failure or
/// the size cap).
pub fn before(
    state: &Workspace,
    method: &str,
    replaced: Vec<Replaced>,
    force: bool,
) -> Result<bool> {
    let Some(keeper) = state.keeper() else {
        return Ok(false);
    };
    let replaced: Vec<Replaced> = replaced
        .into_iter()
        .filter(|r| {
            let secret = state.jail.locate(&r.path);
            secret.is_some_and(|s| !state.jail.is_non_accessible(&s.rel))
        })
        .collect();
    if replaced.is_empty() {
        return Ok(true);
    }
    let limits = state.limits();
    let cap = limits.checkpoint_max_file_bytes;
    let (over, within): (Vec<Replaced>, Vec<Replaced>) =
        replaced.into_iter().partition(|r| r.size > cap);
    if let Some(big) = over.first().filter(|_| !force) {
        return Err(Error::too_large(format!(
            "`{}`: {} is {} bytes, over checkpoint_max_file_bytes = {cap}: its bytes cannot be \
             kept for `checkpoint --restore`, so nothing was changed",
            big.field,
            big.path.display(),
            big.size
        ))
        .with_data("size", big.size)
        .with_recovery(
            "pass `force: true` to go on without a copy (the answer lists it in `not_kept`), \
             or raise checkpoint_max_file_bytes in the daemon's config",
        ));
    }
    if within.len() as u64 > limits.checkpoint_max_files && !force {
        return Err(Error::too_large(format!(
            "`{}`: the call would replace {} files, over checkpoint_max_files = {}: they cannot \
             all be kept, so nothing was changed",
            within[0].field,
            within.len(),
            limits.checkpoint_max_files
        ))
        .with_recovery(
            "pass `force: true` to go on without a copy, or change fewer files at once",
        ));
    }
    for r in &over {
        coderd_core::request::note_not_kept(
            &r.path,
            &format!("over checkpoint_max_file_bytes ({cap})"),
        );
    }
    if within.is_empty() {
        return Ok(over.is_empty());
    }
    let files: Vec<Bytes> = within
        .iter()
        .map(|r| Bytes {
            path: &r.path,
            mode: r.mode,
            bytes: &r.bytes,
        })
        .collect();
    match keeper.keep(state, &files, &label(state, method, &within)) {
        Ok(Kept::In(_)) => Ok(over.is_empty()),
        Ok(Kept::Off(_)) => Ok(false),
        Err(why) if force => {
            for r in &within {
                coderd_core::request::note_not_kept(&r.path, &format!("keeping failed: {why}"));
            }
            Ok(false)
        }
        Err(why) => Err(Error::new(
            Code::Io,
            format!(
                "`{}`: the bytes of {} could not be kept for `checkpoint --restore` ({why}), so \
                 nothing was changed",
                within[0].field,
                within[0].path.display()
            ),
        )
        .with_recovery(
            "`checkpoint --create` shows what fails; pass `force: true` to go on without a copy",
        )),
    }
}

/// `kept: before write of a.txt` (and how many more files); paths as the jail shows them.
fn label(state: &Workspace, method: &str, files: &[Replaced]) -> String {
    let path = &files[0].path;
    let first = state.jail.locate(path).map_or_else(
        || path.display().to_string(),
        |r| r.rel.display().to_string(),
    );
    match files.len() {
        1 => format!("kept: before {method} of {first}"),
        n => format!("kept: before {method} of {first} and {} more", n - 1),
    }
}
