//! The context of the request running on this thread: one thread-local, since a handler runs on
//! the thread that took its frame (`block_in_place`), so the context reaches every layer without a
//! parameter threaded through every method. It carries:
//!
//! - `progress`: where notifications for the request go (e.g. `exec/progress`), installed by the
//!   server around the handler call. Sending never blocks: a client that does not read misses
//!   notifications, not results.
//! - `checkpoint_warning`: left by the automatic checkpoint that should have preceded a mutating
//!   call (`checkpoint::auto`), taken once by `Method::call` for the answer.
//! - `not_kept`: the files a mutating call replaced or removed without keeping their bytes
//!   (`edit::keep`: over the size cap, or keeping failed, under `force`), taken once by
//!   `Method::call` for the answer's `not_kept`.
//! - `diagnostics`: whether the mutating call running here attaches diagnostics (`None`: no call
//!   is running). A call made by another (`tool`) inherits only this switch.
//!
//! Each field keeps the lifetime it had as a thread-local of its own: `with` swaps only `progress`.

use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;
use std::sync::Arc;

/// Where notifications for the current request go, and which request they belong to.
#[derive(Clone)]
pub struct Progress {
    send: Sink,
    request_id: Value,
}

/// Queues a line for the request's client without waiting; false if it was dropped.
pub type Sink = Arc<dyn Fn(crate::outgoing::Outgoing) -> bool + Send + Sync>;

/// The request context; see the module documentation.
struct Context {
    progress: Option<Progress>,
    checkpoint_warning: Option<String>,
    not_kept: Vec<Value>,
    diagnostics: Option<bool>,
}

thread_local! {
    static CURRENT: RefCell<Context> = const {
        RefCell::new(Context {
            progress: None,
            checkpoint_warning: None,
            not_kept: Vec::new(),
            diagnostics: None,
        })
    };
}

impl Progress {
    pub fn new(send: Sink, request_id: Value) -> Progress {
        Progress { send, request_id }
    }

    /// Sends `{"jsonrpc":"2.0","method":M,"params":{"request_id":ID,...params}}`; false if dropped.
    pub fn notify(&self, method: &str, params: impl Serialize) -> bool {
        let mut params = serde_json::to_value(params).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut params {
            map.insert("request_id".into(), self.request_id.clone());
        }
        let line = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        (self.send)(line.to_string().into_bytes().into())
    }
}

/// Runs `f` with `progress` as the current request's notification channel.
pub fn with<R>(progress: Option<Progress>, f: impl FnOnce() -> R) -> R {
    /// Restores the previous channel even when `f` panics, so a pooled thread never keeps a
    /// finished request's sender (which would hold its connection's writer open).
    struct Restore(Option<Progress>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| c.borrow_mut().progress = previous);
        }
    }
    let _restore =
        Restore(CURRENT.with(|c| std::mem::replace(&mut c.borrow_mut().progress, progress)));
    f()
}

/// The current request's channel, if the server installed one.
pub fn current() -> Option<Progress> {
    CURRENT.with(|c| c.borrow().progress.clone())
}

/// Leaves the warning for the call about to run on this thread.
pub fn set_checkpoint_warning(warning: String) {
    CURRENT.with(|c| c.borrow_mut().checkpoint_warning = Some(warning));
}

/// The warning left for the call running on this thread, taken once.
pub fn take_checkpoint_warning() -> Option<String> {
    CURRENT.with(|c| c.borrow_mut().checkpoint_warning.take())
}

/// Notes that the call running on this thread changes `path` without keeping its bytes.
pub fn note_not_kept(path: &std::path::Path, why: &str) {
    let entry = serde_json::json!({"path": path.to_string_lossy(), "reason": why});
    CURRENT.with(|c| c.borrow_mut().not_kept.push(entry));
}

/// The files noted by `note_not_kept` for the call running on this thread, taken once.
pub fn take_not_kept() -> Vec<Value> {
    CURRENT.with(|c| std::mem::take(&mut c.borrow_mut().not_kept))
}

/// The diagnostics switch of the mutating call running on this thread (`None`: none is running).
pub fn diagnostics() -> Option<bool> {
    CURRENT.with(|c| c.borrow().diagnostics)
}

/// Sets the diagnostics switch (restore the previous one when the call ends).
pub fn set_diagnostics(switch: Option<bool>) {
    CURRENT.with(|c| c.borrow_mut().diagnostics = switch);
}
