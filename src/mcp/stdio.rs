//! `coderd mcp`'s transport: one JSON-RPC message per line on stdin/stdout (MCP's stdio framing),
//! read the way rmcp's own transport reads it, with one difference: a line that is not JSON (a cut
//! line, a line nested past the parser's limit) is answered with JSON-RPC's parse error, -32700
//! with `id: null`, where rmcp drops it in silence and the client would wait for ever. A line that
//! is JSON but no MCP message is answered -32600 with its id; a notification never gets an answer,
//! as JSON-RPC says.

use coderd_core::error::Error;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// The longest line read (rmcp's own limit); a longer one is skipped to its newline and answered.
pub const MAX_LINE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// JSON-RPC lines over a reader and a writer (stdin and stdout for `coderd mcp`).
pub struct Lines<R, W> {
    reader: BufReader<R>,
    /// The line being read. It lives here, not in `receive`: rmcp polls `receive` in a `select!`
    /// and may drop it half-way, and the bytes read so far must wait for the next call.
    line: Vec<u8>,
    /// A line over `MAX_LINE_BYTES` is being skipped up to its newline.
    skipping: bool,
    writer: Arc<Mutex<W>>,
}

/// The transport `coderd mcp` serves on.
pub fn stdio() -> Lines<tokio::io::Stdin, tokio::io::Stdout> {
    Lines::new(tokio::io::stdin(), tokio::io::stdout())
}

enum Next {
    Line,
    TooLong,
    End,
}

/// What one line is.
enum Read {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Answer(Vec<u8>),
    Nothing,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(reader: R, writer: W) -> Self {
        Lines {
            reader: BufReader::new(reader),
            line: Vec::new(),
            skipping: false,
            writer: Arc::new(Mutex::new(writer)),
        }
    }

    /// Reads into `self.line` up to its newline (the last line may lack one), never holding more
    /// than `MAX_LINE_BYTES` of it.
    /// Writes an answer of the transport's own on a task of its own: rmcp may drop `receive` at
    /// any await, and a line cut half-way would corrupt the stream.
    fn answer(&self, line: Vec<u8>) {
        let writer = self.writer.clone();
        tokio::spawn(async move { write_line(&writer, &line).await });
    }

    async fn next_line(&mut self) -> io::Result<Next> {
        loop {
            if self.skipping {
                self.line.clear();
                let read = (&mut self.reader)
                    .take(1 << 16)
                    .read_until(b'\n', &mut self.line)
                    .await?;
                if read == 0 {
                    return Ok(Next::End);
                }
                if self.line.ends_with(b"\n") {
                    self.skipping = false;
                    self.line.clear();
                    return Ok(Next::TooLong);
                }
                continue;
            }
            let room = (MAX_LINE_BYTES + 1).saturating_sub(self.line.len()) as u64;
            let read = (&mut self.reader)
                .take(room)
                .read_until(b'\n', &mut self.line)
                .await?;
            if self.line.ends_with(b"\n") {
                return Ok(Next::Line);
            }
            if self.line.len() > MAX_LINE_BYTES {
                self.skipping = true;
                continue;
            }
            // The input ended: what is left is its last line, without a newline.
            return match read == 0 && self.line.is_empty() {
                true => Ok(Next::End),
                false => Ok(Next::Line),
            };
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, line: &[u8]) -> io::Result<()> {
    let mut writer = writer.lock().await;
    writer.write_all(line).await?;
    writer.flush().await
}

/// One line as a message, an answer to send back, or nothing (blank, or a notification).
fn read(line: &[u8]) -> Read {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Read::Nothing;
    }
    let e = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Read::Message(Box::new(message)),
        Err(e) => e,
    };
    use serde_json::error::Category;
    if matches!(e.classify(), Category::Syntax | Category::Eof) {
        return Read::Answer(error_line(
            &Value::Null,
            PARSE_ERROR,
            &crate::protocol::not_json(&e),
        ));
    }
    let value: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
    let id = match value.get("id") {
        None if value.get("method").is_some() => return Read::Nothing,
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    let error = Error::bad_input(format!("the line is not an MCP message: {e}"))
        .with_recovery("send one JSON-RPC 2.0 request of MCP per line");
    Read::Answer(error_line(&id, INVALID_REQUEST, &error))
}

fn error_line(id: &Value, code: i64, error: &Error) -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": error.to_string(), "data": error.data_json()},
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), io::Error>> + Send + 'static {
        let writer = self.writer.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            write_line(&writer, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.next_line().await {
                Ok(Next::Line) => {}
                Ok(Next::TooLong) => {
                    let error = Error::too_large(format!(
                        "the line is longer than {MAX_LINE_BYTES} bytes; it was skipped"
                    ))
                    .with_recovery("send smaller arguments");
                    self.answer(error_line(&Value::Null, INVALID_REQUEST, &error));
                    continue;
                }
                Ok(Next::End) | Err(_) => return None,
            }
            let outcome = read(&self.line);
            self.line.clear();
            match outcome {
                Read::Message(message) => return Some(*message),
                Read::Answer(line) => self.answer(line),
                Read::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.writer.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncBufReadExt;

    /// Feeds `input` to a transport and collects what it delivers and what it answers.
    async fn run(input: &[u8]) -> (Vec<RxJsonRpcMessage<RoleServer>>, Vec<Value>) {
        let (client, server_out) = tokio::io::duplex(1 << 20);
        let mut lines = Lines::new(input, server_out);
        let mut delivered = Vec::new();
        while let Some(message) = lines.receive().await {
            delivered.push(message);
        }
        drop(lines);
        let mut answers = Vec::new();
        let mut reader = BufReader::new(client).lines();
        while let Some(line) = reader.next_line().await.unwrap() {
            answers.push(serde_json::from_str(&line).unwrap());
        }
        (delivered, answers)
    }

    #[tokio::test]
    async fn a_cut_line_is_answered_as_a_parse_error_and_the_next_line_still_runs() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/li\n\
                      {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        let (delivered, answers) = run(input).await;
        assert_eq!(delivered.len(), 1);
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["error"]["code"], PARSE_ERROR);
        assert_eq!(answers[0]["id"], Value::Null);
        assert_eq!(answers[0]["error"]["data"]["code"], "C210");
    }

    #[tokio::test]
    async fn json_that_is_no_mcp_message_is_answered_with_its_id_unless_a_notification() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":5}\n\
                      {\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":5}\n\
                      \n";
        let (delivered, answers) = run(input).await;
        assert!(delivered.is_empty());
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["id"], 7);
        assert_eq!(answers[0]["error"]["code"], INVALID_REQUEST);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_and_answered() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
        let (delivered, answers) = run(&input).await;
        assert_eq!(
            delivered.len(),
            1,
            "the last line, without a newline, is read"
        );
        assert_eq!(answers[0]["error"]["data"]["code"], "C213");
    }
}
