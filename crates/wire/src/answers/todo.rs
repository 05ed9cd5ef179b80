//! `todo`'s answer: a session's plan.

use serde::{Deserialize, Serialize};

/// `todo`'s answer: a session's plan. The daemon builds it and the client renders it, so a field
/// renamed here is renamed for both (or the client does not compile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TodoPlan {
    /// Whose plan.
    pub session: String,
    /// The items, numbered from 1.
    pub todos: Vec<TodoEntry>,
    /// How many items are in each status.
    pub summary: TodoSummary,
}

/// One item of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TodoEntry {
    /// Its 1-based number (what `mark --id` takes).
    pub id: usize,
    /// What to do.
    pub description: String,
    /// Where it stands.
    pub status: TodoStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being done.
    InProgress,
    /// Done.
    Completed,
    /// Given up on, with its `error`.
    Failed,
}

/// The count of a plan's items by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TodoSummary {
    /// Every item.
    pub total: usize,
    /// Done.
    pub completed: usize,
    /// Being done.
    pub in_progress: usize,
    /// Not started.
    pub pending: usize,
    /// Given up on.
    pub failed: usize,
}
