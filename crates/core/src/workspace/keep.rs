//! The hand-over of bytes about to be lost: before an edit overwrites, deletes or moves over a
//! file, it gives the file's path to the `Keeper` (the checkpoint store, installed by the daemon),
//! which keeps the current bytes where `checkpoint --restore` brings them back. A trait here, so
//! the edit side knows no checkpoint code and the checkpoint side no edit method.

use super::Workspace;

/// What became of a hand-over.
#[derive(Debug, PartialEq, Eq)]
pub enum Kept {
    /// The bytes are in the snapshot with this hash.
    In(String),
    /// Nothing is kept by design: checkpoints are off in the daemon's config (or environment),
    /// the workspace is never snapshotted (`$HOME`), or there is no data folder or no git.
    Off(String),
}

/// One file's bytes as they are before a call replaces them.
pub struct Bytes<'a> {
    /// Absolute, inside a root.
    pub path: &'a std::path::Path,
    /// Git's mode: 0o100644, 0o100755 or 0o120000 (a symlink: `bytes` is its target).
    pub mode: u32,
    pub bytes: &'a [u8],
}

pub trait Keeper: Send + Sync {
    /// Keeps `files` (read by the caller through the jail, none of them a secret), labelled
    /// `label`. An error says why they could not be kept.
    fn keep(
        &self,
        workspace: &Workspace,
        files: &[Bytes<'_>],
        label: &str,
    ) -> std::result::Result<Kept, String>;
}
