//! The editor face's way to its daemon: found (or started) once the way `coder` finds it
//! (`wire::client::connect`), then one socket connection per call in flight, kept for the next
//! call. An editor asks several things at once (symbols while a diagnostics relay waits for a
//! server to settle), and the daemon answers a connection's requests by id, not in order, while
//! `wire::client::send` reads one answer per request: so a connection serves one call at a time.

use serde_json::Value;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Mutex;
use wire::client::{self, ClientError, Options};

/// A daemon's answer to one call that is an error: its C2xx code, message and data.
#[derive(Debug, Clone)]
pub struct CallError {
    pub code: Option<String>,
    pub message: String,
}

pub struct Daemon {
    socket: PathBuf,
    idle: Mutex<Vec<UnixStream>>,
}

impl Daemon {
    /// Finds (or starts) the daemon: fails loudly at start rather than on the first request.
    pub fn connect(options: &Options) -> Result<Daemon, ClientError> {
        let stream = client::connect(options)?;
        let socket = stream
            .peer_addr()
            .ok()
            .and_then(|a| a.as_pathname().map(PathBuf::from))
            .ok_or_else(|| ClientError("the daemon's socket has no path".into()))?;
        Ok(Daemon {
            socket,
            idle: Mutex::new(vec![stream]),
        })
    }

    /// One call (blocking): the result, or the daemon's error. A broken connection is replaced once.
    pub fn call(&self, method: &str, params: Value) -> Result<Value, CallError> {
        for attempt in 0..2 {
            let stream = self.take().map_err(|e| transport(e.0))?;
            match client::send(&stream, method, params.clone()) {
                Ok(reply) => {
                    self.give_back(stream);
                    return answer(&reply);
                }
                Err(e) if attempt == 1 => return Err(transport(e.0)),
                Err(_) => continue,
            }
        }
        unreachable!("the loop returns on its second attempt")
    }

    fn take(&self) -> Result<UnixStream, ClientError> {
        if let Some(stream) = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(stream);
        }
        UnixStream::connect(&self.socket).map_err(|e| {
            ClientError(format!(
                "cannot reach the daemon at {}: {e}",
                self.socket.display()
            ))
        })
    }

    fn give_back(&self, stream: UnixStream) {
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(stream);
    }
}

fn transport(message: String) -> CallError {
    CallError {
        code: None,
        message,
    }
}

/// The result of a JSON-RPC answer, or its error with the C2xx code.
fn answer(reply: &[u8]) -> Result<Value, CallError> {
    let mut reply: Value = serde_json::from_slice(reply)
        .map_err(|e| transport(format!("the daemon's answer is not JSON: {e}")))?;
    if let Some(error) = reply.get("error") {
        let code = error["data"]["code"].as_str().map(str::to_owned);
        let mut message = error["message"].as_str().unwrap_or("error").to_string();
        // The daemon's message carries its hint already (`Error`'s display); add it only when not.
        if let Some(recovery) = error["data"]["recovery"].as_str() {
            if !message.contains(recovery) {
                message = format!("{message} (hint: {recovery})");
            }
        }
        return Err(CallError { code, message });
    }
    Ok(reply["result"].take())
}
