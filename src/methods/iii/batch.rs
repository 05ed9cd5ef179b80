//! The batch verbs of the `coder::*` ids: each entry is one call of coderd's own method, so each
//! entry commits or fails alone, and its outcome fills its slot of `results[]` (iii's partial
//! success).

use super::{inner, EntryError, State};
use coderd_core::error::{Code, Error, Result};
use coderd_edit::paths;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

fn yes() -> bool {
    true
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateParams {
    /// The files to create; each entry succeeds or fails on its own.
    files: Vec<NewFile>,
    /// Go on when the bytes an entry replaces or removes cannot be kept for `checkpoint
    /// --restore` (over `checkpoint_max_file_bytes`; listed in the answer's `not_kept`).
    #[serde(default)]
    force: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewFile {
    /// Relative to the primary root, or absolute inside a root (`coder::info` lists them).
    path: String,
    content: String,
    /// Octal permission bits as a string ("0644"): checked, not applied (see docs/iii.md).
    mode: Option<String>,
    /// Replace an existing file (default false: C217).
    #[serde(default)]
    overwrite: bool,
    /// Create missing parent folders (default true).
    #[serde(default = "yes")]
    parents: bool,
}

/// One entry of a batch answer: `path` canonical when it resolved, the caller's otherwise.
#[derive(Serialize, JsonSchema)]
pub struct Outcome {
    path: String,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<EntryError>,
    #[serde(flatten)]
    detail: Value,
}

#[derive(Serialize, JsonSchema)]
pub struct Results {
    results: Vec<Outcome>,
}

/// The canonical path coderd answered for the first file of a one-entry call.
fn answered_path(answer: &Value, list: &str, wire: &str) -> String {
    answer[list][0]["path"].as_str().unwrap_or(wire).to_string()
}

fn outcome(wire: &str, done: Result<(String, Value)>, failed: Value) -> Outcome {
    match done {
        Ok((path, detail)) => Outcome {
            path,
            success: true,
            error: None,
            detail,
        },
        Err(e) => Outcome {
            path: wire.to_string(),
            success: false,
            error: Some(EntryError::of(wire, e)),
            detail: failed,
        },
    }
}

/// A batch: `one` runs each entry of the list `list` on its own and gives its outcome, told the
/// entry's name as its caller sent it (`files[2]`; each entry is a coderd call of one entry, whose
/// errors name it `files[0]`). An empty list is a top-level C210 naming it, with `example`.
fn each<T>(
    list: &str,
    entries: &[T],
    example: &str,
    one: impl Fn(String, &T) -> Outcome,
) -> Result<Results> {
    if entries.is_empty() {
        return Err(Error::bad_input(format!("`{list}` is empty")).with_recovery(example));
    }
    let results = (entries.iter().enumerate())
        .map(|(i, entry)| one(format!("{list}[{i}]"), entry))
        .collect();
    Ok(Results { results })
}

/// Checks iii's `mode`: up to four octal digits.
fn check_mode(mode: &Option<String>) -> Result<()> {
    let Some(mode) = mode else { return Ok(()) };
    let digits = mode.strip_prefix("0o").unwrap_or(mode);
    match !digits.is_empty() && digits.len() <= 4 && digits.chars().all(|c| c.is_digit(8)) {
        true => Ok(()),
        false => Err(
            Error::bad_input(format!("`mode`: {mode:?} is not octal permission bits"))
                .with_recovery("write it as a string of octal digits, e.g. \"0644\""),
        ),
    }
}

pub fn create_file(state: &Arc<State>, p: CreateParams) -> Result<Results> {
    let example = r##"{"files": [{"path": "notes.md", "content": "# notes\n"}]}"##;
    each("files", &p.files, example, |slot, f| {
        let done = check_mode(&f.mode).and_then(|()| {
            let answer = inner(
                state,
                "create-file",
                json!({"files": [{"path": f.path, "content": f.content,
                    "overwrite": f.overwrite, "parents": f.parents}], "force": p.force}),
                &[(&slot, "files[0]")],
            )?;
            let written = json!({"bytes_written": f.content.len()});
            Ok((answered_path(&answer, "files", &f.path), written))
        });
        outcome(&f.path, done, json!({"bytes_written": 0}))
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateParams {
    /// Each file with its ops; each file commits or fails on its own.
    files: Vec<FileOps>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FileOps {
    /// Relative to the primary root, or absolute inside a root.
    path: String,
    /// Line ops (`insert`, `remove`, `update_lines`; 1-based, numbered as the file was, applied
    /// bottom-up, overlapping ones C210), then regex `replace` ops.
    #[schemars(with = "Vec<coderd_edit::update::Op>")]
    ops: Vec<Value>,
}

pub fn update_file(state: &Arc<State>, p: UpdateParams) -> Result<Results> {
    let example = r#"{"files": [{"path": "notes.md", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}"#;
    each("files", &p.files, example, |slot, f| {
        let done = (|| {
            let answer = inner(
                state,
                "update-file",
                json!({"files": [{"path": f.path, "ops": f.ops}]}),
                &[(&slot, "files[0]")],
            )?;
            let file = &answer["files"][0];
            let detail = json!({
                "applied": f.ops.len(),
                "new_line_count": file["new_line_count"],
                "echoes": file["echoes"],
                "echoes_truncated": file["echoes_truncated"],
            });
            Ok((answered_path(&answer, "files", &f.path), detail))
        })();
        let failed =
            json!({"applied": 0, "new_line_count": 0, "echoes": [], "echoes_truncated": false});
        outcome(&f.path, done, failed)
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteParams {
    /// Files, symlinks or folders; each removed or refused on its own.
    paths: Vec<String>,
    /// Required to remove a folder that is not empty (otherwise a per-entry C216).
    #[serde(default)]
    recursive: bool,
    /// Go on when the bytes an entry replaces or removes cannot be kept for `checkpoint
    /// --restore` (over `checkpoint_max_file_bytes`; listed in the answer's `not_kept`).
    #[serde(default)]
    force: bool,
}

pub fn delete_file(state: &Arc<State>, p: DeleteParams) -> Result<Results> {
    each(
        "paths",
        &p.paths,
        r#"{"paths": ["scratch.txt"]}"#,
        |slot, wire| {
            let done = delete_one(state, &slot, wire, (p.recursive, p.force));
            outcome(wire, done, json!({"removed": false}))
        },
    )
}

/// One path: a missing one is a success with `removed: false` (iii's idempotent delete), a
/// root is C210, a non-empty folder without `recursive` is C216. The entry is named as coderd's
/// `delete-file` names it (`edit::paths::entry`): its folder through the jail, its last
/// component as itself, so a symlink is checked, removed and reported as the link, never its
/// target.
fn delete_one(
    state: &Arc<State>,
    field: &str,
    wire: &str,
    (recursive, force): (bool, bool),
) -> Result<(String, Value)> {
    let resolved = paths::entry(state, field, wire).map_err(|e| root_refusal(state, wire, e))?;
    let shown = resolved.abs.display().to_string();
    match paths::entry_exists(state, &resolved) {
        Ok(false) => return Ok((shown, json!({"removed": false}))),
        Err(e) if e.code == Code::NotFound => return Ok((shown, json!({"removed": false}))),
        Err(e) => return Err(e),
        Ok(true) => {}
    }
    match inner(
        state,
        "delete-file",
        json!({"paths": [wire], "recursive": recursive, "force": force}),
        &[(field, "paths[0]")],
    ) {
        Ok(answer) => Ok((
            answered_path(&answer, "deleted", wire),
            json!({"removed": true}),
        )),
        Err(e) if e.data.get("not_empty") == Some(&json!(true)) => {
            Err(Error::io(format!("{wire}: is a folder that is not empty"))
                .with_recovery("pass `recursive: true` to delete it with its contents"))
        }
        Err(e) => Err(e),
    }
}

/// The error for a path that names no entry: iii's C210 when it is an allowed root, `e` else.
fn root_refusal(state: &Arc<State>, wire: &str, e: Error) -> Error {
    let roots = state.jail.roots();
    match state.jail.resolve("path", wire) {
        Ok(r) if roots.iter().any(|root| root.path == r.abs) => Error::bad_input(format!(
            "{wire}: is an allowed root; a root is never deleted"
        ))
        .with_recovery("delete the entries inside it one by one"),
        _ => e,
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveParams {
    /// The moves; each one succeeds or fails on its own.
    files: Vec<MoveItem>,
    /// Go on when the bytes an entry replaces or removes cannot be kept for `checkpoint
    /// --restore` (over `checkpoint_max_file_bytes`; listed in the answer's `not_kept`).
    #[serde(default)]
    force: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveItem {
    from: String,
    to: String,
    /// Replace an existing destination file (default false: C217).
    #[serde(default)]
    overwrite: bool,
    /// Create the destination's missing folders (default true).
    #[serde(default = "yes")]
    parents: bool,
}

pub fn move_entries(state: &Arc<State>, p: MoveParams) -> Result<Results> {
    let example = r#"{"files": [{"from": "a.txt", "to": "b.txt"}]}"#;
    each("files", &p.files, example, |slot, m| {
        let done = move_one(state, &slot, m, p.force);
        outcome(&m.from, done, json!({"to": m.to}))
    })
}

/// One move. A destination that is an existing folder is C210 (iii moves onto a path, never
/// into a folder), whatever `overwrite` says.
fn move_one(state: &Arc<State>, field: &str, m: &MoveItem, force: bool) -> Result<(String, Value)> {
    let from = state.jail.resolve(&format!("{field}.from"), &m.from)?;
    let to = state.jail.resolve(&format!("{field}.to"), &m.to)?;
    let is_dir = |r| state.jail.metadata(r).is_ok_and(|meta| meta.is_dir());
    if from.root != to.root && is_dir(&from) {
        return Err(Error::bad_input(format!(
            "{}: a folder cannot move to another root ({})",
            m.from, m.to
        ))
        .with_recovery("move its files one by one, or move it within its root"));
    }
    if let Ok(meta) = state.jail.metadata(&to) {
        if meta.is_dir() {
            return Err(Error::bad_input(format!(
                "{}: the destination {} is an existing directory",
                m.from, m.to
            ))
            .with_recovery(format!(
                "name the full destination path, e.g. {}/<name>",
                m.to.trim_end_matches('/')
            )));
        }
    }
    let answer = inner(
        state,
        "move",
        json!({"files": [{"from": m.from, "to": m.to,
            "overwrite": m.overwrite, "parents": m.parents}], "force": force}),
        &[("files", "moves"), (field, "moves[0]")],
    )?;
    let moved = &answer["moved"][0];
    let from = moved["from"].as_str().unwrap_or(&m.from).to_string();
    Ok((from, json!({"to": moved["to"]})))
}
