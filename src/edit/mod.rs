//! The write side: locating edits in a file's text and committing them to disk.
//!
//! Locating (pure, on bytes): `locate` (search/replace), `diff` (unified diffs), `update` (iii's line
//! and regex ops) all produce `splice`s. Committing: `txn` (plan, then all files or none) over
//! `commit` (the atomic write protocol) under `locks`. Methods: `write`, `patch`, `update_file`,
//! `paths` (delete, move, clean).

pub mod commit;
pub mod content;
pub mod diff;
pub mod locate;
pub mod locks;
pub mod patch;
pub mod paths;
#[cfg(test)]
mod perturb;
pub mod splice;
pub mod txn;
pub mod update;
pub mod update_file;
pub mod write;
