//! Semantic moves through the warm servers: `definition`, `references`, `hover` and `rename`
//! asked of the server of a file's language at a position, as the daemon's methods ask them
//! (see `methods/navigate.rs`, which falls back to the tag index when no server answers).
//!
//! A server is started (and given the file) when it does not run yet, and waited for until it has
//! analysed the file once, as the diagnostics of an edit are; a server already holding the file
//! is asked at once, so a move costs one request over its pipe.

use super::client::Client;
use super::instance::{Deadlines, Status};
use super::{language_id, uri, Lsp, NotServed};
use coderd_core::error::{Code, Error, Result};
use coderd_core::workspace::Workspace;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A position in a file: 1-based line, 1-based column in UTF-16 units (what servers count; the
/// character, for ASCII lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub line: u32,
    pub column: u32,
}

/// A place a server answered (1-based, the end exclusive).
#[derive(Serialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// One server's answer: its name, the result (never null), and the server, for the requests
/// that follow from it (a call hierarchy's calls).
pub struct Answer {
    pub server: String,
    pub result: Value,
    pub(crate) client: Arc<Client>,
}

/// Why no server answered: an answer says so rather than returning an empty list as if the
/// symbol had none (the empty `definition` an agent cannot tell from "there is none").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unanswered {
    /// The file's language has no server defined.
    pub no_server: bool,
    /// Servers that do not run here (not installed, or the file is outside their project), each
    /// with its reason.
    pub not_running: Vec<String>,
    /// Servers that run but do not declare the request's capability.
    pub lacking: Vec<String>,
    /// Servers that answered nothing; `true` when the server still reported work in progress
    /// (indexing) when coderd stopped waiting.
    pub empty: Vec<(String, bool)>,
    /// Servers whose request failed (timed out, errored), with the error.
    pub failed: Vec<String>,
}

impl Unanswered {
    /// One sentence an answer carries: every server asked and why it gave nothing.
    pub fn reason(&self, method: &str) -> String {
        let method = method.rsplit('/').next().unwrap_or(method);
        let mut parts: Vec<String> = Vec::new();
        if self.no_server {
            parts.push("no language server is defined for this file's language".into());
        }
        parts.extend(self.not_running.iter().cloned());
        parts.extend(
            (self.lacking.iter())
                .map(|s| format!("{s} does not offer {method} (its capabilities)")),
        );
        parts.extend(self.empty.iter().map(|(server, indexing)| match indexing {
            true => format!("{server} answered nothing while still indexing (try again)"),
            false => format!("{server} answered {method} with nothing at this position"),
        }));
        parts.extend(self.failed.iter().cloned());
        parts.join("; ")
    }
}

/// The server capability a request needs (LSP's `*Provider`), for the requests coderd asks.
fn capability(method: &str) -> Option<&'static str> {
    Some(match method {
        "textDocument/definition" => "definitionProvider",
        "textDocument/references" => "referencesProvider",
        "textDocument/hover" => "hoverProvider",
        "textDocument/rename" => "renameProvider",
        "textDocument/implementation" => "implementationProvider",
        "textDocument/typeDefinition" => "typeDefinitionProvider",
        "textDocument/prepareCallHierarchy" => "callHierarchyProvider",
        _ => return None,
    })
}

impl Lsp {
    /// Asks `method` at `at` in `path` of the first server of the file's language that answers
    /// it with something; `extra` is merged into the params (`context`, `newName`). `None` when
    /// no server runs for the language or none answered by the deadline.
    pub fn ask(
        &self,
        state: &Workspace,
        path: &Path,
        at: At,
        method: &str,
        extra: Value,
    ) -> Option<Answer> {
        self.ask_why(state, path, at, method, extra).ok()
    }

    /// `ask`, saying why nothing answered. A server that answers nothing while it reports work
    /// in progress (work-done progress, rust-analyzer's `serverStatus`) is still indexing: it is
    /// waited for, up to the cold deadline, and asked once more.
    pub fn ask_why(
        &self,
        state: &Workspace,
        path: &Path,
        at: At,
        method: &str,
        extra: Value,
    ) -> Result<Answer, Unanswered> {
        let mut why = Unanswered::default();
        let Some(runtime) = tokio::runtime::Handle::try_current().ok() else {
            why.failed.push("no runtime to ask a server from".into());
            return Err(why);
        };
        let Some((document, language)) = self.document_with_servers(state, path) else {
            why.no_server = true;
            return Err(why);
        };
        let config = state.limits().lsp.clone();
        let deadlines = Deadlines::of(&config);
        let timeout = Duration::from_millis(config.cold_deadline_ms);
        let mut params = json!({
            "textDocument": {"uri": uri::from_path(path)},
            "position": {"line": at.line.saturating_sub(1), "character": at.column.saturating_sub(1)},
        });
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        for instance in self.instances_for(state, path, language) {
            let instance = match instance {
                Ok(instance) => instance,
                Err(NotServed::Unavailable(u)) => {
                    why.not_running
                        .push(format!("{} is not installed ({})", u.server, u.install));
                    continue;
                }
                Err(NotServed::OutsideProject(u)) => {
                    why.not_running.push(u.reason);
                    continue;
                }
            };
            let known = instance.status() == Status::Ready && instance.has_open(path);
            {
                let _in_order = self.syncing.lock().unwrap_or_else(|e| e.into_inner());
                instance.ensure_started();
                instance.sync(&document, &language_id(language, path));
            }
            if !known {
                // Analysed once before it is asked: a server still loading answers nothing.
                runtime.block_on(instance.clone().settle(path.to_path_buf(), deadlines));
            }
            let Some(client) = instance.client() else {
                why.failed
                    .push(format!("{} did not start", instance.def.name));
                continue;
            };
            let server = instance.def.name.clone();
            if capability(method).is_some_and(|c| !client.offers(c)) {
                why.lacking.push(server);
                continue;
            }
            let mut indexing = false;
            for attempt in 0..2 {
                match runtime.block_on(client.request(method, params.clone(), timeout)) {
                    Ok(result) if !is_empty(&result) => {
                        return Ok(Answer {
                            server,
                            result,
                            client,
                        })
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::debug!(server, method, "{e:?}");
                        why.failed.push(format!("{server}: {e:?}"));
                        break;
                    }
                }
                indexing = client.activity().1;
                if attempt == 1 || !indexing {
                    break;
                }
                indexing = !runtime.block_on(idle(&client, timeout));
            }
            why.empty.push((server, indexing));
        }
        Err(why)
    }
}

/// Waits until the server reports no work in progress; `false` when it still does at `timeout`.
async fn idle(client: &Client, timeout: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    while client.activity().1 {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        // The client's record has no waiter of its own for progress ending: a short poll.
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    true
}

fn is_empty(result: &Value) -> bool {
    result.is_null() || result.as_array().is_some_and(Vec::is_empty)
}

/// The places of a `Location`, `Location[]` or `LocationLink[]` answer, sorted.
pub fn places(result: &Value) -> Vec<Place> {
    let list = match result {
        Value::Array(list) => list.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    };
    let mut found: Vec<Place> = list
        .iter()
        .filter_map(|l| {
            let uri = l.get("uri").or_else(|| l.get("targetUri"))?.as_str()?;
            let range = l.get("targetSelectionRange").or_else(|| l.get("range"))?;
            place(uri::to_path(uri)?, range)
        })
        .collect();
    found.sort();
    found.dedup();
    found
}

fn place(path: PathBuf, range: &Value) -> Option<Place> {
    let at = |p: &Value| {
        Some((
            p["line"].as_u64()? as u32 + 1,
            p["character"].as_u64()? as u32 + 1,
        ))
    };
    let (line, column) = at(&range["start"])?;
    let (end_line, end_column) = at(&range["end"])?;
    Some(Place {
        path,
        line,
        column,
        end_line,
        end_column,
    })
}

/// One text edit of a `WorkspaceEdit`: a range (LSP's, 0-based UTF-16) and its new text.
#[derive(Clone, Debug)]
pub struct TextEdit {
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub text: String,
}

/// The text edits of a `WorkspaceEdit` per file, in file order. Creating, renaming or deleting
/// files is refused (C214): a rename of a symbol changes text only.
pub fn workspace_edits(edit: &Value) -> Result<Vec<(PathBuf, Vec<TextEdit>)>> {
    let mut files: Vec<(PathBuf, Vec<TextEdit>)> = Vec::new();
    let mut add = |uri: &str, edits: &Value| -> Result<()> {
        let path = uri::to_path(uri)
            .ok_or_else(|| Error::io(format!("the server named a file that is not one: {uri}")))?;
        let list = edits.as_array().map(Vec::as_slice).unwrap_or(&[]);
        let parsed = list.iter().filter_map(text_edit);
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some((_, existing)) => existing.extend(parsed),
            None => files.push((path, parsed.collect())),
        }
        Ok(())
    };
    if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (uri, edits) in changes {
            add(uri, edits)?;
        }
    }
    for change in edit["documentChanges"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        let Some(uri) = change["textDocument"]["uri"].as_str() else {
            let kind = change["kind"].as_str().unwrap_or("unknown");
            return Err(Error::new(
                Code::Refused,
                format!("the server's rename also wants to {kind} a file"),
            )
            .with_recovery("rename the file with `move`, then the symbol"));
        };
        add(uri, &change["edits"])?;
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

fn text_edit(edit: &Value) -> Option<TextEdit> {
    let at = |p: &Value| Some((p["line"].as_u64()? as u32, p["character"].as_u64()? as u32));
    Some(TextEdit {
        start: at(&edit["range"]["start"])?,
        end: at(&edit["range"]["end"])?,
        text: edit["newText"].as_str()?.to_string(),
    })
}

/// The line's text at a 1-based line (without its newline), for answers.
pub fn line_text(text: &[u8], line: u32) -> String {
    let mut lines = text.split(|b| *b == b'\n');
    let raw = lines
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or_default();
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    String::from_utf8_lossy(raw).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_links_become_sorted_places_and_file_operations_are_refused() {
        let answer = json!([
            {"targetUri": "file:///ws/b.rs", "targetRange": {}, "targetSelectionRange": {"start": {"line": 4, "character": 3}, "end": {"line": 4, "character": 7}}},
            {"uri": "file:///ws/a.rs", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 2}}},
        ]);
        let found = places(&answer);
        assert_eq!(found[0].path, PathBuf::from("/ws/a.rs"));
        assert_eq!(
            (found[1].line, found[1].column, found[1].end_column),
            (5, 4, 8)
        );
        let edit = json!({"documentChanges": [
            {"textDocument": {"uri": "file:///ws/a.rs", "version": 1}, "edits": [{"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 4}}, "newText": "b"}]},
            {"kind": "rename", "oldUri": "file:///ws/a.rs", "newUri": "file:///ws/b.rs"},
        ]});
        assert_eq!(workspace_edits(&edit).unwrap_err().code, Code::Refused);
        let edit = json!({"changes": {"file:///ws/a.rs": [{"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 4}}, "newText": "b"}]}});
        let files = workspace_edits(&edit).unwrap();
        assert_eq!(files[0].1[0].text, "b");
        assert_eq!(line_text(b"a\r\nb\n", 1), "a");
    }
}
