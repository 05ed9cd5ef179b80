//! `coderd lsp`: coderd as a language server on stdio, for editors. A thin face over the
//! workspace's daemon, found (or started) the way `coderd mcp` finds it: every request becomes a
//! call of a daemon method, so the editor and the agent share one documents store, one tag index
//! and one warm set of language servers.
//!
//! - `textDocument/documentSymbol` and `foldingRange` from `outline`; `workspace/symbol` from
//!   `symbols`; the custom requests `coderd/map` (the ranked map and its items with locations)
//!   and `coderd/stats` (the daemon's metrics), documented in docs/editors.md.
//! - Document sync: each buffer's text reaches the daemon (`buffer`) on open, change and save; an
//!   agent's edit to a file with unsaved changes is refused C212 there, and what an agent writes
//!   to a file open in a clean buffer is shown in it (`buffers::follow`).
//! - Diagnostics relay: on open and save, and when an agent's edit changed the file, the daemon's
//!   settled findings for the file (`diagnostics`) are published to the editor.
//! - `definition`, `references`, `hover`, `rename` (and `prepareRename`) from the daemon's methods
//!   of those names: its warm server, else the tag index. A rename is the server's edit, computed
//!   by the daemon as a dry run and applied by the editor to its buffers.

pub mod buffers;
pub mod convert;
pub mod daemon;

use buffers::Buffers;
use daemon::{CallError, Daemon};
use lsp_types::*;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{self, ErrorCode};
use tower_lsp_server::{Client, LanguageServer, LspService, Server, UriExt};
use wire::client::Options;

/// Workspace symbols answered at most.
const SYMBOLS_LIMIT: usize = 100;
/// How often a relay asks again while a server's findings are pending, and how long it pauses.
const RELAY_TRIES: usize = 10;
const RELAY_PAUSE: std::time::Duration = std::time::Duration::from_secs(1);

/// Serves LSP on stdin/stdout until the editor exits.
pub async fn serve_stdio(options: Options) -> Result<(), String> {
    let daemon = tokio::task::spawn_blocking(move || Daemon::connect(&options))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.0)?;
    let daemon = Arc::new(daemon);
    let root = {
        let daemon = daemon.clone();
        tokio::task::spawn_blocking(move || daemon.call("info", json!({})))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.message)?["primary_root"]
            .as_str()
            .map(PathBuf::from)
            .unwrap_or_default()
    };
    let buffers = Buffers::new_session();
    let (service, socket) = LspService::build(|client| Editor {
        client,
        daemon: daemon.clone(),
        root,
        buffers: buffers.clone(),
        in_order: tokio::sync::Mutex::new(()),
    })
    .custom_method("coderd/map", Editor::map)
    .custom_method("coderd/stats", Editor::stats)
    .finish();
    Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
        .serve(service)
        .await;
    // The editor is gone (or never said `shutdown`): its buffers claim nothing any more.
    buffers.close_all(&daemon).await;
    Ok(())
}

/// The language server: the editor's client handle, the daemon, and the open buffers' text.
pub struct Editor {
    client: Client,
    daemon: Arc<Daemon>,
    /// The daemon's primary root: `symbols` and `map` name files relative to it.
    root: PathBuf,
    buffers: Buffers,
    /// Held by each buffer notification's handler from its start: the server runs handlers
    /// concurrently, and the daemon must see a document's open, changes, saves and close in order.
    in_order: tokio::sync::Mutex<()>,
}

/// `coderd/map`'s params.
#[derive(Deserialize, Debug, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct MapRequest {
    /// The folder to map, a path or a `file:` URI (default: the workspace root).
    pub folder: Option<String>,
    /// Characters the map may use (default 8000).
    pub budget: Option<usize>,
    /// Files being worked on (paths or URIs): their neighbours rank higher.
    pub focus: Vec<String>,
    /// Names mentioned: their definitions rank higher.
    pub mentions: Vec<String>,
}

impl Editor {
    /// One daemon call off the async workers; a daemon error becomes an LSP request failure
    /// carrying its C2xx code in `data`.
    async fn call(&self, method: &'static str, params: Value) -> jsonrpc::Result<Value> {
        let daemon = self.daemon.clone();
        tokio::task::spawn_blocking(move || daemon.call(method, params))
            .await
            .map_err(|e| internal(e.to_string()))?
            .map_err(failed)
    }

    /// A `file:` URI's path, or the request fails naming it.
    fn path_of(uri: &Uri) -> jsonrpc::Result<PathBuf> {
        match uri.scheme().map(|s| s.as_str()) {
            Some("file") => uri.to_file_path().map(|p| p.into_owned()),
            _ => None,
        }
        .ok_or_else(|| jsonrpc::Error::invalid_params(format!("not a file URI: {}", uri.as_str())))
    }

    /// A path the daemon named (absolute, or relative to its primary root) as a URI.
    fn uri_of(&self, path: &str) -> Option<Uri> {
        Uri::from_file_path(self.root.join(path))
    }

    /// A param that is a path or a `file:` URI, as a path.
    fn path_param(text: &str) -> String {
        match text.parse::<Uri>() {
            Ok(uri) if uri.scheme().map(|s| s.as_str()) == Some("file") => {
                Self::path_of(&uri).map_or(text.into(), |p| p.display().to_string())
            }
            _ => text.to_string(),
        }
    }

    /// Tells the daemon the buffer's state; logged, not fatal, when it fails (a buffer of a file
    /// outside the jail is simply not the daemon's).
    async fn sync_buffer(&self, path: &Path, version: i32, text: Option<String>, event: Sync) {
        let closed = event == Sync::Closed;
        if closed {
            self.buffers.remove(path);
        }
        let opened = event == Sync::Opened;
        let params = self
            .buffers
            .params(path, version, text.clone(), opened, closed);
        match self.call("buffer", params).await {
            Ok(answer) if !closed => self.buffers.record(path, text, Some(version), &answer),
            Ok(_) => {}
            Err(e) => tracing::debug!(path = %path.display(), "buffer: {}", e.message),
        }
    }

    /// Publishes the daemon's settled findings for one file (see `relay`).
    async fn relay_diagnostics(&self, uri: Uri, path: PathBuf) {
        relay(&self.client, &self.daemon, uri, path).await
    }

    /// The buffer's text as the editor has it, else the file's text through the daemon.
    async fn text_of(&self, path: &Path) -> String {
        if let Some(open) = self.buffers.get(path) {
            return open.text;
        }
        let read = self.call("read", json!({"file": path})).await;
        read.ok()
            .and_then(|r| r["content"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    async fn outline(&self, uri: &Uri) -> jsonrpc::Result<(PathBuf, Vec<convert::Item>)> {
        let path = Self::path_of(uri)?;
        let answer = self.call("outline", json!({"file": path})).await?;
        let items = serde_json::from_value(answer["items"].clone())
            .map_err(|e| internal(format!("an outline item did not read: {e}")))?;
        Ok((path, items))
    }

    /// The `locations` of a `definition` or `references` answer.
    fn locations(&self, answer: &Value) -> Vec<Location> {
        let list = answer["locations"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        list.iter()
            .filter_map(|l| {
                let uri = self.uri_of(l["path"].as_str()?)?;
                let at = |line: &str, column: &str| {
                    let line = l[line].as_u64()?.saturating_sub(1) as u32;
                    Some(Position::new(
                        line,
                        l[column].as_u64()?.saturating_sub(1) as u32,
                    ))
                };
                let range = Range::new(at("line", "column")?, at("end_line", "end_column")?);
                Some(Location::new(uri, range))
            })
            .collect()
    }

    /// `coderd/map`: the daemon's map of a folder, and the items it shows with their locations.
    pub async fn map(&self, params: MapRequest) -> jsonrpc::Result<Value> {
        let mut args = json!({
            "focus": params.focus.iter().map(|f| Self::path_param(f)).collect::<Vec<_>>(),
            "mentions": params.mentions,
            "items": true,
        });
        if let Some(folder) = &params.folder {
            args["dir"] = json!(Self::path_param(folder));
        }
        if let Some(budget) = params.budget {
            args["budget"] = json!(budget);
        }
        let mut answer = self.call("map", args).await?;
        let items: Vec<convert::Item> =
            serde_json::from_value(answer["items"].take()).unwrap_or_default();
        let located: Vec<Value> = items
            .iter()
            .filter_map(|item| {
                let uri = self.uri_of(item.path.as_deref()?)?;
                let (first, last) = (item.line - 1, item.end_line - 1);
                let range = Range::new(Position::new(first, 0), Position::new(last + 1, 0));
                Some(json!({
                    "name": item.name,
                    "kind": convert::symbol_kind(&item.kind),
                    "location": Location::new(uri, range),
                }))
            })
            .collect();
        answer["items"] = Value::Array(located);
        // The files named without their items, as URIs an editor can open.
        let named: Vec<String> = serde_json::from_value(answer["named"].take()).unwrap_or_default();
        let uris = named.iter().filter_map(|path| self.uri_of(path));
        answer["named"] = uris.map(|uri| json!(uri)).collect();
        Ok(answer)
    }

    /// `coderd/stats`: the daemon's `stats`, as `coder stats --json` prints it.
    pub async fn stats(&self, params: Value) -> jsonrpc::Result<Value> {
        // No params at all, as LSP clients send them: nothing, `null`, or `[]` (Neovim's
        // encoding of an empty table).
        let params = match params {
            Value::Null => json!({}),
            Value::Array(items) if items.is_empty() => json!({}),
            other => other,
        };
        self.call("stats", params).await
    }
}

/// What happened to a buffer, as the daemon is told.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sync {
    Opened,
    Changed,
    Closed,
}

/// A text position as the daemon's move params: 1-based line and column.
fn position(at: &TextDocumentPositionParams) -> jsonrpc::Result<Value> {
    let path = Editor::path_of(&at.text_document.uri)?;
    Ok(json!({
        "file": path,
        "line": at.position.line + 1,
        "column": at.position.character + 1,
    }))
}

fn internal(message: String) -> jsonrpc::Error {
    jsonrpc::Error {
        code: ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
}

/// A daemon error as LSP's RequestFailed (-32803), its C2xx code in `data`.
fn failed(e: CallError) -> jsonrpc::Error {
    jsonrpc::Error {
        code: ErrorCode::ServerError(-32803),
        message: e.message.into(),
        data: e.code.map(|code| json!({"code": code})),
    }
}

impl LanguageServer for Editor {
    async fn initialize(&self, _: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        let sync = TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                include_text: Some(true),
            })),
            ..TextDocumentSyncOptions::default()
        };
        let capabilities = ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Options(sync)),
            document_symbol_provider: Some(OneOf::Left(true)),
            workspace_symbol_provider: Some(OneOf::Left(true)),
            folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            references_provider: Some(OneOf::Left(true)),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            rename_provider: Some(OneOf::Right(RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })),
            experimental: Some(json!({"coderd": {"map": true, "stats": true}})),
            ..ServerCapabilities::default()
        };
        Ok(InitializeResult {
            capabilities,
            server_info: Some(ServerInfo {
                name: "coderd".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let (client, daemon) = (self.client.clone(), self.daemon.clone());
        tokio::spawn(buffers::follow(client, daemon, self.buffers.clone()));
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        self.buffers.close_all(&self.daemon).await;
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let in_order = self.in_order.lock().await;
        let document = params.text_document;
        let Ok(path) = Self::path_of(&document.uri) else {
            return;
        };
        let (version, text) = (document.version, Some(document.text));
        self.sync_buffer(&path, version, text, Sync::Opened).await;
        drop(in_order);
        self.relay_diagnostics(document.uri, path).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let _in_order = self.in_order.lock().await;
        let Ok(path) = Self::path_of(&params.text_document.uri) else {
            return;
        };
        // Full sync: the last change is the whole text.
        let text = params.content_changes.into_iter().last().map(|c| c.text);
        let version = params.text_document.version;
        self.sync_buffer(&path, version, text, Sync::Changed).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let in_order = self.in_order.lock().await;
        let uri = params.text_document.uri;
        let Ok(path) = Self::path_of(&uri) else {
            return;
        };
        let open = self.buffers.get(&path).unwrap_or_default();
        let text = params.text.or(Some(open.text));
        // A save carries no version: the buffer's last one.
        self.sync_buffer(&path, open.version, text, Sync::Changed)
            .await;
        drop(in_order);
        self.relay_diagnostics(uri, path).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let in_order = self.in_order.lock().await;
        let uri = params.text_document.uri;
        let Ok(path) = Self::path_of(&uri) else {
            return;
        };
        // A close carries no version: the buffer's last one.
        let version = self.buffers.get(&path).map_or(0, |open| open.version);
        self.sync_buffer(&path, version, None, Sync::Closed).await;
        drop(in_order);
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> jsonrpc::Result<Option<DocumentSymbolResponse>> {
        let (path, items) = self.outline(&params.text_document.uri).await?;
        let text = self.text_of(&path).await;
        let symbols = convert::document_symbols(&items, &text);
        Ok(Some(DocumentSymbolResponse::Nested(symbols)))
    }

    async fn folding_range(
        &self,
        params: FoldingRangeParams,
    ) -> jsonrpc::Result<Option<Vec<FoldingRange>>> {
        let (_, items) = self.outline(&params.text_document.uri).await?;
        Ok(Some(convert::folding_ranges(&items)))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> jsonrpc::Result<Option<OneOf<Vec<SymbolInformation>, Vec<WorkspaceSymbol>>>> {
        if params.query.is_empty() {
            return Ok(Some(OneOf::Left(Vec::new())));
        }
        let answer = self
            .call(
                "symbols",
                json!({"query": params.query, "limit": SYMBOLS_LIMIT}),
            )
            .await?;
        let items: Vec<convert::Item> =
            serde_json::from_value(answer["results"].clone()).unwrap_or_default();
        let found = items
            .iter()
            .filter_map(|item| {
                let uri = self.uri_of(item.path.as_deref()?)?;
                Some(convert::symbol_information(item, uri))
            })
            .collect();
        Ok(Some(OneOf::Left(found)))
    }
    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> jsonrpc::Result<Option<GotoDefinitionResponse>> {
        let at = &params.text_document_position_params;
        let answer = self.call("definition", position(at)?).await?;
        Ok(Some(GotoDefinitionResponse::Array(self.locations(&answer))))
    }

    async fn references(&self, params: ReferenceParams) -> jsonrpc::Result<Option<Vec<Location>>> {
        let mut args = position(&params.text_document_position)?;
        args["include_declaration"] = json!(params.context.include_declaration);
        let answer = self.call("references", args).await?;
        Ok(Some(self.locations(&answer)))
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        let answer = self
            .call("hover", position(&params.text_document_position_params)?)
            .await?;
        let text = answer["contents"].as_str().unwrap_or_default();
        Ok((!text.is_empty()).then(|| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: text.to_string(),
            }),
            range: None,
        }))
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> jsonrpc::Result<Option<PrepareRenameResponse>> {
        // Renamable when a name is there: the server itself is asked on `rename`.
        let path = Self::path_of(&params.text_document.uri)?;
        let text = self.text_of(&path).await;
        let line = text
            .lines()
            .nth(params.position.line as usize)
            .unwrap_or("");
        let column = params.position.character as usize + 1;
        Ok(coderd_syntax::map::lookup::word_at(line, column).map(|_| {
            PrepareRenameResponse::DefaultBehavior {
                default_behavior: true,
            }
        }))
    }

    /// The daemon's server computes the edit (a dry run; refused while a file it touches has
    /// unsaved changes); the editor applies it to its buffers, each edit for the version the face
    /// knows of an open buffer, so the editor refuses it if the person typed meanwhile.
    async fn rename(&self, params: RenameParams) -> jsonrpc::Result<Option<WorkspaceEdit>> {
        let mut args = position(&params.text_document_position)?;
        args["new_name"] = json!(params.new_name);
        args["dry_run"] = json!(true);
        let answer = self.call("rename", args).await?;
        let files = answer["changes"].as_object().cloned().unwrap_or_default();
        let mut document_edits = Vec::new();
        for (path, edits) in files {
            let Some(uri) = Uri::from_file_path(&path) else {
                continue;
            };
            let version = self.buffers.get(Path::new(&path)).map(|open| open.version);
            let edits: Vec<TextEdit> = serde_json::from_value(edits).unwrap_or_default();
            document_edits.push(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            });
        }
        Ok(Some(WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(document_edits)),
            ..WorkspaceEdit::default()
        }))
    }
}

/// Publishes the daemon's settled findings for one file (nothing when it has no servers): on
/// open and save, and when another writer (an agent) changed the file (`buffers::follow`). A
/// server still starting (or past its deadline) is listed as pending: asked again a few times,
/// so a cold start's findings still reach the editor.
async fn relay(client: &Client, daemon: &Arc<Daemon>, uri: Uri, path: PathBuf) {
    for _ in 0..RELAY_TRIES {
        let params = json!({"files": [path]});
        let Some(report) = buffers::call(daemon, "diagnostics", params).await else {
            return;
        };
        let files = report["files"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let Some(file) = files
            .iter()
            .find(|f| f["path"].as_str().map(Path::new) == Some(&path))
        else {
            return;
        };
        let found = convert::diagnostics(file);
        let pending = file["pending"].as_array().is_some_and(|p| !p.is_empty());
        if !found.is_empty() || !pending {
            return client.publish_diagnostics(uri, found, None).await;
        }
        tokio::time::sleep(RELAY_PAUSE).await;
    }
}
