//! The hand-over of bytes about to be lost: before an edit overwrites, deletes or moves over a
//! file, it gives the file's path to the `Keeper` (the checkpoint store, installed by the daemon),
//! which keeps the current bytes where `checkpoint --restore` brings them back. A trait here, so
//! the edit side knows no checkpoint code and the checkpoint side no edit method.

use super::Workspace;
use std::path::PathBuf;

/// What became of a hand-over.
#[derive(Debug, PartialEq, Eq)]
pub enum Kept {
    /// The bytes are in the snapshot with this hash.
    In(String),
    /// Nothing is kept by design: checkpoints are off in the daemon's config (or environment),
    /// the workspace is never snapshotted (`$HOME`), or there is no data folder or no git.
    Off(String),
}

pub trait Keeper: Send + Sync {
    /// Keeps the current bytes of `files` (absolute paths of files or symlinks inside the roots,
    /// none of them a secret), labelled `label`. An error says why they could not be kept.
    fn keep(
        &self,
        workspace: &Workspace,
        files: &[PathBuf],
        label: &str,
    ) -> std::result::Result<Kept, String>;
}
