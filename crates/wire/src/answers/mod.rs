//! What kind of answer a method gives, declared once on its entry in the daemon's method table
//! (`Method::answer`) and listed by `schema` as `answer`: a client picks its rendering from this
//! type, never from the method's name, so a method renamed or added needs no second list (the
//! client's former list of editing methods), and a kind without a rendering does not compile
//! (the client matches on every variant).

pub mod checkpoint;
pub mod command;
pub mod edit;
pub mod git;
pub mod listing;
pub mod navigate;
pub mod stats;
pub mod todo;

pub use todo::{TodoEntry, TodoPlan, TodoStatus, TodoSummary};

use serde::{Deserialize, Serialize};

/// The shape of a method's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// No rendering of its own: shown as JSON.
    #[default]
    Json,
    /// `search`'s hits (or its text form).
    Search,
    /// A nested folder view.
    Tree,
    /// A text window, a stat probe, or a batch of reads.
    Read,
    /// One folder's entries.
    ListFolder,
    /// A file's definitions.
    Outline,
    /// The ranked definitions of a tree.
    Map,
    /// Definitions found by name.
    Symbols,
    /// The language servers' report.
    Diagnostics,
    /// Branch, upstream and changed paths.
    GitStatus,
    /// A unified diff.
    GitDiff,
    /// Commits.
    GitLog,
    /// Changed files.
    GitChanged,
    /// Branches.
    GitBranch,
    /// Snapshots listed, made or restored.
    Checkpoint,
    /// A session's plan.
    Todo,
    /// The daemon's metrics.
    Stats,
    /// A command's run: exit, output, a test summary.
    Command,
    /// Files an edit changed, created, moved or deleted.
    Edit,
    /// Places a semantic move found, each with its line (`definition`, `references`...).
    Locations,
    /// Calling or called functions (`callers`, `callees`).
    Calls,
    /// A server's hover text.
    Hover,
    /// A rename's files, or its dry run's unified diff.
    Rename,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_written_in_kebab_case() {
        let text = serde_json::to_string(&Answer::ListFolder).unwrap();
        assert_eq!(text, "\"list-folder\"");
        let back: Answer = serde_json::from_str("\"git-status\"").unwrap();
        assert_eq!(back, Answer::GitStatus);
    }
}
