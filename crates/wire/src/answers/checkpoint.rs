//! `checkpoint`'s answers (`Answer::Checkpoint`): the list, a snapshot made, or what a restore
//! did, tagged by `action`; built by coderd-git and rendered by `coder` from these fields.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `checkpoint`'s answer, by its `action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Outcome {
    /// `--list` (the default).
    List(Listing),
    /// `--create`.
    Create(Snapshot),
    /// `--restore HASH`.
    Restore(Restored),
}

/// The snapshots, newest first, and how automatic ones fare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    /// The snapshots.
    pub checkpoints: Vec<Entry>,
    /// The automatic snapshots.
    pub auto: AutoReport,
    /// The shadow repository (absent when the daemon has no data folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<PathBuf>,
}

/// One snapshot of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Its commit in the shadow repository.
    pub hash: String,
    /// Unix seconds.
    pub time: i64,
    /// What made it (a method and its files, or the caller's label).
    pub label: String,
    /// Paths it changed since the one before.
    pub files_changed: usize,
}

/// How automatic snapshots fare, for `checkpoint --list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutoReport {
    /// Taken before each change.
    pub enabled: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Automatic snapshots attempted and done by this daemon.
    pub taken: u64,
    /// Failures since the last success.
    pub failures_in_a_row: u32,
    /// The last failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// What one snapshot did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The commit naming the snapshot (the previous one when nothing changed).
    pub hash: String,
    /// Whether a new commit was made (false: the tree was the same as the last snapshot's).
    pub created: bool,
    /// Paths handed to git this time (changed, added or removed since the last snapshot).
    pub files_changed: usize,
    /// Untracked files over `checkpoint_max_file_bytes`, left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_large: Vec<String>,
    /// Files left out because they are secrets by `non_accessible_globs`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped_secrets: usize,
    /// Nested git repositories, left out (their own history keeps them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_nested_repos: Vec<String>,
    /// True once a `.gitignore` changed after this daemon's first snapshot: new files are then
    /// picked by the snapshots' own rules (`default_exclude_globs`), not the `.gitignore` files.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_rules: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restored {
    /// The snapshot restored.
    pub restored_from: String,
    /// The snapshot taken just before (restore it to undo this one).
    pub undo: String,
    /// Paths written back (content and mode as in the snapshot).
    pub restored: Vec<String>,
    /// Paths that exist now but not in the snapshot: created after it, kept as they are.
    pub kept_newer: Vec<String>,
    /// Paths snapshots leave out (over the size cap, ignored) that the restore overwrote: the
    /// undo snapshot holds their bytes from just before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undo_also_holds: Vec<String>,
    /// Paths that could not be written back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<RestoreFailure>,
}

/// A path a restore could not write back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestoreFailure {
    /// The path.
    pub path: String,
    /// Why.
    pub error: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each action's answer as the daemon writes it (the bytes of the types before they moved
    /// here: the `action` tag first), read back as the same value.
    #[test]
    fn each_checkpoint_answer_keeps_its_bytes_and_reads_back() {
        let cases = [
            (
                Outcome::List(Listing {
                    checkpoints: vec![Entry {
                        hash: "abc".into(),
                        time: 5,
                        label: "write a.rs".into(),
                        files_changed: 1,
                    }],
                    auto: AutoReport {
                        enabled: false,
                        reason: Some("off".into()),
                        taken: 0,
                        failures_in_a_row: 0,
                        last_error: None,
                    },
                    store: None,
                }),
                r#"{"action":"list","checkpoints":[{"hash":"abc","time":5,"label":"write a.rs","files_changed":1}],"auto":{"enabled":false,"reason":"off","taken":0,"failures_in_a_row":0}}"#,
            ),
            (
                Outcome::Create(Snapshot {
                    hash: "abc".into(),
                    created: true,
                    files_changed: 2,
                    skipped_large: vec!["big.bin".into()],
                    skipped_secrets: 1,
                    skipped_nested_repos: vec![],
                    own_rules: false,
                }),
                r#"{"action":"create","hash":"abc","created":true,"files_changed":2,"skipped_large":["big.bin"],"skipped_secrets":1}"#,
            ),
            (
                Outcome::Restore(Restored {
                    restored_from: "abc".into(),
                    undo: "def".into(),
                    restored: vec!["a.rs".into()],
                    kept_newer: vec![],
                    undo_also_holds: vec![],
                    failed: vec![RestoreFailure {
                        path: "b.rs".into(),
                        error: "denied".into(),
                    }],
                }),
                r#"{"action":"restore","restored_from":"abc","undo":"def","restored":["a.rs"],"kept_newer":[],"failed":[{"path":"b.rs","error":"denied"}]}"#,
            ),
        ];
        for (answer, expected) in cases {
            let text = serde_json::to_string(&answer).unwrap();
            assert_eq!(text, expected);
            assert_eq!(serde_json::from_str::<Outcome>(&text).unwrap(), answer);
        }
    }
}
