//! `coderd mcp`: coderd as an MCP server on stdio, for clients that spawn their servers (Claude
//! Code, Codex, Cursor, Zed, ...). It is a thin face over the workspace's daemon: it finds (or
//! starts) the daemon the way `coder` does (`wire::client::connect`), lists the method table as MCP tools
//! (`tools/list`: name, summary, the params' JSON Schema, and the annotations `keys::hints` gives:
//! read-only, destructive, idempotent, open world), and sends each `tools/call` to the daemon as the JSON-RPC request of that method, so
//! every call runs the same handler as a socket request. A result is sent once, as text content:
//! the result's compact JSON, with a `[DIAGNOSTICS]` block after edits that report diagnostics
//! (docs/mcp.md says why text and not `structuredContent`); a command that failed (`exec`/`test`:
//! a non-zero exit) is a tool error with its output; errors are tool errors carrying the C2xx
//! code and the recovery hint.

pub mod stdio;

use crate::methods::{Method, METHODS};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use wire::answers::Answer;
use wire::client::{self, ClientError, Options};

/// Methods not offered as tools: stopping the daemon is not an agent's decision, the `tool`
/// envelope is for text-protocol backends (an MCP client calls the methods directly), and an
/// editor's methods are the editor's (`EDITOR_ONLY`).
const NOT_TOOLS: &[&str] = &["shutdown", "tool"];

fn is_tool(name: &str) -> bool {
    !NOT_TOOLS.contains(&name) && !crate::methods::EDITOR_ONLY.contains(&name)
}

/// The MCP server: one connection to the daemon, reopened if it drops.
pub struct CoderMcp {
    options: Options,
    daemon: Arc<Mutex<Option<UnixStream>>>,
}

/// Serves MCP on stdin/stdout until the client closes it.
pub async fn serve_stdio(options: Options) -> Result<(), String> {
    let server = CoderMcp {
        options,
        daemon: Arc::new(Mutex::new(None)),
    };
    // Connect before answering `initialize`, so a workspace without a daemon gets one now and a
    // broken setup fails loudly at start instead of on the first call.
    let daemon = server.daemon.clone();
    let options = server.options.clone();
    tokio::task::spawn_blocking(move || connected(&options, &daemon).map(|_| ()))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.0)?;
    let running = server
        .serve(stdio::stdio())
        .await
        .map_err(|e| format!("MCP initialization failed: {e}"))?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

/// The daemon connection, made on first use (`wire::client::connect`: socket flag, registry, default
/// socket, or a daemon started for the workspace).
fn connected(
    options: &Options,
    daemon: &Mutex<Option<UnixStream>>,
) -> Result<UnixStream, ClientError> {
    let mut slot = daemon.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(stream) = slot.as_ref().and_then(|s| s.try_clone().ok()) {
        return Ok(stream);
    }
    let stream = client::connect(options)?;
    *slot = stream.try_clone().ok();
    Ok(stream)
}

/// Sends one call; a connection that broke is reopened once.
fn call_daemon(
    options: &Options,
    daemon: &Mutex<Option<UnixStream>>,
    method: &str,
    params: Value,
) -> Result<Value, ClientError> {
    for attempt in 0..2 {
        let stream = connected(options, daemon)?;
        match client::send(&stream, method, params.clone()) {
            Ok(reply) => {
                return serde_json::from_slice(&reply)
                    .map_err(|e| ClientError(format!("the daemon's answer is not JSON: {e}")))
            }
            Err(e) if attempt == 1 => return Err(e),
            Err(_) => *daemon.lock().unwrap_or_else(|e| e.into_inner()) = None,
        }
    }
    unreachable!("the loop returns on its second attempt")
}

/// One MCP tool per method of the table.
pub fn tools() -> Vec<Tool> {
    METHODS
        .iter()
        .filter(|m| is_tool(m.name))
        .map(tool_of)
        .collect()
}

fn tool_of(method: &Method) -> Tool {
    let mut schema = match (method.schema)().to_value() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    schema.insert("type".into(), Value::String("object".into()));
    let hints = crate::protocol::keys::hints(method);
    let annotations = ToolAnnotations::with_title(method.name)
        .read_only(hints.read_only)
        .destructive(hints.destructive)
        .idempotent(hints.idempotent)
        .open_world(hints.open_world);
    Tool::new(method.name, method.summary, Arc::new(schema)).with_annotations(annotations)
}

/// An MCP result from the daemon's JSON-RPC answer to `method`.
pub fn tool_result(method: &Method, reply: &Value) -> CallToolResult {
    if let Some(error) = reply.get("error") {
        let data = error.get("data").cloned().unwrap_or(Value::Null);
        let text = error["message"].as_str().unwrap_or("error").to_string();
        let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
        result.structured_content = Some(data);
        return result;
    }
    let value = reply.get("result").unwrap_or(&Value::Null);
    // One copy, compact: what every client shows the model (see docs/mcp.md).
    let mut text = value.to_string();
    if let Some(block) = diagnostics_block(value) {
        text.push_str("\n\n");
        text.push_str(&block);
    }
    let content = vec![ContentBlock::text(text)];
    match method.answer == Answer::Command && wire::answers::command::failed(value) {
        true => CallToolResult::error(content),
        false => CallToolResult::success(content),
    }
}

/// The `[DIAGNOSTICS]` block after an edit whose answer carries findings: the same block `coder`
/// prints (errors first, new ones marked, bounded), so an MCP client reads what a shell user reads.
/// Nothing for clean files. A `tool` envelope's answer holds the method's answer under `result`.
fn diagnostics_block(result: &Value) -> Option<String> {
    let report = result
        .get("diagnostics")
        .or_else(|| result.get("result")?.get("diagnostics"))?;
    let report: wire::diagnostics::Report = serde_json::from_value(report.clone()).ok()?;
    let block = wire::diagnostics::block(&report);
    (!block.is_empty()).then_some(block)
}

impl ServerHandler for CoderMcp {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("coderd", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "coderd: a path-jailed editing daemon for this workspace. Read with `read`, look \
                 with `search`/`tree`/`list-folder`, edit with `patch` (unique search/replace or a \
                 unified diff), `multipatch` (all or nothing), `write`, `update-file`. Errors carry \
                 a C2xx code and a recovery hint.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let Some(method) = crate::methods::find(&name).filter(|_| is_tool(&name)) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        };
        let params = Value::Object(request.arguments.unwrap_or_default());
        let options = self.options.clone();
        let daemon = self.daemon.clone();
        let reply =
            tokio::task::spawn_blocking(move || call_daemon(&options, &daemon, &name, params))
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
                .map_err(|e| ErrorData::internal_error(e.0, None))?;
        Ok(tool_result(method, &reply).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_come_from_the_method_table_with_hints() {
        let tools = tools();
        let read = tools.iter().find(|t| t.name == "read").unwrap();
        let annotations = read.annotations.as_ref().unwrap();
        assert_eq!(annotations.read_only_hint, Some(true));
        let patch = tools.iter().find(|t| t.name == "patch").unwrap();
        assert_eq!(
            patch.annotations.as_ref().unwrap().destructive_hint,
            Some(true)
        );
        for not_a_tool in ["shutdown", "tool", "buffer"] {
            assert!(!tools.iter().any(|t| t.name == not_a_tool), "{not_a_tool}");
        }
        assert_eq!(read.input_schema["type"], "object");
    }

    #[test]
    fn diagnostics_follow_the_result_and_errors_carry_their_code() {
        use coderd_lsp::report::{FileReport, Item, Report, Severity};
        let mut file = FileReport::new("/ws/a.rs".into(), true);
        file.items.push(Item {
            severity: Severity::Error,
            line: 3,
            column: 9,
            code: Some("E0308".into()),
            message: "mismatched types".into(),
            server: "rust-analyzer".into(),
            new: true,
            symbol: None,
        });
        let report = Report {
            files: vec![file],
            unavailable: vec![],
        };
        // An edit's answer, and the same answer inside a `tool` envelope's.
        let edit = json!({"path": "/ws/a.rs", "diagnostics": report});
        let patch = crate::methods::find("patch").unwrap();
        for answer in [edit.clone(), json!({"method": "patch", "result": edit})] {
            let result = tool_result(patch, &json!({"result": answer}));
            let ContentBlock::Text(text) = &result.content[0] else {
                panic!()
            };
            let block = &text.text[text.text.find("[DIAGNOSTICS]").expect("a block")..];
            let view = serde_json::from_value(json!(report)).unwrap();
            assert_eq!(block, wire::diagnostics::block(&view), "{}", text.text);
            assert!(block.contains("mismatched types"), "{block}");
        }
        // Clean files: no block.
        let clean = Report {
            files: vec![FileReport::new("/ws/a.rs".into(), true)],
            unavailable: vec![],
        };
        let result = tool_result(patch, &json!({"result": {"diagnostics": clean}}));
        let ContentBlock::Text(text) = &result.content[0] else {
            panic!()
        };
        assert!(!text.text.contains("[DIAGNOSTICS]"));
        let error = tool_result(
            patch,
            &json!({"error": {"message": "C211: gone", "data": {"code": "C211", "recovery": "look"}}}),
        );
        assert_eq!(error.is_error, Some(true));
        assert_eq!(error.structured_content.unwrap()["code"], "C211");
    }

    #[test]
    fn a_failed_command_is_a_tool_error_with_its_output_and_an_answer_is_sent_once() {
        let exec = crate::methods::find("exec").unwrap();
        let ran = |code: i32| {
            let answer =
                json!({"exit_code": code, "timed_out": false, "stdout": "out", "stderr": "boom"});
            tool_result(exec, &json!({ "result": answer }))
        };
        let failed = ran(3);
        assert_eq!(failed.is_error, Some(true));
        let ContentBlock::Text(text) = &failed.content[0] else {
            panic!()
        };
        assert!(text.text.contains("boom"), "{}", text.text);
        let passed = ran(0);
        assert_eq!(passed.is_error, Some(false));
        assert!(passed.structured_content.is_none(), "one copy: the text");
        // A decision (`dry_run`) is no failure; nor is a method that reads an `exit_code` field.
        let decided = tool_result(exec, &json!({"result": {"allowed": false}}));
        assert_eq!(decided.is_error, Some(false));
        let read = crate::methods::find("read").unwrap();
        let file = tool_result(read, &json!({"result": {"exit_code": 1}}));
        assert_eq!(file.is_error, Some(false));
    }
}
