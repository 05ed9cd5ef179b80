//! What the editor face (`coderd lsp`) tells the daemon: `buffer`, the state of a file a person
//! has open (see `documents::buffers`).

use super::{method, Method};
use coderd_core::documents::buffers::{Buffer, Report};
use coderd_core::error::Result;
use coderd_core::workspace::Workspace;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Instant;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferParams {
    /// The file the buffer shows.
    file: String,
    /// The editor session (an id its face chose at random): only it changes or closes its buffers.
    editor: String,
    /// The editor's version of the buffer.
    #[serde(default)]
    version: i64,
    /// The buffer's whole text (on open, change and save); compared with the file on disk.
    /// Without it, the call renews the buffer's claim and answers the file's disk version.
    #[serde(default)]
    text: Option<String>,
    /// The editor opened the buffer: it replaces whatever this session held of the file.
    #[serde(default)]
    opened: bool,
    /// The editor closed the buffer.
    #[serde(default)]
    closed: bool,
}

#[derive(Serialize)]
pub struct BufferResult {
    path: String,
    /// Absent once closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    buffer: Option<Buffer>,
    /// The file's version on disk now (absent once closed, or when it is gone): a face that sees
    /// it change under a clean buffer shows the new text in the editor.
    #[serde(skip_serializing_if = "Option::is_none")]
    disk_version: Option<String>,
}

pub fn methods() -> Vec<Method> {
    vec![method(
        "buffer",
        &[],
        "An editor's buffer of a file (open, changed, saved, closed): while it holds unsaved changes, edits to the file are refused C212.",
        false,
        |s, p| buffer(s, p),
    )
    .bare(&["file"])]
}

fn buffer(state: &Workspace, p: BufferParams) -> Result<BufferResult> {
    let resolved = state.jail.resolve("file", &p.file)?;
    let path = resolved.abs.clone();
    let buffers = &state.documents.buffers;
    if p.closed {
        buffers.close(&path, &p.editor, p.version);
        return Ok(BufferResult {
            path: path.display().to_string(),
            buffer: None,
            disk_version: None,
        });
    }
    let on_disk = state.load(&resolved).ok();
    let dirty = match &p.text {
        None => buffers.get(&path, &p.editor).is_some_and(|b| b.dirty),
        // A buffer of a file not (or no longer) on disk is unsaved work too.
        Some(text) => on_disk
            .as_ref()
            .is_none_or(|doc| doc.bytes() != text.as_bytes()),
    };
    let reported = Buffer {
        version: p.version,
        dirty,
    };
    let report = match p.opened {
        true => Report::Opened(reported),
        false => Report::Updated(reported),
    };
    let buffer = buffers.report(path.clone(), &p.editor, report, Instant::now());
    Ok(BufferResult {
        path: path.display().to_string(),
        buffer: Some(buffer),
        disk_version: on_disk.map(|doc| doc.version()),
    })
}
