//! Notifications a method sends to its client while it runs (e.g. `exec/progress`). The server
//! installs the request's sender around the handler call; the handler runs on that same thread
//! (`block_in_place`), so a thread-local carries it without threading a parameter through every
//! method. Sending never blocks: a client that does not read misses notifications, not results.

use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;
use tokio::sync::mpsc;

/// Where notifications for the current request go, and which request they belong to.
#[derive(Clone)]
pub struct Progress {
    tx: mpsc::Sender<crate::protocol::Outgoing>,
    request_id: Value,
}

thread_local! {
    static CURRENT: RefCell<Option<Progress>> = const { RefCell::new(None) };
}

impl Progress {
    pub fn new(tx: mpsc::Sender<crate::protocol::Outgoing>, request_id: Value) -> Progress {
        Progress { tx, request_id }
    }

    /// Sends `{"jsonrpc":"2.0","method":M,"params":{"request_id":ID,...params}}`; false if dropped.
    pub fn notify(&self, method: &str, params: impl Serialize) -> bool {
        let mut params = serde_json::to_value(params).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut params {
            map.insert("request_id".into(), self.request_id.clone());
        }
        let line = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.tx
            .try_send(line.to_string().into_bytes().into())
            .is_ok()
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
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(progress)));
    f()
}

/// The current request's channel, if the server installed one.
pub fn current() -> Option<Progress> {
    CURRENT.with(|c| c.borrow().clone())
}
