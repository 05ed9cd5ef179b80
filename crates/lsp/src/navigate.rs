//! Semantic moves through the warm servers: `definition`, `references`, `hover` and `rename`
//! asked of the server of a file's language at a position, as the daemon's methods ask them
//! (see `methods/navigate.rs`, which falls back to the tag index when no server answers).
//!
//! A server is started (and given the file) when it does not run yet, and waited for until it has
//! analysed the file once, as the diagnostics of an edit are; a server already holding the file
//! is asked at once, so a move costs one request over its pipe.

use super::instance::{Deadlines, Status};
use super::{language_id, uri, Lsp};
use coderd_core::error::{Code, Error, Result};
use coderd_core::workspace::Workspace;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
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

/// One server's answer: its name and the result (never null).
pub struct Answer {
    pub server: String,
    pub result: Value,
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
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (document, language) = self.document_with_servers(state, path)?;
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
        for instance in self
            .instances_for(state, path, language)
            .into_iter()
            .flatten()
        {
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
                continue;
            };
            match runtime.block_on(client.request(method, params.clone(), timeout)) {
                Ok(result) if !is_empty(&result) => {
                    return Some(Answer {
                        server: instance.def.name.clone(),
                        result,
                    })
                }
                Ok(_) => {}
                Err(e) => tracing::debug!(server = instance.def.name, method, "{e:?}"),
            }
        }
        None
    }
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
