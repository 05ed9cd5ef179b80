//! The write side: locating edits in a file's text and committing them to disk.
//!
//! Locating (pure, on bytes): `locate` (search/replace), `diff` (unified diffs), `update` (iii's line
//! and regex ops; patterns compiled once in `regex_cache`) all produce `splice`s, which also let the
//! commit edit the document's rope in place. Committing: `txn` (plan, then all files or none) over
//! `commit` (the atomic write protocol) under `locks`. Methods: `write`, `patch`, `update_file`,
//! `paths` (delete, move, clean).

pub mod backups;
pub mod content;
pub mod diff;
pub mod locate;
pub mod patch;
pub mod paths;
#[cfg(test)]
mod perturb;
mod regex_cache;
pub mod txn;
pub mod update;
pub mod update_file;
pub mod write;

// The commit protocol, the per-file locks and splices belong to the documents store (the core
// layer: checkpoint restores and the store itself use them); edit's planners name them here.
pub use crate::documents::{commit, locks, splice};

use crate::methods::{method, Method};

/// The write side's entries in the method table.
pub fn methods() -> Vec<Method> {
    vec![
        method(
            "write",
            &[],
            "Write a file (text or base64), keeping the previous content as <file>.bak.",
            true,
            write::write,
        ),
        method(
            "create-file",
            &["coder::create-file"],
            "Create files (all or none); an existing path is C217 unless overwrite.",
            true,
            write::create_file,
        ),
        method(
            "rollback",
            &[],
            "Restore a file from its .bak.",
            true,
            write::rollback,
        ),
        method(
            "patch",
            &[],
            "Replace a unique search text, or apply a unified diff (multi-file; all hunks or none).",
            true,
            patch::patch,
        ),
        method(
            "multipatch",
            &[],
            "Several search/replace edits over several files: all applied, or none.",
            true,
            patch::multipatch,
        ),
        method(
            "update-file",
            &["coder::update-file"],
            "Line ops (insert, remove, update_lines) and regex replaces over files, with echoes.",
            true,
            update_file::update_file,
        ),
        method(
            "delete-file",
            &["coder::delete-file"],
            "Delete files, symlinks or folders (recursive for non-empty ones).",
            true,
            paths::delete_file,
        ),
        method(
            "move",
            &["coder::move"],
            "Move or rename entries; across roots files are copied then deleted.",
            true,
            paths::move_entries,
        ),
        method(
            "clean",
            &[],
            "The .bak backups coderd wrote under a folder: listed, and removed with --force (never a .bak coderd did not write).",
            true,
            paths::clean,
        ),
    ]
}
