//! What the documents store tells its subscribers (the syntax cache, language servers) after every
//! change: which file, which revisions, and what changed where.

use serde::Serialize;
use std::ops::Range;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// An edit through the daemon changed the file's content.
    Edited,
    /// The daemon created the file.
    Created,
    /// The daemon deleted the file.
    Deleted,
    /// The daemon moved the file here from `from`.
    Moved { from: PathBuf },
    /// Another program changed the file (noticed by the watcher or a stamp check).
    External,
}

/// One changed region, in the old and the new content. Lines are 0-based, half-open; bytes too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    pub old_bytes: Range<usize>,
    pub new_bytes: Range<usize>,
    pub old_lines: Range<usize>,
    pub new_lines: Range<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    /// Canonical absolute path (for a move: the destination).
    pub path: PathBuf,
    /// `None` when the file did not exist before (created) or the daemon had not seen it.
    pub old_revision: Option<u64>,
    /// `None` when the file no longer exists (deleted).
    pub new_revision: Option<u64>,
    pub kind: EventKind,
    /// The regions that changed, in file order; empty when unknown (external writes) or whole-file.
    pub changes: Vec<Change>,
}
