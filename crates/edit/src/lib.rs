//! The write side: locating edits in a file's text and committing them to disk.
//!
//! Locating (pure, on bytes): `locate` (search/replace), `diff` (unified diffs), `update` (iii's line
//! and regex ops; patterns compiled once in `regex_cache`) all produce `splice`s, which also let the
//! commit edit the document's rope in place. Committing: `txn` (plan, then all files or none) over
//! `commit` (the atomic write protocol) under `locks`. Methods: `write`, `patch`, `update_file`,
//! `paths` (delete, move, clean); `symbol` (an outline item's lines replaced, beside a new one, or
//! removed: the daemon names the lines).
//!
//! The crate stands on coderd-core alone: it knows no syntax, language server, git, method or face.
//! The bytes it is about to replace go to a `Keeper` (core's `workspace::keep`), which the daemon
//! fills with the checkpoint store.

mod backups;
mod content;
pub mod diff;
mod keep;
pub mod locate;
pub mod patch;
pub mod paths;
mod regex_cache;
pub mod rename;
mod stat;
pub mod symbol;
pub mod txn;
pub mod update;
pub mod update_file;
pub mod write;

// The commit protocol, the per-file locks and splices belong to the documents store (the core
// layer: checkpoint restores and the store itself use them); edit's planners name them here.
pub use coderd_core::documents::{commit, locks, splice};
