//! JSON-RPC over a language server's stdio: `Content-Length` framing, a writer task fed by an
//! unbounded queue (so synchronous code can send without waiting), a reader task that resolves
//! replies through the request-id → reply-channel map and hands server requests and notifications
//! to the client. When the stream closes every pending request fails at once; none waits forever.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// Why a request to a server got no result.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportError {
    /// The server's output closed (it exited or crashed) before it answered.
    Closed,
    TimedOut,
    /// The server answered with a JSON-RPC error.
    Rpc {
        code: i64,
        message: String,
    },
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Closed => write!(f, "the server closed its output"),
            TransportError::TimedOut => write!(f, "the server did not answer in time"),
            TransportError::Rpc { code, message } => write!(f, "server error {code}: {message}"),
        }
    }
}

/// What the server sends that is not a reply.
#[derive(Debug)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

pub type Reply = Result<Value, TransportError>;

#[derive(Default)]
struct Pending {
    waiting: HashMap<i64, oneshot::Sender<Reply>>,
    closed: bool,
}

pub struct Transport {
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Mutex<Pending>>,
    next_id: AtomicI64,
}

#[derive(Deserialize)]
struct Message {
    id: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
    #[serde(default)]
    result: Value,
    error: Option<RpcError>,
}

#[derive(Deserialize, Serialize)]
struct RpcError {
    code: i64,
    message: String,
}

impl Transport {
    /// Starts the reader and writer tasks over a server's stdout and stdin. Server requests and
    /// notifications go to `incoming`, in the order they arrived; it closes when the output does.
    pub fn start<R, W>(output: R, input: W, incoming: mpsc::UnboundedSender<Incoming>) -> Transport
    where
        R: AsyncBufRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, queue) = mpsc::unbounded_channel();
        let pending = Arc::new(Mutex::new(Pending::default()));
        tokio::spawn(write_frames(input, queue));
        tokio::spawn(read_messages(output, pending.clone(), incoming));
        Transport {
            out,
            pending,
            next_id: AtomicI64::new(1),
        }
    }

    pub fn notify(&self, method: &str, params: impl Serialize) {
        self.send(&serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Answers a server's request.
    pub fn respond(&self, id: Value, result: std::result::Result<Value, (i64, String)>) {
        let message = match result {
            Ok(result) => serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => serde_json::json!({
                "jsonrpc": "2.0", "id": id, "error": RpcError { code, message }
            }),
        };
        self.send(&message);
    }

    /// Sends a request and waits for its reply, at most `timeout`. A request given up on (timed
    /// out, or its future dropped) is cancelled with `$/cancelRequest`.
    pub async fn request(&self, method: &str, params: impl Serialize, timeout: Duration) -> Reply {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if pending.closed {
                return Err(TransportError::Closed);
            }
            pending.waiting.insert(id, tx);
        }
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        let guard = CancelOnDrop {
            transport: self,
            id,
            armed: true,
        };
        let reply = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(TransportError::Closed),
            Err(_) => Err(TransportError::TimedOut),
        };
        let mut guard = guard;
        guard.armed = reply == Err(TransportError::TimedOut);
        reply
    }

    /// Whether the server's output has closed.
    #[cfg(test)]
    pub fn is_closed(&self) -> bool {
        lock(&self.pending).closed
    }

    fn send(&self, message: &Value) {
        let body = message.to_string();
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body.as_bytes());
        // A closed queue means the writer stopped (the server's stdin closed): the reader's EOF
        // reports that, and pending requests fail there.
        let _ = self.out.send(frame);
    }
}

struct CancelOnDrop<'a> {
    transport: &'a Transport,
    id: i64,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let removed = lock(&self.transport.pending).waiting.remove(&self.id);
        if self.armed || removed.is_some() {
            self.transport
                .notify("$/cancelRequest", serde_json::json!({"id": self.id}));
        }
    }
}

fn lock(pending: &Mutex<Pending>) -> std::sync::MutexGuard<'_, Pending> {
    pending.lock().unwrap_or_else(|e| e.into_inner())
}

async fn write_frames<W: AsyncWrite + Unpin>(
    mut input: W,
    mut queue: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(frame) = queue.recv().await {
        if input.write_all(&frame).await.is_err() || input.flush().await.is_err() {
            break;
        }
    }
}

async fn read_messages<R: AsyncBufRead + Unpin>(
    mut output: R,
    pending: Arc<Mutex<Pending>>,
    incoming: mpsc::UnboundedSender<Incoming>,
) {
    while let Ok(Some(body)) = read_frame(&mut output).await {
        let Ok(message) = serde_json::from_slice::<Message>(&body) else {
            tracing::debug!("language server sent a frame that is not JSON-RPC; skipped");
            continue;
        };
        route(message, &pending, &incoming);
    }
    let mut pending = lock(&pending);
    pending.closed = true;
    for (_, waiter) in pending.waiting.drain() {
        let _ = waiter.send(Err(TransportError::Closed));
    }
}

fn route(message: Message, pending: &Mutex<Pending>, incoming: &mpsc::UnboundedSender<Incoming>) {
    match (message.method, message.id) {
        (Some(method), Some(id)) => {
            let _ = incoming.send(Incoming::Request {
                id,
                method,
                params: message.params,
            });
        }
        (Some(method), None) => {
            let _ = incoming.send(Incoming::Notification {
                method,
                params: message.params,
            });
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else { return };
            let Some(waiter) = lock(pending).waiting.remove(&id) else {
                return; // A reply to a request given up on.
            };
            let reply = match message.error {
                Some(e) => Err(TransportError::Rpc {
                    code: e.code,
                    message: e.message,
                }),
                None => Ok(message.result),
            };
            let _ = waiter.send(reply);
        }
        (None, None) => {}
    }
}

/// The body of the next frame; `None` at the end of the stream. Header lines are `Name: value`;
/// anything else before the blank line (a server's stray log line on stdout) is skipped.
async fn read_frame<R: AsyncBufRead + Unpin>(output: &mut R) -> std::io::Result<Option<Vec<u8>>> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    loop {
        line.clear();
        if output.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let header = line.trim_end();
        if header.is_empty() {
            match length {
                Some(n) => break read_body(output, n).await.map(Some),
                None => continue, // A blank line before any header: junk.
            }
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
}

async fn read_body<R: AsyncBufRead + Unpin>(output: &mut R, n: usize) -> std::io::Result<Vec<u8>> {
    let mut body = vec![0; n];
    output.read_exact(&mut body).await?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    fn framed(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[tokio::test]
    async fn junk_lines_before_a_header_are_skipped() {
        let stream = format!(
            "starting server...\r\n{}\nnot a header\r\n{}",
            framed(r#"{"jsonrpc":"2.0","method":"a","params":1}"#),
            framed(r#"{"jsonrpc":"2.0","method":"b"}"#)
        );
        let mut reader = BufReader::new(stream.as_bytes());
        let first = read_frame(&mut reader).await.unwrap().unwrap();
        assert_eq!(first, br#"{"jsonrpc":"2.0","method":"a","params":1}"#);
        let second = read_frame(&mut reader).await.unwrap().unwrap();
        assert_eq!(second, br#"{"jsonrpc":"2.0","method":"b"}"#);
        assert!(read_frame(&mut reader).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_stream_that_closes_mid_reply_fails_the_pending_request() {
        let (server_out, client_in) = tokio::io::duplex(4096);
        let (client_out, _server_in) = tokio::io::duplex(4096);
        let (incoming, _rx) = mpsc::unbounded_channel();
        let transport = Transport::start(BufReader::new(client_in), client_out, incoming);
        let mut server_out = server_out;
        tokio::spawn(async move {
            // Half a frame, then the server dies.
            server_out
                .write_all(b"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1")
                .await
                .unwrap();
            drop(server_out);
        });
        let reply = transport
            .request("x", Value::Null, Duration::from_secs(5))
            .await;
        assert_eq!(reply, Err(TransportError::Closed));
        assert!(transport.is_closed());
        let after = transport
            .request("y", Value::Null, Duration::from_secs(5))
            .await;
        assert_eq!(after, Err(TransportError::Closed));
    }
}
