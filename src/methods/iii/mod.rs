//! The `coder::*` ids: exactly the semantics of iii's `coder` worker (its params, its answer
//! shapes, its per-entry batches), over coderd's own methods.
//!
//! Each entry translates iii's params into the coderd method it stands for, calls that method's
//! handler from the table, and reshapes the answer. The batch verbs (`create-file`,
//! `update-file`, `delete-file`, `move`) run one coderd call per entry, so each entry is its own
//! transaction: a good entry commits beside a bad one, whose `{code, message}` is reported in its
//! `results[]` slot (iii's partial success). coderd's own names keep their all-or-nothing
//! transactions. `batch.rs` holds the batch verbs, `views.rs` the read side.

mod batch;
mod views;

use super::state::State;
use super::Method;
use crate::error::{Code, Error, Result};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The `coder::*` ids: found by `methods::find` and described by `schema` beside coderd's own
/// methods, but not listed with them (`info`, MCP tools, `coder --help`): they are iii's surface,
/// registered with the engine by `coderd iii`.
pub static METHODS: std::sync::LazyLock<Vec<Method>> = std::sync::LazyLock::new(methods);

fn methods() -> Vec<Method> {
    vec![
        entry(
            "coder::info",
            "iii: discover the jail: canonical roots, caps, budgets, globs.",
            false,
            views::info,
        ),
        entry(
            "coder::read-file",
            "iii: read a file (stat probe, line window, full read under max_output_bytes, or a paths[] batch); over max_read_bytes is C213.",
            false,
            views::read_file,
        )
        .heavy(|_, params| views::read_is_heavy(params))
        .warms_servers(),
        entry(
            "coder::search",
            "iii: search contents and/or paths: content_matches[] and path_matches[], truncated instead of an error.",
            false,
            views::search,
        )
        .heavy(super::always),
        entry(
            "coder::tree",
            "iii: a recursive snapshot under `root`; cut folders carry truncated {reason, hint}.",
            false,
            views::tree,
        )
        .heavy(super::always),
        entry(
            "coder::list-folder",
            "iii: one folder, by page (page, page_size, has_more); entries flag non_accessible.",
            false,
            views::list_folder,
        ),
        entry(
            "coder::create-file",
            "iii: create files; one result per entry, each its own transaction (partial success), unlike coderd's all-or-nothing `create-file`.",
            true,
            batch::create_file,
        ),
        entry(
            "coder::update-file",
            "iii: line ops and regex replaces; one result per file, each its own transaction (partial success), unlike coderd's all-or-nothing `update-file`.",
            true,
            batch::update_file,
        ),
        entry(
            "coder::delete-file",
            "iii: delete paths; one result per path (a missing path is removed: false), unlike coderd's all-or-nothing `delete-file`.",
            true,
            batch::delete_file,
        ),
        entry(
            "coder::move",
            "iii: move or rename entries; one result per entry, unlike coderd's all-or-nothing `move`.",
            true,
            batch::move_entries,
        ),
    ]
}

/// A `coder::*` entry: no `diagnostics` switch (iii's schemas do not have one) and no language
/// server warming; a mutating one still gets the automatic checkpoint before it.
fn entry<P, R>(
    name: &'static str,
    summary: &'static str,
    mutates: bool,
    handler: fn(&Arc<State>, P) -> Result<R>,
) -> Method
where
    P: DeserializeOwned + JsonSchema + 'static,
    R: Serialize + 'static,
{
    Method {
        schema: super::schema_of::<P>,
        diagnostics_after: false,
        ..super::method(name, &[], summary, mutates, handler)
    }
}

/// Calls coderd's own method `name` with `params` through the table (its handler alone: the
/// `coder::*` entry around it already took the checkpoint), and parses its answer.
fn inner(state: &Arc<State>, name: &str, params: Value) -> Result<Value> {
    let method = super::find(name).ok_or_else(|| super::unknown(name))?;
    let raw = (method.call)(state, params)?;
    serde_json::from_str(raw.get())
        .map_err(|e| Error::io(format!("reading the answer of `{name}`: {e}")))
}

/// A failed entry of a batch, as iii reports it.
#[derive(Serialize, JsonSchema)]
pub struct EntryError {
    pub code: String,
    pub message: String,
}

/// An error as iii words it: `wire` (the path the caller sent) first, and for C211 one message
/// whether the path is missing or denied by policy, so the answer is no existence oracle.
pub fn iii_error(wire: &str, e: Error) -> Error {
    match e.code {
        Code::NotFound => Error::not_found(not_found_message(wire)).with_recovery(
            "check the path with coder::list-folder; coder::info lists the non_accessible_globs",
        ),
        _ => e,
    }
}

/// The one C211 wording of the `coder::*` ids.
pub fn not_found_message(wire: &str) -> String {
    format!("{wire}: no such file or directory, or non-accessible by workspace policy")
}

impl EntryError {
    pub fn of(wire: &str, e: Error) -> EntryError {
        let e = iii_error(wire, e);
        let message = match &e.recovery {
            Some(hint) => format!("{} (hint: {hint})", e.message),
            None => e.message.clone(),
        };
        EntryError {
            code: e.code.as_str().to_string(),
            message,
        }
    }
}

/// An empty batch is a top-level C210 naming the field.
fn require_entries(field: &str, len: usize, example: &str) -> Result<()> {
    match len {
        0 => {
            Err(Error::bad_input(format!("`{field}` is empty")).with_recovery(example.to_string()))
        }
        _ => Ok(()),
    }
}

/// A JSON object from pairs, leaving out the `None`s.
fn object(pairs: &[(&str, Option<Value>)]) -> Value {
    let map = pairs
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
        .collect();
    Value::Object(map)
}

fn some<T: Into<Value>>(v: Option<T>) -> Option<Value> {
    v.map(Into::into)
}
