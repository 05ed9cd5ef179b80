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

thread_local! {
    /// The events published on this thread since `recorded` started, when it is running.
    static RECORDING: std::cell::RefCell<Option<Vec<Event>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `call` and returns, with its result, the events it published: the files an edit method
/// changed, however it changed them. A method runs on one thread (`server::run_blocking`), so
/// the events of concurrent calls on other threads are not mixed in.
pub fn recorded<T>(call: impl FnOnce() -> T) -> (T, Vec<Event>) {
    let outer = RECORDING.with(|r| r.borrow_mut().replace(Vec::new()));
    let result = call();
    let events = RECORDING.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
    (result, events.unwrap_or_default())
}

/// Notes a published event for the `recorded` call running on this thread, if any.
pub(super) fn record(event: &Event) {
    RECORDING.with(|r| {
        if let Some(events) = r.borrow_mut().as_mut() {
            events.push(event.clone());
        }
    });
}
